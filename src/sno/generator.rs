//! [`SnoGenerator`]: sno IDs minted from a generator's one state word, as the sno family of
//! [`FamilyGenerator`].

use std::fmt;
use std::ops::RangeInclusive;

use super::id::LAYOUT;
use super::id::SnoId;
use crate::clock::DefaultClock;
use crate::error::{Error, Result};
use crate::family::{Engine, FamilyBuilder, FamilyGenerator, Starts, sealed};
use crate::generator::{ClockBehind, Generator, Snapshot, State};
use crate::layout::Layout;

/// Mints [`SnoId`]s for one partition, lock-free: the [`FamilyGenerator`] of sno IDs on the
/// 64-bit generator `G` ([`Generator`] unless built with `build_local` or `build_sharded`).
///
/// An engine on [`LAYOUT`](FamilyGenerator::LAYOUT) (time, tick-tock bit and sequence in one
/// word; on a shared [`Generator`], one compare-and-swap per ID) plus the partition and a
/// metabyte. The partition must be set, as a node field must; the metabyte is 0 unless the
/// builder sets another, and [`mint_with_meta`](FamilyGenerator::mint_with_meta) gives one
/// per ID, as sno does. The defaults follow sno: the whole sequence (65,536 IDs per 4 ms) and,
/// when the clock goes back, tick-tock ([`ClockBehind::TickTock`] with `max_ms: 1000`):
/// minting goes on without waiting at the earlier time on the other timeline; only a second
/// regression into time that timeline has already used waits (at most one second, then
/// [`Error::ClockBehind`]).
///
/// Order: the IDs of one generator increase within each timeline; across a toggle they sort by
/// time, then timeline (a timeline-1 ID sorts right after the timeline-0 IDs of its 4 ms
/// unit). With one metabyte they increase in minting order as long as the clock does not go
/// back; IDs of one 4 ms unit with different metabytes sort by metabyte first.
///
/// # The state word
///
/// The engine mints on [`LAYOUT`](FamilyGenerator::LAYOUT), a 64-bit layout that holds
/// everything that changes from one ID to the next: bits 63..=56 unused (zero), 55..=17 the
/// time (4 ms ticks from the sno epoch), 16 the tick-tock bit, 15..=0 the sequence. Time,
/// timeline and sequence change together in its one word; the partition and the metabyte are
/// not in the word (the metabyte may differ per mint). An ID is assembled from the word `w`,
/// the metabyte `m` and the partition `p` as
///
/// ```text
/// id = (w >> 16) << 40 | m << 32 | p << 16 | (w & 0xffff)
/// ```
///
/// (`w >> 16` is the whole 40-bit timestamp block, time and tick-tock bit, because the layout
/// puts them right above the sequence.)
///
/// # Examples
///
/// ```
/// use snowmint::{sno::{SnoGenerator, SnoId}};
///
/// let generator = SnoGenerator::builder().partition(0x410a).meta(1).build()?;
/// let a = generator.mint()?;
/// let b = generator.mint()?;
/// assert!(b > a);
/// assert!(b.to_string() > a.to_string()); // the text sorts like the ID
/// assert_eq!((b.meta(), b.partition()), (1, 0x410a));
/// # Ok::<(), snowmint::Error>(())
/// ```
pub type SnoGenerator<G = Generator> = FamilyGenerator<SnoId, G>;

/// Configures a [`SnoGenerator`]: partition (required), metabyte and sequence range here, and
/// clock, clock-behind policy, borrowing and events as every [`FamilyBuilder`].
///
/// # Examples
///
/// ```
/// use snowmint::{clock::ManualClock, sno::SnoGenerator};
///
/// // Two generators share partition 7, each with half of every 4 ms unit's sequence.
/// let clock = ManualClock::new(1_700_000_000_000);
/// let low = SnoGenerator::builder().partition(7).sequence_range(0..=32767).clock(&clock).build()?;
/// let high = SnoGenerator::builder().partition(7).sequence_range(32768..=65535).clock(&clock).build()?;
/// assert_eq!(low.mint()?.sequence(), 0);
/// assert_eq!(high.mint()?.sequence(), 32768);
/// # Ok::<(), snowmint::Error>(())
/// ```
pub type SnoGeneratorBuilder<C = DefaultClock> = FamilyBuilder<SnoId, C>;

