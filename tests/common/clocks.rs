//! Time for the tests: where manual clocks start, generators on a manual clock, and the wall
//! clock.

use std::time::{SystemTime, UNIX_EPOCH};

use snowmint::{Generator, GeneratorBuilder, Layout, clock::ManualClock};

/// The Unix time (ms) manual clocks start at: inside every layout's range, on a 4 ms and a
/// 10 ms tick boundary.
pub const T0: u64 = 1_700_000_000_000;

/// [`T0`] as ticks of the twitter layout (1 ms each) since its epoch.
pub const T0_TICK: u64 = T0 - Layout::TWITTER.epoch_ms();

/// A manual clock at `unix_ms`, and the generator `builder` builds on it.
pub fn on_manual_clock(
    builder: GeneratorBuilder,
    unix_ms: u64,
) -> (Generator<ManualClock>, ManualClock) {
    let clock = ManualClock::new(unix_ms);
    let generator = builder.clock(clock.clone()).build().unwrap();
    (generator, clock)
}

/// Unix milliseconds now, from the wall clock.
pub fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// The wall clock shifted by a fixed offset: a child process's clock, stepped back or forth
/// from one generation to the next.
#[derive(Debug, Clone, Copy)]
pub struct OffsetClock {
    /// Added to the wall clock, in milliseconds.
    pub offset_ms: i64,
}

impl snowmint::Clock for OffsetClock {
    fn unix_ms(&self) -> u64 {
        wall_ms().saturating_add_signed(self.offset_ms)
    }
}
