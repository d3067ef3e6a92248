//! The integrations, each behind its feature, apart from the core: serde's forms of IDs,
//! layouts and snapshots, their JSON schemas (schemars), IDs in database columns (postgres,
//! sqlx, rusqlite), and the 128-bit IDs' serde forms, schemas and `uuid`/`ulid` conversions.
//! Node IDs leased from etcd are the crate `snowmint-etcd`.

#[cfg(any(
    feature = "serde",
    feature = "schemars",
    feature = "uuid",
    feature = "ulid"
))]
mod id128;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "rusqlite")]
mod rusqlite;
#[cfg(feature = "schemars")]
mod schemars;
#[cfg(feature = "serde")]
pub(crate) mod serde;
#[cfg(any(feature = "sqlx", feature = "sqlx-0_8"))]
mod sqlx;
