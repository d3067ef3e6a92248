//! [`FencedGenerator`]: a generator that returns an ID only once a high-water mark kept by a
//! [`MarkStore`] is above its time. The high-water file ([`FileStore`](super::FileStore)) and,
//! with the `etcd` feature, the etcd lease are two stores of the one idea.

use std::fmt;
use std::sync::Arc;

use crate::clock::Clock;
use crate::error::Result;
use crate::generator::Generator;
use crate::id::Id;

/// Where a [`FencedGenerator`] keeps its high-water mark: a time that no ID it returns
/// reaches, and above which it (or its successor after a restart) starts.
///
/// A store never lowers its mark while a generator mints: concurrent writers keep the
/// maximum. Implemented by [`FileStore`](super::FileStore) and, with the `etcd` feature, by
/// the etcd lease.
pub trait MarkStore {
    /// Checks that `generator` may mint under this store (it starts above the store's mark,
    /// and carries what the store requires), then starts keeping the mark ahead of it.
    ///
    /// # Errors
    ///
    /// The store's own, naming what the generator lacks.
    fn start<C: Clock + Send + Sync + 'static>(&self, generator: &Arc<Generator<C>>) -> Result<()>;

    /// Admits an ID whose time is `time_ms`: returns once a durable mark is above it (raising
    /// the mark first if this store raises it on the minting path).
    ///
    /// # Errors
    ///
    /// The store's own: the mark could not be raised, or is not known to be above `time_ms`.
    fn admit(&self, time_ms: u64) -> Result<()>;

    /// The generator stops; every ID it returned is below `end_ms`. A store may lower its
    /// mark to `end_ms` (never below the mark it started from), so the next generator starts
    /// at once. Called again on drop after a `shutdown`: a second call must do nothing.
    ///
    /// # Errors
    ///
    /// The store's own, when the last write is not confirmed.
    fn stop(&mut self, end_ms: u64) -> Result<()>;
}

/// A [`Generator`] that returns an ID only once its [`MarkStore`] holds a mark above the ID's
/// time: [`PersistentGenerator`](super::PersistentGenerator) over a high-water file, and with
/// the `etcd` feature `LeasedGenerator` over an etcd lease. The minting methods are written
/// once, here; each store decides how its mark is kept.
///
/// Minting costs the generator's own mint and the store's [`admit`](MarkStore::admit): for a
/// file, a relaxed load and a compare, and one durable write per interval of ID time.
pub struct FencedGenerator<C, S: MarkStore> {
    generator: Arc<Generator<C>>,
    store: S,
}

impl<C: Clock + Send + Sync + 'static, S: MarkStore> FencedGenerator<C, S> {
    /// Wraps `generator`, which must start above the store's mark (build it with the store's
    /// `resume`), and starts the store.
    ///
    /// # Errors
    ///
    /// The errors of the store's [`start`](MarkStore::start): for a high-water file,
    /// [`Error::Persist`](crate::Error::Persist) when the generator could still mint at or below
    /// the file's mark; for an etcd lease, `Error::InvalidLeaseConfig` or the errors of its
    /// first renewal. The store is dropped on error (a lease is released).
    pub fn new(generator: Generator<C>, store: impl Into<S>) -> Result<Self> {
        let store = store.into();
        let generator = Arc::new(generator);
        store.start(&generator)?;
        Ok(FencedGenerator { generator, store })
    }
}

impl<C: Clock, S: MarkStore> FencedGenerator<C, S> {
    /// Mints the next ID as [`Generator::mint`] does, and returns it once the store's mark is
    /// above its time.
    ///
    /// # Errors
    ///
    /// The errors of [`Generator::mint`], and the store's [`admit`](MarkStore::admit) errors
    /// (the ID is then discarded, never returned).
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
    pub fn try_mint_batch(&self, out: &mut [Id]) -> Result<usize> {
        let written = self.generator.try_mint_batch(out)?;
        self.cover_run(&mut out[..written])
    }
}

impl<C, S: MarkStore> FencedGenerator<C, S> {
    /// The generator inside, for its layout, clock, stats and decoding. Mint through `self`:
    /// IDs minted on the inner generator directly are not fenced.
    pub fn generator(&self) -> &Generator<C> {
        &self.generator
    }

    /// The store that keeps the mark.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Stops now: tells the store that every ID returned is below the end of the last tick
    /// minted (an etcd lease lowers its mark there and is released). Dropping the generator
    /// does the same, ignoring errors.
    ///
    /// # Errors
    ///
    /// The store's [`stop`](MarkStore::stop) errors.
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

    /// Called with `&mut self` (from `shutdown` or drop): no thread mints meanwhile.
    fn stop(&mut self) -> Result<()> {
        self.store.stop(minted_end(&self.generator))
    }
}

/// The end of the latest tick `generator` minted in, on either timeline, in Unix
/// milliseconds: every ID it minted has a time below it.
pub(crate) fn minted_end<C>(generator: &Generator<C>) -> u64 {
    let snapshot = generator.snapshot();
    let layout = generator.layout();
    let last_tick = snapshot.last_tick.max(snapshot.other_timeline_tick);
    (last_tick + 1)
        .saturating_mul(layout.tick_ms())
        .saturating_add(layout.epoch_ms())
}

impl<C, S: MarkStore> Drop for FencedGenerator<C, S> {
    /// Stops as [`shutdown`](FencedGenerator::shutdown) does, ignoring errors.
    fn drop(&mut self) {
        let _ = self.stop();
    }
}

impl<C, S: MarkStore + fmt::Debug> fmt::Debug for FencedGenerator<C, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FencedGenerator")
            .field("generator", &self.generator)
            .field("store", &self.store)
            .finish()
    }
}
