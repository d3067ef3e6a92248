//! Fault injection for the fork protocol (`src/fork.rs`): a thread is stopped at each pause
//! point, a real `fork()` happens, and the child must mint fresh IDs on the default clock.
//!
//! Each point is a place where a fork used to leave something half done in the child:
//!
//! - `Registration`: the fork handlers' one-time registration. The handlers are not installed
//!   yet, so the fork happens with the thread stopped there; the child must register its own
//!   instead of waiting for a thread it does not have (its own child is checked too).
//! - `GlobalInit`: the process-wide clock's first initialisation, inside its once-cell. Before
//!   the fix the child found the cell "running" and hung on its first mint.
//! - `Reanchor`: a monotonic clock's re-anchor, holding the writer lock. Before the fix the
//!   child found the lock taken for good, and its clock ran at half speed for ever.
//! - `RefresherStart`: a cached clock's refresher start, holding the runner lock.
//!
//! The last three are fork sections: the fork must wait for the stopped thread. The test
//! proves it: it arms `ForkWaits`, forks from a second thread, waits until the `prepare`
//! handler reports that it waits, holds the stopped thread a while longer (the fork must not
//! return meanwhile), then releases it and checks the child.
//!
//! In every child: the first mint comes within a deadline (the parent kills a hung child
//! and fails), every ID's time lies within a tick of the wall clock read around its mint
//! (plus [`SLACK_MS`] for a busy machine), no ID equals one the parent minted from its own
//! generator with the same node, and the child's cached clock has a refresher of its own (its
//! wake-ups grow). After the fork at `Reanchor`, the child's monotonic clock must also follow
//! the wall clock over 300 ms, not at half speed.
//!
//! The process-wide clock and the handlers' registration happen once per process, so every
//! scenario runs in a fresh process: the test re-executes its own binary (`--exact` its name,
//! with [`ROLE`] set to it), [`RUNS`] times, one fork each, and prints a summary line per
//! point (run with `--nocapture` to see it).

// Built only under `--cfg snowmint_pause_points`: CONTRIBUTING.md, "Test cfgs", has the command.
#![cfg(all(unix, snowmint_pause_points))]

mod common;

use std::collections::HashSet;
use std::io::{PipeWriter, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use snowmint::clock::{CachedClock, MonotonicClock};
use snowmint::pause::{self, Armed, Point};
use snowmint::{Clock, Generator, Layout};

use common::clocks::wall_ms;
use common::forks::{self, Ended};
use common::process::{Finished, wait_until};

/// The environment variable that makes a re-executed test binary run one scenario: the name
/// of the test whose scenario it runs.
const ROLE: &str = "SNOWMINT_FORK_POINTS_SCENARIO";

/// Forks per point, each in a fresh process.
const RUNS: usize = 5;

/// The node of the parent's generator and of the child's.
const NODE: u64 = 7;

/// The twitter layout's tick.
const TICK_MS: u64 = 1;

/// How far beyond a tick an ID's time may be from the wall clock read around its mint: a
/// child descheduled between the readings, a refresher late on a busy machine. A child on a
/// stale or half-speed clock is off by the time since the fork, which grows without bound.
const SLACK_MS: u64 = 20;

/// How long a child may take, all checks included, before the parent kills it as hung.
const CHILD_DEADLINE: Duration = Duration::from_secs(20);

/// How long a thread may take to reach a pause point, and `prepare` to report that it waits.
const REACH: Duration = Duration::from_secs(5);

/// How long the stopped thread is held after `prepare` reported that it waits: the fork must
/// not return meanwhile.
const HOLD: Duration = Duration::from_millis(50);

/// IDs the parent mints before the fork, and the child after it.
const PARENT_MINTS: usize = 2_000;
const CHILD_MINTS: usize = 500;

/// How long a scenario's process may run before the test kills it.
const SCENARIO_DEADLINE: Duration = Duration::from_secs(90);

/// Where a scenario stops a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scenario {
    Registration,
    GlobalInit,
    Reanchor,
    RefresherStart,
}

