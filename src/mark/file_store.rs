//! [`MarkFileStore`]: a [`MarkFile`] as a [`MarkStore`], and what a [`MarkedGenerator`] over
//! it tells of its file.

use std::sync::{Arc, Mutex, PoisonError};

use super::file::MarkFile;
use super::marked::MarkedGenerator;
use super::read::file_error;
use super::store::MarkStore;
use crate::clock::Clock;
use crate::error::Result;
use crate::generator::Generator;
use crate::sync::{AtomicU64, Ordering};

/// A [`MarkFile`] as a [`MarkStore`]: a [`MarkedGenerator`] over it writes the file ahead of
/// every ID it returns, one durable write per interval of ID time. Made from the
/// [`MarkFile`] by [`MarkedGenerator::new`].
///
/// Minting costs one relaxed load and a compare more than the generator's own mint, and one
/// durable file write per interval of ID time (see [`MarkFile`] for the guarantee).
/// [`MarkedGenerator::new`] fails when the generator could still mint at or below the file's
/// mark: build it with [`MarkFile::resume`].
///
/// # Examples
///
/// ```
/// use snowmint::{Generator, Layout, clock::ManualClock};
/// use snowmint::mark::{MarkFile, MarkFileStore, MarkedGenerator};
///
/// # let dir = std::env::temp_dir().join(format!("snowmint-doc-file-store-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let file = MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?;
/// let clock = ManualClock::new(1_700_000_000_000);
/// let generator = file.resume(Layout::TWITTER).node("machine", 1).clock(clock.clone()).build()?;
/// let generator: MarkedGenerator<_, MarkFileStore> = MarkedGenerator::new(generator, file)?;
/// generator.mint()?;
/// assert_eq!(std::fs::read_to_string(dir.join("mark"))?, "1700000001000\n");
/// drop(generator);
///
/// // A generator not resumed from the file could mint below its mark: refused.
/// let file = MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?;
/// let fresh = Generator::builder(Layout::TWITTER).node("machine", 1).clock(clock).build()?;
/// assert!(MarkedGenerator::<_, MarkFileStore>::new(fresh, file).is_err());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct MarkFileStore {
    file: MarkFile,
    /// The mark on disk, in Unix milliseconds: raised only after the write is durable.
    mark: AtomicU64,
    /// How many writes this store made: a counter of its own, so that reading it takes no lock.
    writes: AtomicU64,
    /// Serializes writes (cold path only). Fork: a child forked during a write finds it taken
    /// for good, and never takes it: a store refuses to write in a forked child of the process
    /// that opened its file (`Error::Forked`) before it takes the lock, and the getters read
    /// atomics.
    writing: Mutex<()>,
}

impl From<MarkFile> for MarkFileStore {
    fn from(file: MarkFile) -> Self {
        MarkFileStore {
            mark: AtomicU64::new(file.mark.unwrap_or(0)),
            writes: AtomicU64::new(0),
            writing: Mutex::new(()),
            file,
        }
    }
}

impl MarkFileStore {
    /// `time` is at or past the mark: write a new mark.
    #[cold]
    #[inline(never)]
    fn raise(&self, time: u64) -> Result<()> {
        // Before the lock: a fork may have caught it taken (see `writing`).
        self.file.owner.here()?;
        // Poisoning cannot break the invariant: the mark is raised only after a durable write.
        let _writing = self.writing.lock().unwrap_or_else(PoisonError::into_inner);
        // Another thread may have raised the mark while this one waited for the lock.
        if time < self.mark.load(Ordering::Relaxed) {
            return Ok(());
        }
        // The mark on disk now: this one, or a higher one another writer of the file put
        // there.
        let mark = self
            .file
            .write(time.saturating_add(self.file.interval_ms))?;
        // Relaxed: a count, ordered with nothing else.
        self.writes.fetch_add(1, Ordering::Relaxed);
        // Only now, with `mark` durable, may other threads return IDs below it.
        self.mark.store(mark, Ordering::Relaxed);
        Ok(())
    }
}

