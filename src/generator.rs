//! The lock-free generator: one `AtomicU64`, one CAS per ID.
//!
//! # Design
//!
//! The generator's whole mutable state is one cache-padded `AtomicU64` holding the last
//! minted ID *without its node bits*: the tick in the time field's bits and the sequence in
//! the sequence field's bits, exactly where they sit in an ID. Minting is
//!
//! 1. load the state, then read the clock once (converted to ticks since the epoch);
//! 2. if the clock is ahead of the state's tick, the next state is that tick with the first
//!    sequence value; if it is on the same tick, the state plus one sequence step; if the
//!    tick's sequence is exhausted, wait for the next tick (or fail, in the `try_` methods);
//! 3. compare-and-swap the state; on success the ID is the new state OR the node bits; on
//!    failure start again from step 2 with the value the CAS found, *without* re-reading the
//!    clock: a tick another thread installed is a time some thread has read, so minting on it
//!    is as fresh as minting on ours.
//!
//! A clock reading behind the state's tick right after the load (step 1) is a real
//! regression, not a stale read: the clock was read after the state was observed. The
//! generator then applies its [`ClockBehind`] policy. After a failed CAS a newer state simply
//! wins over the older reading (step 2 takes the state's tick and increments its sequence).
//!
//! The hot path is the first CAS succeeding on a new or same tick: one clock read, one load,
//! one CAS, a few shifts and compares. Waiting, clock-behind handling and errors live in
//! `#[cold]` functions.
//!
//! # Orderings
//!
//! Uniqueness rests on the modification order of the one state word alone: every successful
//! CAS replaces the value it read with a strictly greater one (a later tick, or the same tick
//! with a greater sequence), so no two successful CASes install the same state, and no two
//! mints return the same ID. `Relaxed` would suffice for that. The state is loaded with
//! `Acquire` and swapped with `AcqRel` for a second property: for a clock whose readings are
//! memory published with `Release` and read with `Acquire` (such as
//! [`ManualClock`](crate::ManualClock)), a reading taken after observing a state is at least
//! the reading that produced it, so "the clock reads behind the state" means a regression,
//! never a stale cache line. A hardware counter is outside the memory model: the default
//! clock's readings are monotonic across cores, but an unfenced counter read may execute a few
//! nanoseconds before the load that precedes it, so right at a tick boundary a reading could
//! land one tick behind a state another core just installed. The default
//! [`ClockBehind::Wait`] absorbs that in nanoseconds; uniqueness never depends on it. On
//! x86-64 these orderings cost nothing over `Relaxed`.

use std::fmt;
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

use crate::clock::{Clock, MonotonicClock};
use crate::error::{Error, Result};
use crate::id::{Id, Parts};
use crate::layout::Layout;
use crate::sync::{AtomicU64, Backoff, Ordering, spin_loop};

/// What a generator does when its clock reads behind the last tick it minted.
///
/// The default [`MonotonicClock`] never goes backwards, so this matters for custom clocks
/// (one that follows the wall clock, a [`ManualClock`](crate::ManualClock) in a test). Either
/// way no ID is repeated: the generator never mints at a tick below its last one.
///
/// # Examples
///
/// ```
/// use snowmint::{ClockBehind, Error, Generator, Layout, ManualClock};
///
/// let clock = ManualClock::new(Layout::TWITTER.epoch_ms() + 1_000);
/// let generator = Generator::builder(Layout::TWITTER)
///     .clock(clock.clone())
///     .on_clock_behind(ClockBehind::Error)
///     .build()?;
/// generator.mint()?;
/// clock.set(Layout::TWITTER.epoch_ms() + 990);
/// assert!(matches!(generator.mint(), Err(Error::ClockBehind { behind_ms: 10, .. })));
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockBehind {
    /// Spin (politely: spin hints, then yielding) re-reading the clock until it catches up,
    /// for at most `max_ms` milliseconds of real time; fail with [`Error::ClockBehind`] at once
    /// if the clock is more than `max_ms` behind, and when the wait runs out.
    Wait {
        /// The longest wait, and the largest regression waited out, in milliseconds.
        max_ms: u64,
    },
    /// Fail with [`Error::ClockBehind`] at once, saying how far behind the clock reads.
    Error,
}

