//! [`FamilyGenerator`]: a family's IDs from a 64-bit engine's state words.

use std::fmt;

use super::engine::Engine;
use super::map::Family;
use crate::error::Result;
use crate::generator::Generator;
use crate::layout::Layout;
use crate::mint::{Attempt, mint_many_by};

/// Mints the IDs of family `F` on a 64-bit generator `G`, lock-free when `G` is:
/// [`SnoGenerator`](crate::sno::SnoGenerator), [`Uuid7Generator`](crate::id128::Uuid7Generator)
/// and [`UlidGenerator`](crate::id128::UlidGenerator) name it.
///
/// `G` mints on the family's [`LAYOUT`](Self::LAYOUT); each of its state words becomes one ID
/// by the family's map (see each family's module). Built by a
/// [`FamilyBuilder`](super::FamilyBuilder):
///
/// - [`build`]: on a shared [`Generator`] (`Sync`, one compare-and-swap per ID).
/// - [`build_local`]: on a [`LocalGenerator`](crate::LocalGenerator) for one thread (`Send`,
///   not `Sync`; a load and a store per ID).
/// - [`build_sharded`]: on a [`ShardedGenerator`](crate::shard::ShardedGenerator) (each
///   minting thread on a shard of its own; a batch drops the rest of the thread's run of
///   single IDs, see [`mint_batch`](Self::mint_batch)).
///
/// [`build`]: super::FamilyBuilder::build
/// [`build_local`]: super::FamilyBuilder::build_local
/// [`build_sharded`]: super::FamilyBuilder::build_sharded
///
/// # Examples
///
/// ```
/// use snowmint::{id128::{UlidGenerator, Uuid7Generator}, sno::SnoGenerator};
///
/// let uuids = Uuid7Generator::builder().build()?;
/// let a = uuids.mint()?;
/// assert!(uuids.mint()? > a);
///
/// let ulids = UlidGenerator::builder().build_local()?;
/// let ids = ulids.mint_many(1_000)?;
/// assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
///
/// let snos = SnoGenerator::builder().partition(7).build()?;
/// assert_eq!(snos.mint()?.partition(), 7);
/// # Ok::<(), snowmint::Error>(())
/// ```
pub struct FamilyGenerator<F: Family, G: Engine = Generator> {
    pub(crate) engine: G,
    pub(crate) map: F::Map,
    /// What the family keeps to remember the current tick's first ID in (see [`Engine`]).
    pub(crate) memory: G::Memory,
}

// On the default engine only, so that `SnoGenerator::LAYOUT` names one constant.
impl<F: Family> FamilyGenerator<F> {
    /// The layout of the engine's state word: the family's.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{id128::Uuid7Generator, sno::{SnoGenerator, SnoId}};
    ///
    /// assert_eq!(Uuid7Generator::LAYOUT.max_sequence(), (1 << 22) - 1);
    ///
    /// let layout = SnoGenerator::LAYOUT;
    /// assert_eq!((layout.time_field().bits(), layout.time_field().shift()), (39, 17));
    /// assert_eq!(layout.tick_tock_field().map(|f| f.shift()), Some(16));
    /// assert_eq!(layout.max_sequence(), 65_535);
    /// assert_eq!(layout.max_unix_ms(), SnoId::MAX_UNIX_MS);
    /// ```
    pub const LAYOUT: Layout = F::LAYOUT;
}

impl<F: Family, G: Engine> FamilyGenerator<F, G> {
    /// The generator on `engine`, mapping its words with `map`.
    pub(super) fn on(engine: G, map: F::Map) -> Self {
        FamilyGenerator {
            memory: engine.memory(),
            engine,
            map,
        }
    }

