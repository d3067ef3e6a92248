//! A cached clock's refresher: what its handles and its thread share, the wake-up a reader
//! performs, and one wake-up of the thread.

use std::sync::Weak;
use std::time::Duration;

use super::sentinel::{FIRST_READING, PARKED, STALE, UNCACHED, kind, sentinel};
use super::words;
use crate::clock::interface::Clock;
use crate::sync::{AtomicU64, Mutex, Ordering, Thread};

/// How often the refresher probes for readers, in wake-ups: it parks at most this many
/// milliseconds, plus one, after the last read (5 ms, as [`CachedClock`] documents).
pub(crate) const PROBE_EVERY: u64 = 4;

/// How long a parked refresher sleeps before it looks whether its clock is still held: an
/// idle clock wakes at most ten times a second, as [`CachedClock`] documents.
pub(crate) const IDLE_PARK: Duration = Duration::from_millis(100);

/// How many times a waking reader tries for the refresher's lock before it hands the
/// wake-up to the next reader.
pub(super) const WAKE_TRIES: u32 = 64;

/// What a cached clock's handles and its refresher share, besides the word.
pub(super) struct Shared<C> {
    pub(super) source: C,
    /// The refresher, once started. Fork: held only inside a fork section (`wake`,
    /// `drive_attach`), so a child finds it free.
    pub(super) runner: Mutex<Runner>,
    /// The refresher's wake-ups so far.
    pub(super) wakeups: AtomicU64,
    /// Whether the caller drives the refresher ([`CachedClock::driven`]): a wake-up unparks
    /// the thread attached, if any, and never starts one.
    pub(super) driven: bool,
    /// The slot of the table this clock's word is, to free with the clock.
    pub(super) slot: Option<usize>,
}

/// The refresher thread and the fork generation it was started in.
pub(super) struct Runner {
    pub(super) thread: Option<Thread>,
    pub(super) generation: u64,
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
    pub(super) fn read_source(
        &self,
        word: &AtomicU64,
        spawn: impl FnOnce() -> std::io::Result<Thread>,
    ) -> u64 {
        let mut seen = word.load(Ordering::Acquire);
        loop {
            let now = self.source.unix_ms();
            // A reading the word may not take (in a forked child, one not above every
            // reading the parent's word held) is served uncached.
            if seen == UNCACHED || seen == now || now < FIRST_READING || !words::admit(word, now) {
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
    pub(super) fn wake(
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
    pub(super) fn hand_back(word: &AtomicU64, published: u64) {
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
    pub(super) fn refresh(&self, word: &AtomicU64, wake: u64) -> Step {
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
            if now != seen && now >= FIRST_READING && words::admit(word, now) {
                // Release: see the internals page's orderings. A failure means a precise
                // reader published a reading at least as fresh as this one: drop this one.
                let _ = word.compare_exchange(seen, now, Ordering::Release, Ordering::Relaxed);
            }
        }
        Step::Refreshed
    }

    /// Whether a parked refresher should stay parked: the word still says [`PARKED`] (the
    /// sentinel it wrote, or one a waking reader handed back).
    pub(super) fn still_parked(&self, word: &AtomicU64) -> bool {
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
pub(super) fn spawn(body: impl FnOnce() + Send + 'static) -> std::io::Result<Thread> {
    crate::sync::spawn("snowmint-clock", body)
}

/// A private clock's refresher, once a millisecond, while a handle of the clock lives: sleep,
/// refresh; park when nobody reads (as the process-wide clock's, `global::refresh_loop`).
pub(super) fn refresh_private<C: Clock>(weak: &Weak<Shared<C>>, word: &'static AtomicU64) {
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