impl Default for ClockBehind {
    /// Wait out regressions of up to one second.
    fn default() -> Self {
        ClockBehind::Wait { max_ms: 1_000 }
    }
}

/// What to do when the current tick's sequence is exhausted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OnFull {
    Wait,
    Error,
}

/// The layout, pre-shifted for the hot path.
#[derive(Debug, Clone, Copy)]
struct Plan {
    time_shift: u32,
    /// One sequence step, in ID coordinates.
    seq_one: u64,
    /// The sequence field's bits, in ID coordinates: also its last value.
    seq_mask: u64,
    node_bits: u64,
    epoch_ms: u64,
    tick_ms: u64,
    max_ticks: u64,
}

/// Mints unique, strictly increasing IDs of one layout and node, from any number of threads.
///
/// Lock-free: each ID is one compare-and-swap on one cache-padded `AtomicU64`, with no lock, no
/// allocation, no system call and no background thread. Share it by reference (it is `Sync`)
/// or in an `Arc`.
///
/// IDs from one generator are unique, and each ID is greater than every ID this generator
/// returned before it was minted (in particular, each thread's IDs increase). A generator
/// mints at most `max_sequence + 1` IDs per tick (4,096 per millisecond for `twitter`);
/// [`mint`](Self::mint) waits for the next tick when a tick is full and
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
pub struct Generator<C = MonotonicClock> {
    state: CachePadded<AtomicU64>,
    plan: Plan,
    on_behind: ClockBehind,
    clock: C,
    layout: Layout,
}

/// The builder's clock before [`GeneratorBuilder::clock`] is called: a [`MonotonicClock`]
/// created by `build()`.
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultClock;

/// Configures a [`Generator`]: node fields, clock and clock-behind policy.
///
/// Setters record values; [`build`](Self::build) validates them all once.
///
/// # Examples
///
/// ```
/// use snowmint::{ClockBehind, Generator, Layout, ManualClock};
///
/// let generator = Generator::builder(Layout::DISCORD)
///     .node("worker", 3)
///     .node("process", 4)
///     .on_clock_behind(ClockBehind::Error)
///     .clock(ManualClock::new(1_700_000_000_000))
///     .build()?;
/// let parts = generator.decode(generator.mint()?)?;
/// assert_eq!((parts.node("worker"), parts.node("process")), (Some(3), Some(4)));
///
/// let err = Generator::builder(Layout::DISCORD).node("shard", 1).build().unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "layout discord has no node field \"shard\"; its node fields are: worker, process"
/// );
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct GeneratorBuilder<C = DefaultClock> {
    layout: Layout,
    nodes: Vec<(String, u64)>,
    on_behind: ClockBehind,
    clock: C,
}

impl Generator {
    /// Starts configuring a generator for `layout`, with every node field 0, the
    /// [`MonotonicClock`] and [`ClockBehind::default`].
    pub fn builder(layout: Layout) -> GeneratorBuilder {
        GeneratorBuilder {
            layout,
            nodes: Vec::new(),
            on_behind: ClockBehind::default(),
            clock: DefaultClock,
        }
    }
}

impl<C> GeneratorBuilder<C> {
    /// Sets the node field called `name` (`machine`, `worker`, `process`, `shard`,
    /// `generator`, or a custom layout's own) to `value`.
    ///
    /// Checked by [`build`](Self::build): an unknown name, a name set twice or a value the
    /// field cannot hold is an error there.
    pub fn node(mut self, name: &str, value: u64) -> Self {
        self.nodes.push((name.to_owned(), value));
        self
    }

    /// Sets what to do when the clock reads behind the last minted tick.
    pub fn on_clock_behind(mut self, policy: ClockBehind) -> Self {
        self.on_behind = policy;
        self
    }

    /// Uses `clock` instead of a [`MonotonicClock`].
    pub fn clock<D: Clock>(self, clock: D) -> GeneratorBuilder<D> {
        GeneratorBuilder {
            layout: self.layout,
            nodes: self.nodes,
            on_behind: self.on_behind,
            clock,
        }
    }

