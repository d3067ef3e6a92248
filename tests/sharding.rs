//! Sequence ranges and sharded generators: a generator confined to a range mints only in it,
//! generators and shards sharing a node ID never collide, and snapshots keep their range.

mod common;

use std::collections::HashSet;
use std::ops::RangeInclusive;
use std::sync::{Barrier, mpsc};
use std::thread;
use std::time::Duration;

use snowmint::{
    Clock, Error, Generator, Id, Layout,
    clock::ManualClock,
    shard::{SequenceRanges, ShardedGenerator, Shards},
};

use common::checks::assert_unique_and_increasing;
use common::clocks::{T0, T0_TICK, on_manual_clock, sharded_on_manual_clock};
use common::threads::{blocked_until, on_threads};

const TWITTER: Layout = Layout::TWITTER;

const THREADS: usize = 8;
const PER_THREAD: usize = 50_000;

/// The twitter sequence of `id`.
fn sequence(id: Id) -> u64 {
    TWITTER.decode(id).unwrap().sequence()
}

/// A twitter generator for machine 378 confined to `range`, on a manual clock at `T0`.
fn ranged(range: RangeInclusive<u64>) -> (Generator<ManualClock>, ManualClock) {
    let builder = Generator::builder(TWITTER)
        .node("machine", 378)
        .sequence_range(range);
    on_manual_clock(builder, T0)
}

// A range of four values.

#[test]
fn a_four_value_range_mints_exactly_its_values_in_order_then_is_exhausted() {
    let (generator, _clock) = ranged(100..=103);
    let ids: Vec<Id> = (0..4).map(|_| generator.try_mint().unwrap()).collect();
    let sequences: Vec<u64> = ids.iter().map(|&id| sequence(id)).collect();
    assert_eq!(sequences, [100, 101, 102, 103]);
    for &id in &ids {
        let parts = TWITTER.decode(id).unwrap();
        assert_eq!(parts.unix_ms(), T0);
        assert_eq!(parts.node("machine"), Some(378));
    }
    assert_eq!(
        generator.try_mint(),
        Err(Error::SequenceExhausted {
            layout: "twitter",
            tick: T0_TICK,
            retry_after: Duration::from_millis(1),
        })
    );
    assert_eq!(generator.stats().overflows, 1);
}

#[test]
fn mint_on_a_full_four_value_range_waits_for_the_next_tick_and_restarts_at_the_range_start() {
    let (generator, clock) = ranged(100..=103);
    for _ in 0..4 {
        generator.try_mint().unwrap();
    }
    // On a full tick, mint waits for the clock to move.
    let id = blocked_until(
        Duration::from_millis(100),
        || generator.mint(),
        || clock.advance(1),
    )
    .unwrap();
    let parts = TWITTER.decode(id).unwrap();
    assert_eq!(parts.unix_ms(), T0 + 1);
    assert_eq!(parts.sequence(), 100);
    let stats = generator.stats();
    assert_eq!((stats.overflows, stats.waits), (1, 1), "{stats:?}");
    // The new tick continues through the range.
    assert_eq!(sequence(generator.mint().unwrap()), 101);
}

#[test]
fn mint_batch_of_ten_on_a_four_value_range_returns_four() {
    let (generator, clock) = ranged(100..=103);
    let sentinel = Id::from_u64(u64::MAX);
    let mut buffer = [sentinel; 10];
    assert_eq!(generator.mint_batch(&mut buffer).unwrap(), 4);
    let sequences: Vec<u64> = buffer[..4].iter().map(|&id| sequence(id)).collect();
    assert_eq!(sequences, [100, 101, 102, 103]);
    assert!(buffer[4..].iter().all(|&id| id == sentinel), "{buffer:?}");
    // The tick is full: the next batch is the next tick's range, once the clock gets there.
    assert!(matches!(
        generator.try_mint_batch(&mut buffer),
        Err(Error::SequenceExhausted { .. })
    ));
    clock.advance(1);
    assert_eq!(generator.mint_batch(&mut buffer).unwrap(), 4);
    assert_eq!(TWITTER.decode(buffer[0]).unwrap().unix_ms(), T0 + 1);
    assert_eq!(sequence(buffer[0]), 100);
}

