//! The cached clock's handles: [`CachedClock`] and its homes, [`Global`] and [`Private`],
//! and what a private clock's handles do.

use std::fmt;
// `std`'s `Arc` under loom too: the handles' count decides only when the clock's slot is
// freed, and a private clock's refresher holds a `Weak`, which loom's `Arc` has not.
use std::sync::Arc;

use super::refresher::{Runner, Shared, refresh_private, spawn};
use super::sentinel::FIRST_READING;
use super::words;
use crate::clock::interface::Clock;
use crate::sync::{AtomicU64, Mutex, Ordering};

/// Registers with the fork handlers the step that marks every cached clock's word stale in a
/// child: before any word can hold a reading (a private clock's construction, the process-wide
/// clock's first initialisation or source). Under loom, whose models never fork, only the
/// handlers.
pub(super) fn stale_in_children() {
    #[cfg(not(snowmint_loom))]
    words::IN_CHILD.register();
    #[cfg(snowmint_loom)]
    crate::fork::register();
}

/// A clock whose reading a background thread keeps fresh: one load per reading.
///
/// Reading a [`MonotonicClock`](crate::clock::MonotonicClock) costs a read of the CPU's time-stamp
/// counter: a few nanoseconds on most machines, close to ten on some virtual machines, more
/// than the rest of a mint. A cached clock moves that read to a thread, `snowmint-clock`,
/// which refreshes one word once a millisecond; [`unix_ms`](Clock::unix_ms) loads it.
///
/// - [`CachedClock::global`] is the process's one cached clock over one
///   [`MonotonicClock`](crate::clock::MonotonicClock): a handle of no size, read with one
///   load from a fixed address. It is the default clock of every generator.
/// - [`CachedClock::new`] caches any [`Clock`] with a refresher of its own, for a source of
///   your own or a [`ManualClock`](crate::clock::ManualClock) in a test.
///
/// The refresher starts on the first read, parks a few milliseconds after the last one, and
/// wakes on the next. Building a clock never fails: when no thread can be started, the clock
/// reads its source every time. A reading lags the source by the refresher's wake-up latency
/// (tens of microseconds on an idle machine), more when the thread is not scheduled in time;
/// a lag never costs a generator capacity or correctness, because a generator reads the
/// source through [`unix_ms_precise`](Clock::unix_ms_precise) when its tick is full and before
/// it counts a reading behind its last tick as a regression. When the source steps back, the
/// first precise reading after the step replaces the cached one, and every reading after it
/// is of the new time. The [clock module's table](crate::clock#choosing-a-clock) compares the
/// clocks.
///
/// # Examples
///
/// ```
/// use snowmint::{Clock, Generator, Layout, clock::CachedClock};
///
/// let generator = Generator::builder(Layout::TWITTER)
///     .node("machine", 1)
///     .clock(CachedClock::global())
///     .build()?;
/// let id = generator.mint()?;
/// assert!(generator.mint()? > id);
/// let now = CachedClock::global().unix_ms();
/// assert!(now.abs_diff(generator.decode(id)?.unix_ms()) < 1_000);
/// # Ok::<(), snowmint::Error>(())
/// ```
pub struct CachedClock<H: Home = Global> {
    pub(super) home: H,
}

/// Where a [`CachedClock`] keeps its reading: [`Global`] or [`Private`].
///
/// Sealed: the cached clock relies on exactly these two.
///
/// # Examples
///
/// ```
/// use snowmint::{Clock, clock::{CachedClock, Home, ManualClock}};
///
/// /// Works with either kind of cached clock.
/// fn read<H: Home>(clock: &CachedClock<H>) -> u64
/// where
///     CachedClock<H>: Clock,
/// {
///     clock.unix_ms()
/// }
///
/// assert!(read(&CachedClock::global()) > 1_600_000_000_000);
/// assert_eq!(read(&CachedClock::new(ManualClock::new(1_700_000_000_000))), 1_700_000_000_000);
/// ```
pub trait Home: sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
}

/// The home of the process-wide [`CachedClock`]: a reading in a `static`, refreshed from one
/// [`MonotonicClock`](crate::clock::MonotonicClock).
///
/// # Examples
///
/// ```
/// use snowmint::clock::{CachedClock, Global};
///
/// let clock: CachedClock<Global> = CachedClock::global();
/// assert_eq!(std::mem::size_of_val(&clock), 0); // the reading is in a `static`
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Global {
    pub(super) _private: (),
}

impl Home for Global {}
impl sealed::Sealed for Global {}

/// The home of a [`CachedClock::new`]: a reading and a refresher of its own over the source
/// `C`, shared by the clock's clones.
///
/// # Examples
///
/// ```
/// use snowmint::{Clock, clock::{CachedClock, ManualClock, Private}};
///
/// let clock: CachedClock<Private<ManualClock>> = CachedClock::new(ManualClock::new(1_700_000_000_000));
/// assert_eq!(clock.unix_ms(), 1_700_000_000_000);
/// ```
pub struct Private<C> {
    /// The reading: a slot of the process's table, so a fork can mark it (see [`words`]).
    pub(super) word: &'static AtomicU64,
    pub(super) shared: Arc<Shared<C>>,
}