    /// Mints the next ID, waiting for the next tick if this one's sequence is used up (or
    /// moving ahead, when borrowing).
    ///
    /// # Errors
    ///
    /// As [`Generator::mint`]: [`Error::ClockBehind`](crate::Error::ClockBehind) when the
    /// clock reads behind the last minted tick and the policy does not toggle or wait that
    /// long, [`Error::TimeOverflow`](crate::Error::TimeOverflow),
    /// [`Error::BeforeEpoch`](crate::Error::BeforeEpoch) or
    /// [`Error::EpochTick`](crate::Error::EpochTick) for a clock outside the layout's time
    /// range (2010-01-01T00:00:00.004Z to 2079-09-07T15:47:35.551Z for sno, 1970 to
    /// 2109-05-15T07:35:11.103Z for UUIDv7 and ULID),
    /// [`Error::LayoutExhausted`](crate::Error::LayoutExhausted) when the last tick is full,
    /// and [`Error::Forked`](crate::Error::Forked) in a forked child of the process that
    /// built the generator.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, id128::UlidGenerator};
    ///
    /// let generator = UlidGenerator::builder().clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// let (a, b) = (generator.mint()?, generator.mint()?);
    /// assert_eq!(b.to_u128(), a.to_u128() + 1); // one millisecond: a counter
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    ///
    /// sno IDs carry the generator's metabyte and partition:
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, sno::SnoGenerator};
    ///
    /// let clock = ManualClock::new(1_700_000_000_001);
    /// let generator = SnoGenerator::builder().partition(9).meta(200).clock(&clock).build()?;
    /// let id = generator.mint()?;
    /// assert_eq!(id.unix_ms(), 1_700_000_000_000);
    /// assert_eq!((id.timeline(), id.meta(), id.partition(), id.sequence()), (0, 200, 9, 0));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint(&self) -> Result<F> {
        let word = self.engine.next_word(true)?;
        Ok(F::id(&self.map, &self.engine.starts(&self.memory), word))
    }

    /// Mints the next ID, or fails if this tick's sequence is used up.
    ///
    /// # Errors
    ///
    /// [`Error::SequenceExhausted`](crate::Error::SequenceExhausted), saying how long until
    /// the next tick, and the errors of [`mint`](Self::mint).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, id128::Uuid7Generator};
    ///
    /// let generator = Uuid7Generator::builder().clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// assert_eq!(generator.try_mint()?.unix_ms(), 1_700_000_000_000);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    ///
    /// A sno generator's tick is 4 ms:
    ///
    /// ```
    /// use snowmint::{Error, clock::ManualClock, sno::SnoGenerator};
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = SnoGenerator::builder()
    ///     .partition(1)
    ///     .sequence_range(0..=3)
    ///     .clock(&clock)
    ///     .build()?;
    /// for _ in 0..4 {
    ///     generator.try_mint()?;
    /// }
    /// assert!(matches!(generator.try_mint(), Err(Error::SequenceExhausted { .. })));
    /// clock.advance(4);
    /// assert_eq!(generator.try_mint()?.sequence(), 0);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn try_mint(&self) -> Result<F> {
        let word = self.engine.next_word(false)?;
        Ok(F::id(&self.map, &self.engine.starts(&self.memory), word))
    }

    /// Mints up to `out.len()` consecutive IDs of one tick with one reservation, writes them
    /// to the front of `out` and returns how many (at least one unless `out` is empty),
    /// waiting for the next tick if this one is full. Strictly increasing; no allocation.
    ///
    /// On a sharded engine ([`build_sharded`](super::FamilyBuilder::build_sharded)), single
    /// mints hand out a run of IDs the calling thread reserved from its shard, and a batch is
    /// reserved from the shard after that run: it drops the rest of the run, whose IDs are
    /// never handed out, so the thread's IDs still increase. The other batch methods and
    /// [`mint_many`](Self::mint_many) do the same.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint). Nothing is written on error.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::{Uuid7, Uuid7Generator};
    ///
    /// let generator = Uuid7Generator::builder().build()?;
    /// let mut ids = [Uuid7::default(); 64];
    /// let n = generator.mint_batch(&mut ids)?;
    /// assert!(n >= 1 && ids[..n].windows(2).all(|pair| pair[0] < pair[1]));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    ///
    /// On a sharded engine, single mints and batches interleave in order:
    ///
    /// ```
    /// use snowmint::{id128::{Uuid7, Uuid7Generator}, shard::Shards};
    ///
    /// let generator = Uuid7Generator::builder().build_sharded(Shards::SplitSequence(2))?;
    /// let single = generator.mint()?;
    /// let mut ids = [Uuid7::default(); 8];
    /// let n = generator.mint_batch(&mut ids)?;
    /// assert!(single < ids[0] && ids[..n].windows(2).all(|pair| pair[0] < pair[1]));
    /// assert!(generator.mint()? > ids[n - 1]); // a new run, after the batch
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    ///
    /// sno:
    ///
    /// ```
    /// use snowmint::sno::{SnoGenerator, SnoId};
    ///
    /// let generator = SnoGenerator::builder().partition(1).build()?;
    /// let mut buffer = [SnoId::default(); 100];
    /// let written = generator.mint_batch(&mut buffer)?;
    /// assert!((1..=100).contains(&written));
    /// assert!(buffer[..written].windows(2).all(|pair| pair[0] < pair[1]));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint_batch(&self, out: &mut [F]) -> Result<usize> {
        self.batch(out, true)
    }

    /// [`mint_batch`](Self::mint_batch), failing with
    /// [`Error::SequenceExhausted`](crate::Error::SequenceExhausted) instead of waiting when
    /// this tick is full.
    ///
    /// # Errors
    ///
    /// As for [`try_mint`](Self::try_mint).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, id128::{Ulid, UlidGenerator}};
    ///
    /// let generator = UlidGenerator::builder().clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// let mut ids = [Ulid::default(); 8];
    /// assert_eq!(generator.try_mint_batch(&mut ids)?, 8);
    /// assert_eq!(ids[7].to_u128() - ids[0].to_u128(), 7);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, sno::{SnoGenerator, SnoId}};
    ///
    /// let generator = SnoGenerator::builder().partition(7).clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// let mut ids = vec![SnoId::default(); 70_000];
    /// assert_eq!(generator.try_mint_batch(&mut ids)?, 65_536); // one 4 ms unit's worth
    /// assert!(generator.try_mint_batch(&mut ids).is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn try_mint_batch(&self, out: &mut [F]) -> Result<usize> {
        self.batch(out, false)
    }

    /// Mints exactly `n` IDs, across as many ticks as they need, into a new `Vec`: one
    /// reservation per tick's worth, waiting for the clock when a tick is full.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint), and [`Error::TooLarge`](crate::Error::TooLarge) when `n`
    /// IDs cannot be allocated. The IDs reserved before an error are never handed out.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{id128::UlidGenerator, shard::Shards, sno::SnoGenerator};
    ///
    /// let generator = UlidGenerator::builder().build_sharded(Shards::SplitSequence(2))?;
    /// let ids = generator.mint_many(10_000)?;
    /// assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    ///
    /// let generator = SnoGenerator::builder().partition(1).build()?;
    /// let ids = generator.mint_many(100_000)?; // more than one 4 ms unit holds
    /// assert_eq!(ids.len(), 100_000);
    /// assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn mint_many(&self, n: usize) -> Result<Vec<F>> {
        mint_many_by(n, |out| self.mint_batch(out))
    }

    /// Mints the next ID without ever waiting: the ID, or how long to wait before one can be
    /// minted (a full tick, or a clock behind within the [`ClockBehind`](crate::ClockBehind)
    /// policy's bound). The async methods mint this way.
    ///
    /// # Errors
    ///
    /// As [`Generator::mint_or_wait`]: a clock behind beyond the policy's bound, a clock
    /// outside the layout's time range, a generator used in a forked child.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Attempt, clock::ManualClock, id128::UlidGenerator};
    ///
    /// let generator = UlidGenerator::builder().clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// let Attempt::Minted(id) = generator.mint_or_wait()? else { unreachable!() };
    /// assert_eq!(id.unix_ms(), 1_700_000_000_000);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    ///
    /// ```
    /// use snowmint::{Attempt, clock::ManualClock, sno::SnoGenerator};
    /// use std::time::Duration;
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = SnoGenerator::builder().partition(1).sequence_range(0..=1).clock(&clock).build()?;
    /// assert!(generator.mint_or_wait()?.minted().is_some());
    /// assert!(generator.mint_or_wait()?.minted().is_some());
    /// clock.advance(1);
    /// assert_eq!(generator.mint_or_wait()?, Attempt::Wait(Duration::from_millis(3))); // 4 ms units
    /// clock.advance(3);
    /// assert_eq!(generator.mint_or_wait()?.minted().map(|id| id.sequence()), Some(0));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint_or_wait(&self) -> Result<Attempt<F>> {
        Ok(self
            .engine
            .word_or_wait()?
            .map(|word| F::id(&self.map, &self.engine.starts(&self.memory), word)))
    }

    /// [`mint_batch`](Self::mint_batch) without ever waiting: how many IDs were written, or
    /// how long to wait before any can be.
    ///
    /// # Errors
    ///
    /// As for [`mint_or_wait`](Self::mint_or_wait). Nothing is written on error or on a wait.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Attempt, clock::ManualClock, id128::{Uuid7, Uuid7Generator}};
    ///
    /// let generator = Uuid7Generator::builder().clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// let mut ids = [Uuid7::default(); 4];
    /// assert_eq!(generator.mint_batch_or_wait(&mut ids)?, Attempt::Minted(4));
    /// assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    ///
    /// ```
    /// use snowmint::{Attempt, clock::ManualClock, sno::{SnoGenerator, SnoId}};
    /// use std::time::Duration;
    ///
    /// let generator = SnoGenerator::builder().partition(7).clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// let mut ids = vec![SnoId::default(); 70_000];
    /// assert_eq!(generator.mint_batch_or_wait(&mut ids)?, Attempt::Minted(65_536));
    /// assert_eq!(generator.mint_batch_or_wait(&mut ids)?, Attempt::Wait(Duration::from_millis(4)));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint_batch_or_wait(&self, out: &mut [F]) -> Result<Attempt<usize>> {
        if out.is_empty() {
            return Ok(Attempt::Minted(0));
        }
        let attempt = self.engine.reserve_words_or_wait(out.len() as u64)?;
        Ok(attempt.map(|(first, count)| self.fill(out, first, count)))
    }

    /// The 64-bit generator underneath: its clock, its counters ([`Generator::stats`]).
    /// Minting from it directly uses up state words the family's IDs would have used; it
    /// never makes them repeat.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, id128::Uuid7Generator, sno::SnoGenerator};
    ///
    /// let generator = Uuid7Generator::builder().clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// generator.engine().clock().advance(5);
    /// assert_eq!(generator.mint()?.unix_ms(), 1_700_000_000_005);
    /// assert_eq!(generator.engine().stats().overflows, 0);
    ///
    /// let generator = SnoGenerator::builder().partition(7).clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// while generator.try_mint().is_ok() {}
    /// assert_eq!(generator.engine().stats().overflows, 1);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn engine(&self) -> &G {
        &self.engine
    }

    #[inline(always)]
    fn batch(&self, out: &mut [F], wait: bool) -> Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let (first, count) = self.engine.reserve_words(out.len() as u64, wait)?;
        Ok(self.fill(out, first, count))
    }

    /// Writes the IDs of the `count` state words from `first` to the front of `out`, and
    /// returns how many.
    #[inline(always)]
    fn fill(&self, out: &mut [F], first: u64, count: u64) -> usize {
        // `count <= out.len()`, and the run's sequence values stay inside the field.
        F::fill(
            &self.map,
            &self.engine.starts(&self.memory),
            &mut out[..count as usize],
            first,
        );
        count as usize
    }
}

