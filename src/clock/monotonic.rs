//! The default clock: quanta's monotonic counter anchored to the wall clock.

use std::time::{SystemTime, UNIX_EPOCH};

use super::Clock;

/// Wall time from a monotonic counter: the default clock of every generator.
///
/// When created it reads the wall clock (`SystemTime`) and quanta's counter once; each reading
/// after that is the anchored wall time plus the counter's elapsed nanoseconds. On x86-64 and
/// AArch64 the counter is the CPU's time-stamp counter when it is invariant (quanta checks and
/// calibrates it once per process), else `CLOCK_MONOTONIC` through the vDSO: either way a
/// reading is a few nanoseconds and no system call.
///
/// Readings never go backwards, whatever the wall clock does after the anchor: an NTP step
/// back or an administrator's `date` does not move this clock. The price is drift: the
/// monotonic counter does not follow NTP's corrections, so after a long uptime this clock can
/// differ from the wall clock by the drift accumulated since the anchor (typically parts per
/// million: a few milliseconds a day on a synchronised host). Re-anchoring while running is
/// the subject of a later version; a new `MonotonicClock` re-reads the wall clock.
///
/// # Examples
///
/// ```
/// use snowmint::{Clock, MonotonicClock};
/// use std::time::{SystemTime, UNIX_EPOCH};
///
/// let clock = MonotonicClock::new();
/// let wall = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64;
/// let a = clock.unix_ms();
/// let b = clock.unix_ms();
/// assert!(b >= a);
/// assert!(a.abs_diff(wall) < 1000);
/// ```
#[derive(Debug, Clone)]
pub struct MonotonicClock {
    counter: quanta::Clock,
    anchor_raw: u64,
    anchor_unix_ns: u64,
}

impl MonotonicClock {
    /// Anchors a new clock to the wall clock now.
    ///
    /// A wall clock before 1970 anchors at the Unix epoch.
    pub fn new() -> Self {
        let counter = quanta::Clock::new();
        let anchor_raw = counter.raw();
        let anchor_unix_ns = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
        MonotonicClock {
            counter,
            anchor_raw,
            anchor_unix_ns,
        }
    }

    /// The current time in nanoseconds since the Unix epoch.
    #[inline]
    pub fn unix_ns(&self) -> u64 {
        // `delta_as_nanos` is 0 when the counter reads at or before the anchor, so a reading is
        // never below the anchor; after it the counter is monotonic.
        let elapsed = self
            .counter
            .delta_as_nanos(self.anchor_raw, self.counter.raw());
        self.anchor_unix_ns.saturating_add(elapsed)
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for MonotonicClock {
    #[inline]
    fn unix_ms(&self) -> u64 {
        self.unix_ns() / 1_000_000
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_never_go_backwards_and_follow_the_wall_clock() {
        let clock = MonotonicClock::new();
        let start = SystemTime::now();
        let mut last = clock.unix_ns();
        for _ in 0..100_000 {
            let now = clock.unix_ns();
            assert!(now >= last, "clock went from {last} to {now}");
            last = now;
        }
        let wall = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
        let elapsed = start.elapsed().unwrap().as_nanos() as u64;
        // The clock and the wall clock were read within `elapsed` of each other; allow 50 ms of
        // calibration error on top.
        assert!(
            last.abs_diff(wall) <= elapsed + 50_000_000,
            "clock {last} vs wall {wall}"
        );
    }
}
