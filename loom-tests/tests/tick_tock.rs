//! Loom models of `Generator`'s tick-tock transitions: `ClockBehind::TickTock` moving the state
//! to the other timeline when the clock steps back, and refusing to when that timeline has
//! already minted at or after the earlier time.
//!
//! Run from `loom-tests/` with
//!
//! ```text
//! RUSTFLAGS="--cfg snowmint_loom --cfg snowmint_test_hooks" LOOM_MAX_PREEMPTIONS=3 cargo test --release
//! ```
//!
//! Every model uses the `tt` layout (41 bits of 1 ms ticks from the Unix epoch, the tick-tock
//! bit, a 10-bit machine field, a 12-bit sequence), a `ManualClock` and
//! `ClockBehind::TickTock { max_ms: 0 }`: toggle when possible, else fail at once with
//! `Error::ClockBehind`, so no thread ever spins and every model is finite. The main thread
//! mints a few IDs first to put the generator where the model needs it (the *setup*, checked
//! step by step), then two threads race, each following a short script of clock moves and
//! mints.
//!
//! In every interleaving explored, [`check`] asserts that
//!
//! - every mint of the race returns an ID or `Error::ClockBehind` (with `max_wait_ms` 0);
//! - no ID repeats, across the setup and the race (full `u64` values);
//! - each thread's IDs, and the setup's, strictly increase within each timeline;
//! - every ID of the race carries the machine, sits at a `(tick, timeline)` the model allows
//!   (a tick the clock showed, on the timeline of a state it was read after, or toggled to),
//!   and is above every ID the setup minted on its timeline (a timeline is only ever
//!   re-entered above its high-water mark);
//! - the counters agree: no overflow and no wait; toggles plus errors in the race are at most
//!   its regressions; the race toggled iff it minted on the timeline it did not start on; a
//!   toggle ever happened iff some ID is on timeline 1 (every model starts on timeline 0);
//! - the snapshot after the race holds the greatest ID of its timeline as its state, and the
//!   other timeline's high-water mark is exactly the highest tick minted there;
//! - a mint after the race, with the clock moved ahead of everything, succeeds on the
//!   snapshot's timeline above every ID of that timeline.
//!
//! Each model then asserts what is specific to it (how many toggles, which errors, which
//! sequences).
#![cfg(snowmint_loom)]

use std::collections::HashSet;

use loom::sync::Arc;
use loom::thread;

use snowmint::{
    ClockBehind, Error, Generator, Id, Layout, Snapshot, clock::ManualClock, generator::Stats,
};

mod common;

use common::{Minted, minted, model, tt};

/// Toggle when the other timeline allows it, else fail at once.
const POLICY: ClockBehind = ClockBehind::TickTock { max_ms: 0 };

/// The machine every generator here carries.
const MACHINE: u64 = 1;

/// Where the clock goes after the race, ahead of every tick a model uses.
const AFTER_TICK: u64 = 30;

/// Unix milliseconds at the start of `layout`'s tick `tick`.
fn tick_ms(layout: &Layout, tick: u64) -> u64 {
    layout.epoch_ms() + tick * layout.tick_ms()
}

/// One step of a racing thread's script.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Set the clock to the start of this tick.
    Set(u64),
    /// Mint once, keeping the result.
    Mint,
}

/// A generator on [`tt`] with its clock, and what happened before the race.
struct Rig {
    layout: Layout,
    generator: Arc<Generator<ManualClock>>,
    clock: ManualClock,
    /// Every ID minted before the race, in order: by the setup, or by the generator this one
    /// was resumed from.
    before: Vec<u64>,
    /// The high-water marks the generator was built with (non-zero only when resumed).
    start_marks: [u64; 2],
    /// The counters when the race starts.
    stats_before: Stats,
    /// The timeline the generator is on when the race starts.
    race_start: u64,
}

