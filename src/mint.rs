//! [`Mint`]: the one set of minting methods every generator has.

use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::generator::Generator;
use crate::generator::State;
use crate::id::Id;
use crate::mark::{MarkStore, MarkedGenerator};
use crate::shard::ShardedGenerator;
use crate::sno::{SnoGenerator, SnoId};

/// Minting, the same way on every generator: shared ([`Generator`]), per thread
/// ([`LocalGenerator`](crate::LocalGenerator)), sharded ([`ShardedGenerator`]), kept below a
/// mark ([`MarkedGenerator`]: over a file, and with the etcd feature over a lease) and
/// sno's ([`SnoGenerator`], whose IDs are [`SnoId`]s).
///
/// Each generator also has these methods as its own, so they work without the trait in scope;
/// the trait lets code, benches and tests be generic over the generator.
///
/// `mint` and `mint_batch` wait when the current tick is full (or, by the
/// [`ClockBehind`](crate::ClockBehind) policy, when the clock is behind); the `try_` forms
/// fail with [`Error::SequenceExhausted`] instead of waiting for a full tick. A batch is one
/// compare-and-swap for a run of consecutive IDs of one tick.
///
/// # Examples
///
/// ```
/// use snowmint::{Generator, Layout, Mint};
///
/// /// Mints `n` IDs from any generator and checks that they increase.
/// fn increasing<G: Mint>(generator: &G, n: usize) -> snowmint::Result<bool> {
///     let ids = generator.mint_many(n)?;
///     Ok(ids.windows(2).all(|pair| pair[0] < pair[1]))
/// }
///
/// let shared = Generator::builder(Layout::TWITTER).node("machine", 1).build()?;
/// let local = Generator::builder(Layout::TWITTER).node("machine", 2).build_local()?;
/// assert!(increasing(&shared, 10_000)? && increasing(&local, 10_000)?);
/// # Ok::<(), snowmint::Error>(())
/// ```
pub trait Mint {
    /// The ID minted: [`Id`], or [`SnoId`] for sno.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Id, Layout, Mint};
    ///
    /// fn first<G: Mint<Id = Id>>(generator: &G) -> snowmint::Result<Id> {
    ///     generator.mint()
    /// }
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build()?;
    /// assert!(first(&generator)?.to_u64() > 0);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    type Id: Copy + Default + Ord;

    /// Mints the next ID, waiting for the next tick if this one is full.
    ///
    /// # Errors
    ///
    /// As the generator's own `mint`: the clock behind beyond the policy's bounds, a clock
    /// outside the layout's time range, a full last tick, a generator used in the child of a
    /// `fork()` ([`Error::Forked`]), and the store's errors for a marked generator.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, Mint};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build()?;
    /// let a = Mint::mint(&generator)?;
    /// assert!(Mint::mint(&generator)? > a);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    fn mint(&self) -> Result<Self::Id>;

    /// Mints the next ID, or fails with [`Error::SequenceExhausted`] if this tick is full.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint), and [`Error::SequenceExhausted`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Error, Generator, Layout, Mint, clock::ManualClock};
    ///
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(ManualClock::new(1_700_000_000_000))
    ///     .build()?;
    /// for _ in 0..4096 {
    ///     Mint::try_mint(&generator)?;
    /// }
    /// assert!(matches!(Mint::try_mint(&generator), Err(Error::SequenceExhausted { .. })));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    fn try_mint(&self) -> Result<Self::Id>;

    /// Mints up to `out.len()` consecutive IDs of one tick with one compare-and-swap, writes
    /// them to the front of `out` and returns how many (at least one unless `out` is empty),
    /// waiting for the next tick if this one is full.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint). No ID written before an error is handed out.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Id, Layout, Mint};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build()?;
    /// let mut ids = [Id::default(); 100];
    /// let n = Mint::mint_batch(&generator, &mut ids)?;
    /// assert!(n >= 1 && ids[..n].windows(2).all(|pair| pair[0] < pair[1]));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    fn mint_batch(&self, out: &mut [Self::Id]) -> Result<usize>;

    /// [`mint_batch`](Self::mint_batch), failing with [`Error::SequenceExhausted`] instead of
    /// waiting when this tick is full.
    ///
    /// # Errors
    ///
    /// As for [`try_mint`](Self::try_mint).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Id, Layout, Mint, clock::ManualClock};
    ///
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(ManualClock::new(1_700_000_000_000))
    ///     .build()?;
    /// let mut ids = [Id::default(); 5000];
    /// assert_eq!(Mint::try_mint_batch(&generator, &mut ids)?, 4096);
    /// assert!(Mint::try_mint_batch(&generator, &mut ids).is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    fn try_mint_batch(&self, out: &mut [Self::Id]) -> Result<usize>;

    /// Mints exactly `n` IDs, across as many ticks as they need, into a new `Vec`.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint), and [`Error::TooLarge`] when `n` IDs cannot be
    /// allocated. The IDs reserved before an error are dropped, never handed out.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, Mint};
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_local()?;
    /// let ids = Mint::mint_many(&generator, 5_000)?; // more than one tick holds
    /// assert_eq!(ids.len(), 5_000);
    /// assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    fn mint_many(&self, n: usize) -> Result<Vec<Self::Id>> {
        mint_many_by(n, |out| self.mint_batch(out))
    }
}

/// Every generator's `mint_many`: exactly `n` IDs in a new `Vec`, filled by `mint_batch` runs
/// until it is full. The `Vec` is reserved before minting, so a size that cannot be allocated
/// is [`Error::TooLarge`], not an abort; the IDs of an interrupted fill are dropped.
pub(crate) fn mint_many_by<T: Copy + Default>(
    n: usize,
    mut mint_batch: impl FnMut(&mut [T]) -> Result<usize>,
) -> Result<Vec<T>> {
    let mut ids = Vec::new();
    ids.try_reserve_exact(n).map_err(|_| Error::TooLarge {
        what: "mint_many",
        requested: n as u64,
    })?;
    ids.resize(n, T::default());
    let mut filled = 0;
    while filled < n {
        filled += mint_batch(&mut ids[filled..])?;
    }
    Ok(ids)
}

/// Implements [`Mint`] for a generator type by calling its own methods of the same names.
macro_rules! mint_by_inherent {
    ($id:ty, [$($params:tt)*] $generator:ty where $($bounds:tt)*) => {
        impl<$($params)*> Mint for $generator where $($bounds)* {
            type Id = $id;

            #[inline]
            fn mint(&self) -> Result<$id> {
                <$generator>::mint(self)
            }

            #[inline]
            fn try_mint(&self) -> Result<$id> {
                <$generator>::try_mint(self)
            }

            #[inline]
            fn mint_batch(&self, out: &mut [$id]) -> Result<usize> {
                <$generator>::mint_batch(self, out)
            }

            #[inline]
            fn try_mint_batch(&self, out: &mut [$id]) -> Result<usize> {
                <$generator>::try_mint_batch(self, out)
            }

            fn mint_many(&self, n: usize) -> Result<Vec<$id>> {
                <$generator>::mint_many(self, n)
            }
        }
    };
}

mint_by_inherent!(Id, [C, S] Generator<C, S> where C: Clock, S: State);
mint_by_inherent!(Id, [C] ShardedGenerator<C> where C: Clock);
mint_by_inherent!(Id, [C, S] MarkedGenerator<C, S> where C: Clock, S: MarkStore);
mint_by_inherent!(SnoId, [C] SnoGenerator<C> where C: Clock);
