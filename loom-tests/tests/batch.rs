//! Loom models of `Generator`'s batch reservation (`mint_batch`, `try_mint_batch`), of
//! borrowing ahead of the clock (`GeneratorBuilder::borrow_ahead`) and of sequence ranges
//! (`GeneratorBuilder::sequence_range`).
//!
//! Run from `loom-tests/` with
//!
//! ```text
//! RUSTFLAGS="--cfg snowmint_loom --cfg snowmint_test_hooks" LOOM_MAX_PREEMPTIONS=3 cargo test --release
//! ```
//!
//! Every model uses a `tiny` layout (a 1-, 2- or 3-bit sequence, so a few mints fill a tick, a
//! 2-bit machine field set to 1, 1 ms ticks from the Unix epoch), a `ManualClock` that only
//! moves forward during a race, and `ClockBehind::Error`: a clock read stale after observing a
//! newer state would surface as an error. The main thread may mint a few IDs first (the
//! *setup*) to put the state where the model needs it; then two or three threads race, each
//! following a short script of mints, batches and clock advances, and record every call's
//! result with the clock's tick read right before and right after it.
//!
//! In every interleaving explored, [`check`] asserts that
//!
//! - every waiting call (`mint`, `mint_batch`) succeeds, and every `try_` call succeeds or
//!   fails with `Error::SequenceExhausted` for a tick at least `borrow` ticks ahead of the
//!   clock (the generator only gives up once it has borrowed all it may), with a
//!   `retry_after` that matches;
//! - a call returns between 1 and as many IDs as it asked for, all on one tick, with
//!   consecutive sequences, strictly increasing, carrying the machine; a batch returns fewer
//!   than it asked for only when its run ends at the tick's last sequence value;
//! - every sequence lies in the generator's range, and every ID's tick lies between the clock
//!   read before the call and the clock read after it plus `borrow`;
//! - no ID repeats, across the setup and the race, and each thread's IDs strictly increase;
//! - on each tick, the sequences minted are exactly the first `n` values of the range (none
//!   skipped: no ID lost, none handed out twice), and a tick reported exhausted is full;
//! - the counters agree: no regression in the race, never more than `borrow` ticks ahead, no borrow
//!   without borrowing on, no wait without a waiting call, and on a clock that never moved,
//!   `max_ahead_ticks` is exactly how far the highest tick minted is ahead of it;
//!
//! and [`finish`] mints once more on the clock as the race left it (an ID above all others, or
//! `SequenceExhausted` for the last tick, which must be full and `borrow` ticks ahead), then
//! again with the clock moved ahead of everything (an ID above all others, at the start of
//! the range).
//!
//! Each model then asserts what is specific to it.
//!
//! Why the scripts are so short: a thread waiting for a full tick yields to loom's scheduler
//! in a loop, and two threads waiting at once can yield to each other forever (see model 4
//! of `generator.rs`). The models whose calls may wait are sized so that at most one thread
//! can wait at a time and the one clock advance lets every waiter finish.
#![cfg(snowmint_loom)]

use std::ops::RangeInclusive;
use std::time::Duration;

use loom::sync::Arc;
use loom::thread;

use snowmint::{Clock, ClockBehind, Error, Generator, Id, Layout, clock::ManualClock};

mod common;

use common::{AFTER_TICK, MACHINE, Minted, START_TICK, Tally, minted, model, setup_and, tiny};

/// What a racing thread does, step by step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// `mint()`.
    Mint,
    /// `try_mint()`.
    TryMint,
    /// `mint_batch` with a buffer of this many IDs.
    Batch(usize),
    /// `try_mint_batch` with a buffer of this many IDs.
    TryBatch(usize),
    /// Advance the clock by one tick.
    Advance,
}

impl Op {
    /// How many IDs the call asks for.
    fn want(self) -> usize {
        match self {
            Op::Mint | Op::TryMint => 1,
            Op::Batch(n) | Op::TryBatch(n) => n,
            Op::Advance => 0,
        }
    }

