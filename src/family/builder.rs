//! [`FamilyBuilder`]: a family generator's configuration, validated at build.

use std::fmt;
use std::sync::mpsc::SyncSender;

use super::generator::FamilyGenerator;
use super::map::Family;
use crate::clock::{Clock, DefaultClock};
use crate::error::{Error, Result};
use crate::generator::{ClockBehind, Event, Generator, GeneratorBuilder, LocalState};
use crate::shard::{ShardedGenerator, Shards};

/// Configures a [`FamilyGenerator`]: clock, clock-behind policy, borrowing, events, and what
/// the family adds (sno's partition, metabyte and sequence range).
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
///
/// Two sno generators share partition 7, each with half of every 4 ms unit's sequence:
///
/// ```
/// use snowmint::{clock::ManualClock, sno::SnoGenerator};
///
/// let clock = ManualClock::new(1_700_000_000_000);
/// let low = SnoGenerator::builder().partition(7).sequence_range(0..=32767).clock(&clock).build()?;
/// let high = SnoGenerator::builder().partition(7).sequence_range(32768..=65535).clock(&clock).build()?;
/// assert_eq!(low.mint()?.sequence(), 0);
/// assert_eq!(high.mint()?.sequence(), 32768);
/// # Ok::<(), snowmint::Error>(())
/// ```
#[must_use]
pub struct FamilyBuilder<F: Family, C = DefaultClock> {
    pub(crate) inner: GeneratorBuilder<C>,
    pub(crate) options: F::Options,
}

impl<F: Family> FamilyGenerator<F> {
    /// Starts configuring a generator: the process-wide
    /// [`CachedClock`](crate::clock::CachedClock), the family's clock-behind policy
    /// ([`ClockBehind::default`] for UUIDv7 and ULID, [`ClockBehind::TickTock`] with
    /// `max_ms: 1000` for sno), no borrowing, and the family's defaults.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{id128::UlidGenerator, sno::SnoGenerator};
    ///
    /// let generator = UlidGenerator::builder().build()?;
    /// assert!(generator.mint()?.unix_ms() > 1_700_000_000_000);
    ///
    /// let generator = SnoGenerator::builder().partition(7).build()?;
    /// assert_eq!(generator.mint()?.partition(), 7);
    /// assert!(SnoGenerator::builder().build().is_err()); // no partition
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn builder() -> FamilyBuilder<F> {
        FamilyBuilder::with(Generator::builder(F::LAYOUT), F::options())
    }
}

impl<F: Family, C> FamilyBuilder<F, C> {
    /// The builder of `inner`'s engine with `options`, on the family's clock-behind policy.
    pub(crate) fn with(inner: GeneratorBuilder<C>, options: F::Options) -> Self {
        FamilyBuilder {
            inner: inner.on_clock_behind(F::on_clock_behind()),
            options,
        }
    }

    /// Uses `clock` instead of the process-wide [`CachedClock`](crate::clock::CachedClock).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, id128::UlidGenerator, sno::SnoGenerator};
    ///
    /// let generator = UlidGenerator::builder().clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// assert_eq!(generator.mint()?.unix_ms(), 1_700_000_000_000);
    ///
    /// let generator = SnoGenerator::builder().partition(7).clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// assert_eq!(generator.mint()?.unix_ms(), 1_700_000_000_000);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn clock<D: Clock>(self, clock: D) -> FamilyBuilder<F, D> {
        FamilyBuilder {
            inner: self.inner.clock(clock),
            options: self.options,
        }
    }

    /// Sets what to do when the clock reads behind the last minted tick: see
    /// [`ClockBehind`]. A layout without a tick-tock bit (UUIDv7's and ULID's) fails to build
    /// with [`ClockBehind::TickTock`]; sno's has one, and tick-tock is its default.
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
    ///
    /// ```
    /// use snowmint::{ClockBehind, clock::ManualClock, sno::SnoGenerator};
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = SnoGenerator::builder()
    ///     .partition(7)
    ///     .clock(&clock)
    ///     .on_clock_behind(ClockBehind::Error)
    ///     .build()?;
    /// generator.mint()?;
    /// clock.set(1_699_999_999_000);
    /// assert!(generator.mint().is_err()); // no toggle to the other timeline
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn on_clock_behind(mut self, policy: ClockBehind) -> Self {
        self.inner = self.inner.on_clock_behind(policy);
        self
    }

    /// Lets a full tick move on to the next one ahead of the clock, by at most `ticks`
    /// ticks (milliseconds for UUIDv7 and ULID, 4 ms units for sno), instead of waiting: the
    /// IDs' times then run up to that far ahead of the clock, which RFC 9562 allows. Off (0)
    /// by default; see [`GeneratorBuilder::borrow_ahead`].
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
    pub fn borrow_ahead(mut self, ticks: u64) -> Self {
        self.inner = self.inner.borrow_ahead(ticks);
        self
    }

    /// Sends an [`Event`] when a thread stalls on a full tick ([`Event::Overflow`], sno's
    /// sequence overflow notification) and when the clock goes back
    /// ([`Event::Regression`]), at most once per tick of each kind; ticks in events count
    /// the layout's ticks from its epoch. See [`GeneratorBuilder::notify`].
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
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, generator::Event, sno::SnoGenerator};
    /// use std::sync::mpsc;
    ///
    /// let (tx, rx) = mpsc::sync_channel(4);
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = SnoGenerator::builder().partition(7).clock(&clock).notify(tx).build()?;
    /// generator.mint()?;
    /// clock.set(1_699_999_999_000);
    /// let id = generator.mint()?; // on the other timeline
    /// assert_eq!(id.timeline(), 1);
    /// assert!(matches!(rx.try_recv(), Ok(Event::Regression { .. })));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn notify(mut self, events: SyncSender<Event>) -> Self {
        self.inner = self.inner.notify(events);
        self
    }

    /// A snapshot resumed for another layout cannot hold the family's IDs.
    fn check_layout(&self) -> Result<()> {
        let layout = self.inner.layout();
        if *layout == F::LAYOUT {
            return Ok(());
        }
        Err(Error::InvalidSnapshot {
            layout: layout.name(),
            reason: format!(
                "its layout is not {}::LAYOUT, the only one {} ids are minted on",
                F::GENERATOR,
                F::LAYOUT.name()
            ),
        })
    }
}

