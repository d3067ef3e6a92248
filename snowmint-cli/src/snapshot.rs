//! The `--snapshot` file: the generator's state, as the library's [`Snapshot`] (or, for
//! `--layout sno`, [`SnoSnapshot`]) in JSON, written ahead of minting and exactly at exit,
//! held by one process at a time.

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::failure::{Failure, bounded, bounded_to};

use serde::Serialize;
use serde::de::DeserializeOwned;
use snowmint::clock::Clock;
use snowmint::mark::{MarkStore, replace_durably};
use snowmint::sno::SnoSnapshot;
use snowmint::{Generator, Snapshot};

/// The snapshot file, for `mint --help`.
pub(crate) const SNAPSHOT_FORMAT: &str = "\
Snapshot files (--snapshot FILE) hold the generator's state as JSON: the library's Snapshot \
as it serializes (feature serde), with the layout in full, the node values, the last tick \
and sequence minted and the tick-tock timelines; for --layout sno, its SnoSnapshot: the \
partition, the metabyte and that state.

FILE is written ahead of minting: before an ID is printed, FILE holds a state above it (the \
time of the ID plus 100 ms, on both timelines, and never below the state the run resumed), so \
a run killed at any point, even by kill -9, leaves a FILE the next run starts above. At exit, \
also after an error or a closed stdout, FILE gets the exact state, so the next run continues \
where this one stopped. Each write goes to a temporary file of its own, is fsynced and renamed \
over FILE.

One FILE serves one process at a time: a run holds an exclusive lock on FILE.lock from before \
it reads FILE until it exits, and a second run given FILE meanwhile exits at once with an \
error that names FILE. A run removes FILE.lock as it exits, still holding it; one killed \
before (kill -9) leaves it behind, and the next run takes it over. A run that locks a \
FILE.lock that another run removed meanwhile opens FILE.lock afresh, so two runs never hold \
two different FILE.lock files at once.";

/// The largest snapshot file read; real ones are under a kilobyte.
pub(crate) const SNAPSHOT_MAX_BYTES: u64 = 64 * 1024;

/// How far ahead of an ID's time the state written ahead of minting is.
pub(crate) const AHEAD_MS: u64 = 100;

/// The exclusive hold on a snapshot file for a run: an `flock` of `FILE.lock` (FILE itself is
/// replaced by every write), taken before FILE is read and let go when the run ends, even by
/// `kill -9`. Two runs resumed from one FILE would print the same IDs.
///
/// The run removes `FILE.lock` as it ends, while it still holds the lock. A second run may
/// have opened that file before and lock it once the first lets go: it then holds a file no
/// longer at `FILE.lock`, so it checks, after locking, that `FILE.lock` is the file it holds,
/// and opens it afresh when not. Two runs that hold a lock thus hold the same file's.
pub(crate) struct SnapshotLock {
    path: PathBuf,
    _file: File,
}

impl SnapshotLock {
    /// Takes the hold on the snapshot file at `path`, without waiting: a run that holds it
    /// already is an error naming the file, and so is a directory that is not there.
    pub(crate) fn take(path: &Path) -> Result<SnapshotLock, Failure> {
        let mut lock_path = path.as_os_str().to_owned();
        lock_path.push(".lock");
        let lock_path = PathBuf::from(lock_path);
        loop {
            let file = fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&lock_path)
                .map_err(|error| match no_directory(path) {
                    Some(problem) => Failure::snapshot(path, problem),
                    None => Failure::snapshot(
                        path,
                        format_args!("cannot open its lock file {}: {error}", lock_path.display()),
                    ),
                })?;
            lock(&file).map_err(|error| match error.kind() {
                io::ErrorKind::WouldBlock => Failure::snapshot(
                    path,
                    format_args!(
                        "another snowmint process is using it ({} is locked); expected one \
                         process per snapshot file at a time",
                        lock_path.display()
                    ),
                ),
                _ => Failure::snapshot(
                    path,
                    format_args!("cannot lock {}: {error}", lock_path.display()),
                ),
            })?;
            // A run that ended meanwhile removed the file locked here: open the one there now.
            if is_at(&file, &lock_path) {
                return Ok(SnapshotLock {
                    path: lock_path,
                    _file: file,
                });
            }
        }
    }
}

