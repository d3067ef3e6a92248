//! Loom models of `Generator`'s lock-free mint path.
//!
//! Run from `loom-tests/` with
//!
//! ```text
//! RUSTFLAGS="--cfg snowmint_loom --cfg snowmint_test_hooks" LOOM_MAX_PREEMPTIONS=3 cargo test --release
//! ```
//!
//! With `--cfg snowmint_loom`, snowmint itself takes its atomics, `Arc`, spin hint and `Backoff` from
//! loom (see `src/sync.rs`), so loom explores every interleaving of the generator's state word
//! and of the `ManualClock`'s reading (up to the preemption bound; 3 when the environment does
//! not set `LOOM_MAX_PREEMPTIONS`).
//!
//! Every model checks, in every interleaving explored, that every minted ID is unique and that
//! each thread's own IDs strictly increase. Each model also mints once more on the main thread
//! after joining the others and checks that this ID is greater than all of theirs (a mint
//! follows everything that happened before it). The models whose clock only moves forward use
//! `ClockBehind::Error`, so a stale clock read after observing a newer state (which the
//! generator's Acquire/Release orderings rule out) would surface as a failed mint.
#![cfg(snowmint_loom)]

use std::collections::HashSet;

use loom::sync::Arc;
use loom::sync::mpsc;
use loom::thread;

use snowmint::{ClockBehind, Error, Generator, Id, Layout, clock::ManualClock};

mod common;

use common::model;

/// The clock's start in `layout`'s ticks: a few ticks past the epoch, since generators never
/// mint in the epoch's own tick.
const START_TICK: u64 = 10;

/// Unix milliseconds at the start of `layout`'s tick `tick`.
fn tick_ms(layout: &Layout, tick: u64) -> u64 {
    layout.epoch_ms() + tick * layout.tick_ms()
}

/// 2 IDs per tick: a 1-bit sequence, a 1 ms tick, from [`common::EPOCH_MS`] (so the clock's
/// readings take the fast path).
fn tiny() -> Layout {
    Layout::builder("tiny", 64)
        .time(63)
        .sequence(1)
        .epoch_ms(common::EPOCH_MS)
        .build()
        .expect("valid layout")
}

/// A generator on `layout` (with machine 1, if the layout has a machine field) reading a
/// `ManualClock` set to the start of `start_tick`, and a clone of its clock.
fn generator(
    layout: Layout,
    start_tick: u64,
    on_behind: ClockBehind,
) -> (Arc<Generator<ManualClock>>, ManualClock) {
    let clock = ManualClock::new(tick_ms(&layout, start_tick));
    let mut builder = Generator::builder(layout);
    for field in layout.node_fields() {
        builder = builder.node(field.name(), 1);
    }
    let generator = builder
        .clock(clock.clone())
        .on_clock_behind(on_behind)
        .build()
        .expect("valid generator");
    (Arc::new(generator), clock)
}

/// Spawns a thread that mints `n` IDs with `mint()`, each of which must succeed.
fn spawn_minter(generator: &Arc<Generator<ManualClock>>, n: usize) -> thread::JoinHandle<Vec<u64>> {
    let generator = generator.clone();
    thread::spawn(move || {
        (0..n)
            .map(|_| generator.mint().expect("mint").to_u64())
            .collect()
    })
}

/// Each thread's IDs strictly increase.
fn assert_each_increasing(per_thread: &[Vec<u64>]) {
    for (thread, ids) in per_thread.iter().enumerate() {
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "thread {thread}'s ids do not strictly increase: {ids:?}"
        );
    }
}

/// No ID appears twice, across all threads; returns them all.
fn assert_all_unique(per_thread: &[Vec<u64>]) -> Vec<u64> {
    let all: Vec<u64> = per_thread.iter().flatten().copied().collect();
    let mut seen = HashSet::new();
    for &id in &all {
        assert!(seen.insert(id), "id {id} minted twice: {per_thread:?}");
    }
    all
}

/// Mints once more (the other threads are joined) and checks the ID is above all of `all`.
fn assert_next_is_greatest(generator: &Generator<ManualClock>, all: &[u64]) {
    let next = generator.mint().expect("mint after join").to_u64();
    if let Some(&max) = all.iter().max() {
        assert!(next > max, "id {next} minted after join is not above {max}");
    }
}

/// Each thread's minted IDs, passing every error to `check` (which panics on an unexpected one).
fn ids_checking_errors(
    results: &[Vec<Result<Id, Error>>],
    mut check: impl FnMut(&Error),
) -> Vec<Vec<u64>> {
    results
        .iter()
        .map(|results| {
            results
                .iter()
                .filter_map(|result| match result {
                    Ok(id) => Some(id.to_u64()),
                    Err(error) => {
                        check(error);
                        None
                    }
                })
                .collect()
        })
        .collect()
}