/// A [`SnoGenerator`]'s state, to save when it stops and resume from after a restart: its
/// partition, its metabyte and its word's [`Snapshot`]. With the `serde` feature it
/// serializes as `{"partition", "meta", "core"}`; a stored form without `meta` reads as
/// metabyte 0.
///
/// Its fields are public to read and to set; new ones may be added, so a `SnoSnapshot` is
/// made by [`SnoGenerator::snapshot`], by [`SnoSnapshot::at_mark`] or, with the `serde`
/// feature, by deserializing one.
///
/// # Examples
///
/// ```
/// use snowmint::{clock::ManualClock, sno::SnoGenerator};
///
/// let old = SnoGenerator::builder().partition(3).clock(ManualClock::new(1_700_000_010_000)).build()?;
/// let last = old.mint()?;
/// let snapshot = old.snapshot();
///
/// // Restarted on a host whose clock is 10 s behind: the other timeline, no repeat possible.
/// let new = SnoGenerator::resume(&snapshot).clock(ManualClock::new(1_700_000_000_000)).build()?;
/// let next = new.mint()?;
/// assert_eq!((last.timeline(), next.timeline(), next.partition()), (0, 1, 3));
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SnoSnapshot {
    /// The generator's partition.
    pub partition: u16,
    /// The metabyte of the IDs [`SnoGenerator::mint`] returns: a resumed generator keeps it,
    /// so its first ID does not sort below the last one before the snapshot.
    pub meta: u8,
    /// The state of its word: last tick, sequence, timeline, the other timeline's high-water
    /// mark and the sequence range, on [`SnoGenerator::LAYOUT`].
    pub core: Snapshot,
}

impl SnoSnapshot {
    /// The state of a generator for `partition` and `meta` that may have minted any ID with
    /// a time below `mark_ms` (Unix milliseconds), as [`Snapshot::at_mark`] makes it: a
    /// generator resumed from it mints only IDs of later 4 ms units. Without a mark
    /// (`None`), the state of a generator that has minted nothing.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, sno::{SnoGenerator, SnoSnapshot}};
    ///
    /// let mark = 1_700_000_000_000;
    /// let snapshot = SnoSnapshot::at_mark(7, 1, Some(mark));
    /// assert_eq!((snapshot.partition, snapshot.meta), (7, 1));
    ///
    /// // Resumed, the generator cannot mint in the mark's 4 ms unit: it is full.
    /// let clock = ManualClock::new(mark);
    /// let generator = SnoGenerator::resume(&snapshot).clock(&clock).build()?;
    /// assert!(generator.try_mint().is_err());
    /// clock.advance(4);
    /// let id = generator.mint()?;
    /// assert!(id.unix_ms() > mark);
    /// assert_eq!((id.partition(), id.meta()), (7, 1));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn at_mark(partition: u16, meta: u8, mark_ms: Option<u64>) -> SnoSnapshot {
        SnoSnapshot {
            partition,
            meta,
            core: Snapshot::at_mark(LAYOUT, &[], mark_ms),
        }
    }
}

/// What a sno builder sets beyond the engine's settings.
#[derive(Debug, Clone)]
pub struct SnoOptions {
    /// `None` until set: a partition has no default, as a node field has none.
    partition: Option<u16>,
    meta: u8,
}

/// What a sno generator adds to each state word: its partition and metabyte.
#[derive(Debug, Clone, Copy)]
pub struct SnoMap {
    partition: u16,
    meta: u8,
}

/// A state word `w`, the metabyte `m` and the partition `p` make the ID
/// `(w >> 16) << 40 | m << 32 | p << 16 | (w & 0xffff)`.
impl sealed::Family for SnoId {
    const GENERATOR: &'static str = "SnoGenerator";
    const LAYOUT: Layout = LAYOUT;
    type Options = SnoOptions;
    type Map = SnoMap;

