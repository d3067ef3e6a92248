//! The anchored clock: [`MonotonicClock`], its readings and its re-anchoring.

use super::segment::{FREE, Segment, Segments, released, slot};
use super::source::{Counter, Wall, measure};
use crate::clock::interface::Clock;
use crate::sync::{AtomicU64, Ordering};

/// Wall time from a monotonic counter, re-anchored to the wall clock: the source of the
/// default clock ([`CachedClock::global`](crate::clock::CachedClock::global) caches one), and a
/// clock of its own for a generator that should start no thread.
///
/// Each reading is quanta's counter, kept on the wall clock (`SystemTime`). On x86-64
/// and AArch64 the counter is the CPU's time-stamp counter when it is invariant (quanta checks
/// and calibrates it once per process), else `CLOCK_MONOTONIC` through the vDSO: either way a
/// reading is a few nanoseconds and no system call. Once every [recheck
/// interval](super::MonotonicClockBuilder::recheck) of counter time (1 s by default), the first
/// reading past it re-reads the wall clock; the readings in between are a counter read, five
/// relaxed or acquire loads, three compares and an add, plus a multiply while an error is
/// being slewed (on real hardware nearly always: drift leaves a few nanoseconds at least).
///
/// The counter does not follow the wall clock: it drifts (a few parts per million), NTP steps
/// the wall clock, an administrator sets it, a suspended host wakes up behind it. Each
/// re-anchor measures how far the reading is from the wall clock. Up to the [step
/// threshold](super::MonotonicClockBuilder::step_threshold) (10 ms by default) the error is drift,
/// and is slewed: readings run slightly faster or slower for one interval and meet the wall
/// clock at its end, never jumping. Beyond it the error is a step: when the wall clock is
/// ahead, the reading jumps forward to it; when it is behind, the [`WallClockBack`] mode
/// decides: [`Report`](super::WallClockBack::Report) (the default) goes back with it,
/// [`Slew`](super::WallClockBack::Slew) runs at half speed until the wall clock catches up.
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
///
/// [`WallClockBack`]: super::WallClockBack
#[derive(Debug)]
pub struct MonotonicClock {
    /// The segment readings follow, and the writer lock.
    pub(super) segments: Segments,
    pub(super) counter: Counter,
    pub(super) wall: Wall,
    /// Counter nanoseconds between re-anchors; `u64::MAX` when anchored once.
    pub(super) interval_ns: u64,
    /// The largest error a re-anchor slews rather than steps: at most `interval_ns / 2`.
    pub(super) threshold_ns: u64,
    /// Present in [`WallClockBack::Slew`](super::WallClockBack::Slew) mode.
    pub(super) slew: Option<Slew>,
}

/// The state of [`WallClockBack::Slew`](super::WallClockBack::Slew) mode.
#[derive(Debug)]
pub(super) struct Slew {
    /// The intercept of the half-speed line `base + counter / 2`; it only rises.
    pub(super) base: AtomicU64,
    /// The greatest reading handed out; it only rises.
    pub(super) last: AtomicU64,
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
    ///
    /// [`WallClockBack::Report`]: super::WallClockBack::Report
    pub fn new() -> Self {
        Self::builder().build()
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
            // The gate before the lock (see the internals page's "after `fork()`"): no fork
            // copies the lock taken.
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
    /// being prepared and the writer lock was found `free`: the segment at `now`, once the free
    /// value has moved on. A holder that read its `elected` before this reading expects `free`,
    /// so its compare-and-swap fails and it elects again, later than `now` (see
    /// [orderings](crate::docs::internals#the-monotonic-clocks-orderings)). `None` when the
    /// lock changed meanwhile or a re-anchor published: read again.
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
    pub(super) fn reanchor(&self, elected: u64, free: u64) -> Option<u64> {
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
