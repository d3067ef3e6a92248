//! Temporary files for the tests, and names no other test or run uses (for directories, tables
//! and keys).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A name part no other call, process or run gives: `<pid>_<nanoseconds>_<n>`.
pub fn unique_suffix() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!(
        "{}_{nanos}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// A fresh directory under the system's temp dir, named for the test, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    /// Makes an empty directory, unique to this process and call, with `name` in its name.
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("snowmint-test-{name}-{}", unique_suffix()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// The path of `name` in the directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
