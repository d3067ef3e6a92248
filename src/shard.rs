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

mod claims;
mod runs;

use std::fmt;
use std::ops::RangeInclusive;

use crate::clock::{Clock, DefaultClock};
use crate::error::{Error, Result};
use crate::generator::{Generator, GeneratorBuilder, LocalGenerator, Stats};
use crate::id::Id;
use crate::layout::Layout;
use crate::mint::{Attempt, Mint, OnFull};
use crate::sync::Ordering;
use claims::Claims;
// `std`'s `Arc` under loom too: the shards' shared clock is read-only to them, outside the
// atomics that make IDs unique.
use std::sync::Arc;

/// The most parts [`SequenceRanges::split_range`] cuts a range into, and the most shards a
/// [`ShardedGenerator`] or [`GeneratorBuilder::build_local_shards`] builds: each is a
/// generator of its own, and a count beyond this is a mistake, not a deployment.
///
/// # Examples
///
/// ```
/// use snowmint::{Layout, shard::{MAX_PARTS, SequenceRanges}};
///
/// let wide = Layout::builder("wide", 64).time(40).sequence(24).build()?;
/// assert_eq!(SequenceRanges::split(&wide, MAX_PARTS)?.len(), MAX_PARTS);
/// assert!(SequenceRanges::split(&wide, MAX_PARTS + 1).is_err());
/// # Ok::<(), snowmint::Error>(())
/// ```
pub const MAX_PARTS: usize = 1 << 16;

/// Disjoint, non-empty ranges of one layout's sequence values, one per generator that shares
/// a node ID with the others.
///
/// [`split`](Self::split) cuts a range into k parts whose sizes differ by at most one;
/// [`new`](Self::new) checks ranges chosen by hand. Either way every range is non-empty and
/// inside the layout's sequence field, and no two overlap.
///
/// # Examples
///
/// ```
/// use snowmint::{Generator, Layout, shard::SequenceRanges};
///
/// let ranges = SequenceRanges::split(&Layout::TWITTER, 3)?;
/// assert_eq!(ranges.as_slice(), [0..=1365, 1366..=2730, 2731..=4095]);
///
/// // One generator per range, all with machine 7: their IDs never collide.
/// let generators = ranges
///     .iter()
///     .map(|range| {
///         Generator::builder(Layout::TWITTER).node("machine", 7).sequence_range(range.clone()).build()
///     })
///     .collect::<Result<Vec<_>, _>>()?;
/// assert_eq!(generators.len(), 3);
///
/// let err = SequenceRanges::new(&Layout::TWITTER, [0..=99, 50..=199]).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "sequence ranges 0..=99 and 50..=199 for layout twitter overlap; expected disjoint ranges"
/// );
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SequenceRanges {
    ranges: Vec<RangeInclusive<u64>>,
}

