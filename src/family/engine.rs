//! [`Engine`]: what a family generator needs of the 64-bit generator it mints on, and where
//! an engine one thread owns remembers its current tick's first ID.

use std::cell::Cell;

use crate::clock::Clock;
use crate::error::Result;
use crate::generator::{Generator, LocalState, SharedState};
use crate::mint::Attempt;
use crate::shard::ShardedGenerator;

/// The 64-bit generator a [`FamilyGenerator`](super::FamilyGenerator) mints on: a shared
/// [`Generator`], a [`LocalGenerator`](crate::LocalGenerator) or a [`ShardedGenerator`].
/// Sealed.
///
/// # Examples
///
/// ```
/// use snowmint::{family::Engine, id128::Uuid7Generator, shard::Shards};
///
/// fn increasing<G: Engine>(generator: &Uuid7Generator<G>) -> snowmint::Result<bool> {
///     Ok(generator.mint()? < generator.mint()?)
/// }
///
/// assert!(increasing(&Uuid7Generator::builder().build()?)?);
/// assert!(increasing(&Uuid7Generator::builder().build_local()?)?);
/// assert!(increasing(&Uuid7Generator::builder().build_sharded(Shards::SplitSequence(2))?)?);
/// # Ok::<(), snowmint::Error>(())
/// ```
pub trait Engine: sealed::Engine {}

pub(crate) mod sealed {
    use crate::error::Result;
    use crate::mint::Attempt;

    /// What a family generator needs of a 64-bit generator: its state words, one at a time or
    /// in runs, and where a family may remember the current tick's first ID.
    pub trait Engine {
        /// The memory of the current tick's first ID: none for an engine threads share (they
        /// would contend for it), the last tick's for one that one thread owns.
        type Starts: Starts;
        /// The next state word, waiting for a full tick to pass or failing on it.
        fn next_word(&self, wait: bool) -> Result<u64>;
        /// Up to `want` consecutive state words of one tick: the first and how many.
        fn reserve_words(&self, want: u64, wait: bool) -> Result<(u64, u64)>;
        /// The next state word, or how long to wait for one: never waits.
        fn word_or_wait(&self) -> Result<Attempt<u64>>;
        /// Up to `want` consecutive state words of one tick, or how long to wait for them:
        /// never waits.
        fn reserve_words_or_wait(&self, want: u64) -> Result<Attempt<(u64, u64)>>;
    }

    /// A memory of each tick's first ID (up to 128 bits), keyed by the tick's state word with
    /// sequence 0.
    pub trait Starts: Default {
        /// The bits of the ID of state word `word`: its tick's first ID plus its sequence (the
        /// bits of `word` under `sequence_mask`), with `first` computing a first ID from the
        /// tick's word with sequence 0 when this memory does not hold it. The family makes sure
        /// no sequence added carries out of its field.
        fn id(&self, word: u64, sequence_mask: u64, first: impl FnOnce(u64) -> u128) -> u128;
    }
}

pub(crate) use sealed::Starts;

/// Each tick's first ID computed anew: a shared engine's threads would contend for a memory
/// of it.
#[derive(Debug, Default)]
pub struct Fresh;

impl Starts for Fresh {
    #[inline(always)]
    fn id(&self, word: u64, sequence_mask: u64, first: impl FnOnce(u64) -> u128) -> u128 {
        first(word & !sequence_mask) + u128::from(word & sequence_mask)
    }
}

/// The state word of the last tick's sequence 0, and that tick's first ID, for an engine one
/// thread owns.
#[derive(Debug, Default)]
pub struct Last(pub(crate) Cell<(u64, u128)>);

impl Starts for Last {
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

/// The engine methods, the same on every 64-bit generator but for where its runs of state
/// words come from: `$runs` is the generator itself, or a sharded generator's thread's shard.
macro_rules! engine {
    ($engine:ty, $starts:ty, |$generator:ident| $runs:expr) => {
        impl<C: Clock> Engine for $engine {}
        impl<C: Clock> sealed::Engine for $engine {
            type Starts = $starts;
            #[inline(always)]
            fn next_word(&self, wait: bool) -> Result<u64> {
                let id = if wait { self.mint() } else { self.try_mint() };
                id.map(|id| id.to_u64())
            }
            #[inline(always)]
            fn reserve_words(&self, want: u64, wait: bool) -> Result<(u64, u64)> {
                let $generator = self;
                $runs.reserve_states(want, wait)
            }
            #[inline(always)]
            fn word_or_wait(&self) -> Result<Attempt<u64>> {
                Ok(self.mint_or_wait()?.map(|id| id.to_u64()))
            }
            #[inline(always)]
            fn reserve_words_or_wait(&self, want: u64) -> Result<Attempt<(u64, u64)>> {
                let $generator = self;
                $runs.reserve_states_or_wait(want)
            }
        }
    };
}

engine!(Generator<C, SharedState>, Fresh, |generator| generator);
engine!(Generator<C, LocalState>, Last, |generator| generator);
engine!(ShardedGenerator<C>, Fresh, |generator| generator.local());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_last_start_is_computed_once_per_tick() {
        let last = Last::default();
        let calls = Cell::new(0);
        let first = |tick: u64| {
            calls.set(calls.get() + 1);
            u128::from(tick) << 8
        };
        let mask = 0xff;
        assert_eq!(last.id(0x1_05, mask, first), (0x1_00 << 8) + 5);
        assert_eq!(last.id(0x1_07, mask, first), (0x1_00 << 8) + 7);
        assert_eq!(calls.get(), 1);
        assert_eq!(last.id(0x2_00, mask, first), 0x2_00 << 8);
        assert_eq!(calls.get(), 2);
        assert_eq!(Fresh.id(0x2_03, mask, first), (0x2_00 << 8) + 3);
        assert_eq!(calls.get(), 3);
    }
}
