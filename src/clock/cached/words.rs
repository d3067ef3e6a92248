//! Where the cached clocks' words live: one table of `static` words, so that the child fork
//! handler reaches every one without a lock or an allocation.
//!
//! Under loom, whose atomics cannot be `static`s, each clock's word is a loom atomic of its
//! own, leaked: a few bytes for each clock a model run makes, read by nothing but that clock.

#[cfg(snowmint_loom)]
use {super::sentinel::PARKED, crate::sync::AtomicU64};

#[cfg(not(snowmint_loom))]
pub(super) use table::IN_CHILD;
#[cfg(not(snowmint_loom))]
pub(super) use table::{WORDS, admit, give_back, take};

#[cfg(not(snowmint_loom))]
mod table {
    use crossbeam_utils::CachePadded;

    use super::super::sentinel::{PARKED, UNCACHED, sentinel};
    use crate::fork::ChildStep;
    use crate::sync::{AtomicU64, Ordering};

    /// The words of the process-wide clock (slot 0) and of the private ones (the rest), in one
    /// table so that the fork handler can reach every one without a lock or an allocation: the
    /// child handler marks each [`PARKED`] (see `after_fork_in_child`).
    pub(in crate::clock::cached) static WORDS: [CachePadded<AtomicU64>; SLOTS] =
        [const { CachePadded::new(AtomicU64::new(PARKED)) }; SLOTS];

    /// How many cached clocks can cache at once; a private clock made when every slot is taken
    /// reads its source every time.
    const SLOTS: usize = 64;

    /// Which slots are taken: bit `i` for slot `i`. Slot 0 is the process-wide clock's. Fork:
    /// one word, copied with the clocks that hold the slots; a clock dropped in the child frees
    /// its slot there.
    static TAKEN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

    /// The word of a private clock that got no slot: it always says [`UNCACHED`].
    static NO_SLOT: AtomicU64 = AtomicU64::new(UNCACHED);

    /// Each slot's marks (see [`admit`]). `std`'s atomics: only this module reads them, and
    /// the fork handler writes them.
    static MARKS: [Marks; SLOTS] = [const { Marks::new() }; SLOTS];

    /// What a slot's word may be given: readings above `floor` only.
    struct Marks {
        /// The highest reading the word was given in this process or an ancestor, raised
        /// before the word is given it.
        high: std::sync::atomic::AtomicU64,
        /// `high` as the last `fork()` copied it; 0 in a process that never forked.
        floor: std::sync::atomic::AtomicU64,
    }

    impl Marks {
        const fn new() -> Marks {
            Marks {
                high: std::sync::atomic::AtomicU64::new(0),
                floor: std::sync::atomic::AtomicU64::new(0),
            }
        }
    }

    /// Whether `word` may be given the reading `now`, and if so, `now` recorded as one it was
    /// given. A word of the table takes only a reading above every reading it held before
    /// this process was forked, so no reading a child's clock serves equals one its parent's
    /// served: a generator's confirmed step, which mints on a reading a swap confirmed, then
    /// needs no fork check (see `Clock::fork_fenced`). A child's readings wait, served
    /// uncached, until its source passes the floor (within a millisecond of the fork for a
    /// source that keeps time). A word outside the table (a clock with no slot) takes any.
    pub(in crate::clock::cached) fn admit(word: &AtomicU64, now: u64) -> bool {
        use std::sync::atomic::Ordering as Std;
        let Some(slot) = WORDS.iter().position(|own| std::ptr::eq(&**own, word)) else {
            return true;
        };
        let marks = &MARKS[slot];
        // Relaxed: the floor is written only by the child handler, in a child with one
        // thread, before any code of the child reads it.
        if now <= marks.floor.load(Std::Relaxed) {
            return false;
        }
        // Relaxed: the caller's compare-and-swap that gives the word `now` is a Release that
        // follows this in its thread, so a fork that copies the word given `now` copies this
        // mark too.
        marks.high.fetch_max(now, Std::Relaxed);
        true
    }