impl SequenceRanges {
    /// Splits the layout's whole sequence field into `parts` disjoint ranges, in order.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShards`] when `parts` is 0 or more than the field has values.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Layout, shard::SequenceRanges};
    ///
    /// let ranges = SequenceRanges::split(&Layout::TWITTER, 4)?;
    /// assert_eq!(ranges.as_slice()[3], 3072..=4095);
    /// assert!(SequenceRanges::split(&Layout::TWITTER, 0).is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn split(layout: &Layout, parts: usize) -> Result<SequenceRanges> {
        Self::split_range(layout, 0..=layout.max_sequence(), parts)
    }

    /// Splits `range` of the layout's sequence values into `parts` disjoint ranges, in order;
    /// the first `len % parts` ranges hold one value more than the others.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidSequenceRange`] for an empty range or one past the sequence field, and
    /// [`Error::InvalidShards`] when `parts` is 0, more than the range has values, or more than
    /// [`MAX_PARTS`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Layout, shard::SequenceRanges};
    ///
    /// // This process owns the upper half of machine 3's sequence; split it between 2 shards.
    /// let ranges = SequenceRanges::split_range(&Layout::TWITTER, 2048..=4095, 2)?;
    /// assert_eq!(ranges.as_slice(), [2048..=3071, 3072..=4095]);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn split_range(
        layout: &Layout,
        range: RangeInclusive<u64>,
        parts: usize,
    ) -> Result<SequenceRanges> {
        let range = layout.check_sequence_range(&range)?;
        let (start, end) = (*range.start(), *range.end());
        // At most 2^63 values: a sequence field is narrower than the whole ID.
        let values = end - start + 1;
        // Checked before anything is allocated: at most one part per value, and at most
        // `MAX_PARTS` parts.
        let most = values.min(MAX_PARTS as u64);
        let Some(count) = u64::try_from(parts)
            .ok()
            .filter(|&n| (1..=most).contains(&n))
        else {
            return Err(Error::InvalidShards {
                layout: layout.name(),
                reason: format!(
                    "cannot split the {values} sequence values {start}..={end} into {parts} \
                     non-empty ranges; expected 1..={most} parts"
                ),
            });
        };
        let (size, extra) = (values / count, values % count);
        let mut next = start;
        let ranges = (0..count)
            .map(|i| {
                let len = size + u64::from(i < extra);
                let part = next..=next + len - 1;
                next += len;
                part
            })
            .collect();
        Ok(SequenceRanges { ranges })
    }

    /// Checks ranges chosen by hand: each non-empty and inside the layout's sequence field,
    /// no two sharing a value. The order given is kept.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidSequenceRange`] for an empty range or one past the sequence field,
    /// [`Error::SequenceRangesOverlap`] naming two ranges that share a value, and
    /// [`Error::InvalidShards`] for no ranges at all.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Layout, shard::SequenceRanges};
    ///
    /// let ranges = SequenceRanges::new(&Layout::TWITTER, [1024..=4095, 0..=1023])?;
    /// assert_eq!(ranges.as_slice(), [1024..=4095, 0..=1023]); // the order given
    /// assert!(SequenceRanges::new(&Layout::TWITTER, [0..=4096]).is_err()); // past the field
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn new(
        layout: &Layout,
        ranges: impl IntoIterator<Item = RangeInclusive<u64>>,
    ) -> Result<SequenceRanges> {
        let ranges = ranges
            .into_iter()
            .map(|range| layout.check_sequence_range(&range))
            .collect::<Result<Vec<_>>>()?;
        if ranges.is_empty() {
            return Err(Error::InvalidShards {
                layout: layout.name(),
                reason: "no sequence ranges were given; expected at least one".to_owned(),
            });
        }
        let mut sorted: Vec<&RangeInclusive<u64>> = ranges.iter().collect();
        sorted.sort_by_key(|range| range.start());
        if let Some(pair) = sorted
            .windows(2)
            .find(|pair| pair[1].start() <= pair[0].end())
        {
            return Err(Error::SequenceRangesOverlap {
                layout: layout.name(),
                first: pair[0].clone(),
                second: pair[1].clone(),
            });
        }
        Ok(SequenceRanges { ranges })
    }

    /// The ranges, in order.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Layout, shard::SequenceRanges};
    ///
    /// let ranges = SequenceRanges::split(&Layout::TWITTER, 2)?;
    /// assert_eq!(ranges.as_slice(), [0..=2047, 2048..=4095]);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn as_slice(&self) -> &[RangeInclusive<u64>] {
        &self.ranges
    }

    /// An iterator over the ranges, in order.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Layout, shard::SequenceRanges};
    ///
    /// let ranges = SequenceRanges::split(&Layout::TWITTER, 3)?;
    /// let sizes: Vec<u64> = ranges.iter().map(|r| r.end() - r.start() + 1).collect();
    /// assert_eq!(sizes, [1366, 1365, 1365]);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn iter(&self) -> std::slice::Iter<'_, RangeInclusive<u64>> {
        self.ranges.iter()
    }

    /// How many ranges there are (at least one).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Layout, shard::SequenceRanges};
    ///
    /// assert_eq!(SequenceRanges::split(&Layout::TWITTER, 5)?.len(), 5);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Always `false`: a set holds at least one range.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Layout, shard::SequenceRanges};
    ///
    /// assert!(!SequenceRanges::split(&Layout::TWITTER, 1)?.is_empty());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

