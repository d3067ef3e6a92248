//! Generators of several processes on one [`SharedWord`]: threads of one process, each with a
//! generator of its own; forked children on a shared mapping; two mappings of one file;
//! claims, resumes, and tick-tock across generators whose clocks step back on their own.

mod common;

use std::cell::Cell;
use std::collections::HashSet;
use std::io::Write;
use std::thread;
use std::time::Duration;

use proptest::prelude::*;

use snowmint::clock::ManualClock;
use snowmint::generator::{ProcessShared, SharedMapping, SharedWord};
use snowmint::{Clock as _, ClockBehind, Error, Generator, Id, Layout, Snapshot};

use common::files::TempDir;
use common::forks::{self, is_forked};
use common::layouts::TT;

/// IDs each minter mints in the stress tests.
const IDS: usize = 20_000;

/// Every ID in `ids` distinct, and each `per_minter` list strictly increasing.
fn assert_unique_and_increasing(per_minter: &[Vec<Id>]) {
    let mut seen = HashSet::new();
    for (minter, ids) in per_minter.iter().enumerate() {
        for pair in ids.windows(2) {
            assert!(
                pair[0] < pair[1],
                "minter {minter}: {} then {}",
                pair[0],
                pair[1]
            );
        }
        for id in ids {
            assert!(seen.insert(*id), "{id} minted twice");
        }
    }
}

