//! [`MarkedGenerator`]: a generator that returns an ID only once a mark kept by a
//! [`MarkStore`] is above its time. The mark file ([`MarkFileStore`](super::MarkFileStore))
//! and `snowmint-etcd`'s lease are two stores of the one idea.

use std::fmt;
use std::sync::Arc;

use super::store::MarkStore;
use crate::clock::Clock;
use crate::error::Result;
use crate::generator::Generator;
use crate::id::Id;
use crate::mint::Attempt;

/// A [`Generator`] that returns an ID only once its [`MarkStore`] holds a mark above the ID's
/// time: over a [`MarkFile`](super::MarkFile) (its store a
/// [`MarkFileStore`](super::MarkFileStore)), over a lease from etcd (`snowmint-etcd`'s
/// `LeasedGenerator`), or over a store of the caller's own. The minting methods are written
/// once, here; each store decides how its mark is kept.
///
/// Minting costs the generator's own mint and the store's [`admit`](MarkStore::admit): for a
/// file, a relaxed load and a compare, and one durable write per interval of ID time.
///
/// # Examples
///
/// ```
/// use snowmint::{Layout, clock::ManualClock, mark::{MarkFile, MarkFileStore, MarkedGenerator}};
///
/// # let dir = std::env::temp_dir().join(format!("snowmint-doc-marked-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let file = MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?;
/// let clock = ManualClock::new(1_700_000_000_000);
/// let generator = file.resume(Layout::TWITTER).node("machine", 1).clock(clock).build()?;
/// let generator: MarkedGenerator<_, MarkFileStore> = MarkedGenerator::new(generator, file)?;
/// let id = generator.mint()?;
/// assert!(generator.generator().decode(id)?.unix_ms() < generator.mark());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct MarkedGenerator<C, S: MarkStore> {
    generator: Arc<Generator<C>>,
    store: S,
    /// Whether the store was stopped: `shutdown` stops it, and drop then leaves it alone.
    stopped: bool,
}

impl<C: Clock + Send + Sync + 'static, S: MarkStore> MarkedGenerator<C, S> {
    /// Wraps `generator`, which must start above the store's mark (build it with the store's
    /// `resume`), and starts the store.
    ///
    /// # Errors
    ///
    /// The errors of the store's [`start`](MarkStore::start): for a mark file,
    /// [`Error::MarkFile`](crate::Error::MarkFile) when the generator could still mint at or below
    /// the file's mark, and [`Error::Forked`](crate::Error::Forked) in a forked child of the
    /// process that opened the file; for another store, its own
    /// [`Error::MarkStore`](crate::Error::MarkStore). The store is dropped on error (a lease
    /// is released).
    ///
    /// # Examples
    ///
    /// ```
    /// # use snowmint::{Layout, clock::ManualClock, mark::{MarkFile, MarkFileStore, MarkedGenerator}};
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-marked-new-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let file = MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?;
    /// # let clock = ManualClock::new(1_700_000_000_000);
    /// # let generator = file.resume(Layout::TWITTER).node("machine", 1).clock(clock).build()?;
    /// let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file)?;
    /// assert_eq!(generator.mark(), 0); // a first start: nothing written yet
    /// generator.mint()?;
    /// assert_eq!(generator.mark(), 1_700_000_001_000); // written ahead of the ID
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(generator: Generator<C>, store: impl Into<S>) -> Result<Self> {
        Self::with_store(generator, store.into())
    }

    /// [`new`](Self::new) with the store itself, whose type then needs no annotation: for a
    /// [`MarkStore`] of the caller's own.
    ///
    /// # Errors
    ///
    /// As for [`new`](Self::new).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Clock, Generator, Layout, Result, clock::ManualClock};
    /// use snowmint::mark::{MarkedGenerator, MarkStore};
    /// use std::sync::Arc;
    ///
    /// /// A store that takes every ID.
    /// struct Open;
    ///
    /// impl MarkStore for Open {
    ///     fn start<C: Clock + Send + Sync + 'static>(&self, _: &Arc<Generator<C>>) -> Result<()> {
    ///         Ok(())
    ///     }
    ///     fn admit(&self, _time_ms: u64) -> Result<()> {
    ///         Ok(())
    ///     }
    ///     fn stop(&mut self, _end_ms: u64) -> Result<()> {
    ///         Ok(())
    ///     }
    /// }
    ///
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).clock(ManualClock::new(1_700_000_000_000)).build()?;
    /// let marked = MarkedGenerator::with_store(generator, Open)?;
    /// assert!(marked.mint().is_ok());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn with_store(generator: Generator<C>, store: S) -> Result<Self> {
        let generator = Arc::new(generator.named("MarkedGenerator"));
        store.start(&generator)?;
        Ok(MarkedGenerator {
            generator,
            store,
            stopped: false,
        })
    }
}

