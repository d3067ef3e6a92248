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
/// removed, and a process's first write to `path` removes those of `path` left by processes
/// no longer running (a write killed midway; on Linux, where `/proc` tells which processes run).
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
    if first_write_of(path) {
        remove_abandoned(path);
    }
    sync_dir(path).map_err(|e| {
        io::Error::new(
            e.kind(),
            format!(
                "saved, but fsyncing its directory failed (the rename may not be durable): {e}"
            ),
        )
    })
}

/// The paths this process has written, for [`first_write_of`].
static WRITTEN: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// Whether this is the process's first write to `path`; `false` while another thread holds
/// the list (the sweep is best effort).
///
/// Fork: the list is never waited for, so a child forked while another thread held it (a
/// lock the child can never see released) skips its sweeps instead of hanging; a child
/// inherits the parent's list, and the parent's temporary files are of a running process
/// anyway.
fn first_write_of(path: &Path) -> bool {
    let mut written = match WRITTEN.try_lock() {
        Ok(written) => written,
        Err(std::sync::TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
        Err(std::sync::TryLockError::WouldBlock) => return false,
    };
    if written.iter().any(|seen| seen == path) {
        return false;
    }
    written.push(path.to_owned());
    true
}

/// Removes the temporary files of `path` (`PATH.tmp.PID.N`) whose process no longer runs: what
/// a write killed midway left. Best effort: a file that cannot be listed or removed stays.
#[cfg(target_os = "linux")]
fn remove_abandoned(path: &Path) {
    let Some(name) = path.file_name() else {
        return;
    };
    let dir = dir_of(path);
    let mut prefix = name.to_owned();
    prefix.push(".tmp.");
    let Some(prefix) = prefix.to_str() else {
        return;
    };
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|n| n.strip_prefix(prefix)) else {
            continue;
        };
        let Some((pid, count)) = rest.split_once('.') else {
            continue;
        };
        let numbers = pid.parse::<u32>().is_ok() && count.parse::<u64>().is_ok();
        let gone = || !Path::new("/proc").join(pid).exists();
        if numbers && pid != std::process::id().to_string() && gone() {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Which processes run is not known here: temporary files of killed writes stay.
#[cfg(not(target_os = "linux"))]
fn remove_abandoned(_path: &Path) {}

/// Makes a rename in `path`'s directory durable.
#[cfg(unix)]
fn sync_dir(path: &Path) -> io::Result<()> {
    File::open(dir_of(path))?.sync_all()
}

/// The directory `path` is in: its parent, or `.` for a bare file name.
#[cfg(unix)]
fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Directories cannot be opened for syncing here; the rename is as durable as the platform
/// makes it.
#[cfg(not(unix))]
fn sync_dir(_path: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// Held by each test here: one holds the list of written paths, which the other's write
    /// needs free.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

    /// The ID of a process that ran and was reaped: no process runs under it now.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    /// Regression: a write killed midway left `PATH.tmp.PID.N` beside the file for good. The
    /// next process's first write removes it, and leaves a running process's alone.
    #[test]
    fn a_first_write_removes_temporary_files_of_processes_no_longer_running() {
        let _serial = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let dir = std::env::temp_dir().join(format!("snowmint-abandoned-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let dead = dead_pid();
        let abandoned = dir.join(format!("state.tmp.{dead}.4"));
        let running = dir.join(format!("state.tmp.{}.9", std::process::id()));
        let live_other = dir.join("state.tmp.1.0"); // pid 1 always runs
        let other_file = dir.join(format!("other.tmp.{dead}.4"));
        for file in [&abandoned, &running, &live_other, &other_file] {
            fs::write(file, b"cut short").unwrap();
        }
        replace_durably(dir.join("state"), b"new\n").unwrap();
        assert!(!abandoned.exists(), "a dead process's temporary file stays");
        assert!(running.exists() && live_other.exists() && other_file.exists());
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A write never waits for the list of written paths: a child forked while another thread
    /// held it sees it held for good, and must still write (skipping the sweep).
    #[test]
    fn a_write_while_the_written_list_is_held_goes_on_without_the_sweep() {
        let _serial = ONE_AT_A_TIME
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let dir = std::env::temp_dir().join(format!("snowmint-held-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let dead = dead_pid();
        let abandoned = dir.join(format!("state.tmp.{dead}.1"));
        fs::write(&abandoned, b"cut short").unwrap();
        let held = WRITTEN.lock().unwrap();
        replace_durably(dir.join("state"), b"new\n").unwrap();
        assert_eq!(fs::read(dir.join("state")).unwrap(), b"new\n");
        assert!(abandoned.exists(), "no sweep while the list is held");
        drop(held);
        fs::remove_dir_all(&dir).unwrap();
    }
}
