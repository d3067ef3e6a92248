//! A clock whose reading a background thread keeps fresh.
//!
//! # Design
//!
//! The reading is one cache-padded `AtomicU64` of Unix milliseconds: [`Clock::unix_ms`] is a
//! relaxed load of it. A thread, `snowmint-clock`, reads the source clock every refresh
//! interval and raises the cached reading with `fetch_max`; [`Clock::unix_ms_precise`] reads
//! the source and raises the cached reading the same way. So the cached reading never goes
//! back, and a precise reading is never behind the cached one unless the source went back.
//!
//! The thread holds only a `Weak` reference to the shared reading: when the last clone of the
//! clock is dropped, it stops within one interval.
//!
//! # Orderings
//!
//! The cached reading is raised with `Release` and loaded with `Acquire`, so a cached reading
//! never runs ahead of the source as a thread sees it: a thread that loads a value the refresh
//! thread stored also sees the source reading it came from, and its own next read of the source
//! (for a source whose readings are memory, such as a [`ManualClock`](crate::ManualClock)) is
//! at least that value. With `Relaxed`, a thread could load 11 from the cache and then read 10
//! from the source, and a generator would count a regression that never happened (loom finds
//! it). On x86-64 both orderings are plain loads and the same locked instruction.
//!
//! A thread that raised the reading before publishing a state minted from it (the generator's
//! `AcqRel` compare-and-swap) happens before any thread that `Acquire`-loads that state, so
//! that thread's next load of the reading sees the raised value or a later one: a state minted
//! from a precise reading is never behind the cached reading of a thread that saw the state.

use std::fmt;
use std::io;
use std::sync::{Arc, Weak};
use std::thread;
use std::time::Duration;

use crossbeam_utils::CachePadded;

use super::{Clock, MonotonicClock};
use crate::sync::{AtomicU64, Ordering};

/// A clock that serves a reading a background thread refreshes: one atomic load per reading.
///
/// Reading a [`MonotonicClock`] costs one read of the CPU's time-stamp counter, which is a few
/// nanoseconds on most machines but close to ten on some virtual machines: more than the rest
/// of a mint. A `CachedClock` moves that read off the hot path. A thread named
/// `snowmint-clock` reads the source every [refresh interval](CachedClock::with_refresh)
/// (250 µs by default) and stores the reading; [`unix_ms`](Clock::unix_ms) loads it.
///
/// The cached reading lags the source by up to the interval, more if the thread is not
/// scheduled in time (all cores busy, more runnable threads than cores). A lag never costs a
/// generator capacity or correctness: a generator reads the source through
/// [`unix_ms_precise`](Clock::unix_ms_precise) when its tick is full, and before it treats a
/// reading behind its last tick as a regression. A lag can make an ID's time older than the
/// source's time at the mint by up to the lag.
///
/// The cached reading never goes back. When the source steps back (a [`MonotonicClock`]
/// re-anchored to a wall clock that was set back), the cached reading holds until the source
/// passes it again, and a generator sees the step only in its precise readings: when a tick
/// fills.
///
/// Clones share the reading and the thread: give every generator of a process a clone of one
/// clock. The thread wakes once per interval (about 4,000 times a second by default) and
/// stops within one interval of the last clone's drop.
///
/// # Examples
///
/// ```
/// use snowmint::{CachedClock, Generator, Layout};
///
/// let clock = CachedClock::monotonic()?;
/// let generator = Generator::builder(Layout::TWITTER)
///     .node("machine", 1)
///     .clock(clock.clone())
///     .build()?;
/// let id = generator.mint()?;
/// assert!(generator.mint()? > id);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct CachedClock<C = MonotonicClock> {
    shared: Arc<Shared<C>>,
}

/// What the clock's clones and its thread share.
struct Shared<C> {
    /// The cached reading, on its own cache line: the thread writes it at most once per
    /// millisecond, and nothing else on the line is written.
    cached: CachePadded<AtomicU64>,
    source: C,
    refresh: Duration,
}

impl CachedClock {
    /// A cached [`MonotonicClock::new`], refreshed every 250 µs.
    ///
    /// # Errors
    ///
    /// The operating system's error if it cannot start the refresh thread.
    pub fn monotonic() -> io::Result<Self> {
        Self::new(MonotonicClock::new())
    }
}

