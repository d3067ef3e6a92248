//! The generator type: its state word, the plan it mints with and its cold data, the public
//! mint methods, and what it reports about itself. The mint methods call into
//! [`hot`](super::hot), which falls back to [`slow`](super::slow).

use std::fmt;
use std::num::NonZeroU64;
use std::sync::mpsc::SyncSender;
use std::time::Instant;

use crossbeam_utils::CachePadded;

use super::policy::{ClockBehind, Event, Stats};
use super::snapshot::Snapshot;
use super::state::{LocalState, SharedState, State};
use crate::clock::{Clock, DefaultClock};
use crate::error::{Error, Result};
use crate::fork;
use crate::id::Id;
use crate::layout::Parts;
use crate::layout::{AnyLayout, Layout};
use crate::mint::{Attempt, OnFull};
use crate::sync::{AtomicU64, Mutex, Ordering};

/// The layout, pre-shifted for the hot path.
#[derive(Debug, Clone, Copy)]
pub(super) struct Plan {
    pub(super) time_shift: u32,
    /// The tick-tock bit, in ID coordinates (0 when the layout has none).
    pub(super) tick_mask: u64,
    /// One sequence step, in ID coordinates, and its shift.
    pub(super) seq_one: u64,
    pub(super) seq_shift: u32,
    /// The sequence field's bits, in ID coordinates.
    pub(super) seq_mask: u64,
    /// The first and last sequence value of the generator's range, in ID coordinates.
    pub(super) seq_first: u64,
    pub(super) seq_last: u64,
    pub(super) node_bits: u64,
    pub(super) epoch_ms: u64,
    /// The least reading the fast path takes: the epoch, or [`FIRST_READING`](crate::clock::cached::FIRST_READING) if later.
    pub(super) min_ms: u64,
    /// Non-zero (a layout's tick is at least 1 ms): dividing by it needs no check.
    pub(super) tick_ms: NonZeroU64,
    pub(super) max_ticks: u64,
    /// The process's fork count when the generator was built ([`fork::watch`]): a mint in
    /// a process whose count differs is in a forked child, and fails.
    pub(super) forks: u64,
    /// Whether a shared word's swaps confirm their tick, for the confirmed step of the single
    /// mints after them: on a layout whose tick is 1 ms (so a tick and its one reading
    /// determine each other) and whose word only rises (no tick-tock bit, whose toggle lowers
    /// it). Elsewhere the step never finds a confirmed tick. See `SharedState`.
    pub(super) steps: bool,
}

/// A run of `count` consecutive states starting at `first`, reserved by one CAS.
#[derive(Debug, Clone, Copy)]
pub(super) struct Run {
    pub(super) first: u64,
    pub(super) count: u64,
}

/// What [`Generator::reserve_ids`] reserved: `count` IDs from `first` (node bits included), on
/// the tick of the clock reading `reading` when there is one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReservedIds {
    pub(crate) first: u64,
    pub(crate) count: u64,
    pub(crate) reading: Option<u64>,
}

