//! The default clock against the real wall clock, through the public API.
//!
//! Steps, drift and slewing need a wall clock a test can move: those tests sit next to the
//! clock, in `src/clock/monotonic/tests.rs`, on injected sources.

mod common;

use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use snowmint::{
    Generator, Layout,
    clock::{MonotonicClock, WallClockBack},
};

use common::checks::assert_near;
use common::threads::on_threads;

/// How far a reading may be from the wall clock read around it.
const TOLERANCE_NS: u64 = 100_000_000;

fn wall_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("wall clock after 1970")
        .as_nanos() as u64
}

/// Reads `clock` between two wall-clock readings and checks it lies between them, give or
/// take [`TOLERANCE_NS`].
fn assert_near_wall(clock: &MonotonicClock) {
    let before = wall_ns();
    let reading = clock.unix_ns();
    let after = wall_ns();
    assert_near(
        reading,
        before,
        after,
        TOLERANCE_NS,
        "the clock's reading (ns)",
    );
}

#[test]
fn the_default_clock_stays_within_100_ms_of_the_wall_clock() {
    let clock = MonotonicClock::new();
    for _ in 0..20 {
        assert_near_wall(&clock);
        thread::sleep(Duration::from_millis(1));
    }
    assert_near_wall(&MonotonicClock::default());
}

#[test]
fn every_configuration_starts_on_the_wall_clock() {
    let builders = [
        MonotonicClock::builder(),
        MonotonicClock::builder().anchor_once(),
        MonotonicClock::builder().recheck(Duration::ZERO),
        MonotonicClock::builder().recheck(Duration::from_millis(1)),
        MonotonicClock::builder().recheck(Duration::MAX),
        MonotonicClock::builder().step_threshold(Duration::ZERO),
        MonotonicClock::builder().step_threshold(Duration::MAX),
        MonotonicClock::builder()
            .anchor_once()
            .recheck(Duration::from_millis(1)),
    ];
    for builder in builders {
        let clock = builder.build();
        for _ in 0..5 {
            assert_near_wall(&clock);
            thread::sleep(Duration::from_millis(1));
        }
        assert_near_wall(&clock.clone());
    }
}

#[test]
fn re_anchoring_under_threads_stays_on_the_wall_clock() {
    // Every reading is due to re-anchor: the threads race for the CAS that elects one.
    let clock = MonotonicClock::builder().recheck(Duration::ZERO).build();
    on_threads(4, |_| {
        for _ in 0..2_000 {
            assert_near_wall(&clock);
        }
    });
}

#[test]
fn slew_and_anchored_once_never_go_back_under_threads() {
    let builders = [
        // Every reading is due to re-anchor: re-anchors race with readings.
        MonotonicClock::builder()
            .on_wall_clock_back(WallClockBack::Slew)
            .recheck(Duration::ZERO),
        MonotonicClock::builder().anchor_once(),
    ];
    for builder in builders {
        never_goes_back_under_threads(&builder.build());
    }
}

#[test]
fn report_slews_drift_and_never_goes_back_under_threads() {
    // Re-anchored every 100 µs: the counter drifts by nanoseconds over one, far below the
    // 50 µs threshold, so every correction is slewed (a step of the host clock during the
    // test would be reported, as it should).
    let clock = MonotonicClock::builder()
        .recheck(Duration::from_micros(100))
        .build();
    never_goes_back_under_threads(&clock);
    assert_near_wall(&clock);
}

fn never_goes_back_under_threads(clock: &MonotonicClock) {
    on_threads(4, |_| {
        let mut last = clock.unix_ns();
        for _ in 0..20_000 {
            let now = clock.unix_ns();
            assert!(now >= last, "went back from {last} to {now}");
            last = now;
        }
    });
}

#[test]
fn a_generator_mints_on_a_re_anchored_clock() {
    let clock = MonotonicClock::builder()
        .recheck(Duration::from_micros(100))
        .build();
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 0)
        .clock(clock)
        .build()
        .unwrap();
    let mut last = generator.mint().unwrap();
    for _ in 0..20_000 {
        let id = generator.mint().unwrap();
        assert!(id > last, "{id} after {last}");
        last = id;
    }
    let minted_ms = Layout::TWITTER.decode(last).unwrap().unix_ms();
    let wall_ms = wall_ns() / 1_000_000;
    assert!(
        minted_ms.abs_diff(wall_ms) <= TOLERANCE_NS / 1_000_000,
        "minted at {minted_ms} ms, wall clock {wall_ms} ms"
    );
}