    /// Validates the node fields and pre-shifts the layout.
    fn plan(&self) -> Result<Plan> {
        let layout = &self.layout;
        let nodes: Vec<(&str, u64)> = self
            .nodes
            .iter()
            .map(|(name, value)| (name.as_str(), *value))
            .collect();
        let sequence = layout.sequence_field();
        Ok(Plan {
            time_shift: layout.time_field().shift(),
            seq_one: 1 << sequence.shift(),
            seq_mask: sequence.mask(),
            node_bits: layout.node_bits(&nodes)?,
            epoch_ms: layout.epoch_ms(),
            tick_ms: layout.tick_ms(),
            max_ticks: layout.max_ticks(),
        })
    }
}

impl GeneratorBuilder<DefaultClock> {
    /// Validates the configuration and builds the generator on a new [`MonotonicClock`].
    ///
    /// # Errors
    ///
    /// The errors of [`Layout::node_bits`] for a bad node field: [`Error::UnknownNodeField`],
    /// [`Error::DuplicateNodeField`], [`Error::NodeOutOfRange`].
    pub fn build(self) -> Result<Generator<MonotonicClock>> {
        let plan = self.plan()?;
        Ok(Generator::assemble(
            self.layout,
            plan,
            self.on_behind,
            MonotonicClock::new(),
        ))
    }
}

impl<C: Clock> GeneratorBuilder<C> {
    /// Validates the configuration and builds the generator on the clock given.
    ///
    /// # Errors
    ///
    /// The errors of [`Layout::node_bits`] for a bad node field: [`Error::UnknownNodeField`],
    /// [`Error::DuplicateNodeField`], [`Error::NodeOutOfRange`].
    pub fn build(self) -> Result<Generator<C>> {
        let plan = self.plan()?;
        Ok(Generator::assemble(
            self.layout,
            plan,
            self.on_behind,
            self.clock,
        ))
    }
}