/// What the cold paths keep: high-water marks and counters, on their own cache line.
#[derive(Debug)]
pub(super) struct Cold {
    /// The highest tick minted on timeline 0 and on timeline 1, as of the last time the state
    /// left that timeline (see `# Orderings`).
    pub(super) high_water: [AtomicU64; 2],
    pub(super) overflows: AtomicU64,
    pub(super) waits: AtomicU64,
    pub(super) regressions: AtomicU64,
    pub(super) toggles: AtomicU64,
    pub(super) borrows: AtomicU64,
    /// The last tick a borrow was counted for, per timeline: each timeline's ticks rise on
    /// their own, and a toggle moves to an earlier one.
    pub(super) borrow_gate: [AtomicU64; 2],
    pub(super) max_ahead_ticks: AtomicU64,
    /// How many ticks ahead of the clock a full tick may push the state (0: never): read on a
    /// full tick or a clock behind the state only, so kept here, out of the plan's block.
    pub(super) borrow_ticks: u64,
    /// Where events go, and the last tick an overflow and a regression event was sent for.
    pub(super) events: Option<SyncSender<Event>>,
    pub(super) overflow_event_tick: AtomicU64,
    pub(super) regression_event_tick: AtomicU64,
    pub(super) events_dropped: AtomicU64,
    /// The state a non-waiting mint first found the clock behind, and when (see
    /// [`Generator::clock_behind`]): the policy's `max_ms` bounds the whole wait, as for a
    /// waiting mint. A state word never repeats, so a mark for another state is stale. Taken
    /// only by `mint_or_wait`; a generator fails in a forked child before it gets here, so a
    /// lock held across a `fork()` is never taken in the child.
    pub(super) behind_since: Mutex<Option<(u64, Instant)>>,
    /// What [`Error::Forked`] calls the generator (`Generator`, or the type that wraps it),
    /// and the ID of the process that built it.
    pub(super) kind: &'static str,
    pub(super) built_in: u32,
}

impl Cold {
    /// A generator's cold data, named as a generator on the state word `S`, with the
    /// high-water marks it starts from.
    pub(super) fn new<S: State>(
        [high_water_0, high_water_1]: [u64; 2],
        borrow_ticks: u64,
        events: Option<SyncSender<Event>>,
    ) -> Self {
        Cold {
            high_water: [AtomicU64::new(high_water_0), AtomicU64::new(high_water_1)],
            overflows: AtomicU64::new(0),
            waits: AtomicU64::new(0),
            regressions: AtomicU64::new(0),
            toggles: AtomicU64::new(0),
            borrows: AtomicU64::new(0),
            borrow_gate: [AtomicU64::new(0), AtomicU64::new(0)],
            max_ahead_ticks: AtomicU64::new(0),
            borrow_ticks,
            events,
            overflow_event_tick: AtomicU64::new(0),
            regression_event_tick: AtomicU64::new(0),
            events_dropped: AtomicU64::new(0),
            behind_since: Mutex::new(None),
            kind: S::GENERATOR,
            built_in: std::process::id(),
        }
    }
}

/// Mints unique IDs of one layout and node, from any number of threads.
///
/// Lock-free: each ID is one compare-and-swap on one `AtomicU64`, with no lock, no allocation and
/// no system call. Share it by reference (it is `Sync`) or in an `Arc`. Its clock is the
/// process-wide [`CachedClock`](crate::clock::CachedClock) unless [`GeneratorBuilder::clock`] gives
/// another (a [`MonotonicClock`](crate::clock::MonotonicClock) for a process that must run no
/// background thread).
///
/// IDs from one generator are unique. Under the [`ClockBehind`] policies `Wait` and `Error`,
/// each ID is also greater than every ID this generator returned before it was minted (in
/// particular, each thread's IDs increase); under `TickTock` that holds within each timeline.
/// A generator mints at most `max_sequence + 1` IDs per tick (4,096 per millisecond for
/// `twitter`); [`mint`](Self::mint) waits for the next tick when a tick is full and
/// [`try_mint`](Self::try_mint) fails instead. A generator mints from the layout's second tick
/// on: the epoch's own tick is reserved for its initial state (a real clock is long past it).
///
/// # Examples
///
/// ```
/// use snowmint::{Generator, Layout};
///
/// let generator = Generator::builder(Layout::TWITTER).node("machine", 378).build()?;
/// let a = generator.mint()?;
/// let b = generator.mint()?;
/// assert!(b > a);
/// assert_eq!(generator.decode(b)?.node("machine"), Some(378));
/// # Ok::<(), snowmint::Error>(())
/// ```
///
/// [`GeneratorBuilder::clock`]: super::GeneratorBuilder::clock
// `repr(C, align(128))`: the state (the word, and a shared word's confirmed limit and node
// bits) and the plan first, in the generator's own 128-byte block (two cache lines,
// which x86's adjacent-line prefetcher pairs, the unit crossbeam pads to), so a mint's data
// is one block; the clock last before the counters, which start a block of their own, so that
// a clock that writes to itself (`MonotonicClock` re-anchoring) stays out of the state's
// block. The fork count a generator was built at is in the plan, not with the cold data: every
// mint but a confirmed step on a fork-fenced clock compares it, and beside the plan it costs
// no second line; what only the cold paths read (the borrowing bound) is with the cold data.
// A test checks the offsets.
#[repr(C, align(128))]
pub struct Generator<C = DefaultClock, S: State = SharedState> {
    pub(super) state: S,
    pub(super) plan: Plan,
    pub(super) on_behind: ClockBehind,
    pub(super) layout: Layout,
    pub(super) clock: C,
    pub(super) cold: CachePadded<Cold>,
}

