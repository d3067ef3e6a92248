//! The default clock: quanta's monotonic counter, re-anchored to the wall clock.
//!
//! # Design
//!
//! Counter time is quanta's counter in nanoseconds since the clock was created. A reading
//! follows a *segment*: the line through the reading `base` at counter time `start`, which at
//! `d = counter - start` reads `base + d + skew·min(d, I)`, `I` the recheck interval. So a
//! segment gains `skew·I` over its first interval and runs at the counter's rate after it; a
//! counter reading from before `start` (a reader that read the counter, then stalled) reads
//! `base`. The skew is a fraction in `[-1/2, 1/2]` with 63 fractional bits, applied with one
//! 128-bit multiply and a shift; a segment without one reads `base + d`.
//!
//! A segment is three words. They live in two slots of atomics beside a `generation` word
//! whose low bit names the slot in use: a re-anchor writes the other slot, then publishes
//! `generation + 1`; a reader loads the generation, that slot's words and the generation
//! again, and reads again if it moved. No reader takes a lock or waits for a writer, and the
//! slot a reader reads is only rewritten by the re-anchor after the one that replaces it.
//!
//! A reading `I` or more past its segment's start is *overdue*, and re-anchors if it can take
//! the writer lock: one more atomic, holding a version while free and, while taken, the
//! counter time it was taken at. The holder reads `SystemTime::now` between two counter
//! readings, and compares the wall clock with the reading at the counter time the next
//! segment starts. An error `e = wall - reading` of at most the [step
//! threshold](MonotonicClockBuilder::step_threshold) is slewed: the next segment starts at the
//! current reading with skew `e / I`, so it meets the wall clock one interval later and
//! readings never jump. A larger error is a step: the next segment starts on the wall clock
//! (forward, or back in [`WallClockBack::Report`]). Every other reader, meanwhile and after,
//! reads its segment: a system call once per interval per clock, never one per reading.
//! Anchored once, `I` is infinite and no reading is ever overdue.
//!
//! While the lock is taken, an overdue reading of the segment being replaced follows it only
//! up to the counter time the lock was taken at, and at half the counter's rate after that.
//! The next segment starts after that time, from the reading there, and runs at least at half
//! speed (the threshold is at most `I / 2`), so it never reads below what those readers
//! returned, however long the holder takes to publish.
//!
//! [`WallClockBack::Slew`] adds two atomics: `base`, the intercept of a half-speed line
//! `base + counter / 2` that readings follow while they are ahead of the wall clock after a
//! step back, and `last`, the greatest reading handed out, which every reading raises with
//! `fetch_max`. A reading is `max(last, segment, base + counter / 2)`.
//!
//! # Orderings
//!
//! *Whole segments.* The holder of the writer lock writes the slot the current generation does
//! not name, with a `Release` fence before its `Relaxed` stores and a `Release` store of
//! `generation + 1` after them. A reader loads the generation with `Acquire`, which makes the
//! slot written before that publish visible; loads the three words `Relaxed`; issues an
//! `Acquire` fence, and reloads the generation. The only later writer of that slot is the
//! holder after next, which took the lock after the next generation was published: if any of
//! the reader's loads saw one of its stores, the two fences synchronise and the reload sees
//! that next generation, so the reader reads again. A reload equal to the first load means
//! the three words are one segment. A reader reads again only when a re-anchor published
//! during its read.
//!
//! *One writer.* The lock is taken with a compare-and-swap from a free value (`AcqRel`) and
//! released with a `Release` store of the next free value, which no earlier free value
//! equals, so a compare-and-swap from a stale one fails (a reader that reads on while a fork
//! is being prepared moves the free value on too, with a compare-and-swap). The holder thus
//! sees the previous holder's publish and slot, and an overdue reader that loads a held value
//! (`Acquire`) sees every generation published before it was taken, so it can tell whether
//! that holder is replacing the segment it read.
//!
//! *Never back.* Apart from the steps back `Report` hands on, readings never decrease, in one
//! thread or across threads. The argument rests on the counter: a counter reading taken before
//! a load that misses a store is earlier than one taken after a load that sees it (up to the
//! nanoseconds an unfenced counter read may run ahead; see the generator's `# Orderings`).
//! Let `L` be the line that follows each published segment `k` from its start `s_k` up to the
//! counter time `v_k` at which the writer of segment `k + 1` took the lock (`v_k` is at least
//! `k`'s due time), at half speed from there to `s_{k+1}`, and segment `k + 1` from there. A
//! slew starts from `L`'s value and runs at least at half speed, and a step forward starts
//! above it, so `L` never decreases. A reading of segment `k` whose counter reading is `c` is:
//!
//! - before `s_k` (a reader that stalled after reading the counter): `L` at `s_k`;
//! - before `k` is due, hence before `v_k`: `L` at `c`;
//! - overdue, the lock taken at `v_k`: `k` up to `v_k` and half speed after it, which is `L`
//!   at `c` up to `s_{k+1}`, and below `L` after it, where segment `k + 1` runs at least at
//!   half speed;
//! - overdue, the lock taken before `k` was due: `k` at `c`, which is `L` at `c`, since that
//!   holder publishes nothing and the next one takes the lock after `c`;
//! - overdue, the lock free but a fork being prepared (see `# After fork()`): `k` at `c`, which
//!   is `L` at `c`. The reader first replaces the free value it loaded with the next one (a
//!   compare-and-swap; it reads again if the lock changed). A holder that replaced `k` before
//!   that load published a generation the reader sees (its release is the value loaded, and
//!   the reader checks the generation after it). A holder that takes the lock later does so
//!   with a compare-and-swap from a free value loaded after the reader's, and reads its
//!   `elected` after that load, so after `c`; one that read its `elected` before the reader's
//!   compare-and-swap expects the replaced value, fails and elects again.
//!
//! So a reading of `k` is at most `L` at the later of `c` and `s_k`, and readings of one
//! segment are values of one nondecreasing function of `c`. A reading of `k` that finds `k + 1`
//! published reads again, so `c` came before that publish, and before every lock taken after
//! it. A reading of a later segment `m` at counter reading `c' >= c` is at least `L` at the
//! later of `s_m` and `min(c', v_m)`, and `c < v_m`: it is at least every reading of `k` before
//! it.
//!
//! *Slew.* Monotonic readings rest on the modification order of `last` alone: each
//! `fetch_max` returns at least every value before it, whatever segment and base the reader
//! loaded, so a stale pair of the two costs a pause, never a step back. Both are `Relaxed`.
//!
//! # After `fork()`
//!
//! The child inherits the counter, the segments and the writer lock as they were. The lock
//! would be the one thing left half done: taken by a thread the child does not have, it would
//! hold every overdue reading of the child at half speed, for good. So a re-anchor is a fork
//! section ([`crate::fork`]), entered before the lock is taken and left after it is released:
//! a fork waits for a re-anchor under way (a wall-clock read, microseconds), and the child
//! finds the lock free. A reader that finds a fork being prepared does not wait for it: it
//! reads its overdue segment on (the last case above), and the first reading after the gate
//! opens, in the parent or the child, re-anchors. Building a clock is a section too: the
//! first one in a process calibrates quanta's counter inside quanta's once-cell.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::Clock;
use crate::sync::{AtomicU64, Ordering, fence};

/// How long a re-anchor may wait for `SystemTime::now` between its two counter readings
/// before it tries again: the measurement error is at most half of it.
const GOOD_WINDOW_NS: u64 = 20_000;

/// How many times a re-anchor measures the wall clock before it keeps the best of its tries.
const MEASUREMENTS: usize = 3;

/// The default step threshold (see [`MonotonicClockBuilder::step_threshold`]).
const STEP_THRESHOLD: Duration = Duration::from_millis(10);

/// The writer lock's free flag: set while free, the bits below it then count releases; clear
/// while taken, the word then being the counter time it was taken at.
const FREE: u64 = 1 << 63;

/// The fractional bits of a segment's skew.
const SKEW_SHIFT: u32 = 63;