impl Drop for SnapshotLock {
    /// Removes `FILE.lock` before the lock is let go (the file is closed after this).
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// What is wrong with the directory of `path`, if it is missing or not a directory: a
/// snapshot cannot be made there.
fn no_directory(path: &Path) -> Option<String> {
    let directory = path.parent().filter(|dir| !dir.as_os_str().is_empty())?;
    match fs::metadata(directory) {
        Ok(found) if found.is_dir() => None,
        Ok(_) => Some(format!("{} is not a directory", directory.display())),
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            Some(format!("directory {} does not exist", directory.display()))
        }
        Err(_) => None,
    }
}

/// Whether `file` is the file at `path`.
#[cfg(unix)]
fn is_at(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(held), Ok(there)) => (held.dev(), held.ino()) == (there.dev(), there.ino()),
        _ => false,
    }
}

/// No `flock` here (see [`lock`]): any file will do.
#[cfg(not(unix))]
fn is_at(_file: &File, _path: &Path) -> bool {
    true
}

/// An exclusive `flock` of `file`, without waiting.
#[cfg(unix)]
fn lock(file: &File) -> io::Result<()> {
    Ok(rustix::fs::flock(
        file,
        rustix::fs::FlockOperation::NonBlockingLockExclusive,
    )?)
}

/// No `flock` here: one process at a time is the user's to keep.
#[cfg(not(unix))]
fn lock(_file: &File) -> io::Result<()> {
    Ok(())
}

/// A state a snapshot file holds: a generator's, or a sno generator's.
pub(crate) trait Saved: Serialize + DeserializeOwned + Clone {
    /// This state, raised to cover every ID with a time below `mark_ms` on either timeline,
    /// and never lowered on any: the library's [`Snapshot::merged`] with
    /// [`Snapshot::at_mark`].
    fn ahead(&self, mark_ms: u64) -> Self;

    /// `exact`, the state at exit, never below this state (the state resumed) on any
    /// timeline.
    fn at_least(&self, exact: &Self) -> Self;
}

impl Saved for Snapshot {
    fn ahead(&self, mark_ms: u64) -> Self {
        self.merged(&Snapshot::at_mark(self.layout, &self.nodes, Some(mark_ms)))
    }

    fn at_least(&self, exact: &Self) -> Self {
        exact.merged(self)
    }
}

impl Saved for SnoSnapshot {
    fn ahead(&self, mark_ms: u64) -> Self {
        let mut ahead = self.clone();
        ahead.core = self.core.ahead(mark_ms);
        ahead
    }

    fn at_least(&self, exact: &Self) -> Self {
        let mut at_least = exact.clone();
        at_least.core = self.core.at_least(&exact.core);
        at_least
    }
}

/// The snapshot in `path`, or `None` if there is no such file.
pub(crate) fn load_snapshot<T: Saved>(path: &Path) -> Result<Option<T>, Failure> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => {
            return Err(Failure::snapshot(
                path,
                format_args!("cannot open: {error}"),
            ));
        }
    };
    let mut bytes = Vec::new();
    file.take(SNAPSHOT_MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| Failure::snapshot(path, format_args!("cannot read: {error}")))?;
    if bytes.len() as u64 > SNAPSHOT_MAX_BYTES {
        return Err(Failure::snapshot(
            path,
            format_args!(
                "the file is larger than {SNAPSHOT_MAX_BYTES} bytes, expected a snowmint snapshot"
            ),
        ));
    }
    parse_snapshot(&bytes)
        .map(Some)
        .map_err(|problem| Failure::snapshot(path, problem))
}