impl<'a> IntoIterator for &'a SequenceRanges {
    type Item = &'a RangeInclusive<u64>;
    type IntoIter = std::slice::Iter<'a, RangeInclusive<u64>>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

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

/// A generator made of k independent shards, each a [`Generator`] on its own cache lines; each
/// thread that mints from it holds a shard of its own while there are free shards.
///
/// Threads on different cores then never write the same cache line, so minting scales with
/// cores instead of bouncing one line between them. IDs are unique across shards: the shards
/// split one node ID's sequence, or each has its own node ID ([`Shards`]).
///
/// # Ordering
///
/// - Each thread's IDs strictly increase (under the `Wait` and `Error`
///   [`ClockBehind`](crate::ClockBehind) policies): those it mints through the generator and
///   those it mints from its own shard ([`local`](Self::local), a handle kept from it, the
///   batch methods), in any mix, and in its thread-local destructors too. A thread takes its
///   shard's IDs in runs: one compare-and-swap reserves a run of the shard's next IDs on the
///   tick the clock reads, and the thread hands them out one per mint, with no
///   read-modify-write, while the clock reads the same and the shard has minted nothing since
///   (through any handle, on any thread). A run starts at one ID and doubles each time the
///   thread uses one up, up to an eighth of the shard's tick (at most 1,024 IDs); what is
///   left when the reading changes or the shard mints is never handed out. A shard reached by
///   index ([`shard`](Self::shard), [`shards`](Self::shards)) that is not the thread's own is
///   a generator of its own: its IDs are outside the thread's order.
/// - Across threads, IDs are ordered by time to the tick: an ID minted after another one was
///   returned (on any thread) carries a tick at least as late, for a clock that never reads
///   backwards (the default clock, a [`MonotonicClock`](crate::clock::MonotonicClock)). A
///   clock that steps back is met by each shard's [`ClockBehind`](crate::ClockBehind) policy
///   against that shard's own last tick: a thread's run is never handed out below an ID its
///   shard already returned, but another shard, which minted nothing on the later tick, mints
///   on the earlier one. Within a tick, the order across shards is by node ID or sequence
///   range, and the order between threads sharing a shard by run, not by minting time.
///   With [`borrow_ahead(n)`](GeneratorBuilder::borrow_ahead), a shard that borrowed runs up to
///   `n` ticks ahead of the others, so the order across shards holds to within `n` ticks.
/// - Tasks of an async runtime move between threads, so between shards: a task's IDs are
///   unique but need not increase. A task that needs its own IDs in order mints from a shared
///   [`Generator`], whose every ID is above all it returned before, on any thread.
///
/// # Which thread mints from which shard
///
/// The first time a thread mints from a sharded generator it claims that generator's lowest
/// free shard, keeps it while it lives (so its IDs keep increasing), and gives it back when
/// it exits (a thread-local destructor that mints after that shares the shard whose last ID
/// is the highest, so its IDs still increase). So up to k threads that mint from the
/// generator at once (say one per core) each have a shard to itself, whatever other sharded
/// generators they or other threads mint from. A thread that finds every shard taken shares one, round robin over the shards, and
/// keeps it; sharers still get unique IDs, with the usual compare-and-swap between them.
/// [`shard`](Self::shard) reaches a shard by index, for thread-per-core runtimes that know
/// their core.
///
/// # Examples
///
/// ```
/// use snowmint::{Generator, Layout, shard::Shards};
/// use std::collections::HashSet;
/// use std::thread;
///
/// let generator = Generator::builder(Layout::TWITTER)
///     .node("machine", 7)
///     .build_sharded(Shards::SplitSequence(2))?;
/// let ids: Vec<_> = thread::scope(|s| {
///     let workers: Vec<_> = (0..2)
///         .map(|_| s.spawn(|| (0..1000).map(|_| generator.mint().unwrap()).collect::<Vec<_>>()))
///         .collect();
///     workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
/// });
/// assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 2000);
/// # Ok::<(), snowmint::Error>(())
/// ```
pub struct ShardedGenerator<C = DefaultClock> {
    /// `claims`' id, the key of each thread's run, kept here so the hot path reads it without
    /// following the `Arc`.
    id: u64,
    /// The shards' clock, read on the hot path to tell whether a thread's run is current.
    clock: Arc<C>,
    /// The most IDs a thread reserves in one run (see `runs`).
    run_cap: u64,
    /// One sequence step, and every bit but the node fields', in ID coordinates: the same in
    /// every shard, which share the layout (see `runs::take`).
    step: u64,
    state_bits: u64,
    shards: Box<[Generator<Arc<C>>]>,
    /// Which thread holds which shard.
    claims: Arc<Claims>,
}

impl<C: Clock> ShardedGenerator<C> {
    /// The sharded generator over `builders`, one shard each, sharing `clock`: the builders
    /// [`shard_builders`] makes, for [`GeneratorBuilder::build_sharded`].
    pub(crate) fn from_builders(builders: Vec<GeneratorBuilder>, clock: C) -> Result<Self> {
        // Before any thread can hold a run of this generator's IDs.
        runs::IN_CHILD.register();
        let clock = Arc::new(clock);
        let shards = builders
            .into_iter()
            .map(|builder| {
                let shard = builder.clock(Arc::clone(&clock)).build()?;
                Ok(shard.named("ShardedGenerator"))
            })
            .collect::<Result<Vec<_>>>()?;
        let claims = Arc::new(Claims::new(shards.len()));
        // An eighth of the smallest shard's tick: a run a thread leaves over when its reading
        // changes is capacity its shard's sharers cannot use on that tick.
        let run_cap = shards
            .iter()
            .map(|shard| shard.ids_per_tick() / 8)
            .min()
            .unwrap_or(1)
            .clamp(1, runs::MAX_RUN);
        Ok(ShardedGenerator {
            id: claims.id(),
            clock,
            run_cap,
            step: shards.first().map_or(1, Generator::sequence_step),
            state_bits: !shards.first().map_or(0, |shard| {
                shard
                    .layout()
                    .node_fields()
                    .fold(0, |bits, field| bits | field.mask())
            }),
            claims,
            shards: shards.into_boxed_slice(),
        })
    }