/// Wall time from a monotonic counter, re-anchored to the wall clock: the default clock of
/// every generator.
///
/// Each reading is quanta's counter, kept on the wall clock (`SystemTime`). On x86-64
/// and AArch64 the counter is the CPU's time-stamp counter when it is invariant (quanta checks
/// and calibrates it once per process), else `CLOCK_MONOTONIC` through the vDSO: either way a
/// reading is a few nanoseconds and no system call. Once every [recheck
/// interval](MonotonicClockBuilder::recheck) of counter time (1 s by default), the first
/// reading past it re-reads the wall clock; the readings in between are a counter read, five
/// relaxed or acquire loads, three compares and an add, plus a multiply while an error is
/// being slewed (on real hardware nearly always: drift leaves a few nanoseconds at least).
///
/// The counter does not follow the wall clock: it drifts (a few parts per million), NTP steps
/// the wall clock, an administrator sets it, a suspended host wakes up behind it. Each
/// re-anchor measures how far the reading is from the wall clock. Up to the [step
/// threshold](MonotonicClockBuilder::step_threshold) (10 ms by default) the error is drift,
/// and is slewed: readings run slightly faster or slower for one interval and meet the wall
/// clock at its end, never jumping. Beyond it the error is a step: when the wall clock is
/// ahead, the reading jumps forward to it; when it is behind, the [`WallClockBack`] mode
/// decides: [`Report`](WallClockBack::Report) (the default) goes back with it,
/// [`Slew`](WallClockBack::Slew) runs at half speed until the wall clock catches up.
///
/// # Divergence from the wall clock
///
/// Let `I` be the recheck interval, `D` the counter time between two re-anchors (`I`, plus
/// the wait for the first reading past it: `I` for a clock read continually), and `ρ` the
/// counter's rate error against the wall clock (quanta's calibration error plus NTP's
/// frequency corrections: typically a few parts per million, at most about 500). A re-anchor
/// slews away over the next interval the error it finds, while the counter drifts by at most
/// `ρ·D`. So drift keeps a reading within `ρ·D` of the wall clock, `D` the longer of the last
/// two (`ρ·I` for a clock read continually: 0.5 ms at most, microseconds typically). Add up to
/// three measurement errors (each half the time `SystemTime::now` took: well under a
/// microsecond; at most 10 µs unless three tries in a row are interrupted) and the time a
/// re-anchor takes (while one is under way the other readers run at half speed; the next
/// re-anchor slews that away).
///
/// A step back beyond the threshold is followed at the next re-anchor (at most `I` of counter
/// time after it) under `Report`, and run off at half speed under `Slew` (on the wall clock
/// again `2·S` of counter time after a step of `S`); anchored once, the clock ignores the wall
/// clock and drifts without bound. The [clock module's table](crate::clock#choosing-a-clock)
/// compares these modes with the other clocks.
///
/// The counter, like `CLOCK_MONOTONIC`, does not count time the host spends suspended, so
/// after a resume the reading lags by the suspension until the next re-anchor, at most `I`
/// later.
///
/// # Monotonicity
///
/// Readings never decrease, also across threads (a reading that happens after another,
/// through any synchronisation, is at least as large), except that `Report` hands a step back
/// beyond the threshold on to the caller: a [`Generator`](crate::Generator) never mints below
/// its last tick, and sees the regression through its [`ClockBehind`](crate::ClockBehind)
/// policy. Drift and steps within the threshold never move a reading back. `Slew` adds a
/// guarantee that holds whatever the counter does between cores, since every reading raises
/// one shared word; the other modes are as monotonic as the counter, up to the nanoseconds
/// an unfenced counter read may run ahead of the load before it (see the generator's
/// `# Orderings`).
///
/// # Examples
///
/// ```
/// use snowmint::{Clock, clock::MonotonicClock};
/// use std::time::{SystemTime, UNIX_EPOCH};
///
/// let clock = MonotonicClock::new();
/// let wall = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64;
/// assert!(clock.unix_ms().abs_diff(wall) < 1_000);
///
/// // Drift never moves a reading back, whatever the mode.
/// let a = clock.unix_ns();
/// assert!(clock.unix_ns() >= a);
/// ```
#[derive(Debug)]
pub struct MonotonicClock {
    /// The segment readings follow, and the writer lock.
    segments: Segments,
    counter: Counter,
    wall: Wall,
    /// Counter nanoseconds between re-anchors; `u64::MAX` when anchored once.
    interval_ns: u64,
    /// The largest error a re-anchor slews rather than steps: at most `interval_ns / 2`.
    threshold_ns: u64,
    /// Present in [`WallClockBack::Slew`] mode.
    slew: Option<Slew>,
}

/// The state of [`WallClockBack::Slew`] mode.
#[derive(Debug)]
struct Slew {
    /// The intercept of the half-speed line `base + counter / 2`; it only rises.
    base: AtomicU64,
    /// The greatest reading handed out; it only rises.
    last: AtomicU64,
}

/// What a [`MonotonicClock`] does when a re-anchor finds the wall clock behind its reading by
/// more than the [step threshold](MonotonicClockBuilder::step_threshold).
///
/// A step back (NTP stepping a fast clock back, an administrator's `date`) puts the reading
/// ahead of the wall clock. Drift and steps within the threshold are slewed in either mode,
/// never moving a reading back; steps forward are always followed at once; this chooses what
/// happens to larger steps back.
///
/// `Report` is the default because a [`Generator`](crate::Generator) already does what `Slew`
/// does for it, for free: it never mints below its last tick, its state word is the "greatest
/// reading so far", and its [`ClockBehind`](crate::ClockBehind) policy decides how to wait
/// (or fail, or toggle) in one place, for the real steps back it should know about. `Slew`
/// would add a second read-modify-write, on a word every minting thread writes, to every mint.
/// Pick `Slew` for readings used outside a generator that must never go back, or for a
/// generator whose policy should never see the host clock's regressions.
///
/// # Examples
///
/// ```
/// use snowmint::{Clock, clock::{MonotonicClock, WallClockBack}};
///
/// let clock = MonotonicClock::builder().on_wall_clock_back(WallClockBack::Slew).build();
/// let mut last = clock.unix_ns();
/// for _ in 0..1_000 {
///     let now = clock.unix_ns();
///     assert!(now >= last); // whatever the wall clock does meanwhile
///     last = now;
/// }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum WallClockBack {
    /// Go back to the wall clock at the re-anchor: the reading decreases by the error, and the
    /// reader (a generator's [`ClockBehind`](crate::ClockBehind) policy) sees a regression.
    #[default]
    Report,
    /// Never go back: while the reading is ahead of the wall clock it advances at half the
    /// counter's rate, so a gap of `S` closes in `2·S` of counter time; every reading also
    /// raises a shared "greatest reading" word with `fetch_max`.
    Slew,
}

/// Configures a [`MonotonicClock`]: how often it re-anchors, which errors it slews, and what
/// it does when the wall clock steps back.
///
/// # Examples
///
/// ```
/// use snowmint::{Clock, clock::MonotonicClock};
/// use std::time::Duration;
///
/// // Today's clock, anchored once: never re-reads the wall clock.
/// let once = MonotonicClock::builder().anchor_once().build();
/// // Re-anchored every 100 ms instead of every second.
/// let eager = MonotonicClock::builder().recheck(Duration::from_millis(100)).build();
/// assert!(once.unix_ms().abs_diff(eager.unix_ms()) < 1_000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MonotonicClockBuilder {
    /// `None`: anchored once.
    recheck: Option<Duration>,
    step_threshold: Duration,
    on_back: WallClockBack,
}

impl MonotonicClockBuilder {
    /// Re-anchors to the wall clock every `interval` of counter time (default: one second).
    ///
    /// The interval bounds how long the reading may follow the counter alone (see the
    /// divergence table on [`MonotonicClock`]). Each re-anchor costs one `SystemTime::now`
    /// on the one reading that performs it. `Duration::ZERO` re-anchors on every reading,
    /// with a system call each: for tests, not for minting.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, clock::MonotonicClock};
    /// use std::time::Duration;
    ///
    /// let clock = MonotonicClock::builder().recheck(Duration::from_secs(10)).build();
    /// assert!(clock.unix_ms() > 1_600_000_000_000);
    /// ```
    pub fn recheck(mut self, interval: Duration) -> Self {
        self.recheck = Some(interval);
        self
    }

