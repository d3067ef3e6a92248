//! Generators across a real `fork()`.
//!
//! A child holds a copy of every generator its parent built, state word and node ID included:
//! minting from that copy would repeat the IDs the parent mints, so every minting method of
//! every kind of generator fails there with `Error::Forked`, naming both processes and the
//! remedy. A generator built in the child, with a node of its own, mints at the child's time
//! (the cached clock's fork handler marks the reading stale: the child's first read is precise
//! and starts a refresher of its own). The parent's generators mint on. Each test forks once;
//! the child reports through its exit status.

#![cfg(unix)]

mod common;

use std::collections::HashSet;
use std::fmt::Debug;
use std::path::PathBuf;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use snowmint::clock::{CachedClock, ManualClock};
use snowmint::generator::State;
use snowmint::mark::{MarkFile, MarkFileStore, MarkStore, MarkedGenerator};
use snowmint::shard::Shards;
use snowmint::sno::SnoGenerator;
use snowmint::{Clock, Generator, GeneratorBuilder, Id, Layout, Mint};

use common::clocks::wall_ms;
use common::files::TempDir;
use common::forks::{self, is_forked};

/// How far an ID's time may be from the wall clock read around the mint: the default clock
/// follows the wall clock to well under a millisecond; the rest is a child descheduled
/// between the readings on a busy machine. A stale reading is off by the whole idle time.
const SLACK_MS: u64 = 40;

/// How long the child sits idle before it mints: long enough for a stale reading to show.
const IDLE: Duration = Duration::from_millis(300);

/// Mints with `mint` between two wall-clock readings: `Ok` if the ID carries a time between
/// them (give or take [`SLACK_MS`]), else a description of the gap.
fn fresh(what: &str, mint: impl FnOnce() -> Id) -> Result<(), String> {
    let before = wall_ms();
    let id = mint();
    let after = wall_ms();
    let ms = Layout::TWITTER.decode(id).unwrap().unix_ms();
    if before.saturating_sub(SLACK_MS) <= ms && ms <= after + SLACK_MS {
        Ok(())
    } else {
        Err(format!(
            "{what}: the ID's time {ms} is outside the wall clock's {before}..={after}"
        ))
    }
}

/// How long the child may take before the parent kills it as hung.
const CHILD_DEADLINE: Duration = Duration::from_secs(30);

/// Forks and runs `child` there: its exit status (see [`forks::in_child`]).
fn in_child(child: impl FnOnce() -> Result<(), String>) -> i32 {
    forks::in_child(CHILD_DEADLINE, child)
}

/// In a forked child: every minting method of `generator` fails with `Error::Forked`, naming
/// the generator as `kind`, built in `parent`.
fn every_method_fails<G: Mint>(generator: &G, kind: &str, parent: u32) -> Result<(), String>
where
    G::Id: Debug,
{
    let mut out = [G::Id::default(); 8];
    is_forked("mint", generator.mint(), kind, parent)?;
    is_forked("try_mint", generator.try_mint(), kind, parent)?;
    is_forked("mint_batch", generator.mint_batch(&mut out), kind, parent)?;
    is_forked(
        "try_mint_batch",
        generator.try_mint_batch(&mut out),
        kind,
        parent,
    )?;
    is_forked("mint_many", generator.mint_many(10_000), kind, parent)?;
    if out != [G::Id::default(); 8] {
        return Err(format!("a failed batch wrote {out:?}"));
    }
    Ok(())
}

/// Mints 1,000 IDs with `mint`: `Ok` if they are new to `seen` (which keeps them).
fn all_new(seen: &mut HashSet<u64>, mut mint: impl FnMut() -> u64) -> Result<(), String> {
    for _ in 0..1_000 {
        let id = mint();
        if !seen.insert(id) {
            return Err(format!("{id} was minted twice"));
        }
    }
    Ok(())
}

/// Regression: a generator inherited across `fork()` minted the same IDs in parent and child
/// (1,000 of the child's 1,000). Now it fails in the child through every minting method, and
/// the parent's copy mints on, IDs none of which it minted before.
#[test]
fn a_generator_inherited_across_fork_fails_in_the_child_and_mints_on_in_the_parent() {
    let parent = std::process::id();
    let inherited = Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .build()
        .unwrap();
    let mut seen = HashSet::new();
    all_new(&mut seen, || inherited.mint().unwrap().to_u64()).unwrap();
    let status = in_child(|| {
        every_method_fails(&inherited, "Generator", parent)?;
        // The inherent `mint_many` too, and a failure does not turn into a success later.
        is_forked("mint_many", inherited.mint_many(3), "Generator", parent)?;
        is_forked("mint again", inherited.mint(), "Generator", parent)
    });
    assert_eq!(
        status, 0,
        "the inherited generator minted (see the child's stderr)"
    );
    all_new(&mut seen, || inherited.mint().unwrap().to_u64()).unwrap();
    fresh("the parent after the fork", || inherited.mint().unwrap()).unwrap();
}

