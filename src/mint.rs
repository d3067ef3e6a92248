//! [`Mint`]: the one set of minting methods every generator has, [`Attempt`], what a mint
//! that never waits answers, and [`OnFull`], what a mint does on a full tick.
//!
//! This module knows no generator: each implements [`Mint`] beside its type.

use std::time::Duration;

use crate::error::{Error, Result};

/// Minting, the same way on every generator: shared ([`Generator`](crate::Generator)), per
/// thread ([`LocalGenerator`](crate::LocalGenerator)), sharded
/// ([`ShardedGenerator`](crate::shard::ShardedGenerator)), kept below a mark
/// ([`MarkedGenerator`](crate::mark::MarkedGenerator): over a file, or any other store), and the ID families'
/// ([`FamilyGenerator`](crate::family::FamilyGenerator): sno's, UUIDv7's, ULID's).
///
/// Each generator also has these methods as its own, so they work without the trait in scope;
/// the trait lets code, benches and tests be generic over the generator.
///
/// `mint` and `mint_batch` wait when the current tick is full (or, by the
/// [`ClockBehind`](crate::ClockBehind) policy, when the clock is behind); the `try_` forms
/// fail with [`Error::SequenceExhausted`] instead of waiting for a full tick; the `_or_wait`
/// forms never wait, and answer [`Attempt::Wait`] with how long to wait instead. A batch is
/// one compare-and-swap for a run of consecutive IDs of one tick.
///
/// An implementation gives one method, [`mint_run`](Self::mint_run): a run of IDs, doing on a
/// full tick what an [`OnFull`] says. The others are provided from it; the crate's generators
/// override them with their own methods of the same names, so generic code mints as fast.
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
    /// The ID minted: [`Id`](crate::Id), [`SnoId`](crate::sno::SnoId) for sno, or a 128-bit
    /// ID.
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

    /// Mints up to `out.len()` consecutive IDs of one tick with one reservation, writes them
    /// to the front of `out` and answers how many (at least one unless `out` is empty), doing
    /// on a full tick what `on_full` says: wait for the next tick, fail with
    /// [`Error::SequenceExhausted`], or answer [`Attempt::Wait`] with how long to wait.
    ///
    /// Only [`OnFull::Answer`] answers `Wait` (for a full tick, and for a clock behind that
    /// the [`ClockBehind`](crate::ClockBehind) policy would wait for); the provided methods
    /// sleep out a `Wait` answered under the other two.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint), and under [`OnFull::Fail`] [`Error::SequenceExhausted`].
    /// No ID written before an error is handed out.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Attempt, Generator, Id, Layout, Mint, OnFull, clock::ManualClock};
    /// use std::time::Duration;
    ///
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(ManualClock::new(1_700_000_000_000))
    ///     .build()?;
    /// let mut ids = [Id::default(); 5000];
    /// assert_eq!(generator.mint_run(&mut ids, OnFull::Fail)?, Attempt::Minted(4096));
    /// assert_eq!(
    ///     generator.mint_run(&mut ids, OnFull::Answer)?,
    ///     Attempt::Wait(Duration::from_millis(1))
    /// );
    /// assert!(generator.mint_run(&mut ids, OnFull::Fail).is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    fn mint_run(&self, out: &mut [Self::Id], on_full: OnFull) -> Result<Attempt<usize>>;

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
    #[inline]
    fn mint(&self) -> Result<Self::Id> {
        first_of_run(self, OnFull::Wait)
    }

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
    #[inline]
    fn try_mint(&self) -> Result<Self::Id> {
        first_of_run(self, OnFull::Fail)
    }

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
    #[inline]
    fn mint_batch(&self, out: &mut [Self::Id]) -> Result<usize> {
        run_waited(self, out, OnFull::Wait)
    }

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
    #[inline]
    fn try_mint_batch(&self, out: &mut [Self::Id]) -> Result<usize> {
        run_waited(self, out, OnFull::Fail)
    }

    /// Mints the next ID if that needs no wait, or says how long to wait: never waits.
    ///
    /// A full tick is [`Attempt::Wait`] until the next tick; a clock behind the last minted
    /// tick, by no more than the [`ClockBehind`](crate::ClockBehind) policy waits for, is
    /// [`Attempt::Wait`] until the generator can mint again (measured as the policy's docs
    /// say). Waiting that long and attempting again mints as
    /// [`mint`](Self::mint) would, without holding the thread: the async methods
    /// (`tokio::MintAsync` and `smol::MintAsync`, with the `tokio` and `smol` features) sleep
    /// on their runtime's timer between attempts.
    ///
    /// # Errors
    ///
    /// The errors of [`mint`](Self::mint). A clock behind by more than the policy waits for,
    /// or behind for longer than that in all since an attempt first found it behind the same
    /// state, is the same [`Error::ClockBehind`] that `mint` returns.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Attempt, Generator, Layout, Mint, clock::ManualClock};
    /// use std::time::Duration;
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = Generator::builder(Layout::SONYFLAKE).node("machine", 1).clock(&clock).build()?;
    /// for _ in 0..256 {
    ///     assert!(matches!(Mint::mint_or_wait(&generator)?, Attempt::Minted(_)));
    /// }
    /// // Sonyflake's ticks are 10 ms and hold 256 IDs.
    /// assert!(matches!(Mint::mint_or_wait(&generator)?, Attempt::Wait(wait) if wait <= Duration::from_millis(10)));
    /// clock.advance(10);
    /// assert!(matches!(Mint::mint_or_wait(&generator)?, Attempt::Minted(_)));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    fn mint_or_wait(&self) -> Result<Attempt<Self::Id>> {
        let mut id = [Self::Id::default()];
        loop {
            match self.mint_run(&mut id, OnFull::Answer)? {
                // Not for a one-ID buffer; asked again rather than answering a default ID.
                Attempt::Minted(0) => continue,
                Attempt::Minted(_) => return Ok(Attempt::Minted(id[0])),
                Attempt::Wait(wait) => return Ok(Attempt::Wait(wait)),
            }
        }
    }

    /// [`mint_batch`](Self::mint_batch) if that needs no wait, or how long to wait, as
    /// [`mint_or_wait`](Self::mint_or_wait) says: never waits. `Minted` holds how many IDs
    /// were written to the front of `out` (0 only for an empty `out`).
    ///
    /// # Errors
    ///
    /// As for [`mint_or_wait`](Self::mint_or_wait). Nothing written before an error is handed
    /// out.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Attempt, Generator, Id, Layout, Mint, clock::ManualClock};
    /// use std::time::Duration;
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).clock(&clock).build()?;
    /// let mut ids = [Id::default(); 5000];
    /// assert_eq!(Mint::mint_batch_or_wait(&generator, &mut ids)?, Attempt::Minted(4096));
    /// assert_eq!(
    ///     Mint::mint_batch_or_wait(&generator, &mut ids)?,
    ///     Attempt::Wait(Duration::from_millis(1))
    /// );
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    fn mint_batch_or_wait(&self, out: &mut [Self::Id]) -> Result<Attempt<usize>> {
        self.mint_run(out, OnFull::Answer)
    }

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