    /// sno's behaviour on a regression: tick-tock, and wait (here: at most a second) only
    /// when the other timeline has already used the time.
    fn on_clock_behind() -> ClockBehind {
        ClockBehind::TickTock { max_ms: 1_000 }
    }

    fn options() -> SnoOptions {
        SnoOptions {
            partition: None,
            meta: 0,
        }
    }

    fn map(options: SnoOptions) -> Result<SnoMap> {
        let partition = options.partition.ok_or_else(|| Error::NodeNotSet {
            layout: LAYOUT.name(),
            fields: vec![("partition", u64::from(u16::MAX))],
        })?;
        Ok(SnoMap {
            partition,
            meta: options.meta,
        })
    }

    #[inline(always)]
    fn id(map: &SnoMap, _: &impl Starts, word: u64) -> SnoId {
        SnoId::from_word(word, map.meta, map.partition)
    }

    fn fmt_map(map: &SnoMap, f: &mut fmt::DebugStruct<'_, '_>) {
        f.field("partition", &map.partition)
            .field("meta", &map.meta);
    }
}

impl SnoGenerator {
    /// Starts configuring a generator that continues from `snapshot`: its partition, metabyte,
    /// sequence range, last minted state and high-water marks. A generator resumed on a clock
    /// behind the snapshot moves to the other timeline (or waits or fails, by policy) and never
    /// repeats an ID minted before the snapshot. See [`SnoSnapshot`] for an example.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, sno::SnoGenerator};
    ///
    /// let generator = SnoGenerator::builder().partition(7).meta(9).clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// let last = generator.mint()?;
    /// let resumed = SnoGenerator::resume(&generator.snapshot()).clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// assert!(resumed.mint()? > last);
    /// assert_eq!((resumed.partition(), resumed.meta()), (7, 9));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn resume(snapshot: &SnoSnapshot) -> SnoGeneratorBuilder {
        FamilyBuilder::with(
            Generator::resume(&snapshot.core),
            SnoOptions {
                partition: Some(snapshot.partition),
                meta: snapshot.meta,
            },
        )
    }
}

impl<C> SnoGeneratorBuilder<C> {
    /// Sets the partition every ID carries; required (0 included), as a node field is:
    /// generators that all left it unset would mint the same IDs. Generators minting at the
    /// same time need distinct partitions, or one partition with disjoint sequence ranges.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, sno::SnoGenerator};
    ///
    /// let generator = SnoGenerator::builder().partition(7).clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// assert_eq!(generator.mint()?.partition(), 7);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn partition(mut self, partition: u16) -> Self {
        self.options.partition = Some(partition);
        self
    }

    /// Sets the metabyte of the IDs [`mint`](FamilyGenerator::mint) and the other minting
    /// methods return (0 by default); [`mint_with_meta`](FamilyGenerator::mint_with_meta) gives
    /// one per ID.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoGenerator;
    ///
    /// let generator = SnoGenerator::builder().partition(7).meta(0x2a).build()?;
    /// assert_eq!(generator.mint()?.meta(), 0x2a);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn meta(mut self, meta: u8) -> Self {
        self.options.meta = meta;
        self
    }

    /// Confines the generator to the sequence values in `range` (sno's `SequenceMin` and
    /// `SequenceMax`): each 4 ms unit starts at `range.start()` and holds at most
    /// `range.end() - range.start() + 1` IDs. Generators with one partition and disjoint ranges
    /// never mint the same ID. The whole sequence, `0..=65535`, by default.
    ///
    /// sno refuses pools of fewer than 4 values; snowmint accepts any non-empty range (a
    /// small pool only lowers the generator's throughput), so every range sno accepts works.
    /// Checked by [`build`](FamilyBuilder::build): an empty range is
    /// [`Error::InvalidSequenceRange`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, sno::SnoGenerator};
    ///
    /// let builder = SnoGenerator::builder().partition(7).clock(ManualClock::new(1_700_000_000_000));
    /// let generator = builder.clone().sequence_range(100..=199).build()?;
    /// assert_eq!(generator.mint()?.sequence(), 100);
    /// assert!(builder.sequence_range(200..=199).build().is_err()); // empty
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn sequence_range(mut self, range: RangeInclusive<u16>) -> Self {
        let range = u64::from(*range.start())..=u64::from(*range.end());
        self.inner = self.inner.sequence_range(range);
        self
    }
}