/// A generator built in the child, with another node, mints at the child's time, after
/// idling and on: the clock the child inherited restarts.
#[test]
fn a_generator_built_in_a_forked_child_mints_at_the_childs_time() {
    let inherited = Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .build()
        .unwrap();
    // The parent mints, so its refresher runs and the reading is fresh when it forks.
    for _ in 0..1_000 {
        inherited.mint().unwrap();
    }
    let status = in_child(|| {
        thread::sleep(IDLE);
        let new = Generator::builder(Layout::TWITTER)
            .node("machine", 2)
            .build()
            .unwrap();
        fresh("a new generator after idling", || new.mint().unwrap())?;
        // The child's own refresher now runs: readings stay fresh while it mints.
        for _ in 0..20 {
            thread::sleep(Duration::from_millis(2));
            fresh("minting on", || new.mint().unwrap())?;
        }
        thread::sleep(IDLE);
        fresh("after idling again", || new.mint().unwrap())?;
        let clock = CachedClock::global();
        let wall = wall_ms();
        if clock.unix_ms().abs_diff(wall) > SLACK_MS {
            return Err(format!(
                "the clock reads {} at wall {wall}",
                clock.unix_ms()
            ));
        }
        Ok(())
    });
    assert_eq!(status, 0, "the child's IDs were not fresh (see its stderr)");
    // The parent's clock is unaffected.
    fresh("the parent after the fork", || inherited.mint().unwrap()).unwrap();
}

#[test]
fn a_local_generator_inherited_across_fork_fails_in_the_child() {
    let parent = std::process::id();
    let inherited = Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .build_local()
        .unwrap();
    let mut seen = HashSet::new();
    all_new(&mut seen, || inherited.mint().unwrap().to_u64()).unwrap();
    let status = in_child(|| {
        every_method_fails(&inherited, "LocalGenerator", parent)?;
        let new = Generator::builder(Layout::TWITTER)
            .node("machine", 2)
            .build_local()
            .unwrap();
        fresh("a new local generator", || new.mint().unwrap())
    });
    assert_eq!(status, 0, "see the child's stderr");
    all_new(&mut seen, || inherited.mint().unwrap().to_u64()).unwrap();
}

/// On a clock that is not a cached clock, a generator's shortcut compares the fork count: the
/// child's clock gives the very reading the parent's generator confirmed (a `ManualClock` that
/// stands still, shared by `Arc`), so the reading's compare alone would let the inherited
/// generator mint the parent's next ID on that tick. `kind` is the generator's name in
/// [`Error::Forked`](snowmint::Error::Forked).
fn fails_in_a_child_whose_clock_repeats_its_reading<S: State>(
    build: impl FnOnce(
        GeneratorBuilder<Arc<ManualClock>>,
    ) -> snowmint::Result<Generator<Arc<ManualClock>, S>>,
    kind: &str,
) {
    let parent = std::process::id();
    let clock = Arc::new(ManualClock::new(common::clocks::T0));
    let builder = Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .clock(Arc::clone(&clock));
    let inherited = build(builder).unwrap();
    // Two mints on the tick: the second is the shortcut's, on the confirmed reading.
    let first = inherited.mint().unwrap();
    assert_eq!(inherited.mint().unwrap().to_u64(), first.to_u64() + 1);
    let status = in_child(|| {
        if clock.unix_ms() != common::clocks::T0 {
            return Err(format!("the child's clock reads {}", clock.unix_ms()));
        }
        is_forked("mint", inherited.mint(), kind, parent)?;
        is_forked("try_mint", inherited.try_mint(), kind, parent)
    });
    assert_eq!(status, 0, "see the child's stderr");
    assert_eq!(inherited.mint().unwrap().to_u64(), first.to_u64() + 2);
}

#[test]
fn a_local_generator_on_a_clock_that_repeats_its_reading_in_the_child_fails_there() {
    fails_in_a_child_whose_clock_repeats_its_reading(
        GeneratorBuilder::build_local,
        "LocalGenerator",
    );
}

#[test]
fn a_shared_generator_on_a_clock_that_repeats_its_reading_in_the_child_fails_there() {
    fails_in_a_child_whose_clock_repeats_its_reading(GeneratorBuilder::build, "Generator");
}

