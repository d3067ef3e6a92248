//! Lock-free Snowflake-style unique IDs for the hot path.
//!
//! snowmint mints 64-bit, time-ordered unique IDs in the Snowflake family (Twitter, Discord,
//! Instagram, Mastodon, Sonyflake, Nanoflake, Snowflake-SI, the chat protocol's 42/5/5/12, and
//! layouts of your own), from any number of threads, with one compare-and-swap per ID.
//!
//! # Design
//!
//! - A [`Layout`] is data: the width and order of each field, the tick length and the epoch,
//!   checked once (at compile time for constants).
//! - A [`Generator`] keeps its whole state, the last tick and sequence, in one `AtomicU64`,
//!   in a cache-padded block it shares only with its read-only masks. Each mint loads it,
//!   reads the clock once and compare-and-swaps the next state: no lock, no allocation, no
//!   system call. Uniqueness rests on
//!   the modification order of that one word (see the generator module's `# Orderings`).
//! - A [`Clock`] gives Unix milliseconds. The default is [`CachedClock::global`], read with
//!   one load ([`CachedClock`] says how it stays fresh); [`MonotonicClock`] (quanta's counter
//!   anchored to the wall clock) is for users who want no thread; [`ManualClock`] is for
//!   tests. The [`clock`] module's table compares them.
//! - When a tick's sequence is exhausted, [`Generator::mint`] waits for the next tick and
//!   [`Generator::try_mint`] returns [`Error::SequenceExhausted`]. When a clock reads behind
//!   the last tick, the [`ClockBehind`] policy waits (bounded), fails, or (tick-tock) moves to
//!   the other timeline; [`Generator::snapshot`] and [`Generator::resume`] carry the state
//!   across restarts.
//! - For throughput: [`Generator::mint_batch`] reserves many consecutive IDs with one
//!   compare-and-swap; [`GeneratorBuilder::sequence_range`] and [`SequenceRanges`] let
//!   generators share a node ID by splitting the sequence; a [`ShardedGenerator`] gives each
//!   thread its own shard on its own cache line; a [`LocalGenerator`] is a generator one thread
//!   owns, minting with a load and a store ([`GeneratorBuilder::build_local_shards`] gives one to
//!   each core's thread); [`GeneratorBuilder::borrow_ahead`] lets a
//!   burst run a bounded number of ticks ahead of the clock instead of waiting.
//! - For a fleet: [`NodeIdSource`] takes a node ID from a value, an environment variable or a
//!   Kubernetes StatefulSet ordinal; the crate `snowmint-etcd` leases the lowest free node ID
//!   of a range from etcd and mints only while the lease is known live (a local deadline on
//!   the boot clock) and below a mark kept in etcd.
//! - Across `fork()`: the child holds a copy of every generator's state and node ID, so a
//!   generator built before the fork fails in the child with [`Error::Forked`] (naming both
//!   process IDs) instead of minting its parent's IDs; the parent's generators mint on. Build
//!   a new generator in the child, with a node ID of its own ([`docs::fleets`] says where
//!   from). The check costs a mint one load and compare, in a branch it already takes.
//! - An [`Id`] is a `u64` newtype; [`Layout::decode`] gives its [`Parts`].
//! - A [`SnoId`] is sno's 10-byte ID (time, tick-tock bit, metabyte, partition, sequence) with
//!   its 16-character text form (also its serde form); a [`SnoGenerator`] mints it on the same
//!   one-word hot path, the partition fixed and the metabyte set once or given per mint.
//!
//! # Where things are
//!
//! The root holds what nearly every user needs: [`Generator`], its [`GeneratorBuilder`] and
//! [`LocalGenerator`], the [`Mint`] trait every generator implements (with [`Attempt`] and
//! [`OnFull`]), [`Layout`], [`Id`] and its [`Parts`], [`Error`] and [`Result`],
//! [`ClockBehind`], [`Clock`] and [`Snapshot`]. The rest is by topic: [`clock`] (the clocks,
//! and RFC 3339 text of a time), [`layout`] (custom layouts and their fields), [`encoding`]
//! (text forms), [`shard`] (sequence ranges, sharded and per-core generators), [`mark`] (the
//! mark kept ahead of minting, in a file or another store, and durable file replacement),
//! [`node_id`] (where node IDs come from), [`generator`] (counters, events, state words) and
//! [`error`]; [`sno`] has sno's IDs, [`id128`] 128-bit IDs (UUIDv7 and ULID), and [`family`]
//! the one generator both mint with; [`docs`] has the guides.
//!
//! # Feature flags
//!
//! All off by default. The default build depends on `quanta`, `crossbeam-utils`, `thiserror` and
//! `getrandom`, and on Unix on `libc` (the fork handlers) and `rustix` (the mark file's lock); it
//! needs neither `protoc` nor etcd. The minimum Rust is 1.87 (quanta 0.13's); `sqlx` needs 1.94.
//!
//! - **`serde`**: `Serialize`/`Deserialize` for `Id` (a decimal string by default; a number per
//!   field with `serde_id::number`), `Layout` and `Snapshot`. Pulls `serde` 1.
//! - **`schemars`**: `JsonSchema` for `Id` (a decimal string with its pattern) and `SnoId`, as
//!   they serialize, for OpenAPI generators. Pulls `schemars` 1 (and the `serde` feature).
//! - **`tracing`**: one `tracing` event (target `snowmint`) per overflow (`debug`), clock
//!   regression (`warn`), tick-tock toggle (`warn`) and borrowed tick (`debug`); from the cold
//!   paths only, beside the counters of `generator::Stats` (the hot path is unchanged). Pulls
//!   `tracing` 0.1.
//! - **`tokio`**: `snowmint::tokio::MintAsync`: `mint_async` and `mint_batch_async` on every
//!   generator, waiting on Tokio's timer instead of blocking the thread; cancel safe. Pulls
//!   `tokio` 1 (`time`).
//! - **`smol`**: `snowmint::smol::MintAsync`: the same on smol's timer. Pulls `async-io` 2,
//!   smol's reactor, without its executor.
//! - **`uuid`**: `From<Uuid7> for uuid::Uuid` and `TryFrom<uuid::Uuid> for Uuid7` (`id128`).
//!   Pulls `uuid` 1.
//! - **`ulid`**: `From<Ulid> for ulid::Ulid` and back (`id128`). Pulls `ulid` 3.
//! - **`mask`**: `snowmint::mask`: opaque IDs for the public, a keyed permutation of the ID
//!   space that hides time, node and counts and maps back exactly. Pulls `speck-cipher` 0.1
//!   (RustCrypto's Speck64/128).
//! - **`postgres`**: `ToSql`/`FromSql` for `Id` as PostgreSQL's `BIGINT`, and for `Uuid7` and
//!   `Ulid` as its `uuid`, for the `postgres` 0.19 and `tokio-postgres` 0.7 clients. Checked
//!   both ways, as for every database feature: an ID above `i64::MAX` is
//!   `Error::IdTooLargeForI64`, a negative value `Error::NegativeId` (which presets outgrow
//!   `i64`, and when: `docs::text_and_paging`), a `uuid` read as a `Uuid7` must be a UUIDv7.
//!   Pulls `postgres-types` 0.2 and `bytes`.
//! - **`sqlx`**: sqlx 0.9's `Type`/`Encode`/`Decode` for `Id` as a signed 64-bit integer on
//!   every sqlx database (PostgreSQL `BIGINT`, SQLite `INTEGER`, MySQL `BIGINT`). Pulls `sqlx`
//!   0.9 without its default features (the drivers, runtime and TLS stay the application's
//!   choice); sqlx 0.9 needs Rust 1.94.
//! - **`sqlx-postgres`**: `sqlx`, and `Uuid7` and `Ulid` as PostgreSQL's `uuid` (and
//!   `uuid[]`). Also turns on sqlx's `postgres` (its driver's types), which `sqlx` alone leaves
//!   off for SQLite and MySQL users.
//! - **`sqlx-0_8`**: the same as `sqlx` for sqlx 0.8 (Rust 1.87). Pulls `sqlx` 0.8 without its
//!   default features; combines with `sqlx`. docs.rs shows the `sqlx` feature's impls, which
//!   are the same for sqlx 0.8.
//! - **`sqlx-0_8-postgres`**: the same as `sqlx-postgres` for sqlx 0.8.
//! - **`rusqlite`**: rusqlite's `ToSql`/`FromSql` for `Id` as SQLite's `INTEGER`, and for
//!   `Uuid7` and `Ulid` as a 16-byte `BLOB` (big-endian, so it sorts in time order), for
//!   rusqlite 0.32 through 0.43, whichever the application depends on (with Rust 1.87, 0.40 at
//!   most: 0.43 needs 1.89). Pulls `rusqlite` (bundled or system SQLite: the application's own
//!   rusqlite features decide).
//!
//! Node IDs leased from etcd, fenced, with a mark kept in etcd, are the crate `snowmint-etcd`
//! (its build needs `protoc`).
//!
//! # Examples
//!
//! ```
//! use snowmint::{Generator, Layout};
//!
//! let generator = Generator::builder(Layout::DISCORD)
//!     .node("worker", 1)
//!     .node("process", 7)
//!     .build()?;
//! let id = generator.mint()?;
//! let parts = generator.decode(id)?;
//! assert_eq!(parts.node("worker"), Some(1));
//! assert_eq!(parts.node("process"), Some(7));
//! assert!(generator.mint()? > id);
//! # Ok::<(), snowmint::Error>(())
//! ```
//!
//! [`CachedClock`]: crate::clock::CachedClock
//! [`CachedClock::global`]: crate::clock::CachedClock::global
//! [`ManualClock`]: crate::clock::ManualClock
//! [`MonotonicClock`]: crate::clock::MonotonicClock
//! [`NodeIdSource`]: crate::node_id::NodeIdSource
//! [`SequenceRanges`]: crate::shard::SequenceRanges
//! [`ShardedGenerator`]: crate::shard::ShardedGenerator
//! [`SnoGenerator`]: crate::sno::SnoGenerator
//! [`SnoId`]: crate::sno::SnoId

