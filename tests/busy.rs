//! Saturation on a busy machine: a default-built generator on the Twitter layout, minting
//! from two threads while two other processes spin on every core, so the cached clock's
//! refresher has to wait for a core. Every ID is checked: unique, increasing per thread, and
//! carrying a time within the run (a starved refresher may leave the cached reading behind,
//! but a full tick reads the source, so no ID is minted at a time before the run or after it).
//! How fast it mints there is a benchmark's business (`benches/peers.rs`), not a test's.

#![cfg(unix)]

mod common;

use std::process::Command;
use std::thread;

use snowmint::{Generator, Id, Layout};

use common::checks::{assert_near, assert_unique_and_increasing};
use common::clocks::wall_ms;
use common::process::KillOnDrop;
use common::threads::on_threads;

const THREADS: usize = 2;
/// A little over half a second at the layout's ceiling of 4,096,000 IDs/s.
const PER_THREAD: usize = 1_200_000;

/// Busy loops in other processes, one per core, killed when dropped.
fn spinners() -> Vec<KillOnDrop> {
    let cores = thread::available_parallelism().map_or(2, usize::from);
    (0..cores)
        .map(|_| {
            KillOnDrop(
                Command::new("sh")
                    .args(["-c", "while :; do :; done"])
                    .spawn()
                    .expect("start a busy loop"),
            )
        })
        .collect()
}

#[test]
fn two_threads_on_a_busy_machine_mint_unique_increasing_ids_of_their_time() {
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 9)
        .build()
        .unwrap();
    let spinners = spinners();
    let started = wall_ms();
    let minted: Vec<Vec<Id>> = on_threads(THREADS, |_| {
        (0..PER_THREAD)
            .map(|_| generator.mint().unwrap())
            .collect::<Vec<_>>()
    });
    let ended = wall_ms();
    drop(spinners);
    assert_unique_and_increasing(&minted);
    // Times within the run, give or take the clock's agreement with the wall clock.
    for ids in &minted {
        for &id in [ids[0], ids[ids.len() - 1]].iter() {
            let ms = Layout::TWITTER.decode(id).unwrap().unix_ms();
            assert_near(ms, started, ended, 50, "an ID's time");
        }
    }
    // At 4,096 IDs a tick, the run spans at least this many ticks: ticks filled and moved on.
    let first = minted.iter().map(|ids| ids[0]).min().unwrap();
    let last = minted.iter().map(|ids| ids[ids.len() - 1]).max().unwrap();
    let span = Layout::TWITTER.decode(last).unwrap().unix_ms()
        - Layout::TWITTER.decode(first).unwrap().unix_ms();
    assert!(
        span + 1 >= (THREADS * PER_THREAD / 4_096) as u64,
        "{span} ms"
    );
}
