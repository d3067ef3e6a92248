//! Process boundaries: no ID repeats across `kill -9` and no second process mints from a state
//! one already holds, for the CLI's `--snapshot` file and for a `MarkedGenerator` on a
//! `MarkFile`.
//!
//! Each generation is a child process: the CLI binary, or this test binary re-executed in its
//! child role (`KILL9_CHILD` set), minting a tick-tock layout and streaming its IDs. The parent
//! reads a chosen number of IDs and sends SIGKILL, so no exit path runs; the IDs left in the
//! pipe were printed too and are read after the kill. Between generations the child's clock
//! steps back and forth by whole seconds (a fixed offset on the wall clock for the library's
//! child; libfaketime for the CLI, whose clock anchors on the wall clock: without libfaketime
//! the CLI loop says it is skipped and passes). Each loop prints one summary line.

mod common;

use std::collections::HashSet;
use std::env;
use std::io::{BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use snowmint::mark::{MarkFile, MarkFileStore, MarkedGenerator};
use snowmint::sno::SnoId;
use snowmint::{ClockBehind, Error, Generator, Id, Snapshot};

use common::cli::BIN;
use common::clocks::{OffsetClock, on_manual_clock, wall_ms};
use common::files::TempDir;
use common::layouts::TT;
use common::process::{KillOnDrop, faketime_library, read_lines};

/// [`TT`] on the command line, with its node.
const TT_ARGS: [&str; 6] = [
    "--layout",
    "unused:1,time:41,tick-tock,machine:9,sequence:12",
    "--epoch-ms",
    "1288834974657",
    "--node",
    "machine=5",
];

/// Selects the child role of this test binary: `PATH;POLICY;OFFSET_MS`.
const CHILD: &str = "KILL9_CHILD";

/// The generations of each loop, per policy.
const GENERATIONS: usize = 60;

/// The clock-behind policies of the loops: name on the command line, and the library's.
const POLICIES: [(&str, ClockBehind); 3] = [
    ("wait", ClockBehind::Wait { max_ms: 200 }),
    ("error", ClockBehind::Error),
    ("tick-tock", ClockBehind::TickTock { max_ms: 200 }),
];

/// Generation `k`'s clock offset in milliseconds: a drift forward of 900 ms a generation with
/// steps back of up to 2.5 s and forth of up to 1.5 s on top, so that the clock reads behind
/// the last generation's time in some of them and ahead of it in the rest.
fn offset_ms(k: usize) -> i64 {
    const STEPS: [i64; 7] = [0, -2_500, 1_500, -1_000, 500, -2_000, 1_000];
    k as i64 * 900 + STEPS[k % STEPS.len()]
}

/// How many IDs the parent reads before it kills generation `k`: 1 to a few thousand.
fn reads(k: usize) -> usize {
    [1, 700, 37, 3_000, 250, 1_500, 9][k % 7] + k
}

/// What one loop saw.
#[derive(Debug, Default)]
struct Tally {
    generations: usize,
    /// Generations that printed at least one ID.
    minted: usize,
    ids: usize,
    repeats: usize,
    slowest: Duration,
}

impl Tally {
    /// Counts one generation that printed `ids` in `took`, checking each against `seen`.
    fn add(&mut self, seen: &mut HashSet<u64>, ids: &[u64], took: Duration) {
        self.generations += 1;
        self.minted += usize::from(!ids.is_empty());
        self.ids += ids.len();
        self.repeats += ids.iter().filter(|&&id| !seen.insert(id)).count();
        self.slowest = self.slowest.max(took);
    }

    fn report(&self, what: &str) {
        println!(
            "{what}: {} generations ({} minted), {} IDs, {} repeats, slowest generation {} ms",
            self.generations,
            self.minted,
            self.ids,
            self.repeats,
            self.slowest.as_millis()
        );
    }
}

/// A CLI generation on `file` under `policy`, its clock `offset_ms` off: killed after `read`
/// IDs, or, if `clean`, left to mint exactly `read` and exit. Returns the IDs it printed.
fn cli_generation(
    faketime: &Path,
    file: &Path,
    policy: &str,
    offset_ms: i64,
    read: usize,
    clean: bool,
) -> Vec<u64> {
    let count = if clean { read } else { 100_000_000 };
    let mut command = Command::new(BIN);
    command
        .args(["mint", "--on-clock-behind", policy])
        .args(TT_ARGS)
        .args(["--count", &count.to_string(), "--snapshot"])
        .arg(file)
        .env("LD_PRELOAD", faketime)
        .env("FAKETIME", format!("{:+.3}", offset_ms as f64 / 1_000.0))
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if policy != "error" {
        command.args(["--max-wait-ms", "200"]);
    }
    stream_then_kill(command, read, |line| line.parse().ok())
}

/// Spawns `command`, reads `read` IDs from it, kills it with SIGKILL, and returns the IDs it
/// printed: those read and those left in the pipe.
fn stream_then_kill(
    mut command: Command,
    read: usize,
    parse: impl Fn(&str) -> Option<u64>,
) -> Vec<u64> {
    let mut child = KillOnDrop(command.spawn().expect("spawn a generation"));
    let mut out = BufReader::new(child.0.stdout.take().unwrap());
    let mut ids = read_lines(&mut out, read, &parse);
    child.0.kill().unwrap();
    ids.extend(read_lines(&mut out, usize::MAX, &parse));
    ids
}

#[test]
fn the_cli_never_repeats_an_id_across_kill_9_as_its_clock_steps_back_and_forth() {
    let Some(faketime) = faketime_library() else {
        eprintln!(
            "skipped: libfaketime is not installed (apt-get install faketime; .ci/check \
             installs it), so the CLI's clock cannot be stepped"
        );
        return;
    };
    let dir = TempDir::new("kill9-cli");
    for (policy, _) in POLICIES {
        let file = dir.join(&format!("{policy}.snap"));
        let (mut seen, mut tally) = (HashSet::new(), Tally::default());
        for k in 0..GENERATIONS {
            let started = Instant::now();
            // Every fifth generation exits cleanly: its exact state is the next one's start.
            let ids = cli_generation(&faketime, &file, policy, offset_ms(k), reads(k), k % 5 == 4);
            tally.add(&mut seen, &ids, started.elapsed());
        }
        tally.report(&format!("CLI --snapshot, --on-clock-behind {policy}"));
        assert_eq!(tally.repeats, 0, "{tally:?}");
        assert!(tally.minted >= GENERATIONS / 4, "{tally:?}");
    }
}

/// The child role: a `MarkedGenerator` on the mark file, policy and clock offset
/// `KILL9_CHILD` names, printing `id N` per ID until it is killed, or one `error` line.
#[test]
fn a_child_generation_mints_until_it_is_killed() {
    let Ok(spec) = env::var(CHILD) else {
        return; // not the child role
    };
    let mut parts = spec.split(';');
    let (Some(path), Some(policy), Some(offset)) = (parts.next(), parts.next(), parts.next())
    else {
        panic!("{CHILD}={spec:?}: expected PATH;POLICY;OFFSET_MS");
    };
    let policy = POLICIES.iter().find(|(name, _)| *name == policy).unwrap().1;
    let clock = OffsetClock {
        offset_ms: offset.parse().unwrap(),
    };
    let mut out = std::io::stdout().lock();
    let minted = (|| -> Result<(), Error> {
        let file = MarkFile::open(path, Duration::from_millis(20))?;
        let generator = file
            .resume(TT)
            .node("machine", 5)
            .clock(clock)
            .on_clock_behind(policy)
            .build()?;
        let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file)?;
        loop {
            let id = generator.mint()?;
            writeln!(out, "id {id}").unwrap();
        }
    })();
    if let Err(error) = minted {
        writeln!(out, "error {error}").unwrap();
        std::process::exit(1);
    }
}