    /// A free slot of [`WORDS`], marked [`PARKED`], and its word; no slot and a word that
    /// always says [`UNCACHED`] when every slot is taken.
    pub(in crate::clock::cached) fn take() -> (Option<usize>, &'static AtomicU64) {
        match take_slot() {
            Some(slot) => (Some(slot), &WORDS[slot]),
            None => (None, &NO_SLOT),
        }
    }

    /// Frees `slot`, which nothing reads or refreshes any more.
    pub(in crate::clock::cached) fn give_back(slot: usize) {
        WORDS[slot].store(sentinel(PARKED), Ordering::Release);
        // Release: the old clock's last writes of the word and of its marks happen before the
        // slot is taken again (the Acquire of `take_slot`), and so before the marks' reset.
        TAKEN.fetch_and(!(1 << slot), std::sync::atomic::Ordering::Release);
    }

    /// Takes a free slot of [`WORDS`], marked [`PARKED`].
    fn take_slot() -> Option<usize> {
        use std::sync::atomic::Ordering as Std;
        // Relaxed: the bitmap only hands out distinct slots; the word is reset before it is
        // used, after the Acquire of the swap that takes the slot.
        let mut taken = TAKEN.load(Std::Relaxed);
        loop {
            let free = (!taken).trailing_zeros() as usize;
            if free >= SLOTS {
                return None;
            }
            match TAKEN.compare_exchange_weak(taken, taken | 1 << free, Std::Acquire, Std::Relaxed)
            {
                Ok(_) => {
                    // A slot is free only once no handle of its last clock is left, so no
                    // generator holds a reading of that clock: a new clock starts unmarked.
                    MARKS[free].high.store(0, Std::Relaxed);
                    MARKS[free].floor.store(0, Std::Relaxed);
                    WORDS[free].store(sentinel(PARKED), Ordering::Release);
                    return Some(free);
                }
                Err(now) => taken = now,
            }
        }
    }

    /// [`after_fork_in_child`], registered with the fork handlers before any word can hold a
    /// reading (see `CachedClock::stale_in_children`).
    pub(in crate::clock::cached) static IN_CHILD: ChildStep = ChildStep::new(after_fork_in_child);

    /// Marks every cached clock's reading [`PARKED`]: the child of a `fork()` has no refresher
    /// thread, so its first read must take a precise reading and start one. Raises each
    /// slot's floor to its high mark: the child's words take only readings above every one
    /// the parent's held (see [`admit`]). A generator's confirmed step on a cached clock
    /// relies on this step running in every child, as a sharded generator's runs rely on
    /// theirs: the child handler runs every registered step unless the list is locked, which
    /// it is only inside a fork section, and `prepare` waits for every section. Called by the
    /// child fork handler ([`crate::fork`]), in a child with one thread: atomic loads and
    /// stores on `static`s, no lock, no allocation, nothing that can panic.
    fn after_fork_in_child() {
        use std::sync::atomic::Ordering as Std;
        for (word, marks) in WORDS.iter().zip(&MARKS) {
            marks
                .floor
                .store(marks.high.load(Std::Relaxed), Std::Relaxed);
            if word.load(Ordering::Relaxed) != UNCACHED {
                word.store(sentinel(PARKED), Ordering::Release);
            }
        }
    }
}

/// A word of its own, marked [`PARKED`], and no slot.
#[cfg(snowmint_loom)]
pub(super) fn take() -> (Option<usize>, &'static AtomicU64) {
    let word = AtomicU64::new(super::sentinel::sentinel(PARKED));
    (None, Box::leak(Box::new(word)))
}

/// Never called: no clock has a slot under loom.
#[cfg(snowmint_loom)]
pub(super) fn give_back(_slot: usize) {}

/// Any reading: loom's models never fork.
#[cfg(snowmint_loom)]
pub(super) fn admit(_word: &AtomicU64, _now: u64) -> bool {
    true
}