impl<C: Clock> Generator<C> {
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
    /// generator mints in (after the epoch's tick, up to the layout's last tick).
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
    /// use snowmint::{Error, Generator, Layout, ManualClock};
    /// use std::time::Duration;
    ///
    /// let clock = ManualClock::new(Layout::TWITTER.epoch_ms() + 10);
    /// let generator = Generator::builder(Layout::TWITTER).clock(clock.clone()).build()?;
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
        self.next_id(OnFull::Error)
    }

    #[inline(always)]
    fn next_id(&self, on_full: OnFull) -> Result<Id> {
        let plan = &self.plan;
        // Acquire, then read the clock: a reading behind this state is a regression.
        let mut current = self.state.load(Ordering::Acquire);
        let mut now = self.ticks(self.clock.unix_ms())?;
        if now < current >> plan.time_shift {
            now = self.clock_behind(current >> plan.time_shift)?;
        }
        loop {
            let last = current >> plan.time_shift;
            let next = if now > last {
                now << plan.time_shift
            } else if current & plan.seq_mask < plan.seq_mask {
                current + plan.seq_one
            } else {
                now = self.next_tick(last, on_full)?;
                continue;
            };
            // AcqRel on success publishes the tick this thread read (see `# Orderings`);
            // Acquire on failure, as for the first load.
            match self.state.compare_exchange_weak(
                current,
                next,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return Ok(Id::from_u64(next | plan.node_bits)),
                Err(actual) => {
                    current = actual;
                    spin_loop();
                }
            }
        }
    }

    /// A clock reading as ticks since the epoch, within the ticks a generator mints in.
    #[inline(always)]
    fn ticks(&self, unix_ms: u64) -> Result<u64> {
        let plan = &self.plan;
        let Some(since) = unix_ms.checked_sub(plan.epoch_ms) else {
            return Err(self.time_error(unix_ms));
        };
        let ticks = if plan.tick_ms == 1 {
            since
        } else {
            since / plan.tick_ms
        };
        // One compare for both ends: tick 0 (reserved, see `assemble`) wraps to u64::MAX.
        if ticks.wrapping_sub(1) >= plan.max_ticks {
            return Err(self.time_error(unix_ms));
        }
        Ok(ticks)
    }

    #[cold]
    #[inline(never)]
    fn time_error(&self, unix_ms: u64) -> Error {
        let since = unix_ms.checked_sub(self.plan.epoch_ms);
        if since.is_some_and(|since| since < self.plan.tick_ms) {
            Error::EpochTick {
                layout: self.layout.name(),
                unix_ms,
                first_ms: self.plan.epoch_ms + self.plan.tick_ms,
            }
        } else {
            self.layout.time_error(unix_ms)
        }
    }

    /// The tick `last` is full: wait for a later tick and return it, or fail, as `on_full` says.
    #[cold]
    #[inline(never)]
    fn next_tick(&self, last: u64, on_full: OnFull) -> Result<u64> {
        let backoff = Backoff::new();
        loop {
            let mut now = self.ticks(self.clock.unix_ms())?;
            if now < last {
                // The clock went back while this thread waited.
                now = self.clock_behind(last)?;
            }
            if now > last {
                return Ok(now);
            }
            if on_full == OnFull::Error {
                return Err(Error::SequenceExhausted {
                    layout: self.layout.name(),
                    tick: last,
                    retry_after: Duration::from_millis(self.plan.tick_ms),
                });
            }
            backoff.snooze();
        }
    }

    /// The clock reads behind the last minted tick `last`: wait until it reads at least `last`
    /// and return that reading, or fail, as the [`ClockBehind`] policy says.
    #[cold]
    #[inline(never)]
    fn clock_behind(&self, last: u64) -> Result<u64> {
        let max_wait_ms = match self.on_behind {
            ClockBehind::Wait { max_ms } => max_ms,
            ClockBehind::Error => 0,
        };
        // The start of tick `last`; no overflow, since `last` is at most the layout's last tick.
        let last_ms = self.plan.epoch_ms + last * self.plan.tick_ms;
        let started = Instant::now();
        let backoff = Backoff::new();
        loop {
            let unix_ms = self.clock.unix_ms();
            let now = self.ticks(unix_ms)?;
            if now >= last {
                return Ok(now);
            }
            // `now < last`, so the reading is before tick `last` began.
            let behind_ms = last_ms - unix_ms;
            let waited = started.elapsed();
            if behind_ms > max_wait_ms || waited >= Duration::from_millis(max_wait_ms) {
                return Err(Error::ClockBehind {
                    layout: self.layout.name(),
                    behind_ms,
                    max_wait_ms,
                });
            }
            backoff.snooze();
        }
    }
}

impl<C> Generator<C> {
    fn assemble(layout: Layout, plan: Plan, on_behind: ClockBehind, clock: C) -> Self {
        Generator {
            // Tick 0 with its sequence exhausted, below every state a mint installs: the
            // generator never mints in tick 0 (`ticks` rejects it), so the first mint
            // always starts a fresh tick and needs no flag to know it is the first.
            state: CachePadded::new(AtomicU64::new(plan.seq_mask)),
            plan,
            on_behind,
            clock,
            layout,
        }
    }

    /// The generator's layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The generator's clock.
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// The node bits every ID of this generator carries, in ID coordinates.
    pub fn node_bits(&self) -> u64 {
        self.plan.node_bits
    }

    /// Decodes an ID under this generator's layout.
    ///
    /// # Errors
    ///
    /// [`Error::IdOutOfLayout`] when the ID does not fit the layout.
    pub fn decode(&self, id: Id) -> Result<Parts<'_>> {
        self.layout.decode(id)
    }
}

impl<C> fmt::Debug for Generator<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state.load(Ordering::Relaxed);
        // Tick 0 is the reserved initial state: nothing minted yet.
        let last = (state >> self.plan.time_shift != 0).then(|| {
            let tick = self.layout.time_field().get(state);
            (tick, self.layout.sequence_field().get(state))
        });
        f.debug_struct("Generator")
            .field("layout", &self.layout)
            .field("node_bits", &format_args!("{:#x}", self.plan.node_bits))
            .field("last_tick_and_sequence", &last)
            .field("on_clock_behind", &self.on_behind)
            .finish_non_exhaustive()
    }
}
