//! [`SharedMapping`]: a [`SharedWord`] in memory mapped shared, so that processes forked after
//! the mapping, or unrelated processes mapping one file, mint from the same word.

use std::fs::{File, OpenOptions};
use std::io;
use std::ops::Deref;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::ptr::NonNull;

use super::process::SharedWord;

/// A [`SharedWord`] in a shared memory mapping (`mmap` with `MAP_SHARED`): a `fork()` keeps one
/// word for the parent and the child instead of copying it, and every process that maps the
/// same file sees the same word. Dereferences to the word; unmapped on drop.
///
/// - [`anonymous`](Self::anonymous): for a pre-fork server. Map it in the parent before it
///   forks its workers; each worker builds its own generator on the word
///   ([`GeneratorBuilder::build_process_shared`](super::GeneratorBuilder::build_process_shared)),
///   and every worker's IDs are unique among all of them, with one node ID for the host.
/// - [`open`](Self::open): for unrelated processes of one host, through a file (on a `tmpfs`
///   such as `/dev/shm` it never touches a disk). The file holds the word's 64 bytes; the
///   word lives as long as the file, across the processes' restarts, though not across the
///   host's (a `tmpfs` is emptied) nor durably: pair it with a
///   [`MarkFile`](crate::mark::MarkFile) for IDs that must not repeat after a crash of the host.
///
/// # Examples
///
/// ```
/// use snowmint::{Generator, Layout, generator::SharedMapping};
///
/// let mapping = SharedMapping::anonymous()?;
/// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build_process_shared(&mapping)?;
/// assert!(generator.mint().is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SharedMapping {
    word: NonNull<SharedWord>,
}

// SAFETY of the two impls: the mapping is a `SharedWord`, which is `Send` and `Sync` (atomics
// only), and the pointer is owned by this value alone (unmapped once, on drop).
#[allow(unsafe_code)]
unsafe impl Send for SharedMapping {}
#[allow(unsafe_code)]
unsafe impl Sync for SharedMapping {}

impl SharedMapping {
    /// A fresh word in a shared anonymous mapping: shared with the children this process
    /// forks after it is made.
    ///
    /// # Errors
    ///
    /// The I/O error of `mmap`, its message naming it.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::generator::SharedMapping;
    ///
    /// let mapping = SharedMapping::anonymous()?;
    /// assert!(!mapping.is_claimed());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn anonymous() -> io::Result<Self> {
        Self::map(libc::MAP_SHARED | libc::MAP_ANONYMOUS, -1)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot map a shared word: {e}")))
    }

    /// The word in the file at `path`, created (all zeros: a fresh word) if it does not
    /// exist, readable and writable by its owner only.
    ///
    /// # Errors
    ///
    /// The I/O error of the step that failed, its message naming the step and the path:
    /// `cannot open`, `cannot size` (a file of another length than
    /// [`SharedWord::SIZE`] is refused: it is not a word) or `cannot map`.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Generator, Layout, generator::SharedMapping};
    ///
    /// let path = std::env::temp_dir().join(format!("snowmint-doc-word-{}", std::process::id()));
    /// let first = SharedMapping::open(&path)?;
    /// let a = Generator::builder(Layout::TWITTER).node("machine", 1).build_process_shared(&first)?;
    /// let id = a.mint()?;
    /// // A second mapping of the file (another process's, say) is the same word.
    /// let second = SharedMapping::open(&path)?;
    /// let b = Generator::builder(Layout::TWITTER).node("machine", 1).build_process_shared(&second)?;
    /// assert!(b.mint()? > id);
    /// # std::fs::remove_file(&path)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(path: impl AsRef<Path>) -> io::Result<Self> {
        let path = path.as_ref();
        let fail = |what: &str, err: io::Error| {
            io::Error::new(err.kind(), format!("{what} {}: {err}", path.display()))
        };
        let file = open_private(path).map_err(|e| fail("cannot open", e))?;
        let len = file.metadata().map_err(|e| fail("cannot size", e))?.len();
        let size = SharedWord::SIZE as u64;
        if len == 0 {
            file.set_len(size).map_err(|e| fail("cannot size", e))?;
        } else if len != size {
            return Err(fail(
                "cannot size",
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("the file holds {len} bytes; expected a shared word's {size}"),
                ),
            ));
        }
        Self::map(libc::MAP_SHARED, file.as_raw_fd()).map_err(|e| fail("cannot map", e))
        // The mapping outlives the descriptor, which is closed here.
    }

    fn map(flags: libc::c_int, fd: libc::c_int) -> io::Result<Self> {
        // SAFETY: a new mapping at an address the kernel picks, of a file (or of anonymous
        // memory) at least `SIZE` bytes long: it overlaps no memory of the program. The kernel
        // zero-fills anonymous memory and the file's new bytes, and all zeros is a valid
        // `SharedWord` (atomics); a mapping is page-aligned, past `SharedWord`'s 64.
        #[allow(unsafe_code)]
        let address = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                SharedWord::SIZE,
                libc::PROT_READ | libc::PROT_WRITE,
                flags,
                fd,
                0,
            )
        };
        if address == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let word = NonNull::new(address.cast::<SharedWord>())
            .ok_or_else(|| io::Error::other("mmap returned a null address"))?;
        Ok(SharedMapping { word })
    }
}

fn open_private(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)
}

impl Deref for SharedMapping {
    type Target = SharedWord;

    fn deref(&self) -> &SharedWord {
        // SAFETY: the mapping is valid, aligned and initialised (see `map`) until `drop`, which
        // a borrow of `self` rules out.
        #[allow(unsafe_code)]
        unsafe {
            self.word.as_ref()
        }
    }
}

impl Drop for SharedMapping {
    fn drop(&mut self) {
        // SAFETY: the mapping `map` made, unmapped once; no borrow of it outlives `self`.
        #[allow(unsafe_code)]
        unsafe {
            libc::munmap(self.word.as_ptr().cast(), SharedWord::SIZE);
        }
    }
}

impl std::fmt::Debug for SharedMapping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("SharedMapping").field(&**self).finish()
    }
}
