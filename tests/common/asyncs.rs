//! The async tests' fixtures, the same on every runtime: the workload, the lateness bound of a
//! 1 ms timer beside it and how often it is tried, a clock stepped back while it runs, and
//! random durations.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use snowmint::Clock;
use snowmint::clock::MonotonicClock;

/// Ten 10 ms ticks' worth of Sonyflake IDs (256 a tick), asked for as fast as the task can:
/// ten times the layout's capacity, so the task waits at nine tick boundaries at least.
pub const IDS: usize = 2_560;

/// The most a 1 ms interval's tick may be late while another task on its thread mints. A
/// runtime's timer fires on whole milliseconds, so 1 to 2 ms is normal; a mint that blocks the
/// thread for a full Sonyflake tick makes it about 10 ms (each file's control test shows it).
pub const MAX_LATE: Duration = Duration::from_millis(5);

/// Timed runs: the machine is shared, so a run may lose its core for a few milliseconds. A
/// run on time in any of them passes; a mint that blocks makes every run late.
pub const RUNS: usize = 5;

/// Held by each timed run: the control's blocking mint would take a core from the others.
pub static TIMED: Mutex<()> = Mutex::new(());

/// Runs `run` up to [`RUNS`] times until the 1 ms timer it measures is on time in one; `run`
/// returns the timer's greatest lateness and its tick count.
pub fn on_time(mut run: impl FnMut() -> (Duration, u32)) {
    let mut runs = Vec::new();
    for _ in 0..RUNS {
        let (late, ticks) = run();
        if late <= MAX_LATE {
            return;
        }
        runs.push((late, ticks));
    }
    panic!(
        "the 1 ms timer was late in every run (greatest lateness, ticks): {runs:?}; expected at \
         most {MAX_LATE:?} in one"
    );
}

/// The wall clock less an offset the test sets: a clock stepped back and left running.
pub struct SteppedBack {
    pub clock: MonotonicClock,
    pub back_ms: AtomicU64,
}

impl SteppedBack {
    /// The wall clock, not stepped back yet.
    pub fn new() -> Self {
        SteppedBack {
            clock: MonotonicClock::new(),
            back_ms: AtomicU64::new(0),
        }
    }

    /// Steps the clock back by `ms` from the wall clock.
    pub fn step_back(&self, ms: u64) {
        self.back_ms.store(ms, Ordering::SeqCst);
    }
}

impl Clock for SteppedBack {
    fn unix_ms(&self) -> u64 {
        self.clock.unix_ms() - self.back_ms.load(Ordering::SeqCst)
    }
}

/// A small xorshift generator: random durations without a dependency.
pub struct Random(pub u64);

impl Random {
    /// The next value, below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}
