//! Loom models of generators of several processes on one `SharedWord`: each "process" is a
//! loom thread that builds a generator of its own on the word
//! (`GeneratorBuilder::build_process_shared`), with a `ManualClock` of its own, and mints.
//!
//! Run from `loom-tests/` with
//!
//! ```text
//! RUSTFLAGS="--cfg snowmint_loom --cfg snowmint_test_hooks" LOOM_MAX_PREEMPTIONS=3 cargo test --release --test process_shared
//! ```
//!
//! The word is `Arc`-shared and every generator borrows it, so the racing threads build their
//! generators themselves: the build (the claim and the join, which raises the word to the
//! generator's start) races the other thread's build and mints as well. The main thread
//! builds the word's first generator and mints with it before the race (the *setup*), and
//! mints once more with it after the race, its clock moved ahead of every tick used.
//!
//! In every interleaving explored the models assert that no ID repeats across the setup and
//! the race, that each thread's IDs strictly increase (within each timeline, under
//! tick-tock), that every ID sits at a `(tick, timeline)` the model allows, and that the last
//! mint tops everything on its timeline. Each model then asserts what is specific to it.
#![cfg(snowmint_loom)]

use std::collections::HashSet;

use loom::sync::Arc;
use loom::thread;

use snowmint::generator::{ProcessShared, SharedWord};
use snowmint::{ClockBehind, Error, Generator, Id, Layout, Snapshot, clock::ManualClock};

mod common;

use common::{AFTER_TICK, MACHINE, Minted, START_TICK, Tally, minted, model, tt};

/// A generator on a shared word, reading a clock of its own.
type Shared<'w> = Generator<ManualClock, ProcessShared<'w>>;

/// Toggle when the other timeline allows it, else fail at once.
const TICK_TOCK: ClockBehind = ClockBehind::TickTock { max_ms: 0 };

/// Unix milliseconds at the start of `layout`'s tick `tick`.
fn tick_ms(layout: &Layout, tick: u64) -> u64 {
    layout.epoch_ms() + tick * layout.tick_ms()
}

/// How a "process" builds its generator: on `layout` with machine [`MACHINE`], or resumed
/// from a snapshot; its clock at the start of `tick`.
#[derive(Clone)]
struct Build {
    layout: Layout,
    policy: ClockBehind,
    resume: Option<Snapshot>,
    tick: u64,
}

impl Build {
    fn new(layout: Layout, policy: ClockBehind, tick: u64) -> Self {
        Build {
            layout,
            policy,
            resume: None,
            tick,
        }
    }

    /// The generator on `word`, and its clock.
    fn on<'w>(&self, word: &'w SharedWord) -> (Shared<'w>, ManualClock) {
        let clock = ManualClock::new(tick_ms(&self.layout, self.tick));
        let builder = match &self.resume {
            Some(snapshot) => Generator::resume(snapshot),
            None => Generator::builder(self.layout).node("machine", MACHINE),
        };
        let generator = builder
            .clock(clock.clone())
            .on_clock_behind(self.policy)
            .build_process_shared(word)
            .expect("the word is claimed by this configuration");
        (generator, clock)
    }
}

/// One step of a racing thread's script.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Set the thread's own clock to the start of this tick.
    Set(u64),
    /// `mint()`.
    Mint,
    /// `try_mint()`.
    TryMint,
}

/// What one racing thread got: each mint's result, and its generator's toggle count.
#[derive(Debug)]
struct Ran {
    results: Vec<Result<Id, Error>>,
    toggles: u64,
}

/// Spawns a "process": a thread that builds its own generator on `word` as `build` says and
/// runs `script`.
fn spawn(
    word: &Arc<SharedWord>,
    build: &Build,
    script: &'static [Step],
) -> thread::JoinHandle<Ran> {
    let (word, build) = (word.clone(), build.clone());
    thread::spawn(move || {
        let (generator, clock) = build.on(&word);
        let mut results = Vec::new();
        for step in script {
            match *step {
                Step::Set(tick) => clock.set(tick_ms(&build.layout, tick)),
                Step::Mint => results.push(generator.mint()),
                Step::TryMint => results.push(generator.try_mint()),
            }
        }
        Ran {
            results,
            toggles: generator.stats().toggles,
        }
    })
}

