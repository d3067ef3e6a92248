//! What a 128-bit generator needs of its ID family ([`Kind`]) and of the 64-bit generator it
//! mints on ([`Engine`]): the fixed layout, each family's first ID of a millisecond, and where
//! that first ID is kept.

use std::cell::Cell;

use super::seed::Key;
use super::{Ulid, Uuid7};
use crate::clock::Clock;
use crate::error::Result;
use crate::generator::{Generator, LocalState, SharedState};
use crate::layout::Layout;
use crate::mint::Attempt;
use crate::shard::ShardedGenerator;

/// The 64-bit layout every 128-bit generator mints on: 42 bits of Unix milliseconds from
/// 1970 (to 2109-05-15T07:35:11.103Z) and a 22-bit sequence, no node bits.
pub(crate) const LAYOUT: Layout = Layout::builder("id128", 64)
    .time(42)
    .sequence(SEQUENCE_BITS as u8)
    .build_const();

/// The width of the engine's sequence: what a millisecond's random start is counted up by.
pub(super) const SEQUENCE_BITS: u32 = 22;
pub(super) const SEQUENCE_MASK: u64 = (1 << SEQUENCE_BITS) - 1;

/// An ID family a 128-bit generator mints: [`Uuid7`] or [`Ulid`]. Sealed.
///
/// # Examples
///
/// ```
/// use snowmint::id128::{Id128Generator, Kind, Ulid, Uuid7};
///
/// fn first<K: Kind>() -> snowmint::Result<K> {
///     Id128Generator::<K>::builder().build()?.mint()
/// }
///
/// assert_eq!(first::<Uuid7>()?.to_bytes()[6] >> 4, 7); // the version
/// assert!(first::<Ulid>()?.unix_ms() > 1_700_000_000_000);
/// # Ok::<(), snowmint::Error>(())
/// ```
pub trait Kind: sealed::Kind {}

/// The 64-bit generator a 128-bit generator mints on: a shared [`Generator`], a
/// [`LocalGenerator`](crate::LocalGenerator) or a [`ShardedGenerator`]. Sealed.
///
/// # Examples
///
/// ```
/// use snowmint::id128::{Engine, Uuid7Generator};
///
/// fn increasing<G: Engine>(generator: &Uuid7Generator<G>) -> snowmint::Result<bool> {
///     Ok(generator.mint()? < generator.mint()?)
/// }
///
/// assert!(increasing(&Uuid7Generator::builder().build()?)?);
/// assert!(increasing(&Uuid7Generator::builder().build_local()?)?);
/// assert!(increasing(&Uuid7Generator::builder().build_sharded(2)?)?);
/// # Ok::<(), snowmint::Error>(())
/// ```
pub trait Engine: sealed::Engine {}

pub(crate) mod sealed {
    use super::Key;
    use crate::error::Result;
    use crate::mint::Attempt;

    /// What the generator needs of an ID family.
    pub trait Kind: Copy + Default + Ord {
        /// The generator's name in [`Error::Forked`](crate::Error::Forked).
        const GENERATOR: &'static str;
        /// The bits of the ID of millisecond `unix_ms` (at most 48 bits) whose random part
        /// starts at `seed`: the seed less the bit that would let a 22-bit sequence added to
        /// the ID carry out of the random part's lowest field.
        fn base(unix_ms: u64, seed: u128) -> u128;
        /// The ID with these bits, which [`base`](Self::base) plus a sequence made.
        fn from_bits(bits: u128) -> Self;
    }

    /// What the generator needs of a 64-bit generator: its state words, one at a time or in
    /// runs, and where the current millisecond's random start is kept.
    pub trait Engine {
        /// The starts remembered: none for a shared engine, the last millisecond's for one
        /// that one thread owns.
        type Starts: Starts;
        /// The next state word (milliseconds above a 22-bit sequence), waiting for a full
        /// millisecond to pass or failing on it.
        fn next_word(&self, wait: bool) -> Result<u64>;
        /// Up to `want` consecutive state words of one millisecond: the first and how many.
        fn reserve_words(&self, want: u64, wait: bool) -> Result<(u64, u64)>;
        /// The next state word, or how long to wait for one: never waits.
        fn word_or_wait(&self) -> Result<Attempt<u64>>;
        /// Up to `want` consecutive state words of one millisecond, or how long to wait for
        /// them: never waits.
        fn reserve_words_or_wait(&self, want: u64) -> Result<Attempt<(u64, u64)>>;
    }