    /// Anchors to the wall clock once, at [`build`](Self::build), and never again: the clock
    /// of snowmint 0.1.
    ///
    /// Readings never go back and cost no more than `Report`'s, but drift from the wall clock
    /// without bound: the counter's rate error times the uptime, plus every step and
    /// suspension after the anchor. [`step_threshold`](Self::step_threshold) and
    /// [`on_wall_clock_back`](Self::on_wall_clock_back) do not apply.
    /// [`recheck`](Self::recheck) called afterwards turns re-anchoring back on.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, clock::MonotonicClock};
    ///
    /// let clock = MonotonicClock::builder().anchor_once().build();
    /// let a = clock.unix_ns();
    /// assert!(clock.unix_ns() >= a);
    /// ```
    pub fn anchor_once(mut self) -> Self {
        self.recheck = None;
        self
    }

    /// The largest error between the reading and the wall clock that a re-anchor slews
    /// rather than steps (default: 10 ms), capped at half the recheck interval.
    ///
    /// An error within the threshold is drift: the re-anchor starts readings on a line from
    /// the current reading that gains the error over the next interval, so they never jump
    /// and meet the wall clock one interval later. A larger error is a step: followed at once
    /// when the wall clock is ahead, handed to the [`WallClockBack`] mode when it is behind.
    ///
    /// 10 ms sits far above drift and far below real steps. Over the default 1 s interval a
    /// counter drifts by `ρ·I`: microseconds for a few parts per million, 0.5 ms at 500. NTP
    /// steps the clock only past 128 ms, and an administrator's `date` or a suspension moves
    /// it by seconds.
    ///
    /// [`build`](Self::build) caps the threshold at half the recheck interval, so a slewing
    /// line never runs below half the counter's rate; with a recheck interval of
    /// `Duration::ZERO` every error is a step.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, clock::MonotonicClock};
    /// use std::time::Duration;
    ///
    /// // Slew up to 2 ms; treat anything larger as a step.
    /// let clock = MonotonicClock::builder().step_threshold(Duration::from_millis(2)).build();
    /// let a = clock.unix_ns();
    /// assert!(clock.unix_ns() >= a);
    /// ```
    pub fn step_threshold(mut self, threshold: Duration) -> Self {
        self.step_threshold = threshold;
        self
    }

    /// What to do when a re-anchor finds the wall clock behind the reading by more than the
    /// step threshold (default: [`WallClockBack::Report`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, clock::{MonotonicClock, WallClockBack}};
    ///
    /// let clock = MonotonicClock::builder().on_wall_clock_back(WallClockBack::Slew).build();
    /// assert!(clock.unix_ms() > 1_600_000_000_000);
    /// ```
    pub fn on_wall_clock_back(mut self, mode: WallClockBack) -> Self {
        self.on_back = mode;
        self
    }

    /// Anchors a new clock to the wall clock now.
    ///
    /// A wall clock before 1970 reads as the Unix epoch.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, clock::MonotonicClock};
    ///
    /// let clock = MonotonicClock::builder().build();
    /// assert!(clock.unix_ms() > 1_600_000_000_000);
    /// ```
    pub fn build(self) -> MonotonicClock {
        self.build_with(Counter::quanta(), Wall::System)
    }

    /// A clock on a loom model's counter and wall clock, which the model moves itself (see
    /// [`DrivenSource`]).
    #[cfg(snowmint_loom)]
    #[doc(hidden)]
    pub fn build_driven(self, counter: DrivenSource, wall: DrivenSource) -> MonotonicClock {
        self.build_with(Counter::Driven(counter), Wall::Driven(wall))
    }

    /// Builds on the given sources: `build` on the system's, tests on their own.
    fn build_with(self, counter: Counter, wall: Wall) -> MonotonicClock {
        let (start, base) = measure(&counter, &wall);
        let interval_ns = self.recheck.map_or(u64::MAX, saturating_ns);
        let slew = (self.recheck.is_some() && self.on_back == WallClockBack::Slew).then(|| Slew {
            base: AtomicU64::new(0),
            last: AtomicU64::new(0),
        });
        MonotonicClock {
            segments: Segments::new(Segment {
                start,
                base,
                skew: 0,
            }),
            counter,
            wall,
            interval_ns,
            threshold_ns: saturating_ns(self.step_threshold).min(interval_ns / 2),
            slew,
        }
    }
}

impl Default for MonotonicClockBuilder {
    /// Re-anchor every second, slew errors up to 10 ms, [`WallClockBack::Report`].
    fn default() -> Self {
        MonotonicClockBuilder {
            recheck: Some(Duration::from_secs(1)),
            step_threshold: STEP_THRESHOLD,
            on_back: WallClockBack::Report,
        }
    }
}

