//! [`SnoGenerator`]: sno IDs minted from a generator's one state word.

use std::fmt;
use std::ops::RangeInclusive;
use std::sync::mpsc::SyncSender;

use super::SnoId;
use crate::clock::{Clock, DefaultClock};
use crate::error::{Error, Result};
use crate::generator::{ClockBehind, Event, Generator, GeneratorBuilder};
use crate::generator::{Snapshot, Stats};
use crate::layout::Layout;
use crate::mint::Attempt;

/// Mints [`SnoId`]s for one partition, from any number of threads, lock-free.
///
/// A [`Generator`] on [`LAYOUT`](Self::LAYOUT) (time, tick-tock bit and sequence in one
/// `AtomicU64`, one compare-and-swap per ID) plus the partition and a metabyte. The partition
/// must be set, as a node field must; the metabyte is 0 unless the builder sets another, and
/// [`mint_with_meta`](Self::mint_with_meta) gives one per ID, as sno does. The defaults follow sno: the whole sequence (65,536 IDs per 4 ms)
/// and, when the clock goes back, tick-tock ([`ClockBehind::TickTock`] with `max_ms: 1000`):
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
/// A `SnoGenerator` is a [`Generator`] on [`LAYOUT`](Self::LAYOUT), a 64-bit layout that
/// holds everything that changes from one ID to the next: bits 63..=56 unused (zero),
/// 55..=17 the time (4 ms ticks from the sno epoch), 16 the tick-tock bit, 15..=0 the sequence. Time, timeline and
/// sequence change together in its one `AtomicU64`, with one compare-and-swap per ID; the
/// partition and the metabyte are not in the word (the metabyte may differ per mint). An ID is assembled from the word `w`, the metabyte `m` and the partition `p` as
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
pub struct SnoGenerator<C = DefaultClock> {
    inner: Generator<C>,
    partition: u16,
    meta: u8,
}

/// Configures a [`SnoGenerator`]: partition (required), metabyte, sequence range, clock and
/// clock-behind policy.
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
#[derive(Debug, Clone)]
#[must_use]
pub struct SnoGeneratorBuilder<C = DefaultClock> {
    inner: GeneratorBuilder<C>,
    /// `None` until set: a partition has no default, as a node field has none.
    partition: Option<u16>,
    meta: u8,
}

/// A [`SnoGenerator`]'s state, to save when it stops and resume from after a restart: its
/// partition, its metabyte and its word's [`Snapshot`]. With the `serde` feature it
/// serializes as `{"partition", "meta", "core"}`; a stored form without `meta` reads as
/// metabyte 0.
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
/// assert_eq!((last.tick(), next.tick(), next.partition()), (0, 1, 3));
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
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

impl SnoGenerator {
    /// The layout of the generator's state word: 8 unused bits, 39 bits of time in 4 ms ticks
    /// from [`SnoId::EPOCH_MS`], the tick-tock bit, 16 bits of sequence.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{sno::{SnoGenerator, SnoId}};
    ///
    /// let layout = SnoGenerator::LAYOUT;
    /// assert_eq!((layout.time_field().bits(), layout.time_field().shift()), (39, 17));
    /// assert_eq!(layout.tick_tock_field().map(|f| f.shift()), Some(16));
    /// assert_eq!(layout.max_sequence(), 65_535);
    /// assert_eq!(layout.max_unix_ms(), SnoId::MAX_UNIX_MS);
    /// ```
    pub const LAYOUT: Layout = Layout::builder("sno", 64)
        .unused(8)
        .time(39)
        .tick_tock()
        .sequence(16)
        .tick_ms(SnoId::TICK_MS)
        .epoch_ms(SnoId::EPOCH_MS)
        .build_const();

