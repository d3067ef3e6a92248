//! The mark: IDs that survive a crash without repeating.
//!
//! A mark is a Unix-millisecond time above every ID a generator returned, written durably
//! ahead of minting. A [`MarkedGenerator`] returns an ID only once its [`MarkStore`] holds a
//! mark above the ID's time, and a generator restarted from the mark starts above it. The
//! stores: a [`MarkFile`] on local disk (as a [`MarkFileStore`]; its guarantee and cost are
//! documented on [`MarkFile`]) and stores of other crates' own (`snowmint-etcd` keeps one in
//! etcd), built on [`MarkStore`] with [`ForkCheck`] and [`minted_end`].
//!
//! The file's write, [`replace_durably`], is public: a file of the caller's own (a state
//! written ahead of minting, as the `snowmint` tool's `--snapshot` file is) is replaced the
//! same way.

use std::fs::{self, File};
use std::io::{self, Write};
#[cfg(unix)]
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
#[cfg(unix)]
use std::sync::TryLockError;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::clock::Clock;
use crate::error::{Error, Result, bounded, bounded_path};
use crate::generator::{Generator, GeneratorBuilder, Snapshot};
use crate::layout::Layout;
use crate::sync::{AtomicU64, Ordering};

mod marked;

pub use crate::fork::ForkCheck;
pub use marked::{MarkStore, MarkedGenerator, minted_end};

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkFile {
    path: PathBuf,
    interval_ms: u64,
    mark: Option<u64>,
    /// The exclusive hold on the file, shared by clones.
    owner: Owner,
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
    pub fn resume(&self, layout: Layout) -> GeneratorBuilder {
        Generator::resume(&Snapshot::at_mark(layout, &[], self.mark))
    }

    /// Writes at least `mark` durably and returns the mark now on disk: under an exclusive
    /// lock on `PATH.lock` (every writer of the file, in this process or another, takes it),
    /// reads the mark on disk and writes the greater of the two with [`replace_durably`]. So
    /// the mark on disk never goes down, whoever writes it.
    fn write(&self, mark: u64) -> Result<u64> {
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

/// The longest mark file read: a mark is at most 20 digits and a newline.
const MAX_FILE_BYTES: u64 = 64;

/// The mark in the file at `path`, `None` if there is no file. Reads at most
/// [`MAX_FILE_BYTES`] (and one more, to tell a longer file): a longer file is corrupt.
fn read_mark(path: &Path) -> Result<Option<u64>> {
    use std::io::Read;
    let file = match File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(io_error(path, "cannot read it", err)),
    };
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| io_error(path, "cannot read it", err))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(file_error(
            path,
            format!(
                "is longer than {MAX_FILE_BYTES} bytes; expected one line with a \
                 Unix-millisecond mark"
            ),
        ));
    }
    let text = String::from_utf8_lossy(&bytes);
    parse_mark(&text)
        .map(Some)
        .map_err(|reason| file_error(path, reason))
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

/// The exclusive hold on a mark file for as long as a generator may mint from it, and the
/// process it was opened in. The hold: an `flock` of `PATH.owner` on a descriptor of its own
/// (kept in [`HELD`]), shared by the file's clones and let go when the last one is dropped (or
/// the process ends, even by `kill -9`). A lock file apart from the writes' `PATH.lock`:
/// `flock` locks belong to an open file description, so a write's lock on a new descriptor of
/// the held file would wait for this hold forever. Nothing is held where there is no `flock`.
///
/// Fork: the hold stays the parent's (see [`HELD`]), and the child refuses to write the file
/// or to start a generator over it ([`here`](Owner::here)): a generator of the child's over
/// its parent's file would mint the IDs its parent's generator mints.
#[derive(Clone)]
struct Owner(Arc<Hold>);

struct Hold {
    /// The held descriptor's number, in [`HELD`]; `None` until taken (`open` could not make
    /// the lock file). Locked only by `ensure`, on a write, which a forked child never
    /// reaches (`here` refuses first), and never by the drop: a fork that catches it taken
    /// leaves the child nothing that waits for it.
    #[cfg(unix)]
    fd: Mutex<Option<RawFd>>,
    /// The fork count and the process when the file was opened.
    forks: u64,
    opened_in: u32,
}

impl Owner {
    /// Takes the hold on `path`, refusing if another holds it. Failing to make the lock file
    /// (its directory does not exist yet) leaves the hold to the first write.
    fn take(path: &Path) -> Result<Owner> {
        // First: registers the fork handlers and the step that closes a child's copy of the
        // hold.
        let forks = crate::fork::watch();
        #[cfg(unix)]
        HOLDS_IN_CHILD.register();
        #[cfg(unix)]
        let fd = match hold(path) {
            Ok(fd) => Some(fd),
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => {
                return Err(Owner::refused(path));
            }
            Err(_) => None,
        };
        #[cfg(not(unix))]
        let _ = path;
        Ok(Owner(Arc::new(Hold {
            #[cfg(unix)]
            fd: Mutex::new(fd),
            forks,
            opened_in: std::process::id(),
        })))
    }