/// A snapshot file's text: the snapshot in JSON, and a newline.
pub(crate) fn format_snapshot<T: Serialize>(snapshot: &T) -> String {
    let mut text = serde_json::to_string_pretty(snapshot).expect("a snapshot serializes");
    text.push('\n');
    text
}

/// Parses [`format_snapshot`]'s text; the error says that the file's content is wrong, what
/// was wrong, and where in the text when it is one place, in [`plain`] words.
pub(crate) fn parse_snapshot<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    serde_json::from_slice(bytes).map_err(|error| {
        let what = match error.classify() {
            serde_json::error::Category::Data => INVALID,
            _ => "the file is not a snowmint snapshot (JSON)",
        };
        // serde_json's message ends with "at line L column C"; the line comes first here.
        let message = error.to_string();
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(message, _)| message);
        let message = plain(message);
        match error.line() {
            // Checks made on the whole snapshot have no position.
            0 => format!("{what}: {message}"),
            line => format!("{what}: line {line} column {}: {message}", error.column()),
        }
    })
}

/// What a snapshot file whose JSON is well formed but does not hold a valid state is said to
/// be, before what is wrong with it.
pub(crate) const INVALID: &str = "the file holds an invalid snapshot";

/// The most characters of a message about a snapshot file's content.
const MAX_MESSAGE_CHARS: usize = 400;

/// `message` (serde's, or the library's about a state read from a file) fit for a user: each
/// value it echoes between backticks or double quotes cut to 64 characters and an ellipsis,
/// Rust type names (`struct LayoutDef`) said as the JSON they stand for, and the whole cut to
/// [`MAX_MESSAGE_CHARS`].
pub(crate) fn plain(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(open) = rest.find(['`', '"']) {
        out += &without_type_names(&rest[..open]);
        let quote = &rest[open..=open];
        let quoted = &rest[open + 1..];
        // A double-quoted value is Rust's Debug form: `\"` inside it does not close it.
        let mut escaped = false;
        let close = quoted.char_indices().find_map(|(at, c)| {
            let closes = !escaped && quote.starts_with(c);
            escaped = !escaped && c == '\\' && quote == "\"";
            closes.then_some(at)
        });
        let (value, after) = close.map_or((quoted, ""), |at| (&quoted[..at], &quoted[at + 1..]));
        out += quote;
        out += &bounded(value);
        out += quote;
        rest = after;
    }
    out += &without_type_names(rest);
    bounded_to(&out, MAX_MESSAGE_CHARS)
}

