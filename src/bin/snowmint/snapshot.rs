//! The `--snapshot` file: its text format, and its atomic save.

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::Failure;

use snowmint::{Layout, Snapshot};

/// The snapshot file format, for `mint --help`. The example between the blank lines is a
/// whole file, and a unit test parses it.
pub(crate) const SNAPSHOT_FORMAT: &str = "\
Snapshot files (--snapshot FILE) are UTF-8 text, one line per field, in this order:

    snowmint-snapshot 1
    layout twitter
    epoch_ms 1288834974657
    node machine 5
    last_tick 123
    sequence 7
    timeline 0
    other_timeline_tick 0

The first line is the format and its version. `layout` is a preset name and `epoch_ms` its \
epoch in Unix milliseconds. One `node NAME VALUE` line follows per node field of the layout, \
in the layout's order (none for mastodon). `last_tick` is the last tick minted, counted from \
the epoch (0: none yet); `sequence` the sequence of the last ID minted; `timeline` its \
tick-tock bit (0 for layouts without one); `other_timeline_tick` the highest tick minted on \
the other timeline (0: none). Words are separated by whitespace, numbers are decimal, and only \
blank lines may follow the last line.";

/// The first line of a snapshot file: the format and its version.
pub(crate) const SNAPSHOT_HEADER: &str = "snowmint-snapshot 1";

/// The largest snapshot file read; real ones are a few hundred bytes.
pub(crate) const SNAPSHOT_MAX_BYTES: u64 = 64 * 1024;

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
    let text = String::from_utf8(bytes)
        .map_err(|_| Failure::snapshot(path, "not UTF-8 text, expected a snowmint snapshot"))?;
    parse_snapshot(&text)
        .map(Some)
        .map_err(|problem| Failure::snapshot(path, problem))
}

/// A snapshot file's text: `SNAPSHOT_HEADER`, then each field on its own line.
pub(crate) fn format_snapshot(snapshot: &Snapshot) -> String {
    let mut text = format!(
        "{SNAPSHOT_HEADER}\nlayout {}\nepoch_ms {}\n",
        snapshot.layout.name(),
        snapshot.layout.epoch_ms()
    );
    for (name, value) in &snapshot.nodes {
        text += &format!("node {name} {value}\n");
    }
    text += &format!(
        "last_tick {}\nsequence {}\ntimeline {}\nother_timeline_tick {}\n",
        snapshot.last_tick, snapshot.sequence, snapshot.timeline, snapshot.other_timeline_tick
    );
    text
}

/// Parses [`format_snapshot`]'s text; the error names the line and what was expected there.
pub(crate) fn parse_snapshot(text: &str) -> Result<Snapshot, String> {
    let mut lines = SnapshotLines {
        lines: text.lines(),
        number: 0,
    };
    let (line, version) = lines.expect(&["snowmint-snapshot"], "1")?;
    if version != "1" {
        return Err(format!(
            "line {line}: expected `{SNAPSHOT_HEADER}`, found version {}, which this snowmint \
             does not read",
            quoted(version)
        ));
    }
    let (line, name) = lines.expect(&["layout"], "<preset name>")?;
    // Unknown names here; epoch errors once the epoch is read.
    if let Err(error @ snowmint::Error::UnknownLayout { .. }) = Layout::preset(name, None) {
        return Err(format!("line {line}: {error}"));
    }
    let (line, epoch_ms) = lines.number(&["epoch_ms"], "<unix ms>")?;
    let layout =
        Layout::preset(name, Some(epoch_ms)).map_err(|error| format!("line {line}: {error}"))?;
    let mut nodes = Vec::new();
    for field in layout.node_fields() {
        let (line, value) = lines.number(&["node", field.name()], "<value>")?;
        layout
            .node_bits(&[(field.name(), value)])
            .map_err(|error| format!("line {line}: {error}"))?;
        nodes.push((field.name(), value));
    }
    let max_ticks = layout.max_ticks();
    let (line, last_tick) = lines.number(&["last_tick"], "<ticks since the epoch>")?;
    check_range(line, "last_tick", last_tick, max_ticks)?;
    let (line, sequence) = lines.number(&["sequence"], "<sequence>")?;
    check_range(line, "sequence", sequence, layout.max_sequence())?;
    let (line, timeline) = lines.number(&["timeline"], "<0 or 1>")?;
    let max_timeline = layout.tick_tock_field().map_or(0, |field| field.max());
    check_range(line, "timeline", timeline, max_timeline)?;
    let (line, other_timeline_tick) =
        lines.number(&["other_timeline_tick"], "<ticks since the epoch>")?;
    check_range(line, "other_timeline_tick", other_timeline_tick, max_ticks)?;
    lines.end()?;
    Ok(Snapshot {
        layout,
        nodes,
        last_tick,
        sequence,
        timeline,
        other_timeline_tick,
        // The command line mints with the whole sequence field.
        sequence_range: 0..=layout.max_sequence(),
    })
}

