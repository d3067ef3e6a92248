//! [`Family`]: what an ID family is to its generator, the map from the engine's state word to
//! the family's ID (sealed).

/// An ID family minted on the 64-bit engine: [`SnoId`](crate::sno::SnoId),
/// [`Uuid7`](crate::id128::Uuid7) or [`Ulid`](crate::id128::Ulid). Sealed.
///
/// # Examples
///
/// ```
/// use snowmint::family::{Family, FamilyGenerator};
/// use snowmint::id128::{Ulid, Uuid7};
///
/// fn first<F: Family>() -> snowmint::Result<F> {
///     FamilyGenerator::<F>::builder().build()?.mint()
/// }
///
/// assert_eq!(first::<Uuid7>()?.to_bytes()[6] >> 4, 7); // the version
/// assert!(first::<Ulid>()?.unix_ms() > 1_700_000_000_000);
/// # Ok::<(), snowmint::Error>(())
/// ```
pub trait Family: sealed::Family {}

pub(crate) mod sealed {
    use std::fmt;

    use crate::error::Result;
    use crate::family::starts::Starts;
    use crate::generator::ClockBehind;
    use crate::layout::Layout;

    /// What a family generator needs of its ID family.
    pub trait Family: Copy + Default + Ord {
        /// The generator's name: in [`Error::Forked`](crate::Error::Forked) and `Debug`.
        const GENERATOR: &'static str;
        /// The layout of the engine's state word.
        const LAYOUT: Layout;
        /// What a builder sets for the family beyond the engine's settings.
        type Options: Clone + fmt::Debug;
        /// What a generator maps state words to IDs with, made from the options when it is
        /// built.
        type Map: Send + Sync;
        /// The engine's policy when the clock goes back, unless the builder sets another.
        fn on_clock_behind() -> ClockBehind;
        /// The options of a new builder.
        fn options() -> Self::Options;
        /// The map of a generator built with `options`.
        fn map(options: Self::Options) -> Result<Self::Map>;
        /// The ID of state word `word`; `starts` is where the engine lets the family remember
        /// the current tick's first ID.
        fn id(map: &Self::Map, starts: &impl Starts, word: u64) -> Self;
        /// Writes the IDs of the consecutive state words from `first`, one per slot of `out`.
        #[inline(always)]
        fn fill(map: &Self::Map, starts: &impl Starts, out: &mut [Self], first: u64) {
            for (slot, word) in out.iter_mut().zip(first..) {
                *slot = Self::id(map, starts, word);
            }
        }
        /// Adds what `map` holds that a reader may see to a generator's `Debug` form.
        fn fmt_map(map: &Self::Map, f: &mut fmt::DebugStruct<'_, '_>);
    }
}

impl<F: sealed::Family> Family for F {}
