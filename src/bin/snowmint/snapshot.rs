//! The `--snapshot` file: the generator's state, as the library's [`Snapshot`] in JSON, written
//! ahead of minting and exactly at exit.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::Failure;

use snowmint::clock::Clock;
use snowmint::persist::MarkStore;
use snowmint::{Generator, Layout, Snapshot};

/// The snapshot file, for `mint --help`.
pub(crate) const SNAPSHOT_FORMAT: &str = "\
Snapshot files (--snapshot FILE) hold the generator's state as JSON: the library's Snapshot \
as it serializes (feature serde), with the layout in full, the node values, the last tick \
and sequence minted and the tick-tock timelines.

FILE is written ahead of minting: before an ID is printed, FILE holds a state above it (the \
time of the ID plus 100 ms), so a run killed at any point leaves a FILE the next run starts \
above. At exit, also after an error or a closed stdout, FILE gets the exact state, so the next \
run continues where this one stopped. Each write goes to a temporary file of its own, is \
fsynced and renamed over FILE. One FILE serves one process at a time.";

/// The largest snapshot file read; real ones are under a kilobyte.
pub(crate) const SNAPSHOT_MAX_BYTES: u64 = 64 * 1024;

/// How far ahead of an ID's time the state written ahead of minting is.
pub(crate) const AHEAD_MS: u64 = 100;

/// The snapshot in `path`, or `None` if there is no such file.
pub(crate) fn load_snapshot(path: &Path) -> Result<Option<Snapshot>, Failure> {
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
            format_args!("larger than {SNAPSHOT_MAX_BYTES} bytes, expected a snowmint snapshot"),
        ));
    }
    parse_snapshot(&bytes)
        .map(Some)
        .map_err(|problem| Failure::snapshot(path, problem))
}

/// A snapshot file's text: the snapshot in JSON, and a newline.
pub(crate) fn format_snapshot(snapshot: &Snapshot) -> String {
    let mut text = serde_json::to_string_pretty(snapshot).expect("a snapshot serializes");
    text.push('\n');
    text
}

/// Parses [`format_snapshot`]'s text; the error says what was wrong, and where in the text
/// when it is one place.
pub(crate) fn parse_snapshot(bytes: &[u8]) -> Result<Snapshot, String> {
    serde_json::from_slice(bytes).map_err(|error| {
        let what = match error.classify() {
            serde_json::error::Category::Data => "",
            _ => "not a snowmint snapshot (JSON): ",
        };
        // serde_json's message ends with "at line L column C"; the line comes first here.
        let message = error.to_string();
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(message, _)| message);
        match error.line() {
            // Checks made on the whole snapshot have no position.
            0 => format!("{what}{message}"),
            line => format!("line {line} column {}: {what}{message}", error.column()),
        }
    })
}

/// Writes `snapshot` to `path` durably: to a temporary file of this write's own, fsynced,
/// renamed over `path`, and the directory fsynced. On failure the temporary file is removed
/// and the error says which step failed.
pub(crate) fn save_snapshot(path: &Path, snapshot: &Snapshot) -> Result<(), String> {
    // A name no other write uses: this process's ID and a count of its writes.
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let mut tmp_path = path.as_os_str().to_owned();
    tmp_path.push(format!(".tmp.{}.{n}", std::process::id()));
    let tmp_path = PathBuf::from(tmp_path);
    let tmp_name = tmp_path.display();
    let written = (|| {
        let mut tmp = File::create(&tmp_path)
            .map_err(|error| format!("cannot create {tmp_name}: {error}"))?;
        tmp.write_all(format_snapshot(snapshot).as_bytes())
            .map_err(|error| format!("cannot write {tmp_name}: {error}"))?;
        // Keep a snapshot's permissions (it may be private to its owner).
        if let Ok(metadata) = fs::metadata(path) {
            tmp.set_permissions(metadata.permissions())
                .map_err(|error| format!("cannot set permissions of {tmp_name}: {error}"))?;
        }
        tmp.sync_all()
            .map_err(|error| format!("cannot fsync {tmp_name}: {error}"))?;
        drop(tmp);
        fs::rename(&tmp_path, path)
            .map_err(|error| format!("cannot rename {tmp_name} over it: {error}"))
    })();
    if let Err(problem) = written {
        let _ = fs::remove_file(&tmp_path);
        return Err(problem);
    }
    sync_parent(path).map_err(|error| {
        format!("saved, but fsyncing its directory failed (the rename may not be durable): {error}")
    })
}

