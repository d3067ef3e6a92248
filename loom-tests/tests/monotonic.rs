//! Loom models of the real `MonotonicClock` re-anchor path: the double-buffered segment
//! (`generation` and two slots), the writer lock, and `WallClockBack::Slew`'s two words.
//!
//! Run from `loom-tests/` with
//!
//! ```text
//! RUSTFLAGS="--cfg snowmint_loom --cfg snowmint_test_hooks" LOOM_MAX_PREEMPTIONS=3 cargo test --release --test monotonic
//! ```
//!
//! Every model runs the library's own code: a clock from `build_driven` on two
//! `DrivenSource`s (under `--cfg snowmint_loom` its atomics are loom's, through `src/sync.rs`). The
//! counter moves on [`STEP`] ns at every read, so every read is a later counter time, and its
//! reads are `AcqRel` read-modify-writes: a thread that reads it after another has seen what
//! the other saw before its read, which is what the clock's `# Orderings` assume of the real
//! counter. The wall clock follows the counter at an offset the model sets (a wall clock that
//! stood still while the counter moved on would step back), and the offset moves on 1 ns at
//! each read: only a re-anchor that publishes reads it, once (its measurement's window is
//! narrow), so how far the offset moved counts the publishes. The clock re-anchors every
//! [`INTERVAL`] of counter time and slews errors up to half of it; a race starts with the
//! first segment due, so the first reading of each thread is overdue, and the next segment is
//! never due within the race.
//!
//! What each model proves, in every interleaving explored:
//!
//! 1. [`a_slew_raced_by_two_readers_never_goes_back`] and
//!    [`a_step_forward_raced_by_two_readers_never_goes_back`]: two threads read twice each
//!    while the wall clock is 300 µs behind the reading (slewed over an interval) or 1 ms
//!    ahead of it (a step). Each thread's second reading is at least its first, and at least
//!    the first reading of the other thread whenever it loaded that reading (`Acquire` from
//!    the other's `Release` store) before it began: readings never go back, in one thread or
//!    across happens-before. Exactly one re-anchor publishes.
//! 2. [`a_step_back_in_slew_mode_never_goes_back`]: the same race in `WallClockBack::Slew`
//!    mode, with the wall clock 1 ms behind, beyond the threshold: the reading never goes
//!    back, and after the race runs slower than the counter (the half-speed line).
//! 3. [`readers_of_a_segment_being_replaced_stay_below_the_next`]: both threads find the
//!    first segment overdue, and one of them lets 15 µs of counter time pass between two
//!    readings while the other may still hold the writer lock. Exactly one publishes (the
//!    generation advances once per due interval: a late holder finds the new segment not
//!    due); the other reads the segment being replaced, stopped at the counter time the lock
//!    was taken at and at half speed after it, so its readings are never above what the new
//!    segment, which slews 300 µs back and so runs at 0.7 of the counter's rate, reads
//!    later: the reading after the race is at least every reading of the race.
//! 4. [`a_reader_racing_two_re_anchors_never_reads_a_torn_segment`]: a thread re-anchors
//!    twice, the wall clock stepping 1 s forward each time, so the second publish rewrites the
//!    slot the first segment was read from, while another thread reads once. The generation
//!    check around a reader's loads keeps it from mixing the two segments' words, and the
//!    readings never go back.
//! 5. [`a_reader_tells_a_late_holder_from_the_one_replacing_its_segment`]: three threads read
//!    once each, all finding the first segment overdue, the wall clock 490 µs behind. Exactly
//!    one publishes; a holder that takes the lock after that publish replaces nothing, and a
//!    reader that loaded the first segment and then sees that holder in the lock reads the
//!    new segment instead (its `Acquire` load of the lock shows it the publish): the reading
//!    after the race is at least every reading of the race. Explored with at most two
//!    preemptions, which that interleaving needs (three threads at three take a minute).
//!
//! Every model also checks each reading against the lines a consistent segment gives: never
//! below the first segment's reading when the race began, never above the first segment's
//! line at the end of the model (give or take [`SLACK`]), each shifted by one of the wall
//! clock's steps forward. A segment torn between the first and the third lands far outside:
//! the first's start with the third's base reads half an interval too high, the third's start
//! with the first's base the bare build-time wall clock.
#![cfg(snowmint_loom)]

use std::time::Duration;

use loom::sync::Arc;
use loom::sync::atomic::{AtomicU64, Ordering};
use loom::thread;

use snowmint::clock::{DrivenSource, MonotonicClock, WallClockBack};

mod common;

use common::model;

/// Counter nanoseconds per read.
const STEP: u64 = 10;

/// The recheck interval: 1 ms of counter time. The step threshold is half of it.
const INTERVAL: u64 = 1_000_000;

/// The wall clock when the clock is built, in Unix nanoseconds: the first segment's base.
const WALL0: u64 = 1_700_000_000_000_000_000;

/// The first segment's start: the middle of the build's measurement, whose two counter reads
/// are 0 and [`STEP`].
const ANCHOR: u64 = STEP / 2;

/// The counter time a race starts at: the first segment is due (at `ANCHOR + INTERVAL`).
const RACE: u64 = 2 * INTERVAL;