#[test]
fn generators_with_disjoint_ranges_and_one_node_fill_a_tick_without_colliding() {
    let clock = ManualClock::new(T0);
    let ranges = SequenceRanges::new(&TWITTER, [0..=2, 3..=3, 4..=4095]).unwrap();
    let generators: Vec<_> = ranges
        .iter()
        .map(|range| {
            Generator::builder(TWITTER)
                .node("machine", 378)
                .sequence_range(range.clone())
                .clock(&clock)
                .build()
                .unwrap()
        })
        .collect();
    let mut seen = HashSet::new();
    for (generator, range) in generators.iter().zip(&ranges) {
        while let Ok(id) = generator.try_mint() {
            assert!(range.contains(&sequence(id)), "{id} outside {range:?}");
            assert!(seen.insert(id), "duplicate id {id}");
        }
    }
    // Together they minted the whole tick, each value once.
    assert_eq!(seen.len(), 4096);
}

// Stress: many threads, one node ID.

/// Mints `n` IDs with `mint` and `batch`, alternating single mints with batches of 1 to 64
/// (offset by `seed`), and checks each batch's count.
fn mint_mixed(
    n: usize,
    seed: usize,
    mint: impl Fn() -> snowmint::Result<Id>,
    batch: impl Fn(&mut [Id]) -> snowmint::Result<usize>,
) -> Vec<Id> {
    let mut ids = Vec::with_capacity(n);
    let mut buffer = [Id::from_u64(0); 64];
    let mut round = seed;
    while ids.len() < n {
        round += 1;
        if round.is_multiple_of(2) {
            ids.push(mint().unwrap());
        } else {
            let want = (round / 2 % 64 + 1).min(n - ids.len());
            let written = batch(&mut buffer[..want]).unwrap();
            assert!((1..=want).contains(&written), "{written} of {want}");
            ids.extend_from_slice(&buffer[..written]);
        }
    }
    ids
}

/// The index of the calling thread's shard.
fn local_index<C: Clock>(sharded: &ShardedGenerator<C>) -> usize {
    let local = sharded.local();
    sharded
        .shards()
        .iter()
        .position(|shard| std::ptr::eq(shard, local))
        .expect("local() is one of shards()")
}

/// Mints `PER_THREAD` IDs on each of `THREADS` threads from `sharded`, and checks them: unique
/// across all threads, strictly increasing within each, and each accepted by `check` for the
/// index of the shard its thread minted from.
fn stress_sharded(sharded: &ShardedGenerator, check: impl Fn(usize, Id)) {
    let minted: Vec<(usize, Vec<Id>)> = on_threads(THREADS, |t| {
        let shard = local_index(sharded);
        let ids = mint_mixed(
            PER_THREAD,
            t,
            || sharded.mint(),
            |out| sharded.mint_batch(out),
        );
        assert_eq!(local_index(sharded), shard, "the thread changed shards");
        (shard, ids)
    });
    let seen = assert_unique_and_increasing(minted.iter().map(|(_, ids)| ids));
    for (shard, ids) in &minted {
        assert_eq!(ids.len(), PER_THREAD);
        for &id in ids {
            check(*shard, id);
        }
    }
    assert_eq!(seen.len(), THREADS * PER_THREAD);
}

#[test]
fn threads_on_split_sequence_shards_get_unique_increasing_ids_in_their_shard_range() {
    let sharded = Generator::builder(TWITTER)
        .node("machine", 378)
        .build_sharded(Shards::SplitSequence(4))
        .unwrap();
    assert_eq!(sharded.len(), 4);
    let ranges = SequenceRanges::split(&TWITTER, 4).unwrap();
    stress_sharded(&sharded, |shard, id| {
        let parts = TWITTER.decode(id).unwrap();
        assert_eq!(parts.node("machine"), Some(378), "{parts:?}");
        assert!(
            ranges.as_slice()[shard].contains(&parts.sequence()),
            "shard {shard} minted {parts:?}, outside {:?}",
            ranges.as_slice()[shard]
        );
    });
}