    /// `Ok` in the process that opened the file, [`Error::Forked`] in a forked child of it.
    fn here(&self) -> Result<()> {
        if crate::fork::generation() == self.0.forks {
            return Ok(());
        }
        Err(Error::Forked {
            generator: "MarkFile",
            built_in: self.0.opened_in,
            used_in: std::process::id(),
        })
    }

    /// Before a write: the hold is taken (now, if `open` could not), and a hold taken now
    /// finds the file as `open` read it (`opened`), not written by another generator since.
    fn ensure(&self, path: &Path, opened: Option<u64>) -> Result<()> {
        #[cfg(unix)]
        {
            // Poisoning cannot leave a half-taken hold: the slot is set once, whole.
            let mut fd = self.0.fd.lock().unwrap_or_else(PoisonError::into_inner);
            if fd.is_some() {
                return Ok(());
            }
            let taken = hold(path).map_err(|err| match err.kind() {
                io::ErrorKind::WouldBlock => Owner::refused(path),
                _ => io_error(path, "cannot lock the file", err),
            })?;
            let unchanged = read_mark(path).and_then(|on_disk| match on_disk == opened {
                true => Ok(()),
                false => Err(file_error(
                    path,
                    format!(
                        "holds the mark {on_disk:?}, written by another generator since it was \
                         opened with {opened:?}; expected to resume from the file as it is"
                    ),
                )),
            });
            if let Err(err) = unchanged {
                let_go(taken);
                return Err(err);
            }
            *fd = Some(taken);
            Ok(())
        }
        #[cfg(not(unix))]
        {
            let _ = (path, opened);
            Ok(())
        }
    }

    /// Another holds the file at `path`.
    #[cfg(unix)]
    fn refused(path: &Path) -> Error {
        file_error(
            path,
            "is held by another process or another MarkFile::open in this process (its \
             .owner lock is taken); expected one generator per mark file at a time"
                .to_owned(),
        )
    }
}

#[cfg(unix)]
impl Drop for Hold {
    /// Lets the hold go, in the process that took it. In a forked child the child handler
    /// closed the child's copy already, and the number may name a descriptor of the child's
    /// own since.
    fn drop(&mut self) {
        let fd = self.fd.get_mut().unwrap_or_else(PoisonError::into_inner);
        if let Some(fd) = fd.take() {
            if crate::fork::generation() == self.forks {
                let_go(fd);
            }
        }
    }
}

/// The descriptors of the holds this process took, each with an `flock` of its `PATH.owner`.
///
/// Fork: a child of `fork()` gets a copy of each descriptor, and an `flock` lasts while any
/// descriptor of its open file description does, so a child that never execs (a worker)
/// would keep its parent's files held after the parent let them go, and the parent's
/// successor could not open them until the child exits. The child handler closes the child's
/// copies ([`after_fork_in_child`]): closing one copy leaves the lock to the others, so the
/// holds stay the parent's, and end with the parent's. Taken only inside a fork section, so no
/// fork catches it taken.
#[cfg(unix)]
static HELD: Mutex<Vec<File>> = Mutex::new(Vec::new());

/// Takes the hold on `path`: `PATH.owner`, created if need be and locked without waiting,
/// kept in [`HELD`]; its descriptor's number. In a fork section, so that no fork copies a
/// locked descriptor the child handler cannot find.
#[cfg(unix)]
fn hold(path: &Path) -> io::Result<RawFd> {
    let _section = crate::fork::enter();
    let mut owner = path.as_os_str().to_owned();
    owner.push(".owner");
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(PathBuf::from(owner))?;
    rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive)?;
    let fd = file.as_raw_fd();
    HELD.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(file);
    Ok(fd)
}

/// Closes the held descriptor `fd`, which lets its hold go.
#[cfg(unix)]
fn let_go(fd: RawFd) {
    let _section = crate::fork::enter();
    let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(at) = held.iter().position(|file| file.as_raw_fd() == fd) {
        drop(held.swap_remove(at));
    }
}

/// [`after_fork_in_child`], registered with the fork handlers before a hold is taken.
#[cfg(unix)]
static HOLDS_IN_CHILD: crate::fork::ChildStep = crate::fork::ChildStep::new(after_fork_in_child);

/// In a forked child, from the fork's child handler: closes the child's copies of the holds'
/// descriptors (see [`HELD`]). Takes no lock that can be taken: no section is in flight in a
/// child, and `close` is async-signal-safe.
#[cfg(unix)]
fn after_fork_in_child() {
    let mut held = match HELD.try_lock() {
        Ok(held) => held,
        Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
        // Not at a fork: the lock is taken only inside fork sections.
        Err(TryLockError::WouldBlock) => return,
    };
    held.clear();
}