    /// Starts configuring a generator: no partition yet (set one), metabyte 0, the whole
    /// sequence, the process-wide [`CachedClock`](crate::clock::CachedClock) and
    /// [`ClockBehind::TickTock`] with `max_ms: 1000`.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoGenerator;
    ///
    /// let generator = SnoGenerator::builder().partition(7).build()?;
    /// assert_eq!(generator.mint()?.partition(), 7);
    /// assert!(SnoGenerator::builder().build().is_err()); // no partition
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn builder() -> SnoGeneratorBuilder {
        SnoGeneratorBuilder {
            inner: Generator::builder(Self::LAYOUT).on_clock_behind(DEFAULT_POLICY),
            partition: None,
            meta: 0,
        }
    }

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
        SnoGeneratorBuilder {
            inner: Generator::resume(&snapshot.core).on_clock_behind(DEFAULT_POLICY),
            partition: Some(snapshot.partition),
            meta: snapshot.meta,
        }
    }
}

/// sno's behaviour on a regression: tick-tock, and wait (here: at most a second) only when the
/// other timeline has already used the time.
const DEFAULT_POLICY: ClockBehind = ClockBehind::TickTock { max_ms: 1_000 };

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
        self.partition = Some(partition);
        self
    }

    /// Sets the metabyte of the IDs [`mint`](SnoGenerator::mint) and the other minting methods
    /// return (0 by default); [`mint_with_meta`](SnoGenerator::mint_with_meta) gives one per
    /// ID.
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
        self.meta = meta;
        self
    }

    /// Confines the generator to the sequence values in `range` (sno's `SequenceMin` and
    /// `SequenceMax`): each 4 ms unit starts at `range.start()` and holds at most
    /// `range.end() - range.start() + 1` IDs. Generators with one partition and disjoint ranges
    /// never mint the same ID. The whole sequence, `0..=65535`, by default.
    ///
    /// sno refuses pools of fewer than 4 values; snowmint accepts any non-empty range (a
    /// small pool only lowers the generator's throughput), so every range sno accepts works.
    /// Checked by [`build`](SnoGeneratorBuilder::build): an empty range is
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

    /// Sets what to do when the clock reads behind the last minted time:
    /// [`ClockBehind::TickTock`] by default (sno's behaviour), or `Wait` or `Error` for IDs that
    /// strictly increase.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{ClockBehind, clock::ManualClock, sno::SnoGenerator};
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = SnoGenerator::builder()
    ///     .partition(7)
    ///     .clock(&clock)
    ///     .on_clock_behind(ClockBehind::Error)
    ///     .build()?;
    /// generator.mint()?;
    /// clock.set(1_699_999_999_000);
    /// assert!(generator.mint().is_err()); // no toggle to the other timeline
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn on_clock_behind(mut self, policy: ClockBehind) -> Self {
        self.inner = self.inner.on_clock_behind(policy);
        self
    }

    /// Sends an [`Event`] when a thread stalls on a full 4 ms unit ([`Event::Overflow`], sno's
    /// sequence overflow notification) and when the clock goes back ([`Event::Regression`]),
    /// at most once per unit of each kind; ticks in events count 4 ms units from
    /// [`SnoId::EPOCH_MS`]. See [`GeneratorBuilder::notify`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, generator::Event, sno::SnoGenerator};
    /// use std::sync::mpsc;
    ///
    /// let (tx, rx) = mpsc::sync_channel(4);
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = SnoGenerator::builder().partition(7).clock(&clock).notify(tx).build()?;
    /// generator.mint()?;
    /// clock.set(1_699_999_999_000);
    /// let id = generator.mint()?; // on the other timeline
    /// assert_eq!(id.tick(), 1);
    /// assert!(matches!(rx.try_recv(), Ok(Event::Regression { .. })));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn notify(mut self, events: SyncSender<Event>) -> Self {
        self.inner = self.inner.notify(events);
        self
    }

    /// Uses `clock` instead of the process-wide [`CachedClock`](crate::clock::CachedClock).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, sno::SnoGenerator};
    ///
    /// let generator = SnoGenerator::builder().partition(7).clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// assert_eq!(generator.mint()?.unix_ms(), 1_700_000_000_000);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn clock<D: Clock>(self, clock: D) -> SnoGeneratorBuilder<D> {
        SnoGeneratorBuilder {
            inner: self.inner.clock(clock),
            partition: self.partition,
            meta: self.meta,
        }
    }

    /// A snapshot resumed for another layout cannot hold sno IDs.
    fn check_layout(&self) -> Result<()> {
        let layout = self.inner.layout();
        if *layout == SnoGenerator::LAYOUT {
            return Ok(());
        }
        Err(Error::InvalidSnapshot {
            layout: layout.name(),
            reason: "its layout is not SnoGenerator::LAYOUT, the only one sno ids are minted on"
                .to_owned(),
        })
    }
}

