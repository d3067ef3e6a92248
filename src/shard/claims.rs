//! Which thread mints from which shard of a [`ShardedGenerator`](super::ShardedGenerator).
//!
//! Each sharded generator has a [`Claims`] table, one bit per shard. The first time a thread
//! mints from the generator it claims the lowest free shard, or, if every shard is taken,
//! shares one (round robin over the shards). A thread keeps its shard while it lives, and a
//! thread-local destructor gives it back when the thread exits. So up to `len()` threads that
//! mint from one generator at once each have a shard of their own, whatever other sharded
//! generators exist.
//!
//! The hot path is [`Claims::shard_of_this_thread`]'s lookup in a four-entry per-thread cache
//! keyed by the generator's [`id`](Claims::id); everything else is cold. The cache has no
//! destructor, so it answers in the thread's other thread-local destructors too; one that
//! misses after the claims are given back asks the generator for the shard whose last ID is
//! the highest, whose next ID is above every ID the thread minted from any shard.
//!
//! # Orderings
//!
//! Every atomic here is `Relaxed`: a claim decides only which shard a thread mints from, never
//! whether an ID is unique (every shard is a [`Generator`](crate::Generator) whose
//! compare-and-swap keeps its IDs unique between sharers), and nothing is published with it. A
//! read-modify-write always sees the latest value of its word, so a thread never takes a shard
//! that another thread holds, and a shard given back is free to the next claim.
//!
//! # Fork story
//!
//! No lock: the table is atomics, and a thread's claims are in its thread-locals. A child of
//! `fork()` copies the table with the claims of its parent's other threads still taken (those
//! threads are not in the child); that costs the child nothing, since a sharded generator built
//! in the parent fails in the child with [`Error::Forked`](crate::Error::Forked).

use std::cell::{Cell, RefCell};
use std::sync::{Arc, Weak};

use crate::sync::plain::{AtomicU64, AtomicUsize, Ordering};

/// How many (generator, shard) pairs a thread's cache holds: a thread that mints from more
/// sharded generators than this in turn finds its shard in its list of claims, a cold path.
const CACHED: usize = 4;

/// The shard claims of one sharded generator.
#[derive(Debug)]
pub(super) struct Claims {
    /// This generator's number, which no other sharded generator in the process has: the key
    /// of the per-thread cache (never 0, which marks an empty entry).
    id: u64,
    /// How many shards there are.
    shards: usize,
    /// Bit `i % 64` of word `i / 64` is set while a thread holds shard `i`.
    taken: Box<[AtomicU64]>,
    /// The next shard to share once every shard is taken.
    shared: AtomicUsize,
}

/// A thread's claims, given back when the thread exits.
struct Held(RefCell<Vec<Claim>>);

/// The shard a thread mints from in one generator.
struct Claim {
    id: u64,
    index: usize,
    /// Whether this thread holds the shard alone (it claimed it), rather than sharing it.
    owned: bool,
    /// The table to give the shard back to, while the generator exists.
    claims: Weak<Claims>,
}

thread_local! {
    /// The shards this thread minted from last, most recent first: (generator id, shard).
    /// No destructor, so it answers during other thread-locals' destructors too.
    static CACHE: [Cell<(u64, usize)>; CACHED] = const { [const { Cell::new((0, 0)) }; CACHED] };
    /// Every shard this thread minted from, in generators that may still exist.
    static HELD: Held = const { Held(RefCell::new(Vec::new())) };
}