/// `duration` in nanoseconds, `u64::MAX` if it has more.
fn saturating_ns(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

impl MonotonicClock {
    /// Anchors a new clock to the wall clock now, re-anchored every second, slewing errors up
    /// to 10 ms and following larger steps back ([`WallClockBack::Report`]).
    ///
    /// A wall clock before 1970 reads as the Unix epoch.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, clock::MonotonicClock};
    ///
    /// let clock = MonotonicClock::new();
    /// assert!(clock.unix_ms() > 1_600_000_000_000);
    /// ```
    pub fn new() -> Self {
        Self::builder().build()
    }

    /// A builder, to choose the recheck interval, the step threshold and what happens when
    /// the wall clock steps back.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, clock::MonotonicClock};
    /// use std::time::Duration;
    ///
    /// let clock = MonotonicClock::builder().recheck(Duration::from_millis(250)).build();
    /// assert!(clock.unix_ms() > 1_600_000_000_000);
    /// ```
    pub fn builder() -> MonotonicClockBuilder {
        MonotonicClockBuilder::default()
    }

    /// The current time in nanoseconds since the Unix epoch.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, clock::MonotonicClock};
    ///
    /// let clock = MonotonicClock::new();
    /// let ns = clock.unix_ns();
    /// assert!(clock.unix_ms().abs_diff(ns / 1_000_000) < 1_000);
    /// ```
    #[inline]
    pub fn unix_ns(&self) -> u64 {
        let now = self.counter.ns();
        if self.slew.is_none() {
            if let Some((_, segment)) = self.segments.load() {
                if now < segment.due(self.interval_ns) {
                    return segment.at(now, self.interval_ns);
                }
            }
        }
        self.unix_ns_slow(now)
    }

    /// A reading that is overdue, in slew mode, or raced a re-anchor.
    #[inline(never)]
    fn unix_ns_slow(&self, now: u64) -> u64 {
        let reading = loop {
            let Some((generation, segment)) = self.segments.load() else {
                continue;
            };
            if now < segment.due(self.interval_ns) {
                break segment.at(now, self.interval_ns);
            }
            if let Some(reading) = self.overdue(now, generation, segment) {
                break reading;
            }
        };
        match &self.slew {
            None => reading,
            Some(slew) => slew.raise(now, reading),
        }
    }

    /// The reading at `now`, at least an interval past the start of `segment` (read at
    /// `generation`): re-anchors if the writer lock is free, else reads on the segment as the
    /// holder allows. `None` when a re-anchor published meanwhile: read again.
    #[cold]
    #[inline(never)]
    fn overdue(&self, now: u64, generation: u64, segment: Segment) -> Option<u64> {
        let lock = &self.segments.writer;
        // Acquire: pairs with the holder's compare-and-swap, so the generation check below
        // sees every generation published before the lock was taken.
        let mut holder = lock.load(Ordering::Acquire);
        if holder & FREE != 0 {
            // The gate before the lock (see `# After fork()`): no fork copies the lock taken.
            // While a fork is being prepared the re-anchor is left to a later reading, and
            // this one reads on the segment at full speed, as under a holder that replaces
            // nothing: no reader waits for a fork.
            let Some(_section) = crate::fork::try_enter() else {
                return self.read_on(now, generation, segment, holder);
            };
            // Read after seeing the lock free: later than the counter reading of every reader
            // that saw it taken before.
            let elected = self.counter.ns().min(FREE - 1);
            crate::pause::point(crate::pause::Point::Elect);
            // AcqRel: Acquire to see the last holder's publish and slot, Release so a reader
            // that loads `elected` sees them too; Acquire on failure, as the load above.
            match lock.compare_exchange(holder, elected, Ordering::AcqRel, Ordering::Acquire) {
                // The section ends after `reanchor` released the lock.
                Ok(_) => return self.reanchor(elected, holder),
                Err(current) => holder = current,
            }
            if holder & FREE != 0 {
                return None;
            }
        }
        self.under(now, generation, segment, holder)
    }

    /// The reading at `now` of the overdue `segment` (read at `generation`) while a fork is
    /// being prepared and the writer lock was found `free`: the segment at `now`, once the
    /// free value has moved on. A holder that read its `elected` before this reading expects
    /// `free`, so its compare-and-swap fails and it elects again, later than `now` (see
    /// `# Orderings`). `None` when the lock changed meanwhile or a re-anchor published: read
    /// again.
    #[cold]
    fn read_on(&self, now: u64, generation: u64, segment: Segment, free: u64) -> Option<u64> {
        let lock = &self.segments.writer;
        // Relaxed: the new free value publishes nothing; it only makes a compare-and-swap
        // from `free` fail. Acquire on failure, as the load of `free`.
        let holder =
            match lock.compare_exchange(free, released(free), Ordering::Relaxed, Ordering::Acquire)
            {
                Ok(_) => {
                    // Relaxed: the Acquire load of `free` orders it.
                    if self.segments.generation.load(Ordering::Relaxed) != generation {
                        return None;
                    }
                    return Some(segment.at(now, self.interval_ns));
                }
                Err(current) => current,
            };
        if holder & FREE != 0 {
            return None;
        }
        self.under(now, generation, segment, holder)
    }

    /// The reading at `now` of the overdue `segment` (read at `generation`) under the writer
    /// lock's `holder`, which took it at counter time `holder`. `None` when a re-anchor
    /// published meanwhile: read again.
    fn under(&self, now: u64, generation: u64, segment: Segment, holder: u64) -> Option<u64> {
        // Relaxed: the Acquire load of the lock orders it.
        if self.segments.generation.load(Ordering::Relaxed) != generation {
            return None;
        }
        Some(if holder >= segment.due(self.interval_ns) {
            // The holder is replacing this segment, from a start after `holder`.
            segment.at_stopped(now, holder, self.interval_ns)
        } else {
            // The holder took the lock before this segment was due, and replaces nothing;
            // the next holder takes it after `now`.
            segment.at(now, self.interval_ns)
        })
    }

    /// Holding the writer lock (taken at counter time `elected`, from the free value `free`):
    /// publishes the next segment if the current one is due by `elected`, and releases the
    /// lock. Returns the new segment's base, the reading of every counter time up to its
    /// start; `None` when another holder re-anchored first.
    #[cold]
    #[inline(never)]
    fn reanchor(&self, elected: u64, free: u64) -> Option<u64> {
        crate::pause::point(crate::pause::Point::Reanchor);
        let segments = &self.segments;
        // Relaxed: taking the lock made the last publish visible, and only a holder publishes.
        let generation = segments.generation.load(Ordering::Relaxed);
        let current = segments.slots[slot(generation)].load();
        let reading = (elected >= current.due(self.interval_ns)).then(|| {
            let next = self.next_segment(current, elected);
            segments.publish(generation, next);
            next.base
        });
        // Release: the next holder sees this publish. The new free value differs from every
        // earlier one.
        segments.writer.store(released(free), Ordering::Release);
        reading
    }

    /// Measures the wall clock and derives the segment that replaces `current`, whose
    /// replacement was elected at counter time `elected`.
    fn next_segment(&self, current: Segment, elected: u64) -> Segment {
        let (middle, wall) = measure(&self.counter, &self.wall);
        let start = self.counter.ns().max(elected);
        let reading = current.at_stopped(start, elected, self.interval_ns);
        // The wall clock at `start`, carried from the measurement at the counter's rate.
        let wall = wall.saturating_add(start.saturating_sub(middle));
        let error = i128::from(wall) - i128::from(reading);
        if error.unsigned_abs() <= u128::from(self.threshold_ns) {
            // |error| <= threshold_ns <= u64::MAX / 2: it fits.
            return Segment::slewing(start, reading, error as i64, self.interval_ns);
        }
        if error < 0 {
            if let Some(slew) = &self.slew {
                slew.hold(start, reading);
            }
        }
        Segment {
            start,
            base: wall,
            skew: 0,
        }
    }
}

/// A line readings follow from one re-anchor to the next (see the module's `# Design`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Segment {
    /// The counter time the segment starts at.
    start: u64,
    /// The reading at `start`.
    base: u64,
    /// The gain per counter nanosecond over the first interval, in units of `2^-SKEW_SHIFT`:
    /// within `[-2^62, 2^62]`, half the counter's rate either way.
    skew: i64,
}

impl Segment {
    /// A segment from `base` at `start` that gains exactly `error` (at most half of
    /// `interval` either way) over `interval`.
    fn slewing(start: u64, base: u64, error: i64, interval: u64) -> Self {
        let skew = if error == 0 {
            0
        } else {
            // Rounded up, so the gain at `interval` floors to `error` exactly; within
            // [-2^62, 2^62] since |error| <= interval / 2.
            let scaled = i128::from(error) << SKEW_SHIFT;
            let divisor = i128::from(interval);
            let quotient = scaled / divisor;
            (quotient + i128::from(scaled % divisor > 0)) as i64
        };
        Segment { start, base, skew }
    }

    /// The counter time from which a reading re-anchors.
    #[inline]
    fn due(&self, interval: u64) -> u64 {
        self.start.saturating_add(interval)
    }

    /// The reading at counter time `now`: never decreasing in `now`, as the skew is at least
    /// -1/2.
    #[inline]
    fn at(&self, now: u64, interval: u64) -> u64 {
        let d = now.saturating_sub(self.start);
        let line = self.base.saturating_add(d);
        if self.skew == 0 {
            return line;
        }
        let gain = (i128::from(self.skew) * i128::from(d.min(interval))) >> SKEW_SHIFT;
        // |gain| <= d.min(interval) / 2: it fits.
        line.saturating_add_signed(gain as i64)
    }

    /// The reading at `now` while a re-anchor elected at counter time `elected` replaces this
    /// segment: on it up to `elected`, at half the counter's rate after.
    fn at_stopped(&self, now: u64, elected: u64, interval: u64) -> u64 {
        if now <= elected {
            self.at(now, interval)
        } else {
            self.at(elected, interval)
                .saturating_add((now - elected) / 2)
        }
    }
}

/// The segment readings follow, double-buffered, and the lock its writers take.
#[derive(Debug)]
struct Segments {
    /// How many segments were published; its low bit names the slot in use.
    generation: AtomicU64,
    slots: [Slot; 2],
    /// `FREE` and a count of releases, or the counter time the holder took it at.
    writer: AtomicU64,
}

/// One buffer of a [`Segment`].
#[derive(Debug)]
struct Slot {
    start: AtomicU64,
    base: AtomicU64,
    /// The skew's bits.
    skew: AtomicU64,
}

/// The free value of the writer lock after `free`: one more release, equal to no earlier free
/// value.
fn released(free: u64) -> u64 {
    free.wrapping_add(1) | FREE
}

/// The slot `generation` uses.
fn slot(generation: u64) -> usize {
    usize::from(generation & 1 == 1)
}

impl Segments {
    fn new(segment: Segment) -> Self {
        Segments {
            generation: AtomicU64::new(0),
            slots: [Slot::new(segment), Slot::new(segment)],
            writer: AtomicU64::new(FREE),
        }
    }