/// How far a reading may run above its line: a re-anchor carries the wall clock from the
/// middle of its measurement's window, up to half the window before the wall clock was read,
/// and each measurement moves the wall clock on 1 ns.
const SLACK: u64 = 1_000;

/// Runs `f` under loom as [`model`] does, with at most `bound` preemptions.
fn model_bounded<F>(bound: usize, f: F)
where
    F: Fn() + Sync + Send + 'static,
{
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(builder.preemption_bound.map_or(bound, |b| b.min(bound)));
    builder.check(f);
}

/// The first segment's reading at counter time `counter`: the wall clock at the build, on the
/// counter since.
fn first_line(counter: u64) -> u64 {
    WALL0 + counter - ANCHOR
}

/// The wall clock's offset from the counter that puts it `error` ns off the first segment.
fn wall_offset(error: i64) -> u64 {
    (WALL0 - ANCHOR)
        .checked_add_signed(error)
        .expect("a wall clock after the epoch")
}

/// A clock on driven sources, its counter moved to `start` and its wall clock set `error` ns
/// off the first segment.
struct Scene {
    clock: Arc<MonotonicClock>,
    counter: DrivenSource,
    wall: DrivenSource,
    /// The counter time the race starts at.
    start: u64,
    /// The wall clock's offset the scene set.
    wall_set: u64,
}

impl Scene {
    fn new(mode: WallClockBack, start: u64, error: i64) -> Self {
        let counter = DrivenSource::new(0, STEP);
        // The build reads the wall clock at counter time STEP.
        let wall = DrivenSource::following(&counter, WALL0 - STEP, 1);
        let clock = MonotonicClock::builder()
            .recheck(Duration::from_nanos(INTERVAL))
            .step_threshold(Duration::from_nanos(INTERVAL / 2))
            .on_wall_clock_back(mode)
            .build_driven(counter.clone(), wall.clone());
        assert_eq!(counter.get(), 2 * STEP, "the build measured once");
        counter.set(start);
        let wall_set = wall_offset(error);
        wall.set(wall_set);
        Scene {
            clock: Arc::new(clock),
            counter,
            wall,
            start,
            wall_set,
        }
    }

    /// After the race: the reading now is at least every reading of `threads`, and every
    /// reading lies on a line the model allows, `steps` being the wall clock's steps forward
    /// (0 first). Returns how many measurements (publishes) read the wall clock since the
    /// scene set it.
    fn finish(&self, threads: &[Vec<u64>], steps: &[u64]) -> u64 {
        let last = self.clock.unix_ns();
        let end = self.counter.get();
        let lines = |reading: u64| {
            steps.iter().any(|step| {
                (first_line(self.start) + step..=first_line(end) + step + SLACK).contains(&reading)
            })
        };
        for (thread, readings) in threads.iter().enumerate() {
            for &reading in readings {
                assert!(
                    reading <= last,
                    "thread {thread} read {reading}, the clock then {last}: {threads:?}"
                );
                assert!(
                    lines(reading),
                    "thread {thread} read {reading}, on no line from counter time {} to \
                     {end} (first segment {}, steps {steps:?}): {threads:?}",
                    self.start,
                    first_line(self.start)
                );
            }
        }
        assert!(lines(last), "read {last} after the race: {threads:?}");
        self.wall.get() - self.wall_set
    }
}

/// The race of models 1 and 2: two threads each read, store their reading (`Release`), load
/// the other's (`Acquire`, 0 when not stored yet) and read again; the second reading is at
/// least both. `error` is the wall clock's offset from the first segment, and `steps` the lines the readings may follow (see [`Scene::finish`]).
fn two_readers(mode: WallClockBack, error: i64, steps: &[u64]) -> Scene {
    let scene = Scene::new(mode, RACE, error);
    let stored = [Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0))];
    let threads: Vec<_> = (0..2)
        .map(|i| {
            let clock = scene.clock.clone();
            let (mine, theirs) = (stored[i].clone(), stored[1 - i].clone());
            thread::spawn(move || {
                let first = clock.unix_ns();
                mine.store(first, Ordering::Release);
                let seen = theirs.load(Ordering::Acquire);
                let second = clock.unix_ns();
                assert!(second >= first, "went back from {first} to {second}");
                assert!(
                    second >= seen,
                    "read {second} after loading the other thread's {seen}"
                );
                vec![first, second]
            })
        })
        .collect();
    let readings: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let publishes = scene.finish(&readings, steps);
    assert_eq!(publishes, 1, "one re-anchor per due interval: {readings:?}");
    scene
}

/// Model 1, slewed: the wall clock 300 µs behind, within the threshold, so the next segment
/// starts at the reading and runs at 0.7 of the counter's rate.
#[test]
fn a_slew_raced_by_two_readers_never_goes_back() {
    model(|| {
        two_readers(WallClockBack::Report, -300_000, &[0]);
    });
}

/// Model 1, stepped: the wall clock 1 ms ahead, beyond the threshold, so the next segment
/// starts on the wall clock and every reading is on the old line or on the new one.
#[test]
fn a_step_forward_raced_by_two_readers_never_goes_back() {
    model(|| {
        two_readers(WallClockBack::Report, 1_000_000, &[0, 1_000_000]);
    });
}

