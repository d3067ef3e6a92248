//! The mark file: IDs never repeat across a crash, and the file is written rarely and
//! atomically.

mod common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::Duration;

use snowmint::{
    Clock, ClockBehind, Error, Id, Layout,
    clock::ManualClock,
    mark::{MarkFile, MarkFileStore, MarkStore, MarkedGenerator},
};

use common::clocks::{T0, built_on_manual_clock};
use common::files::TempDir;
use common::layouts::TT;
use common::threads::on_threads;

const INTERVAL: Duration = Duration::from_secs(1);

/// The mark file in `dir`.
fn mark_path(dir: &TempDir) -> PathBuf {
    dir.join("mark")
}

fn on_disk(path: &Path) -> u64 {
    std::fs::read_to_string(path)
        .unwrap()
        .trim_end()
        .parse()
        .unwrap()
}

fn start(
    path: &Path,
    layout: Layout,
    clock: &ManualClock,
    policy: ClockBehind,
) -> Result<MarkedGenerator<ManualClock, MarkFileStore>, Error> {
    let file = MarkFile::open(path, INTERVAL)?;
    let generator = file
        .resume(layout)
        .node("machine", 3)
        .clock(clock.clone())
        .on_clock_behind(policy)
        .build()?;
    MarkedGenerator::<_, MarkFileStore>::new(generator, file)
}

fn time_ms(layout: &Layout, id: Id) -> u64 {
    layout.decode(id).unwrap().unix_ms()
}

#[test]
fn the_mark_stays_above_every_id_and_is_written_once_per_interval() {
    let dir = TempDir::new("bounded");
    let path = mark_path(&dir);
    let layout = Layout::TWITTER;
    let clock = ManualClock::new(T0);
    let generator = start(&path, layout, &clock, ClockBehind::Error).unwrap();
    let mut ids = HashSet::new();
    let mut max_time = 0;
    for i in 0..10_000u64 {
        let id = generator.mint().unwrap();
        assert!(ids.insert(id));
        let time = time_ms(&layout, id);
        max_time = max_time.max(time);
        // The mark on disk, read back from the file, is above every ID returned so far.
        assert!(on_disk(&path) > max_time);
        assert_eq!(generator.mark(), on_disk(&path));
        // 10,000 IDs over 10 s of simulated time, some ticks with several IDs.
        if i % 3 != 0 {
            clock.advance(1);
        }
    }
    let span_ms = max_time - T0;
    assert!((6_000..7_000).contains(&span_ms), "{span_ms}");
    // One write per interval of ID time, plus the first.
    assert_eq!(generator.writes(), span_ms / 1_000 + 1);
    assert!(!path.with_file_name("mark.tmp").exists());
}

#[test]
fn threads_share_one_mark() {
    let dir = TempDir::new("threads");
    let path = mark_path(&dir);
    let layout = Layout::TWITTER;
    let clock = ManualClock::new(T0);
    let generator = start(&path, layout, &clock, ClockBehind::Error).unwrap();
    let ids: Vec<Id> = thread::scope(|s| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    (0..2_000)
                        .map(|_| generator.mint().unwrap())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        // Keep time moving until every worker is done: a full tick makes `mint` wait for the
        // next one.
        while !workers.iter().all(|w| w.is_finished()) {
            clock.advance(7);
            thread::sleep(Duration::from_micros(100));
        }
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len());
    let max_time = ids.iter().map(|&id| time_ms(&layout, id)).max().unwrap();
    assert!(on_disk(&path) > max_time);
    let span_ms = max_time - T0;
    assert!(span_ms > 0);
    assert!(generator.writes() <= span_ms / 1_000 + 1, "{span_ms}");
}

/// Mints across 3 s of simulated time, then "crashes": dropped without a snapshot. Returns the
/// IDs and the last minted time.
fn run_and_crash(path: &Path, layout: Layout) -> (HashSet<Id>, u64) {
    let clock = ManualClock::new(T0);
    let generator = start(path, layout, &clock, ClockBehind::Error).unwrap();
    let mut ids = HashSet::new();
    for _ in 0..3_000 {
        ids.insert(generator.mint().unwrap());
        clock.advance(1);
    }
    let last = ids.iter().map(|&id| time_ms(&layout, id)).max().unwrap();
    drop(generator);
    (ids, last)
}

#[test]
fn after_a_crash_a_clock_behind_errors_instead_of_repeating() {
    let dir = TempDir::new("crash-error");
    let path = mark_path(&dir);
    let layout = Layout::TWITTER;
    let (old, last) = run_and_crash(&path, layout);
    // The host clock now reads 500 ms behind the last ID, inside the old interval.
    let clock = ManualClock::new(last - 500);
    let generator = start(&path, layout, &clock, ClockBehind::Error).unwrap();
    assert!(matches!(generator.mint(), Err(Error::ClockBehind { .. })));
    // Once the clock passes the mark, minting resumes above every old ID.
    let mark = on_disk(&path);
    assert!(mark > last);
    clock.set(mark + 1);
    for _ in 0..5_000 {
        let id = generator.mint().unwrap();
        assert!(!old.contains(&id));
        assert!(time_ms(&layout, id) > last);
        clock.advance(1);
    }
}

