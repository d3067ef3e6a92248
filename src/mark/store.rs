//! [`MarkStore`]: where a [`MarkedGenerator`](super::MarkedGenerator) keeps its mark.

use std::sync::Arc;

use crate::clock::Clock;
use crate::error::Result;
use crate::generator::Generator;

/// Where a [`MarkedGenerator`] keeps its mark: a time that no ID it returns reaches, and
/// above which it (or its successor after a restart) starts.
///
/// A store never lowers its mark while a generator mints: concurrent writers keep the
/// maximum. Implemented by [`MarkFileStore`](super::MarkFileStore), and outside this crate by
/// `snowmint-etcd`'s lease.
///
/// A store of the caller's own reports its failures as [`Error::MarkStore`](crate::Error::MarkStore),
/// made by [`Error::mark_store`](crate::Error::mark_store) with the store's name, what went
/// wrong and the error behind it; the generator returns them as they are. A store with an
/// error type of its own passes its error as the source, where its callers find it again
/// with [`SourceError::get`](crate::error::SourceError::get) and `downcast_ref`. A store that
/// holds per-process state (a thread, a connection) refuses to serve a forked child with a
/// [`ForkCheck`](super::ForkCheck), and [`minted_end`](super::minted_end) tells it where the
/// generator's IDs end.
///
/// # Examples
///
/// A store whose mark is fixed: IDs from that time on are refused.
///
/// ```
/// use snowmint::{Clock, Error, Generator, Layout, Result, clock::ManualClock};
/// use snowmint::mark::{MarkedGenerator, MarkStore};
/// use std::sync::Arc;
///
/// struct Until(u64);
///
/// impl MarkStore for Until {
///     fn start<C: Clock + Send + Sync + 'static>(&self, _: &Arc<Generator<C>>) -> Result<()> {
///         Ok(())
///     }
///     fn admit(&self, time_ms: u64) -> Result<()> {
///         if time_ms < self.0 {
///             return Ok(());
///         }
///         Err(Error::mark_store("until", format!("{time_ms} ms is past the mark {} ms", self.0), None))
///     }
///     fn stop(&mut self, _end_ms: u64) -> Result<()> {
///         Ok(())
///     }
/// }
///
/// let clock = ManualClock::new(1_700_000_000_000);
/// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).clock(clock.clone()).build()?;
/// let marked: MarkedGenerator<_, Until> = MarkedGenerator::new(generator, Until(1_700_000_000_001))?;
/// assert!(marked.mint().is_ok());
/// clock.advance(1);
/// let err = marked.mint().unwrap_err();
/// assert_eq!(err.to_string(), "mark store until: 1700000000001 ms is past the mark 1700000000001 ms");
/// assert!(matches!(err, Error::MarkStore { .. }));
/// # Ok::<(), snowmint::Error>(())
/// ```
///
/// [`MarkedGenerator`]: crate::mark::MarkedGenerator
pub trait MarkStore {
    /// Checks that `generator` may mint under this store (it starts above the store's mark,
    /// and carries what the store requires), then starts keeping the mark ahead of it.
    ///
    /// # Errors
    ///
    /// The store's own, naming what the generator lacks.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::mark::{MarkFileStore, MarkFile, MarkStore};
    /// use snowmint::{Generator, Layout};
    /// use std::sync::Arc;
    ///
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-store-start-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// std::fs::write(dir.join("mark"), "1700000000000\n")?;
    /// let file = MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?;
    /// let resumed = Arc::new(file.resume(Layout::TWITTER).node("machine", 1).build()?);
    /// let fresh = Arc::new(Generator::builder(Layout::TWITTER).node("machine", 1).build()?);
    /// let store = MarkFileStore::from(file);
    /// assert!(store.start(&resumed).is_ok());
    /// assert!(store.start(&fresh).is_err()); // could mint below the mark
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn start<C: Clock + Send + Sync + 'static>(&self, generator: &Arc<Generator<C>>) -> Result<()>;

    /// Admits an ID whose time is `time_ms`: returns once a durable mark is above it (raising
    /// the mark first if this store raises it on the minting path).
    ///
    /// # Errors
    ///
    /// The store's own: the mark could not be raised, or is not known to be above `time_ms`.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::mark::{MarkFileStore, MarkFile, MarkStore};
    ///
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-store-admit-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let store = MarkFileStore::from(MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?);
    /// store.admit(1_700_000_000_000)?; // past the mark: the next mark is written first
    /// assert_eq!(std::fs::read_to_string(dir.join("mark"))?, "1700000001000\n");
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    fn admit(&self, time_ms: u64) -> Result<()>;

    /// The generator stops; every ID it returned is below `end_ms`. A store may lower its
    /// mark to `end_ms` (never below the mark it started from), so the next generator starts
    /// at once. A [`MarkedGenerator`] calls it once: from `shutdown`, or else on drop.
    ///
    /// # Errors
    ///
    /// The store's own, when the last write is not confirmed.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::mark::{MarkFileStore, MarkFile, MarkStore};
    ///
    /// # let dir = std::env::temp_dir().join(format!("snowmint-doc-store-stop-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let mut store = MarkFileStore::from(MarkFile::open(dir.join("mark"), MarkFile::DEFAULT_INTERVAL)?);
    /// store.admit(1_700_000_000_000)?;
    /// store.stop(1_700_000_000_001)?;
    /// store.stop(1_700_000_000_001)?; // a second call does nothing
    /// // A file's mark stays where the last write put it.
    /// assert_eq!(std::fs::read_to_string(dir.join("mark"))?, "1700000001000\n");
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// [`MarkedGenerator`]: crate::mark::MarkedGenerator
    fn stop(&mut self, end_ms: u64) -> Result<()>;
}
