//! [`Id128Generator`]: UUIDv7s and ULIDs from a 64-bit generator's `(millisecond, sequence)`.

use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;
use std::sync::mpsc::SyncSender;

use super::seed::Key;
use super::{Ulid, Uuid7};
use crate::clock::{Clock, DefaultClock};
use crate::error::Result;
use crate::generator::{ClockBehind, Event, Generator, GeneratorBuilder, LocalState, SharedState};
use crate::layout::Layout;
use crate::mint::{Mint, mint_many_by};
use crate::shard::{ShardedGenerator, Shards};

/// The 64-bit layout every 128-bit generator mints on: 42 bits of Unix milliseconds from
/// 1970 (to 2109-05-15T07:35:11.103Z) and a 22-bit sequence, no node bits.
pub(crate) const LAYOUT: Layout = Layout::builder("id128", 64)
    .time(42)
    .sequence(SEQUENCE_BITS as u8)
    .build_const();

/// The width of the engine's sequence: what a millisecond's random start is counted up by.
const SEQUENCE_BITS: u32 = 22;
const SEQUENCE_MASK: u64 = (1 << SEQUENCE_BITS) - 1;

/// An ID family a 128-bit generator mints: [`Uuid7`] or [`Ulid`]. Sealed.
pub trait Kind: sealed::Kind {}

/// The 64-bit generator a 128-bit generator mints on: a shared [`Generator`], a
/// [`LocalGenerator`](crate::LocalGenerator) or a [`ShardedGenerator`]. Sealed.
pub trait Engine: sealed::Engine {}

pub(crate) mod sealed {
    use super::Key;
    use crate::error::Result;

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
    }

    /// A memory of each millisecond's first ID, keyed by millisecond.
    pub trait Starts: Default {
        /// The bits of the ID of millisecond `ms` and sequence 0 under `key`.
        fn get<K: super::Kind>(&self, key: &Key, ms: u64) -> u128;
    }
}

use sealed::Starts;

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
    fn get<K: Kind>(&self, key: &Key, ms: u64) -> u128 {
        K::base(ms, key.seed(ms))
    }
}

/// The last millisecond and its first ID, for an engine one thread owns.
#[derive(Debug)]
pub struct Last(Cell<(u64, u128)>);

impl Default for Last {
    fn default() -> Last {
        // No engine millisecond reaches u64::MAX: the first `get` computes.
        Last(Cell::new((u64::MAX, 0)))
    }
}

impl Starts for Last {
    #[inline(always)]
    fn get<K: Kind>(&self, key: &Key, ms: u64) -> u128 {
        let (last, base) = self.0.get();
        if last == ms {
            return base;
        }
        self.compute::<K>(key, ms)
    }
}

impl Last {
    /// A new millisecond's first ID, remembered.
    #[cold]
    #[inline(never)]
    fn compute<K: Kind>(&self, key: &Key, ms: u64) -> u128 {
        let base = K::base(ms, key.seed(ms));
        self.0.set((ms, base));
        base
    }
}

impl<C: Clock> Engine for Generator<C, SharedState> {}
impl<C: Clock> sealed::Engine for Generator<C, SharedState> {
    type Starts = Fresh;
    #[inline(always)]
    fn next_word(&self, wait: bool) -> Result<u64> {
        let id = if wait { self.mint() } else { self.try_mint() };
        id.map(|id| id.to_u64())
    }
    #[inline(always)]
    fn reserve_words(&self, want: u64, wait: bool) -> Result<(u64, u64)> {
        self.reserve_states(want, wait)
    }
}

impl<C: Clock> Engine for Generator<C, LocalState> {}
impl<C: Clock> sealed::Engine for Generator<C, LocalState> {
    type Starts = Last;
    #[inline(always)]
    fn next_word(&self, wait: bool) -> Result<u64> {
        let id = if wait { self.mint() } else { self.try_mint() };
        id.map(|id| id.to_u64())
    }
    #[inline(always)]
    fn reserve_words(&self, want: u64, wait: bool) -> Result<(u64, u64)> {
        self.reserve_states(want, wait)
    }
}

