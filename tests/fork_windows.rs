//! Fault injection for the fork windows the gate does not close: a thread stopped outside
//! every fork section, which the fork does not wait for, and a reading that does not wait for
//! the fork. The child, and the readings, must be right anyway.
//!
//! - `Wake`: a private cached clock's first reading is published and its refresher not yet
//!   started. The child's clock must keep following the wall clock, not stay at the reading
//!   it inherited.
//! - `Registration`, in pid namespaces: a thread is stopped registering the fork handlers in
//!   the process whose ID is 1, which forks; its child forks a grandchild into a pid namespace
//!   of its own, whose ID is 1 too. The grandchild must register handlers of its own, not wait
//!   for the stopped thread, which it does not have. Skipped, saying so, where `unshare`
//!   cannot make the namespaces.
//! - `Elect`: a monotonic clock's overdue reading chose the counter time it would take the
//!   writer lock at and stopped before taking it, inside its section, while another thread's
//!   fork is being prepared. A reading taken meanwhile does not wait for the fork; no reading
//!   taken after it may be lower.
//!
//! The handlers' registration happens once per process, so each scenario runs in a fresh
//! process: the test re-executes its own binary (`--exact` its name, with [`ROLE`] set to it).

// Built only under `--cfg snowmint_pause_points`: CONTRIBUTING.md, "Test cfgs", has the command.
#![cfg(all(unix, snowmint_pause_points))]

mod common;

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use snowmint::clock::{CachedClock, MonotonicClock};
use snowmint::pause::{self, Point};
use snowmint::{Clock, Generator, Layout};

use common::clocks::OffsetClock;
use common::forks;
use common::process::{Finished, wait_until};

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

/// Regression: the registration waited for a registering thread recorded by its process ID,
/// so a descendant with that ID (a pid namespace's first process, or a reused ID) waited for
/// ever for a thread it does not have.
#[test]
fn a_grandchild_with_the_registering_process_s_id_registers_its_own_handlers() {
    run(
        "a_grandchild_with_the_registering_process_s_id_registers_its_own_handlers",
        &[
            "unshare",
            "--user",
            "--map-root-user",
            "--pid",
            "--fork",
            "--kill-child",
        ],
        grandchild_with_the_registering_id,
    );
}