impl<G: Engine> SnoGenerator<G> {
    /// Mints the next ID with metabyte `meta`, as [`mint`](Self::mint) does.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoGenerator;
    ///
    /// let generator = SnoGenerator::builder().partition(9).build()?;
    /// assert_eq!(generator.mint_with_meta(7)?.meta(), 7);
    /// assert_eq!(generator.mint()?.meta(), 0);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint_with_meta(&self, meta: u8) -> Result<SnoId> {
        let word = self.engine.next_word(true)?;
        Ok(SnoId::from_word(word, meta, self.map.partition))
    }

    /// Mints the next ID with metabyte `meta`, as [`try_mint`](Self::try_mint) does: fails
    /// instead of waiting when this 4 ms unit's sequence range is exhausted.
    ///
    /// # Errors
    ///
    /// As for [`try_mint`](Self::try_mint).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Error, clock::ManualClock, sno::SnoGenerator};
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = SnoGenerator::builder().partition(1).sequence_range(0..=0).clock(&clock).build()?;
    /// assert_eq!(generator.try_mint_with_meta(7)?.meta(), 7);
    /// assert!(matches!(generator.try_mint_with_meta(7), Err(Error::SequenceExhausted { .. })));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn try_mint_with_meta(&self, meta: u8) -> Result<SnoId> {
        let word = self.engine.next_word(false)?;
        Ok(SnoId::from_word(word, meta, self.map.partition))
    }

    /// [`mint_batch`](Self::mint_batch) with metabyte `meta`.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint). Nothing is written on error.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    /// use snowmint::{clock::ManualClock, sno::SnoGenerator};
    ///
    /// let generator = SnoGenerator::builder().partition(7).clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// let mut ids = [SnoId::default(); 8];
    /// assert_eq!(generator.mint_batch_with_meta(3, &mut ids)?, 8);
    /// assert!(ids.iter().all(|id| id.meta() == 3));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint_batch_with_meta(&self, meta: u8, out: &mut [SnoId]) -> Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let (first, count) = self.engine.reserve_words(out.len() as u64, true)?;
        // `count <= out.len()`, and the run's sequence values stay inside the field.
        for (slot, word) in out[..count as usize].iter_mut().zip(first..) {
            *slot = SnoId::from_word(word, meta, self.map.partition);
        }
        Ok(count as usize)
    }

    /// The partition every ID of this generator carries.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, sno::SnoGenerator};
    ///
    /// let generator = SnoGenerator::builder().partition(7).clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// assert_eq!(generator.partition(), 7);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn partition(&self) -> u16 {
        self.map.partition
    }

    /// The metabyte of the IDs [`mint`](FamilyGenerator::mint) returns.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, sno::SnoGenerator};
    ///
    /// let generator = SnoGenerator::builder().partition(7).clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// assert_eq!(generator.meta(), 0);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn meta(&self) -> u8 {
        self.map.meta
    }
}

impl<C, S: State> SnoGenerator<Generator<C, S>>
where
    Generator<C, S>: Engine,
{
    /// The generator's state now, to resume from with [`SnoGenerator::resume`]: take it when
    /// minting has stopped.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, sno::SnoGenerator};
    ///
    /// let generator = SnoGenerator::builder().partition(7).clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// generator.mint()?;
    /// let resumed = SnoGenerator::resume(&generator.snapshot()).build()?;
    /// assert_eq!(resumed.partition(), 7);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn snapshot(&self) -> SnoSnapshot {
        SnoSnapshot {
            partition: self.map.partition,
            meta: self.map.meta,
            core: self.engine.snapshot(),
        }
    }
}
