//! [`Id128Generator`]: UUIDv7s and ULIDs from a 64-bit generator's `(millisecond, sequence)`.

use std::fmt;
use std::marker::PhantomData;

use super::engine::{Engine, Kind, Starts};
use super::seed::Key;
use super::{Ulid, Uuid7};
use crate::error::Result;
use crate::generator::Generator;
use crate::mint::{Attempt, Mint, mint_many_by};

/// Mints 128-bit time-ordered IDs ([`Uuid7`] or [`Ulid`]) on a 64-bit generator `G`, lock-free
/// when `G` is: [`Uuid7Generator`] and [`UlidGenerator`] name it.
///
/// `G` mints on a fixed layout of 42 bits of Unix milliseconds and a 22-bit sequence; each
/// 64-bit state `(ms, seq)` becomes the ID of millisecond `ms` whose random part is
/// `start(ms) + seq`, where `start(ms)` is a keyed mix of `ms` under the generator's 128-bit
/// key (from the operating system, drawn at [`build`]) less one bit, so that adding a
/// sequence never carries out of the random part. The random part is then a randomly started
/// counter, stepped by one within a millisecond and started afresh at the next: RFC 9562
/// §6.2's Method 2 for UUIDv7 (74 bits, `rand_a` and `rand_b`), the ULID specification's
/// monotonic increment for ULIDs (80 bits). See the [module](super) for the guarantees and
/// the clock's cases.
///
/// - [`build`]: on a shared [`Generator`] (`Sync`, one compare-and-swap per ID).
/// - [`build_local`]: on a [`LocalGenerator`](crate::LocalGenerator) for one thread (`Send`,
///   not `Sync`; a load and a store per ID, and the millisecond's first ID remembered).
/// - [`build_sharded`]: on a [`ShardedGenerator`](crate::shard::ShardedGenerator) (each
///   minting thread on a shard of its own; a batch drops the rest of the thread's run of
///   single IDs, see [`mint_batch`](Self::mint_batch)).
///
/// [`build`]: super::Id128Builder::build
/// [`build_local`]: super::Id128Builder::build_local
/// [`build_sharded`]: super::Id128Builder::build_sharded
///
/// # Examples
///
/// ```
/// use snowmint::id128::{Uuid7Generator, UlidGenerator};
///
/// let uuids = Uuid7Generator::builder().build()?;
/// let a = uuids.mint()?;
/// assert!(uuids.mint()? > a);
///
/// let ulids = UlidGenerator::builder().build_local()?;
/// let ids = ulids.mint_many(1_000)?;
/// assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
/// # Ok::<(), snowmint::Error>(())
/// ```
pub struct Id128Generator<K, G: Engine = Generator> {
    engine: G,
    key: Key,
    starts: G::Starts,
    kind: PhantomData<fn() -> K>,
}

/// Mints [`Uuid7`]s on the 64-bit generator `G`: see [`Id128Generator`].
///
/// # Examples
///
/// ```
/// use snowmint::id128::Uuid7Generator;
///
/// let generator = Uuid7Generator::builder().build()?;
/// assert_eq!(generator.mint()?.to_bytes()[6] >> 4, 7); // the version
/// # Ok::<(), snowmint::Error>(())
/// ```
pub type Uuid7Generator<G = Generator> = Id128Generator<Uuid7, G>;

/// Mints [`Ulid`]s on the 64-bit generator `G`: see [`Id128Generator`].
///
/// # Examples
///
/// ```
/// use snowmint::id128::UlidGenerator;
///
/// let generator = UlidGenerator::builder().build()?;
/// assert_eq!(generator.mint()?.to_string().len(), 26);
/// # Ok::<(), snowmint::Error>(())
/// ```
pub type UlidGenerator<G = Generator> = Id128Generator<Ulid, G>;

impl<K: Kind, G: Engine> Id128Generator<K, G> {
    /// The generator on `engine`, with a key of its own.
    pub(super) fn on(engine: G) -> Result<Self> {
        Ok(Id128Generator {
            engine,
            key: Key::from_os()?,
            starts: G::Starts::default(),
            kind: PhantomData,
        })
    }

    /// Mints the next ID, waiting for the next millisecond if this one's 4,194,304 are used
    /// up (or moving ahead, when borrowing).
    ///
    /// # Errors
    ///
    /// As [`Generator::mint`]: [`Error::ClockBehind`](crate::Error::ClockBehind) when the
    /// clock reads behind the last minted millisecond and the policy does not wait that long,
    /// [`Error::TimeOverflow`](crate::Error::TimeOverflow) past 2109-05-15T07:35:11.103Z (the
    /// engine's 42 bits of milliseconds), and [`Error::Forked`](crate::Error::Forked) in a
    /// forked child of the process that built the generator.
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
    #[inline]
    pub fn mint(&self) -> Result<K> {
        let word = self.engine.next_word(true)?;
        Ok(self.assemble(word))
    }