impl MarkStore for MarkFileStore {
    /// Refuses a generator that could still mint at or below the file's mark: one not built
    /// with [`MarkFile::resume`] (or from a snapshot above the mark); and any generator, with
    /// [`Error::Forked`], in a forked child of the process that opened the file.
    ///
    /// [`Error::Forked`]: crate::Error::Forked
    fn start<C: Clock + Send + Sync + 'static>(&self, generator: &Arc<Generator<C>>) -> Result<()> {
        self.file.owner.here()?;
        let Some(mark) = self.file.mark else {
            return Ok(());
        };
        let layout = *generator.layout();
        if generator.snapshot().starts_above_mark(mark) {
            return Ok(());
        }
        Err(file_error(
            &self.file.path,
            format!(
                "holds the mark {mark} ms, and the generator could still mint at or before its \
                 tick {} of layout {}; expected a generator built with MarkFile::resume",
                layout.tick_holding(mark),
                layout.name()
            ),
        ))
    }

    /// One relaxed load and a compare; a durable write when `time_ms` reached the mark, which
    /// fails with [`Error::Forked`] in a forked child of the process that opened the file.
    ///
    /// [`Error::Forked`]: crate::Error::Forked
    #[inline(always)]
    fn admit(&self, time_ms: u64) -> Result<()> {
        // Relaxed: the mark publishes no memory. Every value it holds was stored after the
        // write of that value to disk had returned, so any value read is already durable.
        if time_ms < self.mark.load(Ordering::Relaxed) {
            return Ok(());
        }
        self.raise(time_ms)
    }

    /// The mark stays where the last write put it: a restart starts above it.
    fn stop(&mut self, _end_ms: u64) -> Result<()> {
        Ok(())
    }
}

impl std::fmt::Debug for MarkFileStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MarkFileStore")
            .field("file", &self.file)
            .field("mark", &self.mark.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl<C> MarkedGenerator<C, MarkFileStore> {
    /// The mark file.
    ///
    /// # Examples
    ///
    /// ```
    /// # use snowmint::{Layout, clock::ManualClock, mark::{MarkFile, MarkFileStore, MarkedGenerator}};
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-marked-file-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let file = MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?;
    /// # let clock = ManualClock::new(1_700_000_000_000);
    /// # let generator = file.resume(Layout::TWITTER).node("machine", 1).clock(clock).build()?;
    /// let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file)?;
    /// assert_eq!(generator.file().path(), dir.join("mark"));
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn file(&self) -> &MarkFile {
        &self.store().file
    }

    /// The mark on disk, in Unix milliseconds (0 before the first write on a first start):
    /// above the time of every ID returned so far.
    ///
    /// # Examples
    ///
    /// ```
    /// # use snowmint::{Layout, clock::ManualClock, mark::{MarkFile, MarkFileStore, MarkedGenerator}};
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-marked-mark-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// # let file = MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?;
    /// # let clock = ManualClock::new(1_700_000_000_000);
    /// # let generator = file.resume(Layout::TWITTER).node("machine", 1).clock(clock).build()?;
    /// let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file)?;
    /// generator.mint()?;
    /// assert_eq!(generator.mark(), 1_700_000_001_000); // the ID's time plus the interval
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mark(&self) -> u64 {
        self.store().mark.load(Ordering::Relaxed)
    }

    /// How many times this generator has written the file.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::clock::ManualClock;
    /// use snowmint::mark::{MarkFile, MarkFileStore, MarkedGenerator};
    /// use snowmint::Layout;
    /// use std::time::Duration;
    ///
    /// let path = std::env::temp_dir().join(format!("snowmint-doc-mint-{}", std::process::id()));
    /// let file = MarkFile::open(&path, Duration::from_millis(100))?;
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = file
    ///     .resume(Layout::TWITTER).node("machine", 1)
    ///     .clock(clock.clone())
    ///     .build()?;
    /// let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file)?;
    /// for _ in 0..1_000 {
    ///     generator.mint()?;
    ///     clock.advance(1);
    /// }
    /// assert_eq!(generator.writes(), 10); // one per 100 ms of ID time
    /// assert_eq!(generator.mark(), 1_700_000_001_000);
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn writes(&self) -> u64 {
        self.store().writes.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use crate::layout::Layout;

    #[test]
    fn tick_holding_holds_every_earlier_time() {
        let layout = Layout::SONYFLAKE;
        let tick = layout.tick_holding(layout.epoch_ms() + 25);
        assert_eq!(tick, 2);
        // The times below the mark, 0..25 ms after the epoch, are in ticks 0..=2.
        assert_eq!(layout.tick_holding(0), 0);
        assert_eq!(layout.tick_holding(u64::MAX), layout.max_ticks());
    }
}