#[test]
fn threads_on_node_block_shards_get_unique_increasing_ids_with_their_shard_node() {
    let sharded = Generator::builder(TWITTER)
        .build_sharded(Shards::NodeBlock {
            field: "machine",
            values: 8..=11,
        })
        .unwrap();
    assert_eq!(sharded.len(), 4);
    stress_sharded(&sharded, |shard, id| {
        let parts = TWITTER.decode(id).unwrap();
        assert_eq!(
            parts.node("machine"),
            Some(8 + shard as u64),
            "shard {shard}: {parts:?}"
        );
    });
}

#[test]
fn range_sharded_generators_with_one_node_give_eight_threads_unique_ids() {
    const PER_THREAD: usize = 25_000;
    let ranges = SequenceRanges::split(&TWITTER, 4).unwrap();
    let generators: Vec<Generator> = ranges
        .iter()
        .map(|range| {
            Generator::builder(TWITTER)
                .node("machine", 378)
                .sequence_range(range.clone())
                .build()
                .unwrap()
        })
        .collect();
    // Two threads per generator.
    let minted: Vec<(usize, Vec<Id>)> = on_threads(THREADS, |t| {
        let generator = &generators[t / 2];
        let ids = mint_mixed(
            PER_THREAD,
            t,
            || generator.mint(),
            |out| generator.mint_batch(out),
        );
        (t / 2, ids)
    });
    let seen = assert_unique_and_increasing(minted.iter().map(|(_, ids)| ids));
    for (index, ids) in &minted {
        let range = &ranges.as_slice()[*index];
        for &id in ids {
            let parts = TWITTER.decode(id).unwrap();
            assert_eq!(parts.node("machine"), Some(378));
            assert!(
                range.contains(&parts.sequence()),
                "{parts:?} outside {range:?}"
            );
        }
    }
    assert_eq!(seen.len(), THREADS * PER_THREAD);
}

// Building sharded generators.

#[test]
fn split_sequence_shards_split_the_builder_range() {
    let sharded = Generator::builder(TWITTER)
        .node("machine", 5)
        .sequence_range(2048..=4095)
        .clock(ManualClock::new(T0))
        .build_sharded(Shards::SplitSequence(2))
        .unwrap();
    let ranges: Vec<_> = sharded
        .shards()
        .iter()
        .map(|shard| shard.snapshot().sequence_range)
        .collect();
    assert_eq!(ranges, [2048..=3071, 3072..=4095]);
    assert_eq!(sequence(sharded.shard(0).unwrap().mint().unwrap()), 2048);
    assert_eq!(sequence(sharded.shard(1).unwrap().mint().unwrap()), 3072);
    assert!(sharded.shard(2).is_none());
}

#[test]
fn node_block_shards_each_carry_their_own_node_value_and_the_whole_range() {
    let sharded = Generator::builder(Layout::DISCORD)
        .node("process", 2)
        .clock(ManualClock::new(T0))
        .build_sharded(Shards::NodeBlock {
            field: "worker",
            values: 29..=31,
        })
        .unwrap();
    assert_eq!(sharded.len(), 3);
    for (shard, worker) in sharded.shards().iter().zip(29..) {
        let parts = Layout::DISCORD.decode(shard.mint().unwrap()).unwrap();
        assert_eq!(parts.node("worker"), Some(worker));
        assert_eq!(parts.node("process"), Some(2));
        assert_eq!(shard.snapshot().sequence_range, 0..=4095);
    }
}

#[test]
fn shards_share_the_clock_given() {
    let (sharded, clock) = sharded_on_manual_clock(
        Generator::builder(TWITTER).node("machine", 0),
        Shards::SplitSequence(3),
        T0,
    );
    clock.set(T0 + 42);
    for shard in sharded.shards() {
        let id = shard.mint().unwrap();
        assert_eq!(TWITTER.decode(id).unwrap().unix_ms(), T0 + 42);
    }
}

#[test]
fn build_sharded_rejects_zero_shards_more_shards_than_values_and_an_empty_block() {
    let builder = || {
        Generator::builder(TWITTER)
            .node("machine", 0)
            .clock(ManualClock::new(T0))
    };
    assert!(matches!(
        builder().build_sharded(Shards::SplitSequence(0)),
        Err(Error::InvalidShards {
            layout: "twitter",
            ..
        })
    ));
    assert!(matches!(
        builder()
            .sequence_range(0..=3)
            .build_sharded(Shards::SplitSequence(5)),
        Err(Error::InvalidShards {
            layout: "twitter",
            ..
        })
    ));
    let err = builder()
        .build_sharded(Shards::NodeBlock {
            field: "machine",
            values: RangeInclusive::new(9, 8),
        })
        .unwrap_err();
    assert!(matches!(
        err,
        Error::InvalidShards {
            layout: "twitter",
            ..
        }
    ));
    assert_eq!(
        err.to_string(),
        "invalid shards for layout twitter: the block of machine values 9..=8 is empty; \
         expected at least one value"
    );
}