/// The tick of `id` under `layout`.
fn tick_of(layout: &Layout, id: u64) -> u64 {
    layout.decode(Id::from_u64(id)).expect("id fits").ticks()
}

/// `threads` threads mint `per_thread` IDs each on a fixed clock: one tick, so the sequences
/// are exactly `0..threads * per_thread` and every ID carries the node.
fn fixed_clock(threads: usize, per_thread: usize) {
    model(move || {
        let layout = Layout::TWITTER;
        let (generator, _clock) = generator(layout, START_TICK, ClockBehind::Error);
        let handles: Vec<_> = (0..threads)
            .map(|_| spawn_minter(&generator, per_thread))
            .collect();
        let per_thread_ids: Vec<Vec<u64>> =
            handles.into_iter().map(|h| h.join().unwrap()).collect();

        assert_each_increasing(&per_thread_ids);
        let all = assert_all_unique(&per_thread_ids);
        let mut sequences: Vec<u64> = all
            .iter()
            .map(|&id| {
                let parts = layout.decode(Id::from_u64(id)).unwrap();
                assert_eq!(parts.ticks(), START_TICK);
                assert_eq!(parts.node("machine"), Some(1));
                parts.sequence()
            })
            .collect();
        sequences.sort_unstable();
        let expected: Vec<u64> = (0..(threads * per_thread) as u64).collect();
        assert_eq!(sequences, expected);
        assert_next_is_greatest(&generator, &all);
    });
}

/// Model 1: two threads mint two IDs each on a fixed clock.
#[test]
fn two_threads_two_ids_fixed_clock() {
    fixed_clock(2, 2);
}

/// Model 2: three threads mint one ID each on a fixed clock.
#[test]
fn three_threads_one_id_fixed_clock() {
    fixed_clock(3, 1);
}

/// Model 3: two threads mint two IDs each while a third advances the clock by one tick.
///
/// The clock only moves forward, and the policy is `ClockBehind::Error`: a mint that saw
/// another thread's newer tick and then read the clock stale would fail, and `spawn_minter`
/// would panic.
#[test]
fn tick_changes_mid_race() {
    model(|| {
        let layout = Layout::TWITTER;
        let (generator, clock) = generator(layout, START_TICK, ClockBehind::Error);
        let minters: Vec<_> = (0..2).map(|_| spawn_minter(&generator, 2)).collect();
        let advancer = {
            let clock = clock.clone();
            thread::spawn(move || clock.advance(layout.tick_ms()))
        };
        let per_thread: Vec<Vec<u64>> = minters.into_iter().map(|h| h.join().unwrap()).collect();
        advancer.join().unwrap();

        assert_each_increasing(&per_thread);
        let all = assert_all_unique(&per_thread);
        assert_eq!(all.len(), 4);
        for &id in &all {
            let tick = tick_of(&layout, id);
            assert!(
                tick == START_TICK || tick == START_TICK + 1,
                "id {id} has tick {tick}, which the clock never showed"
            );
        }
        assert_next_is_greatest(&generator, &all);
    });
}

/// The race of models 3b and 3c on `layout`: the main thread mints once (confirming tick 10),
/// then two threads mint `per_thread` IDs each while a third advances the clock by one tick.
/// The generator, and each minting thread's IDs followed by the main thread's one.
fn race_after_a_confirm(
    layout: Layout,
    per_thread: usize,
) -> (Arc<Generator<ManualClock>>, Vec<Vec<u64>>) {
    let (generator, clock) = generator(layout, START_TICK, ClockBehind::Error);
    let confirmed = generator.mint().expect("the confirming mint").to_u64();
    let minters: Vec<_> = (0..2)
        .map(|_| spawn_minter(&generator, per_thread))
        .collect();
    let advancer = thread::spawn(move || clock.advance(layout.tick_ms()));
    let mut ids: Vec<Vec<u64>> = minters.into_iter().map(|h| h.join().unwrap()).collect();
    advancer.join().unwrap();
    ids.push(vec![confirmed]);
    (generator, ids)
}

