//! The default clock: quanta's monotonic counter, re-anchored to the wall clock.
//!
//! # Design
//!
//! A reading is `counter_ns + offset`: `counter_ns` is quanta's counter converted to nanoseconds
//! since the clock was created, and `offset` is one `AtomicU64` holding `wall_ns - counter_ns`
//! as last measured. One atomic load gives a whole anchor, so no reader can see half of an
//! old one and half of a new one.
//!
//! A second atomic, `next_check`, holds the counter reading at which the anchor is due for a
//! re-check. The reading path compares the counter against it (one relaxed load); the first
//! reader past it that wins a CAS moving it one interval on reads `SystemTime::now` between
//! two counter readings and stores the new offset. Every other reader, meanwhile and after,
//! keeps reading `counter_ns + offset`: a system call once per interval per clock, never one
//! per reading. Anchored once, `next_check` is `u64::MAX` and never passes.
//!
//! [`WallClockBack::Slew`] adds two atomics: `base`, the intercept of a half-speed line
//! `base + counter_ns / 2` that readings follow while they are ahead of the wall clock, and
//! `last`, the greatest reading handed out, which every reading raises with `fetch_max`. A
//! reading is `max(last, counter_ns + offset, base + counter_ns / 2)`.
//!
//! # Orderings
//!
//! Every access is `Relaxed`. The offset is a value, not a flag guarding other memory, so no
//! reader needs to see anything else the re-anchoring thread wrote; coherence of the one word
//! gives what the generator relies on: a thread that observed a state minted from a reading
//! (through the generator's `Acquire` load) loads this offset or a later one. `next_check`
//! only elects the re-anchoring thread. In slew mode, monotonic readings rest on the
//! modification order of `last` alone: each `fetch_max` returns at least every value before
//! it, whatever offset and base the reader loaded, so torn pairs of the two cost a pause, never
//! a step back.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::Clock;
use crate::sync::{AtomicU64, Ordering};

/// How long a re-anchor may wait for `SystemTime::now` between its two counter readings
/// before it tries again: the measurement error is at most half of it.
const GOOD_WINDOW_NS: u64 = 20_000;

/// How many times a re-anchor measures the offset before it keeps the best of its tries.
const MEASUREMENTS: usize = 3;