impl Rig {
    /// A fresh generator whose clock shows `tick`.
    fn new(tick: u64) -> Self {
        let layout = tt();
        let clock = ManualClock::new(tick_ms(&layout, tick));
        let generator = Generator::builder(layout)
            .node("machine", MACHINE)
            .clock(clock.clone())
            .on_clock_behind(POLICY)
            .build()
            .expect("valid generator");
        Rig::assemble(layout, generator, clock, Vec::new(), [0, 0])
    }

    /// A generator resumed from `snapshot` whose clock shows `tick`; `before` are the IDs the
    /// snapshotted generator minted.
    fn resumed(snapshot: &Snapshot, tick: u64, before: Vec<u64>) -> Self {
        let layout = snapshot.layout;
        let clock = ManualClock::new(tick_ms(&layout, tick));
        let generator = Generator::resume(snapshot)
            .clock(clock.clone())
            .on_clock_behind(POLICY)
            .build()
            .expect("valid snapshot");
        let mut start_marks = [0; 2];
        start_marks[snapshot.timeline as usize] = snapshot.last_tick;
        start_marks[1 - snapshot.timeline as usize] = snapshot.other_timeline_tick;
        Rig::assemble(layout, generator, clock, before, start_marks)
    }

    fn assemble(
        layout: Layout,
        generator: Generator<ManualClock>,
        clock: ManualClock,
        before: Vec<u64>,
        start_marks: [u64; 2],
    ) -> Self {
        let stats_before = generator.stats();
        let race_start = generator.snapshot().timeline;
        Rig {
            layout,
            generator: Arc::new(generator),
            clock,
            before,
            start_marks,
            stats_before,
            race_start,
        }
    }

    /// Setup: sets the clock to `tick` and mints, which must give an ID at `tick` on
    /// `timeline`.
    fn mint_at(&mut self, tick: u64, timeline: u64) {
        self.clock.set(tick_ms(&self.layout, tick));
        let id = self.generator.mint().expect("setup mint").to_u64();
        let m = minted(&self.layout, id);
        assert_eq!((m.tick, m.timeline), (tick, timeline), "setup mint {m:?}");
        self.before.push(id);
        self.stats_before = self.generator.stats();
        self.race_start = timeline;
    }

