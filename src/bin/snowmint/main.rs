//! `snowmint`: mint Snowflake-style IDs and inspect them.
//!
//! ```text
//! snowmint mint --layout discord --worker 3 --process 4 --count 5
//! snowmint mint --count 3 | snowmint inspect --json
//! snowmint mint --machine 5 --count 1000 --snapshot machine5.snap --on-clock-behind error
//! snowmint mint --format base62 --count 2 | snowmint convert --from base62 --to hex
//! snowmint mint --etcd http://127.0.0.1:2379 --prefix /snowmint/orders/ --ttl 10 --count 100
//! snowmint inspect --layout sno 6ac1ekc2c22222t2
//! snowmint bounds --layout discord 2024-05-01T00:00:00Z
//! ```
//!
//! Errors print one line, `snowmint: <message>`, on stderr and exit with status 1 (usage
//! errors found by clap keep clap's status 2). A closed stdout (`snowmint mint | head -1`)
//! ends the program quietly with status 0.
//!
//! # Leased node IDs
//!
//! `snowmint mint --etcd ENDPOINTS --prefix P [--ttl S]` leases the layout's first node field
//! (the lowest free value under P) from etcd for the run, mints, then lowers the node ID's
//! high-water mark to the last ID's tick and revokes the lease. A run killed before that frees
//! its node ID when the lease expires, S seconds later. The flags are always accepted by the
//! parser; a build without the `etcd` feature answers `--etcd` with an error that says so.
//!
//! # Snapshot files
//!
//! `snowmint mint --snapshot FILE` resumes the generator from FILE when it exists (the node
//! flags must then be absent or equal the snapshot's, and `--layout`/`--epoch-ms` must give
//! the snapshot's layout). FILE holds the library's [`snowmint::Snapshot`] in JSON. It is
//! written ahead of minting, through the library's fenced generator
//! ([`snowmint::persist::FencedGenerator`] over [`snapshot::SnapshotStore`]): before an ID is
//! printed, FILE holds a state above it, so a run killed at any point never lets the next one
//! repeat its IDs. At exit FILE gets the exact state. [`snapshot::SNAPSHOT_FORMAT`] (which
//! `snowmint mint --help` prints) says this for users.

mod args;
mod inspect;
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

/// Mint Snowflake-style 64-bit IDs, and decode them.
#[derive(Debug, Parser)]
#[command(name = "snowmint", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Mint IDs and print them, one per line (in decimal unless --format says otherwise).
    #[command(after_long_help = SNAPSHOT_FORMAT)]
    Mint(MintArgs),
    /// Decode IDs given as arguments, or read from stdin one per line.
    Inspect(InspectArgs),
    /// Rewrite IDs from one text form to another: arguments, or stdin one per line.
    Convert(ConvertArgs),
    /// The smallest and the largest ID a layout can mint at a time, for paging by ID: the IDs
    /// minted in [t0, t1) are those with lower(t0) <= id < lower(t1).
    Bounds(BoundsArgs),
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
    /// A command-line value the library does not check (a time, a flag that does not apply):
    /// what and why.
    Input(String),
}

impl Failure {
    /// A failure of the snapshot file's write ahead of minting, said as the snapshot's.
    fn in_snapshot(self, path: &Path) -> Self {
        match self {
            Failure::Snowmint(snowmint::Error::Persist { reason, .. }) => {
                Failure::snapshot(path, reason)
            }
            failure => failure,
        }
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
            Failure::Input(problem) => f.write_str(problem),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Mint(args) => mint(&args),
        Command::Inspect(args) => inspect(&args),
        Command::Convert(args) => convert(&args),
        Command::Bounds(args) => bounds(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`snowmint mint | head -1`): nothing left to do.
        Err(Failure::Io(error)) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("snowmint: {failure}");
            ExitCode::FAILURE
        }
    }
}