    /// The sharded generator, named `kind` in [`Error::Forked`]: for the types that wrap one.
    /// The shards are renamed where they are: their box is never replaced (see `runs::holds`).
    pub(crate) fn named(mut self, kind: &'static str) -> Self {
        for shard in self.shards.iter_mut() {
            shard.rename(kind);
        }
        self
    }
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
        let (builders, clock) = shard_builders(self, shards)?;
        builders
            .into_iter()
            .map(|builder| builder.clock(clock.clone()).build_local())
            .collect()
    }
}

impl<C: Clock> ShardedGenerator<C> {
    /// Mints the next ID from the calling thread's shard, waiting for the next tick if that
    /// shard's is full. See [`Generator::mint`].
    ///
    /// # Errors
    ///
    /// As for [`Generator::mint`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_sharded(Shards::SplitSequence(2))?;
    /// let a = generator.mint()?;
    /// assert!(generator.mint()? > a); // one thread, one shard: increasing
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint(&self) -> Result<Id> {
        self.next_id(OnFull::Wait)
    }

    /// Mints the next ID from the calling thread's shard, or fails if that shard's tick is
    /// full. See [`Generator::try_mint`].
    ///
    /// # Errors
    ///
    /// As for [`Generator::try_mint`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, clock::ManualClock, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(ManualClock::new(1_700_000_000_000))
    ///     .build_sharded(Shards::SplitSequence(2))?;
    /// for _ in 0..2048 {
    ///     generator.try_mint()?; // this thread's shard holds half of each tick
    /// }
    /// assert!(generator.try_mint().is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn try_mint(&self) -> Result<Id> {
        self.next_id(OnFull::Fail)
    }

    /// Mints the next ID from the calling thread's shard if that needs no wait, or says how
    /// long to wait: never waits. See [`Generator::mint_or_wait`].
    ///
    /// # Errors
    ///
    /// As for [`Generator::mint_or_wait`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Attempt, Generator, Layout, clock::ManualClock, shard::Shards};
    /// use std::time::Duration;
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(&clock)
    ///     .build_sharded(Shards::SplitSequence(2))?;
    /// for _ in 0..2048 {
    ///     assert!(generator.mint_or_wait()?.minted().is_some()); // the shard's half of the tick
    /// }
    /// assert_eq!(generator.mint_or_wait()?, Attempt::Wait(Duration::from_millis(1)));
    /// clock.advance(1);
    /// assert!(generator.mint_or_wait()?.minted().is_some());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint_or_wait(&self) -> Result<Attempt<Id>> {
        match self.take_from_run() {
            Some(id) => Ok(Attempt::Minted(Id::from_u64(id))),
            None => self.next_run_or_wait(),
        }
    }

    /// The next ID of the calling thread's run, or of a new run from its shard.
    #[inline(always)]
    fn next_id(&self, on_full: OnFull) -> Result<Id> {
        match self.take_from_run() {
            Some(id) => Ok(Id::from_u64(id)),
            None => self.next_run(on_full),
        }
    }

    /// The next ID of the calling thread's run, if the run is still good to hand out (see
    /// `runs`): the clock reads what it read when the run was reserved, and the run's shard
    /// has minted nothing since.
    #[inline(always)]
    fn take_from_run(&self) -> Option<u64> {
        let reading = self.clock.unix_ms_or_stale(crate::clock::seal::Token);
        // `self` is the generator numbered `self.id`, borrowed for the call.
        runs::take(self.id, reading, self.step, self.state_bits)
    }

    /// Reserves the calling thread's next run from its shard and hands out its first ID.
    #[cold]
    #[inline(never)]
    fn next_run(&self, on_full: OnFull) -> Result<Id> {
        self.run_from_shard(on_full).map(Attempt::waited)
    }

    /// [`next_run`](Self::next_run) for [`mint_or_wait`](Self::mint_or_wait): never waits.
    #[cold]
    #[inline(never)]
    fn next_run_or_wait(&self) -> Result<Attempt<Id>> {
        self.run_from_shard(OnFull::Answer)
    }

    /// Reserves the calling thread's next run from its shard and hands out its first ID, or
    /// (under [`OnFull::Answer`] only) says how long to wait.
    #[inline(always)]
    fn run_from_shard(&self, on_full: OnFull) -> Result<Attempt<Id>> {
        let size = runs::next_size(self.id, self.run_cap);
        let shard = self.local();
        Ok(shard.reserve_ids(size, on_full)?.map(|reserved| {
            runs::start(
                self.id,
                shard.state_word(),
                shard.sequence_step(),
                &reserved,
            );
            Id::from_u64(reserved.first)
        }))
    }

    /// Mints up to `out.len()` IDs from the calling thread's shard with one compare-and-swap.
    /// See [`Generator::mint_batch`].
    ///
    /// # Errors
    ///
    /// As for [`Generator::mint_batch`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Id, Layout, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_sharded(Shards::SplitSequence(2))?;
    /// let mut ids = [Id::default(); 64];
    /// let n = generator.mint_batch(&mut ids)?;
    /// assert!(n >= 1 && ids[..n].windows(2).all(|pair| pair[0] < pair[1]));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint_batch(&self, out: &mut [Id]) -> Result<usize> {
        self.local().mint_batch(out)
    }

    /// [`mint_batch`](Self::mint_batch) from the calling thread's shard, failing instead of
    /// waiting when that shard's tick is full. See [`Generator::try_mint_batch`].
    ///
    /// # Errors
    ///
    /// As for [`Generator::try_mint_batch`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Id, Layout, clock::ManualClock, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(ManualClock::new(1_700_000_000_000))
    ///     .build_sharded(Shards::SplitSequence(2))?;
    /// let mut ids = [Id::default(); 4096];
    /// assert_eq!(generator.try_mint_batch(&mut ids)?, 2048); // the shard's half of the tick
    /// assert!(generator.try_mint_batch(&mut ids).is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn try_mint_batch(&self, out: &mut [Id]) -> Result<usize> {
        self.local().try_mint_batch(out)
    }

    /// [`mint_batch`](Self::mint_batch) from the calling thread's shard if that needs no
    /// wait, or how long to wait: never waits. See [`Generator::mint_batch_or_wait`].
    ///
    /// # Errors
    ///
    /// As for [`Generator::mint_batch_or_wait`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Attempt, Generator, Id, Layout, clock::ManualClock, shard::Shards};
    /// use std::time::Duration;
    ///
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(ManualClock::new(1_700_000_000_000))
    ///     .build_sharded(Shards::SplitSequence(2))?;
    /// let mut ids = [Id::default(); 4096];
    /// assert_eq!(generator.mint_batch_or_wait(&mut ids)?, Attempt::Minted(2048));
    /// assert_eq!(generator.mint_batch_or_wait(&mut ids)?, Attempt::Wait(Duration::from_millis(1)));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint_batch_or_wait(&self, out: &mut [Id]) -> Result<Attempt<usize>> {
        self.local().mint_batch_or_wait(out)
    }

    /// Mints exactly `n` IDs from the calling thread's shard into a new `Vec`. See
    /// [`Generator::mint_many`].
    ///
    /// # Errors
    ///
    /// As for [`Generator::mint_many`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_sharded(Shards::SplitSequence(2))?;
    /// let ids = generator.mint_many(3_000)?;
    /// assert_eq!(ids.len(), 3_000);
    /// assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn mint_many(&self, n: usize) -> Result<Vec<Id>> {
        self.local().mint_many(n)
    }
}

