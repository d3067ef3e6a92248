//! `snowmint`: mint Snowflake-style IDs and inspect them.
//!
//! ```text
//! snowmint mint --layout discord --worker 3 --process 4 --count 5
//! snowmint mint --count 3 | snowmint inspect --json
//! snowmint mint --machine 5 --count 1000 --snapshot machine5.snap --on-clock-behind error
//! snowmint mint --format base62 --count 2 | snowmint convert --from base62 --to hex
//! snowmint mint --etcd http://127.0.0.1:2379 --prefix /snowmint/orders/ --ttl 10 --count 100
//! snowmint inspect --layout sno 6ac1ekc2c22222t2
//! snowmint mint --layout uuidv7 --count 5
//! snowmint convert --layout ulid --from ulid --to uuid 01ARZ3NDEKTSV4RRFFQ69G5FAV
//! snowmint mint --layout 'time:41,region:4,host:6,sequence:12' --epoch-ms 1704067200000 \
//!     --node region=3 --node host=17
//! snowmint bounds --layout discord 2024-05-01T00:00:00Z
//! snowmint bounds --layout discord 2024-05-01..=2024-05-07
//! snowmint completions bash
//! ```
//!
//! Errors print one line, `snowmint: <message>`, on stderr; for a flag unknown, missing or
//! conflicting, clap's usage block follows. The exit status ([`EXIT_STATUS`], which
//! `snowmint --help` prints) is 2 for anything wrong on the command line, whether clap or the
//! program finds it (a value out of its range or the layout's, an ID or time argument that
//! does not parse), and 1 for a failure at run time (the clock, a file, stdin, etcd). A closed
//! stdout (`snowmint mint | head -1`) ends the program quietly with status 0.
//!
//! # Layouts
//!
//! `--layout` takes a preset name, `sno`, `uuidv7`, `ulid` (see `id128.rs`), a JSON layout
//! file, or an inline spec of fields, most significant first (`unused:1,time:41,tick-tock,region:4,host:5,sequence:12`, with
//! `--epoch-ms` and optionally `--tick-ms`): see `layout.rs`. Node values are given with
//! `--node NAME=VALUE` for any layout, or the presets' flags (`--machine`, ...).
//!
//! # Leased node IDs
//!
//! `snowmint mint --etcd ENDPOINTS --prefix P [--ttl S]` leases the layout's first node field
//! (the lowest free value under P) from etcd for the run, mints, then lowers the node ID's
//! mark to the last ID's tick and revokes the lease. A run killed before that frees
//! its node ID when the lease expires, S seconds later. The flags are always accepted by the
//! parser; a build without the `etcd` feature answers `--etcd` with an error that says so.
//!
//! # Snapshot files
//!
//! `snowmint mint --snapshot FILE` resumes the generator from FILE when it exists (the node
//! flags must then be absent or equal the snapshot's, and `--layout`/`--epoch-ms` must give
//! the snapshot's layout; for `--layout sno`, `--partition` and `--meta`). FILE holds the
//! library's [`snowmint::Snapshot`] (for sno, [`snowmint::sno::SnoSnapshot`]) in JSON. It is
//! written ahead of minting, through the library's marked generator
//! ([`snowmint::mark::MarkedGenerator`] over [`snapshot::SnapshotStore`]; sno batches are
//! covered by the same store): before an ID is printed, FILE holds the state resumed raised
//! to a mark above it ([`snowmint::Snapshot::merged`], so no timeline goes below what an
//! earlier run minted on it), and a run killed at any point never lets the next one repeat
//! its IDs. At exit FILE gets the exact state. A run holds an exclusive lock on `FILE.lock`
//! ([`snapshot::SnapshotLock`]) from before it reads FILE until it exits; a second run given
//! FILE meanwhile fails at once naming it. [`snapshot::SNAPSHOT_FORMAT`] (which
//! `snowmint mint --help` prints) says this for users.

mod args;
mod id128;
mod inspect;
mod layout;
mod mint;
mod output;
mod snapshot;
mod time;