#[test]
fn a_node_block_outside_the_field_or_already_set_is_an_error() {
    let builder = || Generator::builder(TWITTER).clock(ManualClock::new(T0));
    assert!(matches!(
        builder().build_sharded(Shards::NodeBlock {
            field: "machine",
            values: 1020..=1030,
        }),
        Err(Error::NodeOutOfRange { value: 1024, .. })
    ));
    assert!(matches!(
        builder().build_sharded(Shards::NodeBlock {
            field: "worker",
            values: 0..=1,
        }),
        Err(Error::UnknownNodeField { .. })
    ));
    // A block of the field the builder already set is a conflict, not a silent override.
    assert!(matches!(
        builder()
            .node("machine", 3)
            .build_sharded(Shards::NodeBlock {
                field: "machine",
                values: 8..=11,
            }),
        Err(Error::DuplicateNodeField {
            field: "machine",
            ..
        })
    ));
}

#[test]
fn build_sharded_rejects_a_resumed_builder() {
    let (generator, _clock) = ranged(0..=4095);
    generator.mint().unwrap();
    let err = Generator::resume(&generator.snapshot())
        .clock(ManualClock::new(T0))
        .build_sharded(Shards::SplitSequence(2))
        .unwrap_err();
    assert!(matches!(
        err,
        Error::InvalidShards {
            layout: "twitter",
            ..
        }
    ));
    assert!(
        err.to_string().contains("resume each shard"),
        "the message says what to do instead: {err}"
    );
}

#[test]
fn a_thread_mints_from_one_shard_and_stats_sum_the_shards() {
    let (sharded, _clock) = sharded_on_manual_clock(
        Generator::builder(TWITTER)
            .node("machine", 0)
            .borrow_ahead(3),
        Shards::SplitSequence(2),
        T0,
    );
    let local = local_index(&sharded);
    let id = sharded.mint().unwrap();
    assert_eq!(local_index(&sharded), local);
    let range = sharded.shards()[local].snapshot().sequence_range;
    assert_eq!(sequence(id), *range.start());
    // Shard 0 borrows one tick, shard 1 two: the sums, and the largest lead.
    let shard = |i: usize| sharded.shard(i).unwrap();
    for (i, ticks) in [(0, 1), (1, 2)] {
        while TWITTER
            .decode(shard(i).try_mint().unwrap())
            .unwrap()
            .unix_ms()
            < T0 + ticks
        {}
    }
    let stats = sharded.stats();
    assert_eq!(stats.borrows, 3, "{stats:?}");
    assert_eq!(stats.overflows, 3, "{stats:?}");
    assert_eq!(stats.max_ahead_ticks, 2, "{stats:?}");
    assert_eq!(stats.regressions, 0, "{stats:?}");
}

/// A twitter handle of two split shards on a manual clock at `T0`.
fn split_on_manual_clock() -> (ShardedGenerator<ManualClock>, ManualClock) {
    let (sharded, clock) = sharded_on_manual_clock(
        Generator::builder(TWITTER).node("machine", 0),
        Shards::SplitSequence(2),
        T0,
    );
    (sharded, clock)
}

#[test]
fn a_thread_s_handle_mints_are_consecutive_in_its_shard_while_the_clock_reads_the_same() {
    // Each thread takes runs of its shard's IDs, growing while it uses them up: on a clock
    // that stands still it hands out its shard's whole tick, in order, then finds it full.
    let (sharded, _clock) = split_on_manual_clock();
    let range = sharded.local().snapshot().sequence_range;
    let mut ids = Vec::new();
    while let Ok(id) = sharded.try_mint() {
        ids.push(id);
    }
    let sequences: Vec<u64> = ids.iter().map(|&id| sequence(id)).collect();
    assert_eq!(sequences, range.collect::<Vec<_>>());
    assert!(
        ids.iter()
            .all(|&id| TWITTER.decode(id).unwrap().unix_ms() == T0)
    );
}