/// The snapshot file as the mark store of the library's fenced generator: before an ID is
/// returned, the file holds [`Snapshot::at_mark`] of a mark above the ID's time.
pub(crate) struct SnapshotStore {
    path: PathBuf,
    layout: Layout,
    nodes: Vec<(&'static str, u64)>,
    /// The mark written last, in Unix milliseconds: raised only once the file holds it.
    mark: AtomicU64,
    /// Serializes writes (once per [`AHEAD_MS`] of ID time).
    writing: Mutex<()>,
}

impl SnapshotStore {
    /// The store for the snapshot file at `path`, of a generator for `layout` and `nodes`.
    pub(crate) fn new(path: &Path, layout: Layout, nodes: &[(&'static str, u64)]) -> Self {
        SnapshotStore {
            path: path.to_owned(),
            layout,
            nodes: nodes.to_vec(),
            mark: AtomicU64::new(0),
            writing: Mutex::new(()),
        }
    }

    /// `time_ms` is at or past the mark: write a new one.
    #[cold]
    fn raise(&self, time_ms: u64) -> snowmint::Result<()> {
        let _writing = self.writing.lock().unwrap_or_else(PoisonError::into_inner);
        if time_ms < self.mark.load(Ordering::Relaxed) {
            return Ok(());
        }
        let mark = time_ms.saturating_add(AHEAD_MS);
        let ahead = Snapshot::at_mark(self.layout, &self.nodes, Some(mark));
        save_snapshot(&self.path, &ahead).map_err(|reason| snowmint::Error::Persist {
            path: self.path.display().to_string(),
            reason: format!("{reason}; nothing was minted past it"),
            source: None,
        })?;
        self.mark.store(mark, Ordering::Relaxed);
        Ok(())
    }
}

impl MarkStore for SnapshotStore {
    /// The generator was resumed from the file (or the file is new): it starts above it.
    fn start<C: Clock + Send + Sync + 'static>(
        &self,
        _generator: &Arc<Generator<C>>,
    ) -> snowmint::Result<()> {
        Ok(())
    }

    fn admit(&self, time_ms: u64) -> snowmint::Result<()> {
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

/// Fsyncs the directory holding `path`, making a rename into it durable.
#[cfg(unix)]
pub(crate) fn sync_parent(path: &Path) -> io::Result<()> {
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    File::open(parent)?.sync_all()
}

/// Directories cannot be opened for fsync here; the rename is as durable as the platform makes it.
#[cfg(not(unix))]
pub(crate) fn sync_parent(_path: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use snowmint::layout::PRESET_NAMES;

    #[test]
    fn every_presets_snapshot_formats_and_parses_back() {
        for name in PRESET_NAMES.split(", ") {
            let layout = Layout::preset(name, Some(1_700_000_000_000))
                .or_else(|_| Layout::preset(name, None))
                .unwrap();
            let snapshot = Snapshot {
                layout,
                nodes: layout.node_fields().map(|f| (f.name(), f.max())).collect(),
                last_tick: layout.max_ticks(),
                sequence: layout.max_sequence(),
                timeline: 0,
                other_timeline_tick: 0,
                sequence_range: 0..=layout.max_sequence(),
            };
            let text = format_snapshot(&snapshot);
            assert_eq!(parse_snapshot(text.as_bytes()), Ok(snapshot), "{text}");
        }
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
                "line 1 column 0: not a snowmint snapshot (JSON): EOF",
            ),
            (
                "snowmint-snapshot 1\n".to_owned(),
                "line 1 column 1: not a snowmint snapshot (JSON): expected value",
            ),
            (
                good.replace("\"last_tick\": ", "\"last_tick\": -"),
                "line 36 column 28: invalid value: integer `-411165025343`, expected u64",
            ),
            (
                good.replace("\"name\": \"machine\"", "\"name\": \"worker\""),
                "layout twitter has no node field \"machine\"; its node fields are: worker",
            ),
        ];
        for (text, message) in cases {
            let error = parse_snapshot(text.as_bytes()).unwrap_err();
            assert!(error.contains(message), "{error:?} for {text:?}");
        }
    }
}
