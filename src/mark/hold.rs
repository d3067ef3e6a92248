//! The exclusive hold on a mark file, kept while a generator may mint from it, and what a
//! forked child does with its copy.

#[cfg(unix)]
use std::fs::{self, File};
#[cfg(unix)]
use std::io;
#[cfg(unix)]
use std::os::fd::{AsRawFd, RawFd};
use std::path::Path;
#[cfg(unix)]
use std::path::PathBuf;
use std::sync::Arc;
#[cfg(unix)]
use std::sync::{Mutex, PoisonError, TryLockError};

#[cfg(unix)]
use super::read::{file_error, io_error, read_mark};
use crate::error::{Error, Result};

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
pub(super) struct Owner(Arc<Hold>);

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
    pub(super) fn take(path: &Path) -> Result<Owner> {
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
    pub(super) fn here(&self) -> Result<()> {
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
    pub(super) fn ensure(&self, path: &Path, opened: Option<u64>) -> Result<()> {
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