impl<C> Home for Private<C> {}
impl<C> sealed::Sealed for Private<C> {}

impl<C: Clock + Send + Sync + 'static> CachedClock<Private<C>> {
    /// Caches `source`, with a refresher of its own.
    ///
    /// Clones share the reading and the refresher; the refresher ends within 100 ms of the last
    /// clone's drop. Up to 63 private clocks cache at once; one made beyond that reads its
    /// source every time.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, clock::{CachedClock, ManualClock}};
    ///
    /// let source = ManualClock::new(1_700_000_000_000);
    /// let clock = CachedClock::new(source.clone());
    /// assert_eq!(clock.unix_ms(), 1_700_000_000_000);
    /// source.set(1_600_000_000_000); // a step back...
    /// assert_eq!(clock.unix_ms_precise(), 1_600_000_000_000);
    /// assert_eq!(clock.unix_ms(), 1_600_000_000_000); // ...which the cache follows
    /// ```
    pub fn new(source: C) -> Self {
        Self::with_driver(source, false)
    }

    pub(super) fn with_driver(source: C, driven: bool) -> Self {
        // Before the word can hold a reading: a fork any time after must mark it stale.
        stale_in_children();
        let (slot, word) = words::take();
        let shared = Arc::new(Shared {
            source,
            runner: Mutex::new(Runner {
                thread: None,
                generation: 0,
            }),
            wakeups: AtomicU64::new(0),
            driven,
            slot,
        });
        CachedClock {
            home: Private { word, shared },
        }
    }

    /// Reads the source, publishes the reading and, if the refresher is parked or gone,
    /// wakes or starts it.
    #[cold]
    #[inline(never)]
    fn read_source(&self) -> u64 {
        let shared = &self.home.shared;
        shared.read_source(self.home.word, || {
            let weak = Arc::downgrade(shared);
            let word = self.home.word;
            spawn(move || refresh_private(&weak, word))
        })
    }
}

impl<C> CachedClock<Private<C>> {
    /// The clock whose readings are cached.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::{CachedClock, ManualClock}};
    ///
    /// let clock = CachedClock::new(ManualClock::new(1_700_000_000_000));
    /// clock.source().advance(5);
    /// assert_eq!(snowmint::Clock::unix_ms(clock.source()), 1_700_000_000_005);
    /// ```
    pub fn source(&self) -> &C {
        &self.home.shared.source
    }

    /// How many times the refresher has woken so far: once a millisecond while the clock is
    /// read, at most ten times a second while it is not.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::{CachedClock, ManualClock}};
    ///
    /// let clock = CachedClock::new(ManualClock::new(1_700_000_000_000));
    /// assert_eq!(clock.wakeups(), 0); // nothing read it yet: no refresher
    /// ```
    pub fn wakeups(&self) -> u64 {
        self.home.shared.wakeups.load(Ordering::Relaxed)
    }
}

impl<C: Clock + Send + Sync + 'static> Clock for CachedClock<Private<C>> {
    /// The cached reading: one load.
    #[inline]
    fn unix_ms(&self) -> u64 {
        // Acquire: pairs with the Release of a publication (see the internals page's
        // orderings).
        let reading = self.home.word.load(Ordering::Acquire);
        if reading < FIRST_READING {
            return self.read_source();
        }
        reading
    }

    /// The word as it stands: a reading, or a sentinel below [`FIRST_READING`].
    #[inline]
    fn unix_ms_or_stale(&self, _: crate::clock::interface::seal::Token) -> u64 {
        // Acquire: as for `unix_ms`.
        self.home.word.load(Ordering::Acquire)
    }

    /// A child's word takes only readings above every one it held before the fork
    /// (`words::admit`).
    #[inline(always)]
    fn fork_fenced(&self, _: crate::clock::interface::seal::Token) -> bool {
        true
    }

    /// The source's reading, published for the next readers.
    fn unix_ms_precise(&self) -> u64 {
        self.read_source()
    }
}

impl<C> Clone for CachedClock<Private<C>> {
    /// Another handle on the same reading and refresher.
    fn clone(&self) -> Self {
        CachedClock {
            home: Private {
                word: self.home.word,
                shared: Arc::clone(&self.home.shared),
            },
        }
    }
}

impl<C: fmt::Debug> fmt::Debug for CachedClock<Private<C>> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CachedClock")
            .field("word", &self.home.word.load(Ordering::Relaxed))
            .field("source", &self.home.shared.source)
            .finish()
    }
}

impl<C: fmt::Debug> fmt::Debug for Private<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Private")
            .field("source", &self.shared.source)
            .finish_non_exhaustive()
    }
}