pub(crate) fn check_range(line: usize, key: &str, value: u64, max: u64) -> Result<(), String> {
    if value > max {
        return Err(format!(
            "line {line}: {key} {value} is out of range, expected 0..={max}"
        ));
    }
    Ok(())
}

/// A snapshot file's lines, numbered from 1.
pub(crate) struct SnapshotLines<'a> {
    pub(crate) lines: std::str::Lines<'a>,
    /// The number of the last line read.
    pub(crate) number: usize,
}

impl<'a> SnapshotLines<'a> {
    /// The next line, which must be the words `keys` and one more, described by `placeholder`:
    /// its number and that last word.
    pub(crate) fn expect(
        &mut self,
        keys: &[&str],
        placeholder: &str,
    ) -> Result<(usize, &'a str), String> {
        let expected = || format!("`{} {placeholder}`", keys.join(" "));
        self.number += 1;
        let Some(line) = self.lines.next() else {
            return Err(format!(
                "line {}: expected {}, found the end of the file",
                self.number,
                expected()
            ));
        };
        let mut words = line.split_whitespace();
        let matches = keys.iter().all(|&key| words.next() == Some(key));
        match (matches, words.next(), words.next()) {
            (true, Some(value), None) => Ok((self.number, value)),
            _ => Err(format!(
                "line {}: expected {}, found {}",
                self.number,
                expected(),
                quoted(line)
            )),
        }
    }

    /// As [`expect`](Self::expect), for a decimal number.
    pub(crate) fn number(
        &mut self,
        keys: &[&str],
        placeholder: &str,
    ) -> Result<(usize, u64), String> {
        let (line, word) = self.expect(keys, placeholder)?;
        let value = word
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| word.parse().ok())
            .flatten()
            .ok_or_else(|| {
                format!(
                    "line {line}: expected a decimal number (0..={}) for {}, found {}",
                    u64::MAX,
                    keys.join(" "),
                    quoted(word)
                )
            })?;
        Ok((line, value))
    }

    /// Only blank lines may follow the last field.
    pub(crate) fn end(&mut self) -> Result<(), String> {
        for line in self.lines.by_ref() {
            self.number += 1;
            if !line.trim().is_empty() {
                return Err(format!(
                    "line {}: expected the end of the file, found {}",
                    self.number,
                    quoted(line)
                ));
            }
        }
        Ok(())
    }
}

/// `text` quoted for an error message, its first 60 characters at most.
pub(crate) fn quoted(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((end, _)) => format!("{:?}…", &text[..end]),
        None => format!("{text:?}"),
    }
}

/// A snapshot save begun before minting: `FILE.tmp` created, to be written, fsynced and renamed
/// over `FILE` by [`commit`](Self::commit).
pub(crate) struct PendingSave<'a> {
    pub(crate) path: &'a Path,
    pub(crate) tmp_path: PathBuf,
    pub(crate) tmp: File,
}

impl<'a> PendingSave<'a> {
    pub(crate) fn create(path: &'a Path) -> Result<Self, Failure> {
        let mut tmp_path = OsString::from(path.as_os_str());
        tmp_path.push(".tmp");
        let tmp_path = PathBuf::from(tmp_path);
        let tmp = File::create(&tmp_path).map_err(|error| {
            Failure::snapshot(
                path,
                format_args!("cannot create {}: {error}", tmp_path.display()),
            )
        })?;
        Ok(PendingSave {
            path,
            tmp_path,
            tmp,
        })
    }

