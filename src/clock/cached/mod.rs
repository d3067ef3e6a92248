//! The cached clock: one word a background thread keeps fresh, read with one load.
//!
//! Values of the word from [`FIRST_READING`] up are readings; the values below it are
//! sentinels ([`STALE`], [`PARKED`], [`UNCACHED`]) that say why there is no reading to serve,
//! each written with a generation no other sentinel write repeats. Every write of a reading is
//! a compare-and-swap from the value loaded before the source was read. The word's states, why
//! this publishing lets the cache follow its source back, the orderings, and what a child of
//! `fork()` does: [the internals page](crate::docs::internals#the-cached-clock).

use std::fmt;
// `std`'s `Arc` under loom too: the handles' count decides only when the clock's slot is
// freed, and a private clock's refresher holds a `Weak`, which loom's `Arc` has not.
use std::sync::{Arc, Weak};
use std::time::Duration;

use crate::clock::interface::Clock;
use crate::sync::{AtomicU64, Mutex, Ordering, Thread};

/// The process-wide clock: its `static` word cannot be a loom atomic.
#[cfg(not(snowmint_loom))]
mod global;
#[cfg(snowmint_test_hooks)]
pub(super) mod hooks;
mod words;

/// A sentinel's kind (its two low bits): the refresher probed for readers. A reader publishes
/// a precise reading.
pub(crate) const STALE: u64 = 0;
/// A sentinel's kind: no refresher awake. A reader publishes a precise reading and wakes it.
/// Also the word's first value.
pub(crate) const PARKED: u64 = 1;
/// The sentinel for a clock whose refresher could not be started: every reading reads the
/// source. Final, so it needs no generation.
pub(crate) const UNCACHED: u64 = 2;
/// The least value of a cached clock's word that is a reading (2004-11-03 in Unix
/// milliseconds). Below it the word holds a sentinel: its kind in the two low bits and a
/// generation above them, so a sentinel written again later is a different value, and a
/// compare-and-swap from the old one fails (see
/// [publishing](crate::docs::internals#publishing-a-reading)). A source reading below it is
/// returned but never cached.
pub(crate) const FIRST_READING: u64 = 1 << 40;

/// The next sentinel generation. `std`'s atomic under loom too (a `static`): its values only
/// need to differ, nothing is published through it. Fork: the child counts on from the copy;
/// its words are its own.
static GENERATIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Registers with the fork handlers the step that marks every cached clock's word stale in a
/// child: before any word can hold a reading (a private clock's construction, the process-wide
/// clock's first initialisation or source). Under loom, whose models never fork, only the
/// handlers.
fn stale_in_children() {
    #[cfg(not(snowmint_loom))]
    words::IN_CHILD.register();
    #[cfg(snowmint_loom)]
    crate::fork::register();
}

/// A sentinel of `kind` never written before (until the generations wrap, after 2^38 of them).
fn sentinel(kind: u64) -> u64 {
    // Relaxed: see `GENERATIONS`. Async-signal-safe: the fork handler calls it.
    let generation = GENERATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    (generation % (FIRST_READING >> 2)) << 2 | kind
}

/// The kind of a word below [`FIRST_READING`].
fn kind(word: u64) -> u64 {
    word & 3
}

/// How often the refresher probes for readers, in wake-ups: it parks at most this many
/// milliseconds, plus one, after the last read (5 ms, as [`CachedClock`] documents).
pub(crate) const PROBE_EVERY: u64 = 4;

/// How long a parked refresher sleeps before it looks whether its clock is still held: an
/// idle clock wakes at most ten times a second, as [`CachedClock`] documents.
pub(crate) const IDLE_PARK: Duration = Duration::from_millis(100);

/// How many times a waking reader tries for the refresher's lock before it hands the
/// wake-up to the next reader.
const WAKE_TRIES: u32 = 64;

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
    home: H,
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
    _private: (),
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
    word: &'static AtomicU64,
    shared: Arc<Shared<C>>,
}

impl<C> Home for Private<C> {}
impl<C> sealed::Sealed for Private<C> {}