impl Scenario {
    fn point(self) -> Point {
        match self {
            Scenario::Registration => Point::Registration,
            Scenario::GlobalInit => Point::GlobalInit,
            Scenario::Reanchor => Point::Reanchor,
            Scenario::RefresherStart => Point::RefresherStart,
        }
    }

    /// Whether the point is inside a fork section, which the fork must wait for.
    fn gated(self) -> bool {
        self != Scenario::Registration
    }
}

#[test]
fn fork_at_registration_the_child_registers_handlers_of_its_own() {
    run(
        "fork_at_registration_the_child_registers_handlers_of_its_own",
        Scenario::Registration,
    );
}

#[test]
fn fork_at_global_init_waits_and_the_child_finds_the_clock_made() {
    run(
        "fork_at_global_init_waits_and_the_child_finds_the_clock_made",
        Scenario::GlobalInit,
    );
}

/// Regression: the child's monotonic clock ran at half speed for ever after a fork during a
/// re-anchor. Besides the checks of every point, the child's clock must follow the wall clock
/// over 300 ms.
#[test]
fn fork_at_reanchor_waits_and_the_child_s_clock_runs_at_full_speed() {
    run(
        "fork_at_reanchor_waits_and_the_child_s_clock_runs_at_full_speed",
        Scenario::Reanchor,
    );
}

#[test]
fn fork_at_refresher_start_waits_and_the_child_starts_its_own_refresher() {
    run(
        "fork_at_refresher_start_waits_and_the_child_starts_its_own_refresher",
        Scenario::RefresherStart,
    );
}

/// In a re-executed binary whose [`ROLE`] is `name`: runs the scenario once. Otherwise runs
/// it [`RUNS`] times, each in a fresh process, and prints the summary.
fn run(name: &str, scenario: Scenario) {
    if std::env::var(ROLE).as_deref() == Ok(name) {
        in_this_process(scenario);
    } else {
        in_fresh_processes(name, scenario);
    }
}

/// One line a scenario's process prints for the summary.
const RESULT: &str = "fork-point-result";

/// What one scenario's run measured.
#[derive(Debug, Default)]
struct Run {
    /// Whether `prepare` reported that it waited for the stopped thread.
    waited: bool,
    /// Whether the fork returned while the thread was still stopped.
    returned_while_stopped: bool,
    /// Whether the child exited 0.
    child_ok: bool,
    /// From the child's start to its first ID.
    first_id: Duration,
    /// From the fork's return to the child's reaping.
    lifetime: Duration,
}

// ---------------------------------------------------------------------------------------------
// The test process: fresh processes, the summary.

/// Scenarios run one at a time, so that their figures are not each other's load.
static SERIAL: Mutex<()> = Mutex::new(());

fn in_fresh_processes(name: &str, scenario: Scenario) {
    let _serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let exe = std::env::current_exe().unwrap();
    let mut failures = Vec::new();
    let mut runs = Vec::new();
    for run in 0..RUNS {
        let child = Command::new(&exe)
            .args(["--exact", name, "--nocapture", "--test-threads=1"])
            .env(ROLE, name)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let Finished { status, out, err } = wait_until(child, SCENARIO_DEADLINE);
        // Anywhere in a line: the harness prints the test's name before the test's output.
        if let Some(result) = out
            .lines()
            .find_map(|line| Some(line.split_once(RESULT)?.1))
        {
            runs.push(parse(result));
        }
        match status {
            Some(status) if status.success() => {}
            Some(status) => failures.push(format!(
                "run {run}: the scenario's process ended {status}\n--- stdout\n{out}\n--- stderr\n{err}"
            )),
            None => failures.push(format!(
                "run {run}: the scenario's process ran past {SCENARIO_DEADLINE:?} and was killed\n\
                 --- stdout\n{out}\n--- stderr\n{err}"
            )),
        }
        if !failures.is_empty() {
            // A failing scenario tends to fail every time, each after the child's deadline.
            break;
        }
    }
    let children = runs.iter().filter(|run| run.child_ok).count();
    let waited = runs.iter().filter(|run| run.waited).count();
    let early = runs.iter().filter(|run| run.returned_while_stopped).count();
    let first = runs
        .iter()
        .map(|run| run.first_id)
        .max()
        .unwrap_or_default();
    let lifetime = runs
        .iter()
        .map(|run| run.lifetime)
        .max()
        .unwrap_or_default();
    println!(
        "fork point {:?}: {} forks, {children} children minted and exited 0, slowest child \
         {:.2} ms to its first ID and {} ms to its exit; prepare waited for the stopped \
         thread in {waited}, the fork returned while it was stopped in {early}",
        scenario.point(),
        runs.len(),
        first.as_secs_f64() * 1e3,
        lifetime.as_millis(),
    );
    assert!(
        failures.is_empty(),
        "run {} of {RUNS} failed:\n{}",
        runs.len(),
        failures.join("\n\n")
    );
    assert_eq!(runs.len(), RUNS, "every run reports its figures");
}

