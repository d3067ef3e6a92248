//! Where a family generator remembers the current tick's first ID, so that it computes each
//! first ID (a 128-bit family's keyed start: two 64x64->128-bit multiplies) once per tick
//! rather than once per ID.
//!
//! Each engine offers its own memory ([`Remember`]):
//!
//! - an engine one thread owns: [`Last`], a `Cell` beside it;
//! - a shared engine: [`PerThread`], each thread's last first ID in a thread-local, keyed by
//!   the family generator's number (a memory beside the engine would be a line that every
//!   minting thread writes);
//! - a sharded engine: beside the calling thread's run of its IDs, which every single mint
//!   checks against the engine's number already, so a hit costs one compare of the tick
//!   ([`ShardedGenerator`]'s `remembered`).
//!
//! Every memory answers only for the generator and the tick it holds a first ID of, and a
//! first ID is a function of those two alone (the family's map, fixed at build, and the
//! tick): so what a memory answers is what computing it would give, never another
//! generator's start nor another tick's.

use std::cell::Cell;

use crate::clock::Clock;
use crate::generator::{Generator, LocalState, SharedState};
use crate::shard::ShardedGenerator;
use crate::sync::plain::{AtomicU64, Ordering};

/// A memory of each tick's first ID (up to 128 bits), keyed by the tick's state word with
/// sequence 0.
pub trait Starts {
    /// The bits of the ID of state word `word`: its tick's first ID plus its sequence (the
    /// bits of `word` under `sequence_mask`), with `first` computing a first ID from the
    /// tick's word with sequence 0 when this memory does not hold it. `first` must be a
    /// function of that word and of what the family generator fixed at build: the memory
    /// answers with what it computed before. The family makes sure no sequence added carries
    /// out of its field.
    fn id(&self, word: u64, sequence_mask: u64, first: impl FnOnce(u64) -> u128) -> u128;
}

/// Where an engine lets a family remember its ticks' first IDs. Sealed (with the engine).
pub trait Remember {
    /// What a family generator keeps beside the engine for [`starts`](Self::starts).
    type Memory;
    /// What a new family generator on this engine keeps.
    fn memory(&self) -> Self::Memory;
    /// The memory of a family generator that keeps `memory`.
    fn starts<'a>(&'a self, memory: &'a Self::Memory) -> impl Starts + 'a;
}

/// The state word of the last tick's sequence 0, and that tick's first ID, for an engine one
/// thread owns.
#[derive(Debug, Default)]
pub struct Last(pub(crate) Cell<(u64, u128)>);

impl<C: Clock> Remember for Generator<C, LocalState> {
    type Memory = Last;
    fn memory(&self) -> Last {
        Last::default()
    }
    #[inline(always)]
    fn starts<'a>(&'a self, memory: &'a Last) -> impl Starts + 'a {
        memory
    }
}

impl Starts for &Last {
    #[inline(always)]
    fn id(&self, word: u64, sequence_mask: u64, first: impl FnOnce(u64) -> u128) -> u128 {
        let (tick, base) = self.0.get();
        // Starting at word 0, which no engine mints (it never mints in tick 0), so the first
        // call computes.
        let sequence = word.wrapping_sub(tick);
        if sequence <= sequence_mask {
            return base + u128::from(sequence);
        }
        self.compute(word, sequence_mask, first)
    }
}

impl Last {
    /// A new tick's first ID, remembered, plus the sequence of `word`.
    #[cold]
    #[inline(never)]
    fn compute(&self, word: u64, sequence_mask: u64, first: impl FnOnce(u64) -> u128) -> u128 {
        let tick = word & !sequence_mask;
        let base = first(tick);
        self.0.set((tick, base));
        base + u128::from(word & sequence_mask)
    }
}

/// A thread's memory of the last tick's first ID it computed for a family generator on a
/// shared engine: the generator's number ([`PerThread`]; 0 for none), the tick's state word
/// with sequence 0, and the first ID. Two generators used in turn on one thread each compute
/// their own at every turn.
///
/// # Fork story
///
/// A child of `fork()` has a copy of the forking thread's memory. It names a generator built
/// before the fork, whose every mint fails in the child with
/// [`Error::Forked`](crate::Error::Forked) before its state word reaches a family's map. A
/// generator built in the child (a 128-bit one draws a key of its own) takes a number above
/// every number taken before the fork (the counter is copied too), which the memory never
/// holds: it never answers a child's generator with its parent's start.
struct Recent {
    generator: Cell<u64>,
    tick: Cell<u64>,
    first: Cell<u128>,
}

thread_local! {
    /// This thread's [`Recent`]. No destructor, so it answers during other thread-locals'
    /// destructors too.
    static RECENT: Recent = const {
        Recent {
            generator: Cell::new(0),
            tick: Cell::new(0),
            first: Cell::new(0),
        }
    };
}

/// The memory of a family generator on a shared engine: a number of its own, which [`RECENT`]
/// holds on each thread beside the last tick's first ID that thread computed for it.
#[derive(Debug, Clone, Copy)]
pub struct PerThread {
    /// This generator's number: unique in the process, never 0.
    generator: u64,
}

impl PerThread {
    /// A memory with a number no other has.
    fn new() -> PerThread {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        PerThread {
            // Relaxed: only the distinctness of the numbers matters; nothing is published.
            generator: NEXT.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// A tick's first ID, remembered as this thread's for this generator, plus the sequence
    /// of `word`.
    #[cold]
    #[inline(never)]
    fn compute(
        self,
        recent: &Recent,
        word: u64,
        sequence_mask: u64,
        first: impl FnOnce(u64) -> u128,
    ) -> u128 {
        let tick = word & !sequence_mask;
        let base = first(tick);
        recent.generator.set(self.generator);
        recent.tick.set(tick);
        recent.first.set(base);
        base + u128::from(word & sequence_mask)
    }
}

impl<C: Clock> Remember for Generator<C, SharedState> {
    type Memory = PerThread;
    fn memory(&self) -> PerThread {
        PerThread::new()
    }
    #[inline(always)]
    fn starts<'a>(&'a self, memory: &'a PerThread) -> impl Starts + 'a {
        *memory
    }
}

impl Starts for PerThread {
    #[inline(always)]
    fn id(&self, word: u64, sequence_mask: u64, first: impl FnOnce(u64) -> u128) -> u128 {
        RECENT.with(|recent| {
            let sequence = word.wrapping_sub(recent.tick.get());
            if recent.generator.get() == self.generator && sequence <= sequence_mask {
                return recent.first.get() + u128::from(sequence);
            }
            self.compute(recent, word, sequence_mask, first)
        })
    }
}

/// The memory of a family generator on a sharded engine: beside the calling thread's run of
/// the engine's IDs. The generator keeps nothing: the engine is the key.
struct ByRun<'a, C>(&'a ShardedGenerator<C>);

impl<C: Clock> Remember for ShardedGenerator<C> {
    type Memory = ();
    fn memory(&self) {}
    #[inline(always)]
    fn starts<'a>(&'a self, _: &'a ()) -> impl Starts + 'a {
        ByRun(self)
    }
}

impl<C: Clock> Starts for ByRun<'_, C> {
    #[inline(always)]
    fn id(&self, word: u64, sequence_mask: u64, first: impl FnOnce(u64) -> u128) -> u128 {
        // A first ID is a function of the tick and of the family's map, which the one family
        // generator that owns this engine fixed at build.
        self.0.remembered(word, sequence_mask, first)
    }
}

#[cfg(test)]
mod tests;