    /// A memory of each millisecond's first ID, keyed by millisecond.
    pub trait Starts: Default {
        /// The bits of the ID of state word `word` under `key`: its millisecond's first ID
        /// plus its sequence, which no carry takes out of the random part (see
        /// [`Kind::base`]).
        fn id<K: super::Kind>(&self, key: &Key, word: u64) -> u128;
    }
}

pub(super) use sealed::Starts;

impl Kind for Uuid7 {}
impl sealed::Kind for Uuid7 {
    const GENERATOR: &'static str = "Uuid7Generator";
    #[inline(always)]
    fn base(unix_ms: u64, seed: u128) -> u128 {
        Uuid7::start(unix_ms, seed).to_u128()
    }
    #[inline(always)]
    fn from_bits(bits: u128) -> Uuid7 {
        Uuid7::from_bits(bits)
    }
}

impl Kind for Ulid {}
impl sealed::Kind for Ulid {
    const GENERATOR: &'static str = "UlidGenerator";
    #[inline(always)]
    fn base(unix_ms: u64, seed: u128) -> u128 {
        Ulid::start(unix_ms, seed).to_u128()
    }
    #[inline(always)]
    fn from_bits(bits: u128) -> Ulid {
        Ulid::from_u128(bits)
    }
}

/// Each millisecond's first ID computed anew: a shared engine's threads would contend for a
/// memory of it.
#[derive(Debug, Default)]
pub struct Fresh;

impl Starts for Fresh {
    #[inline(always)]
    fn id<K: Kind>(&self, key: &Key, word: u64) -> u128 {
        let ms = word >> SEQUENCE_BITS;
        K::base(ms, key.seed(ms)) + u128::from(word & SEQUENCE_MASK)
    }
}

/// The state word of the last millisecond's sequence 0, and that millisecond's first ID, for
/// an engine one thread owns.
#[derive(Debug, Default)]
pub struct Last(pub(super) Cell<(u64, u128)>);

impl Starts for Last {
    #[inline(always)]
    fn id<K: Kind>(&self, key: &Key, word: u64) -> u128 {
        let (first, base) = self.0.get();
        // Starting at word 0, which no engine mints (it never mints in millisecond 0), so the
        // first call computes.
        let sequence = word.wrapping_sub(first);
        if sequence <= SEQUENCE_MASK {
            return base + u128::from(sequence);
        }
        self.compute::<K>(key, word)
    }
}

impl Last {
    /// A new millisecond's first ID, remembered, plus the sequence of `word`.
    #[cold]
    #[inline(never)]
    fn compute<K: Kind>(&self, key: &Key, word: u64) -> u128 {
        let ms = word >> SEQUENCE_BITS;
        let base = K::base(ms, key.seed(ms));
        self.0.set((ms << SEQUENCE_BITS, base));
        base + u128::from(word & SEQUENCE_MASK)
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
    fn the_layout_is_42_bits_of_unix_ms_over_a_22_bit_sequence() {
        assert_eq!(
            (LAYOUT.time_field().bits(), LAYOUT.time_field().shift()),
            (42, 22)
        );
        assert_eq!((LAYOUT.epoch_ms(), LAYOUT.tick_ms()), (0, 1));
        assert_eq!(LAYOUT.node_fields().count(), 0);
        assert_eq!(LAYOUT.max_sequence(), SEQUENCE_MASK);
        // 2109-05-15T07:35:11.103Z.
        assert_eq!(LAYOUT.max_unix_ms(), 4_398_046_511_103);
    }
}
