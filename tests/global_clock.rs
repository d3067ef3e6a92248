//! `CachedClock::global()`, the process's one cached clock, and the refresher threads of
//! cached clocks: when they run, park, wake and end; and a generator on the global clock.
//!
//! A test binary of its own, so that no other test's clocks read the global clock or start
//! refreshers while these tests count threads and wake-ups. The tests here still take one
//! lock: a test that counts threads or wake-ups never runs beside one that reads a clock.
//!
//! The global clock's source here is a `MonotonicClock` that slews rather than going back
//! (see [`global`]): a reading behind an earlier one is then the cache's doing, never its
//! source's.

mod common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, Once, PoisonError};
use std::thread;
use std::time::Duration;

use snowmint::{
    Clock, Generator, Id, Layout,
    clock::{CachedClock, MonotonicClock, WallClockBack},
};

use common::checks::{assert_near, assert_unique_and_increasing};
use common::clocks::wall_ms;
use common::refresher::{IDLE_PARK, assert_parks_then_wakes, wait_parked};
use common::threads::{eventually, on_threads};

/// How far a fresh reading may be from `SystemTime::now()`: the clock follows the wall clock to
/// well under a millisecond; the rest is for a thread descheduled between the reads.
const NEAR_MS: u64 = 50;

/// How far the cached reading may lag the wall clock when the refresher waits for a core (this
/// machine has two, and the tests keep them busy).
const LAG_MS: u64 = 1_000;

static SERIAL: Mutex<()> = Mutex::new(());

/// One test at a time; a failed test does not stop the others.
fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The process-wide clock, over a `MonotonicClock` that slews rather than going back (the
/// default one may go back by a millisecond when it re-anchors to the wall clock). Every test
/// gets the clock here, so its source is chosen before anything reads it.
fn global() -> CachedClock {
    static CHOSEN: Once = Once::new();
    CHOSEN.call_once(|| {
        let slewing = MonotonicClock::builder()
            .on_wall_clock_back(WallClockBack::Slew)
            .build();
        CachedClock::set_global_source(slewing)
            .expect("nothing read the process-wide clock before its source was chosen");
    });
    CachedClock::global()
}

#[test]
fn readings_follow_the_wall_clock_and_never_go_back() {
    let _serial = serial();
    let clock = global();
    assert_eq!(std::mem::size_of_val(&clock), 0);
    assert!(
        CachedClock::set_global_source(MonotonicClock::new()).is_err(),
        "the source is chosen once"
    );

    // Fresh readings, one thread.
    for _ in 0..20 {
        let before = wall_ms();
        let precise = clock.unix_ms_precise();
        let cached = clock.unix_ms();
        let after = wall_ms();
        assert_near(precise, before, after, NEAR_MS, "the precise reading");
        // The precise read published its reading, or the refresher a later one.
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

    // Many reads on four threads, with a source that never goes back: the cached reading never
    // goes back, on a thread or after a reading another thread published; a precise read is
    // never behind the cached one read before it, and the cached one is never behind it after.
    const THREADS: usize = 4;
    const READS: usize = 100_000;
    let latest = AtomicU64::new(0);
    on_threads(THREADS, |_| {
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
                assert!(
                    precise >= cached,
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
    let before = wall_ms();
    assert_near(
        clock.unix_ms_precise(),
        before,
        wall_ms(),
        NEAR_MS,
        "the precise reading",
    );
}

/// The global refresher parks when nobody reads the clock, at most ten wake-ups a second, and
/// the next read wakes it; its readings then follow the wall clock again.
#[test]
fn the_global_refresher_parks_when_nobody_reads_and_the_next_read_wakes_it() {
    let _serial = serial();
    let clock = global();
    assert_parks_then_wakes(|| clock.unix_ms(), || clock.wakeups());

    let reading = clock.unix_ms();
    assert!(
        eventually(|| clock.unix_ms() >= reading + 5),
        "the reading stays at {reading} ms"
    );
    for _ in 0..20 {
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

/// The global clock has one refresher, started by the first read, which parks but never ends.
/// A private clock starts its own on its first read; a clone keeps it (parked, it stays); it
/// ends after the last clone is dropped.
#[cfg(target_os = "linux")]
#[test]
fn a_private_clocks_refresher_ends_after_its_last_clone_is_dropped() {
    let _serial = serial();
    let global = global();
    global.unix_ms();
    assert!(
        eventually(|| clock_threads() == 1),
        "not one refresher for the global clock: {}",
        clock_threads()
    );

    let clock = CachedClock::new(MonotonicClock::new());
    let copy = clock.clone();
    thread::sleep(IDLE_PARK);
    assert_eq!(clock_threads(), 1, "a refresher before the first read");
    assert_eq!(clock.wakeups(), 0);
    clock.unix_ms();
    assert!(
        eventually(|| clock_threads() == 2),
        "no refresher after the first read"
    );
    drop(clock);

    // Unread, the refresher parks; the clone keeps it across its idle wake-ups, and a read
    // wakes it.
    wait_parked(|| copy.wakeups());
    thread::sleep(IDLE_PARK * 3);
    assert_eq!(clock_threads(), 2, "a clone did not keep the refresher");
    let reading = copy.unix_ms();
    assert!(
        eventually(|| copy.unix_ms() >= reading + 5),
        "the reading stays at {reading} ms"
    );
    drop(copy);
    assert!(
        eventually(|| clock_threads() == 1),
        "the refresher outlived its clock's last clone"
    );
}

/// Private clocks made, read and dropped on many threads, beside reads of the global clock:
/// every private refresher ends, and the global clock keeps exactly one.
#[cfg(target_os = "linux")]
#[test]
fn clocks_made_and_dropped_on_many_threads_leave_the_global_refresher_alone() {
    let _serial = serial();
    let global = global();
    // Clocks come and go around the refreshers' wake-ups and probes: sleeps of up to a few
    // milliseconds.
    on_threads(4, |t| {
        let t = t as u64;
        for i in 0..50u64 {
            let clock = CachedClock::new(MonotonicClock::new());
            let copy = clock.clone();
            assert!(clock.unix_ms() > 0);
            assert!(global.unix_ms() > 0);
            thread::sleep(Duration::from_micros((i * 37 + t * 101) % 5_000));
            drop(clock);
            assert!(copy.unix_ms() > 0);
            drop(copy);
            thread::sleep(Duration::from_micros((i * 53 + t * 29) % 5_000));
        }
    });
    assert!(
        eventually(|| clock_threads() == 1),
        "a private refresher outlived its clock: {} refreshers",
        clock_threads()
    );
    let reading = global.unix_ms();
    assert!(
        eventually(|| global.unix_ms() >= reading + 5),
        "the global reading stays at {reading} ms"
    );
    // Exactly one, however long and however many threads read it.
    thread::sleep(IDLE_PARK * 4);
    assert_eq!(clock_threads(), 1);
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
    let clock = global();
    // The global clock is the builder's default.
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 9)
        .build()
        .unwrap();
    let minted: Vec<Vec<Minted>> = on_threads(THREADS, |t| {
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
    });

    let layout = Layout::TWITTER;
    let seen =
        assert_unique_and_increasing(minted.iter().map(|thread| thread.iter().map(|m| m.id)));
    let mut per_tick: HashMap<u64, usize> = HashMap::new();
    for thread in &minted {
        for m in thread {
            let parts = layout.decode(m.id).unwrap();
            assert_eq!(parts.node("machine"), Some(9));
            let time_ms = parts.unix_ms();
            // Never before the cached reading taken before the call, never past the wall
            // clock read after it (two ticks of slack for the clock's drift from the wall
            // clock between re-anchors).
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