impl Claims {
    /// A table for `shards` shards, none taken, with a new id.
    pub(super) fn new(shards: usize) -> Claims {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        Claims {
            // Relaxed: only the distinctness of the numbers matters; nothing is published.
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            shards,
            taken: (0..shards.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            shared: AtomicUsize::new(0),
        }
    }

    /// This generator's number, unique in the process.
    pub(super) fn id(&self) -> u64 {
        self.id
    }

    /// The index of the calling thread's shard in the generator whose table is `this`, the
    /// same every time on this thread. `id` is `this.id()`, which the caller keeps beside the
    /// `Arc` so that a cache hit does not follow it.
    /// `highest` answers for a thread whose claims are already given back (a thread-local
    /// destructor that mints after the destructor of its claims ran) and whose cache no
    /// longer holds this generator: the shard whose next ID is above every ID the generator
    /// handed out, so the thread's IDs keep increasing whichever shard it held.
    #[inline]
    pub(super) fn shard_of_this_thread(
        this: &Arc<Claims>,
        id: u64,
        highest: impl FnOnce() -> usize,
    ) -> usize {
        let hit = CACHE.with(|cache| {
            cache
                .iter()
                .map(Cell::get)
                .find(|&(key, _)| key == id)
                .map(|(_, index)| index)
        });
        match hit {
            Some(index) => index,
            None => Claims::miss(this, highest),
        }
    }

    /// Finds or makes this thread's claim, and caches it.
    #[cold]
    #[inline(never)]
    fn miss(this: &Arc<Claims>, highest: impl FnOnce() -> usize) -> usize {
        let index = HELD
            .try_with(|held| held.find_or_claim(this))
            // This thread's claims are already given back (a thread-local destructor that
            // mints): share the shard `highest` names, kept by the cache, which outlives them.
            .unwrap_or_else(|_| highest());
        CACHE.with(|cache| {
            for i in (1..CACHED).rev() {
                cache[i].set(cache[i - 1].get());
            }
            cache[0].set((this.id, index));
        });
        index
    }

    /// The lowest free shard, now taken by the caller, if there is one.
    fn claim(&self) -> Option<usize> {
        for (w, word) in self.taken.iter().enumerate() {
            // The bits past the last shard read as taken.
            let past = match self.shards - w * 64 {
                n @ 1..64 => u64::MAX << n,
                _ => 0,
            };
            // Relaxed: see the module's Orderings.
            let mut bits = word.load(Ordering::Relaxed);
            while bits | past != u64::MAX {
                let bit = (bits | past).trailing_ones() as usize;
                // Relaxed: see the module's Orderings; a lost race retries with the bits seen.
                match word.compare_exchange_weak(
                    bits,
                    bits | 1 << bit,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => return Some(w * 64 + bit),
                    Err(now) => bits = now,
                }
            }
        }
        None
    }

    /// A shard to share, round robin over the shards.
    fn share(&self) -> usize {
        // Relaxed: see the module's Orderings.
        self.shared.fetch_add(1, Ordering::Relaxed) % self.shards
    }

    /// Gives shard `index` back.
    fn release(&self, index: usize) {
        // Relaxed: see the module's Orderings.
        self.taken[index / 64].fetch_and(!(1 << (index % 64)), Ordering::Relaxed);
    }
}

impl Held {
    /// This thread's shard in `claims`' generator: the one it minted from before, or the
    /// lowest free shard, or a shared one.
    fn find_or_claim(&self, claims: &Arc<Claims>) -> usize {
        let mut held = self.0.borrow_mut();
        if let Some(claim) = held.iter().find(|claim| claim.id == claims.id) {
            return claim.index;
        }
        // Forget the generators that were dropped: their ids never come back.
        held.retain(|claim| claim.claims.strong_count() > 0);
        let (index, owned) = match claims.claim() {
            Some(index) => (index, true),
            None => (claims.share(), false),
        };
        held.push(Claim {
            id: claims.id,
            index,
            owned,
            claims: Arc::downgrade(claims),
        });
        index
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        for claim in self.0.get_mut().drain(..) {
            if let Some(claims) = claim.claims.upgrade().filter(|_| claim.owned) {
                claims.release(claim.index);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_take_the_lowest_free_shard_and_none_past_the_last() {
        for shards in [1, 2, 63, 64, 65, 130] {
            let claims = Claims::new(shards);
            let taken: Vec<usize> = std::iter::from_fn(|| claims.claim()).collect();
            assert_eq!(taken, (0..shards).collect::<Vec<_>>(), "{shards} shards");
            // Given back, last first: claimed again lowest first.
            for index in (0..shards).rev().step_by(shards.div_ceil(2)) {
                claims.release(index);
            }
            let again: Vec<usize> = std::iter::from_fn(|| claims.claim()).collect();
            let mut expected: Vec<usize> = (0..shards).rev().step_by(shards.div_ceil(2)).collect();
            expected.reverse();
            assert_eq!(again, expected, "{shards} shards");
        }
    }

    #[test]
    fn every_table_has_its_own_nonzero_id() {
        let (a, b) = (Claims::new(1), Claims::new(1));
        assert!(a.id() != 0 && b.id() != 0 && a.id() != b.id());
    }
}
