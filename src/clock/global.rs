//! The process's one cached clock: a reading in a `static`, refreshed by one thread.
//!
//! # Design
//!
//! [`GlobalClock`] is a handle of no size. Its reading is a `static`, cache-padded
//! `AtomicU64` of Unix milliseconds, so [`Clock::unix_ms`] is one load from a fixed address:
//! no pointer to follow, which a [`CachedClock`](super::CachedClock) (an `Arc`) and every
//! clock held behind a reference need. Its source is one [`MonotonicClock`] in a `static`,
//! read by the thread `snowmint-clock` just after each of its milliseconds begins (so once
//! per [`GlobalClock::REFRESH`]) and by [`Clock::unix_ms_precise`]; both raise the reading
//! with `fetch_max`, as a `CachedClock` does, with the same orderings (see that module's
//! `# Orderings`).
//!
//! The thread sleeps to the source's next millisecond rather than for a fixed interval: the
//! reading is in milliseconds, so one wake-up a millisecond, timed to when the value changes,
//! keeps it as fresh as the thread's wake-up latency allows, where a fixed 250 µs period woke
//! four times as often and still left the reading up to a period behind.
//!
//! The thread runs while a handle lives. Handles are counted: [`GlobalClock::new`] and
//! `clone` add one, `drop` takes one away. The thread checks the count once per refresh and
//! stops at zero; a `Mutex` orders that decision against `new`, which starts the thread again
//! when it has stopped. A handle therefore always has a running thread behind it, and a
//! process with no handle has no thread.

use std::fmt;
use std::io;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::thread;
use std::time::Duration;

use crossbeam_utils::CachePadded;

use super::{Clock, MonotonicClock};
use crate::sync::{AtomicU64, Ordering};

/// The cached reading, in Unix milliseconds; 0 before the first handle.
static READING: CachePadded<AtomicU64> = CachePadded::new(AtomicU64::new(0));
/// The clock the reading is taken from, made by the first handle.
static SOURCE: OnceLock<MonotonicClock> = OnceLock::new();
/// How many handles live: the thread stops when it reaches zero.
static HANDLES: AtomicU64 = AtomicU64::new(0);
/// Whether the refresh thread is running; held while the thread decides to stop and while a
/// new handle decides whether to start it.
static RUNNING: Mutex<bool> = Mutex::new(false);

/// The process's one cached clock: one load from a `static` per reading.
///
/// A [`CachedClock`](crate::CachedClock) keeps its reading behind an `Arc`, so a generator
/// follows a pointer to read it, and each `CachedClock::new` starts a thread of its own. A
/// `GlobalClock` is a handle of no size on one reading for the whole process: reading it is a
/// single load from a fixed address, the cheapest clock a generator can have, and however
/// many generators and handles there are, one thread (`snowmint-clock`) refreshes it from
/// one [`MonotonicClock`], just after each of the source's milliseconds begins.
///
/// The guarantees are a `CachedClock`'s: the reading lags the source by the thread's wake-up
/// latency (tens of microseconds on an idle machine), more when the thread is not scheduled
/// in time (every core busy), and a lag never costs a generator capacity or correctness,
/// because a generator reads the source through [`unix_ms_precise`](Clock::unix_ms_precise)
/// when its tick is full and before it counts a reading behind its last tick as a
/// regression. The reading never goes back.
///
/// The thread runs while a handle lives: it stops about a millisecond after the last handle's
/// drop (one [`REFRESH`](GlobalClock::REFRESH) plus its wake-up latency), and the next
/// [`new`](GlobalClock::new) starts it again.
///
/// # Examples
///
/// ```
/// use snowmint::{Generator, GlobalClock, Layout};
///
/// let generator = Generator::builder(Layout::TWITTER)
///     .node("machine", 1)
///     .clock(GlobalClock::new()?)
///     .build()?;
/// let id = generator.mint()?;
/// assert!(generator.mint()? > id);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct GlobalClock {
    /// Not constructible outside this module: every handle is counted.
    _counted: (),
}