    /// Whether the call may fail with `SequenceExhausted`.
    fn is_try(self) -> bool {
        matches!(self, Op::TryMint | Op::TryBatch(_))
    }
}

/// One mint or batch call of a race.
#[derive(Debug)]
struct Call {
    op: Op,
    /// The clock's tick read right before and right after the call.
    before: u64,
    after: u64,
    /// The IDs returned, in order.
    result: Result<Vec<u64>, Error>,
}

/// The tick `clock` reads under `layout`.
fn tick_now(layout: &Layout, clock: &ManualClock) -> u64 {
    layout
        .ticks_at(clock.unix_ms())
        .expect("clock within the layout")
}

/// Unix milliseconds at the start of `layout`'s tick `tick`.
fn tick_ms(layout: &Layout, tick: u64) -> u64 {
    layout.epoch_ms() + tick * layout.tick_ms()
}

/// One mint or batch call (not `Advance`): the IDs it returned. A batch must leave the part of
/// its buffer it did not fill untouched, and all of it on error.
fn call(generator: &Generator<ManualClock>, op: Op) -> Result<Vec<u64>, Error> {
    let single = |result: Result<Id, Error>| result.map(|id| vec![id.to_u64()]);
    let batch = |n: usize, f: fn(&Generator<ManualClock>, &mut [Id]) -> Result<usize, Error>| {
        let mut buffer = vec![Id::from_u64(0); n];
        let result = f(generator, &mut buffer);
        let written = *result.as_ref().unwrap_or(&0);
        assert!(
            buffer[written..].iter().all(|id| id.to_u64() == 0),
            "{op:?} returned {result:?} but wrote {buffer:?}"
        );
        result.map(|count| buffer[..count].iter().map(|id| id.to_u64()).collect())
    };
    match op {
        Op::Mint => single(generator.mint()),
        Op::TryMint => single(generator.try_mint()),
        Op::Batch(n) => batch(n, Generator::mint_batch),
        Op::TryBatch(n) => batch(n, Generator::try_mint_batch),
        Op::Advance => unreachable!("not a mint"),
    }
}

/// A generator on a [`tiny`] layout with its clock, and what the setup minted.
struct Rig {
    layout: Layout,
    /// The generator's sequence range.
    range: RangeInclusive<u64>,
    /// Its `borrow_ahead` bound.
    borrow: u64,
    generator: Arc<Generator<ManualClock>>,
    clock: ManualClock,
    /// The tick the clock was built at, and whether anything has moved it since.
    start: u64,
    clock_moved: bool,
    /// Every ID minted before the race, in order.
    setup: Vec<u64>,
    /// The regressions counted before the race.
    regressions_before: u64,
}

impl Rig {
    /// A generator with a `sequence_bits`-bit sequence confined to `range` (the whole field if
    /// `None`), borrowing up to `borrow` ticks, on a clock at `START_TICK`.
    fn new(sequence_bits: u8, range: Option<RangeInclusive<u64>>, borrow: u64) -> Self {
        Rig::at(START_TICK, sequence_bits, range, borrow)
    }

    /// As [`Rig::new`], on a clock at `start`.
    fn at(start: u64, sequence_bits: u8, range: Option<RangeInclusive<u64>>, borrow: u64) -> Self {
        let layout = tiny(sequence_bits);
        let range = range.unwrap_or(0..=layout.max_sequence());
        let clock = ManualClock::new(tick_ms(&layout, start));
        let generator = Generator::builder(layout)
            .node("machine", MACHINE)
            .clock(clock.clone())
            .on_clock_behind(ClockBehind::Error)
            .sequence_range(range.clone())
            .borrow_ahead(borrow)
            .build()
            .expect("valid generator");
        Rig {
            layout,
            range,
            borrow,
            generator: Arc::new(generator),
            clock,
            start,
            clock_moved: false,
            setup: Vec::new(),
            regressions_before: 0,
        }
    }

