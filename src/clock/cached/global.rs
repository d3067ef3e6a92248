//! The process-wide cached clock: its word is slot 0 of the table, its source and refresher a
//! `static`.

use std::fmt;
use std::sync::OnceLock;
use std::time::Duration;

use super::handle::{CachedClock, Global, stale_in_children};
use super::refresher::{IDLE_PARK, Runner, Shared, Step, spawn};
use super::sentinel::FIRST_READING;
use super::words::WORDS;
use crate::clock::interface::Clock;
use crate::clock::monotonic::MonotonicClock;
use crate::sync::{AtomicU64, Mutex, Ordering};

/// The process-wide clock's source and refresher. Fork: initialised and set only inside a
/// fork section ([`init_global`], [`CachedClock::set_global_source`]), so a child finds it
/// done or never begun.
static GLOBAL: OnceLock<Shared<MonotonicClock>> = OnceLock::new();

/// Makes the process-wide clock's source and refresher, or waits for the thread making them.
///
/// A fork section from before the once-cell is entered until it is done: a fork in the middle
/// would leave the cell running in the child, whose every read of the default clock would
/// then wait for it forever. Building the source is a section of its own inside this one
/// (quanta's calibration, in quanta's once-cell), entered at once. A thread that waits here
/// for another thread's initialisation waits inside its own section, for a section that never
/// waits for the gate, so the fork waits for both.
#[cold]
#[inline(never)]
fn init_global() -> &'static Shared<MonotonicClock> {
    let _section = crate::fork::enter();
    // Before the process-wide word can hold a reading.
    stale_in_children();
    GLOBAL.get_or_init(|| {
        crate::pause::point(crate::pause::Point::GlobalInit);
        Shared::new(MonotonicClock::new())
    })
}

impl<C: Clock> Shared<C> {
    /// The process-wide clock's: slot 0 is its own, never given back.
    fn new(source: C) -> Self {
        Shared {
            source,
            runner: Mutex::new(Runner {
                thread: None,
                generation: 0,
            }),
            wakeups: AtomicU64::new(0),
            driven: false,
            slot: None,
        }
    }
}

impl CachedClock {
    /// The process's one cached clock, over one [`MonotonicClock`]: a handle of no size.
    ///
    /// Its refresher starts on the first read. The source is [`MonotonicClock::new`] unless
    /// [`set_global_source`](Self::set_global_source) chose another before that read.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, clock::CachedClock};
    /// use std::time::{SystemTime, UNIX_EPOCH};
    ///
    /// let clock = CachedClock::global();
    /// assert_eq!(std::mem::size_of_val(&clock), 0);
    /// let wall = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64;
    /// assert!(clock.unix_ms().abs_diff(wall) < 1_000);
    /// ```
    pub const fn global() -> Self {
        CachedClock {
            home: Global { _private: () },
        }
    }

    /// Chooses the source of the process-wide clock, a [`MonotonicClock`] built as you like
    /// (its recheck interval, what it does when the wall clock goes back): possible until
    /// the process-wide clock is first read, once.
    ///
    /// # Errors
    ///
    /// `Err`, with the source given back, when the process-wide clock already has one.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, clock::{CachedClock, MonotonicClock, WallClockBack}};
    ///
    /// let slewing = MonotonicClock::builder().on_wall_clock_back(WallClockBack::Slew).build();
    /// // Whether this program read the clock first decides which source it has.
    /// let _ = CachedClock::set_global_source(slewing);
    /// assert!(CachedClock::global().unix_ms() > 1_600_000_000_000);
    /// assert!(CachedClock::set_global_source(MonotonicClock::new()).is_err());
    /// ```
    pub fn set_global_source(source: MonotonicClock) -> Result<(), Box<MonotonicClock>> {
        // The gate before the once-cell: no fork copies it half written.
        let _section = crate::fork::enter();
        // Before the process-wide word can hold a reading.
        stale_in_children();
        GLOBAL
            .set(Shared::new(source))
            .map_err(|refused| Box::new(refused.source.clone()))
    }