/// Model 3b: the main thread's mint confirms tick 10 before two threads mint two IDs each
/// while a third advances the clock by one tick. Each thread's first mint on the confirmed
/// tick is a confirmed step (a compare of the reading with the confirmed tick, a compare of
/// the word against that tick's last ID, the compare-and-swap), racing the other thread's and
/// the next tick's swap and confirm: a step that loaded the old limit after the next tick's
/// swap must lose its own swap, and no ID may repeat, go back on a thread, or carry a tick the
/// clock never showed.
#[test]
fn confirmed_steps_race_the_next_tick_s_confirm() {
    model(|| {
        let layout = Layout::TWITTER;
        let (generator, per_thread) = race_after_a_confirm(layout, 2);
        let confirmed = per_thread[2][0];
        assert!(per_thread[..2].iter().flatten().all(|&id| id > confirmed));

        assert_each_increasing(&per_thread);
        let all = assert_all_unique(&per_thread);
        assert_eq!(all.len(), 5);
        for &id in &all {
            let parts = layout.decode(Id::from_u64(id)).unwrap();
            assert!(
                parts.ticks() == START_TICK || parts.ticks() == START_TICK + 1,
                "id {id} has tick {}, which the clock never showed",
                parts.ticks()
            );
            assert_eq!(parts.node("machine"), Some(1));
        }
        assert_next_is_greatest(&generator, &all);
    });
}

/// Model 3c: 2 IDs per tick. The main thread's mint confirms tick 10 with its sequence 0, and
/// two threads mint one ID each while a third advances the clock: one step may take the
/// confirmed tick's last ID, and the other thread must find the tick full at its limit (never
/// step past it, into the next tick's first ID) and wait for the next tick.
#[test]
fn a_confirmed_step_stops_at_the_tick_s_last_id() {
    model(|| {
        let layout = tiny();
        let (generator, per_thread) = race_after_a_confirm(layout, 1);

        let all = assert_all_unique(&per_thread);
        assert_eq!(all.len(), 3);
        let in_first = all
            .iter()
            .filter(|&&id| tick_of(&layout, id) == START_TICK)
            .count();
        assert!(in_first <= 2, "{in_first} IDs on a tick of 2: {all:?}");
        for &id in &all {
            let tick = tick_of(&layout, id);
            assert!(
                tick == START_TICK || tick == START_TICK + 1,
                "id {id} has tick {tick}, which the clock never showed"
            );
        }
        // The clock stays on the next tick: one more mint fits exactly when it is not full.
        if all.len() - in_first < 2 {
            assert_next_is_greatest(&generator, &all);
        } else {
            assert!(matches!(
                generator.try_mint(),
                Err(Error::SequenceExhausted { tick, .. }) if tick == START_TICK + 1
            ));
        }
    });
}

/// Model 4: 2 IDs per tick, two threads mint three IDs with `mint()` (two and one), waiting out
/// full ticks, while a third thread advances the clock twice.
///
/// The first advance comes at any point of the race; the second once some mint has returned.
/// Every interleaving then terminates: after the second advance at most 2 IDs are still wanted,
/// and the tick it opens, which the clock never showed before, holds 2. (With two unconditional
/// advances, both could run before any mint and leave only the last tick's 2 IDs for all the
/// mints, and a waiter would spin forever.)
///
/// Why three mints and not four: loom lets a yielding thread hand over to any other thread
/// without counting a preemption, so two threads waiting at once can yield to each other
/// forever while the thread they wait for never runs, and the model exceeds loom's branch
/// limit. With 2 + 1 mints at most one thread ever waits: both waiting would need the tick full
/// of 2 IDs while neither thread has finished, but then the 2-mint thread has at most 1 and
/// the other 0. For the same reason the advancer does not spin either: it blocks on a channel
/// (which orders only minter before advancer, never one minter before the other).
#[test]
fn sequence_overflow_waits_for_next_tick() {
    model(|| {
        let layout = tiny();
        let (generator, clock) = generator(layout, START_TICK, ClockBehind::Error);
        let (minted_tx, minted_rx) = mpsc::channel::<()>();
        let minters: Vec<_> = [2, 1]
            .into_iter()
            .map(|n| {
                let generator = generator.clone();
                let minted_tx = minted_tx.clone();
                thread::spawn(move || {
                    let mut ids = Vec::new();
                    for _ in 0..n {
                        ids.push(generator.mint().expect("mint").to_u64());
                        if ids.len() == 1 {
                            minted_tx.send(()).unwrap();
                        }
                    }
                    ids
                })
            })
            .collect();
        drop(minted_tx);
        let advancer = {
            let clock = clock.clone();
            thread::spawn(move || {
                clock.advance(layout.tick_ms());
                // Some mint has returned: at most 2 IDs are still wanted.
                minted_rx.recv().unwrap();
                clock.advance(layout.tick_ms());
                // Drain the other minter's message.
                minted_rx.recv().unwrap();
            })
        };
        let per_thread: Vec<Vec<u64>> = minters.into_iter().map(|h| h.join().unwrap()).collect();
        advancer.join().unwrap();

        assert_each_increasing(&per_thread);
        let all = assert_all_unique(&per_thread);
        assert_eq!(all.len(), 3);
        for &id in &all {
            let parts = layout.decode(Id::from_u64(id)).unwrap();
            let tick = parts.ticks();
            assert!(
                (START_TICK..=START_TICK + 2).contains(&tick),
                "id {id} has tick {tick}, which the clock never showed"
            );
            assert!(parts.sequence() <= 1);
        }
        // The clock stays on the last tick: one more mint fits exactly when it is not full.
        let in_last = all
            .iter()
            .filter(|&&id| tick_of(&layout, id) == START_TICK + 2)
            .count();
        if in_last < 2 {
            assert_next_is_greatest(&generator, &all);
        } else {
            assert!(matches!(
                generator.try_mint(),
                Err(Error::SequenceExhausted { tick, .. }) if tick == START_TICK + 2
            ));
        }
    });
}