impl<F: Family, C: Clock> FamilyBuilder<F, C> {
    /// Validates the configuration and builds a generator on a shared [`Generator`], for any
    /// number of threads.
    ///
    /// # Errors
    ///
    /// [`Error::TickTockUnsupported`] for the tick-tock policy on a layout without a
    /// tick-tock bit; [`Error::RandomSource`] when the operating system gives a 128-bit
    /// generator no key; for sno, [`Error::NodeNotSet`] without a partition,
    /// [`Error::InvalidSequenceRange`] for an empty sequence range, and
    /// [`Error::InvalidSnapshot`] for a resumed snapshot that does not fit its layout.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{ClockBehind, clock::ManualClock, id128::Uuid7Generator, sno::SnoGenerator};
    ///
    /// assert!(Uuid7Generator::builder().build()?.mint().is_ok());
    /// let tick_tock = ClockBehind::TickTock { max_ms: 10 };
    /// assert!(Uuid7Generator::builder().on_clock_behind(tick_tock).build().is_err());
    ///
    /// let generator = SnoGenerator::builder().partition(7).clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// assert_eq!(generator.mint()?.partition(), 7);
    /// assert!(SnoGenerator::builder().clock(ManualClock::new(1_700_000_000_000)).build().is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn build(self) -> Result<FamilyGenerator<F, Generator<C>>> {
        self.check_layout()?;
        let map = F::map(self.options)?;
        let engine = self.inner.build()?.named(F::GENERATOR);
        Ok(FamilyGenerator::on(engine, map))
    }

    /// Validates the configuration and builds a generator for one thread, on a
    /// [`LocalGenerator`](crate::LocalGenerator): `Send`, not `Sync`.
    ///
    /// # Errors
    ///
    /// As for [`build`](Self::build).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{id128::UlidGenerator, sno::SnoGenerator};
    ///
    /// let generator = UlidGenerator::builder().build_local()?;
    /// let a = generator.mint()?;
    /// assert!(generator.mint()? > a);
    ///
    /// let generator = SnoGenerator::builder().partition(3).build_local()?;
    /// let a = generator.mint()?;
    /// assert!(generator.mint()? > a);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn build_local(self) -> Result<FamilyGenerator<F, Generator<C, LocalState>>> {
        self.check_layout()?;
        let map = F::map(self.options)?;
        let engine = self.inner.build_local()?.named(F::GENERATOR);
        Ok(FamilyGenerator::on(engine, map))
    }

    /// Validates the configuration and builds a generator on a [`ShardedGenerator`] whose
    /// shards keep their IDs apart as `shards` says (as
    /// [`GeneratorBuilder::build_sharded`] does): for many threads minting at once. The
    /// families' layouts have no node field, so their shards split the sequence
    /// ([`Shards::SplitSequence`]).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidShards`] for 0 shards, more than the sequence range has values or than
    /// [`MAX_PARTS`](crate::shard::MAX_PARTS), and a resumed snapshot;
    /// [`Error::UnknownNodeField`] for a [`Shards::NodeBlock`]; and the errors of
    /// [`build`](Self::build).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{id128::Uuid7Generator, shard::Shards, sno::SnoGenerator};
    ///
    /// let generator = Uuid7Generator::builder().build_sharded(Shards::SplitSequence(4))?;
    /// let a = generator.mint()?;
    /// assert!(generator.mint()? > a); // one thread, one shard
    /// assert!(Uuid7Generator::builder().build_sharded(Shards::SplitSequence(0)).is_err());
    ///
    /// let generator = SnoGenerator::builder().partition(3).build_sharded(Shards::SplitSequence(2))?;
    /// assert_eq!(generator.engine().len(), 2);
    /// assert_eq!(generator.mint()?.partition(), 3);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn build_sharded(
        self,
        shards: Shards<'_>,
    ) -> Result<FamilyGenerator<F, ShardedGenerator<C>>> {
        self.check_layout()?;
        let map = F::map(self.options)?;
        let engine = self.inner.build_sharded(shards)?.named(F::GENERATOR);
        Ok(FamilyGenerator::on(engine, map))
    }
}

impl<F: Family, C: fmt::Debug> fmt::Debug for FamilyBuilder<F, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FamilyBuilder")
            .field("family", &F::GENERATOR)
            .field("options", &self.options)
            .field("inner", &self.inner)
            .finish()
    }
}

impl<F: Family, C: Clone> Clone for FamilyBuilder<F, C> {
    fn clone(&self) -> Self {
        FamilyBuilder {
            inner: self.inner.clone(),
            options: self.options.clone(),
        }
    }
}