#[test]
fn generators_of_their_own_on_one_word_mint_unique_ids_across_threads() {
    let word = SharedWord::new();
    let per_thread: Vec<Vec<Id>> = thread::scope(|s| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    let generator = Generator::builder(Layout::TWITTER)
                        .node("machine", 3)
                        .build_process_shared(&word)
                        .unwrap();
                    (0..IDS).map(|_| generator.mint().unwrap()).collect()
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    assert_unique_and_increasing(&per_thread);
    assert_eq!(per_thread.iter().map(Vec::len).sum::<usize>(), 4 * IDS);
}

#[test]
fn a_word_claimed_by_another_configuration_is_refused() {
    let word = SharedWord::new();
    let claimed = Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .build_process_shared(&word)
        .unwrap();
    claimed.mint().unwrap();
    for (what, other) in [
        (
            "another node",
            Generator::builder(Layout::TWITTER)
                .node("machine", 2)
                .build_process_shared(&word),
        ),
        (
            "another layout",
            Generator::builder(Layout::DISCORD)
                .default_nodes()
                .build_process_shared(&word),
        ),
        (
            "another sequence range",
            Generator::builder(Layout::TWITTER)
                .node("machine", 1)
                .sequence_range(0..=99)
                .build_process_shared(&word),
        ),
    ] {
        let err = other.expect_err(what);
        assert!(
            matches!(err, Error::SharedWordClaimed { .. }),
            "{what}: {err:?}"
        );
        let message = err.to_string();
        assert!(
            message.contains("claimed by a generator of another layout, node or sequence range"),
            "{what}: {message}"
        );
    }
    // The same configuration joins.
    let same = Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .build_process_shared(&word)
        .unwrap();
    let before = claimed.mint().unwrap();
    assert!(same.mint().unwrap() > before);
}

#[test]
fn a_resume_raises_the_word_and_never_lowers_it() {
    let start = Layout::TWITTER.epoch_ms() + 1_000;
    let word = SharedWord::new();
    let clock = ManualClock::new(start);
    let first = Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .clock(&clock)
        .build_process_shared(&word)
        .unwrap();
    let before = first.mint().unwrap();
    // A snapshot 500 ticks ahead of the clock: the word is raised to it, and a mint at the
    // clock's time is behind it.
    let ahead = Snapshot::at_mark(Layout::TWITTER, &[("machine", 1)], Some(start + 500));
    let resumed = Generator::resume(&ahead)
        .clock(&clock)
        .on_clock_behind(ClockBehind::Error)
        .build_process_shared(&word)
        .unwrap();
    assert!(matches!(first.try_mint(), Err(Error::ClockBehind { .. })));
    clock.set(start + 501);
    let after = resumed.mint().unwrap();
    assert!(after > before);
    assert_eq!(
        Layout::TWITTER.decode(after).unwrap().unix_ms(),
        start + 501
    );
    // A snapshot behind the word leaves it where it is.
    let behind = Snapshot::at_mark(Layout::TWITTER, &[("machine", 1)], Some(start + 10));
    let late = Generator::resume(&behind)
        .clock(&clock)
        .build_process_shared(&word)
        .unwrap();
    assert!(late.mint().unwrap() > after);
}

#[test]
fn a_forked_child_builds_its_own_generator_on_a_shared_mapping_and_repeats_nothing() {
    let parent = std::process::id();
    let mapping = SharedMapping::anonymous().unwrap();
    let build = || {
        Generator::builder(Layout::TWITTER)
            .node("machine", 5)
            .build_process_shared(&mapping)
    };
    let inherited = build().unwrap();
    let mut parent_ids = vec![inherited.mint().unwrap()];
    let children: Vec<_> = (0..2)
        .map(|_| {
            forks::fork(|out| {
                is_forked("mint", inherited.mint(), "process-shared Generator", parent)?;
                let own = build().map_err(|e| e.to_string())?;
                for _ in 0..IDS {
                    let id = own.mint().map_err(|e| e.to_string())?;
                    writeln!(out, "{id}").map_err(|e| e.to_string())?;
                }
                Ok(())
            })
        })
        .collect();
    // The parent mints while its children do.
    parent_ids.extend((0..IDS).map(|_| inherited.mint().unwrap()));
    let mut per_minter = vec![parent_ids];
    for child in children {
        let ended = child.wait(Duration::from_secs(30));
        ended.success().unwrap();
        let ids: Vec<Id> = ended.output.lines().map(|l| l.parse().unwrap()).collect();
        assert_eq!(ids.len(), IDS);
        // Every child minted after the parent's first ID (the word it found).
        assert!(ids[0] > per_minter[0][0]);
        per_minter.push(ids);
    }
    assert_unique_and_increasing(&per_minter);
    // The parent goes on above everything.
    let last = inherited.mint().unwrap();
    assert!(per_minter.iter().flatten().all(|id| *id < last));
}

#[test]
fn two_mappings_of_one_file_are_one_word_and_a_wrong_file_is_refused() {
    let dir = TempDir::new("process-shared-file");
    let path = dir.join("word");
    let a = SharedMapping::open(&path).unwrap();
    let b = SharedMapping::open(&path).unwrap();
    fn build(word: &SharedWord) -> Generator<snowmint::clock::CachedClock, ProcessShared<'_>> {
        Generator::builder(Layout::TWITTER)
            .node("machine", 1)
            .build_process_shared(word)
            .unwrap()
    }
    let (ga, gb) = (build(&a), build(&b));
    let mut ids: Vec<Id> = Vec::new();
    for _ in 0..1_000 {
        ids.push(ga.mint().unwrap());
        ids.push(gb.mint().unwrap());
    }
    assert_unique_and_increasing(&[ids]);
    drop((ga, gb));
    drop((a, b));
    // The word outlives its mappings: a new one continues.
    let c = SharedMapping::open(&path).unwrap();
    assert!(c.is_claimed());

    let wrong = dir.join("wrong");
    std::fs::write(&wrong, b"not a word").unwrap();
    let err = SharedMapping::open(&wrong).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
    let message = err.to_string();
    assert!(
        message.starts_with("cannot size ") && message.contains("expected a shared word's 64"),
        "{message}"
    );
}

/// A clock that always reads `ms`, and runs `hook(n)` before its `n`th reading (from 1).
struct Hooked<F: Fn(u32)> {
    ms: u64,
    reads: Cell<u32>,
    hook: F,
}

impl<F: Fn(u32)> snowmint::Clock for Hooked<F> {
    fn unix_ms(&self) -> u64 {
        let n = self.reads.get() + 1;
        self.reads.set(n);
        (self.hook)(n);
        self.ms
    }
}