impl<C: Clock> Engine for ShardedGenerator<C> {}
impl<C: Clock> sealed::Engine for ShardedGenerator<C> {
    type Starts = Fresh;
    #[inline(always)]
    fn next_word(&self, wait: bool) -> Result<u64> {
        let id = if wait { self.mint() } else { self.try_mint() };
        id.map(|id| id.to_u64())
    }
    #[inline(always)]
    fn reserve_words(&self, want: u64, wait: bool) -> Result<(u64, u64)> {
        self.local().reserve_states(want, wait)
    }
}

/// Mints 128-bit time-ordered IDs ([`Uuid7`] or [`Ulid`]) on a 64-bit generator `G`, lock-free
/// when `G` is: [`Uuid7Generator`] and [`UlidGenerator`] name it.
///
/// `G` mints on a fixed layout of 42 bits of Unix milliseconds and a 22-bit sequence; each
/// 64-bit state `(ms, seq)` becomes the ID of millisecond `ms` whose random part is
/// `start(ms) + seq`, where `start(ms)` is a keyed mix of `ms` under the generator's 128-bit
/// key (from the operating system, drawn at [`build`](Id128Builder::build)) less one bit, so
/// that adding a sequence never carries out of the random part. The random part is then
/// a randomly started counter, stepped by one within a millisecond and started afresh at the
/// next: RFC 9562 §6.2's Method 2 for UUIDv7 (74 bits, `rand_a` and `rand_b`), the ULID
/// specification's monotonic increment for ULIDs (80 bits). See the [module](super) for the
/// guarantees and the clock's cases.
///
/// - [`build`](Id128Builder::build): on a shared [`Generator`] (`Sync`, one compare-and-swap
///   per ID).
/// - [`build_local`](Id128Builder::build_local): on a [`LocalGenerator`](crate::LocalGenerator)
///   for one thread (`Send`, not `Sync`; a load and a store per ID, and the millisecond's start
///   remembered).
/// - [`build_sharded`](Id128Builder::build_sharded): on a [`ShardedGenerator`] (each minting
///   thread on a shard of its own).
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

/// Configures an [`Id128Generator`]: clock, clock-behind policy, borrowing, events.
///
/// # Examples
///
/// ```
/// use snowmint::{ClockBehind, clock::ManualClock, id128::Uuid7Generator};
///
/// let generator = Uuid7Generator::builder()
///     .clock(ManualClock::new(1_700_000_000_000))
///     .on_clock_behind(ClockBehind::Error)
///     .build()?;
/// assert_eq!(generator.mint()?.unix_ms(), 1_700_000_000_000);
/// # Ok::<(), snowmint::Error>(())
/// ```
#[must_use]
pub struct Id128Builder<K, C = DefaultClock> {
    inner: GeneratorBuilder<C>,
    kind: PhantomData<fn() -> K>,
}

impl<K: Kind> Id128Generator<K> {
    /// Starts configuring a generator: the process-wide
    /// [`CachedClock`](crate::clock::CachedClock), [`ClockBehind::default`], no borrowing.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::UlidGenerator;
    ///
    /// let generator = UlidGenerator::builder().build()?;
    /// assert!(generator.mint()?.unix_ms() > 1_700_000_000_000);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn builder() -> Id128Builder<K> {
        Id128Builder {
            inner: Generator::builder(LAYOUT),
            kind: PhantomData,
        }
    }
}