/// A [`Generator`] for one thread: the same IDs, policies and counters, minted with a load
/// and a store instead of a compare-and-swap.
///
/// Its state word is a [`LocalState`], a `Cell`, so the generator is `Send` but not `Sync`:
/// it can be moved to the thread that will own it, and the compiler rejects any attempt to
/// mint from it on two threads. That is the model of servers that run one event loop per
/// core: give each core's thread its own generator, with its own node ID or its own part of
/// the sequence ([`GeneratorBuilder::build_local_shards`]), and no mint ever touches a cache
/// line another core writes.
///
/// # Examples
///
/// ```
/// use snowmint::{Generator, Layout, shard::Shards};
/// use std::collections::HashSet;
/// use std::thread;
///
/// // Two per-thread generators sharing machine 7, each with half of the sequence.
/// let generators = Generator::builder(Layout::TWITTER)
///     .node("machine", 7)
///     .build_local_shards(Shards::SplitSequence(2))?;
/// let ids: Vec<_> = thread::scope(|s| {
///     let workers: Vec<_> = generators
///         .into_iter()
///         .map(|generator| s.spawn(move || (0..1000).map(|_| generator.mint().unwrap()).collect::<Vec<_>>()))
///         .collect();
///     workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
/// });
/// assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 2000);
/// # Ok::<(), snowmint::Error>(())
/// ```
///
/// Sharing one across threads does not compile:
///
/// ```compile_fail
/// use snowmint::{Generator, Layout};
///
/// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_local().unwrap();
/// std::thread::scope(|s| {
///     s.spawn(|| generator.mint());
/// });
/// ```
///
/// [`GeneratorBuilder::build_local_shards`]: super::GeneratorBuilder::build_local_shards
pub type LocalGenerator<C = DefaultClock, L = AnyLayout> = Generator<C, LocalState<L>>;

