//! [`Engine`]: what a family generator needs of the 64-bit generator it mints on.

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
    use crate::family::starts::Remember;
    use crate::mint::Attempt;

    /// What a family generator needs of a 64-bit generator: its state words, one at a time or
    /// in runs, and where a family may remember the current tick's first ID ([`Remember`]).
    pub trait Engine: Remember {
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
}

/// The engine methods, the same on every 64-bit generator but for where its runs of state
/// words come from: `$runs` is the generator itself, or a sharded generator's thread's shard.
macro_rules! engine {
    ($engine:ty, |$generator:ident| $runs:expr) => {
        impl<C: Clock> Engine for $engine {}
        impl<C: Clock> sealed::Engine for $engine {
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

engine!(Generator<C, SharedState>, |generator| generator);
engine!(Generator<C, LocalState>, |generator| generator);
engine!(ShardedGenerator<C>, |generator| generator.local());
