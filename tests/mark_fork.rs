//! Fault injection: `fork()` while another thread is stopped inside a mark file's write, with
//! the store's write lock and the file's `.lock` taken (the pause point [`Point::MarkWrite`]).
//!
//! The child has a copy of the store's locks as that thread left them, taken for good. Nothing
//! the child can call on the marked generator it inherited may wait for them: every getter
//! answers, the store's own `admit` fails with `Error::Forked` instead of writing, and
//! `shutdown` and drop return. The parent releases its thread, whose write completes, and
//! mints on.

// Built only under `--cfg snowmint_pause_points`: CONTRIBUTING.md, "Test cfgs", has the command.
#![cfg(all(unix, snowmint_pause_points))]

mod common;

use std::thread;
use std::time::Duration;

use snowmint::Layout;
use snowmint::clock::ManualClock;
use snowmint::mark::{MarkFile, MarkFileStore, MarkStore, MarkedGenerator};
use snowmint::pause::{self, Point};

use common::clocks::T0;
use common::files::TempDir;
use common::forks::{self, is_forked};

/// How long the child may take, from the fork to its exit, before the parent kills it as
/// hung: it makes a few calls and no write.
const DEADLINE: Duration = Duration::from_secs(10);

/// The child: every call on the inherited generator returns, as the parent left it or with
/// `Error::Forked`; dropping it returns too.
fn child(
    inherited: MarkedGenerator<ManualClock, MarkFileStore>,
    parent: u32,
) -> Result<(), String> {
    if (inherited.writes(), inherited.mark()) != (0, 0) {
        return Err(format!(
            "writes {} and mark {}: expected 0 and 0, the first write being in flight",
            inherited.writes(),
            inherited.mark()
        ));
    }
    let _ = (
        inherited.generator().stats(),
        inherited.generator().snapshot(),
    );
    let _ = format!("{inherited:?} {:?}", inherited.file().path());
    is_forked("mint", inherited.mint(), "MarkedGenerator", parent)?;
    is_forked(
        "the store's admit",
        inherited.store().admit(T0),
        "MarkFile",
        parent,
    )?;
    is_forked("shutdown", inherited.shutdown(), "MarkedGenerator", parent)
}

/// Regression: a child forked while a mark write held the store's lock hung for good in
/// `writes()`, which took that lock to read the count.
#[test]
fn a_child_forked_during_a_mark_write_never_waits_for_the_writers_locks() {
    let parent = std::process::id();
    let dir = TempDir::new("mark-fork");
    let clock = ManualClock::new(T0);
    let file = MarkFile::open(dir.join("mark"), Duration::from_millis(1)).unwrap();
    let generator = file
        .resume(Layout::TWITTER)
        .node("machine", 1)
        .clock(clock.clone())
        .build()
        .unwrap();
    let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file).unwrap();
    let armed = pause::arm(Point::MarkWrite);
    let ended = thread::scope(|s| {
        // The first mint is past the mark (none yet): it writes, and stops in the write.
        let stopped = s.spawn(|| generator.mint().unwrap());
        assert!(
            armed.wait_reached(Duration::from_secs(10)),
            "the minting thread never reached the mark write"
        );
        let forked = forks::fork(|_| {
            // SAFETY: the child's own copy of the generator, moved out of its memory: the child
            // never touches `generator` again (it `_exit`s, running no destructor), so this is
            // the only owner there, and dropping it is the child's drop.
            #[allow(unsafe_code)]
            child(unsafe { std::ptr::read(&generator) }, parent)
        });
        armed.release();
        stopped.join().unwrap();
        forked.wait(DEADLINE)
    });
    ended.success().unwrap();
    assert_eq!((generator.writes(), generator.mark()), (1, T0 + 1));
    clock.advance(1);
    generator.mint().unwrap();
    assert_eq!((generator.writes(), generator.mark()), (2, T0 + 2));
    generator.shutdown().unwrap();
}
