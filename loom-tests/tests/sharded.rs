//! Loom models of a `ShardedGenerator`'s per-thread runs (`src/shard/runs.rs`): a thread hands
//! out the next ID of its run only while its shard's word still holds the state the run's
//! reservation installed, checked with a `Relaxed` load. Once a thread has observed (through
//! any synchronisation) that another thread minted from its shard, that load must see the
//! other thread's compare-and-swap, and the thread's next ID must be above the other's.
//!
//! Run from `loom-tests/` with
//!
//! ```text
//! RUSTFLAGS="--cfg snowmint_loom --cfg snowmint_test_hooks" LOOM_MAX_PREEMPTIONS=3 cargo test --release --test sharded
//! ```
//!
//! Loom runs the threads of a model as coroutines on one OS thread, so the standard library's
//! thread-locals, which hold each thread's run and its shard claims, are one set shared by
//! every thread of a model. In each model, thread A (the model's main thread) alone mints
//! through the runs; thread B reaches A's shard without a run: through `shard(i)`, or, sharing
//! a one-shard generator, through the generator's `mint_batch`, which finds the shard in the
//! claims cache A filled (a read, as on a thread of its own) and mints from it directly. The
//! clock is a `ManualClock` nobody moves, so A's run stays on its reading: only the shard's
//! word can end it.
#![cfg(snowmint_loom)]

use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use loom::thread;

use snowmint::{
    ClockBehind, Generator, Id, Layout,
    clock::ManualClock,
    shard::{ShardedGenerator, Shards},
};

mod common;

use common::{MACHINE, model, tiny};

/// The clock's reading: late 2023, past the tiny layouts' epoch. The fast path, the only one
/// that reserves runs of more than one ID, takes readings from 2^40 ms (2004) on; earlier
/// ones go to the slow path.
const NOW_MS: u64 = 1_700_000_000_000;

/// 32 IDs per tick, split into `shards` shards, on a `ManualClock` at `NOW_MS`: a shard of at
/// least 16 IDs lets runs grow to 2.
fn sharded(shards: usize) -> Arc<ShardedGenerator<ManualClock>> {
    let layout = tiny(5);
    let clock = ManualClock::new(NOW_MS);
    let sharded = Generator::builder(layout)
        .node("machine", MACHINE)
        .clock(clock)
        .on_clock_behind(ClockBehind::Error)
        .build_sharded(Shards::SplitSequence(shards))
        .expect("valid sharded generator");
    Arc::new(sharded)
}

fn sequence(layout: &Layout, id: u64) -> u64 {
    layout.decode(Id::from_u64(id)).expect("id fits").sequence()
}

/// A mints two IDs, so that it holds a run with one ID left (a run of 1, used up, then one of
/// 2), and returns them with the index of its shard.
fn hold_a_run(sharded: &ShardedGenerator<ManualClock>) -> ([u64; 2], usize) {
    let ids = [0; 2].map(|_| sharded.mint().expect("setup mint").to_u64());
    let local = sharded.local();
    let index = sharded
        .shards()
        .iter()
        .position(|shard| std::ptr::eq(shard, local))
        .expect("local() is one of the shards");
    // The shard's word holds the run's last state, one past the ID A handed out.
    assert_eq!(
        sharded.shards()[index].snapshot().sequence,
        sequence(sharded.layout(), ids[1]) + 1,
        "A holds no run with an ID left: {ids:?}"
    );
    (ids, index)
}

/// A holds a run of its shard of a generator of `shards` shards; B mints from that shard with
/// `b_mints` (given A's shard's index) and then publishes its ID with a Release store; A
/// mints, and if it had observed B's flag (Acquire) before, its ID must be above B's. After
/// joining B, A mints once more: above everything. Every ID is unique.
fn run_ended_by_b(shards: usize, b_mints: fn(&ShardedGenerator<ManualClock>, usize) -> u64) {
    model(move || {
        let sharded = sharded(shards);
        let (mine, index) = hold_a_run(&sharded);
        let published = Arc::new(AtomicBool::new(false));
        let theirs = Arc::new(AtomicU64::new(0));
        let b = {
            let (sharded, published, theirs) = (sharded.clone(), published.clone(), theirs.clone());
            thread::spawn(move || {
                let id = b_mints(&sharded, index);
                theirs.store(id, Ordering::Relaxed);
                published.store(true, Ordering::Release);
                id
            })
        };
        let observed = published.load(Ordering::Acquire);
        let next = sharded.mint().expect("A's mint").to_u64();
        if observed {
            let theirs = theirs.load(Ordering::Relaxed);
            assert!(
                next > theirs,
                "A minted {next} after observing B's {theirs}: its run was handed out"
            );
        }
        let theirs = b.join().unwrap();
        let last = sharded.mint().expect("A's mint after the join").to_u64();
        let all = [mine[0], mine[1], next, last, theirs];
        assert!(
            mine[0] < mine[1] && mine[1] < next && next < last,
            "A's IDs do not increase: {all:?}"
        );
        assert!(last > theirs, "A minted {last} after joining B's {theirs}");
        let mut sorted = all.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), all.len(), "an ID minted twice: {all:?}");
    });
}

/// B mints from A's shard through `shard(i)` on a generator of two shards.
#[test]
fn a_mint_through_shard_i_on_another_thread_ends_the_run() {
    run_ended_by_b(2, |sharded, index| {
        let shard = sharded.shard(index).expect("A's shard");
        shard.mint().expect("B's mint").to_u64()
    });
}

/// B shares A's shard (the only one) and mints through the generator's `mint_batch`.
#[test]
fn a_sharer_s_mint_ends_the_run() {
    run_ended_by_b(1, |sharded, _| {
        let mut ids = [Id::default(); 1];
        assert_eq!(sharded.mint_batch(&mut ids), Ok(1), "B's batch");
        ids[0].to_u64()
    });
}