impl<C: Clock> SnoGeneratorBuilder<C> {
    /// Validates the configuration and builds the generator.
    ///
    /// # Errors
    ///
    /// [`Error::NodeNotSet`] without a partition, [`Error::InvalidSequenceRange`] for an
    /// empty sequence range, and [`Error::InvalidSnapshot`] for a resumed snapshot that does
    /// not fit [`SnoGenerator::LAYOUT`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, sno::SnoGenerator};
    ///
    /// let generator = SnoGenerator::builder().partition(7).clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// assert_eq!(generator.mint()?.partition(), 7);
    /// assert!(SnoGenerator::builder().clock(ManualClock::new(1_700_000_000_000)).build().is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn build(self) -> Result<SnoGenerator<C>> {
        self.check_layout()?;
        let partition = self.partition.ok_or_else(|| Error::NodeNotSet {
            layout: "sno",
            fields: vec![("partition", u64::from(u16::MAX))],
        })?;
        Ok(SnoGenerator {
            inner: self.inner.build()?.named("SnoGenerator"),
            partition,
            meta: self.meta,
        })
    }
}

impl<C: Clock> SnoGenerator<C> {
    /// Mints the next ID, with the generator's metabyte, waiting for the next 4 ms unit if this
    /// one's sequence range is exhausted.
    ///
    /// # Errors
    ///
    /// [`Error::ClockBehind`] when the clock reads behind the last minted time and the policy
    /// does not toggle or wait that long (with tick-tock: a second regression into time the
    /// other timeline has used, more than `max_ms` behind); [`Error::TimeOverflow`],
    /// [`Error::BeforeEpoch`] or [`Error::EpochTick`] for a clock outside 2010-01-01T00:00:00.004Z
    /// to 2079-09-07T15:47:35.551Z; [`Error::LayoutExhausted`] when the last 4 ms unit is full;
    /// [`Error::Forked`] in the child of a `fork()` of the process that built the generator
    /// (see [`Generator::mint`](crate::Generator::mint)).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, sno::SnoGenerator};
    ///
    /// let clock = ManualClock::new(1_700_000_000_001);
    /// let generator = SnoGenerator::builder().partition(9).meta(200).clock(&clock).build()?;
    /// let id = generator.mint()?;
    /// assert_eq!(id.unix_ms(), 1_700_000_000_000);
    /// assert_eq!((id.tick(), id.meta(), id.partition(), id.sequence()), (0, 200, 9, 0));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint(&self) -> Result<SnoId> {
        self.mint_with_meta(self.meta)
    }

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
        let id = self.inner.mint()?;
        Ok(SnoId::from_word(id.to_u64(), meta, self.partition))
    }

    /// Mints the next ID, or fails if this 4 ms unit's sequence range is exhausted.
    ///
    /// # Errors
    ///
    /// [`Error::SequenceExhausted`], saying how long until the next unit, and the errors of
    /// [`mint`](Self::mint).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Error, clock::ManualClock, sno::SnoGenerator};
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = SnoGenerator::builder()
    ///     .partition(1)
    ///     .sequence_range(0..=3)
    ///     .clock(&clock)
    ///     .build()?;
    /// for _ in 0..4 {
    ///     generator.try_mint()?;
    /// }
    /// assert!(matches!(generator.try_mint(), Err(Error::SequenceExhausted { .. })));
    /// clock.advance(4);
    /// assert_eq!(generator.try_mint()?.sequence(), 0);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn try_mint(&self) -> Result<SnoId> {
        self.try_mint_with_meta(self.meta)
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
        let id = self.inner.try_mint()?;
        Ok(SnoId::from_word(id.to_u64(), meta, self.partition))
    }

    /// Mints up to `out.len()` IDs with one compare-and-swap and writes them to the front of
    /// `out`, returning how many: all of them if the current 4 ms unit's range has room, else
    /// what it has left (at least one, waiting for the next unit if this one is full).
    /// Consecutive sequence values, strictly increasing; no allocation. An empty `out` mints
    /// nothing and returns 0.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint). Nothing is written on error.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{sno::{SnoGenerator, SnoId}};
    ///
    /// let generator = SnoGenerator::builder().partition(1).build()?;
    /// let mut buffer = [SnoId::default(); 100];
    /// let written = generator.mint_batch(&mut buffer)?;
    /// assert!((1..=100).contains(&written));
    /// assert!(buffer[..written].windows(2).all(|pair| pair[0] < pair[1]));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint_batch(&self, out: &mut [SnoId]) -> Result<usize> {
        self.batch(self.meta, out, true)
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
        self.batch(meta, out, true)
    }

    /// [`mint_batch`](Self::mint_batch), failing with [`Error::SequenceExhausted`] instead of
    /// waiting when the current 4 ms unit is full.
    ///
    /// # Errors
    ///
    /// As for [`try_mint`](Self::try_mint).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    /// use snowmint::{clock::ManualClock, sno::SnoGenerator};
    ///
    /// let generator = SnoGenerator::builder().partition(7).clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// let mut ids = vec![SnoId::default(); 70_000];
    /// assert_eq!(generator.try_mint_batch(&mut ids)?, 65_536); // one 4 ms unit's worth
    /// assert!(generator.try_mint_batch(&mut ids).is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn try_mint_batch(&self, out: &mut [SnoId]) -> Result<usize> {
        self.batch(self.meta, out, false)
    }

    /// Mints the next ID if that needs no wait, or says how long to wait: never waits. See
    /// [`Generator::mint_or_wait`].
    ///
    /// # Errors
    ///
    /// As for [`Generator::mint_or_wait`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Attempt, clock::ManualClock, sno::SnoGenerator};
    /// use std::time::Duration;
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = SnoGenerator::builder().partition(1).sequence_range(0..=1).clock(&clock).build()?;
    /// assert!(generator.mint_or_wait()?.minted().is_some());
    /// assert!(generator.mint_or_wait()?.minted().is_some());
    /// clock.advance(1);
    /// assert_eq!(generator.mint_or_wait()?, Attempt::Wait(Duration::from_millis(3))); // 4 ms units
    /// clock.advance(3);
    /// assert_eq!(generator.mint_or_wait()?.minted().map(|id| id.sequence()), Some(0));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint_or_wait(&self) -> Result<Attempt<SnoId>> {
        let attempt = self.inner.mint_or_wait()?;
        Ok(attempt.map(|id| SnoId::from_word(id.to_u64(), self.meta, self.partition)))
    }

    /// [`mint_batch`](Self::mint_batch) if that needs no wait, or how long to wait: never
    /// waits. See [`Generator::mint_batch_or_wait`].
    ///
    /// # Errors
    ///
    /// As for [`mint_or_wait`](Self::mint_or_wait). Nothing is written on error.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    /// use snowmint::{Attempt, clock::ManualClock, sno::SnoGenerator};
    /// use std::time::Duration;
    ///
    /// let generator = SnoGenerator::builder().partition(7).clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// let mut ids = vec![SnoId::default(); 70_000];
    /// assert_eq!(generator.mint_batch_or_wait(&mut ids)?, Attempt::Minted(65_536));
    /// assert_eq!(generator.mint_batch_or_wait(&mut ids)?, Attempt::Wait(Duration::from_millis(4)));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn mint_batch_or_wait(&self, out: &mut [SnoId]) -> Result<Attempt<usize>> {
        if out.is_empty() {
            return Ok(Attempt::Minted(0));
        }
        let attempt = self.inner.reserve_states_or_wait(out.len() as u64)?;
        Ok(attempt.map(|(first, count)| self.fill(self.meta, out, first, count)))
    }

    /// Mints exactly `n` IDs, across as many 4 ms units as they need, into a new `Vec`: one
    /// compare-and-swap per unit's worth, waiting for the clock when a unit is full.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint), and [`Error::TooLarge`] when `n` IDs cannot be allocated.
    /// The IDs reserved before an error are dropped; they are never handed out again.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoGenerator;
    ///
    /// let generator = SnoGenerator::builder().partition(1).build()?;
    /// let ids = generator.mint_many(100_000)?; // more than one 4 ms unit holds
    /// assert_eq!(ids.len(), 100_000);
    /// assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn mint_many(&self, n: usize) -> Result<Vec<SnoId>> {
        crate::mint::mint_many_by(n, |out| self.mint_batch(out))
    }

    #[inline(always)]
    fn batch(&self, meta: u8, out: &mut [SnoId], wait: bool) -> Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let (first, count) = self.inner.reserve_states(out.len() as u64, wait)?;
        Ok(self.fill(meta, out, first, count))
    }

    /// Writes the `count` IDs of the states from `first`, with metabyte `meta`, to the front of
    /// `out`, and returns how many.
    #[inline(always)]
    fn fill(&self, meta: u8, out: &mut [SnoId], first: u64, count: u64) -> usize {
        // `count <= out.len()`, and the run's sequence values stay inside the field.
        for (slot, word) in out[..count as usize].iter_mut().zip(first..) {
            *slot = SnoId::from_word(word, meta, self.partition);
        }
        count as usize
    }
}

