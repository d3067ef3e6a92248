//! How a [`MonotonicClock`] is configured: its recheck interval, its step threshold and what
//! it does when the wall clock steps back.

use std::time::Duration;

use super::anchored::{MonotonicClock, Slew};
use super::segment::{Segment, Segments};
#[cfg(snowmint_loom)]
use super::source::DrivenSource;
use super::source::{Counter, Wall, measure};
use crate::sync::AtomicU64;

/// The default step threshold (see [`MonotonicClockBuilder::step_threshold`]).
const STEP_THRESHOLD: Duration = Duration::from_millis(10);

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

impl MonotonicClock {
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
    pub(super) fn build_with(self, counter: Counter, wall: Wall) -> MonotonicClock {
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
