//! [`MarkFile`]: the file that holds a mark, its hold, and its write under the writers' lock.

#[cfg(unix)]
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::durable::replace_durably;
use super::hold::Owner;
use super::read::{io_error, read_mark};
use crate::error::Result;
use crate::generator::{Generator, GeneratorBuilder, Snapshot};
use crate::layout::Layout;

/// A file holding a generator's mark: a Unix-millisecond time above every ID it returned.
///
/// Open it, start a generator above its mark with [`resume`](Self::resume), and mint through a
/// [`MarkedGenerator`] over it (its store, a [`MarkFileStore`], is made from the file).
///
/// A [`Snapshot`] taken at a clean shutdown lets a restarted generator continue where the old
/// one stopped. After a crash there is no snapshot, and a host whose clock is now behind (a
/// step back, NTP, a VM restore) could mint IDs the old process already handed out. The file
/// closes that gap. It holds one line, a mark `M` in Unix milliseconds, in decimal; a missing
/// file means no mark (a first start).
///
/// # Guarantee
///
/// A [`MarkedGenerator`] over the file writes the mark *ahead* of minting: before it returns
/// an ID whose time is at or past the mark in memory, it writes a new mark, that time plus the
/// interval, and only once the write is durable does it raise the mark in memory and return
/// the ID. The mark in memory only ever holds values already on disk, so every ID ever
/// returned has a time below the mark on disk, and a crash at any point loses nothing. On
/// restart, [`resume`](Self::resume) starts a generator whose last minted tick is the tick
/// holding `M`, with its sequence exhausted (and, with a tick-tock bit, on both timelines), so
/// its first ID has a later tick: if the host clock reads behind `M`, the generator's
/// [`ClockBehind`](crate::ClockBehind) policy waits or fails, exactly as for a resumed
/// snapshot.
///
/// # Cost
///
/// - Per ID: one relaxed atomic load, a shift, mask and multiply-add to decode the ID's time,
///   and one compare.
/// - Per interval of ID time: one write of the file, made by the first mint past the mark
///   while every other mint past the mark waits on a mutex for it: under an exclusive `flock`
///   of `PATH.lock`, read the mark on disk, write the greater of it and the new mark to a
///   temporary file of the write's own, `fsync` it, rename it over `PATH`, `fsync` the
///   directory. Writers of one file, clones in one process or other processes, so never
///   lower its mark.
/// - Per file: `open` takes an exclusive `flock` of `PATH.owner` before it reads the mark and
///   holds it while the `MarkFile` or a clone of it lives (in a generator, for the
///   generator's life). A second `open` of the file, in another process or in this one, is
///   refused with [`Error::MarkFile`]: two generators resumed from one mark would mint the
///   same IDs. Clones share the hold: generators on clones of one file must have disjoint
///   sequence ranges or nodes. (If the lock file cannot be made at `open`, in a directory that
///   does not exist yet, the hold is taken by the first write, which is refused if the file
///   was written since `open` read it.)
/// - After a crash: the restarted generator starts up to one interval ahead of the last ID the
///   old one returned. If it restarts sooner than that, its clock reads behind the mark and its
///   policy applies: pick `ClockBehind::Wait { max_ms }` with `max_ms` at least the interval to
///   wait rather than fail.
///
/// # After `fork()`
///
/// A `MarkFile` is its opening process's. A forked child keeps no hold on it: the hold ends
/// when the parent drops its last clone, even while children the parent forked (workers that
/// never exec) live on, so the parent's successor can open the file. In the child, the
/// parent's file refuses to be written or to start a generator with
/// [`Error::Forked`]: a child that mints opens a mark file of its own, for a node ID of its
/// own.
///
/// # Examples
///
/// ```
/// use snowmint::{Layout, clock::ManualClock, mark::{MarkFile, MarkFileStore, MarkedGenerator}};
/// use std::time::Duration;
///
/// let dir = std::env::temp_dir().join(format!("snowmint-doc-file-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("mark");
///
/// let file = MarkFile::open(&path, Duration::from_secs(1))?;
/// assert_eq!(file.mark(), None); // no file yet: a first start
/// let clock = ManualClock::new(1_700_000_000_000);
/// let generator = file.resume(Layout::TWITTER).node("machine", 5).clock(clock).build()?;
/// let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file)?;
/// let id = generator.mint()?;
/// assert_eq!(std::fs::read_to_string(&path)?, "1700000001000\n");
///
/// // After a crash: the next generator starts above the mark.
/// drop(generator);
/// let file = MarkFile::open(&path, Duration::from_secs(1))?;
/// assert_eq!(file.mark(), Some(1_700_000_001_000));
/// let clock = ManualClock::new(1_700_000_002_000);
/// let generator = file.resume(Layout::TWITTER).node("machine", 5).clock(clock).build()?;
/// let generator = MarkedGenerator::<_, MarkFileStore>::new(generator, file)?;
/// assert!(generator.mint()? > id);
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// [`MarkedGenerator`]: crate::mark::MarkedGenerator
/// [`MarkFileStore`]: crate::mark::MarkFileStore
/// [`Snapshot`]: crate::Snapshot
/// [`Error::MarkFile`]: crate::Error::MarkFile
/// [`Error::Forked`]: crate::Error::Forked
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkFile {
    pub(super) path: PathBuf,
    pub(super) interval_ms: u64,
    pub(super) mark: Option<u64>,
    /// The exclusive hold on the file, shared by clones.
    pub(super) owner: Owner,
}