    /// Mints the next ID, or fails if this millisecond's IDs are used up.
    ///
    /// # Errors
    ///
    /// [`Error::SequenceExhausted`](crate::Error::SequenceExhausted), saying how long until
    /// the next millisecond, and the errors of [`mint`](Self::mint).
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
    #[inline]
    pub fn try_mint(&self) -> Result<K> {
        let word = self.engine.next_word(false)?;
        Ok(self.assemble(word))
    }

    /// Mints up to `out.len()` consecutive IDs of one millisecond with one reservation,
    /// writes them to the front of `out` and returns how many (at least one unless `out` is
    /// empty), waiting for the next millisecond if this one is full.
    ///
    /// On a sharded engine ([`build_sharded`](super::Id128Builder::build_sharded)), single
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
    /// use snowmint::id128::{Uuid7, Uuid7Generator};
    ///
    /// let generator = Uuid7Generator::builder().build_sharded(2)?;
    /// let single = generator.mint()?;
    /// let mut ids = [Uuid7::default(); 8];
    /// let n = generator.mint_batch(&mut ids)?;
    /// assert!(single < ids[0] && ids[..n].windows(2).all(|pair| pair[0] < pair[1]));
    /// assert!(generator.mint()? > ids[n - 1]); // a new run, after the batch
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint_batch(&self, out: &mut [K]) -> Result<usize> {
        self.batch(out, true)
    }

    /// [`mint_batch`](Self::mint_batch), failing with
    /// [`Error::SequenceExhausted`](crate::Error::SequenceExhausted) instead of waiting when
    /// this millisecond is full.
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
    #[inline]
    pub fn try_mint_batch(&self, out: &mut [K]) -> Result<usize> {
        self.batch(out, false)
    }

    /// Mints exactly `n` IDs, across as many milliseconds as they need, into a new `Vec`.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint), and [`Error::TooLarge`](crate::Error::TooLarge) when `n`
    /// IDs cannot be allocated. The IDs reserved before an error are never handed out.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::UlidGenerator;
    ///
    /// let generator = UlidGenerator::builder().build_sharded(2)?;
    /// let ids = generator.mint_many(10_000)?;
    /// assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn mint_many(&self, n: usize) -> Result<Vec<K>> {
        mint_many_by(n, |out| self.mint_batch(out))
    }

    /// Mints the next ID without ever waiting: the ID, or how long to wait before one can be
    /// minted (a full millisecond, or a clock behind within the
    /// [`ClockBehind`](crate::ClockBehind) policy's bound). The async methods mint this way.
    ///
    /// # Errors
    ///
    /// As [`Generator::mint_or_wait`]: a clock behind beyond the policy's bound, a clock past
    /// the year 2109, a generator used in a forked child.
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
    #[inline]
    pub fn mint_or_wait(&self) -> Result<Attempt<K>> {
        Ok(self.engine.word_or_wait()?.map(|word| self.assemble(word)))
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
    #[inline]
    pub fn mint_batch_or_wait(&self, out: &mut [K]) -> Result<Attempt<usize>> {
        if out.is_empty() {
            return Ok(Attempt::Minted(0));
        }
        let (first, count) = match self.engine.reserve_words_or_wait(out.len() as u64)? {
            Attempt::Minted(run) => run,
            Attempt::Wait(wait) => return Ok(Attempt::Wait(wait)),
        };
        Ok(Attempt::Minted(self.fill(out, first, count)))
    }

    /// The 64-bit generator underneath: its clock, its counters
    /// ([`Generator::stats`]). Minting from it directly uses up sequence values the 128-bit
    /// IDs would have used; it never makes them repeat.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, id128::Uuid7Generator};
    ///
    /// let generator = Uuid7Generator::builder().clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// generator.engine().clock().advance(5);
    /// assert_eq!(generator.mint()?.unix_ms(), 1_700_000_000_005);
    /// assert_eq!(generator.engine().stats().overflows, 0);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn engine(&self) -> &G {
        &self.engine
    }

    /// The ID of state word `word`: its millisecond's first ID plus its sequence, which no
    /// carry takes out of the random part (see [`Kind`]).
    #[inline(always)]
    fn assemble(&self, word: u64) -> K {
        K::from_bits(self.starts.id::<K>(&self.key, word))
    }

    #[inline(always)]
    fn batch(&self, out: &mut [K], wait: bool) -> Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let (first, count) = self.engine.reserve_words(out.len() as u64, wait)?;
        Ok(self.fill(out, first, count))
    }

    /// Writes the IDs of the `count` state words from `first` to the front of `out`.
    #[inline(always)]
    fn fill(&self, out: &mut [K], first: u64, count: u64) -> usize {
        let first = self.starts.id::<K>(&self.key, first);
        // `count <= out.len()`, and the run's sequence values stay inside the field.
        for (slot, bits) in out[..count as usize].iter_mut().zip(first..) {
            *slot = K::from_bits(bits);
        }
        count as usize
    }
}