impl<C: Clock> Mint for ShardedGenerator<C> {
    type Id = Id;

    #[inline]
    fn mint_run(&self, out: &mut [Id], on_full: OnFull) -> Result<Attempt<usize>> {
        match on_full {
            OnFull::Wait => self.mint_batch(out).map(Attempt::Minted),
            OnFull::Fail => self.try_mint_batch(out).map(Attempt::Minted),
            OnFull::Answer => self.mint_batch_or_wait(out),
        }
    }

    #[inline]
    fn mint(&self) -> Result<Id> {
        ShardedGenerator::mint(self)
    }

    #[inline]
    fn try_mint(&self) -> Result<Id> {
        ShardedGenerator::try_mint(self)
    }

    #[inline]
    fn mint_or_wait(&self) -> Result<Attempt<Id>> {
        ShardedGenerator::mint_or_wait(self)
    }
}

impl<C> ShardedGenerator<C> {
    /// The calling thread's shard: the same every time on this thread, and one no other thread
    /// mints from while no more threads than shards mint from this generator (see [Which
    /// thread mints from which shard](Self#which-thread-mints-from-which-shard)).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_sharded(Shards::SplitSequence(2))?;
    /// let local = generator.local();
    /// assert!(generator.shards().iter().any(|shard| std::ptr::eq(shard, local)));
    /// assert!(std::ptr::eq(local, generator.local())); // the same shard every time on this thread
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn local(&self) -> &Generator<Arc<C>> {
        &self.shards[self.index_of_this_thread()]
    }