use args::{BoundsArgs, ConvertArgs, InspectArgs, MintArgs};
use inspect::{bounds, convert, inspect};
use mint::mint;
use snapshot::SNAPSHOT_FORMAT;

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Mint Snowflake-style 64-bit IDs (and sno, UUIDv7 and ULID IDs), and decode them.
#[derive(Debug, Parser)]
#[command(name = "snowmint", version, propagate_version = true, after_help = EXIT_STATUS)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
// Parsed once per run: boxing the largest would buy nothing.
#[allow(clippy::large_enum_variant)]
enum Command {
    /// Mint IDs and print them, one per line (in decimal, or a uuidv7's or ulid's own text,
    /// unless --format says otherwise).
    #[command(after_long_help = SNAPSHOT_FORMAT)]
    Mint(MintArgs),
    /// Decode IDs given as arguments, or read from stdin one per line.
    Inspect(InspectArgs),
    /// Rewrite IDs from one text form to another: arguments, or stdin one per line.
    Convert(ConvertArgs),
    /// The smallest and the largest ID a layout can mint at a time or in a span (a day, an
    /// hour, a range), for paging by ID: the IDs minted in it are those in lower..=upper.
    Bounds(BoundsArgs),
    /// Print a completion script for SHELL on stdout: for bash, save it as
    /// ~/.local/share/bash-completion/completions/snowmint; for zsh, as _snowmint in a
    /// directory on $fpath; for fish, as ~/.config/fish/completions/snowmint.fish.
    Completions {
        #[arg(value_enum, value_name = "SHELL")]
        shell: Shell,
    },
}

/// The shells `snowmint completions` writes for.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// Writes `shell`'s completion script for the whole command line to stdout. The script is
/// made in memory first: clap_complete panics when its writer fails, and a closed stdout
/// (`snowmint completions zsh | true`) is an I/O error like any other here.
fn completions(shell: Shell) -> Result<(), Failure> {
    use clap::CommandFactory;
    use clap_complete::{Shell as Target, generate};
    let target = match shell {
        Shell::Bash => Target::Bash,
        Shell::Zsh => Target::Zsh,
        Shell::Fish => Target::Fish,
    };
    let mut script = Vec::new();
    generate(target, &mut Cli::command(), "snowmint", &mut script);
    let mut out = io::stdout().lock();
    io::Write::write_all(&mut out, &script)?;
    io::Write::flush(&mut out)?;
    Ok(())
}

/// Why a command stopped.
#[derive(Debug)]
enum Failure {
    /// Bad input: the library's message says what and why.
    Snowmint(snowmint::Error),
    /// Reading stdin or writing stdout failed.
    Io(io::Error),
    /// The snapshot file named cannot be read, does not parse, does not fit the command line,
    /// or cannot be saved: what and why.
    Snapshot { path: PathBuf, problem: String },
    /// Something wrong on the command line that clap does not check (a value out of the
    /// layout's range, a time, an ID given as an argument, a flag that does not apply): what
    /// and why.
    Usage(String),
    /// Input read at run time is wrong (an ID on stdin, a layout file's content): what and why.
    Data(String),
    /// Every problem has had its line on stderr already (`--keep-going`): only the status is
    /// left to give.
    Reported(u8),
}

/// The exit statuses, for `snowmint --help`; the README says the same.
const EXIT_STATUS: &str = "\
Exit status: 0 on success (a closed stdout, as in `snowmint mint | head -1`, included); 1 for a \
failure at run time: the clock, a file (a snapshot, a layout file), stdin or stdout, etcd; 2 \
for anything wrong on the command line: a flag unknown or missing, a value that is not a \
number or out of range, a node value outside the layout's field, an ID or a time given as an \
argument that does not parse or fit, flags that do not match a snapshot file. Errors print \
one line on stderr, `snowmint: <what was wrong and what was expected>`.";

/// [`EXIT_STATUS`]'s: a usage error.
const USAGE: u8 = 2;
/// [`EXIT_STATUS`]'s: a failure at run time.
const RUNTIME: u8 = 1;