impl<K, C> Id128Builder<K, C> {
    /// Uses `clock` instead of the process-wide [`CachedClock`](crate::clock::CachedClock).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, id128::UlidGenerator};
    ///
    /// let generator = UlidGenerator::builder().clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// assert_eq!(generator.mint()?.unix_ms(), 1_700_000_000_000);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn clock<D: Clock>(self, clock: D) -> Id128Builder<K, D> {
        Id128Builder {
            inner: self.inner.clock(clock),
            kind: PhantomData,
        }
    }

    /// Sets what to do when the clock reads behind the last minted millisecond:
    /// [`ClockBehind::Wait`] (the default, bounded) or [`ClockBehind::Error`]. The layout has
    /// no tick-tock bit, so [`ClockBehind::TickTock`] fails to build.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{ClockBehind, Error, clock::ManualClock, id128::Uuid7Generator};
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = Uuid7Generator::builder()
    ///     .clock(&clock)
    ///     .on_clock_behind(ClockBehind::Error)
    ///     .build()?;
    /// generator.mint()?;
    /// clock.set(1_699_999_999_000);
    /// assert!(matches!(generator.mint(), Err(Error::ClockBehind { behind_ms: 1_000, .. })));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn on_clock_behind(mut self, policy: ClockBehind) -> Self {
        self.inner = self.inner.on_clock_behind(policy);
        self
    }

    /// Lets a full millisecond (4,194,304 IDs) move on to the next one ahead of the clock, by
    /// at most `ms` milliseconds, instead of waiting: the IDs' times then run up to `ms` ahead
    /// of the clock, which RFC 9562 allows. Off (0) by default; see
    /// [`GeneratorBuilder::borrow_ahead`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, id128::UlidGenerator};
    ///
    /// let generator = UlidGenerator::builder()
    ///     .clock(ManualClock::new(1_700_000_000_000))
    ///     .borrow_ahead(1)
    ///     .build()?;
    /// let ids = generator.mint_many(5_000_000)?; // more than one millisecond holds
    /// assert_eq!(ids[4_999_999].unix_ms(), 1_700_000_000_001);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn borrow_ahead(mut self, ms: u64) -> Self {
        self.inner = self.inner.borrow_ahead(ms);
        self
    }

    /// Sends an [`Event`] when a thread stalls on a full millisecond and when the clock goes
    /// back; see [`GeneratorBuilder::notify`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{ClockBehind, clock::ManualClock, generator::Event, id128::UlidGenerator};
    /// use std::sync::mpsc;
    ///
    /// let (tx, rx) = mpsc::sync_channel(4);
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = UlidGenerator::builder()
    ///     .clock(&clock)
    ///     .on_clock_behind(ClockBehind::Error)
    ///     .notify(tx)
    ///     .build()?;
    /// generator.mint()?;
    /// clock.set(1_699_999_999_990);
    /// assert!(generator.mint().is_err());
    /// assert!(matches!(rx.try_recv(), Ok(Event::Regression { .. })));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn notify(mut self, events: SyncSender<Event>) -> Self {
        self.inner = self.inner.notify(events);
        self
    }
}