    /// The segment in use and its generation; `None` when a re-anchor published during the
    /// read.
    #[inline]
    fn load(&self) -> Option<(u64, Segment)> {
        // Acquire: pairs with the publish of this generation, so its slot reads as written.
        let generation = self.generation.load(Ordering::Acquire);
        let segment = self.slots[slot(generation)].load();
        // Acquire: if a load above saw a later holder's store, the reload sees the generation
        // published before that holder took the lock.
        fence(Ordering::Acquire);
        // Relaxed: ordered by the fence.
        (self.generation.load(Ordering::Relaxed) == generation).then_some((generation, segment))
    }

    /// Holding the writer lock: writes `segment` to the slot `generation` does not use and
    /// publishes it as `generation + 1`.
    fn publish(&self, generation: u64, segment: Segment) {
        // Release: pairs with a reader's Acquire fence, so a reader whose loads see the stores
        // below also sees the generation published before this holder took the lock.
        fence(Ordering::Release);
        self.slots[slot(generation + 1)].store(segment);
        // Release: a reader that loads the new generation sees the slot written above.
        self.generation.store(generation + 1, Ordering::Release);
    }
}

impl Slot {
    fn new(segment: Segment) -> Self {
        Slot {
            start: AtomicU64::new(segment.start),
            base: AtomicU64::new(segment.base),
            skew: AtomicU64::new(segment.skew as u64),
        }
    }

    /// Relaxed loads: [`Segments::load`] checks the generation around them, and a holder
    /// reads a slot no one else writes.
    #[inline]
    fn load(&self) -> Segment {
        Segment {
            start: self.start.load(Ordering::Relaxed),
            base: self.base.load(Ordering::Relaxed),
            skew: self.skew.load(Ordering::Relaxed) as i64,
        }
    }

    /// Relaxed stores: ordered by the fence before them and the publish after them.
    fn store(&self, segment: Segment) {
        self.start.store(segment.start, Ordering::Relaxed);
        self.base.store(segment.base, Ordering::Relaxed);
        self.skew.store(segment.skew as u64, Ordering::Relaxed);
    }
}

impl Slew {
    /// The reading at counter time `now` given the segment's `reading`: the greater of it
    /// and the half-speed line, and never below `last`.
    #[inline]
    fn raise(&self, now: u64, reading: u64) -> u64 {
        // Relaxed: monotonicity rests on `last`'s modification order alone.
        let slow = self.base.load(Ordering::Relaxed).saturating_add(now / 2);
        let candidate = reading.max(slow);
        // Relaxed: as above.
        self.last
            .fetch_max(candidate, Ordering::Relaxed)
            .max(candidate)
    }

    /// Before a step back is published at counter time `start`: starts the half-speed line at
    /// the current reading (`reading`, or `last` if readers went beyond it), so readings slow
    /// down from where they were instead of stopping.
    fn hold(&self, start: u64, reading: u64) {
        // Relaxed: as in `raise`; the line only rises.
        let from = reading.max(self.last.load(Ordering::Relaxed));
        self.base
            .fetch_max(from.saturating_sub(start / 2), Ordering::Relaxed);
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clone for MonotonicClock {
    /// An independent clock with this one's segment, settings and readings so far: it
    /// re-anchors on its own, and in slew mode never reads below what this one has read.
    fn clone(&self) -> Self {
        let copy = |a: &AtomicU64| AtomicU64::new(a.load(Ordering::Relaxed));
        let segment = loop {
            if let Some((_, segment)) = self.segments.load() {
                break segment;
            }
        };
        MonotonicClock {
            segments: Segments::new(segment),
            counter: self.counter.clone(),
            wall: self.wall.clone(),
            interval_ns: self.interval_ns,
            threshold_ns: self.threshold_ns,
            slew: self.slew.as_ref().map(|slew| Slew {
                base: copy(&slew.base),
                last: copy(&slew.last),
            }),
        }
    }
}

impl Clock for MonotonicClock {
    #[inline]
    fn unix_ms(&self) -> u64 {
        self.unix_ns() / 1_000_000
    }
}

/// Reads the wall clock between two counter readings, and returns the counter reading at the
/// middle and the wall clock.
///
/// Tries again when the two counter readings are more than [`GOOD_WINDOW_NS`] apart (a
/// preemption, an interrupt), and keeps the narrowest of [`MEASUREMENTS`] tries.
fn measure(counter: &Counter, wall: &Wall) -> (u64, u64) {
    let mut best = (u64::MAX, 0, 0);
    for _ in 0..MEASUREMENTS {
        let before = counter.ns();
        let wall = wall.unix_ns();
        let window = counter.ns().saturating_sub(before);
        if window < best.0 {
            best = (window, before + window / 2, wall);
        }
        if window <= GOOD_WINDOW_NS {
            break;
        }
    }
    (best.1, best.2)
}

/// Where counter time comes from: nanoseconds since the clock was created.
#[derive(Debug, Clone)]
enum Counter {
    /// quanta's counter, and its raw reading when the clock was created.
    Quanta { clock: quanta::Clock, start: u64 },
    #[cfg(test)]
    Fake(tests::Source),
    #[cfg(snowmint_loom)]
    Driven(DrivenSource),
}

impl Counter {
    /// quanta's counter, counting from now.
    fn quanta() -> Self {
        // The first `quanta::Clock::new` of a process calibrates the counter (about half a
        // millisecond) inside quanta's once-cell: a section, so that no fork leaves the cell
        // running in a child, whose every clock would then wait for it forever.
        let _section = crate::fork::enter();
        let clock = quanta::Clock::new();
        let start = clock.raw();
        Counter::Quanta { clock, start }
    }

    /// Nanoseconds since the start.
    #[inline]
    fn ns(&self) -> u64 {
        match self {
            // 0 when the counter reads at or before the start; after it the counter is
            // monotonic.
            Counter::Quanta { clock, start } => clock.delta_as_nanos(*start, clock.raw()),
            #[cfg(test)]
            Counter::Fake(source) => source.read(),
            #[cfg(snowmint_loom)]
            Counter::Driven(source) => source.read(),
        }
    }
}

/// Where wall time comes from: nanoseconds since the Unix epoch.
#[derive(Debug, Clone)]
enum Wall {
    System,
    #[cfg(test)]
    Fake(tests::Source),
    #[cfg(snowmint_loom)]
    Driven(DrivenSource),
}

impl Wall {
    fn unix_ns(&self) -> u64 {
        match self {
            Wall::System => SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)),
            #[cfg(test)]
            Wall::Fake(source) => source.read(),
            #[cfg(snowmint_loom)]
            Wall::Driven(source) => source.read(),
        }
    }
}

/// A loom model's time source, for [`MonotonicClockBuilder::build_driven`]: nanoseconds in a
/// loom atomic, shared by the source's clones, that the model moves with
/// [`advance`](Self::advance) and [`set`](Self::set). Each read returns the time and moves it
/// on by the source's step. A wall clock [following](Self::following) a counter reads the
/// counter's time plus its own, an offset: it moves on with the counter, and steps when the
/// model sets the offset.
///
/// Every access but [`get`](Self::get) is an `AcqRel` read-modify-write, so the counter's
/// reads happen in one order, and each synchronises with the ones before it. That is what
/// the module's `# Orderings` assume of the real counter: a thread that reads it after another
/// has seen what the other saw before its reading.
#[cfg(snowmint_loom)]
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct DrivenSource {
    ns: crate::sync::Arc<AtomicU64>,
    step: u64,
    /// The counter a wall clock follows, `ns` then being its offset from it.
    counter: Option<crate::sync::Arc<AtomicU64>>,
}

#[cfg(snowmint_loom)]
impl DrivenSource {
    /// A source at `ns` that moves on by `step` after each read.
    pub fn new(ns: u64, step: u64) -> Self {
        DrivenSource {
            ns: crate::sync::Arc::new(AtomicU64::new(ns)),
            step,
            counter: None,
        }
    }