#[test]
fn after_a_crash_a_waiting_generator_mints_above_the_mark() {
    let dir = TempDir::new("crash-wait");
    let path = mark_path(&dir);
    let layout = Layout::TWITTER;
    let (old, last) = run_and_crash(&path, layout);
    let mark = on_disk(&path);
    let clock = ManualClock::new(last - 500);
    let generator = start(&path, layout, &clock, ClockBehind::Wait { max_ms: 5_000 }).unwrap();
    let id = thread::scope(|s| {
        let minter = s.spawn(|| generator.mint().unwrap());
        // Until the mint is waiting (a minter scheduled late would otherwise find the clock
        // past the mark already and never wait), then bring the clock up past the mark.
        let deadline = std::time::Instant::now() + Duration::from_secs(4);
        while generator.generator().stats().waits == 0 && std::time::Instant::now() < deadline {
            thread::sleep(Duration::from_millis(1));
        }
        while clock.unix_ms() <= mark {
            thread::sleep(Duration::from_millis(1));
            clock.advance(100);
        }
        minter.join().unwrap()
    });
    assert!(!old.contains(&id));
    assert!(time_ms(&layout, id) > mark);
    assert!(generator.generator().stats().waits >= 1);
}

#[test]
fn after_a_crash_tick_tock_cannot_toggle_into_old_time() {
    let dir = TempDir::new("crash-tick-tock");
    let path = mark_path(&dir);
    let layout = TT;
    let (old, last) = run_and_crash(&path, layout);
    let clock = ManualClock::new(last - 500);
    let generator = start(&path, layout, &clock, ClockBehind::TickTock { max_ms: 0 }).unwrap();
    // Both timelines are marked used up to the mark: no toggle into the old interval.
    assert!(matches!(generator.mint(), Err(Error::ClockBehind { .. })));
    clock.set(on_disk(&path) + 1);
    let id = generator.mint().unwrap();
    assert!(!old.contains(&id));
}

#[test]
fn a_missing_file_is_a_fresh_start() {
    let dir = TempDir::new("missing");
    let path = mark_path(&dir);
    let file = MarkFile::open(&path, INTERVAL).unwrap();
    assert_eq!(file.mark(), None);
    assert!(!path.exists()); // opening does not create it
    drop(file); // its hold on the file, for the generator to take
    let clock = ManualClock::new(T0);
    let generator = start(&path, Layout::TWITTER, &clock, ClockBehind::Error).unwrap();
    assert_eq!(generator.mark(), 0);
    let id = generator.mint().unwrap();
    assert_eq!(time_ms(&Layout::TWITTER, id), T0);
    assert_eq!(on_disk(&path), T0 + 1_000);
}

#[test]
fn a_corrupt_file_names_the_path_and_the_content() {
    let dir = TempDir::new("corrupt");
    let path = mark_path(&dir);
    for content in [
        "",
        "\n",
        "17OO000000000\n",
        "-5\n",
        "1\n2\n",
        "99999999999999999999999\n",
    ] {
        std::fs::write(&path, content).unwrap();
        let err = MarkFile::open(&path, INTERVAL).unwrap_err();
        let Error::MarkFile {
            path: named,
            reason,
            source: None,
        } = &err
        else {
            panic!("{err:?}");
        };
        assert_eq!(named, &path.display().to_string());
        assert!(reason.contains(&format!("{content:?}")), "{reason}");
        assert!(
            err.to_string()
                .starts_with(&format!("mark file {}: holds ", path.display())),
            "{err}"
        );
        assert!(reason.contains("expected one line with a Unix-millisecond mark"));
    }
    std::fs::write(&path, "x\n").unwrap();
    assert_eq!(
        MarkFile::open(&path, INTERVAL).unwrap_err().to_string(),
        format!(
            "mark file {}: holds \"x\\n\", expected one line with a Unix-millisecond mark: \
             invalid digit found in string",
            path.display()
        )
    );
}

#[test]
fn a_generator_not_started_above_the_mark_is_refused() {
    let dir = TempDir::new("refused");
    let path = mark_path(&dir);
    std::fs::write(&path, format!("{T0}\n")).unwrap();
    let file = MarkFile::open(&path, INTERVAL).unwrap();
    let fresh = snowmint::Generator::builder(Layout::TWITTER)
        .node("machine", 0)
        .clock(ManualClock::new(T0 + 10_000))
        .build()
        .unwrap();
    let err = MarkedGenerator::<_, MarkFileStore>::new(fresh, file).unwrap_err();
    assert!(err.to_string().contains("MarkFile::resume"), "{err}");
}

