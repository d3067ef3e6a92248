//! Building a sharded generator, or one generator per core: [`Shards`] says how the shards'
//! IDs are kept apart, and the [`GeneratorBuilder`] methods that build them live here, so the
//! generator's builder knows no shard.

use std::ops::RangeInclusive;

use super::ranges::{MAX_PARTS, SequenceRanges};
use super::sharded::ShardedGenerator;
use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::generator::{GeneratorBuilder, LocalGenerator};
use crate::layout::{FixedLayout, LayoutKind};

/// How a [`ShardedGenerator`] keeps its shards' IDs apart.
///
/// # Examples
///
/// ```
/// use snowmint::{Generator, Layout, shard::Shards};
///
/// let split = Generator::builder(Layout::TWITTER).node("machine", 1).build_sharded(Shards::SplitSequence(4))?;
/// let block = Generator::builder(Layout::TWITTER)
///     .build_sharded(Shards::NodeBlock { field: "machine", values: 8..=9 })?;
/// assert_eq!((split.len(), block.len()), (4, 2));
/// assert_eq!(block.shard(1).unwrap().decode(block.shard(1).unwrap().mint()?)?.node("machine"), Some(9));
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Shards<'a> {
    /// This many shards, all with the builder's node fields, each with its own part of the
    /// builder's sequence range (the whole field by default), as [`SequenceRanges::split_range`]
    /// cuts it. Each shard then mints at most its part's share of a tick.
    SplitSequence(usize),
    /// One shard per value in `values` of the node field `field`, each with the builder's
    /// whole sequence range: a block of node IDs granted to this process.
    NodeBlock {
        /// The node field the shards differ in (`machine`, `worker`, ...).
        field: &'a str,
        /// The values granted, one per shard.
        values: RangeInclusive<u64>,
    },
}

/// One builder per shard of `builder`'s generator, each with its part of the sequence or its
/// node value, and the clock they are to share: for [`GeneratorBuilder::build_sharded`] and
/// [`GeneratorBuilder::build_local_shards`].
fn shard_builders<C>(
    builder: GeneratorBuilder<C>,
    shards: Shards<'_>,
) -> Result<(Vec<GeneratorBuilder>, C)> {
    let layout = *builder.layout();
    let invalid = |reason: String| Error::InvalidShards {
        layout: layout.name(),
        reason,
    };
    if builder.resumes() {
        return Err(invalid(
            "a sharded generator does not resume from one generator's snapshot; resume \
             each shard with Generator::resume and its own snapshot"
                .to_owned(),
        ));
    }
    let (builder, clock) = builder.take_clock();
    let builders = match shards {
        Shards::SplitSequence(count) => {
            let range = builder.range().unwrap_or(0..=layout.max_sequence());
            SequenceRanges::split_range(&layout, range, count)?
                .iter()
                .map(|range| builder.clone().sequence_range(range.clone()))
                .collect()
        }
        Shards::NodeBlock { field, values } => {
            if values.start() > values.end() {
                return Err(invalid(format!(
                    "the block of {field} values {values:?} is empty; expected at least one \
                     value"
                )));
            }
            // Checked before a builder is made: the field, the block's first value past it
            // (if any), then the number of shards.
            layout.node_bits(&[(field, *values.start())])?;
            let max = layout
                .node_fields()
                .find(|f| f.name() == field)
                .map_or(0, |f| f.max());
            if *values.end() > max {
                layout.node_bits(&[(field, max + 1)])?;
            }
            let count = values.end() - values.start() + 1;
            if count > MAX_PARTS as u64 {
                return Err(invalid(format!(
                    "the block of {field} values {values:?} has {count} values; expected at \
                     most {MAX_PARTS} shards"
                )));
            }
            values
                .map(|value| builder.clone().node(field, value))
                .collect()
        }
    };
    Ok((builders, clock))
}

/// The sharded and per-core builds: the generator's builder knows no shard.
impl<C: Clock> GeneratorBuilder<C> {
    /// Validates the configuration and builds a [`ShardedGenerator`] whose shards share the
    /// clock given.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShards`] for a shard count of 0 or more than the sequence range has
    /// values (or than [`MAX_PARTS`]), an empty node block or one of more than [`MAX_PARTS`]
    /// values, and a builder that resumes a snapshot; [`Error::InvalidSequenceRange`] for a
    /// bad sequence range; and the errors of [`build`](Self::build), a node block past its
    /// field included.
    ///
    /// [`MAX_PARTS`]: crate::shard::MAX_PARTS
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_sharded(Shards::SplitSequence(2))?;
    /// assert_eq!(generator.len(), 2);
    /// let err = Generator::builder(Layout::TWITTER).node("machine", 1).build_sharded(Shards::SplitSequence(0));
    /// assert!(err.is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn build_sharded(self, shards: Shards<'_>) -> Result<ShardedGenerator<C>> {
        let (builders, clock) = shard_builders(self, shards)?;
        ShardedGenerator::from_builders(builders, clock)
    }

    /// Validates the configuration and builds one [`LocalGenerator`] per shard, each on a
    /// clone of the clock given: for servers that run one thread per core, each owning its
    /// generator. The shards' IDs never collide, as a [`ShardedGenerator`]'s do not, and
    /// each mints with a load and a store instead of a compare-and-swap.
    ///
    /// Clones of a [`CachedClock`](crate::clock::CachedClock) (the default) share one reading;
    /// clones of a [`MonotonicClock`](crate::clock::MonotonicClock) each keep their own anchor.
    ///
    /// # Errors
    ///
    /// As for [`build_sharded`](Self::build_sharded).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, shard::Shards};
    ///
    /// // Machines 8 to 11 granted to this process: one per core's thread.
    /// let generators = Generator::builder(Layout::TWITTER)
    ///     .build_local_shards(Shards::NodeBlock { field: "machine", values: 8..=11 })?;
    /// assert_eq!(generators.len(), 4);
    /// let parts = generators[3].decode(generators[3].mint()?)?;
    /// assert_eq!(parts.node("machine"), Some(11));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn build_local_shards(self, shards: Shards<'_>) -> Result<Vec<LocalGenerator<C>>>
    where
        C: Clone,
    {
        self.local_shards(shards)
    }

    /// [`build_local_shards`](Self::build_local_shards) for generators whose type fixes their
    /// layout, as [`build_local_fixed`](Self::build_local_fixed) builds one.
    ///
    /// # Errors
    ///
    /// [`Error::LayoutMismatch`](crate::Error::LayoutMismatch) when the builder's layout is not
    /// `L::LAYOUT`, and those of [`build_local_shards`](Self::build_local_shards).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::layout::Twitter;
    /// use snowmint::{Generator, Layout, LocalGenerator, shard::Shards};
    ///
    /// let generators: Vec<LocalGenerator<_, Twitter>> = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 3)
    ///     .build_local_shards_fixed(Shards::SplitSequence(2))?;
    /// assert_ne!(generators[0].mint()?, generators[1].mint()?);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn build_local_shards_fixed<L: FixedLayout>(
        self,
        shards: Shards<'_>,
    ) -> Result<Vec<LocalGenerator<C, L>>>
    where
        C: Clone,
    {
        self.layout_is::<L>()?;
        self.local_shards(shards)
    }

    /// A per-thread generator for each shard, of layout kind `L`.
    fn local_shards<L: LayoutKind>(self, shards: Shards<'_>) -> Result<Vec<LocalGenerator<C, L>>>
    where
        C: Clone,
    {
        let (builders, clock) = shard_builders(self, shards)?;
        builders
            .into_iter()
            .map(|builder| builder.clock(clock.clone()).build_on())
            .collect()
    }
}
