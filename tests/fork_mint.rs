//! Fault injection: `fork()` while another thread is stopped in the middle of a mint, between
//! the load of the generator's state and its compare-and-swap (the pause point
//! [`Point::Mint`]).
//!
//! The child has a copy of the state word as that thread found it and none of the thread. The
//! inherited generator must fail there with `Error::Forked`, at once, and a generator the
//! child builds with a node of its own must mint at the child's time. The parent releases its
//! thread, whose compare-and-swap completes, and mints on. No ID of the child's is one the
//! parent minted, and no ID repeats within either. The child writes its IDs to a file the
//! parent reads after it exits.

// Built only under `--cfg snowmint_pause_points`: CONTRIBUTING.md, "Test cfgs", has the command.
#![cfg(all(unix, snowmint_pause_points))]

mod common;

use std::collections::HashSet;
use std::path::Path;
use std::thread;
use std::time::Duration;

use snowmint::pause::{self, Point};
use snowmint::{Generator, Layout};

use common::clocks::wall_ms;
use common::files::TempDir;
use common::forks::{self, is_forked};

/// Forks per run.
const REPEATS: usize = 5;

/// IDs each side mints around each fork.
const IDS: usize = 1_000;

/// How long a child may take, from the fork to its exit: it mints 1,000 IDs and writes them.
const DEADLINE: Duration = Duration::from_secs(10);

/// How far the child's IDs may be from the wall clock read around its minting (see
/// `tests/fork.rs`).
const SLACK_MS: u64 = 40;

/// The child: the inherited generator fails, a new one on machine `node` mints [`IDS`] IDs at
/// the child's time, written to `out` one per line.
fn child(inherited: &Generator, parent: u32, node: u64, out: &Path) -> Result<(), String> {
    is_forked("mint", inherited.mint(), "Generator", parent)?;
    let mut batch = [Default::default(); 16];
    is_forked(
        "mint_batch",
        inherited.mint_batch(&mut batch),
        "Generator",
        parent,
    )?;
    let new = Generator::builder(Layout::TWITTER)
        .node("machine", node)
        .build()
        .map_err(|err| err.to_string())?;
    let before = wall_ms();
    let ids = new.mint_many(IDS).map_err(|err| err.to_string())?;
    let after = wall_ms();
    for id in [ids[0], ids[IDS - 1]] {
        let ms = Layout::TWITTER.decode(id).unwrap().unix_ms();
        if ms + SLACK_MS < before || ms > after + SLACK_MS {
            return Err(format!(
                "the new generator minted at {ms}, outside {before}..={after}"
            ));
        }
    }
    let text: String = ids.iter().map(|id| format!("{id}\n")).collect();
    std::fs::write(out, text).map_err(|err| err.to_string())
}

#[test]
fn a_fork_while_a_thread_is_stopped_mid_mint_gives_the_child_forked_and_no_repeats() {
    let parent = std::process::id();
    let dir = TempDir::new("fork-mint");
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .build()
        .unwrap();
    let mut parent_ids = HashSet::new();
    let mut child_ids = HashSet::new();
    let mut slowest = Duration::ZERO;
    for round in 0..REPEATS {
        for _ in 0..IDS {
            assert!(parent_ids.insert(generator.mint().unwrap()));
        }
        let out = dir.join(&format!("child-{round}"));
        let armed = pause::arm(Point::Mint);
        let took = thread::scope(|s| {
            let stopped = s.spawn(|| generator.mint().unwrap());
            assert!(
                armed.wait_reached(Duration::from_secs(10)),
                "the minting thread never reached the pause point"
            );
            let forked = forks::fork(|_| child(&generator, parent, 2 + round as u64, &out));
            armed.release();
            assert!(parent_ids.insert(stopped.join().unwrap()));
            for _ in 0..IDS {
                assert!(parent_ids.insert(generator.mint().unwrap()));
            }
            let ended = forked.wait(DEADLINE);
            if let Err(err) = ended.success() {
                panic!("round {round}: {err}");
            }
            ended.lifetime
        });
        slowest = slowest.max(took);
        for line in std::fs::read_to_string(&out).unwrap().lines() {
            assert!(
                child_ids.insert(line.parse().unwrap()),
                "the child repeated {line}"
            );
        }
    }
    let repeats = child_ids.intersection(&parent_ids).count();
    println!(
        "fork_mint: {REPEATS} forks at Point::Mint, {} ids (parent {}, children {}), {repeats} \
         repeats, slowest child {slowest:?}",
        parent_ids.len() + child_ids.len(),
        parent_ids.len(),
        child_ids.len()
    );
    assert_eq!(repeats, 0, "the children minted IDs the parent minted");
    assert_eq!(parent_ids.len(), REPEATS * (2 * IDS + 1));
    assert_eq!(child_ids.len(), REPEATS * IDS);
}