/// What a cached clock's handles and its refresher share, besides the word.
struct Shared<C> {
    source: C,
    /// The refresher, once started. Fork: held only inside a fork section (`wake`,
    /// `drive_attach`), so a child finds it free.
    runner: Mutex<Runner>,
    /// The refresher's wake-ups so far.
    wakeups: AtomicU64,
    /// Whether the caller drives the refresher ([`CachedClock::driven`]): a wake-up unparks
    /// the thread attached, if any, and never starts one.
    driven: bool,
    /// The slot of the table this clock's word is, to free with the clock.
    slot: Option<usize>,
}

/// The refresher thread and the fork generation it was started in.
struct Runner {
    thread: Option<Thread>,
    generation: u64,
}

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

    fn with_driver(source: C, driven: bool) -> Self {
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

impl<C> Drop for Shared<C> {
    /// Frees the slot: nothing reads or refreshes it any more (the refresher holds only a
    /// `Weak`, and upgrades it for each refresh).
    fn drop(&mut self) {
        if let Some(slot) = self.slot {
            words::give_back(slot);
        }
    }
}

impl<C: Clock> Shared<C> {
    /// A precise reading: reads the source and publishes the reading in `word` by a
    /// compare-and-swap from the value loaded before the read (see
    /// [publishing](crate::docs::internals#publishing-a-reading)), trying again from the value
    /// that won if another thread published first. If the value it replaced was [`PARKED`],
    /// wakes the refresher, or starts one with `spawn`.
    fn read_source(
        &self,
        word: &AtomicU64,
        spawn: impl FnOnce() -> std::io::Result<Thread>,
    ) -> u64 {
        let mut seen = word.load(Ordering::Acquire);
        loop {
            let now = self.source.unix_ms();
            if seen == UNCACHED || seen == now || now < FIRST_READING {
                return now;
            }
            // A sentinel loaded here is one no other write repeats: if it is still there,
            // nothing was published since it was loaded, so this reading is the latest.
            // Release: a thread that loads `now` sees the source reading it came from.
            // Acquire on failure, as for the load.
            match word.compare_exchange(seen, now, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => {
                    if seen < FIRST_READING && kind(seen) == PARKED {
                        crate::pause::point(crate::pause::Point::Wake);
                        self.wake(word, now, spawn);
                    }
                    return now;
                }
                Err(found) => seen = found,
            }
        }
    }

    /// Wakes the refresher after this thread replaced [`PARKED`] with `published`, or starts
    /// one if this process has none (the first read, or a child after `fork()`).
    #[cold]
    fn wake(
        &self,
        word: &AtomicU64,
        published: u64,
        spawn: impl FnOnce() -> std::io::Result<Thread>,
    ) {
        // The gate before the runner lock: no fork splits the start of a refresher, and the
        // child finds the lock free and its generation behind the fork count, and starts its
        // own. The section spans the spawn, so a fork waits for a thread's creation at most.
        // While a fork is being prepared the wake-up goes to the next reader, as when another
        // thread holds the lock: no reader waits for a fork.
        let Some(_section) = crate::fork::try_enter() else {
            Self::hand_back(word, published);
            return;
        };
        let mut runner = None;
        for _ in 0..WAKE_TRIES {
            match self.runner.try_lock() {
                Ok(guard) => {
                    runner = Some(guard);
                    break;
                }
                Err(std::sync::TryLockError::Poisoned(poisoned)) => {
                    runner = Some(poisoned.into_inner());
                    break;
                }
                Err(std::sync::TryLockError::WouldBlock) => crate::sync::yield_now(),
            }
        }
        let Some(mut runner) = runner else {
            // Another thread holds the lock: hand the wake-up to the next reader.
            Self::hand_back(word, published);
            return;
        };
        let generation = crate::fork::generation();
        if self.driven {
            if let Some(thread) = &runner.thread {
                thread.unpark();
            }
            return;
        }
        if runner.generation == generation {
            if let Some(thread) = &runner.thread {
                thread.unpark();
                return;
            }
        }
        crate::pause::point(crate::pause::Point::RefresherStart);
        match spawn() {
            Ok(thread) => {
                runner.thread = Some(thread);
                runner.generation = generation;
            }
            // No thread: read the source every time from now on.
            Err(_) => word.store(UNCACHED, Ordering::Release),
        }
    }

    /// Hands a wake-up this thread could not perform to the next reader: puts a new
    /// [`PARKED`] in place of `published`, or of a reading published since (a precise
    /// reader's, which woke nobody: it replaced a reading, not `PARKED`). The next reader
    /// then reads the source and tries the wake-up again. A sentinel found instead is left:
    /// `STALE` is an awake refresher's probe, `PARKED` a wake-up already handed on.
    fn hand_back(word: &AtomicU64, published: u64) {
        let mut current = published;
        loop {
            // Release: as every write of the word; nothing is published through a sentinel.
            // Relaxed on failure: the value found is only compared.
            match word.compare_exchange(
                current,
                sentinel(PARKED),
                Ordering::Release,
                Ordering::Relaxed,
            ) {
                Err(found) if found >= FIRST_READING => current = found,
                _ => return,
            }
        }
    }

    /// One wake-up of the refresher: refresh the reading, probe for readers (every
    /// [`PROBE_EVERY`]th wake-up), or find the probe unanswered and park.
    fn refresh(&self, word: &AtomicU64, wake: u64) -> Step {
        self.wakeups.fetch_add(1, Ordering::Relaxed);
        let seen = word.load(Ordering::Acquire);
        if seen == UNCACHED {
            return Step::Exit;
        }
        if seen < FIRST_READING {
            // A probe nobody answered (or a parked word): park, unless a reader answers first.
            // AcqRel on success: a reader that replaces the sentinel sees what came before.
            return match word.compare_exchange(
                seen,
                sentinel(PARKED),
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => Step::Park,
                Err(_) => Step::Refreshed,
            };
        }
        if wake.is_multiple_of(PROBE_EVERY) {
            // Release: orders this probe after the reading it replaces. A failure means a
            // precise reader published: that answers the probe already.
            let probe = sentinel(STALE);
            let _ = word.compare_exchange(seen, probe, Ordering::Release, Ordering::Relaxed);
        } else {
            let now = self.source.unix_ms();
            if now != seen && now >= FIRST_READING {
                // Release: see the internals page's orderings. A failure means a precise
                // reader published a reading at least as fresh as this one: drop this one.
                let _ = word.compare_exchange(seen, now, Ordering::Release, Ordering::Relaxed);
            }
        }
        Step::Refreshed
    }

    /// Whether a parked refresher should stay parked: the word still says [`PARKED`] (the
    /// sentinel it wrote, or one a waking reader handed back).
    fn still_parked(&self, word: &AtomicU64) -> bool {
        self.wakeups.fetch_add(1, Ordering::Relaxed);
        // Acquire: pairs with the reader's publication.
        let word = word.load(Ordering::Acquire);
        word < FIRST_READING && kind(word) == PARKED
    }
}

/// What a refresher does after one wake-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(snowmint_test_hooks), allow(unreachable_pub))]
pub enum Step {
    /// Sleep until the next refresh.
    Refreshed,
    /// Park until a reader wakes it.
    Park,
    /// Stop: the clock reads its source every time.
    Exit,
}

/// Starts a refresher thread running `body`. Fork: the child has none of these threads; the
/// child handler marks every word [`PARKED`], and the child's first read starts its own.
fn spawn(body: impl FnOnce() + Send + 'static) -> std::io::Result<Thread> {
    crate::sync::spawn("snowmint-clock", body)
}

/// A private clock's refresher, once a millisecond, while a handle of the clock lives: sleep,
/// refresh; park when nobody reads (as the process-wide clock's, `global::refresh_loop`).
fn refresh_private<C: Clock>(weak: &Weak<Shared<C>>, word: &'static AtomicU64) {
    let mut wake = 0u64;
    loop {
        std::thread::sleep(Duration::from_millis(1));
        wake += 1;
        let Some(shared) = weak.upgrade() else {
            return;
        };
        match shared.refresh(word, wake) {
            Step::Refreshed => {}
            Step::Exit => return,
            Step::Park => {
                drop(shared);
                loop {
                    std::thread::park_timeout(IDLE_PARK);
                    let Some(shared) = weak.upgrade() else {
                        return;
                    };
                    if !shared.still_parked(word) {
                        break;
                    }
                }
            }
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
