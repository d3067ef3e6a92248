//! `GlobalClock`: the process's one cached clock, its refresh thread, and a generator on it.
//!
//! A test binary of its own, so no other test's handles keep the refresh thread alive or start
//! it. The tests here still take one lock: a test that counts threads never runs beside one
//! that holds a handle.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use snowmint::{Clock, Generator, GlobalClock, Id, Layout};

/// How far a fresh reading may be from `SystemTime::now()`: the default clock follows the wall
/// clock to well under a millisecond; the rest is for a thread descheduled between the reads.
const NEAR_MS: u64 = 50;

/// How far the cached reading may lag the wall clock when the refresh thread waits for a core
/// (this machine has two, and the tests keep them busy).
const LAG_MS: u64 = 1_000;

/// The longest any bounded wait here waits.
const PATIENCE: Duration = Duration::from_secs(10);

static SERIAL: Mutex<()> = Mutex::new(());

/// One test at a time; a failed test does not stop the others.
fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Unix milliseconds from the wall clock.
fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// Whether `done` becomes true within [`PATIENCE`], checked every millisecond.
fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    loop {
        if done() {
            return true;
        }
        if start.elapsed() > PATIENCE {
            return false;
        }
        thread::sleep(Duration::from_millis(1));
    }
}

/// `wall_before - slack <= reading <= wall_after + slack`.
fn assert_near(reading: u64, wall_before: u64, wall_after: u64, slack: u64, what: &str) {
    assert!(
        wall_before - slack <= reading && reading <= wall_after + slack,
        "{what} {reading} ms is not within {slack} ms of the wall clock ({wall_before}..={wall_after} ms)"
    );
}

#[test]
fn readings_follow_the_wall_clock_and_never_go_back() {
    let _serial = serial();
    let clock = GlobalClock::new().unwrap();

    // Fresh readings, one thread.
    for _ in 0..20 {
        let before = wall_ms();
        let precise = clock.unix_ms_precise();
        let cached = clock.unix_ms();
        let after = wall_ms();
        assert_near(precise, before, after, NEAR_MS, "the precise reading");
        // The precise read raised the cached reading.
        assert!(
            cached >= precise,
            "cached {cached} ms after precise {precise} ms"
        );
        assert_near(cached, before, after, NEAR_MS, "the cached reading");
        thread::sleep(Duration::from_millis(3));
        let before = wall_ms();
        let cached = clock.unix_ms();
        assert_near(
            cached,
            before - LAG_MS,
            wall_ms(),
            NEAR_MS,
            "the cached reading",
        );
    }

    // Many reads on four threads: the cached reading never goes back, on a thread or after a
    // reading another thread published; a precise read is never behind the cached one read
    // before it, and raises it.
    const THREADS: usize = 4;
    const READS: usize = 100_000;
    let latest = AtomicU64::new(0);
    let steps_back = AtomicU64::new(0);
    thread::scope(|s| {
        for _ in 0..THREADS {
            let (clock, latest, steps_back) = (clock.clone(), &latest, &steps_back);
            s.spawn(move || {
                let mut last = 0;
                for i in 0..READS {
                    let published = latest.load(Ordering::Acquire);
                    let cached = clock.unix_ms();
                    assert!(cached >= last, "cached {cached} ms after {last} ms");
                    assert!(
                        cached >= published,
                        "cached {cached} ms after another thread read {published} ms"
                    );
                    latest.fetch_max(cached, Ordering::AcqRel);
                    last = cached;
                    if i % 16 == 0 {
                        let precise = clock.unix_ms_precise();
                        // The default clock re-anchors to the wall clock once a second, and may
                        // step back by microseconds then: across a millisecond boundary, one
                        // millisecond. Counted, and allowed.
                        if precise < cached {
                            steps_back.fetch_add(1, Ordering::Relaxed);
                        }
                        assert!(
                            precise + 1 >= cached,
                            "precise {precise} ms after cached {cached} ms"
                        );
                        let raised = clock.unix_ms();
                        assert!(
                            raised >= precise,
                            "cached {raised} ms after precise {precise} ms"
                        );
                        last = raised;
                    }
                }
            });
        }
    });
    let steps_back = steps_back.load(Ordering::Relaxed);
    if steps_back > 0 {
        eprintln!("{steps_back} precise readings one millisecond behind the cached one");
    }
    let before = wall_ms();
    assert_near(
        clock.unix_ms_precise(),
        before,
        wall_ms(),
        NEAR_MS,
        "the precise reading",
    );
}

/// How many threads named `snowmint-clock` this process has.
#[cfg(target_os = "linux")]
fn clock_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task")
        .filter_map(Result::ok)
        .filter(|task| {
            // A thread may exit between the listing and the read.
            std::fs::read_to_string(task.path().join("comm"))
                .is_ok_and(|name| name.trim_end() == "snowmint-clock")
        })
        .count()
}