/// Races two processes on `word`, one per script; their results, in thread order.
fn race(word: &Arc<SharedWord>, processes: [(&Build, &'static [Step]); 2]) -> [Ran; 2] {
    let handles = processes.map(|(build, script)| spawn(word, build, script));
    handles.map(|h| h.join().unwrap())
}

/// The checks every model shares: `accept` passes each error a model allows (and panics on
/// any other); `allowed(tick, timeline)` says where an ID of the race may sit. No ID repeats
/// across the `setup` and the race; each thread's IDs, and the setup's, strictly increase
/// within each timeline; every race ID on a timeline the setup minted on is above the setup's
/// IDs there. Returns each thread's IDs, decoded.
fn check(
    layout: &Layout,
    setup: &[u64],
    ran: &[Ran; 2],
    mut accept: impl FnMut(usize, &Error),
    allowed: impl Fn(u64, u64) -> bool,
) -> Vec<Vec<Minted>> {
    let per_thread: Vec<Vec<Minted>> = ran
        .iter()
        .enumerate()
        .map(|(thread, ran)| {
            ran.results
                .iter()
                .filter_map(|result| match result {
                    Ok(id) => Some(minted(layout, id.to_u64())),
                    Err(err) => {
                        accept(thread, err);
                        None
                    }
                })
                .collect()
        })
        .collect();
    let setup: Vec<Minted> = setup.iter().map(|&id| minted(layout, id)).collect();

    let mut seen = HashSet::new();
    for m in setup.iter().chain(per_thread.iter().flatten()) {
        assert!(
            seen.insert(m.id),
            "{m:?} minted twice: setup {setup:?}, race {ran:?}"
        );
    }
    for (i, ids) in per_thread.iter().chain([&setup]).enumerate() {
        for timeline in 0..2 {
            let on: Vec<u64> = ids
                .iter()
                .filter(|m| m.timeline == timeline)
                .map(|m| m.id)
                .collect();
            assert!(
                on.windows(2).all(|w| w[0] < w[1]),
                "list {i}'s ids on timeline {timeline} do not strictly increase: {ids:?}"
            );
        }
    }
    for m in per_thread.iter().flatten() {
        assert!(
            allowed(m.tick, m.timeline),
            "{m:?} is at a tick its clock never showed or on a timeline that may not mint it: \
             {per_thread:?}"
        );
        for s in setup.iter().filter(|s| s.timeline == m.timeline) {
            assert!(m.id > s.id, "{m:?} is not above the setup's {s:?}");
        }
    }
    per_thread
}

/// After the race: with the first generator's clock ahead of every tick, its next mint is on
/// the word's timeline, at sequence 0, above every ID minted there.
fn check_next(first: &Shared<'_>, clock: &ManualClock, layout: &Layout, all: &[Minted]) {
    let timeline = first.snapshot().timeline;
    clock.set(tick_ms(layout, AFTER_TICK));
    let next = minted(layout, first.mint().expect("mint after the race").to_u64());
    assert_eq!(
        (next.tick, next.timeline, next.sequence),
        (AFTER_TICK, timeline, 0)
    );
    for m in all.iter().filter(|m| m.timeline == timeline) {
        assert!(next.id > m.id, "{next:?} is not above {m:?}");
    }
}

/// `Error::ClockBehind` with `max_wait_ms` 0, `behind_ms` ms behind.
fn is_behind(err: &Error, ms: u64) -> bool {
    matches!(err, Error::ClockBehind { behind_ms, max_wait_ms: 0, .. } if *behind_ms == ms)
}

/// The plain-layout models: the setup mints one ID at [`START_TICK`], two processes race on
/// their own clocks under `ClockBehind::Error` and scripts `a` and `b`; every error must pass
/// `accept`. Beyond [`check`]: every ID at [`START_TICK`] or the tick after, each tick's
/// sequences the first values of the range with none skipped (one word for all), and the
/// first generator's next mint above everything. Returns each thread's IDs.
fn plain_race(
    a: &'static [Step],
    b: &'static [Step],
    accept: impl FnMut(usize, &Error),
) -> Vec<Vec<Minted>> {
    let layout = common::tiny(4);
    let word = Arc::new(SharedWord::new());
    let build = Build::new(layout, ClockBehind::Error, START_TICK);
    let (first, clock) = build.on(&word);
    let setup = vec![first.mint().expect("setup mint").to_u64()];
    let ran = race(&word, [(&build, a), (&build, b)]);
    let per_thread = check(&layout, &setup, &ran, accept, |tick, _| {
        tick == START_TICK || tick == START_TICK + 1
    });

    let range = 0..=layout.max_sequence();
    let mut tally = Tally::new(&layout, range, &ran);
    for ids in &per_thread {
        tally.thread();
        for m in ids {
            tally.run(&"mint", 1, &[m.id]);
        }
    }
    let checked = tally.check(&setup);
    let all: Vec<Minted> = checked.all.iter().map(|m| minted(&layout, m.id)).collect();
    check_next(&first, &clock, &layout, &all);
    per_thread
}

/// Model 1: two processes, each with its own generator and clock, both on [`START_TICK`],
/// mint two IDs each after the setup's one: five IDs on the tick, sequences 0 to 4, whatever
/// the order of the builds and the mints.
#[test]
fn two_processes_on_one_tick() {
    model(|| {
        let per_thread = plain_race(
            &[Step::Mint, Step::Mint],
            &[Step::Mint, Step::Mint],
            |_, e| panic!("unexpected error {e:?}"),
        );
        let mut sequences: Vec<u64> = per_thread.iter().flatten().map(|m| m.sequence).collect();
        sequences.sort_unstable();
        assert_eq!(sequences, [1, 2, 3, 4], "{per_thread:?}");
    });
}

/// Process A's clock moves to the next tick between its two mints while process B's stays on
/// [`START_TICK`] for its two. A never fails, and its second ID is on the later tick. Each of
/// B's mints is an ID or, under `ClockBehind::Error`, `ClockBehind` 1 ms behind (the word held
/// A's later tick). Returns B's IDs.
fn one_process_moves_to_the_next_tick() -> Vec<Minted> {
    let mut b_failed = 0;
    let per_thread = plain_race(
        &[Step::Mint, Step::Set(START_TICK + 1), Step::Mint],
        &[Step::Mint, Step::Mint],
        |thread, e| {
            assert!(thread == 1 && is_behind(e, 1), "unexpected error {e:?}");
            b_failed += 1;
        },
    );
    let [a, b] = [&per_thread[0], &per_thread[1]];
    assert_eq!(a.len(), 2, "{per_thread:?}");
    assert_eq!(a[1].tick, START_TICK + 1, "{per_thread:?}");
    assert_eq!(b.len() + b_failed, 2, "{per_thread:?}");
    b.clone()
}

/// Model 2: [`one_process_moves_to_the_next_tick`]: no ID repeats and each process's IDs
/// increase, whichever tick each mint finds on the word.
#[test]
fn one_process_moves_to_the_next_tick_and_nothing_repeats() {
    model(|| {
        one_process_moves_to_the_next_tick();
    });
}

/// Model 2b: in the same race, B (whose clock reads [`START_TICK`] throughout, with no
/// borrowing) never mints on A's later tick: a process whose clock reads behind the tick
/// another installed applies its `ClockBehind` policy (`build_process_shared`'s docs), even
/// when it learns of that tick from a compare-and-swap lost in its slow path (which starts
/// over from a fresh reading on a word other clocks write).
#[test]
fn a_process_behind_the_word_never_mints_ahead_of_its_clock() {
    model(|| {
        let b = one_process_moves_to_the_next_tick();
        assert!(
            b.iter().all(|m| m.tick == START_TICK),
            "B minted ahead of its clock (tick {START_TICK}): {b:?}"
        );
    });
}

/// The tick-tock models' checks beyond [`check`]: the word's snapshot after the race holds the
/// other timeline's high-water mark, exactly the highest tick minted there (by any process,
/// setup included), and the first generator's next mint tops its timeline.
fn check_tick_tock(
    layout: &Layout,
    first: &Shared<'_>,
    clock: &ManualClock,
    setup: &[u64],
    race: &[Minted],
) {
    let mut all: Vec<Minted> = setup.iter().map(|&id| minted(layout, id)).collect();
    all.extend(race);
    let snapshot = first.snapshot();
    let other = 1 - snapshot.timeline;
    let other_max = all
        .iter()
        .filter(|m| m.timeline == other)
        .map(|m| m.tick)
        .max()
        .unwrap_or(0);
    assert_eq!(
        snapshot.other_timeline_tick, other_max,
        "{snapshot:?} vs {all:?}"
    );
    check_next(first, clock, layout, &all);
}

/// Model 3: one process's clock steps back while the other's mints ahead.
///
/// Setup: the first generator mints at tick 11 on timeline 0. Process A (clock at 11) sets its
/// clock back to 10 and mints twice; process B (clock at 12) mints twice. A's first mint is
/// always the toggle, to timeline 1 at tick 10, sequence 0 (B never leaves timeline 0 on its
/// own): the word's timeline-1 mark is 0. B mints at 12 on timeline 0 before the toggle, and at
/// 12 on timeline 1 after it (its reading is ahead of the state there). A's second mint follows
/// on timeline 1 at 10, unless B minted at 12 there first: then A is behind and may not toggle
/// back to timeline 0, whose mark is at least 11: it fails, 2 ms behind. Never an ID on
/// timeline 0 at 10.
#[test]
fn a_process_toggles_while_another_mints_ahead() {
    model(|| {
        let layout = tt();
        let word = Arc::new(SharedWord::new());
        let (first, clock) = Build::new(layout, TICK_TOCK, 11).on(&word);
        let setup = vec![first.mint().expect("setup mint").to_u64()];
        let ran = race(
            &word,
            [
                (
                    &Build::new(layout, TICK_TOCK, 11),
                    &[Step::Set(10), Step::Mint, Step::Mint],
                ),
                (
                    &Build::new(layout, TICK_TOCK, 12),
                    &[Step::Mint, Step::Mint],
                ),
            ],
        );
        let per_thread = check(
            &layout,
            &setup,
            &ran,
            |thread, e| {
                assert!(thread == 0 && is_behind(e, 2), "unexpected error {e:?}");
            },
            |tick, timeline| matches!((tick, timeline), (12, 0) | (10, 1) | (12, 1)),
        );
        let toggle = &per_thread[0][0];
        assert_eq!(
            (toggle.tick, toggle.timeline, toggle.sequence),
            (10, 1, 0),
            "{ran:?}"
        );
        assert!(ran[0].results[0].is_ok(), "{ran:?}");
        assert_eq!((ran[0].toggles, ran[1].toggles), (1, 0), "{ran:?}");
        assert!(ran[1].results.iter().all(Result::is_ok), "{ran:?}");
        let race: Vec<Minted> = per_thread.into_iter().flatten().collect();
        check_tick_tock(&layout, &first, &clock, &setup, &race);
    });
}

/// Model 4: the high-water marks are the word's, not a generator's: a process re-enters a
/// timeline only above the mark another process's toggle left there.
///
/// Setup, all by the first generator: timeline 0 at ticks 11 and 12, a step back to 10 (a
/// toggle: timeline 1 at 10, timeline 0's mark 12), then timeline 1 at 20. Processes A and B
/// build fresh generators on the word (marks of their own would be 0). A (clock at 12) mints:
/// it is behind 20 and timeline 0 has minted at 12, so it fails, 8 ms behind; it sets its
/// clock to 15 and mints again: above the mark, a toggle back to timeline 0 at 15. B (clock at
/// 20) mints twice: at 20 on timeline 1 before that toggle, at 20 on timeline 0 after it.
#[test]
fn a_timeline_is_re_entered_only_above_the_words_mark() {
    model(|| {
        let layout = tt();
        let word = Arc::new(SharedWord::new());
        let (first, clock) = Build::new(layout, TICK_TOCK, 11).on(&word);
        let mut setup = Vec::new();
        for tick in [11, 12, 10, 20] {
            clock.set(tick_ms(&layout, tick));
            setup.push(first.mint().expect("setup mint").to_u64());
        }
        assert_eq!(minted(&layout, setup[2]).timeline, 1);
        let ran = race(
            &word,
            [
                (
                    &Build::new(layout, TICK_TOCK, 12),
                    &[Step::Mint, Step::Set(15), Step::Mint],
                ),
                (
                    &Build::new(layout, TICK_TOCK, 20),
                    &[Step::Mint, Step::Mint],
                ),
            ],
        );
        let per_thread = check(
            &layout,
            &setup,
            &ran,
            |thread, e| {
                assert!(thread == 0 && is_behind(e, 8), "unexpected error {e:?}");
            },
            |tick, timeline| matches!((tick, timeline), (20, 1) | (15, 0) | (20, 0)),
        );
        assert!(
            is_behind(ran[0].results[0].as_ref().unwrap_err(), 8),
            "{ran:?}"
        );
        let back = minted(&layout, ran[0].results[1].as_ref().unwrap().to_u64());
        assert_eq!((back.tick, back.timeline, back.sequence), (15, 0, 0));
        assert_eq!((ran[0].toggles, ran[1].toggles), (1, 0), "{ran:?}");
        assert_eq!(per_thread[1].len(), 2, "{ran:?}");
        let race: Vec<Minted> = per_thread.into_iter().flatten().collect();
        check_tick_tock(&layout, &first, &clock, &setup, &race);
    });
}

/// Model 5: two processes resume the same fresh word from one mark, racing to claim it, to
/// raise it and to mint.
///
/// Both resume from `Snapshot::at_mark` at tick 12 (as every process resumes from one mark
/// file): whichever claims the word, the other joins it, and each raises the word before it
/// mints. Process A (clock at 13) mints twice; process B (clock at 12, the mark's tick)
/// `try_mint`s, sets its clock to 13 and mints. No ID is at or below the mark: B's first call
/// fails, `SequenceExhausted` on tick 12 (the word holds the mark's full tick) or 1 ms behind
/// (A minted at 13 first), and every ID is at tick 13, sequences 0 to 2.
#[test]
fn two_resumes_race_to_claim_a_fresh_word() {
    model(|| {
        let layout = common::tiny(4);
        let mark_ms = tick_ms(&layout, 12);
        let snapshot = Snapshot::at_mark(layout, &[("machine", MACHINE)], Some(mark_ms));
        let resumed = |tick| Build {
            resume: Some(snapshot.clone()),
            ..Build::new(layout, ClockBehind::Error, tick)
        };
        let word = Arc::new(SharedWord::new());
        assert!(!word.is_claimed());
        let ran = race(
            &word,
            [
                (&resumed(13), &[Step::Mint, Step::Mint]),
                (&resumed(12), &[Step::TryMint, Step::Set(13), Step::Mint]),
            ],
        );
        assert!(word.is_claimed());
        let per_thread = check(
            &layout,
            &[],
            &ran,
            |thread, e| {
                let exhausted = matches!(e, Error::SequenceExhausted { tick: 12, .. });
                assert!(
                    thread == 1 && (exhausted || is_behind(e, 1)),
                    "unexpected error {e:?}"
                );
            },
            |tick, _| tick == 13,
        );
        assert!(ran[1].results[0].is_err(), "{ran:?}");
        let race: Vec<Minted> = per_thread.into_iter().flatten().collect();
        assert!(race.iter().all(|m| m.id > mark_id(&layout, mark_ms)));
        let mut sequences: Vec<u64> = race.iter().map(|m| m.sequence).collect();
        sequences.sort_unstable();
        assert_eq!(sequences, [0, 1, 2], "{ran:?}");

        // A third process, built fresh after the race, continues above everything.
        let (late, late_clock) = Build::new(layout, ClockBehind::Error, 13).on(&word);
        check_next(&late, &late_clock, &layout, &race);
    });
}

/// The greatest ID of the tick holding `mark_ms`: every ID a generator resumed from the mark
/// mints is above it.
fn mark_id(layout: &Layout, mark_ms: u64) -> u64 {
    layout
        .compose(mark_ms, &[("machine", MACHINE)], layout.max_sequence())
        .expect("the mark fits the layout")
        .to_u64()
}
