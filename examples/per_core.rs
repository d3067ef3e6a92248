//! One generator per core: each thread owns a `LocalGenerator` and mints with a load and a
//! store, never touching a cache line another core writes.
//!
//! The generators' IDs never collide because each has a node ID of its own, from a block of
//! node IDs granted to this process (`Shards::NodeBlock`). Where the process has one node ID,
//! `Shards::SplitSequence(n)` splits its sequence between the generators instead.
//!
//! Run with `cargo run --example per_core`.

use std::collections::HashSet;
use std::thread;

use snowmint::{Generator, Id, Layout, shard::Shards};

/// IDs each thread mints.
const PER_THREAD: usize = 50_000;
/// The first machine ID of the block granted to this process.
const FIRST_MACHINE: u64 = 16;

fn main() -> snowmint::Result<()> {
    // One thread per core (at least two, so that there is something to collide).
    let cores = thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(2, 64);
    let machines = FIRST_MACHINE..=FIRST_MACHINE + cores as u64 - 1;

    // One `LocalGenerator` per machine ID of the block, all on the shared cached clock.
    let generators = Generator::builder(Layout::TWITTER).build_local_shards(Shards::NodeBlock {
        field: "machine",
        values: machines.clone(),
    })?;
    assert_eq!(generators.len(), cores);

    // Each generator moves to the thread that owns it: a `LocalGenerator` is `Send` but not
    // `Sync`, so the compiler rejects sharing one between threads.
    let per_thread: Vec<Vec<Id>> = thread::scope(|s| {
        let workers: Vec<_> = generators
            .into_iter()
            .map(|generator| {
                s.spawn(move || -> snowmint::Result<Vec<Id>> {
                    let ids = (0..PER_THREAD)
                        .map(|_| generator.mint())
                        .collect::<snowmint::Result<Vec<_>>>()?;
                    // The thread's own machine ID is in every one of its IDs.
                    let machine = generator.decode(ids[0])?.node("machine");
                    for &id in &ids {
                        assert_eq!(generator.decode(id)?.node("machine"), machine);
                    }
                    Ok(ids)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().expect("a minting thread panicked"))
            .collect::<snowmint::Result<Vec<_>>>()
    })?;

    // Each thread's IDs strictly increase, ...
    for ids in &per_thread {
        assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    }
    // ... each thread had a machine ID of the block to itself, ...
    let used: HashSet<u64> = per_thread
        .iter()
        .map(|ids| {
            Layout::TWITTER
                .decode(ids[0])
                .map(|p| p.node("machine").unwrap())
        })
        .collect::<snowmint::Result<_>>()?;
    assert_eq!(used, machines.collect::<HashSet<_>>());
    // ... and no ID was minted twice, across all threads.
    let unique: HashSet<Id> = per_thread.iter().flatten().copied().collect();
    assert_eq!(unique.len(), cores * PER_THREAD);
    println!(
        "{cores} threads minted {} unique IDs, {PER_THREAD} each",
        unique.len()
    );
    Ok(())
}
