//! Saturation on a busy machine: a default-built generator on the Twitter layout, minting
//! from two threads while two other processes spin on every core, so the cached clock's
//! refresher has to wait for a core. Every ID is checked: unique, increasing per thread, and
//! carrying a time within the run (a starved refresher may leave the cached reading behind,
//! but a full tick reads the source, so no ID is minted at a time before the run or after it).
//! How fast it mints there is a benchmark's business (`benches/scenarios.rs`), not a test's.

#![cfg(unix)]

use std::collections::HashSet;
use std::process::{Child, Command};
use std::thread;
use std::time::{SystemTime, UNIX_EPOCH};

use snowmint::{Generator, Id, Layout};

const THREADS: usize = 2;
/// A little over half a second at the layout's ceiling of 4,096,000 IDs/s.
const PER_THREAD: usize = 1_200_000;

fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// Busy loops in other processes, one per core, killed when dropped.
struct Spinners(Vec<Child>);

impl Spinners {
    fn start() -> Self {
        let cores = thread::available_parallelism().map_or(2, usize::from);
        Spinners(
            (0..cores)
                .map(|_| {
                    Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .spawn()
                        .expect("start a busy loop")
                })
                .collect(),
        )
    }
}

impl Drop for Spinners {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[test]
fn two_threads_on_a_busy_machine_mint_unique_increasing_ids_of_their_time() {
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 9)
        .build()
        .unwrap();
    let spinners = Spinners::start();
    let started = wall_ms();
    let minted: Vec<Vec<Id>> = thread::scope(|s| {
        let workers: Vec<_> = (0..THREADS)
            .map(|_| {
                s.spawn(|| {
                    (0..PER_THREAD)
                        .map(|_| generator.mint().unwrap())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let ended = wall_ms();
    drop(spinners);
    let mut all = HashSet::with_capacity(THREADS * PER_THREAD);
    for ids in &minted {
        assert!(
            ids.windows(2).all(|pair| pair[0] < pair[1]),
            "a thread's IDs did not increase"
        );
        for &id in ids {
            assert!(all.insert(id), "duplicate id {id}");
        }
    }
    // Times within the run, give or take the clock's agreement with the wall clock.
    for ids in &minted {
        for &id in [ids[0], ids[ids.len() - 1]].iter() {
            let ms = Layout::TWITTER.decode(id).unwrap().timestamp_ms();
            assert!(
                started.saturating_sub(50) <= ms && ms <= ended + 50,
                "an ID at {ms}, outside the run {started}..={ended}"
            );
        }
    }
    // At 4,096 IDs a tick, the run spans at least this many ticks: ticks filled and moved on.
    let first = minted.iter().map(|ids| ids[0]).min().unwrap();
    let last = minted.iter().map(|ids| ids[ids.len() - 1]).max().unwrap();
    let span = Layout::TWITTER.decode(last).unwrap().timestamp_ms()
        - Layout::TWITTER.decode(first).unwrap().timestamp_ms();
    assert!(
        span + 1 >= (THREADS * PER_THREAD / 4_096) as u64,
        "{span} ms"
    );
}