#[test]
fn writes_go_through_a_temporary_file_renamed_over_the_mark() {
    let dir = TempDir::new("rename");
    let path = mark_path(&dir);
    // A leftover of a write cut short (each write has a temporary file of its own) is
    // ignored.
    let tmp = dir.join("mark.tmp.1.0");
    std::fs::write(&tmp, "garbage").unwrap();
    let clock = ManualClock::new(T0);
    let generator = start(&path, Layout::TWITTER, &clock, ClockBehind::Error).unwrap();
    for _ in 0..3 {
        generator.mint().unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("{}\n", generator.mark())
        );
        // The mark, the lock files and the leftover: no temporary file of this write's.
        let mut entries: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        entries.sort();
        assert_eq!(entries, ["mark", "mark.lock", "mark.owner", "mark.tmp.1.0"]);
        clock.advance(1_000);
    }
    assert_eq!(generator.writes(), 3);
}

#[test]
fn a_failed_write_returns_an_error_and_no_id() {
    let dir = TempDir::new("unwritable");
    // The file's directory does not exist: neither the lock file nor a temporary file can
    // be created.
    let path = dir.join("missing-dir").join("mark");
    let clock = ManualClock::new(T0);
    let generator = start(&path, Layout::TWITTER, &clock, ClockBehind::Error).unwrap();
    let err = generator.mint().unwrap_err();
    assert!(err.to_string().ends_with(": cannot lock the file"), "{err}");
    // The I/O error is kept as the error's source.
    let Error::MarkFile {
        source: Some(io), ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!(io.io().kind(), std::io::ErrorKind::NotFound);
    let source = std::error::Error::source(&err).expect("a source");
    assert_eq!(source.to_string(), io.io().to_string());
    assert_eq!(generator.mark(), 0);
    // Once the directory exists, minting goes on, above the discarded ID.
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    generator.mint().unwrap();
    assert_eq!(generator.writes(), 1);
}

/// A `MarkedGenerator` on a clone of `file` over `layout`'s machine 5 with `range`, on a
/// clock at `unix_ms`.
fn on_clone(
    file: &MarkFile,
    range: std::ops::RangeInclusive<u64>,
    unix_ms: u64,
) -> (MarkedGenerator<ManualClock, MarkFileStore>, ManualClock) {
    let (generator, clock) = built_on_manual_clock(unix_ms, |clock| {
        file.resume(Layout::TWITTER)
            .node("machine", 5)
            .sequence_range(range)
            .clock(clock)
            .build()
            .unwrap()
    });
    (
        MarkedGenerator::<_, MarkFileStore>::new(generator, file.clone()).unwrap(),
        clock,
    )
}

/// Regression: two `MarkedGenerator`s on clones of one file (disjoint sequence ranges of
/// one node) each wrote their own mark, so the one behind lowered the mark on disk below IDs
/// the other had returned; restarted from the file, a generator repeated them. A write keeps
/// the greater of its mark and the one on disk.
#[test]
fn writers_on_clones_of_one_file_never_lower_its_mark() {
    let dir = TempDir::new("clones");
    let file = MarkFile::open(mark_path(&dir), INTERVAL).unwrap();
    let (ahead, _) = on_clone(&file, 0..=2047, T0 + 5_000);
    let (behind, _) = on_clone(&file, 2048..=4095, T0);
    let returned = ahead.mint().unwrap();
    assert_eq!(on_disk(&mark_path(&dir)), T0 + 6_000);
    behind.mint().unwrap();
    assert_eq!(
        on_disk(&mark_path(&dir)),
        T0 + 6_000,
        "the generator behind lowered the mark"
    );
    assert_eq!(behind.mark(), T0 + 6_000);

    // After a crash, a generator restarted from the file on the range of `ahead` mints above
    // everything `ahead` returned, even on a clock behind it.
    drop((ahead, behind, file));
    let file = MarkFile::open(mark_path(&dir), INTERVAL).unwrap();
    let (restarted, _) = on_clone(&file, 0..=2047, T0 + 6_001);
    assert!(restarted.mint().unwrap() > returned);
}

/// Writers on clones of one file in many threads, each on its own clock: the mark on disk is
/// the greatest any of them wrote, and no temporary file is left behind.
#[test]
fn concurrent_writers_keep_the_greatest_mark() {
    let dir = TempDir::new("concurrent");
    let file = MarkFile::open(mark_path(&dir), Duration::from_millis(1)).unwrap();
    let marks: Vec<u64> = on_threads(4, |i| {
        let i = i as u64;
        let range = i * 1024..=i * 1024 + 1023;
        let (generator, clock) = on_clone(&file, range, T0 + i * 7);
        for _ in 0..50 {
            generator.mint().unwrap();
            clock.advance(1 + i);
        }
        generator.mark()
    });
    assert_eq!(on_disk(&mark_path(&dir)), *marks.iter().max().unwrap());
    let leftovers: Vec<_> = std::fs::read_dir(mark_path(&dir).parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// Regression: a corrupt mark file was read whole into the error message (a 200 MB
/// file, a 200 MB message). A file longer than a mark can be is judged corrupt after 65
/// bytes, and the error repeats at most 64 characters of it.
#[test]
fn a_long_corrupt_file_is_judged_on_its_first_bytes() {
    let dir = TempDir::new("corrupt");
    std::fs::write(mark_path(&dir), "9".repeat(1 << 20)).unwrap();
    let err = MarkFile::open(mark_path(&dir), INTERVAL).unwrap_err();
    assert!(matches!(err, Error::MarkFile { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("is longer than 64 bytes"), "{message}");
    assert!(message.len() < 400, "{} bytes", message.len());
    std::fs::write(mark_path(&dir), format!("{}x\n", "1".repeat(40))).unwrap();
    let message = MarkFile::open(mark_path(&dir), INTERVAL)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("expected one line with a Unix-millisecond mark"),
        "{message}"
    );
}

/// Regression: two generators resumed from one mark file (in two processes,
/// or from two opens in one) started from the same mark and minted the same IDs. An open holds
/// the file until it and its clones are dropped; a second open is refused, naming the file.
/// tests/kill9.rs refuses a second process.
#[test]
fn a_second_open_of_a_held_file_is_refused_until_the_first_is_dropped() {
    let dir = TempDir::new("held");
    let path = mark_path(&dir);
    let clock = ManualClock::new(T0);
    let generator = start(&path, Layout::TWITTER, &clock, ClockBehind::Error).unwrap();
    let id = generator.mint().unwrap();
    let err = MarkFile::open(&path, INTERVAL).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "mark file {}: is held by another process or another MarkFile::open in \
             this process (its .owner lock is taken); expected one generator per mark file \
             at a time",
            path.display()
        )
    );
    assert!(start(&path, Layout::TWITTER, &clock, ClockBehind::Error).is_err());
    drop(generator);
    let restarted = start(
        &path,
        Layout::TWITTER,
        &clock,
        ClockBehind::Wait { max_ms: 2_000 },
    );
    clock.set(on_disk(&path) + 1);
    assert!(restarted.unwrap().mint().unwrap() > id);
}

/// A file whose directory is missing at `open` is held from its first write, and refused there
/// if another generator wrote it meanwhile.
#[test]
fn a_hold_taken_at_the_first_write_refuses_a_file_written_since_open() {
    let dir = TempDir::new("late-hold");
    let path = dir.join("later").join("mark");
    let clock = ManualClock::new(T0);
    let late = start(&path, Layout::TWITTER, &clock, ClockBehind::Error).unwrap();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let early = start(&path, Layout::TWITTER, &clock, ClockBehind::Error).unwrap();
    early.mint().unwrap();
    let err = late.mint().unwrap_err().to_string();
    assert!(err.contains("is held by another process"), "{err}");
    drop(early);
    let err = late.mint().unwrap_err().to_string();
    assert!(
        err.contains("written by another generator since it was opened"),
        "{err}"
    );
}

/// A store that counts the calls to its `stop`.
struct CountingStore(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl MarkStore for CountingStore {
    fn start<C: Clock + Send + Sync + 'static>(
        &self,
        _: &std::sync::Arc<snowmint::Generator<C>>,
    ) -> snowmint::Result<()> {
        Ok(())
    }
    fn admit(&self, _: u64) -> snowmint::Result<()> {
        Ok(())
    }
    fn stop(&mut self, _: u64) -> snowmint::Result<()> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }
}

#[test]
fn a_marked_generator_stops_its_store_once_on_shutdown_and_drop() {
    let stops = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let generator = || {
        snowmint::Generator::builder(Layout::TWITTER)
            .node("machine", 1)
            .clock(ManualClock::new(T0))
            .build()
            .unwrap()
    };
    let marked: MarkedGenerator<_, CountingStore> =
        MarkedGenerator::new(generator(), CountingStore(stops.clone())).unwrap();
    marked.mint().unwrap();
    marked.shutdown().unwrap();
    assert_eq!(stops.load(std::sync::atomic::Ordering::Relaxed), 1);
    let dropped: MarkedGenerator<_, CountingStore> =
        MarkedGenerator::new(generator(), CountingStore(stops.clone())).unwrap();
    drop(dropped);
    assert_eq!(stops.load(std::sync::atomic::Ordering::Relaxed), 2);
}