/// What a mint does when the current tick is full: the argument of [`Mint::mint_run`].
///
/// # Examples
///
/// ```
/// use snowmint::{Attempt, Generator, Id, Layout, Mint, OnFull, clock::ManualClock};
///
/// let generator = Generator::builder(Layout::TWITTER)
///     .node("machine", 1)
///     .clock(ManualClock::new(1_700_000_000_000))
///     .build()?;
/// let mut ids = [Id::default(); 4096];
/// assert_eq!(generator.mint_run(&mut ids, OnFull::Wait)?, Attempt::Minted(4096));
/// assert!(generator.mint_run(&mut ids, OnFull::Answer)?.minted().is_none());
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OnFull {
    /// Wait for the next tick, as [`Mint::mint`] does.
    Wait,
    /// Fail with [`Error::SequenceExhausted`], as [`Mint::try_mint`] does.
    Fail,
    /// Wait for nothing: answer [`Attempt::Wait`] with how long to wait, for a full tick and
    /// for a clock behind that the [`ClockBehind`](crate::ClockBehind) policy would wait for,
    /// as [`Mint::mint_or_wait`] does.
    Answer,
}

/// What a mint that never waits did: minted, or found that it has to wait, and for how long.
///
/// The answer of [`Mint::mint_or_wait`] and [`Mint::mint_batch_or_wait`] (and of each
/// generator's methods of those names). Attempting again after the wait mints, unless other
/// mints took the tick meanwhile or the clock went back again.
///
/// # Examples
///
/// ```
/// use snowmint::{Attempt, Generator, Layout, clock::ManualClock};
/// use std::time::Duration;
///
/// let clock = ManualClock::new(1_700_000_000_000);
/// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).clock(&clock).build()?;
/// let id = loop {
///     match generator.mint_or_wait()? {
///         Attempt::Minted(id) => break id,
///         Attempt::Wait(wait) => clock.advance(wait.as_millis() as u64),
///     }
/// };
/// assert!(id.to_u64() > 0);
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[must_use = "an attempt may have minted nothing: `Wait` says how long until it can"]
pub enum Attempt<T> {
    /// Minted: the ID, or for a batch how many IDs were written.
    Minted(T),
    /// Nothing minted: the clock reaches the earliest time the generator can mint at in this
    /// long. That is the next tick (less the ticks borrowing allows ahead of the clock) when
    /// the current one is full, and for a clock behind the last minted tick, within the
    /// [`ClockBehind`](crate::ClockBehind) policy's bound, the time the policy's docs measure
    /// to.
    Wait(Duration),
}