impl<C: Clock + Send + Sync + 'static> CachedClock<C> {
    /// The refresh interval of [`new`](CachedClock::new).
    pub const DEFAULT_REFRESH: Duration = Duration::from_micros(250);

    /// Caches `source`, refreshed every [`DEFAULT_REFRESH`](CachedClock::DEFAULT_REFRESH).
    ///
    /// # Errors
    ///
    /// The operating system's error if it cannot start the refresh thread.
    pub fn new(source: C) -> io::Result<Self> {
        Self::with_refresh(source, Self::DEFAULT_REFRESH)
    }

    /// Caches `source`, refreshed every `refresh`.
    ///
    /// A shorter interval keeps timestamps closer to the source and wakes the thread more
    /// often; with 1 ms ticks, keep it well under 1 ms so that IDs carry the tick they were
    /// minted in.
    ///
    /// # Errors
    ///
    /// [`io::ErrorKind::InvalidInput`] for a zero interval (the thread would never sleep), and
    /// the operating system's error if it cannot start the thread.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{CachedClock, Clock, ManualClock};
    /// use std::time::Duration;
    ///
    /// // A source that moves only by hand, refreshed once an hour: a starved thread.
    /// let source = ManualClock::new(1_700_000_000_000);
    /// let clock = CachedClock::with_refresh(source.clone(), Duration::from_secs(3600))?;
    /// source.advance(5);
    /// assert_eq!(clock.unix_ms(), 1_700_000_000_000); // stale
    /// assert_eq!(clock.unix_ms_precise(), 1_700_000_000_005); // the source...
    /// assert_eq!(clock.unix_ms(), 1_700_000_000_005); // ...which refreshed the cache
    ///
    /// let zero = CachedClock::with_refresh(source, Duration::ZERO);
    /// assert_eq!(zero.unwrap_err().kind(), std::io::ErrorKind::InvalidInput);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn with_refresh(source: C, refresh: Duration) -> io::Result<Self> {
        if refresh.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a cached clock's refresh interval must be more than zero",
            ));
        }
        let shared = Arc::new(Shared {
            cached: CachePadded::new(AtomicU64::new(source.unix_ms())),
            source,
            refresh,
        });
        let weak = Arc::downgrade(&shared);
        thread::Builder::new()
            .name("snowmint-clock".into())
            .spawn(move || refresh_until_dropped(&weak, refresh))?;
        Ok(CachedClock { shared })
    }
}

impl<C> CachedClock<C> {
    /// The clock whose readings are cached.
    pub fn source(&self) -> &C {
        &self.shared.source
    }

    /// How often the thread refreshes the reading.
    pub fn refresh(&self) -> Duration {
        self.shared.refresh
    }
}

impl<C: Clock> Shared<C> {
    /// Reads the source and raises the cached reading to it; returns the source's reading.
    fn read_source(&self) -> u64 {
        let now = self.source.unix_ms();
        // Load first: the line is written only when the millisecond changes, so readers keep
        // it in their caches between ticks.
        if self.cached.load(Ordering::Acquire) < now {
            // Release: a thread that loads this value sees the source reading it came from.
            self.cached.fetch_max(now, Ordering::Release);
        }
        now
    }
}

/// The refresh thread's loop: it runs while a clone of the clock lives.
fn refresh_until_dropped<C: Clock>(weak: &Weak<Shared<C>>, refresh: Duration) {
    loop {
        thread::sleep(refresh);
        let Some(shared) = weak.upgrade() else {
            return;
        };
        shared.read_source();
    }
}

impl<C: Clock> Clock for CachedClock<C> {
    /// The cached reading: one relaxed load.
    #[inline]
    fn unix_ms(&self) -> u64 {
        // Acquire: pairs with the Release of `read_source` (see `# Orderings`).
        self.shared.cached.load(Ordering::Acquire)
    }

    /// The source's reading, which also refreshes the cached one.
    fn unix_ms_precise(&self) -> u64 {
        self.shared.read_source()
    }
}

impl<C> Clone for CachedClock<C> {
    /// Another handle on the same reading and thread.
    fn clone(&self) -> Self {
        CachedClock {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<C: fmt::Debug> fmt::Debug for CachedClock<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CachedClock")
            .field("cached", &self.shared.cached.load(Ordering::Relaxed))
            .field("source", &self.shared.source)
            .field("refresh", &self.shared.refresh)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ManualClock;
    use std::time::Instant;

    #[test]
    fn the_thread_refreshes_the_reading() {
        let source = ManualClock::new(1_000);
        let clock = CachedClock::with_refresh(source.clone(), Duration::from_millis(1)).unwrap();
        assert_eq!(clock.unix_ms(), 1_000);
        source.set(2_000);
        let started = Instant::now();
        while clock.unix_ms() != 2_000 {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the refresh thread never stored the source's reading"
            );
            thread::yield_now();
        }
    }

    #[test]
    fn the_cached_reading_never_goes_back() {
        let source = ManualClock::new(5_000);
        let clock = CachedClock::with_refresh(source.clone(), Duration::from_micros(50)).unwrap();
        source.set(4_000);
        assert_eq!(
            clock.unix_ms_precise(),
            4_000,
            "precise reads the source as it is"
        );
        thread::sleep(Duration::from_millis(5));
        assert_eq!(clock.unix_ms(), 5_000, "the cached reading held");
        source.set(6_000);
        assert_eq!(clock.unix_ms_precise(), 6_000);
        assert_eq!(clock.unix_ms(), 6_000);
    }

    /// A source that counts its readings.
    #[derive(Clone, Default)]
    struct Counting(Arc<std::sync::atomic::AtomicUsize>);

    impl Clock for Counting {
        fn unix_ms(&self) -> u64 {
            self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed) as u64 + 1
        }
    }

    #[test]
    fn the_thread_stops_when_the_last_clone_is_dropped() {
        let source = Counting::default();
        let reads = || source.0.load(std::sync::atomic::Ordering::Relaxed);
        let clock = CachedClock::with_refresh(source.clone(), Duration::from_micros(100)).unwrap();
        let copy = clock.clone();
        drop(clock);
        let started = Instant::now();
        let before = reads();
        while reads() < before + 3 {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "a clone did not keep the thread refreshing"
            );
            thread::sleep(Duration::from_millis(1));
        }
        drop(copy);
        // The thread finishes the reading it may be in and returns at its next wake-up.
        thread::sleep(Duration::from_millis(50));
        let after_drop = reads();
        thread::sleep(Duration::from_millis(50));
        assert_eq!(reads(), after_drop, "the refresh thread outlived the clock");
    }
}
