//! Sharding: splitting one node ID's sequence between generators, and per-core shards.
//!
//! One generator is one cache line that every minting thread writes. Past a couple of busy
//! cores that line, not the clock, bounds throughput. Two ways out keep IDs unique:
//!
//! - [`SequenceRanges`] splits a layout's sequence into disjoint ranges, one per generator
//!   ([`GeneratorBuilder::sequence_range`]): generators with the same node fields and
//!   disjoint ranges never mint the same ID (sno's `SequenceMin`/`SequenceMax`).
//! - [`ShardedGenerator`] owns k generators, each on its own cache lines, either sharing the
//!   node fields with disjoint ranges ([`Shards::SplitSequence`]) or each with its own value
//!   of a node field ([`Shards::NodeBlock`]). Each thread that mints from it holds a shard of
//!   its own while there are free shards, so threads on different cores write different lines.
//!
//! [`GeneratorBuilder::sequence_range`]: crate::GeneratorBuilder::sequence_range

mod build;
mod claims;
mod ranges;
mod runs;
mod sharded;

pub use build::Shards;
pub use ranges::{MAX_PARTS, SequenceRanges};
pub use sharded::ShardedGenerator;