// Lints: the workspace's (`[workspace.lints]` in Cargo.toml); `unsafe_code` is denied there,
// with two exceptions: registering the fork handlers in `fork.rs` and one load in
// `shard/runs.rs` (see each `// SAFETY:`).
// docs.rs (`--cfg docsrs`, nightly) marks each feature-gated item with its feature.
#![cfg_attr(docsrs, feature(doc_cfg))]

// `snowmint::tokio` and `snowmint::smol`: async minting on each runtime's timer.
#[cfg(any(feature = "tokio", feature = "smol"))]
mod asynch;
pub mod clock;
/// Guides, doctested: clocks and clock faults, throughput, fleets, text forms and paging, sno;
/// and the internals (not part of the stability guarantees).
pub mod docs;
pub mod encoding;
pub mod error;
mod external;
pub mod family;
mod fork;
pub mod generator;
mod id;
pub mod id128;
pub mod layout;
pub mod mark;
#[cfg(feature = "mask")]
#[cfg_attr(docsrs, doc(cfg(feature = "mask")))]
pub mod mask;
mod mint;
pub mod node_id;
// snowmint's own fault-injection tests pause threads at its points; not part of the API.
#[cfg(snowmint_pause_points)]
#[doc(hidden)]
pub mod pause;
#[cfg(not(snowmint_pause_points))]
mod pause;
pub mod shard;
pub mod sno;
mod sync;
mod trace;

#[cfg(any(feature = "tokio", feature = "smol"))]
pub use asynch::*;
pub use clock::Clock;
pub use error::{Error, Result};
#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
pub use external::serde::serde_id;
pub use generator::{ClockBehind, Generator, GeneratorBuilder, LocalGenerator, Snapshot};
pub use id::Id;
pub use layout::{Layout, Parts};
pub use mint::{Attempt, Mint, OnFull};

/// The README's Rust examples, run as doctests. They are written as whole programs, without
/// rustdoc's hidden lines (which the README would show), and one needs `serde`: they run with
/// that feature (as in CI, with every feature); `tests/readme.rs` keeps hidden lines out.
#[cfg(all(doctest, feature = "serde"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