impl<T> Attempt<T> {
    /// The attempt with `f` applied to what it minted.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Attempt;
    /// use std::time::Duration;
    ///
    /// assert_eq!(Attempt::Minted(2).map(|n| n * 10), Attempt::Minted(20));
    /// let wait = Attempt::<u32>::Wait(Duration::from_millis(3));
    /// assert_eq!(wait.map(|n| n * 10), Attempt::Wait(Duration::from_millis(3)));
    /// ```
    #[inline]
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Attempt<U> {
        match self {
            Attempt::Minted(minted) => Attempt::Minted(f(minted)),
            Attempt::Wait(wait) => Attempt::Wait(wait),
        }
    }

    /// What it minted, or `None` if it has to wait.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Attempt;
    /// use std::time::Duration;
    ///
    /// assert_eq!(Attempt::Minted(7).minted(), Some(7));
    /// assert_eq!(Attempt::<u32>::Wait(Duration::from_millis(1)).minted(), None);
    /// ```
    #[inline]
    pub fn minted(self) -> Option<T> {
        match self {
            Attempt::Minted(minted) => Some(minted),
            Attempt::Wait(_) => None,
        }
    }

    /// What a reservation that waits (`mint`, `try_mint`) minted: it never answers `Wait`.
    #[inline]
    pub(crate) fn waited(self) -> T {
        match self {
            Attempt::Minted(minted) => minted,
            Attempt::Wait(_) => unreachable!("only a non-waiting reservation answers Wait"),
        }
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

/// A run minted under `on_full` (`Wait` or `Fail`), sleeping out a `Wait` answered anyway.
#[inline]
fn run_waited<G: Mint + ?Sized>(
    generator: &G,
    out: &mut [G::Id],
    on_full: OnFull,
) -> Result<usize> {
    loop {
        match generator.mint_run(out, on_full)? {
            Attempt::Minted(written) => return Ok(written),
            Attempt::Wait(wait) => std::thread::sleep(wait),
        }
    }
}

/// One ID minted under `on_full` (`Wait` or `Fail`), as a run of one.
#[inline]
fn first_of_run<G: Mint + ?Sized>(generator: &G, on_full: OnFull) -> Result<G::Id> {
    let mut id = [G::Id::default()];
    // A run of one writes its ID; asked again rather than answering a default ID.
    while run_waited(generator, &mut id, on_full)? == 0 {}
    Ok(id[0])
}

/// Implements [`Mint`] for a generator whose inherent methods have the trait's names and
/// signatures, beside the generator's type (this module names no generator): `mint_run` by
/// the batch methods, and each provided method overridden by the inherent method of its name,
/// so generic code compiles to the inherent code.
macro_rules! mint_by_inherent {
    (impl[$($params:tt)*] Mint<Id = $id:ty> for $generator:ty) => {
        impl<$($params)*> $crate::mint::Mint for $generator {
            type Id = $id;

            #[inline]
            fn mint_run(
                &self,
                out: &mut [$id],
                on_full: $crate::mint::OnFull,
            ) -> $crate::error::Result<$crate::mint::Attempt<usize>> {
                match on_full {
                    $crate::mint::OnFull::Wait => {
                        <$generator>::mint_batch(self, out).map($crate::mint::Attempt::Minted)
                    }
                    $crate::mint::OnFull::Fail => {
                        <$generator>::try_mint_batch(self, out).map($crate::mint::Attempt::Minted)
                    }
                    $crate::mint::OnFull::Answer => <$generator>::mint_batch_or_wait(self, out),
                }
            }

            #[inline]
            fn mint(&self) -> $crate::error::Result<$id> {
                <$generator>::mint(self)
            }

            #[inline]
            fn try_mint(&self) -> $crate::error::Result<$id> {
                <$generator>::try_mint(self)
            }

            #[inline]
            fn mint_batch(&self, out: &mut [$id]) -> $crate::error::Result<usize> {
                <$generator>::mint_batch(self, out)
            }

            #[inline]
            fn try_mint_batch(&self, out: &mut [$id]) -> $crate::error::Result<usize> {
                <$generator>::try_mint_batch(self, out)
            }

            #[inline]
            fn mint_or_wait(&self) -> $crate::error::Result<$crate::mint::Attempt<$id>> {
                <$generator>::mint_or_wait(self)
            }

            #[inline]
            fn mint_batch_or_wait(
                &self,
                out: &mut [$id],
            ) -> $crate::error::Result<$crate::mint::Attempt<usize>> {
                <$generator>::mint_batch_or_wait(self, out)
            }

            fn mint_many(&self, n: usize) -> $crate::error::Result<Vec<$id>> {
                <$generator>::mint_many(self, n)
            }
        }
    };
}
pub(crate) use mint_by_inherent;
