//! Loom models of the single-mint fast path's atomic add: a shared generator reserves a single
//! ID on a tick with room by adding one sequence step to its state word (`Plan::add_below`),
//! and adds past a tick's last state leave the word beyond the tick's range, in values no mint
//! returns, until a compare-and-swap moves it to a later tick.
//!
//! Run from `loom-tests/` with
//!
//! ```text
//! RUSTFLAGS="--cfg snowmint_loom --cfg snowmint_test_hooks" LOOM_MAX_PREEMPTIONS=3 cargo test --release
//! ```
//!
//! Under `--cfg snowmint_loom` a generator adds when the bits above its sequence range, up to
//! the time field, can absorb 4 adds at once. Every model uses a [`tiny`] layout, whose 2-bit
//! machine field gives them room: on `tiny(1)` a mint that loads sequence 0 adds (one that
//! loads sequence 1, the last, takes the compare-and-swap path), on `tiny(2)` one that loads
//! sequence 0, 1 or 2. The main thread mints sequence 0 first (the *setup*), so the race
//! starts on a tick with room and its first mints add. The clock is a `ManualClock` that only
//! moves forward during a race, and the policy `ClockBehind::Error`: a clock read stale after
//! a newer state would surface as an error.
//!
//! In every interleaving explored, the models assert that every ID returned carries the
//! machine (an add's stray bits in the node field would show) with a sequence in the range, no
//! ID repeats across the setup and the race, and each thread's IDs strictly increase. Those at
//! a fixed clock also assert that the tick ends with every one of its values minted, none lost
//! to a word that looks full too soon, none beyond; after the race the tick stays full (for
//! `snapshot`, `try_mint`, and a clock set behind it), and every model's last mint, on a
//! clock moved ahead of everything, starts the new tick above every ID.
#![cfg(snowmint_loom)]

use std::collections::HashSet;

use loom::sync::{Arc, mpsc};
use loom::thread;

use snowmint::{ClockBehind, Error, Generator, Id, Layout, clock::ManualClock};

mod common;

use common::{AFTER_TICK, MACHINE, Minted, START_TICK, Tally, minted, model, setup_and, tiny};

/// What a racing thread does, step by step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// `try_mint()`: the adding path, while the tick has room.
    TryMint,
    /// `try_mint_batch` with a buffer of this many IDs: always a compare-and-swap.
    TryBatch(usize),
    /// Advance the clock by one tick.
    Advance,
}

/// One mint or batch call of a race, and the IDs it returned.
type Call = (Op, Result<Vec<u64>, Error>);

/// A race's calls, each thread's in order.
type Calls = Vec<Vec<Call>>;

/// Unix milliseconds at the start of `layout`'s tick `tick`.
fn tick_ms(layout: &Layout, tick: u64) -> u64 {
    layout.epoch_ms() + tick * layout.tick_ms()
}

/// A generator on `tiny(sequence_bits)` and its clock, and what the setup minted.
struct Rig {
    layout: Layout,
    generator: Arc<Generator<ManualClock>>,
    clock: ManualClock,
    /// Sequence 0 of `START_TICK`, minted before the race.
    setup: Vec<u64>,
}

impl Rig {
    /// A generator on `tiny(sequence_bits)`, carrying [`MACHINE`], on a clock at `START_TICK`,
    /// that has minted the tick's sequence 0.
    fn new(sequence_bits: u8) -> Self {
        let layout = tiny(sequence_bits);
        let clock = ManualClock::new(tick_ms(&layout, START_TICK));
        let generator = Generator::builder(layout)
            .node("machine", MACHINE)
            .clock(clock.clone())
            .on_clock_behind(ClockBehind::Error)
            .build()
            .expect("valid generator");
        let setup = common::setup_mints(&generator, 1);
        Rig {
            layout,
            generator: Arc::new(generator),
            clock,
            setup,
        }
    }