    /// The index of the calling thread's shard (see `claims`).
    #[inline]
    fn index_of_this_thread(&self) -> usize {
        Claims::shard_of_this_thread(&self.claims, self.id, || self.highest_shard())
    }

    /// The shard whose last ID is the highest, for a thread that no longer knows its own (its
    /// claims were given back while its thread-local destructors run): every ID any shard
    /// handed out is at most its shard's last ID, so that shard's next ID is above every ID
    /// the thread minted from this generator, whichever shard it minted them from.
    #[cold]
    fn highest_shard(&self) -> usize {
        (0..self.shards.len())
            .max_by_key(|&i| {
                let shard = &self.shards[i];
                // Relaxed: the word only grows, and the caller's own mints came before this.
                shard.state_word().load(Ordering::Relaxed) | shard.node_bits()
            })
            .unwrap_or(0)
    }

    /// The shard at `index`, if there is one.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_sharded(Shards::SplitSequence(2))?;
    /// let second = generator.shard(1).unwrap();
    /// assert_eq!(second.decode(second.mint()?)?.sequence(), 2048);
    /// assert!(generator.shard(2).is_none());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn shard(&self, index: usize) -> Option<&Generator<Arc<C>>> {
        self.shards.get(index)
    }

    /// All the shards, in order.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .build_sharded(Shards::NodeBlock { field: "machine", values: 4..=6 })?;
    /// let nodes: Vec<u64> = generator.shards().iter().map(|shard| shard.node_bits() >> 12).collect();
    /// assert_eq!(nodes, [4, 5, 6]);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn shards(&self) -> &[Generator<Arc<C>>] {
        &self.shards
    }

    /// How many shards there are (at least one).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_sharded(Shards::SplitSequence(3))?;
    /// assert_eq!(generator.len(), 3);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.shards.len()
    }

    /// Always `false`: a sharded generator has at least one shard.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_sharded(Shards::SplitSequence(1))?;
    /// assert!(!generator.is_empty());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.shards.is_empty()
    }

    /// The shards' layout.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::DISCORD).node("worker", 1).node("process", 2)
    ///     .build_sharded(Shards::SplitSequence(2))?;
    /// assert_eq!(generator.layout(), &Layout::DISCORD);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn layout(&self) -> &Layout {
        self.shards[0].layout()
    }

    /// The shards' counters, summed; `max_ahead_ticks` is the largest of theirs.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, clock::ManualClock, shard::Shards};
    ///
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(ManualClock::new(1_700_000_000_000))
    ///     .build_sharded(Shards::SplitSequence(2))?;
    /// for shard in generator.shards() {
    ///     while shard.try_mint().is_ok() {}
    /// }
    /// assert_eq!(generator.stats().overflows, 2); // one per shard
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn stats(&self) -> Stats {
        self.shards
            .iter()
            .map(Generator::stats)
            .fold(Stats::default(), |total, shard| Stats {
                overflows: total.overflows + shard.overflows,
                waits: total.waits + shard.waits,
                regressions: total.regressions + shard.regressions,
                toggles: total.toggles + shard.toggles,
                borrows: total.borrows + shard.borrows,
                max_ahead_ticks: total.max_ahead_ticks.max(shard.max_ahead_ticks),
                events_dropped: total.events_dropped + shard.events_dropped,
            })
    }
}