impl<K: Kind, G: Engine> Mint for Id128Generator<K, G> {
    type Id = K;

    #[inline]
    fn mint_run(&self, out: &mut [K], on_full: crate::mint::OnFull) -> Result<Attempt<usize>> {
        match on_full {
            crate::mint::OnFull::Wait => self.mint_batch(out).map(Attempt::Minted),
            crate::mint::OnFull::Fail => self.try_mint_batch(out).map(Attempt::Minted),
            crate::mint::OnFull::Answer => self.mint_batch_or_wait(out),
        }
    }

    #[inline]
    fn mint(&self) -> Result<K> {
        Id128Generator::mint(self)
    }

    #[inline]
    fn try_mint(&self) -> Result<K> {
        Id128Generator::try_mint(self)
    }

    #[inline]
    fn mint_batch(&self, out: &mut [K]) -> Result<usize> {
        Id128Generator::mint_batch(self, out)
    }

    #[inline]
    fn try_mint_batch(&self, out: &mut [K]) -> Result<usize> {
        Id128Generator::try_mint_batch(self, out)
    }

    #[inline]
    fn mint_or_wait(&self) -> Result<Attempt<K>> {
        Id128Generator::mint_or_wait(self)
    }

    #[inline]
    fn mint_batch_or_wait(&self, out: &mut [K]) -> Result<Attempt<usize>> {
        Id128Generator::mint_batch_or_wait(self, out)
    }

    fn mint_many(&self, n: usize) -> Result<Vec<K>> {
        Id128Generator::mint_many(self, n)
    }
}

impl<K: Kind, G: Engine + fmt::Debug> fmt::Debug for Id128Generator<K, G> {
    /// The engine; never the key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(K::GENERATOR)
            .field("engine", &self.engine)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id128::engine::{LAYOUT, SEQUENCE_BITS, SEQUENCE_MASK, sealed};
    use crate::id128::{UlidGenerator, Uuid7Generator};

    #[test]
    fn a_first_id_plus_any_sequence_stays_in_its_millisecond_and_field() {
        let ulids = UlidGenerator::builder().build().unwrap();
        let uuids = Uuid7Generator::builder().build().unwrap();
        for ms in [1, 1_700_000_000_000, LAYOUT.max_unix_ms()] {
            let base = ulids.starts.id::<Ulid>(&ulids.key, ms << SEQUENCE_BITS);
            let last = Ulid::from_u128(base + u128::from(SEQUENCE_MASK));
            assert_eq!(last.unix_ms(), ms);
            assert_eq!(
                last.random() - Ulid::from_u128(base).random(),
                u128::from(SEQUENCE_MASK)
            );
            let base = uuids.starts.id::<Uuid7>(&uuids.key, ms << SEQUENCE_BITS);
            let (first, last) = (
                Uuid7::from_bits(base),
                Uuid7::from_bits(base + u128::from(SEQUENCE_MASK)),
            );
            assert_eq!(last.unix_ms(), ms);
            assert_eq!(last.random() - first.random(), u128::from(SEQUENCE_MASK));
            assert_eq!(
                Uuid7::from_u128(last.to_u128()),
                Ok(last),
                "version and variant intact"
            );
        }
        // Whatever the seed.
        for seed in [0, u128::MAX] {
            let last = <Uuid7 as sealed::Kind>::base(7, seed) + u128::from(SEQUENCE_MASK);
            assert_eq!(Uuid7::from_u128(last).map(|id| id.unix_ms()), Ok(7));
            let last = <Ulid as sealed::Kind>::base(7, seed) + u128::from(SEQUENCE_MASK);
            assert_eq!(Ulid::from_u128(last).unix_ms(), 7);
        }
    }

    #[test]
    fn a_local_generator_remembers_the_first_id_it_computes() {
        let generator = UlidGenerator::builder().build_local().unwrap();
        let ms = 1_700_000_000_000;
        let fresh = <Ulid as sealed::Kind>::base(ms, generator.key.seed(ms));
        let word = ms << SEQUENCE_BITS;
        assert_eq!(
            generator.starts.id::<Ulid>(&generator.key, word + 5),
            fresh + 5
        );
        assert_eq!(generator.starts.0.get(), (word, fresh));
        assert_eq!(generator.starts.id::<Ulid>(&generator.key, word), fresh);
        assert_eq!(
            generator
                .starts
                .id::<Ulid>(&generator.key, word + (1 << SEQUENCE_BITS))
                >> 80,
            u128::from(ms + 1)
        );
    }
}