#[test]
fn a_run_left_over_when_the_clock_moves_on_is_never_handed_out() {
    let (sharded, clock) = split_on_manual_clock();
    let mut ids: Vec<Id> = (0..10).map(|_| sharded.mint().unwrap()).collect();
    clock.advance(1);
    let next = sharded.mint().unwrap();
    let parts = TWITTER.decode(next).unwrap();
    let range = sharded.local().snapshot().sequence_range;
    assert_eq!(
        (parts.unix_ms(), parts.sequence()),
        (T0 + 1, *range.start())
    );
    ids.push(next);
    assert_unique_and_increasing([ids]);
}

#[test]
fn a_thread_that_mints_from_its_shard_directly_keeps_its_handle_ids_increasing() {
    // The handle's run is dropped whenever the thread reaches a shard itself, whose IDs come
    // after the run's.
    let (sharded, _clock) = split_on_manual_clock();
    let mut ids: Vec<Id> = (0..10).map(|_| sharded.mint().unwrap()).collect();
    ids.push(sharded.local().mint().unwrap());
    ids.push(sharded.mint().unwrap());
    let index = local_index(&sharded);
    ids.push(sharded.shard(index).unwrap().mint().unwrap());
    ids.push(sharded.mint().unwrap());
    ids.push(sharded.shards()[index].mint().unwrap());
    ids.push(sharded.mint().unwrap());
    let mut batch = [Id::default(); 4];
    let n = sharded.mint_batch(&mut batch).unwrap();
    ids.extend_from_slice(&batch[..n]);
    ids.push(sharded.mint().unwrap());
    ids.extend(sharded.mint_many(3).unwrap());
    ids.push(sharded.try_mint().unwrap());
    assert_unique_and_increasing([ids]);
}

#[test]
fn across_shards_an_id_minted_later_carries_a_tick_at_least_as_late() {
    let (sharded, clock) = sharded_on_manual_clock(
        Generator::builder(TWITTER).node("machine", 0),
        Shards::SplitSequence(2),
        T0,
    );
    let time = |id: Id| TWITTER.decode(id).unwrap().unix_ms();
    let earlier = sharded.shard(0).unwrap().mint().unwrap();
    clock.advance(1);
    let later = sharded.shard(1).unwrap().mint().unwrap();
    let last = sharded.shard(0).unwrap().mint().unwrap();
    assert!(time(earlier) <= time(later) && time(later) <= time(last));
    // Within one tick the order across shards is by range, not minting time.
    assert!(later > last);
}

#[test]
fn across_shards_borrowing_loosens_the_order_by_at_most_the_borrowed_ticks() {
    let (sharded, _clock) = sharded_on_manual_clock(
        Generator::builder(TWITTER)
            .node("machine", 0)
            .borrow_ahead(1),
        Shards::SplitSequence(2),
        T0,
    );
    let time = |id: Id| TWITTER.decode(id).unwrap().unix_ms();
    // Shard 0 fills its part of the clock's tick and borrows the next one.
    let earlier = std::iter::from_fn(|| sharded.shard(0).unwrap().try_mint().ok())
        .find(|&id| time(id) == T0 + 1)
        .expect("shard 0 borrows tick T0 + 1");
    // Minted after it, shard 1 is on the clock's tick: one tick earlier, never more.
    let later = sharded.shard(1).unwrap().try_mint().unwrap();
    assert_eq!(time(later), T0);
    assert!(time(later) + 1 >= time(earlier));
}

// Which thread mints from which shard.

/// A twitter generator for machine 378 with `shards` shards, each a part of the sequence.
fn split(shards: usize) -> ShardedGenerator {
    Generator::builder(TWITTER)
        .node("machine", 378)
        .build_sharded(Shards::SplitSequence(shards))
        .unwrap()
}