impl<C> SnoGenerator<C> {
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
        self.partition
    }

    /// The metabyte of the IDs [`mint`](SnoGenerator::mint) returns.
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
        self.meta
    }

    /// The generator's clock.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, sno::SnoGenerator};
    ///
    /// let generator = SnoGenerator::builder().partition(7).clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// generator.clock().advance(4);
    /// assert_eq!(generator.mint()?.unix_ms(), 1_700_000_000_004);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn clock(&self) -> &C {
        self.inner.clock()
    }

    /// The counters of overflows, waits, regressions and tick-tock toggles so far.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, sno::SnoGenerator};
    ///
    /// let generator = SnoGenerator::builder().partition(7).clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// while generator.try_mint().is_ok() {}
    /// assert_eq!(generator.stats().overflows, 1);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn stats(&self) -> Stats {
        self.inner.stats()
    }

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
            partition: self.partition,
            meta: self.meta,
            core: self.inner.snapshot(),
        }
    }
}

impl<C: Clock> crate::mint::Mint for SnoGenerator<C> {
    type Id = SnoId;

    #[inline]
    fn mint_run(&self, out: &mut [SnoId], on_full: crate::mint::OnFull) -> Result<Attempt<usize>> {
        match on_full {
            crate::mint::OnFull::Wait => self.mint_batch(out).map(Attempt::Minted),
            crate::mint::OnFull::Fail => self.try_mint_batch(out).map(Attempt::Minted),
            crate::mint::OnFull::Answer => self.mint_batch_or_wait(out),
        }
    }

    #[inline]
    fn mint(&self) -> Result<SnoId> {
        SnoGenerator::mint(self)
    }

    #[inline]
    fn try_mint(&self) -> Result<SnoId> {
        SnoGenerator::try_mint(self)
    }

    #[inline]
    fn mint_batch(&self, out: &mut [SnoId]) -> Result<usize> {
        SnoGenerator::mint_batch(self, out)
    }

    #[inline]
    fn try_mint_batch(&self, out: &mut [SnoId]) -> Result<usize> {
        SnoGenerator::try_mint_batch(self, out)
    }

    #[inline]
    fn mint_or_wait(&self) -> Result<Attempt<SnoId>> {
        SnoGenerator::mint_or_wait(self)
    }

    #[inline]
    fn mint_batch_or_wait(&self, out: &mut [SnoId]) -> Result<Attempt<usize>> {
        SnoGenerator::mint_batch_or_wait(self, out)
    }

    fn mint_many(&self, n: usize) -> Result<Vec<SnoId>> {
        SnoGenerator::mint_many(self, n)
    }
}

impl<C> fmt::Debug for SnoGenerator<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SnoGenerator")
            .field("partition", &self.partition)
            .field("meta", &self.meta)
            .field("core", &self.inner)
            .finish()
    }
}