impl<C: Clock, S: MarkStore> MarkedGenerator<C, S> {
    /// Mints the next ID as [`Generator::mint`] does, and returns it once the store's mark is
    /// above its time.
    ///
    /// # Errors
    ///
    /// The errors of [`Generator::mint`], and the store's [`admit`](MarkStore::admit) errors
    /// (the ID is then discarded, never returned).
    ///
    /// # Examples
    ///
    /// ```
    /// # use snowmint::{Layout, clock::ManualClock, mark::{MarkFile, MarkFileStore, MarkedGenerator}};
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-marked-mint-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let file = MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?;
    /// # let clock = ManualClock::new(1_700_000_000_000);
    /// # let generator = file.resume(Layout::TWITTER).node("machine", 1).clock(clock).build()?;
    /// let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file)?;
    /// let a = generator.mint()?;
    /// assert!(generator.mint()? > a);
    /// assert_eq!(generator.writes(), 1);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn mint(&self) -> Result<Id> {
        let id = self.generator.mint()?;
        self.cover(id)
    }

    /// Mints the next ID as [`Generator::try_mint`] does (failing rather than waiting for a
    /// full tick), and returns it as [`mint`](Self::mint) does.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint), and [`Error::SequenceExhausted`](crate::Error::SequenceExhausted).
    ///
    /// # Examples
    ///
    /// ```
    /// # use snowmint::{Layout, clock::ManualClock, mark::{MarkFile, MarkFileStore, MarkedGenerator}};
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-marked-try-mint-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let file = MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?;
    /// # let clock = ManualClock::new(1_700_000_000_000);
    /// # let generator = file.resume(Layout::TWITTER).node("machine", 1).clock(clock).build()?;
    /// let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file)?;
    /// for _ in 0..4096 {
    ///     generator.try_mint()?;
    /// }
    /// assert!(generator.try_mint().is_err()); // the clock is frozen and the tick is full
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn try_mint(&self) -> Result<Id> {
        let id = self.generator.try_mint()?;
        self.cover(id)
    }

    /// Mints up to `out.len()` IDs as [`Generator::mint_batch`] does, with one store check for
    /// the run (its last ID has the latest time).
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint). On error the IDs written are overwritten with zeros: none
    /// is handed out.
    ///
    /// # Examples
    ///
    /// ```
    /// # use snowmint::{Layout, clock::ManualClock, mark::{MarkFile, MarkFileStore, MarkedGenerator}};
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-marked-mint-batch-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let file = MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?;
    /// # let clock = ManualClock::new(1_700_000_000_000);
    /// # let generator = file.resume(Layout::TWITTER).node("machine", 1).clock(clock).build()?;
    /// let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file)?;
    /// let mut ids = [snowmint::Id::default(); 100];
    /// assert_eq!(generator.mint_batch(&mut ids)?, 100);
    /// assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mint_batch(&self, out: &mut [Id]) -> Result<usize> {
        let written = self.generator.mint_batch(out)?;
        self.cover_run(&mut out[..written])
    }

    /// [`mint_batch`](Self::mint_batch), failing as [`Generator::try_mint_batch`] does instead
    /// of waiting for a full tick.
    ///
    /// # Errors
    ///
    /// As for [`try_mint`](Self::try_mint); nothing is handed out on error.
    ///
    /// # Examples
    ///
    /// ```
    /// # use snowmint::{Layout, clock::ManualClock, mark::{MarkFile, MarkFileStore, MarkedGenerator}};
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-marked-try-mint-batch-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let file = MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?;
    /// # let clock = ManualClock::new(1_700_000_000_000);
    /// # let generator = file.resume(Layout::TWITTER).node("machine", 1).clock(clock).build()?;
    /// let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file)?;
    /// let mut ids = [snowmint::Id::default(); 5000];
    /// assert_eq!(generator.try_mint_batch(&mut ids)?, 4096);
    /// assert!(generator.try_mint_batch(&mut ids).is_err());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn try_mint_batch(&self, out: &mut [Id]) -> Result<usize> {
        let written = self.generator.try_mint_batch(out)?;
        self.cover_run(&mut out[..written])
    }

    /// Mints the next ID as [`Generator::mint_or_wait`] does (saying how long to wait rather
    /// than waiting for the clock), and returns a minted one as [`mint`](Self::mint) does.
    ///
    /// The store's [`admit`](MarkStore::admit) runs on the calling thread as for `mint`: a
    /// mark file is written there, durably, once per interval of ID time.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint), and the errors of [`Generator::mint_or_wait`].
    ///
    /// # Examples
    ///
    /// ```
    /// # use snowmint::{Attempt, Layout, clock::ManualClock, mark::{MarkFile, MarkFileStore, MarkedGenerator}};
    /// # use std::time::Duration;
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-fenced-mint-or-wait-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let file = MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?;
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// # let generator = file.resume(Layout::TWITTER).node("machine", 1).clock(clock.clone()).build()?;
    /// let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file)?;
    /// for _ in 0..4096 {
    ///     assert!(generator.mint_or_wait()?.minted().is_some());
    /// }
    /// assert_eq!(generator.mint_or_wait()?, Attempt::Wait(Duration::from_millis(1)));
    /// clock.advance(1);
    /// assert!(generator.mint_or_wait()?.minted().is_some());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn mint_or_wait(&self) -> Result<Attempt<Id>> {
        match self.generator.mint_or_wait()? {
            Attempt::Minted(id) => self.cover(id).map(Attempt::Minted),
            Attempt::Wait(wait) => Ok(Attempt::Wait(wait)),
        }
    }

    /// [`mint_batch`](Self::mint_batch) as [`mint_or_wait`](Self::mint_or_wait) mints: says
    /// how long to wait rather than waiting for the clock.
    ///
    /// # Errors
    ///
    /// As for [`mint_or_wait`](Self::mint_or_wait); nothing is handed out on error.
    ///
    /// # Examples
    ///
    /// ```
    /// # use snowmint::{Attempt, Layout, clock::ManualClock, mark::{MarkFile, MarkFileStore, MarkedGenerator}};
    /// # use std::time::Duration;
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-fenced-mint-batch-or-wait-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let file = MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?;
    /// # let clock = ManualClock::new(1_700_000_000_000);
    /// # let generator = file.resume(Layout::TWITTER).node("machine", 1).clock(clock).build()?;
    /// let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file)?;
    /// let mut ids = [snowmint::Id::default(); 5000];
    /// assert_eq!(generator.mint_batch_or_wait(&mut ids)?, Attempt::Minted(4096));
    /// assert_eq!(generator.mint_batch_or_wait(&mut ids)?, Attempt::Wait(Duration::from_millis(1)));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mint_batch_or_wait(&self, out: &mut [Id]) -> Result<Attempt<usize>> {
        match self.generator.mint_batch_or_wait(out)? {
            Attempt::Minted(written) => self.cover_run(&mut out[..written]).map(Attempt::Minted),
            Attempt::Wait(wait) => Ok(Attempt::Wait(wait)),
        }
    }

    /// Mints exactly `n` IDs, across as many ticks as they need, into a new `Vec`: one store
    /// check per [`mint_batch`](Self::mint_batch) run, waiting for the clock when a tick is
    /// full.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint), and [`Error::TooLarge`](crate::Error::TooLarge) when `n`
    /// IDs cannot be allocated. The IDs minted before an error are dropped, never handed out.
    ///
    /// # Examples
    ///
    /// ```
    /// # use snowmint::{Layout, mark::{MarkFile, MarkFileStore, MarkedGenerator}};
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-marked-mint-many-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let file = MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?;
    /// # let generator = file.resume(Layout::TWITTER).node("machine", 1).build()?;
    /// let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file)?;
    /// let ids = generator.mint_many(10_000)?; // more than one tick holds
    /// assert_eq!(ids.len(), 10_000);
    /// assert!(ids.windows(2).all(|pair| pair[0] < pair[1]));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mint_many(&self, n: usize) -> Result<Vec<Id>> {
        crate::mint::mint_many_by(n, |out| self.mint_batch(out))
    }
}