    /// A wall clock reading `counter`'s time plus `offset`, the offset moving on by `step`
    /// after each read (without moving the counter).
    pub fn following(counter: &DrivenSource, offset: u64, step: u64) -> Self {
        DrivenSource {
            counter: Some(crate::sync::Arc::clone(&counter.ns)),
            ..DrivenSource::new(offset, step)
        }
    }

    /// The time (a follower's offset) as it stands, without reading it: `Relaxed`, a model's
    /// bound that orders nothing, and may miss another thread's latest read.
    pub fn get(&self) -> u64 {
        self.ns.load(Ordering::Relaxed)
    }

    /// Moves the time (a follower's offset) on by `ns`.
    pub fn advance(&self, ns: u64) {
        self.ns.fetch_add(ns, Ordering::AcqRel);
    }

    /// Sets the time (a follower's offset) to `ns`.
    pub fn set(&self, ns: u64) {
        self.ns.swap(ns, Ordering::AcqRel);
    }

    fn read(&self) -> u64 {
        let ns = self.ns.fetch_add(self.step, Ordering::AcqRel);
        match &self.counter {
            Some(counter) => ns + counter.fetch_add(0, Ordering::AcqRel),
            None => ns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::thread;

    /// A time source a test sets by hand: each read returns the time, then moves it on by
    /// `step` (0 for a source that only moves when set). A drifting source reads another
    /// source's time at a rate of its own instead.
    #[derive(Debug, Clone)]
    pub(super) struct Source {
        ns: Arc<AtomicU64>,
        step: u64,
        /// `(origin, num, den)`: reads `origin + ns * num / den`, and never moves.
        drift: Option<(u64, u64, u64)>,
    }

    impl Source {
        fn new(ns: u64, step: u64) -> Self {
            Source {
                ns: Arc::new(AtomicU64::new(ns)),
                step,
                drift: None,
            }
        }

        /// A source reading `origin + num/den` of `counter`'s time: a wall clock that the
        /// counter runs fast against (`num < den`) or slow against (`num > den`).
        fn drifting(counter: &Source, origin: u64, num: u64, den: u64) -> Self {
            Source {
                ns: Arc::clone(&counter.ns),
                step: 0,
                drift: Some((origin, num, den)),
            }
        }

        pub(super) fn read(&self) -> u64 {
            match self.drift {
                Some(_) => self.get(),
                None => self.ns.fetch_add(self.step, Ordering::SeqCst),
            }
        }

        fn set(&self, ns: u64) {
            self.ns.store(ns, Ordering::SeqCst);
        }

        fn get(&self) -> u64 {
            let ns = self.ns.load(Ordering::SeqCst);
            match self.drift {
                Some((origin, num, den)) => {
                    let scaled = u128::from(ns) * u128::from(num) / u128::from(den);
                    origin + u64::try_from(scaled).unwrap()
                }
                None => ns,
            }
        }

        fn advance(&self, ns: u64) {
            self.ns.fetch_add(ns, Ordering::SeqCst);
        }
    }

    const WALL0: u64 = 1_700_000_000_000_000_000;
    const SECOND: u64 = 1_000_000_000;
    const MS: u64 = 1_000_000;

    /// A clock on hand-set sources: a counter at 0 and a wall clock at `WALL0`, both still.
    fn fake(builder: MonotonicClockBuilder) -> (MonotonicClock, Source, Source) {
        let counter = Source::new(0, 0);
        let wall = Source::new(WALL0, 0);
        let clock = builder.build_with(Counter::Fake(counter.clone()), Wall::Fake(wall.clone()));
        (clock, counter, wall)
    }

    /// A clock on a still counter at 0 and a wall clock running `num/den` of its rate.
    fn drifting(builder: MonotonicClockBuilder, num: u64, den: u64) -> (MonotonicClock, Source) {
        let counter = Source::new(0, 0);
        let wall = Source::drifting(&counter, WALL0, num, den);
        let clock = builder.build_with(Counter::Fake(counter.clone()), Wall::Fake(wall));
        (clock, counter)
    }

    /// Moves both sources on by `ns`, as real time passing does.
    fn pass(counter: &Source, wall: &Source, ns: u64) {
        counter.advance(ns);
        wall.advance(ns);
    }

    fn slew() -> MonotonicClockBuilder {
        MonotonicClock::builder().on_wall_clock_back(WallClockBack::Slew)
    }

    /// The segment the clock reads.
    fn segment(clock: &MonotonicClock) -> Segment {
        clock.segments.load().unwrap().1
    }

    #[test]
    fn reads_anchor_plus_counter() {
        for builder in [
            MonotonicClock::builder(),
            slew(),
            MonotonicClock::builder().anchor_once(),
        ] {
            let (clock, counter, wall) = fake(builder);
            assert_eq!(clock.unix_ns(), WALL0);
            pass(&counter, &wall, 123_456_789);
            assert_eq!(clock.unix_ns(), WALL0 + 123_456_789);
            assert_eq!(clock.unix_ms(), (WALL0 + 123_456_789) / MS);
        }
    }

    #[test]
    fn a_step_forward_is_followed_at_the_next_recheck() {
        for builder in [MonotonicClock::builder(), slew()] {
            let (clock, counter, wall) = fake(builder);
            wall.advance(5 * SECOND);
            pass(&counter, &wall, SECOND - 1);
            // Not due yet: still on the old anchor.
            assert_eq!(clock.unix_ns(), WALL0 + SECOND - 1);
            pass(&counter, &wall, 1);
            // Due: the first reading past the interval follows the wall clock.
            assert_eq!(clock.unix_ns(), wall.get());
            pass(&counter, &wall, 10);
            assert_eq!(clock.unix_ns(), wall.get());
        }
    }

    #[test]
    fn a_step_back_is_reported_at_the_next_recheck() {
        let (clock, counter, wall) = fake(MonotonicClock::builder());
        pass(&counter, &wall, SECOND / 2);
        let before = clock.unix_ns();
        wall.set(wall.get() - 5 * SECOND);
        pass(&counter, &wall, SECOND / 2 - 1);
        assert_eq!(clock.unix_ns(), before + SECOND / 2 - 1);
        pass(&counter, &wall, 1);
        let after = clock.unix_ns();
        assert_eq!(after, wall.get());
        assert_eq!(before + SECOND / 2 - after, 5 * SECOND);
    }

    #[test]
    fn anchored_once_ignores_the_wall_clock() {
        let (clock, counter, wall) = fake(MonotonicClock::builder().anchor_once());
        wall.set(WALL0 - 100 * SECOND);
        counter.advance(3_600 * SECOND);
        assert_eq!(clock.unix_ns(), WALL0 + 3_600 * SECOND);
        wall.set(WALL0 + 10_000 * SECOND);
        counter.advance(1);
        assert_eq!(clock.unix_ns(), WALL0 + 3_600 * SECOND + 1);
    }

    #[test]
    fn a_step_back_is_slewed_at_half_speed() {
        let (clock, counter, wall) = fake(slew());
        let back = 300 * MS;
        wall.set(WALL0 - back);
        pass(&counter, &wall, SECOND);
        // The re-anchor sees the wall clock `back` behind and does not follow it.
        let start = clock.unix_ns();
        assert_eq!(start, WALL0 + SECOND);
        assert_eq!(start - wall.get(), back);
        let mut last = start;
        // Step through the slew: the reading advances at exactly half the counter's rate and
        // the gap closes at half the counter's rate, so it is gone after `2 * back`.
        for step in 1..=2 * back / MS {
            pass(&counter, &wall, MS);
            let now = clock.unix_ns();
            assert!(now >= last, "went back from {last} to {now}");
            if step * MS <= 2 * back {
                assert_eq!(now, start + step * MS / 2, "step {step}");
                assert_eq!(now - wall.get(), back - step * MS / 2);
            }
            last = now;
        }
        assert_eq!(last, wall.get());
        // Caught up: back at full speed, on the wall clock.
        for _ in 0..3_000 {
            pass(&counter, &wall, MS);
            assert_eq!(clock.unix_ns(), wall.get());
        }
    }

    #[test]
    fn a_late_reader_never_reads_back_in_slew_mode() {
        // A reader that read the counter before a re-anchor and loads the anchor after it (it
        // was preempted in between, or its core's counter lags) computes from a new offset and
        // an old counter reading; `last` keeps its reading from going back.
        let (clock, counter, wall) = fake(slew());
        wall.set(WALL0 - 300 * MS);
        pass(&counter, &wall, SECOND);
        let seen = clock.unix_ns();
        assert_eq!(seen, WALL0 + SECOND);
        for late in [1, MS, 500 * MS, SECOND] {
            counter.set(SECOND - late);
            assert_eq!(clock.unix_ns(), seen, "{late} ns late");
        }
        counter.set(SECOND + 2 * MS);
        assert_eq!(clock.unix_ns(), seen + MS);
    }

    #[test]
    fn a_step_back_during_a_slew_is_slewed_in_turn() {
        let (clock, counter, wall) = fake(slew());
        wall.set(WALL0 - 300 * MS);
        let mut last = clock.unix_ns();
        let mut max_ahead = 0;
        // Counter time in ms: the first step is seen at 1 s and slewed from 300 ms ahead; the
        // second comes at 1.2 s, with 200 ms left, and is seen at 2 s.
        for t in 1..=4_000 {
            pass(&counter, &wall, MS);
            if t == 1_200 {
                wall.set(wall.get() - 400 * MS);
            }
            let now = clock.unix_ns();
            assert!(now >= last, "went back from {last} to {now} at {t} ms");
            last = now;
            let ahead = now.saturating_sub(wall.get());
            max_ahead = max_ahead.max(ahead);
            match t {
                // Not seen yet: ahead by the step, at full speed.
                ..1_000 => assert_eq!(ahead, 300 * MS),
                // Half speed from 1 s: 100 ms closed by 1.2 s, then the second step.
                1_000..1_200 => assert_eq!(ahead, 300 * MS - (t - 1_000) * MS / 2),
                // Both unabsorbed steps, closing at half speed until the half-speed line
                // meets the offset the clock still has (at 1.6 s), then unseen at full speed.
                1_200..1_600 => assert_eq!(ahead, 600 * MS - (t - 1_200) * MS / 2),
                1_600..2_000 => assert_eq!(ahead, 400 * MS),
                // Seen at 2 s: 400 ms, closed at half speed by 2.8 s.
                2_000..2_800 => assert_eq!(ahead, 400 * MS - (t - 2_000) * MS / 2),
                _ => assert_eq!(now, wall.get(), "at {t} ms"),
            }
        }
        assert_eq!(max_ahead, 600 * MS);
    }

    #[test]
    fn drift_is_slewed_at_each_recheck() {
        // The counter runs 1000 ppm fast: 1 ms of wall time is 1.001 ms of counter time. The
        // bound is ρ·D, D the counter time between re-anchors: the first reading at least 1 s
        // past the last, here 1000 steps of 1.001 ms, over which the counter gains 1 ms.
        for mode in [WallClockBack::Report, WallClockBack::Slew] {
            let (clock, counter, wall) = fake(MonotonicClock::builder().on_wall_clock_back(mode));
            let mut last = clock.unix_ns();
            let mut max_ahead = 0;
            for _ in 0..10_000 {
                counter.advance(1_001_000);
                wall.advance(MS);
                let now = clock.unix_ns();
                let ahead = now.saturating_sub(wall.get());
                max_ahead = max_ahead.max(ahead);
                // ρ·D: 1 µs gained per step, over 1000 steps.
                assert!(ahead <= SECOND / 1_000, "{mode:?} ahead by {ahead}");
                assert!(
                    wall.get() <= now,
                    "{mode:?}: a fast counter never reads behind"
                );
                assert!(now >= last, "{mode:?} went back from {last} to {now}");
                last = now;
            }
            // Drift slewed away one interval late: the reading stays about 1 ms ahead.
            assert!(
                max_ahead >= 999_000,
                "{mode:?}: drift {max_ahead} never showed"
            );
            // A slow counter: 1 ms of wall time is 0.999 ms of counter time, and the reading
            // stays up to ρ·D behind: D is 1002 steps of 0.999 ms, over which it loses 1.002 ms.
            let (clock, counter, wall) = fake(MonotonicClock::builder().on_wall_clock_back(mode));
            let mut last = clock.unix_ns();
            let mut max_behind = 0;
            for _ in 0..10_000 {
                counter.advance(999_000);
                wall.advance(MS);
                let now = clock.unix_ns();
                assert!(
                    now <= wall.get(),
                    "{mode:?}: a slow counter never reads ahead"
                );
                assert!(now >= last, "{mode:?} went back from {last} to {now}");
                last = now;
                let behind = wall.get() - now;
                max_behind = max_behind.max(behind);
                assert!(behind <= 1_002_000, "{mode:?} behind by {behind}");
            }
            assert!(
                max_behind >= 1_000_000,
                "{mode:?}: drift {max_behind} never showed"
            );
        }
    }

    #[test]
    fn a_fast_counter_never_reads_back_under_report() {
        // The counter runs 1000 ppm fast; read every 1 µs of counter time across three
        // re-anchors, each of which finds the reading about 1 ms ahead of the wall clock.
        let (clock, counter, wall) = fake(MonotonicClock::builder());
        let mut last = clock.unix_ns();
        for _ in 0..3_500_000 {
            counter.advance(1_000);
            wall.set(WALL0 + counter.get() * 1_000 / 1_001);
            let now = clock.unix_ns();
            assert!(now >= last, "went back from {last} to {now}");
            last = now;
        }
    }

    #[test]
    fn drift_stays_within_rho_times_the_interval() {
        // Read every 10 µs of counter time against a wall clock 1000 ppm slower, then faster:
        // 1 s of counter time is 999_000_999 ns of wall time, or 1_001_000_000. Re-anchors
        // come every 1 s of counter time (D = I), so readings stay within ρ·I of the wall
        // clock: 999_001 or 1_000_000 ns, plus a nanosecond of rounding each in the wall
        // clock and in the slew.
        for mode in [WallClockBack::Report, WallClockBack::Slew] {
            for (num, den, bound) in [(1_000, 1_001, 999_003), (1_001, 1_000, 1_000_002)] {
                let builder = MonotonicClock::builder().on_wall_clock_back(mode);
                let (clock, counter) = drifting(builder, num, den);
                let wall = Source::drifting(&counter, WALL0, num, den);
                let mut last = clock.unix_ns();
                let mut max_error = 0;
                for _ in 0..350_000 {
                    counter.advance(10_000);
                    let now = clock.unix_ns();
                    assert!(
                        now >= last,
                        "{mode:?} {num}/{den}: back from {last} to {now}"
                    );
                    last = now;
                    let error = now.abs_diff(wall.get());
                    max_error = max_error.max(error);
                    assert!(error <= bound, "{mode:?} {num}/{den}: {error} ns off");
                    // A fast counter reads ahead of the wall clock, a slow one behind.
                    assert_eq!(now >= wall.get(), num < den, "{mode:?} {num}/{den}");
                }
                assert!(
                    max_error >= bound - 5,
                    "{mode:?} {num}/{den}: {max_error} ns"
                );
            }
        }
    }

    #[test]
    fn a_step_within_the_threshold_is_slewed_over_one_interval() {
        for mode in [WallClockBack::Report, WallClockBack::Slew] {
            for back in [false, true] {
                let (clock, counter, wall) =
                    fake(MonotonicClock::builder().on_wall_clock_back(mode));
                pass(&counter, &wall, 300 * MS);
                let step = 4 * MS;
                wall.set(if back {
                    wall.get() - step
                } else {
                    wall.get() + step
                });
                let mut last = clock.unix_ns();
                for t in 301..=3_000 {
                    pass(&counter, &wall, MS);
                    let now = clock.unix_ns();
                    assert!(now >= last, "{mode:?}: back from {last} to {now} at {t} ms");
                    last = now;
                    // How far the reading has still to go to the wall clock.
                    let gap = if back {
                        now - wall.get()
                    } else {
                        wall.get() - now
                    };
                    match t {
                        // Not seen yet.
                        ..1_000 => assert_eq!(gap, step, "at {t} ms"),
                        // Seen at 1 s and closed linearly by 2 s, to within the rounding.
                        1_000..2_000 => {
                            let left = step * (2_000 - t) / 1_000;
                            assert!(gap.abs_diff(left) <= 1, "{gap} at {t} ms, not {left}");
                        }
                        _ => assert_eq!(now, wall.get(), "at {t} ms"),
                    }
                }
            }
        }
    }

    #[test]
    fn the_step_threshold_is_capped_at_half_the_interval() {
        let threshold = |builder: MonotonicClockBuilder| fake(builder).0.threshold_ns;
        let builder = MonotonicClock::builder;
        let ten_ms = Duration::from_millis(10);
        assert_eq!(threshold(builder()), 10 * MS);
        assert_eq!(
            threshold(builder().step_threshold(Duration::MAX)),
            SECOND / 2
        );
        assert_eq!(threshold(builder().recheck(Duration::ZERO)), 0);
        assert_eq!(threshold(builder().recheck(ten_ms)), 5 * MS);
        let two_ms = builder()
            .recheck(ten_ms)
            .step_threshold(Duration::from_millis(2));
        assert_eq!(threshold(two_ms), 2 * MS);
        // Every 10 ms: a step back of 4 ms is slewed, one of 6 ms is reported.
        for (back, reported) in [(4 * MS, false), (6 * MS, true)] {
            let (clock, counter, wall) = fake(builder().recheck(ten_ms));
            pass(&counter, &wall, 9 * MS);
            wall.set(wall.get() - back);
            let before = clock.unix_ns();
            pass(&counter, &wall, MS);
            let after = clock.unix_ns();
            if reported {
                assert_eq!(after, wall.get());
                assert_eq!(before + MS - after, back);
            } else {
                assert_eq!(after, before + MS);
            }
        }
        // Re-anchored on every reading, any step back is reported.
        let (clock, counter, wall) = fake(builder().recheck(Duration::ZERO));
        pass(&counter, &wall, MS);
        let before = clock.unix_ns();
        wall.set(wall.get() - 1);
        assert_eq!(clock.unix_ns(), before - 1);
    }

    #[test]
    fn a_re_anchor_under_way_keeps_overdue_readers_below_the_next_segment() {
        // The counter runs 1000 ppm fast, so the re-anchor due at 1 s finds the reading ahead
        // of the wall clock and starts a slower segment.
        let (clock, counter) = drifting(MonotonicClock::builder(), 1_000, 1_001);
        let old = segment(&clock);
        // A reader elected at 1 s stalls before it measures.
        let elected = SECOND;
        let free = clock.segments.writer.swap(elected, Ordering::SeqCst);
        assert_ne!(free & FREE, 0);
        // Overdue readers meanwhile do not re-anchor; they follow the old segment up to 1 s
        // and half speed after it.
        let mut last = 0;
        for k in 1..=4 {
            counter.set(SECOND + k * 100_000);
            last = clock.unix_ns();
            assert_eq!(last, old.at(SECOND, SECOND) + k * 50_000);
            assert_eq!(clock.segments.generation.load(Ordering::SeqCst), 0);
        }
        // The elected reader resumes and measures at 1.0003 s, before the last of those
        // readings (at 1.0004 s).
        counter.set(SECOND + 300_000);
        assert_eq!(
            clock.reanchor(elected, free),
            Some(old.at(SECOND, SECOND) + 150_000)
        );
        let new = segment(&clock);
        assert_eq!(new.start, SECOND + 300_000);
        assert!(new.skew < 0, "a slower segment: {new:?}");
        counter.set(SECOND + 400_000);
        let now = clock.unix_ns();
        assert!(now >= last, "back from {last} to {now}");
        // Had they followed the old segment at full speed, the clock would now go back.
        assert!(old.at(SECOND + 400_000, SECOND) > now);
        // A holder that took the lock before the segment was due replaces nothing: overdue
        // readers follow the segment at full speed, and re-anchor once it is free.
        let due = new.due(SECOND);
        let free = clock.segments.writer.swap(due - 1, Ordering::SeqCst);
        counter.set(due + MS);
        assert_eq!(clock.unix_ns(), new.at(due + MS, SECOND));
        clock.segments.writer.store(free + 1, Ordering::SeqCst);
        counter.set(due + 2 * MS);
        let reading = clock.unix_ns();
        assert_eq!(clock.segments.generation.load(Ordering::SeqCst), 2);
        assert_eq!(segment(&clock).start, due + 2 * MS);
        assert_eq!(reading, new.at(due + 2 * MS, SECOND));
    }

    #[test]
    fn the_offset_is_measured_at_the_middle_of_the_window() {
        // Each counter read moves it on 30 µs, over GOOD_WINDOW_NS: the anchor measures
        // MEASUREMENTS times and keeps the first of the equally narrow windows, at its middle.
        let counter = Source::new(0, 30_000);
        let wall = Source::new(WALL0, 0);
        let clock = MonotonicClock::builder()
            .anchor_once()
            .build_with(Counter::Fake(counter.clone()), Wall::Fake(wall));
        assert_eq!(counter.get(), 2 * MEASUREMENTS as u64 * 30_000);
        let read_at = counter.get();
        assert_eq!(clock.unix_ns(), WALL0 - 15_000 + read_at);
    }

    #[test]
    fn readers_never_go_back_under_threads() {
        // Every counter read moves it 1 µs on. In slew mode a fifth thread moves the wall
        // clock back and forth by up to 18 ms and re-anchors come every 50 µs; in report mode
        // the wall clock only drifts, 1000 ppm slower or faster than the counter, and
        // re-anchors come every 1 ms (a threshold of 0.5 ms, well above the measurement error
        // when other threads' reads land inside a measurement).
        let eager_slew = slew().recheck(Duration::from_micros(50));
        for builder in [eager_slew, MonotonicClock::builder().anchor_once()] {
            let counter = Source::new(0, 1_000);
            let wall = Source::new(WALL0, 0);
            let clock =
                builder.build_with(Counter::Fake(counter.clone()), Wall::Fake(wall.clone()));
            thread::scope(|s| {
                let stepper = s.spawn(|| {
                    for i in 0..20_000u64 {
                        let jump = (i % 7) * 3 * MS;
                        let now = counter.get() + WALL0;
                        wall.set(if i % 2 == 0 { now - jump } else { now + jump });
                        thread::yield_now();
                    }
                });
                read_from_threads(&clock);
                stepper.join().unwrap();
            });
        }
        for (num, den) in [(1_000, 1_001), (1_001, 1_000)] {
            let counter = Source::new(0, 1_000);
            let wall = Source::drifting(&counter, WALL0, num, den);
            let clock = MonotonicClock::builder()
                .recheck(Duration::from_millis(1))
                .build_with(Counter::Fake(counter.clone()), Wall::Fake(wall));
            read_from_threads(&clock);
            // About 200 ms of counter time: the readers raced re-anchors, some 200 on an idle
            // machine; fewer on a busy one, where readers skip the re-anchors due while a
            // re-anchoring reader sits descheduled. The count only shows the race was run.
            assert!(clock.segments.generation.load(Ordering::SeqCst) >= 10);
        }
    }

    /// Four threads read `clock` 50 000 times each: every reading is at least the reading
    /// before it in its thread, and at least every reading another thread had finished
    /// before it began.
    fn read_from_threads(clock: &MonotonicClock) {
        let seen = AtomicU64::new(0);
        thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    let mut last = clock.unix_ns();
                    for _ in 0..50_000 {
                        let before = seen.load(Ordering::SeqCst);
                        let now = clock.unix_ns();
                        assert!(now >= last, "went back from {last} to {now}");
                        assert!(now >= before, "below another thread's {before}: {now}");
                        seen.fetch_max(now, Ordering::SeqCst);
                        last = now;
                    }
                });
            }
        });
    }
}
