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
pub(super) use table::{WORDS, give_back, take};

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
        TAKEN.fetch_and(!(1 << slot), std::sync::atomic::Ordering::Relaxed);
    }

    /// Takes a free slot of [`WORDS`], marked [`PARKED`].
    fn take_slot() -> Option<usize> {
        use std::sync::atomic::Ordering as Std;
        // Relaxed: the bitmap only hands out distinct slots; the word is reset before it is used.
        let mut taken = TAKEN.load(Std::Relaxed);
        loop {
            let free = (!taken).trailing_zeros() as usize;
            if free >= SLOTS {
                return None;
            }
            match TAKEN.compare_exchange_weak(taken, taken | 1 << free, Std::Relaxed, Std::Relaxed)
            {
                Ok(_) => {
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
    /// thread, so its first read must take a precise reading and start one. Called by the child
    /// fork handler ([`crate::fork`]), in a child with one thread: atomic stores on `static`s, no
    /// lock, no allocation, nothing that can panic.
    fn after_fork_in_child() {
        for word in &WORDS {
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