    /// Writes `snapshot` to `FILE.tmp`, fsyncs it, renames it over `FILE` and fsyncs the
    /// directory; on failure removes `FILE.tmp` and says which step failed.
    pub(crate) fn commit(self, snapshot: &Snapshot) -> Result<(), String> {
        let PendingSave {
            path,
            tmp_path,
            mut tmp,
        } = self;
        let tmp_name = tmp_path.display();
        let written = (|| {
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
            return Err(format!("{problem}; the IDs minted are not recorded in it"));
        }
        sync_parent(path).map_err(|error| {
            format!(
                "saved, but fsyncing its directory failed (the rename may not be durable): {error}"
            )
        })
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

    /// The example file in [`SNAPSHOT_FORMAT`].
    fn documented_example() -> String {
        let block = SNAPSHOT_FORMAT.split("\n\n").nth(1).unwrap();
        block
            .lines()
            .map(|line| format!("{}\n", line.trim()))
            .collect()
    }

    #[test]
    fn the_documented_example_parses_and_formats_back_the_same() {
        let text = documented_example();
        let snapshot = parse_snapshot(&text).unwrap();
        assert_eq!(
            snapshot,
            Snapshot {
                layout: Layout::TWITTER,
                nodes: vec![("machine", 5)],
                last_tick: 123,
                sequence: 7,
                timeline: 0,
                other_timeline_tick: 0,
                sequence_range: 0..=4095,
            }
        );
        assert_eq!(format_snapshot(&snapshot), text);
    }

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
            assert_eq!(parse_snapshot(&text), Ok(snapshot), "{text}");
        }
    }

    #[test]
    fn parse_errors_name_the_line_and_what_was_expected() {
        let good = documented_example();
        let cases = [
            (
                "",
                "line 1: expected `snowmint-snapshot 1`, found the end of the file",
            ),
            (
                "snowmint-snapshot 2\n",
                "line 1: expected `snowmint-snapshot 1`",
            ),
            (
                &good.replace("layout twitter", "layout nope"),
                "line 2: unknown layout",
            ),
            (
                &good.replace("epoch_ms 1288834974657", "epoch_ms 5"),
                "line 3: layout twitter has the fixed epoch",
            ),
            (
                &good.replace("node machine 5", "node worker 5"),
                "line 4: expected `node machine <value>`, found \"node worker 5\"",
            ),
            (
                &good.replace("node machine 5", "node machine 1024"),
                "line 4: machine id 1024 is out of range",
            ),
            (
                &good.replace("last_tick 123", "last_tick -1"),
                "line 5: expected a decimal number",
            ),
            (
                &good.replace("last_tick 123", "last_tick +1"),
                "line 5: expected a decimal number",
            ),
            (
                &good.replace("sequence 7", "sequence 4096"),
                "line 6: sequence 4096 is out of range, expected 0..=4095",
            ),
            (
                &good.replace("timeline 0", "timeline 1"),
                "line 7: timeline 1 is out of range, expected 0..=0",
            ),
            (
                &good.replace("timeline 0\n", ""),
                "line 7: expected `timeline <0 or 1>`, found \"other_timeline_tick 0\"",
            ),
            (
                &good.replace("sequence 7", "sequence 7 8"),
                "line 6: expected `sequence <sequence>`, found \"sequence 7 8\"",
            ),
            (
                &format!("{good}\n\nextra\n"),
                "line 11: expected the end of the file, found \"extra\"",
            ),
        ];
        for (text, message) in cases {
            let error = parse_snapshot(text).unwrap_err();
            assert!(error.starts_with(message), "{error:?} for {text:?}");
        }
        // Whitespace is lenient; blank lines may follow.
        let spaced = good.replace("last_tick 123", "  last_tick\t123  ") + "\n \n";
        assert_eq!(parse_snapshot(&spaced), parse_snapshot(&good));
    }
}