crate::mint::mint_by_inherent!(impl[C: Clock, S: MarkStore] Mint<Id = Id> for MarkedGenerator<C, S>);

impl<C, S: MarkStore> MarkedGenerator<C, S> {
    /// The generator inside, for its layout, clock, stats and decoding. Mint through `self`:
    /// IDs minted on the inner generator directly are not checked against the mark.
    ///
    /// # Examples
    ///
    /// ```
    /// # use snowmint::{Layout, clock::ManualClock, mark::{MarkFile, MarkFileStore, MarkedGenerator}};
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-marked-generator-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let file = MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?;
    /// # let clock = ManualClock::new(1_700_000_000_000);
    /// # let generator = file.resume(Layout::TWITTER).node("machine", 1).clock(clock).build()?;
    /// let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file)?;
    /// let id = generator.mint()?;
    /// assert_eq!(generator.generator().decode(id)?.node("machine"), Some(1));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn generator(&self) -> &Generator<C> {
        &self.generator
    }

    /// The store that keeps the mark.
    ///
    /// # Examples
    ///
    /// ```
    /// # use snowmint::{Layout, clock::ManualClock, mark::{MarkFile, MarkFileStore, MarkedGenerator}};
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-marked-store-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let file = MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?;
    /// # let clock = ManualClock::new(1_700_000_000_000);
    /// # let generator = file.resume(Layout::TWITTER).node("machine", 1).clock(clock).build()?;
    /// let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file)?;
    /// use snowmint::mark::MarkStore;
    /// generator.mint()?;
    /// assert!(generator.store().admit(1_700_000_000_500).is_ok()); // below the mark: no write
    /// assert_eq!(generator.writes(), 1);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Stops now: tells the store that every ID returned is below the end of the last tick
    /// minted (an etcd lease lowers its mark there and is released). Dropping the generator
    /// does the same, ignoring errors.
    ///
    /// # Errors
    ///
    /// The store's [`stop`](MarkStore::stop) errors; [`Error::Forked`](crate::Error::Forked)
    /// in the child of a `fork()` of the process that built the generator, where the store
    /// (its lease, its file) is the parent's and is left to the parent.
    ///
    /// # Examples
    ///
    /// ```
    /// # use snowmint::{Layout, clock::ManualClock, mark::{MarkFile, MarkFileStore, MarkedGenerator}};
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-marked-shutdown-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let file = MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?;
    /// # let clock = ManualClock::new(1_700_000_000_000);
    /// # let generator = file.resume(Layout::TWITTER).node("machine", 1).clock(clock).build()?;
    /// let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file)?;
    /// generator.mint()?;
    /// assert!(generator.shutdown().is_ok());
    /// assert_eq!(MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?.mark(), Some(1_700_000_001_000));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn shutdown(mut self) -> Result<()> {
        self.stop()
    }

    /// Returns `id` once the store admits its time.
    #[inline(always)]
    fn cover(&self, id: Id) -> Result<Id> {
        self.store.admit(self.generator.layout().unix_ms_of(id))?;
        Ok(id)
    }

    /// Admits a run by its last ID, the latest; zeroes the run if the store refuses it.
    fn cover_run(&self, run: &mut [Id]) -> Result<usize> {
        let Some(&last) = run.last() else {
            return Ok(0);
        };
        if let Err(err) = self.cover(last) {
            run.fill(Id::default());
            return Err(err);
        }
        Ok(run.len())
    }

    /// Called with `&mut self` (from `shutdown` or drop): no thread mints meanwhile. Stops
    /// the store once: drop after `shutdown` does nothing.
    fn stop(&mut self) -> Result<()> {
        if self.stopped {
            return Ok(());
        }
        // In a forked child the store is the parent's: a child that released it would end the
        // lease the parent mints under.
        self.generator.built_here()?;
        self.stopped = true;
        self.store.stop(minted_end(&self.generator))
    }
}