fn parse(line: &str) -> Run {
    let mut run = Run::default();
    for field in line.split_whitespace() {
        let Some((key, value)) = field.split_once('=') else {
            continue;
        };
        match key {
            "waited" => run.waited = value == "1",
            "early" => run.returned_while_stopped = value == "1",
            "child_ok" => run.child_ok = value == "1",
            "first_us" => run.first_id = Duration::from_micros(value.parse().unwrap_or(0)),
            "lifetime_us" => run.lifetime = Duration::from_micros(value.parse().unwrap_or(0)),
            _ => {}
        }
    }
    run
}

// ---------------------------------------------------------------------------------------------
// A scenario's process.

/// Runs `scenario` once: stops a thread at its point, forks, checks the child. Prints the
/// figures, then fails with every check that failed.
fn in_this_process(scenario: Scenario) {
    let mut failures = Vec::new();
    let mut run = Run::default();

    // The parent's own IDs, from a generator with the child's node, minted at least a tick
    // before the fork: a child on a correct clock mints at later times, and so none of these.
    // Registration and the process-wide clock's initialisation must wait for the stopped
    // thread; the other points need the process-wide clock set up first.
    let mut parent_ids = match scenario {
        Scenario::Registration => HashSet::new(),
        Scenario::GlobalInit | Scenario::RefresherStart => {
            // A clock of its own: the process-wide one is the point.
            mint_parent(&generator(MonotonicClock::new()))
        }
        Scenario::Reanchor => {
            // The process-wide clock's source re-anchors on every reading past 1 ms, so a
            // thread reaches the point at once.
            let eager = MonotonicClock::builder()
                .recheck(Duration::from_millis(1))
                .build();
            assert!(CachedClock::set_global_source(eager).is_ok());
            mint_parent(&generator(CachedClock::global()))
        }
    };
    thread::sleep(Duration::from_millis(2 * TICK_MS + 1));

    let armed = pause::arm(scenario.point());
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = {
        let stop = Arc::clone(&stop);
        thread::spawn(move || match scenario {
            Scenario::Reanchor => {
                // Reads until a thread (this one, or the process-wide clock's refresher) is
                // stopped in a re-anchor, and the test lets it go.
                let source = CachedClock::global().source();
                while !stop.load(Ordering::Relaxed) {
                    source.unix_ns();
                    thread::yield_now();
                }
            }
            // The first read registers the handlers, makes the process-wide clock and starts
            // its refresher.
            _ => {
                CachedClock::global().unix_ms();
            }
        })
    };
    if !armed.wait_reached(REACH) {
        panic!("no thread reached {:?} within {REACH:?}", scenario.point());
    }

    let child = if scenario.gated() {
        fork_against(scenario, armed, &stop, stopped, &mut run, &mut failures)
    } else {
        // The handlers are not installed yet: nothing makes the fork wait.
        let child = forks::fork(move |out| in_child(out, scenario));
        run.returned_while_stopped = !stopped.is_finished();
        if !run.returned_while_stopped {
            failures.push("the registering thread went on before the fork".into());
        }
        armed.release();
        stopped.join().unwrap();
        child
    };

    let ended = child.wait(CHILD_DEADLINE);
    run.lifetime = ended.lifetime;
    let child_ids = check_child(&ended, &mut run, &mut failures);

    if scenario == Scenario::Registration {
        // The fork happened with the handlers half registered: the parent mints after the
        // child ended, a tick later.
        thread::sleep(Duration::from_millis(2 * TICK_MS + 1));
        parent_ids = mint_parent(&generator(CachedClock::global()));
    }
    let repeated: Vec<_> = child_ids.intersection(&parent_ids).collect();
    if !repeated.is_empty() {
        failures.push(format!(
            "the child minted {} of the parent's IDs, e.g. {}",
            repeated.len(),
            repeated[0]
        ));
    }

    println!(
        "{RESULT} point={:?} waited={} early={} child_ok={} first_us={} lifetime_us={}",
        scenario.point(),
        u8::from(run.waited),
        u8::from(run.returned_while_stopped),
        u8::from(run.child_ok),
        run.first_id.as_micros(),
        run.lifetime.as_micros(),
    );
    assert!(
        failures.is_empty(),
        "fork at {:?}:\n{}",
        scenario.point(),
        failures.join("\n")
    );
}

