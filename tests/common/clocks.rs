//! Time for the tests: where manual clocks start, generators of each kind on a manual clock,
//! and the wall clock.

use std::time::{SystemTime, UNIX_EPOCH};

use snowmint::clock::ManualClock;
use snowmint::shard::{ShardedGenerator, Shards};
use snowmint::sno::{SnoGenerator, SnoGeneratorBuilder};
use snowmint::{Generator, GeneratorBuilder, Layout, LocalGenerator};

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
    built_on_manual_clock(unix_ms, |clock| builder.clock(clock).build().unwrap())
}

/// A manual clock at `unix_ms`, and the [`LocalGenerator`] `builder` builds on it.
pub fn local_on_manual_clock(
    builder: GeneratorBuilder,
    unix_ms: u64,
) -> (LocalGenerator<ManualClock>, ManualClock) {
    built_on_manual_clock(unix_ms, |clock| builder.clock(clock).build_local().unwrap())
}

/// A manual clock at `unix_ms`, and the [`ShardedGenerator`] `builder` builds on it with
/// `shards`.
pub fn sharded_on_manual_clock(
    builder: GeneratorBuilder,
    shards: Shards<'_>,
    unix_ms: u64,
) -> (ShardedGenerator<ManualClock>, ManualClock) {
    built_on_manual_clock(unix_ms, |clock| {
        builder.clock(clock).build_sharded(shards).unwrap()
    })
}

/// A manual clock at `unix_ms`, and the [`SnoGenerator`] `builder` builds on it.
pub fn sno_on_manual_clock(
    builder: SnoGeneratorBuilder,
    unix_ms: u64,
) -> (SnoGenerator<Generator<ManualClock>>, ManualClock) {
    built_on_manual_clock(unix_ms, |clock| builder.clock(clock).build().unwrap())
}

/// A manual clock at `unix_ms`, and what `build` makes on it (given a handle to the clock):
/// the siblings above, or a generator resumed from a file.
pub fn built_on_manual_clock<G>(
    unix_ms: u64,
    build: impl FnOnce(ManualClock) -> G,
) -> (G, ManualClock) {
    let clock = ManualClock::new(unix_ms);
    (build(clock.clone()), clock)
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