/// The end of the latest tick `generator` minted in, on either timeline, in Unix
/// milliseconds: every ID it minted has a time below it. A [`MarkedGenerator`] stops its store
/// with it ([`MarkStore::stop`]); a store that raises its mark off the minting path reads it
/// to know how far the generator went.
///
/// # Examples
///
/// ```
/// use snowmint::{Generator, Layout, clock::ManualClock, mark::minted_end};
///
/// let clock = ManualClock::new(1_700_000_000_000);
/// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).clock(&clock).build()?;
/// let id = generator.mint()?;
/// let end = minted_end(&generator);
/// assert!(generator.decode(id)?.unix_ms() < end);
/// assert_eq!(end, 1_700_000_000_001); // the end of the 1 ms tick it minted in
/// # Ok::<(), snowmint::Error>(())
/// ```
pub fn minted_end<C>(generator: &Generator<C>) -> u64 {
    let snapshot = generator.snapshot();
    let layout = generator.layout();
    let last_tick = snapshot.last_tick.max(snapshot.other_timeline_tick);
    (last_tick + 1)
        .saturating_mul(layout.tick_ms())
        .saturating_add(layout.epoch_ms())
}

impl<C, S: MarkStore> Drop for MarkedGenerator<C, S> {
    /// Stops as [`shutdown`](MarkedGenerator::shutdown) does, ignoring errors.
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

impl<C, S: MarkStore + fmt::Debug> fmt::Debug for MarkedGenerator<C, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MarkedGenerator")
            .field("generator", &self.generator)
            .field("store", &self.store)
            .finish()
    }
}