/// Wall time from a monotonic counter, re-anchored to the wall clock: the default clock of
/// every generator.
///
/// Each reading is quanta's counter plus an offset to the wall clock (`SystemTime`). On x86-64
/// and AArch64 the counter is the CPU's time-stamp counter when it is invariant (quanta checks
/// and calibrates it once per process), else `CLOCK_MONOTONIC` through the vDSO: either way a
/// reading is a few nanoseconds and no system call. Once every [recheck
/// interval](MonotonicClockBuilder::recheck) of counter time (1 s by default), the first
/// reading past it re-reads the wall clock and updates the offset; the readings in between are
/// a counter read, two relaxed loads, a compare and an add.
///
/// The counter does not follow the wall clock: NTP slews and steps it, an administrator sets
/// it, a suspended host wakes up behind it. Re-anchoring brings the reading back. When the
/// wall clock is ahead of the reading, the reading jumps forward to it. When it is behind,
/// the [`WallClockBack`] mode decides: [`Report`](WallClockBack::Report) (the default) goes
/// back with it, [`Slew`](WallClockBack::Slew) runs at half speed until the wall clock catches
/// up.
///
/// # Divergence from the wall clock
///
/// Let `I` be the recheck interval and `ρ` the counter's rate error against the wall clock
/// (quanta's calibration error plus NTP's frequency corrections: typically a few parts per
/// million, at most about 500). A re-anchor happens at the first reading at least `I` of
/// counter time after the previous one; other threads keep the old offset while that reading
/// measures the new one, to within half the time `SystemTime::now` took (well under a
/// microsecond; at most 10 µs unless three tries in a row are interrupted).
///
/// | mode | behind the wall clock | ahead of the wall clock | goes back | reading costs |
/// |---|---|---|---|---|
/// | `Report` (default) | by drift (`ρ·I`) and by steps forward or suspensions since the last re-anchor, for at most `I` of counter time | by drift (`ρ·I`) and by steps back since the last re-anchor, for at most `I` of counter time | yes: by a step back, and by up to `ρ·I` at a re-anchor when the counter runs fast | counter read, 2 loads |
/// | `Slew` | as `Report` | by the steps back (and the drift `ρ·I`) not yet caught up: after one step back of `D`, by `D` at full speed until the next re-anchor sees it (at most `I`), then closing at half speed, on the wall clock again `2·D` of counter time later | never | counter read, 3 loads, a `fetch_max` on a word every reader of this clock writes |
/// | [anchored once](MonotonicClockBuilder::anchor_once) | unbounded: `ρ` × the time since creation, plus every step and suspension since | unbounded, likewise | never | counter read, 2 loads |
///
/// The counter, like `CLOCK_MONOTONIC`, does not count time the host spends suspended, so
/// after a resume the reading lags by the suspension until the next re-anchor, at most `I`
/// later.
///
/// # Monotonicity
///
/// In `Slew` mode readings never decrease, also across threads: a reading that happens after
/// another (through any synchronisation) is at least as large, whatever the counter does
/// between cores, since every reading raises one shared word. Anchored once, readings are as
/// monotonic as the counter: never decreasing within a thread, and across cores up to the
/// nanoseconds an unfenced counter read may run ahead of the load before it (see the
/// generator's `# Orderings`). `Report` is the same between re-anchors, and hands a step back
/// on to the caller: a [`Generator`](crate::Generator) never mints below its last tick, and
/// sees the regression through its [`ClockBehind`](crate::ClockBehind) policy.
///
/// # Examples
///
/// ```
/// use snowmint::{Clock, MonotonicClock};
/// use std::time::{SystemTime, UNIX_EPOCH};
///
/// let clock = MonotonicClock::new();
/// let wall = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64;
/// assert!(clock.unix_ms().abs_diff(wall) < 1_000);
///
/// // Anchored once, as before re-anchoring existed: readings never go back.
/// let once = MonotonicClock::builder().anchor_once().build();
/// let a = once.unix_ms();
/// assert!(once.unix_ms() >= a);
/// ```
#[derive(Debug)]
pub struct MonotonicClock {
    counter: Counter,
    wall: Wall,
    /// `wall_ns - counter_ns` at the last re-anchor: a reading is `counter_ns + offset`.
    offset: AtomicU64,
    /// The counter reading from which the next reading re-anchors; `u64::MAX` when anchored
    /// once.
    next_check: AtomicU64,
    /// Counter nanoseconds between re-anchors.
    interval_ns: u64,
    /// Present in [`WallClockBack::Slew`] mode.
    slew: Option<Slew>,
}

/// The state of [`WallClockBack::Slew`] mode.
#[derive(Debug)]
struct Slew {
    /// The intercept of the half-speed line `base + counter_ns / 2`; it only rises.
    base: AtomicU64,
    /// The greatest reading handed out; it only rises.
    last: AtomicU64,
}

/// What a [`MonotonicClock`] does when a re-anchor finds the wall clock behind its reading.
///
/// A step back (NTP stepping a fast clock back, an administrator's `date`) or a counter that
/// runs slightly fast puts the reading ahead of the wall clock. Steps forward are always
/// followed at once; this chooses what happens to steps back.
///
/// `Report` is the default because a [`Generator`](crate::Generator) already does what `Slew`
/// does for it, for free: it never mints below its last tick, its state word is the "greatest
/// reading so far", and its [`ClockBehind`](crate::ClockBehind) policy decides how to wait
/// (or fail, or toggle) in one place. `Slew` would add a second read-modify-write, on a word
/// every minting thread writes, to every mint. Pick `Slew` for readings used outside a
/// generator that must not go back, or for a generator whose policy should never see the host
/// clock's regressions: under `Report`, a re-anchor that corrects a fast counter by a few
/// microseconds can cross a millisecond boundary, which `ClockBehind::Wait` waits out in those
/// microseconds but `ClockBehind::Error` reports as an error.
///
/// # Examples
///
/// ```
/// use snowmint::{Clock, MonotonicClock, WallClockBack};
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
    /// Go back to the wall clock at the re-anchor: the reading decreases by the step, and the
    /// reader (a generator's [`ClockBehind`](crate::ClockBehind) policy) sees a regression.
    #[default]
    Report,
    /// Never go back: while the reading is ahead of the wall clock it advances at half the
    /// counter's rate, so a gap of `D` closes in `2·D` of counter time; every reading also
    /// raises a shared "greatest reading" word with `fetch_max`.
    Slew,
}