    /// Setup: mints `n` IDs with `try_mint`, each of which must succeed.
    fn mint(&mut self, n: usize) {
        self.setup.extend(common::setup_mints(&self.generator, n));
    }

    /// Sets the clock to the start of `tick`.
    fn set_clock(&mut self, tick: u64) {
        self.clock.set(tick_ms(&self.layout, tick));
        self.clock_moved = true;
    }

    /// Runs the race: one thread per script, each step in order. The clock is read around
    /// each call only when a script moves it (each read is one more atomic for loom to
    /// interleave); otherwise it reads what it read before the race.
    fn race(&mut self, scripts: &[&'static [Op]]) -> Vec<Vec<Call>> {
        let moves = scripts.iter().any(|script| script.contains(&Op::Advance));
        self.regressions_before = self.generator.stats().regressions;
        let fixed = tick_now(&self.layout, &self.clock);
        let handles: Vec<_> = scripts
            .iter()
            .map(|&script| {
                let generator = self.generator.clone();
                let clock = self.clock.clone();
                let layout = self.layout;
                let read = move |clock: &ManualClock| {
                    if moves {
                        tick_now(&layout, clock)
                    } else {
                        fixed
                    }
                };
                thread::spawn(move || {
                    let mut calls = Vec::new();
                    for &op in script {
                        if op == Op::Advance {
                            clock.advance(layout.tick_ms());
                            continue;
                        }
                        let before = read(&clock);
                        let result = call(&generator, op);
                        let after = read(&clock);
                        calls.push(Call {
                            op,
                            before,
                            after,
                            result,
                        });
                    }
                    calls
                })
            })
            .collect();
        self.clock_moved |= moves;
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    }
}

/// What a race produced, once [`check`] has accepted it.
#[derive(Debug)]
struct Outcome {
    /// Every ID of the race.
    ids: Vec<Minted>,
    /// How many IDs each batch call returned, in script order (threads in order).
    batch_counts: Vec<usize>,
    /// The tick of each `SequenceExhausted`.
    exhausted: Vec<u64>,
}

/// The common checks (see the module docs).
fn check(rig: &Rig, calls: &[Vec<Call>]) -> Outcome {
    let layout = &rig.layout;
    let borrow = rig.borrow;
    let mut tally = Tally::new(layout, rig.range.clone(), &calls);

    let mut batch_counts = Vec::new();
    for thread_calls in calls {
        tally.thread();
        for call in thread_calls {
            let Call {
                op,
                before,
                after,
                ref result,
            } = *call;
            match result {
                Ok(run) => {
                    let run = tally.run(&op, op.want(), run);
                    let tick = run[0].tick;
                    assert!(
                        before <= tick && tick <= after + borrow,
                        "{op:?} minted at tick {tick}, the clock read {before} before and \
                         {after} after (borrow {borrow}): {calls:?}"
                    );
                    if matches!(op, Op::Batch(_) | Op::TryBatch(_)) {
                        batch_counts.push(run.len());
                    }
                }
                Err(Error::SequenceExhausted {
                    tick, retry_after, ..
                }) if op.is_try() => {
                    // The generator gives up only `borrow` ticks ahead of the reading it used,
                    // which lies between `before` and `after`.
                    assert!(
                        before + borrow <= *tick && *tick <= after + borrow,
                        "{op:?} gave up at tick {tick}, the clock read {before} before and \
                         {after} after (borrow {borrow}): {calls:?}"
                    );
                    let retry = |now: u64| {
                        Duration::from_millis((tick + 1 - now - borrow) * layout.tick_ms())
                    };
                    assert!(
                        retry(after) <= *retry_after && *retry_after <= retry(before),
                        "{op:?}: retry after {retry_after:?} for tick {tick}: {calls:?}"
                    );
                    tally.exhausted(*tick);
                }
                Err(other) => panic!("{op:?} failed: {other:?}: {calls:?}"),
            }
        }
    }

    // Each thread's IDs strictly increase, unique across the setup and the race; each tick
    // holds the first values of the range, and a tick reported exhausted all of them.
    let checked = tally.check(&rig.setup);
    let all = &checked.all;

    // Counters.
    let stats = rig.generator.stats();
    assert_eq!(stats.regressions, rig.regressions_before, "{stats:?}");
    assert!(stats.max_ahead_ticks <= borrow, "{stats:?}");
    if borrow == 0 {
        assert_eq!(stats.borrows, 0, "{stats:?}");
    }
    let waits = calls
        .iter()
        .flatten()
        .any(|call| matches!(call.op, Op::Mint | Op::Batch(_)));
    if !waits {
        assert_eq!(stats.waits, 0, "{stats:?}");
    }
    if !rig.clock_moved {
        let max_tick = all.iter().map(|m| m.tick).max().unwrap_or(rig.start);
        assert_eq!(
            stats.max_ahead_ticks,
            max_tick - rig.start,
            "{stats:?}, ids {all:?}"
        );
        assert_eq!(stats.borrows > 0, max_tick > rig.start, "{stats:?}");
    }

    Outcome {
        ids: checked.race,
        batch_counts,
        exhausted: checked.exhausted,
    }
}

/// After the race (all threads joined): `try_mint` on the clock as it is gives an ID above all
/// of the setup's and the race's, or `SequenceExhausted` for the highest tick minted, full and
/// `borrow` ticks ahead of the clock; with the clock moved past everything, `mint` gives an ID
/// above all of them at the start of the range.
fn finish(rig: &Rig, outcome: &Outcome) {
    let layout = &rig.layout;
    let mut all = setup_and(layout, &rig.setup, &outcome.ids);
    let max = all.iter().max_by_key(|m| m.id).copied();
    let now = tick_now(layout, &rig.clock);
    match rig.generator.try_mint() {
        Ok(id) => {
            let m = minted(layout, id.to_u64());
            if let Some(max) = max {
                assert!(
                    m.id > max.id,
                    "{m:?} minted after the race is not above {max:?}"
                );
            }
            assert!(
                now <= m.tick && m.tick <= now + rig.borrow,
                "{m:?} at clock {now}"
            );
            all.push(m);
        }
        Err(Error::SequenceExhausted { tick, .. }) => {
            let max = max.expect("an empty generator has room");
            assert_eq!(tick, max.tick, "exhausted tick {tick}, last id {max:?}");
            assert_eq!(max.sequence, *rig.range.end(), "{max:?}");
            assert_eq!(
                tick,
                now + rig.borrow,
                "exhausted tick {tick} at clock {now}"
            );
        }
        Err(other) => panic!("try_mint after the race: {other:?}"),
    }
    rig.clock.set(tick_ms(layout, AFTER_TICK));
    let m = minted(layout, rig.generator.mint().expect("mint").to_u64());
    assert_eq!((m.tick, m.sequence), (AFTER_TICK, *rig.range.start()));
    assert!(all.iter().all(|other| m.id > other.id), "{m:?} vs {all:?}");
}

/// Model 1: a batch of 3 races a single `mint()` on a fixed clock, 4 IDs per tick (2-bit
/// sequence): the tick always has room for both, so the batch gets all 3 and together they
/// use tick 10 exactly (sequences 0 to 3, whatever the order); the tick is then full.
#[test]
fn batch_races_a_mint_fixed_clock() {
    model(|| {
        let mut rig = Rig::new(2, None, 0);
        let calls = rig.race(&[&[Op::Batch(3)], &[Op::Mint]]);
        let out = check(&rig, &calls);
        assert_eq!(out.batch_counts, [3], "{calls:?}");
        assert_eq!(out.ids.len(), 4);
        assert!(out.ids.iter().all(|m| m.tick == START_TICK), "{calls:?}");
        finish(&rig, &out);
    });
}

/// Model 2: a batch of 2 races two `mint()`s on a fixed clock, 4 IDs per tick: the batch lands
/// before, between or after the mints, never overlapping them.
#[test]
fn batch_races_two_mints_fixed_clock() {
    model(|| {
        let mut rig = Rig::new(2, None, 0);
        let calls = rig.race(&[&[Op::Batch(2)], &[Op::Mint, Op::Mint]]);
        let out = check(&rig, &calls);
        assert_eq!(out.batch_counts, [2], "{calls:?}");
        assert_eq!(out.ids.len(), 4);
        finish(&rig, &out);
    });
}

/// Model 3: a batch of 3 races two `mint()`s while a third thread advances the clock by one
/// tick, 8 IDs per tick (3-bit sequence) and tick 10 already holding sequences 0 to 4.
///
/// Tick 10 has 3 values left: the batch gets 3, 2 or 1 of them (cut short at sequence 7 when
/// mints went first), or starts tick 11 if the clock moved first or tick 10 filled up; a call
/// finding tick 10 full waits for the advance. At most one thread waits at a time (both
/// waiting needs tick 10 full with neither done, but then the race has taken at most 1 of its
/// 3 values), and tick 11 has room for all 5 IDs the race can want.
#[test]
fn batch_cut_short_while_the_clock_advances() {
    model(|| {
        let mut rig = Rig::new(3, None, 0);
        rig.mint(5);
        let calls = rig.race(&[&[Op::Batch(3)], &[Op::Mint, Op::Mint], &[Op::Advance]]);
        let out = check(&rig, &calls);
        assert_eq!(out.batch_counts.len(), 1, "{calls:?}");
        assert!(
            out.ids
                .iter()
                .all(|m| m.tick == START_TICK || m.tick == START_TICK + 1),
            "{calls:?}"
        );
        finish(&rig, &out);
    });
}

/// Model 4: `try_mint_batch` of 3 races two `try_mint`s at exhaustion: a fixed clock, 4 IDs
/// per tick, tick 10 already holding sequence 0.
///
/// The 3 values left go to whoever comes first: the batch takes 3, 2 or 1 (it never finds the
/// tick full, as the mints take at most 2), and each mint that finds the tick full fails with
/// `SequenceExhausted` for tick 10. The race always ends with tick 10 full: its 3 values
/// handed out, none twice, none lost.
#[test]
fn try_batch_races_try_mints_at_exhaustion() {
    model(|| {
        let mut rig = Rig::new(2, None, 0);
        rig.mint(1);
        let calls = rig.race(&[&[Op::TryBatch(3)], &[Op::TryMint, Op::TryMint]]);
        let out = check(&rig, &calls);
        assert_eq!(out.ids.len(), 3, "{calls:?}");
        assert_eq!(out.batch_counts.len(), 1, "{calls:?}");
        assert_eq!(
            out.batch_counts[0],
            out.exhausted.len() + 1,
            "the batch takes what the mints leave, and each mint left out fails: {calls:?}"
        );
        finish(&rig, &out);
    });
}

/// Model 5: borrowing one tick on a fixed clock, 2 IDs per tick (1-bit sequence), tick 10
/// already holding sequence 0; two threads `try_mint` twice each.
///
/// Three values are within reach: tick 10's sequence 1 and tick 11's two (borrowed). Whoever
/// finds tick 10 full moves to 11 instead of failing; the one call that finds tick 11 full
/// fails, tick 11 being one tick ahead of the clock.
#[test]
fn borrow_one_tick_fixed_clock() {
    model(|| {
        let mut rig = Rig::new(1, None, 1);
        rig.mint(1);
        let calls = rig.race(&[&[Op::TryMint, Op::TryMint], &[Op::TryMint, Op::TryMint]]);
        let out = check(&rig, &calls);
        assert_eq!(out.ids.len(), 3, "{calls:?}");
        assert_eq!(out.exhausted, [START_TICK + 1], "{calls:?}");
        assert_eq!(rig.generator.stats().max_ahead_ticks, 1);
        finish(&rig, &out);
    });
}

/// Model 6: borrowing up to two ticks on a fixed clock, 2 IDs per tick, the setup already one
/// tick ahead (ticks 10 and 11's sequence 0); one thread `try_mint`s twice, the other
/// `try_mint_batch`es 2 then `try_mint`s.
///
/// Three values are within reach (tick 11's sequence 1, tick 12's two); a batch finding tick
/// 11 full borrows tick 12 like a mint does. Four calls taking at least one value each cannot
/// all succeed, so some call fails, for tick 12, and tick 12 ends full.
#[test]
fn borrow_two_ticks_fixed_clock() {
    model(|| {
        let mut rig = Rig::new(1, None, 2);
        rig.mint(3);
        let calls = rig.race(&[&[Op::TryMint, Op::TryMint], &[Op::TryBatch(2), Op::TryMint]]);
        let out = check(&rig, &calls);
        assert_eq!(out.ids.len(), 3, "{calls:?}");
        assert!(!out.exhausted.is_empty(), "{calls:?}");
        assert!(
            out.exhausted.iter().all(|&tick| tick == START_TICK + 2),
            "{calls:?}"
        );
        assert_eq!(rig.generator.stats().max_ahead_ticks, 2);
        finish(&rig, &out);
    });
}

/// Model 7: borrowing one tick while a third thread advances the clock by one, 2 IDs per
/// tick, the setup already one tick ahead (tick 10 full, tick 11's sequence 0); two threads
/// `mint()` once each.
///
/// Before the advance only tick 11's sequence 1 is within reach; a mint finding tick 11 full
/// waits, as tick 12 would be two ahead of the clock, and after the advance borrows tick 12.
/// Only one thread can wait (the other took the last value), so the model is finite.
#[test]
fn borrow_one_tick_while_the_clock_advances() {
    model(|| {
        let mut rig = Rig::new(1, None, 1);
        rig.mint(3);
        let calls = rig.race(&[&[Op::Mint], &[Op::Mint], &[Op::Advance]]);
        let out = check(&rig, &calls);
        assert_eq!(out.ids.len(), 2, "{calls:?}");
        finish(&rig, &out);
    });
}

/// Model 8: borrowing up to two ticks while a third thread advances the clock by one, 2 IDs
/// per tick, the setup already two ticks ahead (ticks 10 and 11 full, tick 12's sequence 0);
/// two threads `try_mint` once each.
///
/// Before the advance only tick 12's sequence 1 is within reach, and a mint finding tick 12
/// full fails, two ticks ahead of the clock it read; after the advance tick 13 is within reach
/// too, and both mints succeed.
#[test]
fn borrow_two_ticks_while_the_clock_advances() {
    model(|| {
        let mut rig = Rig::new(1, None, 2);
        rig.mint(5);
        let calls = rig.race(&[&[Op::TryMint], &[Op::TryMint], &[Op::Advance]]);
        let out = check(&rig, &calls);
        assert_eq!(out.ids.len() + out.exhausted.len(), 2, "{calls:?}");
        assert!(
            out.exhausted.iter().all(|&tick| tick == START_TICK + 2),
            "{calls:?}"
        );
        finish(&rig, &out);
    });
}

/// Model 9: a reading further behind the state than borrowed is a regression; borrowed time
/// is not.
///
/// Borrowing one tick, 2 IDs per tick, the clock at 11; the setup mints tick 11's sequences 0
/// and 1 and borrows tick 12 for a third, leaving the state at tick 12 with room for one more.
///
/// First the main thread sets the clock back to 10, two ticks behind the state (more than
/// borrowed), and two threads `try_mint` once each: both fail with `Error::ClockBehind`, 1 ms
/// behind the earliest time they can mint at (tick 11, the last minted tick less the one
/// borrowed), and each counts a regression. Tick 12 has room, but no ID may be minted there on
/// a clock at 10.
///
/// Then the clock goes to 11, one tick behind the state, and two threads `try_mint` once each
/// again: exactly one gets tick 12's sequence 1 (minting on borrowed time), the other finds
/// tick 12 full, one tick ahead of the clock, and fails with `SequenceExhausted`; no
/// regression is counted.
#[test]
fn borrowed_time_is_not_a_regression() {
    model(|| {
        let mut rig = Rig::at(START_TICK + 1, 1, None, 1);
        rig.mint(3);
        let layout = rig.layout;
        let setup: Vec<Minted> = rig.setup.iter().map(|&id| minted(&layout, id)).collect();
        assert_eq!(
            setup
                .iter()
                .map(|m| (m.tick, m.sequence))
                .collect::<Vec<_>>(),
            [(11, 0), (11, 1), (12, 0)]
        );

        rig.set_clock(START_TICK);
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let generator = rig.generator.clone();
                thread::spawn(move || generator.try_mint())
            })
            .collect();
        for handle in handles {
            let result = handle.join().unwrap();
            assert!(
                matches!(
                    result,
                    Err(Error::ClockBehind {
                        behind_ms: 1,
                        max_wait_ms: 0,
                        ..
                    })
                ),
                "try_mint two ticks behind the state: {result:?}"
            );
        }
        assert_eq!(rig.generator.stats().regressions, 2);

        rig.set_clock(START_TICK + 1);
        let calls = rig.race(&[&[Op::TryMint], &[Op::TryMint]]);
        let out = check(&rig, &calls);
        assert_eq!(
            out.ids
                .iter()
                .map(|m| (m.tick, m.sequence))
                .collect::<Vec<_>>(),
            [(12, 1)],
            "{calls:?}"
        );
        assert_eq!(out.exhausted, [12], "{calls:?}");
        finish(&rig, &out);
    });
}