    /// Runs the race: one thread per script, each step in order.
    fn race(&self, scripts: [&'static [Step]; 2]) -> Vec<Vec<Result<Id, Error>>> {
        let handles: Vec<_> = scripts
            .into_iter()
            .map(|script| {
                let generator = self.generator.clone();
                let clock = self.clock.clone();
                let layout = self.layout;
                thread::spawn(move || {
                    let mut results = Vec::new();
                    for step in script {
                        match *step {
                            Step::Set(tick) => clock.set(tick_ms(&layout, tick)),
                            Step::Mint => results.push(generator.mint()),
                        }
                    }
                    results
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    }
}

/// What a race produced, once [`check`] has accepted it.
#[derive(Debug)]
struct Outcome {
    /// Every ID the race minted.
    ids: Vec<Minted>,
    /// How far behind the clock read, for each `Error::ClockBehind`.
    behind_ms: Vec<u64>,
    /// Toggles during the race.
    toggles: u64,
    /// Regressions during the race.
    regressions: u64,
}

/// Each list's IDs strictly increase within each timeline.
fn assert_increasing_per_timeline(layout: &Layout, lists: &[Vec<u64>]) {
    for (i, ids) in lists.iter().enumerate() {
        for timeline in 0..2 {
            let on: Vec<u64> = ids
                .iter()
                .copied()
                .filter(|&id| minted(layout, id).timeline == timeline)
                .collect();
            assert!(
                on.windows(2).all(|w| w[0] < w[1]),
                "list {i}'s ids on timeline {timeline} do not strictly increase: {lists:?}"
            );
        }
    }
}

/// The common checks (see the module docs); `allowed(tick, timeline)` says where an ID of the
/// race may sit.
fn check(
    rig: &Rig,
    results: &[Vec<Result<Id, Error>>],
    allowed: impl Fn(u64, u64) -> bool,
) -> Outcome {
    let layout = &rig.layout;

    // Only IDs and ClockBehind.
    let mut behind_ms = Vec::new();
    let per_thread: Vec<Vec<u64>> = results
        .iter()
        .map(|results| {
            results
                .iter()
                .filter_map(|result| match result {
                    Ok(id) => Some(id.to_u64()),
                    Err(Error::ClockBehind {
                        behind_ms: ms,
                        max_wait_ms: 0,
                        ..
                    }) if *ms > 0 => {
                        behind_ms.push(*ms);
                        None
                    }
                    Err(other) => panic!("unexpected error {other:?}: {results:?}"),
                })
                .collect()
        })
        .collect();

    // Unique across the setup and the race.
    let race: Vec<u64> = per_thread.iter().flatten().copied().collect();
    let mut seen = HashSet::new();
    for &id in rig.before.iter().chain(&race) {
        assert!(
            seen.insert(id),
            "id {:?} minted twice: before {:?}, race {per_thread:?}",
            minted(layout, id),
            rig.before
        );
    }

    // Increasing within each timeline, per thread and in the setup.
    let mut lists = per_thread.clone();
    lists.push(rig.before.clone());
    assert_increasing_per_timeline(layout, &lists);

    // Each race ID where the model allows it, above the setup's IDs on its timeline.
    let ids: Vec<Minted> = race.iter().map(|&id| minted(layout, id)).collect();
    let before: Vec<Minted> = rig.before.iter().map(|&id| minted(layout, id)).collect();
    for m in &ids {
        assert!(
            allowed(m.tick, m.timeline),
            "{m:?} is at a tick the clock never showed or on a timeline that may not mint it: \
             {ids:?}"
        );
        for b in before.iter().filter(|b| b.timeline == m.timeline) {
            assert!(
                m.id > b.id,
                "{m:?} is not above {b:?}, minted on its timeline before the race"
            );
        }
    }

    // Counters.
    let stats = rig.generator.stats();
    assert_eq!((stats.overflows, stats.waits), (0, 0), "{stats:?}");
    let toggles = stats.toggles - rig.stats_before.toggles;
    let regressions = stats.regressions - rig.stats_before.regressions;
    assert!(
        toggles + behind_ms.len() as u64 <= regressions,
        "{toggles} toggles and {} errors from {regressions} regressions",
        behind_ms.len()
    );
    assert_eq!(
        toggles > 0,
        ids.iter().any(|m| m.timeline != rig.race_start),
        "race toggles {toggles}, ids {ids:?}"
    );
    let all: Vec<Minted> = before.iter().chain(&ids).copied().collect();
    assert_eq!(
        stats.toggles > 0,
        all.iter().any(|m| m.timeline == 1),
        "{stats:?}, ids {all:?}"
    );

    // The snapshot: the greatest ID of its timeline, and the other timeline's exact mark.
    let snapshot = rig.generator.snapshot();
    let timeline = snapshot.timeline;
    let other = 1 - timeline as usize;
    let last = all
        .iter()
        .filter(|m| m.timeline == timeline)
        .max_by_key(|m| m.id)
        .expect("the generator's timeline has minted");
    assert_eq!(
        (snapshot.last_tick, snapshot.sequence),
        (last.tick, last.sequence),
        "{snapshot:?} vs {all:?}"
    );
    let other_max = all
        .iter()
        .filter(|m| m.timeline as usize == other)
        .map(|m| m.tick)
        .max()
        .unwrap_or(0)
        .max(rig.start_marks[other]);
    assert_eq!(
        snapshot.other_timeline_tick, other_max,
        "{snapshot:?} vs {all:?}"
    );

    // With the clock ahead of everything, the next mint tops its timeline.
    rig.clock.set(tick_ms(layout, AFTER_TICK));
    let next = minted(
        layout,
        rig.generator.mint().expect("mint after the race").to_u64(),
    );
    assert_eq!(
        (next.tick, next.timeline, next.sequence),
        (AFTER_TICK, timeline, 0)
    );

    Outcome {
        ids,
        behind_ms,
        toggles,
        regressions,
    }
}

/// Model 1: a regression races a normal mint.
///
/// The generator minted at tick 11 on timeline 0. Thread A sets the clock back to tick 10 and
/// mints; thread B mints twice, reading tick 11 (before A's set) or 10. Exactly one mint
/// toggles to timeline 1 at tick 10 (A's, or B's if B read 10 first), and no mint fails. B may
/// mint at 11 on timeline 0 before the toggle. A reading is used only on the timeline of the
/// state it was read after: if B read 11 and lost its CAS to the toggle, it reads the clock
/// again (10: it has acquired the toggle, made after A's set) and mints at 10 on timeline 1,
/// never at 11 there (which would carry timeline 1 up to a time from before the step back).
/// Never at 10 on timeline 0 either.
#[test]
fn regression_races_a_normal_mint() {
    model(|| {
        let mut rig = Rig::new(11);
        rig.mint_at(11, 0);
        let results = rig.race([&[Step::Set(10), Step::Mint], &[Step::Mint, Step::Mint]]);
        let out = check(&rig, &results, |tick, timeline| {
            matches!((tick, timeline), (11, 0) | (10, 1))
        });
        assert!(out.behind_ms.is_empty(), "{results:?}");
        assert_eq!(out.toggles, 1, "{out:?}");
        assert!(
            out.ids
                .iter()
                .any(|m| (m.tick, m.timeline, m.sequence) == (10, 1, 0)),
            "no toggle ID: {out:?}"
        );
    });
}

/// Model 2: both threads see the regression.
///
/// The generator minted at tick 11 on timeline 0 and the clock is set back to 10 before the
/// threads start; each mints twice. Exactly the first CAS toggles; the other thread's failed
/// toggle re-reads the clock, finds the state on timeline 1 at tick 10 and mints the next
/// sequence there. All four IDs sit on timeline 1 at tick 10, sequences 0 to 3.
#[test]
fn both_threads_see_the_regression() {
    model(|| {
        let mut rig = Rig::new(11);
        rig.mint_at(11, 0);
        rig.clock.set(tick_ms(&rig.layout, 10));
        let results = rig.race([&[Step::Mint, Step::Mint], &[Step::Mint, Step::Mint]]);
        let out = check(&rig, &results, |tick, timeline| (tick, timeline) == (10, 1));
        assert_eq!(out.toggles, 1, "{out:?}");
        assert!((1..=2).contains(&out.regressions), "{out:?}");
        let mut sequences: Vec<u64> = out.ids.iter().map(|m| m.sequence).collect();
        sequences.sort_unstable();
        assert_eq!(sequences, [0, 1, 2, 3], "{out:?}");
    });
}

/// Model 3: a second regression into time the first timeline has used.
///
/// Setup: timeline 0 mints at ticks 11 and 12; the clock steps back to 10 and the generator
/// toggles to timeline 1 there; the clock returns to 12 and timeline 1 mints at 12 too. In the
/// race, thread A sets the clock to 11 and mints; thread B mints twice. Tick 11 is behind
/// timeline 1's state, and timeline 0 has minted up to 12, so toggling back is not allowed:
/// every mint is `Error::ClockBehind` (1 ms behind tick 12) or the next sequence at tick 12 on
/// timeline 1; never an ID on timeline 0, and no toggle.
#[test]
fn second_regression_into_the_used_range() {
    model(|| {
        let mut rig = Rig::new(11);
        rig.mint_at(11, 0);
        rig.mint_at(12, 0);
        rig.mint_at(10, 1);
        rig.mint_at(12, 1);
        let results = rig.race([&[Step::Set(11), Step::Mint], &[Step::Mint, Step::Mint]]);
        let out = check(&rig, &results, |tick, timeline| (tick, timeline) == (12, 1));
        assert_eq!(out.toggles, 0, "{out:?}");
        assert!(out.behind_ms.iter().all(|&ms| ms == 1), "{out:?}");
        // A reads 11 after its own set, behind tick 12: its mint always fails.
        assert!(!out.behind_ms.is_empty(), "{results:?}");
        assert_eq!(out.ids.len() + out.behind_ms.len(), 3);
    });
}

/// Model 4: toggling back is allowed above the first timeline's mark.
///
/// Setup: timeline 0 mints at ticks 11 and 12; the clock steps back to 10 (toggle to timeline
/// 1), then jumps to 20 (timeline 1 mints there). In the race, thread A sets the clock back to
/// 15 and mints; thread B mints twice. Tick 15 is above 12, timeline 0's mark, so a regression
/// to 15 toggles back to timeline 0, exactly once, and no mint fails. B may mint at 20 on
/// timeline 1 before that; if it read 20 and lost its CAS to the toggle back, it reads the
/// clock again and mints at 15 on timeline 0, never at 20 there.
#[test]
fn toggle_back_above_the_mark() {
    model(|| {
        let mut rig = Rig::new(11);
        rig.mint_at(11, 0);
        rig.mint_at(12, 0);
        rig.mint_at(10, 1);
        rig.mint_at(20, 1);
        let results = rig.race([&[Step::Set(15), Step::Mint], &[Step::Mint, Step::Mint]]);
        let out = check(&rig, &results, |tick, timeline| {
            matches!((tick, timeline), (20, 1) | (15, 0))
        });
        assert_eq!(out.toggles, 1, "{out:?}");
        assert!(
            out.ids
                .iter()
                .any(|m| (m.tick, m.timeline, m.sequence) == (15, 0, 0)),
            "no toggle back: {out:?}"
        );
        assert!(out.behind_ms.is_empty(), "{results:?}");
    });
}

/// Model 5: a generator resumed from a snapshot, on a host whose clock is behind it.
///
/// A generator minted at tick 20 on timeline 0 (twice); its snapshot says so, with nothing on
/// timeline 1. A generator resumed from it with the clock at 15 has two threads mint twice
/// each: the first mint toggles to timeline 1 at 15 and every other follows on that tick, so
/// the four IDs are timeline 1, tick 15, sequences 0 to 3. Afterwards a generator resumed from
/// the new snapshot (timeline 1 at 15, timeline 0 up to 20) with the clock at 14 may not toggle
/// back: the snapshot carried timeline 0's mark.
#[test]
fn resume_behind_the_snapshot() {
    model(|| {
        let layout = tt();
        let old = Rig::new(20);
        let before: Vec<u64> = (0..2)
            .map(|_| old.generator.mint().expect("mint").to_u64())
            .collect();
        let snapshot = old.generator.snapshot();
        let mut expected = Snapshot::at_mark(layout, &[("machine", MACHINE)], None);
        (expected.last_tick, expected.sequence) = (20, 1);
        assert_eq!(snapshot, expected);
        assert_eq!(
            (
                snapshot.timeline,
                snapshot.other_timeline_tick,
                snapshot.sequence_range.clone()
            ),
            (0, 0, 0..=layout.max_sequence())
        );

        let rig = Rig::resumed(&snapshot, 15, before);
        let results = rig.race([&[Step::Mint, Step::Mint], &[Step::Mint, Step::Mint]]);
        let out = check(&rig, &results, |tick, timeline| (tick, timeline) == (15, 1));
        assert_eq!(out.toggles, 1, "{out:?}");
        let mut sequences: Vec<u64> = out.ids.iter().map(|m| m.sequence).collect();
        sequences.sort_unstable();
        assert_eq!(sequences, [0, 1, 2, 3], "{out:?}");

        // `check` minted once more at AFTER_TICK on timeline 1; take the snapshot of that and
        // restart behind it, at 14, before both timelines' marks (timeline 0's 20 included).
        let again = rig.generator.snapshot();
        assert_eq!(
            (again.timeline, again.last_tick, again.other_timeline_tick),
            (1, AFTER_TICK, 20)
        );
        let restarted = Rig::resumed(&again, 14, Vec::new());
        let result = restarted.generator.mint();
        assert!(
            matches!(
                result,
                Err(Error::ClockBehind { behind_ms, .. }) if behind_ms == AFTER_TICK - 14
            ),
            "restarted behind both marks: {result:?}"
        );
        assert_eq!(restarted.generator.stats().toggles, 0);
    });
}

/// Model 6: a toggle races a second regression into the timeline it leaves.
///
/// Setup: timeline 0 mints at ticks 9 and 12. In the race, thread A sets the clock to 10 and
/// mints twice; thread B sets it to 9 and mints twice. Whoever reads the clock behind 12 first
/// toggles to timeline 1 (at 10 or 9); a mint that then reads 9 behind timeline 1's state must
/// not toggle back to timeline 0, which has minted up to 12 (and at 9 already): it fails, 1 ms
/// behind. This is the interleaving the high-water mark's ordering exists for: the mark of the
/// timeline left is raised before the CAS that leaves it, so a thread that sees the new state
/// sees the mark. (Two threads set the clock here, but no assertion depends on the order of
/// their readings; compare model 7.)
#[test]
fn toggle_races_a_second_regression() {
    model(|| {
        let mut rig = Rig::new(9);
        rig.mint_at(9, 0);
        rig.mint_at(12, 0);
        let results = rig.race([
            &[Step::Set(10), Step::Mint, Step::Mint],
            &[Step::Set(9), Step::Mint, Step::Mint],
        ]);
        let out = check(&rig, &results, |tick, timeline| {
            timeline == 1 && (tick == 9 || tick == 10)
        });
        assert_eq!(out.toggles, 1, "{out:?}");
        // The only failure: a read of 9 behind timeline 1's tick 10.
        assert!(out.behind_ms.iter().all(|&ms| ms == 1), "{out:?}");
    });
}

/// Model 7: the clock steps back, forward and back again while another thread mints, so the
/// state toggles to timeline 1 and back to timeline 0 within one race.
///
/// Setup: timeline 0 mints at ticks 11 and 12. In the race, thread A sets the clock back to 10
/// and mints, sets it to 20 and mints, sets it back to 15 and mints; thread B mints twice,
/// reading 12, 10, 20 or 15. The first read behind 12 toggles to timeline 1 at 10; a read of 15
/// behind timeline 1's 20 toggles back to timeline 0 at 15, above its mark of 12: two toggles in
/// every interleaving, by A or by B. A reading is used only on the timeline of the state it was
/// read after: B never follows a toggle at a tick it read before it (12 on timeline 1, 20 on
/// timeline 0), so timeline 0 mints only at 12 and 15 and timeline 1 only at 10 and 20. B may
/// load a stale state at 12 (the memory model allows it: B has not synchronized with A) and
/// read 10: by then timeline 1 may have minted 20, so toggling is refused and B fails, 2 ms
/// behind the 12 it saw; a fresh state (timeline 0 at 15) would have refused too. No other
/// mint fails; A's first two mints always succeed.
///
/// Only A sets the clock: with two threads storing to the `ManualClock`, loom 0.7.2 can let a
/// reading taken after acquiring a state be older than the store that state was minted after,
/// which the C11 model forbids (write-read coherence; see `tokio-rs/loom#282` for the family of
/// modification-order bugs). Uniqueness does not depend on that, but the exact errors here do.
#[test]
fn toggle_there_and_back_in_one_race() {
    model(|| {
        let mut rig = Rig::new(11);
        rig.mint_at(11, 0);
        rig.mint_at(12, 0);
        let results = rig.race([
            &[
                Step::Set(10),
                Step::Mint,
                Step::Set(20),
                Step::Mint,
                Step::Set(15),
                Step::Mint,
            ],
            &[Step::Mint, Step::Mint],
        ]);
        let out = check(&rig, &results, |tick, timeline| {
            matches!((tick, timeline), (12, 0) | (15, 0) | (10, 1) | (20, 1))
        });
        assert_eq!(out.toggles, 2, "{out:?}");
        assert!(out.behind_ms.iter().all(|&ms| ms == 2), "{out:?}");
        assert!(
            results[0][0].is_ok() && results[0][1].is_ok(),
            "{results:?}"
        );
    });
}
