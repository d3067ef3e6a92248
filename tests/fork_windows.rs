//! Fault injection for the fork windows outside every fork section: a thread stopped at a
//! pause point holds no section, so the fork does not wait for it, and the child (or a reading
//! taken meanwhile) must be right anyway.
//!
//! - `Wake`: a private cached clock's first reading is published and its refresher not yet
//!   started. The child's clock must keep following the wall clock, not stay at the reading
//!   it inherited.
//!
//! The handlers' registration happens once per process, so each scenario runs in a fresh
//! process: the test re-executes its own binary (`--exact` its name, with [`ROLE`] set to it).

#![cfg(all(unix, feature = "pause-points"))]

mod common;

use std::io::Read;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use snowmint::Clock;
use snowmint::clock::CachedClock;
use snowmint::pause::{self, Point};

use common::clocks::OffsetClock;
use common::forks;
use common::process::KillOnDrop;

/// The environment variable that makes a re-executed test binary run one scenario: the name
/// of the test whose scenario it runs.
const ROLE: &str = "SNOWMINT_FORK_WINDOWS_SCENARIO";

/// The line a scenario prints first: a wrapper that failed before it (no pid namespace to be
/// had) prints none.
const STARTED: &str = "fork-windows-scenario-started";

/// How long a thread may take to reach a pause point.
const REACH: Duration = Duration::from_secs(5);

/// How long a child may take before it is killed as hung.
const CHILD_DEADLINE: Duration = Duration::from_secs(10);

/// How long a scenario's process may run before the test kills it.
const SCENARIO_DEADLINE: Duration = Duration::from_secs(60);

/// Regression: the fork handlers were registered when the refresher started, after the first
/// reading was published, so a fork between the two left the child a reading and no handler to
/// mark it stale: its clock stood still until a generator's tick filled.
#[test]
fn a_private_cached_clock_forked_before_its_refresher_starts_moves_on_in_the_child() {
    run(
        "a_private_cached_clock_forked_before_its_refresher_starts_moves_on_in_the_child",
        &[],
        private_clock_forked_at_wake,
    );
}

/// In a re-executed binary whose [`ROLE`] is `name`: runs `scenario`. Otherwise runs the
/// binary again for it, under `wrapper` (a program and its arguments, before the binary) if
/// one is given, and fails with its output if it fails. A wrapper that cannot run the binary
/// (no `unshare`, or user namespaces refused) skips the test, saying so.
fn run(name: &str, wrapper: &[&str], scenario: fn()) {
    if std::env::var(ROLE).as_deref() == Ok(name) {
        println!("{STARTED}");
        scenario();
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let mut command = match wrapper.split_first() {
        Some((program, args)) => {
            let mut command = Command::new(program);
            command.args(args).arg(&exe);
            command
        }
        None => Command::new(&exe),
    };
    command
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(ROLE, name)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = match command.spawn() {
        Ok(child) => child,
        Err(err) if !wrapper.is_empty() => {
            println!("skipped: {} cannot run: {err}", wrapper[0]);
            return;
        }
        Err(err) => panic!("cannot run the test binary again: {err}"),
    };
    let mut child = KillOnDrop(child);
    let mut stdout = child.0.stdout.take().unwrap();
    let mut stderr = child.0.stderr.take().unwrap();
    let out = thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let err = thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > SCENARIO_DEADLINE {
            break None;
        }
        thread::sleep(Duration::from_millis(10));
    };
    drop(child);
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    match status {
        Some(status) if status.success() => {}
        Some(status) if !wrapper.is_empty() && !out.contains(STARTED) => {
            println!(
                "skipped: {} ended {status} before the scenario started: {}",
                wrapper[0],
                err.trim()
            );
        }
        Some(status) => {
            panic!("the scenario's process ended {status}\n--- stdout\n{out}\n--- stderr\n{err}")
        }
        None => panic!(
            "the scenario's process ran past {SCENARIO_DEADLINE:?} and was killed\n\
             --- stdout\n{out}\n--- stderr\n{err}"
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// `Wake`: a private cached clock between its first reading and its refresher.

/// Stops the first reader of a private cached clock after it published its reading, before it
/// starts the refresher, and forks: 100 ms later the child's clock reads at least 50 ms later.
fn private_clock_forked_at_wake() {
    let armed = pause::arm(Point::Wake);
    // The wall clock through a source of the test's own, which registers nothing: only the
    // cached clock can have registered the fork handlers.
    let clock = CachedClock::new(OffsetClock { offset_ms: 0 });
    let reader = {
        let clock = clock.clone();
        thread::spawn(move || clock.unix_ms())
    };
    assert!(
        armed.wait_reached(REACH),
        "the first reader never reached {:?}",
        Point::Wake
    );
    let child = forks::fork(|_| {
        let first = clock.unix_ms();
        thread::sleep(Duration::from_millis(100));
        let later = clock.unix_ms();
        if later < first + 50 {
            return Err(format!(
                "the child's cached clock read {first}, then {later} 100 ms later: it stood \
                 still"
            ));
        }
        Ok(())
    });
    armed.release();
    reader.join().unwrap();
    if let Err(failure) = child.wait(CHILD_DEADLINE).success() {
        panic!("fork between a private cached clock's first reading and its refresher: {failure}");
    }
}
