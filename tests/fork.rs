//! A generator on the default clock in the child of a real `fork()`.
//!
//! The child has none of its parent's threads, so the cached clock's refresher is gone there:
//! the clock's fork handler marks the reading stale, and the child's first read takes a
//! precise reading and starts a refresher of its own. Each test forks once; the child checks
//! what it minted and reports through its exit status (`_exit`, so it runs no destructor or
//! test harness code of the parent's).

#![cfg(unix)]

mod common;

use std::thread;
use std::time::Duration;

use snowmint::{Clock, Generator, Id, Layout, clock::CachedClock};

use common::clocks::wall_ms;
use common::forks::{self, Outcome};

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
    let ms = Layout::TWITTER.decode(id).unwrap().timestamp_ms();
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

/// Forks; the child runs `child` and exits 0 if it returns `Ok`, 1 (after printing the error)
/// if not. Returns the child's exit status; a child that hangs is killed and fails the test.
fn in_child(child: impl FnOnce() -> Result<(), String>) -> i32 {
    let ended = forks::fork(|_| child()).wait(CHILD_DEADLINE);
    match ended.outcome {
        Outcome::Exited(code) => code,
        other => panic!(
            "the child did not exit: {other:?}; it wrote {:?}",
            ended.output
        ),
    }
}

/// Regression: after `fork()` the process-wide clock never refreshed in the child (its
/// refresher thread was gone and the running flag still set), so after 300 ms idle a child's
/// IDs carried a time 300 ms old. Through a generator built in the parent and one built in
/// the child, IDs minted in the child carry the child's time, after idling, every time.
#[test]
fn a_forked_child_mints_at_its_own_time_through_inherited_and_new_generators() {
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
        fresh("an inherited generator after idling", || {
            inherited.mint().unwrap()
        })?;
        let new = Generator::builder(Layout::TWITTER)
            .node("machine", 2)
            .build()
            .unwrap();
        fresh("a new generator", || new.mint().unwrap())?;
        // The child's own refresher now runs: readings stay fresh while it mints.
        for _ in 0..20 {
            thread::sleep(Duration::from_millis(2));
            fresh("minting on", || inherited.mint().unwrap())?;
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