/// This test binary in its child role on `path`.
fn library_child(path: &Path, policy: &str, offset_ms: i64) -> Command {
    let mut command = Command::new(env::current_exe().unwrap());
    command
        .args([
            "--exact",
            "a_child_generation_mints_until_it_is_killed",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, format!("{};{policy};{offset_ms}", path.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    command
}

/// An `id N` line of the child role.
fn child_id(line: &str) -> Option<u64> {
    line.strip_prefix("id ")?.parse().ok()
}

#[test]
fn a_marked_generator_never_repeats_an_id_across_kill_9_as_its_clock_steps_back_and_forth() {
    let dir = TempDir::new("kill9-marked");
    for (policy, _) in POLICIES {
        let path = dir.join(&format!("{policy}.mark"));
        let (mut seen, mut tally) = (HashSet::new(), Tally::default());
        for k in 0..GENERATIONS {
            let started = Instant::now();
            let child = library_child(&path, policy, offset_ms(k));
            let ids = stream_then_kill(child, reads(k), child_id);
            tally.add(&mut seen, &ids, started.elapsed());
        }
        tally.report(&format!("MarkedGenerator on a MarkFile, {policy}"));
        assert_eq!(tally.repeats, 0, "{tally:?}");
        assert!(tally.minted >= GENERATIONS / 4, "{tally:?}");
    }
}

/// `file`'s snapshot as the library reads it.
fn snapshot_of(file: &Path) -> Snapshot {
    serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap()
}

/// How far `snapshot` reaches on `timeline`: the last tick it marks used there.
fn reach(snapshot: &Snapshot, timeline: u64) -> u64 {
    if snapshot.timeline == timeline {
        snapshot.last_tick
    } else {
        snapshot.other_timeline_tick
    }
}

/// Regression: a run resumed on a clock behind the last run's mints on the
/// other timeline, and its first write ahead replaced the file with the state at its own mark,
/// lowering the last run's timeline; killed, it left a file from which the next run on the last
/// run's clock repeated the last run's IDs. Each write ahead now keeps the state resumed.
#[test]
fn a_killed_run_on_the_other_timeline_never_lowers_the_last_runs_timeline() {
    let dir = TempDir::new("kill9-lowered");
    let file = dir.join("tt.snap");
    // The layout as the CLI builds it from TT_ARGS.
    let scratch = dir.join("scratch.snap");
    let made = Command::new(BIN)
        .args(["mint", "--count", "1"])
        .args(TT_ARGS)
        .arg("--snapshot")
        .arg(&scratch)
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    let layout = snapshot_of(&scratch).layout;
    // Run 0, its clock 5 s ahead, minted one ID a millisecond for 3 s and exited cleanly.
    let ahead = wall_ms() + 5_000;
    let (run0, clock) = on_manual_clock(Generator::builder(layout).node("machine", 5), ahead);
    let mut seen = HashSet::new();
    for _ in 0..3_000 {
        seen.insert(run0.mint().unwrap().to_u64());
        clock.advance(1);
    }
    std::fs::write(&file, serde_json::to_vec(&run0.snapshot()).unwrap()).unwrap();
    let last_tick = run0.snapshot().last_tick;

    // Run 1, on the true clock, mints on timeline 1 and is killed after 2,000 IDs.
    let mut command = Command::new(BIN);
    command
        .args([
            "mint",
            "--on-clock-behind",
            "tick-tock",
            "--count",
            "100000000",
        ])
        .args(TT_ARGS)
        .arg("--snapshot")
        .arg(&file)
        .stdout(Stdio::piped());
    let run1 = stream_then_kill(command, 2_000, |line| line.parse().ok());
    assert!(run1.len() >= 2_000);
    assert!(
        run1.iter()
            .all(|&id| layout.decode(Id::from_u64(id)).unwrap().timeline() == Some(1))
    );
    assert!(
        run1.iter().all(|id| seen.insert(*id)),
        "run 1 repeated run 0"
    );
    let left = snapshot_of(&file);
    assert!(
        reach(&left, 0) >= last_tick,
        "the killed run lowered timeline 0 from tick {last_tick} to {}: {left:?}",
        reach(&left, 0)
    );

    // Run 2, on run 0's clock again, repeats none of theirs.
    let Some(faketime) = faketime_library() else {
        eprintln!("run 2 skipped: libfaketime is not installed (apt-get install faketime)");
        return;
    };
    let run2 = cli_generation(&faketime, &file, "tick-tock", 5_500, 20_000, true);
    assert!(!run2.is_empty());
    let repeats = run2.iter().filter(|&&id| !seen.insert(id)).count();
    assert_eq!(repeats, 0, "run 2 repeated {repeats} of runs 0 and 1's IDs");
}

/// Regression: two CLI processes given one snapshot file each resumed from
/// it and printed the same IDs. The second is refused, with one line naming the file, while the
/// first holds it; once the first is killed, a run resumes above it.
#[test]
fn a_second_cli_process_on_one_snapshot_file_is_refused() {
    let dir = TempDir::new("kill9-second-cli");
    let file = dir.join("shared.snap");
    let mint = |count: &str| {
        let mut command = Command::new(BIN);
        command
            .args(["mint", "--machine", "3", "--count", count, "--snapshot"])
            .arg(&file)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    };
    let mut first = KillOnDrop(mint("100000000").spawn().unwrap());
    let mut out = BufReader::new(first.0.stdout.take().unwrap());
    // Once it printed, it holds the file; it stays blocked on the full pipe, unread.
    let mut printed: Vec<u64> = read_lines(&mut out, 10, |line| line.parse().ok());
    assert_eq!(printed.len(), 10);

    let second = mint("1000").output().unwrap();
    assert_eq!(second.status.code(), Some(1));
    assert!(second.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&second.stderr),
        format!(
            "snowmint: snapshot {}: another snowmint process is using it ({}.lock is locked); \
             expected one process per snapshot file at a time\n",
            file.display(),
            file.display()
        )
    );

    first.0.kill().unwrap();
    printed.extend(read_lines(&mut out, usize::MAX, |line| {
        line.parse::<u64>().ok()
    }));
    let _ = first.0.wait();
    let after = mint("5000").output().unwrap();
    assert!(after.status.success(), "{after:?}");
    let seen: HashSet<u64> = printed.iter().copied().collect();
    let after: Vec<u64> = String::from_utf8(after.stdout)
        .unwrap()
        .lines()
        .map(|line| line.parse().unwrap())
        .collect();
    assert_eq!(after.len(), 5_000);
    assert!(after.iter().all(|id| !seen.contains(id)));
    assert!(after[0] > *printed.iter().max().unwrap());
}

/// A second process on one mark file is refused while a generator holds it (in the
/// parent and in another child), and once the holder is killed a generator resumes above it.
#[test]
fn a_second_process_on_one_mark_file_is_refused() {
    let dir = TempDir::new("kill9-second-marked");
    let path = dir.join("shared.mark");
    let mut holder = KillOnDrop(library_child(&path, "wait", 0).spawn().unwrap());
    let mut out = BufReader::new(holder.0.stdout.take().unwrap());
    let mut printed = read_lines(&mut out, 10, child_id);
    assert_eq!(printed.len(), 10);

    let err = MarkFile::open(&path, Duration::from_millis(20)).unwrap_err();
    assert!(matches!(err, Error::MarkFile { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.starts_with(&format!("mark file {}: ", path.display()))
            && message.contains("is held by another process"),
        "{message}"
    );
    let second = library_child(&path, "wait", 0).output().unwrap();
    assert_eq!(second.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&second.stdout);
    assert!(!stdout.contains("id "), "{stdout}");
    assert!(stdout.contains("is held by another process"), "{stdout}");

    holder.0.kill().unwrap();
    printed.extend(read_lines(&mut out, usize::MAX, child_id));
    let _ = holder.0.wait();
    let file = MarkFile::open(&path, Duration::from_millis(20)).unwrap();
    let generator = file
        .resume(TT)
        .node("machine", 5)
        .clock(OffsetClock { offset_ms: 0 })
        .on_clock_behind(ClockBehind::Wait { max_ms: 200 })
        .build()
        .unwrap();
    let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file).unwrap();
    let seen: HashSet<u64> = printed.iter().copied().collect();
    for _ in 0..5_000 {
        assert!(!seen.contains(&generator.mint().unwrap().to_u64()));
    }
}

/// Regression: `--snapshot` was refused for `--layout sno`. A sno run killed
/// with SIGKILL leaves a file the next run starts above, with the partition and metabyte.
#[test]
fn sno_runs_resume_from_a_snapshot_across_kill_9() {
    let dir = TempDir::new("kill9-sno");
    let file = dir.join("sno.snap");
    let sno = |extra: &[&str], count: &str| {
        let mut command = Command::new(BIN);
        command
            .args(["mint", "--layout", "sno", "--count", count, "--snapshot"])
            .arg(&file)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    };
    let mut seen = HashSet::new();
    let mut last = None;
    for (k, extra) in [
        &["--partition", "9", "--meta", "7"][..],
        &[],
        &["--meta", "7"],
    ]
    .iter()
    .enumerate()
    {
        let printed: Vec<SnoId> = {
            let mut child = KillOnDrop(sno(extra, "100000000").spawn().unwrap());
            let mut out = BufReader::new(child.0.stdout.take().unwrap());
            let mut ids = read_lines(&mut out, 500 + 1_000 * k, |l| l.parse::<SnoId>().ok());
            child.0.kill().unwrap();
            ids.extend(read_lines(&mut out, usize::MAX, |l| {
                l.parse::<SnoId>().ok()
            }));
            ids
        };
        assert!(printed.len() >= 500, "run {k}");
        assert!(
            printed
                .iter()
                .all(|id| (id.partition(), id.meta()) == (9, 7))
        );
        assert!(
            printed.iter().all(|id| seen.insert(*id)),
            "run {k} repeated"
        );
        if let Some(last) = last {
            assert!(
                printed[0] > last,
                "run {k} starts at {} below {last}",
                printed[0]
            );
        }
        last = printed.last().copied();
    }
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!((&json["partition"], &json["meta"]), (&9.into(), &7.into()));
    let clean = sno(&[], "2000").output().unwrap();
    assert!(clean.status.success(), "{clean:?}");
    let ids: Vec<SnoId> = String::from_utf8(clean.stdout)
        .unwrap()
        .lines()
        .map(|line| line.parse().unwrap())
        .collect();
    assert_eq!(ids.len(), 2_000);
    assert!(ids.iter().all(|id| seen.insert(*id)));
    // A flag that disagrees with the file is refused, naming both values.
    let other = sno(&["--meta", "8"], "1").output().unwrap();
    assert_eq!(other.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&other.stderr),
        format!(
            "snowmint: snapshot {}: --meta 8 does not match the snapshot's meta 7; omit --meta \
             or give 7\n",
            file.display()
        )
    );
}