impl<K: Kind, C: Clock> Id128Builder<K, C> {
    /// Validates the configuration, draws a key and builds a generator on a shared
    /// [`Generator`], for any number of threads.
    ///
    /// # Errors
    ///
    /// [`Error::TickTockUnsupported`](crate::Error::TickTockUnsupported) for the tick-tock
    /// policy, and [`Error::RandomSource`](crate::Error::RandomSource) when the operating
    /// system gives no random bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{ClockBehind, id128::Uuid7Generator};
    ///
    /// assert!(Uuid7Generator::builder().build()?.mint().is_ok());
    /// let tick_tock = ClockBehind::TickTock { max_ms: 10 };
    /// assert!(Uuid7Generator::builder().on_clock_behind(tick_tock).build().is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn build(self) -> Result<Id128Generator<K, Generator<C>>> {
        Id128Generator::on(self.inner.build()?.named(K::GENERATOR))
    }

    /// Validates the configuration, draws a key and builds a generator for one thread, on a
    /// [`LocalGenerator`](crate::LocalGenerator): `Send`, not `Sync`.
    ///
    /// # Errors
    ///
    /// As for [`build`](Self::build).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::UlidGenerator;
    ///
    /// let generator = UlidGenerator::builder().build_local()?;
    /// let a = generator.mint()?;
    /// assert!(generator.mint()? > a);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn build_local(self) -> Result<Id128Generator<K, Generator<C, LocalState>>> {
        Id128Generator::on(self.inner.build_local()?.named(K::GENERATOR))
    }

    /// Validates the configuration, draws a key and builds a generator on a
    /// [`ShardedGenerator`] of `shards` shards, each with its share of every millisecond's
    /// sequence ([`Shards::SplitSequence`]): for many threads minting at once.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShards`](crate::Error::InvalidShards) for 0 shards or more than
    /// [`MAX_PARTS`](crate::shard::MAX_PARTS), and the errors of [`build`](Self::build).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Uuid7Generator;
    ///
    /// let generator = Uuid7Generator::builder().build_sharded(4)?;
    /// let a = generator.mint()?;
    /// assert!(generator.mint()? > a); // one thread, one shard
    /// assert!(Uuid7Generator::builder().build_sharded(0).is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn build_sharded(self, shards: usize) -> Result<Id128Generator<K, ShardedGenerator<C>>> {
        Id128Generator::on(self.inner.build_sharded(Shards::SplitSequence(shards))?)
    }
}

impl<K: Kind, G: Engine> Id128Generator<K, G> {
    /// The generator on `engine`, with a key of its own.
    fn on(engine: G) -> Result<Self> {
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
        let base = self.starts.get::<K>(&self.key, word >> SEQUENCE_BITS);
        K::from_bits(base + u128::from(word & SEQUENCE_MASK))
    }

    #[inline(always)]
    fn batch(&self, out: &mut [K], wait: bool) -> Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let (first, count) = self.engine.reserve_words(out.len() as u64, wait)?;
        let base = self.starts.get::<K>(&self.key, first >> SEQUENCE_BITS);
        let first = base + u128::from(first & SEQUENCE_MASK);
        // `count <= out.len()`, and the run's sequence values stay inside the field.
        for (slot, bits) in out[..count as usize].iter_mut().zip(first..) {
            *slot = K::from_bits(bits);
        }
        Ok(count as usize)
    }
}

impl<K: Kind, G: Engine> Mint for Id128Generator<K, G> {
    type Id = K;

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

impl<K: Kind, C: fmt::Debug> fmt::Debug for Id128Builder<K, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Id128Builder")
            .field("kind", &K::GENERATOR)
            .field("inner", &self.inner)
            .finish()
    }
}

impl<K, C: Clone> Clone for Id128Builder<K, C> {
    fn clone(&self) -> Self {
        Id128Builder {
            inner: self.inner.clone(),
            kind: PhantomData,
        }
    }
}

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

    #[test]
    fn a_first_id_plus_any_sequence_stays_in_its_millisecond_and_field() {
        let ulids = UlidGenerator::builder().build().unwrap();
        let uuids = Uuid7Generator::builder().build().unwrap();
        for ms in [1, 1_700_000_000_000, LAYOUT.max_unix_ms()] {
            let base = ulids.starts.get::<Ulid>(&ulids.key, ms);
            let last = Ulid::from_u128(base + u128::from(SEQUENCE_MASK));
            assert_eq!(last.unix_ms(), ms);
            assert_eq!(
                last.random() - Ulid::from_u128(base).random(),
                u128::from(SEQUENCE_MASK)
            );
            let base = uuids.starts.get::<Uuid7>(&uuids.key, ms);
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
        assert_eq!(generator.starts.get::<Ulid>(&generator.key, ms), fresh);
        assert_eq!(generator.starts.0.get(), (ms, fresh));
        assert_eq!(generator.starts.get::<Ulid>(&generator.key, ms), fresh);
    }
}