impl<C: Clock, S: State> Generator<C, S> {
    /// Mints the next ID, waiting for the next tick if this one's sequence is exhausted.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    /// use std::thread;
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 7).build()?;
    /// let ids: Vec<_> = thread::scope(|s| {
    ///     let workers: Vec<_> = (0..4)
    ///         .map(|_| s.spawn(|| (0..1000).map(|_| generator.mint().unwrap()).collect::<Vec<_>>()))
    ///         .collect();
    ///     workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    /// });
    /// let unique: std::collections::HashSet<_> = ids.iter().collect();
    /// assert_eq!(unique.len(), 4000);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::ClockBehind`] when the clock reads behind the last minted tick and the
    /// [`ClockBehind`] policy does not wait that long; [`Error::TimeOverflow`],
    /// [`Error::BeforeEpoch`] or [`Error::EpochTick`] when the clock reads outside the ticks a
    /// generator mints in (after the epoch's tick, up to the layout's last tick);
    /// [`Error::LayoutExhausted`] when the layout's last tick is full; [`Error::Forked`] in
    /// the child of a `fork()` of the process that built the generator, where minting would
    /// repeat the parent's IDs (build a new generator there, with a node ID of its own).
    #[inline]
    pub fn mint(&self) -> Result<Id> {
        self.next_id(OnFull::Wait)
    }

    /// Mints the next ID, or fails if this tick's sequence is exhausted.
    ///
    /// Only the overflow wait becomes an error: a clock that reads behind still gets the
    /// generator's [`ClockBehind`] policy, which may wait. Build with [`ClockBehind::Error`]
    /// for a generator that never waits.
    ///
    /// # Errors
    ///
    /// [`Error::SequenceExhausted`], saying how long until the next tick, and the errors of
    /// [`mint`](Self::mint).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Error, Generator, Layout, clock::ManualClock};
    /// use std::time::Duration;
    ///
    /// let clock = ManualClock::new(Layout::TWITTER.epoch_ms() + 10);
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(clock.clone())
    ///     .build()?;
    /// for _ in 0..4096 {
    ///     generator.try_mint()?;
    /// }
    /// let err = generator.try_mint().unwrap_err();
    /// assert!(matches!(
    ///     err,
    ///     Error::SequenceExhausted { tick: 10, retry_after, .. } if retry_after == Duration::from_millis(1)
    /// ));
    /// clock.advance(1);
    /// assert!(generator.try_mint().is_ok());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn try_mint(&self) -> Result<Id> {
        self.next_id(OnFull::Fail)
    }

    /// Mints up to `out.len()` IDs with one compare-and-swap and writes them to the front of
    /// `out`, returning how many it wrote: all of them if the current tick's sequence range
    /// has room, else what the tick has left (at least one, waiting for the next tick if this
    /// one is full). Never allocates.
    ///
    /// The IDs written are consecutive in the sequence, strictly increasing, and as unique as
    /// those of [`mint`](Self::mint); other threads minting meanwhile get IDs before or after
    /// the whole run. An empty `out` mints nothing and returns 0.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint). Nothing is written on error.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Id, Layout};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build()?;
    /// let mut buffer = [Id::from_u64(0); 256];
    /// let written = generator.mint_batch(&mut buffer)?;
    /// assert!((1..=256).contains(&written));
    /// assert!(buffer[..written].windows(2).all(|pair| pair[0] < pair[1]));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint_batch(&self, out: &mut [Id]) -> Result<usize> {
        self.batch(out, OnFull::Wait)
    }

    /// [`mint_batch`](Self::mint_batch), failing with [`Error::SequenceExhausted`] instead of
    /// waiting when the current tick is full (unless borrowing allows the next tick).
    ///
    /// # Errors
    ///
    /// As for [`try_mint`](Self::try_mint).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Id, Layout, clock::ManualClock};
    ///
    /// let clock = ManualClock::new(Layout::TWITTER.epoch_ms() + 10);
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).clock(clock).build()?;
    /// let mut buffer = [Id::default(); 5000];
    /// assert_eq!(generator.try_mint_batch(&mut buffer)?, 4096); // one tick's worth
    /// assert!(generator.try_mint_batch(&mut buffer).is_err()); // the tick is full
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn try_mint_batch(&self, out: &mut [Id]) -> Result<usize> {
        self.batch(out, OnFull::Fail)
    }

    /// Mints the next ID if that needs no wait, or says how long to wait: never waits.
    ///
    /// A full tick (which borrowing, when on, does not cover) is [`Attempt::Wait`] until the
    /// next tick. A clock behind the last minted tick is handled by the [`ClockBehind`] policy
    /// as in [`mint`](Self::mint), except that where the policy waits, this answers
    /// [`Attempt::Wait`] with how long until the clock reaches the earliest time the generator
    /// can mint at (measured as [`ClockBehind`] says). The policy's `max_ms` bounds the
    /// whole wait here too: counted from the first attempt that found the clock behind the
    /// generator's current state, what is left of it caps each `Wait`, and once none is left
    /// the attempt fails as `mint` does.
    ///
    /// # Errors
    ///
    /// The errors of [`mint`](Self::mint): among them [`Error::ClockBehind`], for a clock
    /// behind by more than the policy's `max_ms`, or behind for longer than that in all.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Attempt, ClockBehind, Error, Generator, Layout, clock::ManualClock};
    /// use std::time::Duration;
    ///
    /// let clock = ManualClock::new(Layout::TWITTER.epoch_ms() + 100);
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(&clock)
    ///     .on_clock_behind(ClockBehind::Wait { max_ms: 50 })
    ///     .build()?;
    /// assert!(matches!(generator.mint_or_wait()?, Attempt::Minted(_)));
    /// clock.set(Layout::TWITTER.epoch_ms() + 80); // 20 ms behind: waited for
    /// assert_eq!(generator.mint_or_wait()?, Attempt::Wait(Duration::from_millis(20)));
    /// clock.set(Layout::TWITTER.epoch_ms() + 40); // 60 ms behind: more than max_ms
    /// assert!(matches!(generator.mint_or_wait(), Err(Error::ClockBehind { behind_ms: 60, .. })));
    /// clock.set(Layout::TWITTER.epoch_ms() + 100);
    /// assert!(matches!(generator.mint_or_wait()?, Attempt::Minted(_)));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint_or_wait(&self) -> Result<Attempt<Id>> {
        let node_bits = self.plan.node_bits;
        let attempt = match self.reserve_fast(1) {
            Some(run) => Attempt::Minted(run),
            None => self.reserve_or_wait_slow(1)?,
        };
        Ok(attempt.map(|run| Id::from_u64(run.first | node_bits)))
    }

    /// [`mint_batch`](Self::mint_batch) if that needs no wait, or how long to wait, as
    /// [`mint_or_wait`](Self::mint_or_wait) says: never waits. `Minted` holds how many IDs
    /// were written to the front of `out` (0 only for an empty `out`).
    ///
    /// # Errors
    ///
    /// As for [`mint_or_wait`](Self::mint_or_wait). Nothing is written on error.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Attempt, Generator, Id, Layout, clock::ManualClock};
    /// use std::time::Duration;
    ///
    /// let clock = ManualClock::new(Layout::SONYFLAKE.epoch_ms() + 1_000);
    /// let generator = Generator::builder(Layout::SONYFLAKE).node("machine", 1).clock(&clock).build()?;
    /// let mut buffer = [Id::default(); 300];
    /// assert_eq!(generator.mint_batch_or_wait(&mut buffer)?, Attempt::Minted(256)); // a 10 ms tick's worth
    /// clock.advance(4);
    /// assert_eq!(generator.mint_batch_or_wait(&mut buffer)?, Attempt::Wait(Duration::from_millis(6)));
    /// clock.advance(6);
    /// assert_eq!(generator.mint_batch_or_wait(&mut buffer)?, Attempt::Minted(256));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn mint_batch_or_wait(&self, out: &mut [Id]) -> Result<Attempt<usize>> {
        if out.is_empty() {
            return Ok(Attempt::Minted(0));
        }
        let Run { first, count } = match self.reserve_or_wait(out.len() as u64)? {
            Attempt::Minted(run) => run,
            Attempt::Wait(wait) => return Ok(Attempt::Wait(wait)),
        };
        let mut id = first | self.plan.node_bits;
        for slot in &mut out[..count as usize] {
            *slot = Id::from_u64(id);
            id = id.wrapping_add(self.plan.seq_one);
        }
        Ok(Attempt::Minted(count as usize))
    }

    /// Mints exactly `n` IDs, across as many ticks as they need, into a new `Vec`: one
    /// compare-and-swap per tick's worth, waiting for the clock when a tick is full.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint), and [`Error::TooLarge`] when `n` IDs cannot be
    /// allocated. The IDs reserved before an error are dropped; they are never handed out
    /// again.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build()?;
    /// let ids = generator.mint_many(10_000)?; // more than one tick holds
    /// assert_eq!(ids.len(), 10_000);
    /// assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn mint_many(&self, n: usize) -> Result<Vec<Id>> {
        crate::mint::mint_many_by(n, |out| self.mint_batch(out))
    }

    /// One sequence step, in ID coordinates.
    pub(crate) fn sequence_step(&self) -> u64 {
        self.plan.seq_one
    }

    /// How many IDs a tick of this generator's sequence range holds.
    pub(crate) fn ids_per_tick(&self) -> u64 {
        ((self.plan.seq_last - self.plan.seq_first) >> self.plan.seq_shift) + 1
    }
}