#[test]
fn a_sharded_handle_s_run_of_ids_left_over_in_the_forking_thread_is_not_handed_out_in_the_child() {
    // On a clock that stands still, the forking thread's run of its shard's IDs has IDs left:
    // the child's copy of it would hand them out as the parent does.
    let parent = std::process::id();
    let clock = snowmint::clock::ManualClock::new(1_700_000_000_000);
    let inherited = Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .clock(clock)
        .build_sharded(Shards::SplitSequence(2))
        .unwrap();
    let mut seen = HashSet::new();
    for _ in 0..10 {
        assert!(seen.insert(inherited.mint().unwrap()));
    }
    let status = in_child(|| {
        is_forked("mint", inherited.mint(), "ShardedGenerator", parent)?;
        is_forked("try_mint", inherited.try_mint(), "ShardedGenerator", parent)
    });
    assert_eq!(status, 0, "see the child's stderr");
    let next = inherited.mint().unwrap();
    assert!(seen.insert(next) && seen.iter().all(|&id| id <= next));
}

#[test]
fn a_sharded_generator_and_its_shards_inherited_across_fork_fail_in_the_child() {
    let parent = std::process::id();
    let inherited = Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .build_sharded(Shards::SplitSequence(2))
        .unwrap();
    let mut seen = HashSet::new();
    all_new(&mut seen, || inherited.mint().unwrap().to_u64()).unwrap();
    let status = in_child(|| {
        every_method_fails(&inherited, "ShardedGenerator", parent)?;
        every_method_fails(inherited.local(), "ShardedGenerator", parent)?;
        for shard in inherited.shards() {
            every_method_fails(shard, "ShardedGenerator", parent)?;
        }
        let new = Generator::builder(Layout::TWITTER)
            .node("machine", 2)
            .build_sharded(Shards::SplitSequence(2))
            .unwrap();
        fresh("a new sharded generator", || new.mint().unwrap())
    });
    assert_eq!(status, 0, "see the child's stderr");
    all_new(&mut seen, || inherited.mint().unwrap().to_u64()).unwrap();
    all_new(&mut seen, || {
        inherited.shard(1).unwrap().mint().unwrap().to_u64()
    })
    .unwrap();
}

#[test]
fn a_marked_generator_inherited_across_fork_fails_in_the_child() {
    let parent = std::process::id();
    let dir = TempDir::new("fork-marked");
    let open = |name: &str| MarkFile::open(dir.join(name), Duration::from_secs(1)).unwrap();
    let file = open("machine-1");
    let generator = file.resume(Layout::TWITTER).node("machine", 1).build();
    let inherited = MarkedGenerator::<_, MarkFileStore>::new(generator.unwrap(), file).unwrap();
    let mut seen = HashSet::new();
    all_new(&mut seen, || inherited.mint().unwrap().to_u64()).unwrap();
    let status = in_child(|| {
        every_method_fails(&inherited, "MarkedGenerator", parent)?;
        // The remedy: a generator of its own, on a node with a mark file of its own.
        let file = open("machine-2");
        let generator = file.resume(Layout::TWITTER).node("machine", 2).build();
        let new = MarkedGenerator::<_, MarkFileStore>::new(generator.unwrap(), file).unwrap();
        fresh("a new marked generator", || new.mint().unwrap())
    });
    assert_eq!(status, 0, "see the child's stderr");
    all_new(&mut seen, || inherited.mint().unwrap().to_u64()).unwrap();
}

/// A store that records its `stop` in a file.
struct StopRecorder(PathBuf);

impl MarkStore for StopRecorder {
    fn start<C: Clock + Send + Sync + 'static>(
        &self,
        _: &Arc<Generator<C>>,
    ) -> snowmint::Result<()> {
        Ok(())
    }

    fn admit(&self, _time_ms: u64) -> snowmint::Result<()> {
        Ok(())
    }

    fn stop(&mut self, end_ms: u64) -> snowmint::Result<()> {
        std::fs::write(&self.0, format!("{} {end_ms}\n", std::process::id())).unwrap();
        Ok(())
    }
}

/// A marked generator's store (an etcd lease, a file) is its parent's in a forked child: the
/// child's copy neither stops it on `shutdown` (which fails) nor on drop. The parent's does.
#[test]
fn a_marked_generator_in_a_forked_child_leaves_its_parents_store_alone() {
    let parent = std::process::id();
    let dir = TempDir::new("fork-marked-stop");
    let stopped = dir.join("stopped");
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .build()
        .unwrap();
    let mut inherited = Some(
        MarkedGenerator::<_, StopRecorder>::new(generator, StopRecorder(stopped.clone())).unwrap(),
    );
    inherited.as_ref().unwrap().mint().unwrap();
    let status = in_child(|| {
        let copy = inherited.take().unwrap();
        is_forked("shutdown", copy.shutdown(), "MarkedGenerator", parent)?;
        drop(inherited.take());
        match stopped.exists() {
            true => Err("the child stopped its parent's store".to_owned()),
            false => Ok(()),
        }
    });
    assert_eq!(status, 0, "see the child's stderr");
    assert!(!stopped.exists(), "the child stopped its parent's store");
    let generator = inherited.take().unwrap();
    generator.mint().unwrap();
    generator.shutdown().unwrap();
    let record = std::fs::read_to_string(&stopped).unwrap();
    assert!(
        record.starts_with(&format!("{parent} ")),
        "the store was stopped by {record:?}; expected the parent {parent}"
    );
}