    /// The process-wide clock's source and refresher, made on first use.
    #[inline]
    fn shared(&self) -> &'static Shared<MonotonicClock> {
        match GLOBAL.get() {
            Some(shared) => shared,
            None => init_global(),
        }
    }

    /// The clock the reading is taken from.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, clock::CachedClock};
    ///
    /// let source = CachedClock::global().source();
    /// assert!(source.unix_ms().abs_diff(CachedClock::global().unix_ms_precise()) < 1_000);
    /// ```
    pub fn source(&self) -> &'static MonotonicClock {
        &self.shared().source
    }

    /// How many times the refresher has woken so far: once a millisecond while the clock is
    /// read, at most ten times a second while it is not.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, clock::CachedClock};
    ///
    /// let clock = CachedClock::global();
    /// clock.unix_ms(); // starts the refresher
    /// let before = clock.wakeups();
    /// std::thread::sleep(std::time::Duration::from_millis(20));
    /// assert!(clock.wakeups() >= before);
    /// ```
    pub fn wakeups(&self) -> u64 {
        self.shared().wakeups.load(Ordering::Relaxed)
    }

    /// Reads the source, publishes the reading and, if the refresher is parked or gone,
    /// wakes or starts it.
    #[cold]
    #[inline(never)]
    fn read_source(&self) -> u64 {
        let shared = self.shared();
        shared.read_source(&WORDS[0], || {
            spawn(move || {
                let source = &shared.source;
                refresh_loop(shared, &WORDS[0], || {
                    // To just past the source's next millisecond, when the reading changes.
                    let into = source.unix_ns() % 1_000_000;
                    Duration::from_nanos(1_000_000 - into + WAKE_MARGIN_NS)
                });
            })
        })
    }
}

impl Default for CachedClock {
    /// [`CachedClock::global`].
    fn default() -> Self {
        CachedClock::global()
    }
}

impl Clock for CachedClock {
    /// The cached reading: one load from a `static`.
    #[inline]
    fn unix_ms(&self) -> u64 {
        // Acquire: pairs with the Release of a publication (see the internals page's
        // orderings).
        let reading = WORDS[0].load(Ordering::Acquire);
        if reading < FIRST_READING {
            return self.read_source();
        }
        reading
    }

    /// The word as it stands: a reading, or a sentinel below [`FIRST_READING`].
    #[inline]
    fn unix_ms_or_stale(&self, _: crate::clock::interface::seal::Token) -> u64 {
        // Acquire: as for `unix_ms`.
        WORDS[0].load(Ordering::Acquire)
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

impl Clone for CachedClock {
    fn clone(&self) -> Self {
        *self
    }
}

impl Copy for CachedClock {}

impl fmt::Debug for CachedClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CachedClock")
            .field("home", &"global")
            .field("word", &WORDS[0].load(Ordering::Relaxed))
            .finish()
    }
}

/// How long past the start of a millisecond the process-wide refresher asks to wake: the
/// kernel's timer slack (50 µs by default on Linux) comes on top. A margin keeps a wake-up a
/// hair early (the source and the kernel's sleep clock run at slightly different rates) from
/// finding the old millisecond.
const WAKE_MARGIN_NS: u64 = 10_000;

/// The refresher's loop: sleep `period()`, refresh; park when nobody reads.
fn refresh_loop<C: Clock>(shared: &Shared<C>, word: &AtomicU64, period: impl Fn() -> Duration) {
    let mut wake = 0u64;
    loop {
        std::thread::sleep(period());
        wake += 1;
        match shared.refresh(word, wake) {
            Step::Refreshed => {}
            Step::Exit => return,
            Step::Park => loop {
                std::thread::park_timeout(IDLE_PARK);
                if !shared.still_parked(word) {
                    break;
                }
            },
        }
    }
}