/// Configures a [`MonotonicClock`]: how often it re-anchors and what it does when the wall
/// clock goes back.
///
/// # Examples
///
/// ```
/// use snowmint::{Clock, MonotonicClock};
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
    /// use snowmint::{Clock, MonotonicClock};
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
    /// suspension after the anchor. [`on_wall_clock_back`](Self::on_wall_clock_back) does not
    /// apply. [`recheck`](Self::recheck) called afterwards turns re-anchoring back on.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, MonotonicClock};
    ///
    /// let clock = MonotonicClock::builder().anchor_once().build();
    /// let a = clock.unix_ns();
    /// assert!(clock.unix_ns() >= a);
    /// ```
    pub fn anchor_once(mut self) -> Self {
        self.recheck = None;
        self
    }

    /// What to do when a re-anchor finds the wall clock behind the reading (default:
    /// [`WallClockBack::Report`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, MonotonicClock, WallClockBack};
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
    /// use snowmint::{Clock, MonotonicClock};
    ///
    /// let clock = MonotonicClock::builder().build();
    /// assert!(clock.unix_ms() > 1_600_000_000_000);
    /// ```
    pub fn build(self) -> MonotonicClock {
        self.build_with(Counter::quanta(), Wall::System)
    }

    /// Builds on the given sources: `build` on the system's, tests on their own.
    fn build_with(self, counter: Counter, wall: Wall) -> MonotonicClock {
        let (now, offset) = measure_offset(&counter, &wall);
        let (next_check, interval_ns) = match self.recheck {
            Some(interval) => {
                let interval_ns = u64::try_from(interval.as_nanos()).unwrap_or(u64::MAX);
                (now.saturating_add(interval_ns), interval_ns)
            }
            None => (u64::MAX, u64::MAX),
        };
        let slew = (self.recheck.is_some() && self.on_back == WallClockBack::Slew).then(|| Slew {
            base: AtomicU64::new(0),
            last: AtomicU64::new(0),
        });
        MonotonicClock {
            counter,
            wall,
            offset: AtomicU64::new(offset),
            next_check: AtomicU64::new(next_check),
            interval_ns,
            slew,
        }
    }
}

impl Default for MonotonicClockBuilder {
    /// Re-anchor every second, [`WallClockBack::Report`].
    fn default() -> Self {
        MonotonicClockBuilder {
            recheck: Some(Duration::from_secs(1)),
            on_back: WallClockBack::Report,
        }
    }
}

impl MonotonicClock {
    /// Anchors a new clock to the wall clock now, re-anchored every second, following the wall
    /// clock back ([`WallClockBack::Report`]).
    ///
    /// A wall clock before 1970 reads as the Unix epoch.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, MonotonicClock};
    ///
    /// let clock = MonotonicClock::new();
    /// assert!(clock.unix_ms() > 1_600_000_000_000);
    /// ```
    pub fn new() -> Self {
        Self::builder().build()
    }

