//! A cached clock's refresher, checked through its wake-up count: it parks when nobody reads
//! the clock, and the next read wakes it (`tests/cached_clock.rs`, `tests/global_clock.rs`).

use std::thread;
use std::time::{Duration, Instant};

use super::threads::{PATIENCE, eventually};

/// How long a parked refresher sleeps between its idle wake-ups: an idle cached clock wakes
/// at most ten times a second (`CachedClock`'s docs).
pub const IDLE_PARK: Duration = Duration::from_millis(100);

/// Waits, reading nothing, until a cached clock's refresher has parked: its `wakeups` grow by
/// at most 4 over `3 * IDLE_PARK` (a parked refresher wakes once per [`IDLE_PARK`]; an awake
/// one once a millisecond, a few hundred times in that window even on a busy machine).
///
/// # Panics
///
/// If it has not parked within [`PATIENCE`].
pub fn wait_parked(wakeups: impl Fn() -> u64) {
    let window = IDLE_PARK * 3;
    let start = Instant::now();
    loop {
        let before = wakeups();
        thread::sleep(window);
        if wakeups() - before <= 4 {
            return;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "the refresher never parked: {} wake-ups in the last {window:?}",
            wakeups() - before
        );
    }
}

/// Asserts that a cached clock's refresher parks when nobody reads the clock and that the
/// next read wakes it. `read` reads the clock (`unix_ms`); `wakeups` is its `wakeups()`.
///
/// - While read, the refresher runs: its wake-ups grow by 10.
/// - Unread, it parks ([`wait_parked`]); then, over a second of no reads, it wakes at most
///   once per [`IDLE_PARK`] (10 times a second; awake, about 1,000): at most
///   `elapsed / IDLE_PARK + 2` times, one for the ends of the window and one for a spurious
///   return of `park_timeout`.
/// - One read wakes it at once: taken just after an idle wake-up, it is followed by three
///   wake-ups within `IDLE_PARK / 2`, before the refresher's next idle wake-up could come.
pub fn assert_parks_then_wakes(read: impl Fn() -> u64, wakeups: impl Fn() -> u64) {
    let start = wakeups();
    assert!(
        eventually(|| {
            read();
            wakeups() >= start + 10
        }),
        "a refresher read for {PATIENCE:?} woke {} times",
        wakeups() - start
    );

    wait_parked(&wakeups);
    let (before, since) = (wakeups(), Instant::now());
    thread::sleep(Duration::from_secs(1));
    let (woken, elapsed) = (wakeups() - before, since.elapsed());
    let most = (elapsed.as_nanos() / IDLE_PARK.as_nanos()) as u64 + 2;
    assert!(
        woken <= most,
        "a parked refresher woke {woken} times in {elapsed:?} (at most {most})"
    );

    // Just after an idle wake-up: the next is `IDLE_PARK` away.
    let idle = wakeups();
    while wakeups() == idle {
        thread::sleep(Duration::from_micros(100));
    }
    let (before, since) = (wakeups(), Instant::now());
    read();
    while wakeups() < before + 3 {
        assert!(
            since.elapsed() < PATIENCE,
            "a read did not wake the refresher"
        );
        thread::sleep(Duration::from_micros(100));
    }
    let elapsed = since.elapsed();
    assert!(
        elapsed < IDLE_PARK / 2,
        "three wake-ups took {elapsed:?} after a read: the read did not wake the refresher"
    );
}