/// Model 10: a generator confined to sequences 1 and 2 of a 2-bit sequence, on a fixed clock;
/// one thread `try_mint`s twice, the other once: exactly two succeed, with sequences 1 and 2,
/// and one finds the range used up (sequence 3 is free in the field, but not the generator's).
#[test]
fn sequence_range_races_at_exhaustion() {
    model(|| {
        let mut rig = Rig::new(2, Some(1..=2), 0);
        let calls = rig.race(&[&[Op::TryMint, Op::TryMint], &[Op::TryMint]]);
        let out = check(&rig, &calls);
        let mut sequences: Vec<u64> = out.ids.iter().map(|m| m.sequence).collect();
        sequences.sort_unstable();
        assert_eq!(sequences, [1, 2], "{calls:?}");
        assert_eq!(out.exhausted, [START_TICK], "{calls:?}");
        finish(&rig, &out);
    });
}

/// Model 11: a generator confined to sequences 1 to 3 of a 3-bit sequence, tick 10 already
/// holding sequence 1; a batch of 2 races a `mint()` while a third thread advances the clock
/// by one tick.
///
/// Tick 10 has sequences 2 and 3 left: the batch gets both, or just 3 (cut short at the end of
/// the range, not of the field) after the mint, or starts tick 11 at sequence 1. A call finding
/// tick 10 full waits for the advance (only one can: the other has then finished), and tick 11
/// holds all 3 IDs the race can want.
#[test]
fn sequence_range_batch_while_the_clock_advances() {
    model(|| {
        let mut rig = Rig::new(3, Some(1..=3), 0);
        rig.mint(1);
        let calls = rig.race(&[&[Op::Batch(2)], &[Op::Mint], &[Op::Advance]]);
        let out = check(&rig, &calls);
        assert_eq!(out.batch_counts.len(), 1, "{calls:?}");
        finish(&rig, &out);
    });
}