crate::mint::mint_by_inherent!(impl[F: Family, G: Engine] Mint<Id = F> for FamilyGenerator<F, G>);

impl<F: Family, G: Engine + fmt::Debug> fmt::Debug for FamilyGenerator<F, G> {
    /// The engine and what the family shows of its map (a 128-bit generator's key never).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut fields = f.debug_struct(F::GENERATOR);
        F::fmt_map(&self.map, &mut fields);
        fields.field("engine", &self.engine).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LocalGenerator;
    use crate::id128::{Ulid, Uuid7};
    use crate::shard::ShardedGenerator;
    use crate::sno::SnoId;

    /// Generic code over the families can share a generator between threads, as over one
    /// family: the map is `Send + Sync`, and only an engine one thread owns is not `Sync`.
    fn threads_can_share<F: Family>() {
        fn send_sync<T: Send + Sync>() {}
        fn send<T: Send>() {}
        send_sync::<FamilyGenerator<F>>();
        send_sync::<FamilyGenerator<F, ShardedGenerator>>();
        send::<FamilyGenerator<F, LocalGenerator>>();
    }

    #[test]
    fn shared_and_sharded_family_generators_are_send_and_sync() {
        threads_can_share::<SnoId>();
        threads_can_share::<Uuid7>();
        threads_can_share::<Ulid>();
    }
}