impl MarkFile {
    /// The interval [`open`](Self::open) is usually given: one write per second of ID time.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::mark::MarkFile;
    /// use std::time::Duration;
    ///
    /// assert_eq!(MarkFile::DEFAULT_INTERVAL, Duration::from_secs(1));
    /// ```
    pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

    /// Reads the mark at `path`, if the file exists, and keeps `interval`: how far ahead of an
    /// ID's time each write puts the mark (at least 1 ms; less counts as 1 ms).
    ///
    /// First takes the file's exclusive hold (an `flock` of `PATH.owner`, kept while this
    /// value or a clone of it lives), so no other process or `open` can resume from the same
    /// mark. A leftover temporary file (`PATH.tmp.*`) from a write cut short is ignored. A file
    /// longer than 64 bytes is corrupt: it is not read further.
    ///
    /// # Errors
    ///
    /// [`Error::MarkFile`] when another process (or another `open` in this process) holds the
    /// file, when the file exists but cannot be read, or does not hold one line with a
    /// Unix-millisecond mark.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::mark::MarkFile;
    ///
    /// let path = std::env::temp_dir().join(format!("snowmint-doc-open-{}", std::process::id()));
    /// std::fs::write(&path, "1700000000000\n")?;
    /// let file = MarkFile::open(&path, MarkFile::DEFAULT_INTERVAL)?;
    /// assert_eq!(file.mark(), Some(1_700_000_000_000));
    /// // Held: a second open is refused until `file` (and every clone of it) is dropped.
    /// assert!(MarkFile::open(&path, MarkFile::DEFAULT_INTERVAL).is_err());
    /// drop(file);
    /// assert!(MarkFile::open(&path, MarkFile::DEFAULT_INTERVAL).is_ok());
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// [`Error::MarkFile`]: crate::Error::MarkFile
    pub fn open(path: impl AsRef<Path>, interval: Duration) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let interval_ms = u64::try_from(interval.as_millis())
            .unwrap_or(u64::MAX)
            .max(1);
        let owner = Owner::take(&path)?;
        let mark = read_mark(&path)?;
        Ok(MarkFile {
            path,
            interval_ms,
            mark,
            owner,
        })
    }

    /// The file's path.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::mark::MarkFile;
    ///
    /// let path = std::env::temp_dir().join("snowmint-doc-path-never-written");
    /// let file = MarkFile::open(&path, MarkFile::DEFAULT_INTERVAL)?;
    /// assert_eq!(file.path(), path);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How far ahead of an ID's time each write puts the mark.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::mark::MarkFile;
    /// use std::time::Duration;
    ///
    /// let path = std::env::temp_dir().join("snowmint-doc-interval-never-written");
    /// let file = MarkFile::open(&path, Duration::from_micros(10))?;
    /// assert_eq!(file.interval(), Duration::from_millis(1)); // at least 1 ms
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn interval(&self) -> Duration {
        Duration::from_millis(self.interval_ms)
    }

    /// The mark read by [`open`](Self::open), in Unix milliseconds; `None` if there was no file.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::mark::MarkFile;
    ///
    /// let path = std::env::temp_dir().join("snowmint-doc-mark-never-written");
    /// assert_eq!(MarkFile::open(&path, MarkFile::DEFAULT_INTERVAL)?.mark(), None);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn mark(&self) -> Option<u64> {
        self.mark
    }

    /// Starts configuring a generator for `layout` that mints above the mark: as
    /// [`Generator::resume`] from a snapshot whose last tick is the tick holding the mark, with
    /// its sequence exhausted, on both timelines. Set the node fields with
    /// [`node`](GeneratorBuilder::node), the clock and the [`ClockBehind`](crate::ClockBehind)
    /// policy, build, and wrap the generator with [`MarkedGenerator::new`]. Without a mark, a
    /// fresh generator.
    ///
    /// Node values are checked by `build()`, as usual. See [`MarkFile`] for an example.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Layout, clock::ManualClock, mark::MarkFile};
    ///
    /// let path = std::env::temp_dir().join(format!("snowmint-doc-resume-{}", std::process::id()));
    /// std::fs::write(&path, "1700000000000\n")?;
    /// let file = MarkFile::open(&path, MarkFile::DEFAULT_INTERVAL)?;
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = file.resume(Layout::TWITTER).node("machine", 1).clock(&clock).build()?;
    /// assert!(generator.try_mint().is_err()); // the mark's tick is full
    /// clock.advance(1);
    /// assert_eq!(generator.decode(generator.mint()?)?.unix_ms(), 1_700_000_000_001);
    /// std::fs::remove_file(&path)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// [`Generator::resume`]: crate::Generator::resume
    /// [`MarkedGenerator::new`]: crate::mark::MarkedGenerator::new
    pub fn resume(&self, layout: Layout) -> GeneratorBuilder {
        Generator::resume(&Snapshot::at_mark(layout, &[], self.mark))
    }

    /// Writes at least `mark` durably and returns the mark now on disk: under an exclusive
    /// lock on `PATH.lock` (every writer of the file, in this process or another, takes it),
    /// reads the mark on disk and writes the greater of the two with [`replace_durably`]. So
    /// the mark on disk never goes down, whoever writes it.
    pub(super) fn write(&self, mark: u64) -> Result<u64> {
        let fail = |what: &str, err: io::Error| io_error(&self.path, what, err);
        self.owner.ensure(&self.path, self.mark)?;
        let _lock =
            FileLock::take(&self.sibling(".lock")).map_err(|e| fail("cannot lock the file", e))?;
        crate::pause::point(crate::pause::Point::MarkWrite);
        let mark = match read_mark(&self.path)? {
            Some(on_disk) if on_disk >= mark => return Ok(on_disk),
            _ => mark,
        };
        replace_durably(&self.path, format!("{mark}\n").as_bytes())
            .map_err(|e| fail("cannot write the mark", e))?;
        Ok(mark)
    }

    /// `PATH` with `suffix` appended.
    fn sibling(&self, suffix: &str) -> PathBuf {
        let mut path = self.path.clone().into_os_string();
        path.push(suffix);
        path.into()
    }
}

/// An exclusive advisory lock on a lock file, held until dropped (`flock`, which also keeps
/// two writers of one process apart: each opens the file anew). Where there is no `flock`,
/// writers in one process are kept apart by the generator's own lock and nothing more.
///
/// Fork: a child forked while a thread holds the lock gets a copy of the descriptor, which no
/// code of the child ever closes (the thread that held it is not there), and a `flock` lasts
/// while any descriptor of the open file does. So the lock is released by an explicit unlock
/// on drop, which releases it for the parent and the child alike, not by the close.
struct FileLock {
    #[cfg(unix)]
    file: File,
}

#[cfg(unix)]
impl Drop for FileLock {
    fn drop(&mut self) {
        // An error leaves the lock to the close, as before: nothing better to do in a drop.
        let _ = rustix::fs::flock(&self.file, rustix::fs::FlockOperation::Unlock);
    }
}

impl FileLock {
    fn take(path: &Path) -> io::Result<FileLock> {
        #[cfg(unix)]
        {
            let file = fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(path)?;
            rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)?;
            Ok(FileLock { file })
        }
        #[cfg(not(unix))]
        {
            let _ = path;
            Ok(FileLock {})
        }
    }
}