/// A generator whose clock reads behind a tick another generator installed applies its
/// `ClockBehind` policy, also when it learns of that tick from a swap lost in its slow path:
/// with its own clock, another generator's tick is not a time it has read.
#[test]
fn a_generator_behind_the_word_fails_rather_than_mint_on_a_tick_it_lost_a_swap_to() {
    let layout = Layout::TWITTER;
    let t10 = layout.epoch_ms() + 10;
    let word = SharedWord::new();
    let on = |clock: ManualClock| {
        Generator::builder(layout)
            .node("machine", 1)
            .clock(clock)
            .on_clock_behind(ClockBehind::Error)
            .build_process_shared(&word)
            .unwrap()
    };
    // C reads tick 10, as B does; A reads tick 11, an hour ahead of both.
    let c = on(ManualClock::new(t10));
    let a = on(ManualClock::new(t10 + 3_600_000));
    c.mint().unwrap();
    // During B's first reading (its fast path, after its load) C mints on tick 10, so B's
    // swap loses; during its second (its slow path, after its load) A mints an hour ahead,
    // so B's slow swap loses to a tick B's clock has not shown.
    let b = Generator::builder(layout)
        .node("machine", 1)
        .clock(Hooked {
            ms: t10,
            reads: Cell::new(0),
            hook: |n| match n {
                1 => drop(c.mint().unwrap()),
                2 => drop(a.mint().unwrap()),
                _ => {}
            },
        })
        .on_clock_behind(ClockBehind::Error)
        .build_process_shared(&word)
        .unwrap();
    match b.try_mint() {
        Ok(id) => panic!(
            "B minted {id} at {} ms, ahead of its clock ({t10} ms), under ClockBehind::Error",
            layout.decode(id).unwrap().unix_ms()
        ),
        Err(err) => assert!(
            matches!(
                err,
                Error::ClockBehind {
                    behind_ms: 3_600_000,
                    ..
                }
            ),
            "{err:?}"
        ),
    }
    assert_eq!(b.stats().regressions, 1);
}

/// One step of the tick-tock model: which generator mints, after moving its clock by `delta`
/// milliseconds (negative: a step back).
#[derive(Debug, Clone)]
struct Step {
    minter: usize,
    delta: i64,
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        (
            0..2usize,
            prop_oneof![4 => Just(0i64), 3 => 1..5i64, 2 => -8..0i64],
        )
            .prop_map(|(minter, delta)| Step { minter, delta }),
        1..200,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Two generators on one word, each with a clock of its own that steps forward and back on
    /// its own, under the tick-tock policy: whatever the readings, no ID repeats, and each
    /// generator's IDs increase within each timeline.
    #[test]
    fn tick_tock_across_generators_with_clocks_of_their_own_repeats_nothing(steps in steps()) {
        let word = SharedWord::new();
        let start = TT.epoch_ms() + 100;
        let clocks = [ManualClock::new(start), ManualClock::new(start)];
        let generators: Vec<_> = clocks
            .iter()
            .map(|clock| {
                Generator::builder(TT)
                    .node("machine", 1)
                    .clock(clock)
                    .on_clock_behind(ClockBehind::TickTock { max_ms: 0 })
                    .build_process_shared(&word)
                    .unwrap()
            })
            .collect();
        let mut seen = HashSet::new();
        let mut last: [[Option<Id>; 2]; 2] = [[None; 2]; 2];
        for step in steps {
            let clock = &clocks[step.minter];
            let now = clock.unix_ms() as i64 + step.delta;
            clock.set(now.max(start as i64 - 50) as u64);
            match generators[step.minter].try_mint() {
                Ok(id) => {
                    prop_assert!(seen.insert(id), "{} minted twice", id);
                    let timeline = (id.to_u64() >> 21 & 1) as usize;
                    if let Some(previous) = last[step.minter][timeline] {
                        prop_assert!(previous < id, "{} after {}", id, previous);
                    }
                    last[step.minter][timeline] = Some(id);
                }
                Err(Error::ClockBehind { .. }) => {}
                Err(other) => prop_assert!(false, "unexpected {:?}", other),
            }
        }
    }
}
