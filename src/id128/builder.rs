//! [`Id128Builder`]: a 128-bit generator's configuration, validated at build.

use std::fmt;
use std::marker::PhantomData;
use std::sync::mpsc::SyncSender;

use super::engine::{Kind, LAYOUT};
use super::generator::Id128Generator;
use crate::clock::{Clock, DefaultClock};
use crate::error::Result;
use crate::generator::{ClockBehind, Event, Generator, GeneratorBuilder, LocalState};
use crate::shard::{ShardedGenerator, Shards};

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
        let engine = self.inner.build_sharded(Shards::SplitSequence(shards))?;
        Id128Generator::on(engine.named(K::GENERATOR))
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