crate::mint::mint_by_inherent!(impl[C: Clock, S: State] Mint<Id = Id> for Generator<C, S>);

impl<C> Generator<C, SharedState> {
    /// The state word: for a sharded generator, whose threads' runs compare it with the state
    /// their reservation installed (see `shard::runs`) and which orders its shards by how far
    /// they minted.
    pub(crate) fn state_word(&self) -> &AtomicU64 {
        self.state.word()
    }
}

impl<C, S: State> Generator<C, S> {
    pub(super) fn assemble(
        layout: Layout,
        plan: Plan,
        on_behind: ClockBehind,
        state: S,
        cold: Cold,
        clock: C,
    ) -> Self {
        Generator {
            state,
            plan,
            on_behind,
            clock,
            layout,
            cold: CachePadded::new(cold),
        }
    }

    /// The generator, named `kind` in [`Error::Forked`]: for the types that wrap one.
    pub(crate) fn named(mut self, kind: &'static str) -> Self {
        self.rename(kind);
        self
    }

    /// [`named`](Self::named), in place: for a generator that must not move (a sharded
    /// generator's shard, whose state word a thread's run keeps the address of).
    pub(crate) fn rename(&mut self, kind: &'static str) {
        self.cold.kind = kind;
    }

    /// `Ok` in the process that built the generator, [`Error::Forked`] in a forked child of
    /// it: for what a wrapper must not do in the child either (stop its parent's store).
    pub(crate) fn built_here(&self) -> Result<()> {
        if fork::generation() == self.plan.forks {
            return Ok(());
        }
        Err(self.forked())
    }