/// Regression: a reading that found the writer lock free while a fork was being prepared read
/// its segment on at full speed, but a holder that had read its lock time before that reading
/// could still take the lock with it, and readings under that holder then ran at half speed
/// from that earlier time: lower than the one taken meanwhile.
#[test]
fn a_reading_while_a_fork_is_prepared_is_never_above_a_later_one() {
    run(
        "a_reading_while_a_fork_is_prepared_is_never_above_a_later_one",
        &[],
        reading_while_a_fork_is_prepared,
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
    let Finished { status, out, err } = wait_until(child, SCENARIO_DEADLINE);
    match status {
        Some(status) if status.success() && out.contains(STARTED) => {}
        Some(status) if status.success() => {
            panic!("the scenario's process ran no scenario\n--- stdout\n{out}\n--- stderr\n{err}")
        }
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

// ---------------------------------------------------------------------------------------------
// `Registration`: a grandchild whose process ID is the registering process's.

/// In the first process of a pid namespace: stops a thread registering the fork handlers,
/// forks, and checks that the child's own child, the first process of a pid namespace of its
/// own, mints.
fn grandchild_with_the_registering_id() {
    let me = std::process::id();
    assert_eq!(
        me, 1,
        "the scenario runs as the first process of a pid namespace"
    );
    let armed = pause::arm(Point::Registration);
    let registering = thread::spawn(|| CachedClock::global().unix_ms());
    assert!(
        armed.wait_reached(REACH),
        "no thread reached {:?}",
        Point::Registration
    );
    let ended = forks::fork(|_| grandchild_in_a_new_pid_namespace(me)).wait(CHILD_DEADLINE);
    armed.release();
    registering.join().unwrap();
    if let Err(failure) = ended.success() {
        panic!("fork while a thread registered the handlers: {failure}");
    }
}

/// In the child: forks a grandchild into a new pid namespace, where its ID is `pid`, and
/// waits for it (killing it after half the child's deadline). No thread: a process whose
/// children go to another pid namespace cannot start one.
#[allow(unsafe_code)] // unshare, fork, _exit, waitpid, kill: libc calls
fn grandchild_in_a_new_pid_namespace(pid: u32) -> Result<(), String> {
    // SAFETY: a plain system call; this process has one thread (a forked child).
    if unsafe { libc::unshare(libc::CLONE_NEWPID) } != 0 {
        return Err(format!(
            "unshare(CLONE_NEWPID): {}",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: the grandchild runs `mint_as` and `_exit`s, without unwinding.
    let grandchild = unsafe { libc::fork() };
    if grandchild < 0 {
        return Err(format!("fork: {}", std::io::Error::last_os_error()));
    }
    if grandchild == 0 {
        let code = match std::panic::catch_unwind(|| mint_as(pid)) {
            Ok(Ok(())) => 0,
            Ok(Err(failure)) => {
                eprintln!("grandchild: {failure}");
                1
            }
            Err(_) => 2,
        };
        // SAFETY: ends the grandchild at once.
        unsafe { libc::_exit(code) };
    }
    let started = Instant::now();
    let mut status = 0;
    loop {
        // SAFETY: polls this process's own child; `status` is a valid place for its status.
        let waited = unsafe { libc::waitpid(grandchild, &mut status, libc::WNOHANG) };
        if waited == grandchild {
            return match (libc::WIFEXITED(status), libc::WEXITSTATUS(status)) {
                (true, 0) => Ok(()),
                _ => Err(format!("the grandchild failed (wait status {status})")),
            };
        }
        if waited < 0 {
            return Err(format!("waitpid: {}", std::io::Error::last_os_error()));
        }
        if started.elapsed() > CHILD_DEADLINE / 2 {
            // SAFETY: kills and reaps this process's own child.
            unsafe {
                libc::kill(grandchild, libc::SIGKILL);
                libc::waitpid(grandchild, &mut status, 0);
            }
            return Err(format!(
                "the grandchild, process {pid} in its namespace, hung on its first mint: \
                 killed after {:?}",
                started.elapsed()
            ));
        }
        thread::sleep(Duration::from_millis(1));
    }
}

/// In the grandchild: its ID is `pid`, and a generator of its own mints.
fn mint_as(pid: u32) -> Result<(), String> {
    let me = std::process::id();
    if me != pid {
        return Err(format!("the grandchild is process {me}, not {pid}"));
    }
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 1)
        .build()
        .map_err(|err| err.to_string())?;
    let ids = generator.mint_many(100).map_err(|err| err.to_string())?;
    if !ids.is_sorted() {
        return Err("the grandchild's IDs are out of order".into());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// `Elect`: a reading while a fork waits for a thread about to take the writer lock.

/// Stops an overdue reading between choosing its lock time and taking the lock, holds it
/// there while another thread's fork is being prepared, reads the clock 100 ms later, lets the
/// stopped thread go on (stopping it again in its re-anchor if it takes the lock), and reads
/// again: not lower.
fn reading_while_a_fork_is_prepared() {
    // Overdue a millisecond after each re-anchor.
    let clock = Arc::new(
        MonotonicClock::builder()
            .recheck(Duration::from_millis(1))
            .build(),
    );
    let elect = pause::arm(Point::Elect);
    let electing = {
        let clock = Arc::clone(&clock);
        thread::spawn(move || {
            thread::sleep(Duration::from_millis(2));
            clock.unix_ns()
        })
    };
    assert!(
        elect.wait_reached(REACH),
        "no reading reached {:?}",
        Point::Elect
    );
    let waits = pause::arm(Point::ForkWaits);
    let forker = thread::spawn(|| forks::fork(|_| Ok(())));
    assert!(
        waits.wait_reached(REACH),
        "prepare never waited for the electing thread's section"
    );
    thread::sleep(Duration::from_millis(100));
    // Overdue, the lock free, a fork being prepared: reads on without waiting.
    let during = clock.unix_ns();
    let mut reanchor = Some(pause::arm(Point::Reanchor));
    elect.release();
    // The stopped thread takes the lock (and stops in its re-anchor) or returns.
    let deadline = Instant::now() + REACH;
    while !reanchor.as_ref().is_some_and(|armed| armed.is_reached()) && !electing.is_finished() {
        assert!(
            Instant::now() < deadline,
            "the electing thread neither re-anchored nor returned"
        );
        thread::sleep(Duration::from_micros(100));
    }
    if !reanchor.as_ref().is_some_and(|armed| armed.is_reached()) {
        // Disarmed, so that the reading below does not stop there.
        reanchor = None;
    }
    let after = clock.unix_ns();
    drop(reanchor);
    electing.join().unwrap();
    let child = forker.join().unwrap();
    drop(waits);
    if let Err(failure) = child.wait(CHILD_DEADLINE).success() {
        panic!("the forked child: {failure}");
    }
    assert!(
        after >= during,
        "a reading taken while a fork was being prepared, {during} ns, was followed by \
         {after} ns, {:.3} ms back",
        (during - after) as f64 / 1e6
    );
}
