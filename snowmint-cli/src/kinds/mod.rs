//! The kinds of ID, each an [`IdKind`](crate::id_kind::IdKind) in a file of its own: the 64-bit
//! IDs of a layout (`snowflake.rs`), sno's (`sno.rs`), and the 128-bit UUIDv7s and ULIDs
//! (`id128.rs`, over the families in `uuid7.rs` and `ulid.rs`).

mod id128;
mod sno;
mod snowflake;
mod ulid;
mod uuid7;

pub(crate) use id128::Id128;
pub(crate) use sno::Sno;
pub(crate) use snowflake::JSON_KEYS;