    /// The error of a mint in a forked child of the process that built the generator: the
    /// child holds a copy of the state word, and would mint the IDs its parent mints.
    #[cold]
    #[inline(never)]
    fn forked(&self) -> Error {
        Error::Forked {
            generator: self.cold.kind,
            built_in: self.cold.built_in,
            used_in: std::process::id(),
        }
    }

    /// The generator's layout.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    ///
    /// let generator = Generator::builder(Layout::DISCORD).node("worker", 1).node("process", 2).build()?;
    /// assert_eq!(generator.layout().name(), "discord");
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The generator's clock.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, Generator, Layout, clock::ManualClock};
    ///
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(ManualClock::new(1_700_000_000_000))
    ///     .build()?;
    /// assert_eq!(generator.clock().unix_ms(), 1_700_000_000_000);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// What the generator does when its clock reads behind its last minted tick: the policy
    /// it was built with ([`GeneratorBuilder::on_clock_behind`](crate::GeneratorBuilder::on_clock_behind)).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{ClockBehind, Generator, Layout};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build()?;
    /// assert_eq!(generator.clock_behind_policy(), ClockBehind::Wait { max_ms: 1_000 }); // the default
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn clock_behind_policy(&self) -> ClockBehind {
        self.on_behind
    }

    /// The node bits every ID of this generator carries, in ID coordinates.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    ///
    /// // Twitter's 10 machine bits sit above its 12 sequence bits.
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 3).build()?;
    /// assert_eq!(generator.node_bits(), 3 << 12);
    /// assert_eq!(generator.mint()?.to_u64() & (0x3ff << 12), 3 << 12);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn node_bits(&self) -> u64 {
        self.plan.node_bits
    }

    /// Decodes an ID under this generator's layout.
    ///
    /// # Errors
    ///
    /// [`Error::IdOutOfLayout`] when the ID does not fit the layout.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 378).build()?;
    /// let parts = generator.decode(generator.mint()?)?;
    /// assert_eq!(parts.node("machine"), Some(378));
    /// assert_eq!(parts.layout().name(), "twitter");
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn decode(&self, id: Id) -> Result<Parts<'_>> {
        self.layout.decode(id)
    }

    /// The counters of overflows, waits, regressions and tick-tock toggles so far.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, clock::ManualClock};
    ///
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(ManualClock::new(1_700_000_000_000))
    ///     .build()?;
    /// for _ in 0..4096 {
    ///     generator.try_mint()?;
    /// }
    /// assert!(generator.try_mint().is_err());
    /// assert_eq!(generator.stats().overflows, 1);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn stats(&self) -> Stats {
        let read = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        Stats {
            overflows: read(&self.cold.overflows),
            waits: read(&self.cold.waits),
            regressions: read(&self.cold.regressions),
            toggles: read(&self.cold.toggles),
            borrows: read(&self.cold.borrows),
            max_ahead_ticks: read(&self.cold.max_ahead_ticks),
            events_dropped: read(&self.cold.events_dropped),
        }
    }

    /// The generator's state now, to resume from with [`Generator::resume`]: take it when
    /// minting has stopped.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, clock::ManualClock};
    ///
    /// let clock = ManualClock::new(Layout::TWITTER.epoch_ms() + 10);
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).clock(clock).build()?;
    /// generator.mint()?;
    /// generator.mint()?;
    /// let snapshot = generator.snapshot();
    /// assert_eq!((snapshot.last_tick, snapshot.sequence), (10, 1));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn snapshot(&self) -> Snapshot {
        let state = self.state.load();
        let layout = self.layout;
        let timeline = u64::from(state & self.plan.tick_mask != 0);
        let last_tick = state >> self.plan.time_shift;
        Snapshot {
            layout,
            nodes: layout
                .node_fields()
                .map(|f| (f.name(), f.get(self.plan.node_bits)))
                .collect(),
            last_tick,
            sequence: if last_tick == 0 {
                0
            } else {
                layout.sequence_field().get(state)
            },
            timeline,
            other_timeline_tick: self.state.high_water(&self.cold.high_water)
                [1 - timeline as usize]
                .load(Ordering::Acquire),
            sequence_range: self.plan.seq_first >> self.plan.seq_shift
                ..=self.plan.seq_last >> self.plan.seq_shift,
        }
    }
}