/// Forks from a second thread while `stopped` is stopped at the armed point, inside a fork
/// section: `prepare` must report that it waits, and the fork must not return until the
/// thread is released.
fn fork_against(
    scenario: Scenario,
    armed: Armed,
    stop: &AtomicBool,
    stopped: JoinHandle<()>,
    run: &mut Run,
    failures: &mut Vec<String>,
) -> forks::Forked {
    let waits = pause::arm(Point::ForkWaits);
    let returned = Arc::new(AtomicBool::new(false));
    let forker = {
        let returned = Arc::clone(&returned);
        thread::spawn(move || {
            let child = forks::fork(move |out| in_child(out, scenario));
            returned.store(true, Ordering::Release);
            child
        })
    };
    run.waited = waits.wait_reached(REACH);
    if !run.waited {
        failures.push(format!(
            "prepare never waited for the thread stopped at {:?}",
            scenario.point()
        ));
    }
    thread::sleep(HOLD);
    run.returned_while_stopped = returned.load(Ordering::Acquire);
    if run.returned_while_stopped {
        failures.push(format!(
            "the fork returned while a thread was stopped at {:?}, inside a fork section",
            scenario.point()
        ));
    }
    stop.store(true, Ordering::Relaxed);
    armed.release();
    stopped.join().unwrap();
    let child = forker.join().unwrap();
    drop(waits);
    child
}

/// A generator with the node [`NODE`] on `clock`.
fn generator<C: Clock>(clock: C) -> Generator<C> {
    Generator::builder(Layout::TWITTER)
        .node("machine", NODE)
        .clock(clock)
        .build()
        .unwrap()
}

fn mint_parent<C: Clock>(generator: &Generator<C>) -> HashSet<u64> {
    (0..PARENT_MINTS)
        .map(|_| u64::from(generator.mint().unwrap()))
        .collect()
}

/// The child's report: exit status, first-ID time and IDs. Returns the IDs.
fn check_child(ended: &Ended, run: &mut Run, failures: &mut Vec<String>) -> HashSet<u64> {
    if let Err(failure) = ended.success() {
        failures.push(failure);
    } else {
        run.child_ok = true;
    }
    let mut ids = HashSet::new();
    for line in ended.output.lines() {
        match line.split_once(' ') {
            Some(("id", id)) => {
                ids.insert(id.parse::<u64>().unwrap());
            }
            Some(("first_us", us)) => run.first_id = Duration::from_micros(us.parse().unwrap()),
            _ => {}
        }
    }
    if run.child_ok && ids.len() != CHILD_MINTS {
        failures.push(format!(
            "the child reported {} distinct IDs, not {CHILD_MINTS}",
            ids.len()
        ));
    }
    ids
}

// ---------------------------------------------------------------------------------------------
// The child.