#[cfg(target_os = "linux")]
#[test]
fn the_refresh_thread_runs_while_a_handle_lives_and_restarts_with_a_fresh_reading() {
    let _serial = serial();
    assert!(
        eventually(|| clock_threads() == 0),
        "a refresh thread with no handle"
    );

    let first = GlobalClock::new().unwrap();
    assert!(eventually(|| clock_threads() == 1), "no refresh thread");
    let second = first.clone();
    drop(first);
    // A clone keeps the thread running, and refreshing: the reading moves with nobody
    // reading the source.
    thread::sleep(GlobalClock::REFRESH * 40);
    assert_eq!(clock_threads(), 1, "a clone did not keep the thread");
    let reading = second.unix_ms();
    assert!(
        eventually(|| second.unix_ms() >= reading + 5),
        "the reading stayed at {reading} ms"
    );
    let third = second.clone();
    drop(second);
    drop(third);
    assert!(
        eventually(|| clock_threads() == 0),
        "the thread outlived the last handle"
    );

    // No thread for a while: the reading goes stale. The next handle starts a thread again,
    // and reads the source before it is returned.
    thread::sleep(Duration::from_millis(200));
    let before = wall_ms();
    let restarted = GlobalClock::new().unwrap();
    let reading = restarted.unix_ms();
    assert_near(
        reading,
        before,
        wall_ms(),
        NEAR_MS,
        "the first reading after a restart",
    );
    assert!(
        eventually(|| clock_threads() == 1),
        "no thread after a restart"
    );
    assert!(
        eventually(|| restarted.unix_ms() >= reading + 5),
        "the restarted thread does not refresh"
    );
    drop(restarted);
    assert!(eventually(|| clock_threads() == 0));
}

#[cfg(target_os = "linux")]
#[test]
fn handles_made_and_dropped_on_many_threads_leave_one_thread_or_none() {
    let _serial = serial();
    // Handles come and go around the moments the thread checks the count: sleeps of up to
    // about two of its periods.
    let refresh_us = 2 * GlobalClock::REFRESH.as_micros() as u64;
    thread::scope(|s| {
        for t in 0..4u64 {
            s.spawn(move || {
                for i in 0..100u64 {
                    let clock = GlobalClock::new().unwrap();
                    let copy = clock.clone();
                    thread::sleep(Duration::from_micros((i * 37 + t * 101) % refresh_us));
                    drop(clock);
                    assert!(copy.unix_ms() > 0);
                    drop(copy);
                    thread::sleep(Duration::from_micros((i * 53 + t * 29) % refresh_us));
                }
            });
        }
    });
    assert!(
        eventually(|| clock_threads() == 0),
        "a refresh thread outlived every handle"
    );
    let clock = GlobalClock::new().unwrap();
    let reading = clock.unix_ms();
    assert!(eventually(|| clock_threads() == 1));
    assert!(
        eventually(|| clock.unix_ms() >= reading + 5),
        "a new handle has no running thread behind it"
    );
    // Exactly one, for as long as the handle lives.
    thread::sleep(GlobalClock::REFRESH * 40);
    assert_eq!(clock_threads(), 1);
    drop(clock);
    assert!(eventually(|| clock_threads() == 0));
}

/// What a thread records per ID: the cached reading before the call, the wall clock after.
struct Minted {
    id: Id,
    cached_before: u64,
    wall_after: u64,
}

#[test]
fn a_twitter_generator_on_the_global_clock_fills_ticks_without_losing_ids() {
    const THREADS: usize = 4;
    const PER_TICK: usize = 4096;
    const PER_THREAD: usize = PER_TICK * 50 / THREADS;
    let _serial = serial();
    let clock = GlobalClock::new().unwrap();
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 9)
        .clock(clock.clone())
        .build()
        .unwrap();
    let minted: Vec<Vec<Minted>> = thread::scope(|s| {
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let (generator, clock) = (&generator, &clock);
                s.spawn(move || {
                    let mut minted = Vec::with_capacity(PER_THREAD + 64);
                    let mut buffer = [Id::from_u64(0); 64];
                    while minted.len() < PER_THREAD {
                        let cached_before = clock.unix_ms();
                        let n = if (minted.len() / 64 + t) % 2 == 0 {
                            generator.mint_batch(&mut buffer).expect("mint_batch")
                        } else {
                            buffer[0] = generator.mint().expect("mint");
                            1
                        };
                        let wall_after = wall_ms();
                        minted.extend(buffer[..n].iter().map(|&id| Minted {
                            id,
                            cached_before,
                            wall_after,
                        }));
                    }
                    minted
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });

    let layout = Layout::TWITTER;
    let mut seen = HashSet::new();
    let mut per_tick: HashMap<u64, usize> = HashMap::new();
    for thread in &minted {
        assert!(thread.windows(2).all(|pair| pair[0].id < pair[1].id));
        for m in thread {
            assert!(seen.insert(m.id), "{:?} minted twice", m.id);
            let parts = layout.decode(m.id).unwrap();
            assert_eq!(parts.node("machine"), Some(9));
            let time_ms = parts.timestamp_ms();
            // Never before the cached reading taken before the call, never past the wall
            // clock read after it (two ticks of slack for the default clock's drift from the
            // wall clock between re-anchors).
            assert!(
                m.cached_before <= time_ms && time_ms <= m.wall_after + 2,
                "{parts:?}: cached {} ms before, wall clock {} ms after",
                m.cached_before,
                m.wall_after
            );
            assert!(time_ms + LAG_MS >= m.wall_after, "{parts:?} is stale");
            *per_tick.entry(parts.ticks()).or_default() += 1;
        }
    }
    assert_eq!(seen.len(), minted.iter().map(Vec::len).sum::<usize>());
    let fullest = per_tick.values().max().copied().unwrap();
    assert!(fullest <= PER_TICK, "{fullest} IDs in one tick");
    assert!(per_tick.len() >= 50);
    let stats = generator.stats();
    assert!(stats.overflows > 0, "no tick filled: {stats:?}");
}