/// The hold is not part of the file's value: clones and reopenings compare by path, interval
/// and mark.
impl PartialEq for Owner {
    fn eq(&self, _: &Owner) -> bool {
        true
    }
}

impl Eq for Owner {}

impl std::fmt::Debug for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Owner")
    }
}

fn parse_mark(text: &str) -> Result<u64, String> {
    let expected = "expected one line with a Unix-millisecond mark";
    let line = text.strip_suffix('\n').unwrap_or(text);
    let shown = bounded(text);
    if line.is_empty() {
        return Err(format!("holds {shown:?}, {expected}"));
    }
    line.parse()
        .map_err(|err| format!("holds {shown:?}, {expected}: {err}"))
}

/// The file at `path` is not what it should be: `reason` says what and what was expected.
fn file_error(path: &Path, reason: String) -> Error {
    Error::MarkFile {
        path: bounded_path(path),
        reason,
        source: None,
    }
}

/// `what` failed on the file at `path` with `err`, kept as the error's source.
fn io_error(path: &Path, what: &str, err: io::Error) -> Error {
    Error::MarkFile {
        path: bounded_path(path),
        reason: what.to_owned(),
        source: Some(err.into()),
    }
}

/// Replaces the file at `path` with `bytes` durably, so that after a crash at any point it holds
/// either its old content or all of `bytes`: writes a temporary file of this write's own beside
/// it (`PATH.tmp.PID.N`, this process's ID and a count of its writes), gives it the permissions
/// of the file it replaces, `fsync`s it, renames it over `path` and `fsync`s the directory.
/// This is the write of a [`MarkFile`]; it takes no lock, so concurrent writers of one
/// path must agree among themselves (the last rename wins).
///
/// A temporary file left by a write cut short is never read or reused; on an error it is
/// removed.
///
/// # Errors
///
/// The failed step's I/O error, of the same [`kind`](io::Error::kind), its message naming the
/// step and the temporary file: `cannot create`, `cannot write`, `cannot set permissions of`,
/// `cannot fsync` or `cannot rename PATH.tmp.PID.N over it`; or, when only the directory's
/// `fsync` failed, `saved, but fsyncing its directory failed (the rename may not be durable)`.
///
/// # Examples
///
/// ```
/// use snowmint::mark::replace_durably;
///
/// let dir = std::env::temp_dir().join(format!("snowmint-doc-replace-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// replace_durably(dir.join("state"), b"one\n")?;
/// replace_durably(dir.join("state"), b"two\n")?;
/// assert_eq!(std::fs::read_to_string(dir.join("state"))?, "two\n");
/// assert_eq!(std::fs::read_dir(&dir)?.count(), 1); // no temporary file is left
///
/// let err = replace_durably(dir.join("missing").join("state"), b"x").unwrap_err();
/// assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
/// assert!(err.to_string().starts_with("cannot create "));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn replace_durably(path: impl AsRef<Path>, bytes: &[u8]) -> io::Result<()> {
    let path = path.as_ref();
    // A name no other write uses: this process's ID and a count of its writes.
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp.{}.{n}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let step = |what: &str, err: io::Error| {
        io::Error::new(err.kind(), format!("{what} {}: {err}", tmp.display()))
    };
    let written = (|| {
        let mut file = File::create(&tmp).map_err(|e| step("cannot create", e))?;
        file.write_all(bytes).map_err(|e| step("cannot write", e))?;
        // Keep the replaced file's permissions (it may be private to its owner).
        if let Ok(metadata) = fs::metadata(path) {
            file.set_permissions(metadata.permissions())
                .map_err(|e| step("cannot set permissions of", e))?;
        }
        file.sync_all().map_err(|e| step("cannot fsync", e))?;
        drop(file);
        fs::rename(&tmp, path).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot rename {} over it: {e}", tmp.display()),
            )
        })
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written?;
    sync_dir(path).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!(
                "saved, but fsyncing its directory failed (the rename may not be durable): {e}"
            ),
        )
    })
}

/// Makes a rename in `path`'s directory durable.
#[cfg(unix)]
fn sync_dir(path: &Path) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    File::open(dir)?.sync_all()
}

/// Directories cannot be opened for syncing here; the rename is as durable as the platform
/// makes it.
#[cfg(not(unix))]
fn sync_dir(_path: &Path) -> io::Result<()> {
    Ok(())
}

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
    use super::*;

    #[test]
    fn parses_one_line_marks() {
        assert_eq!(parse_mark("42\n"), Ok(42));
        assert_eq!(parse_mark("42"), Ok(42));
        assert!(parse_mark("").unwrap_err().contains("holds \"\""));
        assert!(parse_mark("\n").is_err());
        assert!(parse_mark("4 2\n").is_err());
        assert!(parse_mark("42\n\n").is_err());
        assert!(parse_mark("-1\n").is_err());
    }

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
