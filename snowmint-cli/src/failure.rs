//! Why a command stopped, and the exit status that says it.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// The exit statuses, for `snowmint --help`; the README says the same.
pub(crate) const EXIT_STATUS: &str = "\
Exit status: 0 on success (a closed stdout, as in `snowmint mint | head -1`, included); 1 for a \
failure at run time: the clock, a file (a snapshot, a layout file), stdin or stdout, etcd; 2 \
for anything wrong on the command line: a flag unknown or missing, a value that is not a \
number or out of range, a node value outside the layout's field, an ID or a time given as an \
argument that does not parse or fit, flags that do not match a snapshot file. Errors print \
one line on stderr, `snowmint: <what was wrong and what was expected>`.";

/// [`EXIT_STATUS`]'s: a usage error.
pub(crate) const USAGE: u8 = 2;
/// [`EXIT_STATUS`]'s: a failure at run time.
pub(crate) const RUNTIME: u8 = 1;

/// Why a command stopped.
#[derive(Debug)]
pub(crate) enum Failure {
    /// Bad input: the library's message says what and why.
    Snowmint(snowmint::Error),
    /// A failure at run time that another crate reports (the etcd lease): what and why.
    // Made by the etcd lease alone.
    #[cfg_attr(not(feature = "etcd"), allow(dead_code))]
    Runtime(Box<dyn std::error::Error + Send + Sync>),
    /// Reading stdin failed.
    Stdin(io::Error),
    /// Writing stdout failed (a closed stdout, `snowmint mint | head -1`, ends the run
    /// quietly).
    Stdout(io::Error),
    /// The snapshot file named cannot be read, does not parse, does not fit the command line,
    /// or cannot be saved: what and why.
    Snapshot { path: PathBuf, problem: String },
    /// Something wrong on the command line that clap does not check (a value out of the
    /// layout's range, a time, an ID given as an argument, a flag that does not apply): what
    /// and why.
    Usage(String),
    /// Flags that conflict, found after parsing: reported as clap reports its own, with the
    /// subcommand's usage.
    Clap(clap::Error),
    /// Input read at run time is wrong (an ID on stdin, a layout file's content): what and why.
    Data(String),
    /// Every problem has had its line on stderr already (`--keep-going`): only the status is
    /// left to give.
    Reported(u8),
}

impl Failure {
    /// The exit status: [`USAGE`] for what is wrong on the command line, [`RUNTIME`] for
    /// the rest.
    pub(crate) fn status(&self) -> u8 {
        use snowmint::Error;
        match self {
            Failure::Usage(_) | Failure::Clap(_) => USAGE,
            Failure::Runtime(_)
            | Failure::Stdin(_)
            | Failure::Stdout(_)
            | Failure::Snapshot { .. }
            | Failure::Data(_) => RUNTIME,
            Failure::Reported(status) => *status,
            // What the clock or a file did, found while minting.
            Failure::Snowmint(
                Error::MarkFile { .. }
                | Error::MarkStore { .. }
                | Error::NodeIdSource { .. }
                | Error::SequenceExhausted { .. }
                | Error::LayoutExhausted { .. }
                | Error::ClockBehind { .. }
                | Error::Forked { .. }
                | Error::TimeOverflow { .. }
                | Error::BeforeEpoch { .. }
                | Error::EpochTick { .. },
            ) => RUNTIME,
            // The rest is the library's check of a value from the command line.
            Failure::Snowmint(_) => USAGE,
        }
    }

    /// A library error about a value given on the command line.
    pub(crate) fn usage(error: snowmint::Error) -> Self {
        Failure::Usage(Failure::Snowmint(error).to_string())
    }

    /// A failure of the snapshot file's write ahead of minting, said as the snapshot's.
    pub(crate) fn in_snapshot(self, path: &Path) -> Self {
        match self {
            Failure::Snowmint(snowmint::Error::MarkStore { reason, .. }) => {
                Failure::snapshot(path, reason)
            }
            failure => failure,
        }
    }

    /// A snapshot file that does not fit the flags given with it: a usage error.
    pub(crate) fn snapshot_mismatch(path: &Path, problem: impl fmt::Display) -> Self {
        Failure::Usage(Failure::snapshot(path, problem).to_string())
    }

    /// The snapshot file at `path` and what is wrong with it.
    pub(crate) fn snapshot(path: &Path, problem: impl fmt::Display) -> Self {
        Failure::Snapshot {
            path: path.to_owned(),
            problem: problem.to_string(),
        }
    }
}

impl From<snowmint::Error> for Failure {
    fn from(error: snowmint::Error) -> Self {
        Failure::Snowmint(error)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Snowmint(error) => with_sources(f, error),
            Failure::Runtime(error) => with_sources(f, error.as_ref()),
            Failure::Stdin(error) => write!(f, "cannot read stdin: {error}"),
            Failure::Stdout(error) => write!(f, "cannot write to stdout: {error}"),
            Failure::Snapshot { path, problem } => {
                write!(f, "snapshot {}: {problem}", path.display())
            }
            Failure::Usage(problem) | Failure::Data(problem) => f.write_str(problem),
            Failure::Clap(error) => {
                let rendered = error.render().to_string();
                let first = rendered.lines().next().unwrap_or_default();
                f.write_str(first.strip_prefix("error: ").unwrap_or(first))
            }
            Failure::Reported(_) => f.write_str("bad input, reported above"),
        }
    }
}

/// `error`, then what caused it (an I/O error), on the one line.
fn with_sources(f: &mut fmt::Formatter<'_>, error: &dyn std::error::Error) -> fmt::Result {
    fmt::Display::fmt(error, f)?;
    let mut source = error.source();
    while let Some(cause) = source {
        write!(f, ": {cause}")?;
        source = cause.source();
    }
    Ok(())
}

/// `text`, its first 64 characters and an ellipsis when longer: user input echoed in a
/// message, as the library's errors echo it.
pub(crate) fn bounded(text: &str) -> String {
    snowmint::error::bounded(text)
}

/// `text`, its first `max` characters and an ellipsis when longer.
pub(crate) fn bounded_to(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}
