use std::sync::Arc;
use std::thread;
use std::time::Duration;

use super::anchored::MonotonicClock;
use super::builder::{MonotonicClockBuilder, WallClockBack};
use super::segment::{FREE, Segment};
use super::source::{Counter, MEASUREMENTS, Wall};
use crate::clock::interface::Clock;
use crate::sync::{AtomicU64, Ordering};

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
            let (clock, counter, wall) = fake(MonotonicClock::builder().on_wall_clock_back(mode));
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
        let clock = builder.build_with(Counter::Fake(counter.clone()), Wall::Fake(wall.clone()));
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