impl Failure {
    /// The exit status: [`USAGE`] for what is wrong on the command line, [`RUNTIME`] for
    /// the rest.
    pub(crate) fn status(&self) -> u8 {
        use snowmint::Error;
        match self {
            Failure::Usage(_) => USAGE,
            Failure::Io(_) | Failure::Snapshot { .. } | Failure::Data(_) => RUNTIME,
            Failure::Reported(status) => *status,
            // What the clock, a lease or a file did, found while minting.
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
    fn in_snapshot(self, path: &Path) -> Self {
        match self {
            Failure::Snowmint(snowmint::Error::MarkStore { reason, .. }) => {
                Failure::snapshot(path, reason)
            }
            failure => failure,
        }
    }

    /// A snapshot file that does not fit the flags given with it: a usage error.
    fn snapshot_mismatch(path: &Path, problem: impl fmt::Display) -> Self {
        Failure::Usage(Failure::snapshot(path, problem).to_string())
    }

    fn snapshot(path: &Path, problem: impl fmt::Display) -> Self {
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

impl From<io::Error> for Failure {
    fn from(error: io::Error) -> Self {
        Failure::Io(error)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Snowmint(error) => {
                // The error, then what caused it (an I/O error), on the one line.
                error.fmt(f)?;
                let mut source = std::error::Error::source(error);
                while let Some(cause) = source {
                    write!(f, ": {cause}")?;
                    source = cause.source();
                }
                Ok(())
            }
            Failure::Io(error) => write!(f, "i/o error: {error}"),
            Failure::Snapshot { path, problem } => {
                write!(f, "snapshot {}: {problem}", path.display())
            }
            Failure::Usage(problem) | Failure::Data(problem) => f.write_str(problem),
            Failure::Reported(_) => f.write_str("bad input, reported above"),
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return ExitCode::from(report_usage(&error)),
    };
    let result = match cli.command {
        Command::Mint(args) => mint(&args),
        Command::Inspect(args) => inspect(&args),
        Command::Convert(args) => convert(&args),
        Command::Bounds(args) => bounds(&args),
        Command::Completions { shell } => completions(shell),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`snowmint mint | head -1`): nothing left to do.
        Err(Failure::Io(error)) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Reported(status)) => ExitCode::from(status),
        Err(failure) => {
            eprintln!("snowmint: {failure}");
            ExitCode::from(failure.status())
        }
    }
}

/// Reports an error clap found in the command line: help and version as clap prints them;
/// otherwise one line, `snowmint: <message>`, followed by clap's usage block only for a
/// usage error (a flag unknown, missing or conflicting), not for a bad value. Returns the
/// exit status: 2 for an error, 0 for help and version.
fn report_usage(error: &clap::Error) -> u8 {
    use clap::error::ErrorKind;
    let status = u8::try_from(error.exit_code()).unwrap_or(2);
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) || !error.use_stderr()
    {
        let _ = error.print();
        return status;
    }
    let rendered = error.render().to_string();
    let mut lines = rendered.lines();
    let first = lines.next().unwrap_or_default();
    if error.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        let _ = error.print();
        return status;
    }
    // The lines right under the message (possible values, a tip) join it on its line.
    let mut message = first.strip_prefix("error: ").unwrap_or(first).to_owned();
    for detail in lines
        .by_ref()
        .map(str::trim)
        .take_while(|line| !line.is_empty())
    {
        message += "; ";
        message += detail;
    }
    eprintln!("snowmint: {message}");
    let usage = matches!(
        error.kind(),
        ErrorKind::UnknownArgument
            | ErrorKind::InvalidSubcommand
            | ErrorKind::MissingRequiredArgument
            | ErrorKind::MissingSubcommand
            | ErrorKind::ArgumentConflict
            | ErrorKind::NoEquals
            | ErrorKind::TooManyValues
            | ErrorKind::TooFewValues
            | ErrorKind::WrongNumberOfValues
    );
    if usage {
        for line in lines {
            eprintln!("{line}");
        }
    }
    status
}