    /// A builder, to choose the recheck interval and what happens when the wall clock goes
    /// back.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, MonotonicClock};
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
    /// use snowmint::{Clock, MonotonicClock};
    ///
    /// let clock = MonotonicClock::new();
    /// let ns = clock.unix_ns();
    /// assert!(clock.unix_ms().abs_diff(ns / 1_000_000) < 1_000);
    /// ```
    #[inline]
    pub fn unix_ns(&self) -> u64 {
        let now = self.counter.ns();
        if self.slew.is_none() && now < self.next_check.load(Ordering::Relaxed) {
            now.saturating_add(self.offset.load(Ordering::Relaxed))
        } else {
            self.unix_ns_slow(now)
        }
    }

    /// A reading that is due to re-anchor, or in slew mode.
    #[inline(never)]
    fn unix_ns_slow(&self, now: u64) -> u64 {
        if now >= self.next_check.load(Ordering::Relaxed) {
            self.reanchor(now);
        }
        let offset = self.offset.load(Ordering::Relaxed);
        match &self.slew {
            None => now.saturating_add(offset),
            Some(slew) => {
                let candidate = slew.candidate(now, offset);
                // Relaxed: monotonicity rests on `last`'s modification order alone.
                slew.last
                    .fetch_max(candidate, Ordering::Relaxed)
                    .max(candidate)
            }
        }
    }

