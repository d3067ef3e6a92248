use std::cell::Cell;

use super::*;
use crate::Layout;
use crate::clock::ManualClock;
use crate::shard::Shards;

const MASK: u64 = 0xff;

/// A first ID of generator `generator` for `tick`, distinct for each pair, counting the calls.
fn first_of(generator: u64, calls: &Cell<u32>) -> impl FnOnce(u64) -> u128 + '_ {
    move |tick| {
        calls.set(calls.get() + 1);
        start(generator, tick)
    }
}

fn start(generator: u64, tick: u64) -> u128 {
    u128::from(generator) << 100 | u128::from(tick) << 8
}

/// The ID of `word` under generator `generator`'s first IDs.
fn of(generator: u64, word: u64) -> u128 {
    start(generator, word & !MASK) + u128::from(word & MASK)
}

#[test]
fn a_last_start_is_computed_once_per_tick() {
    let last = Last::default();
    let calls = Cell::new(0);
    let id = |word| (&last).id(word, MASK, first_of(1, &calls));
    assert_eq!(id(0x1_05), start(1, 0x1_00) + 5);
    assert_eq!(id(0x1_07), start(1, 0x1_00) + 7);
    assert_eq!(calls.get(), 1);
    assert_eq!(id(0x2_00), start(1, 0x2_00));
    assert_eq!(calls.get(), 2);
}

#[test]
fn a_thread_remembers_one_shared_generators_start_for_one_tick() {
    let (a, b) = (PerThread::new(), PerThread::new());
    assert_ne!(a.generator, b.generator);
    let calls = Cell::new(0);
    let id = |memory: PerThread, word| memory.id(word, MASK, first_of(memory.generator, &calls));
    let (ga, gb) = (a.generator, b.generator);
    assert_eq!(id(a, 0x1_05), start(ga, 0x1_00) + 5);
    assert_eq!(id(a, 0x1_ff), start(ga, 0x1_00) + 0xff);
    assert_eq!(calls.get(), 1);
    // Another generator on this thread, in the same tick: its own start, then the first's.
    assert_eq!(id(b, 0x1_06), start(gb, 0x1_00) + 6);
    assert_eq!(id(a, 0x1_07), start(ga, 0x1_00) + 7);
    assert_eq!(calls.get(), 3);
    // The next tick, and an earlier one.
    assert_eq!(id(a, 0x2_00), start(ga, 0x2_00));
    assert_eq!(id(a, 0x2_01), start(ga, 0x2_00) + 1);
    assert_eq!(calls.get(), 4);
    assert_eq!(id(a, 0x1_08), start(ga, 0x1_00) + 8);
    assert_eq!(calls.get(), 5);
    // Another thread remembers its own.
    std::thread::scope(|s| {
        s.spawn(|| {
            let calls = Cell::new(0);
            assert_eq!(
                a.id(0x1_09, MASK, first_of(ga, &calls)),
                start(ga, 0x1_00) + 9
            );
            assert_eq!(calls.get(), 1);
        });
    });
    assert_eq!(id(a, 0x1_0a), start(ga, 0x1_00) + 0xa);
    assert_eq!(calls.get(), 5);
}

#[test]
fn a_thread_remembers_a_sharded_generators_start_beside_its_run() {
    let layout = Layout::builder("memo", 64)
        .unused(14)
        .time(42)
        .sequence(8)
        .build_const();
    let clock = ManualClock::new(1_700_000_000_000);
    let sharded = || {
        Generator::builder(layout)
            .clock(&clock)
            .build_sharded(Shards::SplitSequence(2))
            .unwrap()
    };
    let (a, b) = (sharded(), sharded());
    let calls = Cell::new(0);
    // Distinct first IDs for the two generators.
    let id = |engine: &ShardedGenerator<_>, n: u64, word| {
        ByRun(engine).id(word, MASK, first_of(n, &calls))
    };
    // No run of `a` on this thread yet: computed, not kept.
    let word = a.local().mint().unwrap().to_u64();
    let tick = word & !MASK;
    assert_eq!(id(&a, 1, word), of(1, word));
    assert_eq!(id(&a, 1, word), of(1, word));
    assert_eq!(calls.get(), 2);
    // With a run of `a`: kept while the thread's run is `a`'s, for that tick.
    let word = a.mint().unwrap().to_u64();
    assert_eq!(id(&a, 1, word), of(1, word));
    let next = a.mint().unwrap().to_u64();
    assert_eq!(id(&a, 1, next), of(1, next));
    assert_eq!(calls.get(), 3);
    // `b`'s words while the run is `a`'s: computed each time, never `a`'s start.
    let other = b.local().mint().unwrap().to_u64();
    assert_eq!(id(&b, 2, other), of(2, other));
    assert_eq!(id(&b, 2, other), of(2, other));
    assert_eq!(calls.get(), 5);
    assert_eq!(id(&a, 1, next), of(1, next));
    assert_eq!(calls.get(), 5);
    // A run of `b`: `a`'s start is forgotten, and `b`'s kept.
    let other = b.mint().unwrap().to_u64();
    assert_eq!(id(&b, 2, other), of(2, other));
    assert_eq!(id(&b, 2, other), of(2, other));
    assert_eq!(calls.get(), 6);
    let word = a.mint().unwrap().to_u64();
    assert_eq!(id(&a, 1, word), of(1, word));
    assert_eq!(calls.get(), 7);
    // The next tick.
    clock.advance(1);
    let word = a.mint().unwrap().to_u64();
    assert_eq!(word & !MASK, tick + MASK + 1);
    assert_eq!(id(&a, 1, word), of(1, word));
    let next = a.mint().unwrap().to_u64();
    assert_eq!(id(&a, 1, next), of(1, next));
    assert_eq!(calls.get(), 8);
}