    /// Runs the race: one thread per script, each step in order.
    fn race(&self, scripts: &[&'static [Op]]) -> Calls {
        let handles: Vec<_> = scripts
            .iter()
            .map(|&script| {
                let generator = self.generator.clone();
                let clock = self.clock.clone();
                let tick = self.layout.tick_ms();
                thread::spawn(move || {
                    let mut calls = Vec::new();
                    for &op in script {
                        let result = match op {
                            Op::TryMint => generator.try_mint().map(|id| vec![id.to_u64()]),
                            Op::TryBatch(n) => {
                                let mut buffer = vec![Id::from_u64(0); n];
                                generator.try_mint_batch(&mut buffer).map(|count| {
                                    buffer[..count].iter().map(|id| id.to_u64()).collect()
                                })
                            }
                            Op::Advance => {
                                clock.advance(tick);
                                continue;
                            }
                        };
                        calls.push((op, result));
                    }
                    calls
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    }

    /// A tally of the race's `calls`, each checked: a run in the range, carrying the machine
    /// (see [`Tally::run`]), or `SequenceExhausted`.
    fn tally<'a>(&'a self, calls: &'a Calls) -> Tally<'a> {
        let mut tally = Tally::new(&self.layout, 0..=self.layout.max_sequence(), calls);
        for thread_calls in calls {
            tally.thread();
            for (op, result) in thread_calls {
                match result {
                    Ok(run) => {
                        tally.run(op, want(*op), run);
                    }
                    Err(Error::SequenceExhausted { tick, .. }) => tally.exhausted(*tick),
                    Err(other) => panic!("{op:?} failed: {other:?}: {calls:?}"),
                }
            }
        }
        tally
    }

    /// The checks of a race on a clock that stayed at `START_TICK`: every call returned a run
    /// or found the tick full, each thread's IDs strictly increase, no ID repeats across the
    /// setup and the race, and the tick ends full: all of its values minted, none twice, none
    /// lost to a word that looked full too soon. Returns every ID, the setup's first.
    fn check_full(&self, calls: &Calls) -> Vec<Minted> {
        let checked = self.tally(calls).check(&self.setup);
        assert!(
            checked.all.iter().all(|m| m.tick == START_TICK),
            "{calls:?}"
        );
        assert_eq!(
            checked.all.len() as u64,
            self.layout.max_sequence() + 1,
            "the tick does not end full: {calls:?}"
        );
        assert!(
            checked.exhausted.iter().all(|&tick| tick == START_TICK),
            "{calls:?}"
        );
        checked.all
    }

    /// After a race that filled `START_TICK` (all threads joined, the clock still there): the
    /// tick stays full, whatever the adds past its last state left in the word. The snapshot
    /// holds the tick's last sequence, `try_mint` finds the tick exhausted, and on a clock set
    /// a tick behind, the generator fails as behind by two ticks, the earliest it can mint at
    /// being the start of the next tick.
    fn assert_stays_full(&self) {
        let snapshot = self.generator.snapshot();
        assert_eq!(
            (snapshot.last_tick, snapshot.sequence),
            (START_TICK, self.layout.max_sequence()),
            "{snapshot:?}"
        );
        let result = self.generator.try_mint();
        assert!(
            matches!(
                result,
                Err(Error::SequenceExhausted {
                    tick: START_TICK,
                    ..
                })
            ),
            "try_mint on the full tick: {result:?}"
        );
        self.clock.set(tick_ms(&self.layout, START_TICK - 1));
        let result = self.generator.try_mint();
        let two_ticks = 2 * self.layout.tick_ms();
        assert!(
            matches!(result, Err(Error::ClockBehind { behind_ms, .. }) if behind_ms == two_ticks),
            "try_mint a tick behind the full tick: {result:?}"
        );
    }

    /// With the clock moved ahead of everything, a mint starts the new tick, above every ID
    /// of `all`.
    fn finish(&self, all: &[Minted]) {
        self.clock.set(tick_ms(&self.layout, AFTER_TICK));
        let m = minted(&self.layout, self.generator.mint().expect("mint").to_u64());
        assert_eq!((m.tick, m.sequence), (AFTER_TICK, 0), "{m:?}");
        assert!(all.iter().all(|other| m.id > other.id), "{m:?} vs {all:?}");
    }
}

/// How many IDs `op` asks for.
fn want(op: Op) -> usize {
    match op {
        Op::TryMint => 1,
        Op::TryBatch(n) => n,
        Op::Advance => 0,
    }
}

/// Model 1: `try_mint` races at the tick's end, 2 IDs per tick, from sequence 0: three
/// threads mint once each on a fixed clock. Each thread that loaded sequence 0 adds, and only
/// the first add makes an ID; the others go past the tick's last state into the machine field,
/// and those threads must find the tick full: exactly one mint succeeds, with sequence 1.
#[test]
fn adds_past_the_last_state_fixed_clock() {
    model(|| {
        let rig = Rig::new(1);
        let calls = rig.race(&[&[Op::TryMint], &[Op::TryMint], &[Op::TryMint]]);
        let all = rig.check_full(&calls);
        rig.assert_stays_full();
        rig.finish(&all);
    });
}

/// Model 2: `try_mint` races at the tick's end, 4 IDs per tick, from sequence 0: two threads
/// mint twice each on a fixed clock. Sequences 1 to 3 go to three of the four mints, by adds
/// (or a compare-and-swap from sequence 3's predecessor), and the fourth finds the tick full,
/// however far the adds went past its last state.
#[test]
fn adds_race_to_the_tick_end_fixed_clock() {
    model(|| {
        let rig = Rig::new(2);
        let calls = rig.race(&[&[Op::TryMint, Op::TryMint], &[Op::TryMint, Op::TryMint]]);
        let all = rig.check_full(&calls);
        rig.assert_stays_full();
        rig.finish(&all);
    });
}

/// Model 3: a `mint()` whose add went past the tick's last state waits for the next tick. 2
/// IDs per tick, from sequence 0; two threads `mint()` once each, and a third advances the
/// clock by one tick once some mint has returned (so no mint can see tick 11 before tick 10 is
/// full, and the one advance lets every waiter finish).
///
/// Whichever mint returns first takes tick 10's sequence 1 (the clock has not moved); the
/// other, if it added too, made a value past the tick's last state, and must wait, then mint
/// tick 11's sequence 0, carrying the machine.
#[test]
fn mint_waits_after_adding_past_the_tick_end() {
    model(|| {
        let rig = Rig::new(1);
        let (minted_tx, minted_rx) = mpsc::channel::<()>();
        let minters: Vec<_> = (0..2)
            .map(|_| {
                let generator = rig.generator.clone();
                let minted_tx = minted_tx.clone();
                thread::spawn(move || {
                    let id = generator.mint().expect("mint").to_u64();
                    minted_tx.send(()).unwrap();
                    id
                })
            })
            .collect();
        drop(minted_tx);
        let advancer = {
            let (clock, tick) = (rig.clock.clone(), rig.layout.tick_ms());
            thread::spawn(move || {
                minted_rx.recv().unwrap();
                clock.advance(tick);
                // Drain the other minter's message.
                minted_rx.recv().unwrap();
            })
        };
        let ids: Vec<u64> = minters.into_iter().map(|h| h.join().unwrap()).collect();
        advancer.join().unwrap();

        let mut race: Vec<Minted> = ids.iter().map(|&id| minted(&rig.layout, id)).collect();
        race.sort_unstable_by_key(|m| m.id);
        assert_eq!(
            race.iter()
                .map(|m| (m.tick, m.sequence))
                .collect::<Vec<_>>(),
            [(START_TICK, 1), (START_TICK + 1, 0)],
            "{race:?}"
        );
        rig.finish(&setup_and(&rig.layout, &rig.setup, &race));
    });
}

/// Model 4: a `try_mint_batch` (a compare-and-swap) races single `try_mint`s (adds) at the
/// tick's end, 4 IDs per tick, from sequence 0, on a fixed clock. One thread mints once, then
/// asks for a batch of 2; the other mints twice. The two first mints may both add from
/// sequence 2, and the batch then finds the word past the tick's last state: it must find the
/// tick full, not take values that are IDs already. Runs and adds never overlap, and the 3
/// values left all go out.
#[test]
fn batch_races_adds_at_the_tick_end() {
    model(|| {
        let rig = Rig::new(2);
        let calls = rig.race(&[&[Op::TryMint, Op::TryBatch(2)], &[Op::TryMint, Op::TryMint]]);
        let all = rig.check_full(&calls);
        rig.assert_stays_full();
        rig.finish(&all);
    });
}

/// Model 5: the tick changes mid race, 4 IDs per tick, from sequence 0. One thread mints
/// twice; the other advances the clock by one tick and then mints once, moving the word to
/// tick 11 by compare-and-swap, which an add read on tick 10 may then land on.
///
/// Every mint succeeds (tick 10 has 3 values left for 3 mints, tick 11 all 4), no ID repeats,
/// each thread's IDs strictly increase, every ID is on tick 10 or 11 and carries the machine,
/// and a mint after the race is above them all. An add read on tick 10 that lands on tick 11
/// takes a value of tick 11's range as its ID, so no tick skips a sequence value.
#[test]
fn add_races_a_new_tick() {
    model(|| {
        let rig = Rig::new(2);
        let calls = rig.race(&[&[Op::TryMint, Op::TryMint], &[Op::Advance, Op::TryMint]]);
        rig.tally(&calls).check(&rig.setup);
        let per_thread: Vec<Vec<Minted>> = calls
            .iter()
            .map(|thread_calls| {
                thread_calls
                    .iter()
                    .map(|(op, result)| match result {
                        Ok(run) => minted(&rig.layout, run[0]),
                        Err(error) => panic!("{op:?} failed: {error:?}: {calls:?}"),
                    })
                    .collect()
            })
            .collect();

        let mut seen = HashSet::new();
        for m in rig
            .setup
            .iter()
            .map(|&id| minted(&rig.layout, id))
            .chain(per_thread.iter().flatten().copied())
        {
            assert!(seen.insert(m.id), "{m:?} minted twice: {calls:?}");
            assert!(
                m.tick == START_TICK || m.tick == START_TICK + 1,
                "{m:?}: the clock never showed its tick: {calls:?}"
            );
        }
        for (thread, ids) in per_thread.iter().enumerate() {
            assert!(
                ids.windows(2).all(|w| w[0].id < w[1].id),
                "thread {thread}'s ids do not strictly increase: {calls:?}"
            );
        }

        let mut all = setup_and(&rig.layout, &rig.setup, &per_thread.concat());
        // The clock reads tick 11: the next mint is above all, or finds tick 11 full.
        match rig.generator.try_mint() {
            Ok(id) => {
                let m = minted(&rig.layout, id.to_u64());
                assert!(all.iter().all(|other| m.id > other.id), "{m:?} vs {all:?}");
                all.push(m);
            }
            Err(Error::SequenceExhausted { tick, .. }) => assert_eq!(tick, START_TICK + 1),
            Err(other) => panic!("try_mint after the race: {other:?}"),
        }
        rig.finish(&all);
    });
}