    /// Re-reads the wall clock and moves the offset to it, if this thread is the one elected
    /// for the interval that ended at or before `now`.
    #[cold]
    #[inline(never)]
    fn reanchor(&self, now: u64) {
        let due = self.next_check.load(Ordering::Relaxed);
        // Relaxed: the CAS only elects one thread per interval; the offset it then stores is
        // read on its own.
        if now < due
            || self
                .next_check
                .compare_exchange(
                    due,
                    now.saturating_add(self.interval_ns),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_err()
        {
            return;
        }
        let old = self.offset.load(Ordering::Relaxed);
        let (_, offset) = measure_offset(&self.counter, &self.wall);
        // Relaxed, and a CAS rather than a store: a re-anchoring thread delayed past the next
        // interval must not overwrite a later measurement with its older one.
        if self
            .offset
            .compare_exchange(old, offset, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
        {
            return;
        }
        if let Some(slew) = &self.slew {
            // Readers that loaded the old offset hand out readings up to `now' + old` (`now'`
            // read after the CAS above); start the half-speed line there, so readings that are
            // now ahead of the wall clock slow down from where they were instead of stopping.
            // If the wall clock went forward, the line is below it and stays below. Between the
            // CAS and this `fetch_max`, readings pause at `last`.
            let now = self.counter.ns();
            let reading = slew
                .candidate(now, old)
                .max(slew.last.load(Ordering::Relaxed));
            slew.base
                .fetch_max(reading.saturating_sub(now / 2), Ordering::Relaxed);
        }
    }
}

impl Slew {
    /// The reading at counter time `now` under `offset`, before the `last` it must not go
    /// below: the wall line or the half-speed line, whichever is ahead.
    #[inline]
    fn candidate(&self, now: u64, offset: u64) -> u64 {
        let wall = now.saturating_add(offset);
        let slow = self.base.load(Ordering::Relaxed).saturating_add(now / 2);
        wall.max(slow)
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clone for MonotonicClock {
    /// An independent clock with this one's anchor, settings and readings so far: it
    /// re-anchors on its own, and in slew mode never reads below what this one has read.
    fn clone(&self) -> Self {
        let copy = |a: &AtomicU64| AtomicU64::new(a.load(Ordering::Relaxed));
        MonotonicClock {
            counter: self.counter.clone(),
            wall: self.wall.clone(),
            offset: copy(&self.offset),
            next_check: copy(&self.next_check),
            interval_ns: self.interval_ns,
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
/// middle and the offset `wall - counter` there.
///
/// Tries again when the two counter readings are more than [`GOOD_WINDOW_NS`] apart (a
/// preemption, an interrupt), and keeps the narrowest of [`MEASUREMENTS`] tries.
fn measure_offset(counter: &Counter, wall: &Wall) -> (u64, u64) {
    let mut best = (u64::MAX, 0, 0);
    for _ in 0..MEASUREMENTS {
        let before = counter.ns();
        let wall = wall.unix_ns();
        let window = counter.ns().saturating_sub(before);
        let middle = before + window / 2;
        if window < best.0 {
            best = (window, middle, wall.saturating_sub(middle));
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
}

impl Counter {
    /// quanta's counter, counting from now.
    fn quanta() -> Self {
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
        }
    }
}

/// Where wall time comes from: nanoseconds since the Unix epoch.
#[derive(Debug, Clone)]
enum Wall {
    System,
    #[cfg(test)]
    Fake(tests::Source),
}

impl Wall {
    fn unix_ns(&self) -> u64 {
        match self {
            Wall::System => SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)),
            #[cfg(test)]
            Wall::Fake(source) => source.read(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::thread;

    /// A time source a test sets by hand: each read returns the time, then moves it on by
    /// `step` (0 for a source that only moves when set).
    #[derive(Debug, Clone)]
    pub(super) struct Source {
        ns: Arc<AtomicU64>,
        step: u64,
    }

    impl Source {
        fn new(ns: u64, step: u64) -> Self {
            Source {
                ns: Arc::new(AtomicU64::new(ns)),
                step,
            }
        }

        pub(super) fn read(&self) -> u64 {
            self.ns.fetch_add(self.step, Ordering::SeqCst)
        }

        fn set(&self, ns: u64) {
            self.ns.store(ns, Ordering::SeqCst);
        }

        fn get(&self) -> u64 {
            self.ns.load(Ordering::SeqCst)
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

    /// Moves both sources on by `ns`, as real time passing does.
    fn pass(counter: &Source, wall: &Source, ns: u64) {
        counter.advance(ns);
        wall.advance(ns);
    }

    fn slew() -> MonotonicClockBuilder {
        MonotonicClock::builder().on_wall_clock_back(WallClockBack::Slew)
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
    fn drift_is_corrected_at_each_recheck() {
        // The counter runs 1000 ppm fast: 1 ms of wall time is 1.001 ms of counter time.
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
                // ρ·I: 1000 ppm of a 1 s interval.
                assert!(ahead <= SECOND / 1_000, "{mode:?} ahead by {ahead}");
                assert!(
                    wall.get() <= now,
                    "{mode:?}: a fast counter never reads behind"
                );
                if mode == WallClockBack::Slew {
                    assert!(now >= last, "slew went back from {last} to {now}");
                }
                last = now;
            }
            // The last reading before a re-anchor: 999 steps of 1 µs gained.
            assert!(
                max_ahead >= 999_000,
                "{mode:?}: drift {max_ahead} never showed"
            );
            // A slow counter: the reading falls behind by up to ρ·I, then jumps forward.
            let (clock, counter, wall) = fake(MonotonicClock::builder().on_wall_clock_back(mode));
            let mut max_behind = 0;
            for _ in 0..10_000 {
                counter.advance(999_000);
                wall.advance(MS);
                let now = clock.unix_ns();
                assert!(
                    now <= wall.get(),
                    "{mode:?}: a slow counter never reads ahead"
                );
                let behind = wall.get() - now;
                max_behind = max_behind.max(behind);
                // ρ·I over the 1.001 s of wall time a 1 s interval of this counter takes.
                assert!(behind <= 1_001_000, "{mode:?} behind by {behind}");
            }
            assert!(
                max_behind >= 1_000_000,
                "{mode:?}: drift {max_behind} never showed"
            );
        }
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
        let eager_slew = slew().recheck(Duration::from_micros(50));
        for builder in [eager_slew, MonotonicClock::builder().anchor_once()] {
            // Every counter read moves it 1 µs on; a fifth thread moves the wall clock back and
            // forth by up to 18 ms; in slew mode re-anchors come every 50 µs.
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
                for _ in 0..4 {
                    s.spawn(|| {
                        let mut last = clock.unix_ns();
                        for _ in 0..50_000 {
                            let now = clock.unix_ns();
                            assert!(now >= last, "went back from {last} to {now}");
                            last = now;
                        }
                    });
                }
                stepper.join().unwrap();
            });
        }
    }
}