/// What every child checks, and what each scenario adds. Writes `first_us` and every ID to
/// `out`.
fn in_child(out: &mut PipeWriter, scenario: Scenario) -> Result<(), String> {
    let start = Instant::now();
    // The default clock: the process-wide cached one.
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", NODE)
        .build()
        .map_err(|e| e.to_string())?;
    let mut ids = Vec::with_capacity(CHILD_MINTS);
    for i in 0..CHILD_MINTS {
        let before = wall_ms();
        let id = generator.mint().map_err(|e| e.to_string())?;
        let after = wall_ms();
        if i == 0 {
            let first = start.elapsed();
            writeln!(out, "first_us {}", first.as_micros()).map_err(|e| e.to_string())?;
        }
        let ms = Layout::TWITTER.decode(id).unwrap().unix_ms();
        if ms + TICK_MS + SLACK_MS < before || ms > after + SLACK_MS {
            return Err(format!(
                "ID {i}'s time {ms} is off the wall clock's {before}..={after}"
            ));
        }
        ids.push(u64::from(id));
    }
    for id in &ids {
        writeln!(out, "id {id}").map_err(|e| e.to_string())?;
    }
    own_refresher("the child")?;
    match scenario {
        Scenario::Reanchor => full_speed()?,
        Scenario::Registration => grandchild()?,
        Scenario::GlobalInit | Scenario::RefresherStart => {}
    }
    Ok(())
}

/// The process-wide cached clock has a refresher in this process: read once a millisecond,
/// it wakes, and its reading follows the wall clock.
fn own_refresher(who: &str) -> Result<(), String> {
    let clock = CachedClock::global();
    clock.unix_ms();
    let before = clock.wakeups();
    for _ in 0..30 {
        thread::sleep(Duration::from_millis(1));
        clock.unix_ms();
    }
    let woke = clock.wakeups() - before;
    if woke < 5 {
        return Err(format!(
            "{who}'s refresher woke {woke} times in 30 ms of reads: it has none of its own"
        ));
    }
    let (reading, wall) = (clock.unix_ms(), wall_ms());
    if reading.abs_diff(wall) > TICK_MS + SLACK_MS {
        return Err(format!(
            "{who}'s cached clock reads {reading} at wall {wall}"
        ));
    }
    Ok(())
}

/// Unix nanoseconds now, from the wall clock.
fn wall_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}

/// The process-wide clock's monotonic source follows the wall clock over 300 ms: not at half
/// speed behind a writer lock the child inherited taken.
fn full_speed() -> Result<(), String> {
    const WITHIN_NS: u64 = 5_000_000;
    let source = CachedClock::global().source();
    let (start, wall_start) = (source.unix_ns(), wall_ns());
    thread::sleep(Duration::from_millis(300));
    let (end, wall_end) = (source.unix_ns(), wall_ns());
    let (ran, wall_ran) = (end.saturating_sub(start), wall_end - wall_start);
    if ran.abs_diff(wall_ran) > WITHIN_NS || end.abs_diff(wall_end) > WITHIN_NS {
        return Err(format!(
            "the monotonic clock ran {ran} ns while the wall clock ran {wall_ran} ns, and \
             reads {end} at wall {wall_end}"
        ));
    }
    Ok(())
}

/// The child's own handlers work: its own child (forked while the child's refresher is
/// awake, so the word holds a reading) reads a fresh time after idling, and starts a
/// refresher of its own. Without the handlers it would read the child's last reading.
fn grandchild() -> Result<(), String> {
    let clock = CachedClock::global();
    clock.unix_ms();
    let ended = forks::fork(|_| {
        thread::sleep(Duration::from_millis(300));
        let (reading, wall) = (clock.unix_ms(), wall_ms());
        if reading.abs_diff(wall) > TICK_MS + SLACK_MS {
            return Err(format!(
                "the grandchild's cached clock reads {reading} at wall {wall}"
            ));
        }
        own_refresher("the grandchild")
    })
    .wait(CHILD_DEADLINE / 2);
    ended
        .success()
        .map_err(|e| format!("the child's own child: {e}"))
}