/// Model 2: the wall clock 1 ms behind in `Slew` mode. The next segment starts on the wall
/// clock, below every reading so far; readings follow the half-speed line from the reading
/// at the re-anchor, and never go below `last`.
#[test]
fn a_step_back_in_slew_mode_never_goes_back() {
    model(|| {
        let scene = two_readers(WallClockBack::Slew, -1_000_000, &[0]);
        // The re-anchor started by the middle of the race: the clock now runs at half speed,
        // and stays below the first segment's line.
        let before = scene.clock.unix_ns();
        scene.counter.advance(1_000);
        let after = scene.clock.unix_ns();
        assert!(
            after > before && after - before < 1_000,
            "{before} then {after}, 1 µs later"
        );
        assert!(
            after < first_line(scene.counter.get()),
            "{after} on the old line"
        );
    });
}

/// Model 3: thread A reads once; thread B reads, lets 15 µs of counter time pass (within a
/// measurement's good window, so a measurement never retries and the wall clock's reads count
/// the publishes), and reads again. The wall clock is 300 µs behind: the next segment slews
/// at 0.7 of the counter's rate. Had B's second reading followed the segment being replaced
/// at full speed while A held the lock, it would read up to 7.5 µs above the new segment's
/// base, and the reading after the race below it; the half-speed rule keeps it at most there.
#[test]
fn readers_of_a_segment_being_replaced_stay_below_the_next() {
    model(|| {
        let scene = Scene::new(WallClockBack::Report, RACE, -300_000);
        let a = {
            let clock = scene.clock.clone();
            thread::spawn(move || vec![clock.unix_ns()])
        };
        let b = {
            let (clock, counter) = (scene.clock.clone(), scene.counter.clone());
            thread::spawn(move || {
                let first = clock.unix_ns();
                counter.advance(15_000);
                let second = clock.unix_ns();
                assert!(second >= first, "went back from {first} to {second}");
                vec![first, second]
            })
        };
        let readings = [a.join().unwrap(), b.join().unwrap()];
        let publishes = scene.finish(&readings, &[0]);
        assert_eq!(publishes, 1, "one re-anchor per due interval: {readings:?}");
    });
}

/// Model 4: the race starts half an interval into the first segment, not due yet. Thread W
/// moves the counter on an interval, steps the wall clock 1 s forward and reads
/// (re-anchoring, into slot 1), then does it again (the second segment is due: re-anchoring
/// into slot 0, the first segment's); thread R reads once. If R loaded generation 0 before W's publishes and
/// the first segment's words after the second, its reading would mix them: the first
/// segment's start with the third's base reads half an interval too high, the third's
/// start with the first's base the bare build-time wall clock, below every reading.
#[test]
fn a_reader_racing_two_re_anchors_never_reads_a_torn_segment() {
    const JUMP: i64 = 1_000_000_000;
    model(|| {
        let scene = Scene::new(WallClockBack::Report, INTERVAL / 2, 0);
        let w = {
            let (clock, counter, wall) = (
                scene.clock.clone(),
                scene.counter.clone(),
                scene.wall.clone(),
            );
            thread::spawn(move || {
                let mut readings = Vec::new();
                for jumps in 1..=2 {
                    counter.advance(INTERVAL);
                    wall.set(wall_offset(jumps * JUMP));
                    readings.push(clock.unix_ns());
                }
                assert!(readings[1] >= readings[0], "went back: {readings:?}");
                readings
            })
        };
        let r = {
            let clock = scene.clock.clone();
            thread::spawn(move || vec![clock.unix_ns()])
        };
        let readings = [w.join().unwrap(), r.join().unwrap()];
        let steps = [0, JUMP, 2 * JUMP].map(|step| step as u64);
        scene.finish(&readings, &steps);
    });
}

/// Model 5: three threads read once each, all finding the first segment overdue. One takes
/// the lock and publishes; a second may take it after that publish, find the new segment not
/// due, and replace nothing. A third that loaded the first segment before the publish and
/// then sees the second holder in the lock must not take it for a holder replacing its
/// segment: its `Acquire` load of the lock shows it the publish, and it reads again. Had it
/// read the first segment up to that holder's later counter time, at full speed, it would
/// read above the new segment, which slews 490 µs back and so runs at just over half speed.
///
/// At most two preemptions: the reader stalls after loading the first segment while the
/// publisher finishes, and the late holder stalls holding the lock while the reader loads it.
#[test]
fn a_reader_tells_a_late_holder_from_the_one_replacing_its_segment() {
    model_bounded(2, || {
        let scene = Scene::new(WallClockBack::Report, RACE, -490_000);
        let threads: Vec<_> = (0..3)
            .map(|_| {
                let clock = scene.clock.clone();
                thread::spawn(move || vec![clock.unix_ns()])
            })
            .collect();
        let readings: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        let publishes = scene.finish(&readings, &[0]);
        assert_eq!(publishes, 1, "one re-anchor per due interval: {readings:?}");
    });
}