impl GlobalClock {
    /// How often the thread refreshes the reading: once per millisecond, just after the
    /// source's millisecond changes.
    pub const REFRESH: Duration = Duration::from_millis(1);

    /// A handle on the process's cached clock, starting its thread if none is running.
    ///
    /// # Errors
    ///
    /// The operating system's error if the thread has to be started and cannot be.
    pub fn new() -> io::Result<Self> {
        let mut running = RUNNING.lock().unwrap_or_else(PoisonError::into_inner);
        // Fresh before the handle exists, even if the thread stopped long ago.
        read_source();
        if !*running {
            thread::Builder::new()
                .name("snowmint-clock".into())
                .spawn(refresh_while_held)?;
            *running = true;
        }
        HANDLES.fetch_add(1, Ordering::Relaxed);
        Ok(GlobalClock { _counted: () })
    }

    /// The clock the reading is taken from.
    pub fn source(&self) -> &'static MonotonicClock {
        SOURCE.get_or_init(MonotonicClock::new)
    }
}

/// Reads the source and raises the reading to it; returns the source's reading.
fn read_source() -> u64 {
    let now = SOURCE.get_or_init(MonotonicClock::new).unix_ms();
    // Load first: the line is written only when the millisecond changes, so readers keep it
    // in their caches between ticks. Release: a thread that loads this value sees the source
    // reading it came from.
    if READING.load(Ordering::Acquire) < now {
        READING.fetch_max(now, Ordering::Release);
    }
    now
}

/// How long past the start of a millisecond the thread asks to wake: the kernel's timer
/// slack (50 µs by default on Linux) comes on top. A margin keeps a wake-up a hair early
/// (the source and the kernel's sleep clock run at slightly different rates) from finding the
/// old millisecond and sleeping again at once.
const WAKE_MARGIN_NS: u64 = 10_000;

/// The refresh thread's loop: it runs while a handle lives.
fn refresh_while_held() {
    let source = SOURCE.get_or_init(MonotonicClock::new);
    loop {
        // To just past the source's next millisecond, when the reading changes.
        let period = GlobalClock::REFRESH.as_nanos() as u64;
        let into_period = source.unix_ns() % period;
        thread::sleep(Duration::from_nanos(period - into_period + WAKE_MARGIN_NS));
        if HANDLES.load(Ordering::Relaxed) == 0 {
            // Decide under the lock, so that a `new` either sees the thread running (and it
            // keeps running, the count now above zero) or sees it stopped (and starts one).
            let mut running = RUNNING.lock().unwrap_or_else(PoisonError::into_inner);
            if HANDLES.load(Ordering::Relaxed) == 0 {
                *running = false;
                return;
            }
        }
        read_source();
    }
}

impl Clock for GlobalClock {
    /// The cached reading: one load from a `static`.
    #[inline]
    fn unix_ms(&self) -> u64 {
        // Acquire: pairs with the Release of `read_source`.
        READING.load(Ordering::Acquire)
    }

    /// The source's reading, which also refreshes the cached one.
    fn unix_ms_precise(&self) -> u64 {
        read_source()
    }
}

impl Clone for GlobalClock {
    /// Another handle on the same reading and thread.
    fn clone(&self) -> Self {
        // This handle keeps the count above zero, so the thread is running and stays so.
        HANDLES.fetch_add(1, Ordering::Relaxed);
        GlobalClock { _counted: () }
    }
}

impl Drop for GlobalClock {
    fn drop(&mut self) {
        HANDLES.fetch_sub(1, Ordering::Relaxed);
    }
}

impl fmt::Debug for GlobalClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GlobalClock")
            .field("reading", &READING.load(Ordering::Relaxed))
            .field("handles", &HANDLES.load(Ordering::Relaxed))
            .finish()
    }
}
