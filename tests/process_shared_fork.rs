//! Fault injection: `fork()` while a thread of the parent is stopped in the middle of a mint
//! from a [`SharedWord`](snowmint::generator::SharedWord) in a shared mapping, between the
//! load of the word and its compare-and-swap (the pause point [`Point::Mint`]).
//!
//! Unlike a generator's own word, the mapping is not copied into the child: the child and
//! the parent mint from one word. The inherited generator must fail in the child with
//! `Error::Forked`; a generator the child builds on the same mapping mints on, moving the word
//! on under the stopped thread. Once the child has exited the parent releases its thread,
//! whose compare-and-swap fails (the word holds the child's last state, not the one it
//! loaded) and which retries from the word as the child left it: its ID is above every ID
//! the child minted. No ID repeats across the parent and its children, and each process's
//! IDs increase. The child writes its IDs to a file the parent reads after it exits.

// Built only under `--cfg snowmint_pause_points`: CONTRIBUTING.md, "Test cfgs", has the command.
#![cfg(all(unix, snowmint_pause_points))]

mod common;

use std::collections::HashSet;
use std::path::Path;
use std::thread;
use std::time::Duration;

use snowmint::clock::CachedClock;
use snowmint::generator::{ProcessShared, SharedMapping, SharedWord};
use snowmint::pause::{self, Point};
use snowmint::{Generator, Id, Layout};

use common::files::TempDir;
use common::forks::{self, is_forked};

/// Forks per run.
const REPEATS: usize = 5;

/// IDs the parent mints before each fork, and each child mints while the parent's thread is
/// stopped.
const IDS: usize = 1_000;

/// How long a child may take, from the fork to its exit: it mints 1,000 IDs and writes them.
const DEADLINE: Duration = Duration::from_secs(10);

type Shared<'w> = Generator<CachedClock, ProcessShared<'w>>;

/// A generator on `word`, built alike in the parent and in every child.
fn build(word: &SharedWord) -> snowmint::Result<Shared<'_>> {
    Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .build_process_shared(word)
}

/// The child: the inherited generator fails, one of its own on `mapping` mints [`IDS`] IDs,
/// written to `out` one per line.
fn child(
    inherited: &Shared<'_>,
    mapping: &SharedMapping,
    parent: u32,
    out: &Path,
) -> Result<(), String> {
    is_forked("mint", inherited.mint(), "process-shared Generator", parent)?;
    let own = build(mapping).map_err(|err| err.to_string())?;
    let ids = own.mint_many(IDS).map_err(|err| err.to_string())?;
    let text: String = ids.iter().map(|id| format!("{id}\n")).collect();
    std::fs::write(out, text).map_err(|err| err.to_string())
}

#[test]
fn a_fork_while_a_thread_is_stopped_mid_mint_on_a_shared_word_moves_the_word_on_under_it() {
    let parent = std::process::id();
    let dir = TempDir::new("process-shared-fork");
    let mapping = SharedMapping::anonymous().unwrap();
    let generator = build(&mapping).unwrap();
    // The parent's IDs in the order its threads returned them, one after another.
    let mut parent_ids: Vec<Id> = Vec::new();
    let mut per_child: Vec<Vec<Id>> = Vec::new();
    let mut slowest = Duration::ZERO;
    for round in 0..REPEATS {
        parent_ids.extend((0..IDS).map(|_| generator.mint().unwrap()));
        let before_fork = *parent_ids.last().unwrap();
        let out = dir.join(&format!("child-{round}"));
        let armed = pause::arm(Point::Mint);
        let (stopped_id, took) = thread::scope(|s| {
            let stopped = s.spawn(|| generator.mint().unwrap());
            assert!(
                armed.wait_reached(Duration::from_secs(10)),
                "the minting thread never reached the pause point"
            );
            let forked = forks::fork(|_| child(&generator, &mapping, parent, &out));
            // The child mints while the thread stays stopped: release it only once the child
            // has exited.
            let ended = forked.wait(DEADLINE);
            if let Err(err) = ended.success() {
                panic!("round {round}: {err}");
            }
            assert!(
                !stopped.is_finished(),
                "round {round}: the thread did not stay at the pause point"
            );
            armed.release();
            (stopped.join().unwrap(), ended.lifetime)
        });
        slowest = slowest.max(took);
        let ids: Vec<Id> = std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .map(|line| line.parse().unwrap())
            .collect();
        assert_eq!(ids.len(), IDS, "round {round}");
        // The child continued from the word as the parent left it at the fork.
        assert!(
            ids[0] > before_fork,
            "round {round}: the child's first id {} is not above the parent's last before the \
             fork, {before_fork}",
            ids[0]
        );
        // The stopped thread's compare-and-swap lost to the child's mints; it retried from the
        // word the child left.
        let child_max = *ids.iter().max().unwrap();
        assert!(
            stopped_id > child_max,
            "round {round}: the stopped thread minted {stopped_id}, not above the child's \
             {child_max}"
        );
        parent_ids.push(stopped_id);
        per_child.push(ids);
    }

    for (process, ids) in [&parent_ids].into_iter().chain(&per_child).enumerate() {
        for pair in ids.windows(2) {
            assert!(
                pair[0] < pair[1],
                "process {process} (0: the parent): {} then {}",
                pair[0],
                pair[1]
            );
        }
    }
    let mut seen = HashSet::new();
    let mut repeats = 0;
    for id in parent_ids.iter().chain(per_child.iter().flatten()) {
        if !seen.insert(*id) {
            repeats += 1;
        }
    }
    let child_ids: usize = per_child.iter().map(Vec::len).sum();
    println!(
        "process_shared_fork: {REPEATS} forks at Point::Mint on a shared mapping, {} ids \
         (parent {}, children {child_ids}), {repeats} repeats, slowest child {slowest:?}",
        parent_ids.len() + child_ids,
        parent_ids.len(),
    );
    assert_eq!(repeats, 0, "an id was minted twice");
    assert_eq!(parent_ids.len(), REPEATS * (IDS + 1));
    assert_eq!(child_ids, REPEATS * IDS);
}