#[test]
fn threads_that_minted_from_other_sharded_generators_each_get_a_shard_of_their_own() {
    const K: usize = 4;
    let (other, fresh) = (split(3), split(K));
    let claimed = Barrier::new(K);
    let (ready, started) = mpsc::channel();
    let minted: Vec<(usize, Vec<Id>)> = thread::scope(|s| {
        let workers: Vec<_> = (0..K)
            .map(|_| {
                let ready = ready.clone();
                let (other, fresh, claimed) = (&other, &fresh, &claimed);
                let worker = s.spawn(move || {
                    other.mint().unwrap();
                    ready.send(()).unwrap();
                    let shard = local_index(fresh);
                    // Every worker holds its shard until all have one.
                    claimed.wait();
                    (shard, fresh.mint_many(1_000).unwrap())
                });
                // Between two workers, a thread that mints from the other generator and exits.
                started.recv().unwrap();
                s.spawn(|| other.mint().unwrap()).join().unwrap();
                worker
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let shards: HashSet<usize> = minted.iter().map(|(shard, _)| *shard).collect();
    assert_eq!(shards, (0..K).collect(), "{K} threads on shards {shards:?}");
    let ranges = SequenceRanges::split(&TWITTER, K).unwrap();
    for (shard, ids) in &minted {
        for &id in ids {
            assert!(ranges.as_slice()[*shard].contains(&sequence(id)), "{id:?}");
        }
    }
    assert_unique_and_increasing(minted.iter().map(|(_, ids)| ids));
}

#[test]
fn a_thread_that_exits_gives_its_shard_back() {
    let sharded = split(2);
    let next_thread = || thread::scope(|s| s.spawn(|| local_index(&sharded)).join().unwrap());
    for _ in 0..5 {
        assert_eq!(next_thread(), 0);
    }
    // While one thread holds shard 0, each next thread gets shard 1, then gives it back.
    // (Nothing asserts between the barriers, so a failure cannot leave a thread waiting.)
    let (held, release) = (Barrier::new(2), Barrier::new(2));
    let (holder, next) = thread::scope(|s| {
        let holder = s.spawn(|| {
            let shard = local_index(&sharded);
            held.wait();
            release.wait();
            shard
        });
        held.wait();
        let next: Vec<usize> = (0..5).map(|_| next_thread()).collect();
        release.wait();
        (holder.join().unwrap(), next)
    });
    assert_eq!((holder, next), (0, vec![1; 5]));
    assert_eq!(next_thread(), 0);
}

#[test]
fn a_thread_alternating_between_sharded_generators_keeps_its_shard_in_each() {
    // More generators than a thread caches, each with a different shard free first.
    let generators: Vec<ShardedGenerator> = (1..=6).map(split).collect();
    // (Nothing asserts between the barriers, so a failure cannot leave a thread waiting.)
    let (held, release) = (Barrier::new(2), Barrier::new(2));
    let (holder, shards, minted) = thread::scope(|s| {
        let holder = s.spawn(|| {
            let shards: Vec<usize> = generators[1..].iter().map(local_index).collect();
            held.wait();
            release.wait();
            shards
        });
        held.wait();
        let mut shards = HashSet::new();
        let mut minted = vec![Vec::new(); generators.len()];
        for _ in 0..200 {
            for (g, generator) in generators.iter().enumerate() {
                shards.insert((g, local_index(generator)));
                minted[g].push(generator.mint());
            }
        }
        release.wait();
        (holder.join().unwrap(), shards, minted)
    });
    assert_eq!(holder, [0; 5]);
    // Shard 0 of the first generator, shard 1 of the others, every round.
    let expected: HashSet<(usize, usize)> = (0..6).map(|g| (g, usize::from(g > 0))).collect();
    assert_eq!(shards, expected);
    for ids in minted {
        let ids: Vec<Id> = ids.into_iter().map(Result::unwrap).collect();
        assert_unique_and_increasing([ids]);
    }
}

#[test]
fn threads_beyond_the_shard_count_share_shards_evenly_and_mint_unique_increasing_ids() {
    const THREADS: usize = 6;
    let sharded = split(2);
    let (started, claimed) = (Barrier::new(THREADS), Barrier::new(THREADS));
    let minted: Vec<(usize, Vec<Id>)> = on_threads(THREADS, |t| {
        started.wait();
        let shard = local_index(&sharded);
        claimed.wait();
        let ids = mint_mixed(20_000, t, || sharded.mint(), |out| sharded.mint_batch(out));
        assert_eq!(local_index(&sharded), shard, "the thread changed shards");
        (shard, ids)
    });
    let on = |shard: usize| minted.iter().filter(|(s, _)| *s == shard).count();
    assert_eq!((on(0), on(1)), (3, 3));
    let seen = assert_unique_and_increasing(minted.iter().map(|(_, ids)| ids));
    assert_eq!(seen.len(), THREADS * 20_000);
    let ranges = SequenceRanges::split(&TWITTER, 2).unwrap();
    for (shard, ids) in &minted {
        for &id in ids {
            assert!(ranges.as_slice()[*shard].contains(&sequence(id)), "{id:?}");
        }
    }
}

#[test]
fn a_thread_outlives_the_sharded_generators_it_minted_from() {
    thread::scope(|s| {
        s.spawn(|| {
            for _ in 0..10 {
                let sharded = split(2);
                sharded.mint().unwrap();
                assert_eq!(local_index(&sharded), 0);
            }
            // The thread exits holding claims in ten dropped generators.
        });
    });
    let survivor = split(1);
    thread::scope(|s| {
        s.spawn(|| {
            survivor.mint().unwrap();
            drop(survivor);
        });
    });
}

// Snapshots keep the range.

#[test]
fn a_fresh_generator_snapshot_carries_the_whole_sequence_field() {
    let generator = Generator::builder(TWITTER)
        .node("machine", 0)
        .clock(ManualClock::new(T0))
        .build()
        .unwrap();
    assert_eq!(generator.snapshot().sequence_range, 0..=4095);
}

#[test]
fn a_snapshot_carries_the_sequence_range_and_resume_keeps_it() {
    let (generator, clock) = ranged(1024..=2047);
    for _ in 0..3 {
        generator.mint().unwrap();
    }
    let snapshot = generator.snapshot();
    assert_eq!(snapshot.sequence_range, 1024..=2047);
    assert_eq!((snapshot.last_tick, snapshot.sequence), (T0_TICK, 1026));

    let resumed = Generator::resume(&snapshot)
        .clock(clock.clone())
        .build()
        .unwrap();
    assert_eq!(resumed.snapshot().sequence_range, 1024..=2047);
    // The tick continues after the snapshot's sequence, up to the range's end and no further.
    let rest: Vec<u64> = std::iter::from_fn(|| resumed.try_mint().ok())
        .map(sequence)
        .collect();
    assert_eq!(rest, (1027..=2047).collect::<Vec<_>>());
    // The next tick starts at the range's start, not at 0.
    clock.advance(1);
    let parts = TWITTER.decode(resumed.mint().unwrap()).unwrap();
    assert_eq!((parts.unix_ms(), parts.sequence()), (T0 + 1, 1024));
    assert_eq!(parts.node("machine"), Some(378));
}

#[test]
fn resuming_into_a_range_above_the_snapshot_sequence_moves_to_the_next_tick() {
    let (generator, clock) = ranged(0..=1023);
    generator.mint().unwrap();
    let resumed = Generator::resume(&generator.snapshot())
        .sequence_range(1024..=2047)
        .clock(clock.clone())
        .build()
        .unwrap();
    // Nothing more at the snapshot's tick: it counts as full.
    assert_eq!(
        resumed.try_mint(),
        Err(Error::SequenceExhausted {
            layout: "twitter",
            tick: T0_TICK,
            retry_after: Duration::from_millis(1),
        })
    );
    clock.advance(1);
    let parts = TWITTER.decode(resumed.mint().unwrap()).unwrap();
    assert_eq!((parts.unix_ms(), parts.sequence()), (T0 + 1, 1024));
}

#[test]
fn resuming_into_a_range_below_the_snapshot_sequence_moves_to_the_next_tick() {
    let (generator, clock) = ranged(2048..=4095);
    generator.mint().unwrap();
    let resumed = Generator::resume(&generator.snapshot())
        .sequence_range(0..=1023)
        .clock(clock.clone())
        .build()
        .unwrap();
    assert!(matches!(
        resumed.try_mint(),
        Err(Error::SequenceExhausted { tick: T0_TICK, .. })
    ));
    clock.advance(1);
    let parts = TWITTER.decode(resumed.mint().unwrap()).unwrap();
    assert_eq!((parts.unix_ms(), parts.sequence()), (T0 + 1, 0));
}

#[test]
fn resuming_into_a_range_holding_the_snapshot_sequence_continues_the_tick() {
    let (generator, clock) = ranged(0..=4095);
    for _ in 0..101 {
        generator.mint().unwrap();
    }
    let resumed = Generator::resume(&generator.snapshot())
        .sequence_range(0..=1023)
        .clock(clock)
        .build()
        .unwrap();
    let parts = TWITTER.decode(resumed.mint().unwrap()).unwrap();
    assert_eq!((parts.unix_ms(), parts.sequence()), (T0, 101));
}

#[test]
fn resuming_a_snapshot_whose_range_does_not_fit_the_layout_is_an_error() {
    let (generator, _clock) = ranged(0..=4095);
    let mut snapshot = generator.snapshot();
    snapshot.sequence_range = 4000..=5000;
    let err = Generator::resume(&snapshot)
        .clock(ManualClock::new(T0))
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        Error::InvalidSequenceRange {
            layout: "twitter",
            range: 4000..=5000,
            problem: "ends past the sequence field",
            max: 4095,
        }
    );
}

#[cfg(feature = "serde")]
#[test]
fn a_snapshot_range_round_trips_through_json() {
    let (generator, clock) = ranged(100..=199);
    generator.mint().unwrap();
    let json = serde_json::to_string(&generator.snapshot()).unwrap();
    let snapshot: snowmint::Snapshot = serde_json::from_str(&json).unwrap();
    assert_eq!(snapshot, generator.snapshot());
    assert_eq!(snapshot.sequence_range, 100..=199);
    clock.advance(1);
    let resumed = Generator::resume(&snapshot).clock(clock).build().unwrap();
    assert_eq!(sequence(resumed.mint().unwrap()), 100);
}

/// Regression: sizes are checked before anything is allocated. `SequenceRanges::split` with
/// 2^62 parts of a 62-bit sequence, and a node block of 2^64 values, panicked on capacity
/// overflow; a block of 2^40 + 1 values aborted the process on allocation; and
/// `mint_many(usize::MAX)` panicked. Each is now an error naming what was asked.
#[test]
fn sizes_past_what_can_be_allocated_are_errors() {
    let wide = Layout::builder("seq62", 64)
        .time(2)
        .sequence(62)
        .epoch_ms(0)
        .build()
        .unwrap();
    let err = SequenceRanges::split(&wide, 1 << 62).unwrap_err();
    assert!(matches!(err, Error::InvalidShards { .. }), "{err:?}: {err}");
    assert!(
        err.to_string().ends_with(&format!(
            "expected 1..={} parts",
            snowmint::shard::MAX_PARTS
        )),
        "{err}"
    );
    assert_eq!(
        SequenceRanges::split(&wide, snowmint::shard::MAX_PARTS)
            .unwrap()
            .as_slice()
            .len(),
        snowmint::shard::MAX_PARTS
    );

    // A node block past the field: the field's range is checked first, before any shard.
    for values in [0..=u64::MAX, 0..=1 << 40, 1020..=3_000_000] {
        let err = Generator::builder(TWITTER)
            .build_sharded(Shards::NodeBlock {
                field: "machine",
                values: values.clone(),
            })
            .unwrap_err();
        assert!(
            matches!(err, Error::NodeOutOfRange { max: 1023, .. }),
            "{values:?}: {err:?}"
        );
    }
    // Within the field but more shards than allowed.
    let fleet = Layout::builder("fleet", 64)
        .unused(1)
        .time(41)
        .node("worker", 20)
        .sequence(2)
        .epoch_ms(1_288_834_974_657)
        .build()
        .unwrap();
    let err = Generator::builder(fleet)
        .build_local_shards(Shards::NodeBlock {
            field: "worker",
            values: 0..=(1 << 20) - 1,
        })
        .unwrap_err();
    assert!(matches!(err, Error::InvalidShards { .. }), "{err:?}");

    let generator = Generator::builder(TWITTER)
        .node("machine", 1)
        .build()
        .unwrap();
    let err = generator.mint_many(usize::MAX).unwrap_err();
    assert!(
        matches!(
            err,
            Error::TooLarge {
                what: "mint_many",
                requested: u64::MAX
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "mint_many: 18446744073709551615 items cannot be allocated"
    );
}