/// Model 5: 2 IDs per tick, a fixed clock, and three `try_mint`s across two threads: exactly
/// two succeed and one reports the exhausted tick.
#[test]
fn try_mint_races_at_exhaustion() {
    model(|| {
        let layout = tiny();
        let (generator, _clock) = generator(layout, START_TICK, ClockBehind::Error);
        let handles: Vec<_> = [2, 1]
            .into_iter()
            .map(|n| {
                let generator = generator.clone();
                thread::spawn(move || (0..n).map(|_| generator.try_mint()).collect::<Vec<_>>())
            })
            .collect();
        let results: Vec<Vec<_>> = handles.into_iter().map(|h| h.join().unwrap()).collect();

        let mut exhausted = 0;
        let per_thread = ids_checking_errors(&results, |error| match error {
            Error::SequenceExhausted { tick, .. } => {
                assert_eq!(*tick, START_TICK);
                exhausted += 1;
            }
            other => panic!("unexpected error {other:?}"),
        });
        assert_each_increasing(&per_thread);
        let all = assert_all_unique(&per_thread);
        assert_eq!(all.len(), 2, "{results:?}");
        assert_eq!(exhausted, 1, "{results:?}");
        for &id in &all {
            assert_eq!(tick_of(&layout, id), START_TICK);
        }
        // The tick stays full until the clock moves.
        assert!(matches!(
            generator.try_mint(),
            Err(Error::SequenceExhausted { .. })
        ));
    });
}

/// Model 6: with `ClockBehind::Error`, one thread sets the clock back a tick while two others
/// mint (two IDs and one): every result is an ID or `Error::ClockBehind`, and no ID repeats.
#[test]
fn clock_set_back_with_error_policy() {
    model(|| {
        let layout = Layout::TWITTER;
        // Start a tick later, so the set-back lands on START_TICK.
        let (generator, clock) = generator(layout, START_TICK + 1, ClockBehind::Error);
        let minters: Vec<_> = [2, 1]
            .into_iter()
            .map(|n| {
                let generator = generator.clone();
                thread::spawn(move || (0..n).map(|_| generator.mint()).collect::<Vec<_>>())
            })
            .collect();
        let setter = {
            let clock = clock.clone();
            thread::spawn(move || clock.set(tick_ms(&layout, START_TICK)))
        };
        let results: Vec<Vec<_>> = minters.into_iter().map(|h| h.join().unwrap()).collect();
        setter.join().unwrap();

        let per_thread = ids_checking_errors(&results, |error| match error {
            Error::ClockBehind {
                behind_ms,
                max_wait_ms,
                ..
            } => {
                assert_eq!(*behind_ms, layout.tick_ms());
                assert_eq!(*max_wait_ms, 0);
            }
            other => panic!("unexpected error {other:?}"),
        });
        assert_each_increasing(&per_thread);
        let all = assert_all_unique(&per_thread);
        for &id in &all {
            let tick = tick_of(&layout, id);
            assert!(
                tick == START_TICK || tick == START_TICK + 1,
                "id {id} has tick {tick}, which the clock never showed"
            );
        }
        // The clock reads START_TICK now: a mint fails exactly when an ID was minted at START_TICK + 1.
        let saw_later = all.iter().any(|&id| tick_of(&layout, id) == START_TICK + 1);
        match generator.mint() {
            Ok(id) => {
                assert!(!saw_later, "minted {id:?} behind a later tick");
                assert!(all.iter().all(|&other| id.to_u64() > other));
            }
            Err(Error::ClockBehind { .. }) => assert!(saw_later),
            Err(other) => panic!("unexpected error {other:?}"),
        }
        // Once the clock is ahead again, minting resumes above everything.
        clock.set(tick_ms(&layout, START_TICK + 2));
        assert_next_is_greatest(&generator, &all);
    });
}