impl<C, S: State> fmt::Debug for Generator<C, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let snapshot = self.snapshot();
        // Tick 0 is the reserved initial state: nothing minted yet.
        let last = (snapshot.last_tick != 0).then_some((
            snapshot.last_tick,
            snapshot.timeline,
            snapshot.sequence,
        ));
        f.debug_struct("Generator")
            .field("layout", &self.layout)
            .field("nodes", &snapshot.nodes)
            .field("last_tick_timeline_sequence", &last)
            .field("on_clock_behind", &self.on_behind)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

#[cfg(all(test, not(snowmint_loom)))]
mod tests {
    use std::mem::{align_of, offset_of, size_of};

    use super::{Generator, Plan, SharedState};
    use crate::clock::MonotonicClock;

    /// A mint reads the state word and the plan: both in the generator's first 128-byte
    /// block, and the clock, which may write to itself, in none of it.
    #[test]
    fn the_state_and_the_plan_have_the_first_block_to_themselves() {
        type Shared = Generator<MonotonicClock, SharedState>;
        assert_eq!(align_of::<Shared>(), 128);
        assert_eq!(offset_of!(Shared, state), 0);
        assert!(offset_of!(Shared, plan) + size_of::<Plan>() <= 128);
        assert!(offset_of!(Shared, clock) >= 128);
    }
}
