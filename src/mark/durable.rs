//! [`replace_durably`]: a file's content replaced so that a crash leaves the old or the new.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

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
///
/// [`MarkFile`]: crate::mark::MarkFile
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