impl<C> fmt::Debug for ShardedGenerator<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ShardedGenerator")
            .field("shards", &self.shards)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ManualClock;

    const TWITTER: Layout = Layout::TWITTER;

    /// One time bit and 63 sequence bits: the widest sequence field a layout can have, so
    /// `split` counts 2^63 values.
    const WIDE: Layout = Layout::builder("wide", 64)
        .time(1)
        .sequence(63)
        .build_const();

    /// 5..=4, spelled so that it reads (and lints) as deliberately empty.
    const EMPTY: RangeInclusive<u64> = RangeInclusive::new(5, 4);

    fn size(range: &RangeInclusive<u64>) -> u64 {
        range.end() - range.start() + 1
    }

    #[test]
    fn an_empty_range_is_rejected_by_new_split_range_and_the_builder() {
        let expected = Error::InvalidSequenceRange {
            layout: "twitter",
            range: EMPTY,
            problem: "is empty",
            max: 4095,
        };
        assert_eq!(
            SequenceRanges::new(&TWITTER, [EMPTY]),
            Err(expected.clone())
        );
        assert_eq!(
            SequenceRanges::split_range(&TWITTER, EMPTY, 1),
            Err(expected.clone())
        );
        let err = Generator::builder(TWITTER)
            .node("machine", 0)
            .sequence_range(EMPTY)
            .clock(ManualClock::new(1_700_000_000_000))
            .build()
            .unwrap_err();
        assert_eq!(err, expected);
        assert_eq!(
            err.to_string(),
            "sequence range 5..=4 for layout twitter is empty; \
             expected a non-empty range within 0..=4095"
        );
    }

    #[test]
    fn a_range_past_the_sequence_field_is_rejected_by_new_split_range_and_the_builder() {
        let expected = Error::InvalidSequenceRange {
            layout: "twitter",
            range: 0..=4096,
            problem: "ends past the sequence field",
            max: 4095,
        };
        assert_eq!(
            SequenceRanges::new(&TWITTER, [0..=99, 0..=4096]),
            Err(expected.clone())
        );
        assert_eq!(
            SequenceRanges::split_range(&TWITTER, 0..=4096, 2),
            Err(expected.clone())
        );
        let err = Generator::builder(TWITTER)
            .node("machine", 0)
            .sequence_range(0..=4096)
            .clock(ManualClock::new(1_700_000_000_000))
            .build()
            .unwrap_err();
        assert_eq!(err, expected);
        assert_eq!(
            err.to_string(),
            "sequence range 0..=4096 for layout twitter ends past the sequence field; \
             expected a non-empty range within 0..=4095"
        );
        // The field's last value itself is inside.
        assert!(SequenceRanges::new(&TWITTER, [4095..=4095]).is_ok());
    }

    #[test]
    fn overlapping_ranges_are_rejected_naming_the_two_that_overlap() {
        let err = SequenceRanges::new(&TWITTER, [0..=99, 100..=199, 150..=300]).unwrap_err();
        assert_eq!(
            err,
            Error::SequenceRangesOverlap {
                layout: "twitter",
                first: 100..=199,
                second: 150..=300,
            }
        );
        assert_eq!(
            err.to_string(),
            "sequence ranges 100..=199 and 150..=300 for layout twitter overlap; \
             expected disjoint ranges"
        );
        // Given out of order: the overlap is found all the same, lower start first.
        assert_eq!(
            SequenceRanges::new(&TWITTER, [250..=260, 0..=99, 200..=300]),
            Err(Error::SequenceRangesOverlap {
                layout: "twitter",
                first: 200..=300,
                second: 250..=260,
            })
        );
        // Sharing a single value, or being the same range, is overlapping.
        assert_eq!(
            SequenceRanges::new(&TWITTER, [0..=100, 100..=200]),
            Err(Error::SequenceRangesOverlap {
                layout: "twitter",
                first: 0..=100,
                second: 100..=200,
            })
        );
        assert_eq!(
            SequenceRanges::new(&TWITTER, [7..=7, 7..=7]),
            Err(Error::SequenceRangesOverlap {
                layout: "twitter",
                first: 7..=7,
                second: 7..=7,
            })
        );
        // A range inside another one.
        assert!(matches!(
            SequenceRanges::new(&TWITTER, [0..=4095, 10..=20]),
            Err(Error::SequenceRangesOverlap { .. })
        ));
    }

    #[test]
    fn adjacent_disjoint_ranges_are_accepted_in_the_order_given() {
        let given = [100..=199, 0..=99, 200..=4095];
        let ranges = SequenceRanges::new(&TWITTER, given.clone()).unwrap();
        assert_eq!(ranges.as_slice(), given);
        assert_eq!(ranges.len(), 3);
        assert!(!ranges.is_empty());
        assert_eq!(ranges.iter().cloned().collect::<Vec<_>>(), given);
        assert_eq!((&ranges).into_iter().count(), 3);
        // Gaps are allowed too: the ranges need not cover the field.
        let sparse = SequenceRanges::new(&TWITTER, [4000..=4095, 0..=0]).unwrap();
        assert_eq!(sparse.as_slice(), [4000..=4095, 0..=0]);
    }

    #[test]
    fn no_ranges_at_all_is_invalid_shards() {
        let err = SequenceRanges::new(&TWITTER, []).unwrap_err();
        assert_eq!(
            err,
            Error::InvalidShards {
                layout: "twitter",
                reason: "no sequence ranges were given; expected at least one".to_owned(),
            }
        );
        assert_eq!(
            err.to_string(),
            "invalid shards for layout twitter: no sequence ranges were given; expected at least one"
        );
    }

    #[test]
    fn splitting_into_zero_parts_is_invalid_shards() {
        let err = SequenceRanges::split(&TWITTER, 0).unwrap_err();
        assert_eq!(
            err,
            Error::InvalidShards {
                layout: "twitter",
                reason: "cannot split the 4096 sequence values 0..=4095 into 0 non-empty ranges; \
                         expected 1..=4096 parts"
                    .to_owned(),
            }
        );
        assert_eq!(
            err.to_string(),
            "invalid shards for layout twitter: cannot split the 4096 sequence values 0..=4095 \
             into 0 non-empty ranges; expected 1..=4096 parts"
        );
        assert!(matches!(
            SequenceRanges::split_range(&TWITTER, 10..=19, 0),
            Err(Error::InvalidShards {
                layout: "twitter",
                ..
            })
        ));
    }

    #[test]
    fn splitting_into_more_parts_than_values_is_invalid_shards() {
        assert_eq!(
            SequenceRanges::split_range(&TWITTER, 10..=12, 4),
            Err(Error::InvalidShards {
                layout: "twitter",
                reason: "cannot split the 3 sequence values 10..=12 into 4 non-empty ranges; \
                         expected 1..=3 parts"
                    .to_owned(),
            })
        );
        assert!(matches!(
            SequenceRanges::split(&TWITTER, 4097),
            Err(Error::InvalidShards { .. })
        ));
        assert!(matches!(
            SequenceRanges::split(&TWITTER, usize::MAX),
            Err(Error::InvalidShards { .. })
        ));
        // As many parts as values: one value each.
        let singles = SequenceRanges::split_range(&TWITTER, 10..=12, 3).unwrap();
        assert_eq!(singles.as_slice(), [10..=10, 11..=11, 12..=12]);
        assert_eq!(SequenceRanges::split(&TWITTER, 4096).unwrap().len(), 4096);
    }

    /// Checks that `ranges` are `parts` ranges that tile `whole` in order, with no gap or
    /// overlap, whose sizes differ by at most one, the larger ones first.
    fn assert_tiles(
        layout: &Layout,
        ranges: &SequenceRanges,
        whole: &RangeInclusive<u64>,
        parts: usize,
    ) {
        let context = format!("{whole:?} into {parts}: {:?}", ranges.as_slice());
        assert_eq!(ranges.len(), parts, "{context}");
        let slice = ranges.as_slice();
        assert_eq!(slice[0].start(), whole.start(), "{context}");
        assert_eq!(slice[parts - 1].end(), whole.end(), "{context}");
        for pair in slice.windows(2) {
            assert_eq!(*pair[1].start(), pair[0].end() + 1, "{context}");
        }
        let sizes: Vec<u64> = slice.iter().map(size).collect();
        let (min, max) = (*sizes.iter().min().unwrap(), *sizes.iter().max().unwrap());
        assert!(min >= 1 && max - min <= 1, "{context}");
        // The first `len % parts` ranges hold the extra values.
        let extra = (size(whole) % parts as u64) as usize;
        assert!(sizes[..extra].iter().all(|&s| s == max), "{context}");
        assert!(sizes[extra..].iter().all(|&s| s == min), "{context}");
        // The ranges are accepted by `new` as they are.
        assert_eq!(
            SequenceRanges::new(layout, slice.iter().cloned()).as_ref(),
            Ok(ranges),
            "{context}"
        );
    }

    #[test]
    fn split_sizes_differ_by_at_most_one_and_tile_the_range_exactly() {
        for parts in (1..=64).chain([100, 1000, 4095, 4096]) {
            let ranges = SequenceRanges::split(&TWITTER, parts).unwrap();
            assert_tiles(&TWITTER, &ranges, &(0..=4095), parts);
        }
        for (whole, parts) in [
            (10..=20, 3),
            (2048..=4095, 2),
            (4095..=4095, 1),
            (1..=4094, 7),
            (100..=199, 100),
        ] {
            let ranges = SequenceRanges::split_range(&TWITTER, whole.clone(), parts).unwrap();
            assert_tiles(&TWITTER, &ranges, &whole, parts);
        }
        assert_eq!(
            SequenceRanges::split(&TWITTER, 3).unwrap().as_slice(),
            [0..=1365, 1366..=2730, 2731..=4095]
        );
    }

    #[test]
    fn split_counts_a_63_bit_sequence_field_without_overflow() {
        let max = WIDE.max_sequence();
        assert_eq!(max, (1 << 63) - 1);
        for parts in [1, 2, 3, 7, 64] {
            let ranges = SequenceRanges::split(&WIDE, parts).unwrap();
            assert_tiles(&WIDE, &ranges, &(0..=max), parts);
        }
    }
}