/// `text` with serde's names of Rust types (`tuple struct Name`, `struct Name`, `enum Name`)
/// replaced by the JSON they expect.
fn without_type_names(text: &str) -> String {
    let mut out = text.to_owned();
    for (kind, json) in [
        ("unit struct ", "null"),
        ("tuple struct ", "an array"),
        ("struct ", "an object"),
        ("enum ", "one of its names"),
    ] {
        let mut from = 0;
        while let Some(at) = out[from..].find(kind).map(|at| from + at) {
            let name_at = at + kind.len();
            let name_len = out[name_at..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(out.len() - name_at);
            if name_len == 0 {
                from = name_at;
                continue;
            }
            out.replace_range(at..name_at + name_len, json);
            from = at + json.len();
        }
    }
    out
}

/// Writes `snapshot` to `path` durably, with the library's [`replace_durably`]: on failure the
/// error says which step failed.
pub(crate) fn save_snapshot<T: Serialize>(path: &Path, snapshot: &T) -> Result<(), String> {
    replace_durably(path, format_snapshot(snapshot).as_bytes()).map_err(|error| error.to_string())
}

/// The library's refusal of the state read from the snapshot file at `path`, said as the
/// file's.
pub(crate) fn invalid_content(path: &Path, error: &snowmint::Error) -> Failure {
    Failure::snapshot(
        path,
        format_args!("{INVALID}: {}", plain(&error.to_string())),
    )
}

/// How a run with a snapshot file ends: `minted`, unless the write of the exact state
/// (`saved`) failed. If that write failed, the state written ahead stays, above every ID.
pub(crate) fn finish(
    path: &Path,
    minted: Result<(), Failure>,
    saved: Result<(), String>,
) -> Result<(), Failure> {
    match (minted, saved) {
        (minted, Ok(())) => minted,
        (Ok(()), Err(error)) => Err(Failure::snapshot(
            path,
            format_args!("{error}; it holds a state ahead of the IDs minted"),
        )),
        // The write ahead failed, and so did this one: the first says it.
        (Err(failure @ Failure::Snapshot { .. }), Err(_)) => Err(failure),
        (Err(failure), Err(error)) => Err(Failure::snapshot(
            path,
            format_args!("{error}; minting had stopped on: {failure}"),
        )),
    }
}

/// The snapshot file as the mark store of the library's marked generator: before an ID is
/// returned, the file holds the state resumed raised to a mark above the ID's time
/// ([`Saved::ahead`]), so no write lowers a timeline below what an earlier run minted on it.
pub(crate) struct SnapshotStore<T> {
    path: PathBuf,
    /// The state the run resumed from (or a fresh one's): every write covers it.
    resumed: T,
    /// The mark written last, in Unix milliseconds: raised only once the file holds it.
    mark: AtomicU64,
    /// Serializes writes (once per [`AHEAD_MS`] of ID time).
    writing: Mutex<()>,
}

impl<T: Saved> SnapshotStore<T> {
    /// The store for the snapshot file at `path`, of a generator resumed from `resumed`.
    pub(crate) fn new(path: &Path, resumed: T) -> Self {
        SnapshotStore {
            path: path.to_owned(),
            resumed,
            mark: AtomicU64::new(0),
            writing: Mutex::new(()),
        }
    }

    /// The state to write at exit: `exact`, never below the state resumed.
    pub(crate) fn exact(&self, exact: &T) -> T {
        self.resumed.at_least(exact)
    }

    /// `time_ms` is at or past the mark: write a new one.
    #[cold]
    fn raise(&self, time_ms: u64) -> snowmint::Result<()> {
        let _writing = self.writing.lock().unwrap_or_else(PoisonError::into_inner);
        // Relaxed: the mutex orders this with the store of the write before it.
        if time_ms < self.mark.load(Ordering::Relaxed) {
            return Ok(());
        }
        let mark = time_ms.saturating_add(AHEAD_MS);
        let ahead = self.resumed.ahead(mark);
        save_snapshot(&self.path, &ahead).map_err(|reason| {
            snowmint::Error::mark_store(
                "snapshot file",
                format!("{reason}; nothing was minted past it"),
                None,
            )
        })?;
        // Relaxed: stored once the file holds it; a reader needs nothing else from this write.
        self.mark.store(mark, Ordering::Relaxed);
        Ok(())
    }
}

impl<T: Saved> MarkStore for SnapshotStore<T> {
    /// The generator was resumed from the file (or the file is new): it starts above it.
    fn start<C: Clock + Send + Sync + 'static>(
        &self,
        _generator: &Arc<Generator<C>>,
    ) -> snowmint::Result<()> {
        Ok(())
    }

    /// Returns once the file holds a state above `time_ms`.
    fn admit(&self, time_ms: u64) -> snowmint::Result<()> {
        // Relaxed: the mark publishes no memory, and each value it holds was stored after the
        // file held it.
        if time_ms < self.mark.load(Ordering::Relaxed) {
            return Ok(());
        }
        self.raise(time_ms)
    }

    /// The exact state is written by the caller, from the generator's snapshot.
    fn stop(&mut self, _end_ms: u64) -> snowmint::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snowmint::Layout;

    #[test]
    fn every_presets_snapshot_formats_and_parses_back() {
        for &name in Layout::PRESETS {
            let layout = Layout::preset(name, Some(1_700_000_000_000))
                .or_else(|_| Layout::preset(name, None))
                .unwrap();
            let nodes: Vec<_> = layout.node_fields().map(|f| (f.name(), f.max())).collect();
            let mut snapshot = Snapshot::at_mark(layout, &nodes, None);
            snapshot.last_tick = layout.max_ticks();
            snapshot.sequence = layout.max_sequence();
            let text = format_snapshot(&snapshot);
            assert_eq!(parse_snapshot(text.as_bytes()), Ok(snapshot), "{text}");
        }
    }

    #[test]
    fn plain_bounds_each_echoed_value_and_drops_rust_type_names() {
        let long = "z".repeat(1000);
        assert_eq!(
            plain(&format!(
                "invalid type: string \"{long}\", expected struct LayoutDef"
            )),
            format!(
                "invalid type: string \"{}…\", expected an object",
                &long[..64]
            )
        );
        assert_eq!(
            plain(&format!("unknown field `{long}`, expected enum FieldKind")),
            format!(
                "unknown field `{}…`, expected one of its names",
                &long[..64]
            )
        );
        assert_eq!(
            plain("a \"struct X\" stays, tuple struct Pair goes"),
            "a \"struct X\" stays, an array goes"
        );
        let escaped = format!("string \"{}\"", "a\\\"".repeat(1000));
        assert!(plain(&escaped).chars().count() < 80, "{}", plain(&escaped));
        assert!(plain(&"`x` ".repeat(1000)).chars().count() <= MAX_MESSAGE_CHARS + 1);
    }

    #[test]
    fn a_lock_is_refused_while_held_and_its_file_removed_when_let_go() {
        let dir = std::env::temp_dir().join(format!("snowmint-lock-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let snapshot = dir.join("held.snap");
        let lock_file = dir.join("held.snap.lock");
        let held = SnapshotLock::take(&snapshot).unwrap_or_else(|failure| panic!("{failure}"));
        assert!(lock_file.exists());
        let refused = SnapshotLock::take(&snapshot).err().unwrap().to_string();
        assert!(refused.contains("another snowmint process"), "{refused}");
        drop(held);
        assert!(!lock_file.exists());
        drop(SnapshotLock::take(&snapshot).unwrap_or_else(|failure| panic!("{failure}")));
        assert!(!lock_file.exists());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_lock_file_removed_or_replaced_is_no_longer_the_one_held() {
        let dir = std::env::temp_dir().join(format!("snowmint-is-at-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.snap.lock");
        let file = File::create(&path).unwrap();
        assert!(is_at(&file, &path));
        fs::remove_file(&path).unwrap();
        assert!(!is_at(&file, &path));
        File::create(&path).unwrap();
        assert!(!is_at(&file, &path));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn parse_errors_name_the_line_and_column() {
        let good = format_snapshot(&Snapshot::at_mark(
            Layout::TWITTER,
            &[("machine", 5)],
            Some(1_700_000_000_000),
        ));
        let cases = [
            (
                String::new(),
                "the file is not a snowmint snapshot (JSON): line 1 column 0: EOF",
            ),
            (
                "snowmint-snapshot 1\n".to_owned(),
                "the file is not a snowmint snapshot (JSON): line 1 column 1: expected value",
            ),
            (
                good.replace("\"last_tick\": ", "\"last_tick\": -"),
                "the file holds an invalid snapshot: line 36 column 28: invalid value: integer `-411165025343`, expected u64",
            ),
            (
                good.replace("\"name\": \"machine\"", "\"name\": \"worker\""),
                "layout twitter has no node field \"machine\"; its node fields are: worker",
            ),
        ];
        for (text, message) in cases {
            let error = parse_snapshot::<Snapshot>(text.as_bytes()).unwrap_err();
            assert!(error.contains(message), "{error:?} for {text:?}");
        }
    }
}