#[test]
fn a_sno_generator_inherited_across_fork_fails_in_the_child() {
    let parent = std::process::id();
    let inherited = SnoGenerator::builder().partition(1).build().unwrap();
    let mut seen = HashSet::new();
    for _ in 0..1_000 {
        assert!(seen.insert(inherited.mint().unwrap()));
    }
    let status = in_child(|| {
        every_method_fails(&inherited, "SnoGenerator", parent)?;
        let mut out = [Default::default(); 4];
        is_forked(
            "mint_with_meta",
            inherited.mint_with_meta(7),
            "SnoGenerator",
            parent,
        )?;
        is_forked(
            "mint_batch_with_meta",
            inherited.mint_batch_with_meta(7, &mut out),
            "SnoGenerator",
            parent,
        )?;
        let new = SnoGenerator::builder().partition(2).build().unwrap();
        let before = wall_ms();
        let id = new.mint().map_err(|err| err.to_string())?;
        let ms = id
            .time()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64;
        if ms.abs_diff(before) > SLACK_MS || id.partition() != 2 {
            return Err(format!(
                "a new sno generator minted {id:?} at wall {before}"
            ));
        }
        Ok(())
    });
    assert_eq!(status, 0, "see the child's stderr");
    for _ in 0..1_000 {
        assert!(seen.insert(inherited.mint().unwrap()));
    }
}

/// Waits until `path` exists, for at most [`CHILD_DEADLINE`]: whether it does.
fn appears(path: &std::path::Path) -> bool {
    let deadline = std::time::Instant::now() + CHILD_DEADLINE;
    while !path.exists() {
        if std::time::Instant::now() >= deadline {
            return false;
        }
        thread::sleep(Duration::from_millis(1));
    }
    true
}

/// Regression: a child that lived on after its parent let go of a mark file (a worker that
/// never execs) kept the file's hold, its copy of the `.owner` lock's descriptor, so the
/// parent's successor could not open the file until the child exited. Now the child keeps
/// no hold, and cannot use its parent's file: opening it again is refused while the parent
/// holds it, and a generator over the parent's `MarkFile` fails with `Error::Forked`.
#[test]
fn a_forked_child_keeps_no_hold_on_its_parents_mark_file() {
    let parent = std::process::id();
    let dir = TempDir::new("fork-mark-hold");
    let (path, ready, done) = (dir.join("mark"), dir.join("ready"), dir.join("done"));
    let file = MarkFile::open(&path, Duration::from_secs(1)).unwrap();
    let generator = file.resume(Layout::TWITTER).node("machine", 1).build();
    let generator = MarkedGenerator::<_, MarkFileStore>::new(generator.unwrap(), file.clone());
    let generator = generator.unwrap();
    generator.mint().unwrap();
    let child = forks::fork(|_| {
        if MarkFile::open(&path, Duration::from_secs(1)).is_ok() {
            return Err("the child opened the file its parent holds".to_owned());
        }
        let own = file.resume(Layout::TWITTER).node("machine", 2).build();
        let own = own.map_err(|err| err.to_string())?;
        is_forked(
            "a generator over the parent's file",
            MarkedGenerator::<_, MarkFileStore>::new(own, file.clone()),
            "MarkFile",
            parent,
        )?;
        std::fs::write(&ready, "").map_err(|err| err.to_string())?;
        // A worker that lives on.
        match appears(&done) {
            true => Ok(()),
            false => Err("the parent never said it was done".to_owned()),
        }
    });
    assert!(appears(&ready), "the child never got ready");
    let mark = generator.mark();
    drop((generator, file));
    // The parent's successor opens the file while the child lives on.
    let reopened = MarkFile::open(&path, Duration::from_secs(1));
    std::fs::write(&done, "").unwrap();
    let ended = child.wait(CHILD_DEADLINE);
    let reopened = reopened.expect("the parent's successor could not open the file");
    ended.success().unwrap();
    assert_eq!(reopened.mark(), Some(mark));
}

/// A store's own fork check ([`ForkCheck`](snowmint::mark::ForkCheck)): `Ok` in the process
/// that made it, [`Error::Forked`](snowmint::Error::Forked) naming the store in a child.
#[test]
fn a_fork_check_fails_in_a_forked_child_naming_the_store() {
    let check = snowmint::mark::ForkCheck::new();
    let parent = std::process::id();
    let status = forks::in_child(Duration::from_secs(30), || {
        is_forked("check", check.check("MyStore"), "MyStore", parent)
    });
    assert_eq!(status, 0, "see the child's stderr");
    assert_eq!(check.check("MyStore"), Ok(()));
}
