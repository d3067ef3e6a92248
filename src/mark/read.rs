//! Reading a mark file: one line holding a Unix-millisecond mark, and the errors that name
//! the file.

use std::fs::File;
use std::io;
use std::path::Path;

use crate::error::{Error, Result, bounded, bounded_path};

/// The longest mark file read: a mark is at most 20 digits and a newline.
const MAX_FILE_BYTES: u64 = 64;

/// The mark in the file at `path`, `None` if there is no file. Reads at most
/// [`MAX_FILE_BYTES`] (and one more, to tell a longer file): a longer file is corrupt.
pub(super) fn read_mark(path: &Path) -> Result<Option<u64>> {
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

pub(super) fn parse_mark(text: &str) -> Result<u64, String> {
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
pub(super) fn file_error(path: &Path, reason: String) -> Error {
    Error::MarkFile {
        path: bounded_path(path),
        reason,
        source: None,
    }
}

/// `what` failed on the file at `path` with `err`, kept as the error's source.
pub(super) fn io_error(path: &Path, what: &str, err: io::Error) -> Error {
    Error::MarkFile {
        path: bounded_path(path),
        reason: what.to_owned(),
        source: Some(err.into()),
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
}
