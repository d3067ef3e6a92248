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
//! snowmint convert --layout ulid --to uuid 01ARZ3NDEKTSV4RRFFQ69G5FAV
//! snowmint mint --layout 'time:41,region:4,host:6,sequence:12' --epoch-ms 1704067200000 \
//!     --node region=3 --node host=17
//! snowmint bounds --layout discord 2024-05-01T00:00:00Z
//! snowmint bounds --layout discord 2024-05-01..=2024-05-07
//! snowmint completions bash
//! ```
//!
//! Errors print one line, `snowmint: <message>`, on stderr; for a flag unknown, missing or
//! conflicting, clap's usage block follows. The exit status ([`failure::EXIT_STATUS`], which
//! `snowmint --help` prints) is 2 for anything wrong on the command line, whether clap or the
//! program finds it (a value out of its range or the layout's, an ID or time argument that
//! does not parse), and 1 for a failure at run time (the clock, a file, stdin, etcd). A closed
//! stdout (`snowmint mint | head -1`) ends the program quietly with status 0.
//!
//! # Layouts
//!
//! `--layout` takes a preset name, `sno`, `uuidv7`, `ulid`, a JSON layout file, or an inline
//! spec of fields, most significant first (`unused:1,time:41,tick-tock,region:4,host:5,sequence:12`,
//! with `--epoch-ms` and optionally `--tick-ms`): see `layout.rs`, which resolves it to a kind
//! of ID (`id_kind.rs`, one file per kind under `kinds/`) that the command runs over.
//!
//! # Text forms
//!
//! `--format` names the form `mint` and `bounds` write, `--from` the form `inspect` and
//! `convert` read (`inspect --format` is accepted for it too), `--to` the form `convert`
//! writes: decimal, base36, base32, base62 or hex for 64-bit IDs, and uuid, ulid, decimal or hex
//! for UUIDv7s and ULIDs. Without the flag, a 64-bit ID is decimal and a UUIDv7 or ULID its own
//! text.
//!
//! # Node values
//!
//! Node values are given with `--node NAME=VALUE` for any layout, or the presets' flags
//! (`--machine`, ...). A node field that no flag gives is 0, so `snowmint mint` alone mints;
//! this default is the command line's convenience ([`args::NODE_VALUES`], which
//! `snowmint mint --help` prints): the library's generator builder refuses a missing node value
//! unless told to default it.
//!
//! # Leased node IDs
//!
//! `snowmint mint --etcd ENDPOINTS --prefix P [--ttl S]` leases the layout's first node field
//! (the lowest free value under P) from etcd for the run: see `lease.rs`. The flags are always
//! accepted by the parser; a build without the `etcd` feature answers `--etcd` with an error
//! that says so.
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
//! ([`snapshot::SnapshotLock`]) from before it reads FILE until it exits, and removes
//! `FILE.lock` as it lets go; a second run given FILE meanwhile fails at once naming it.
//! [`snapshot::SNAPSHOT_FORMAT`] (which `snowmint mint --help` prints) says this for users.

mod args;
mod commands;
mod failure;
mod id_kind;
mod kinds;
mod layout;
mod lease;
mod snapshot;
mod stdio;
mod time;

use std::io;
use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command};
use failure::Failure;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return ExitCode::from(report_usage(&error)),
    };
    let result = match cli.command {
        Command::Mint(args) => commands::mint::run(&args),
        Command::Inspect(args) => commands::inspect::run(&args),
        Command::Convert(args) => commands::convert::run(&args),
        Command::Bounds(args) => commands::bounds::run(&args),
        Command::Mask(args) => commands::mask::run(&args, commands::mask::Direction::Mask),
        Command::Unmask(args) => commands::mask::run(&args, commands::mask::Direction::Unmask),
        Command::Completions { shell } => commands::completions::run(shell),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`snowmint mint | head -1`): nothing left to do.
        Err(Failure::Stdout(error)) if error.kind() == io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(Failure::Reported(status)) => ExitCode::from(status),
        Err(Failure::Clap(error)) => ExitCode::from(report_usage(&error)),
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
    // The lines right under the message join it on its line: a list it announces with a
    // colon (the arguments missing), or what it adds (possible values, a tip).
    let mut message = first.strip_prefix("error: ").unwrap_or(first).to_owned();
    let listed = message.ends_with(':');
    let details = lines
        .by_ref()
        .map(str::trim)
        .take_while(|line| !line.is_empty());
    for (index, detail) in details.enumerate() {
        message += match (listed, index) {
            (true, 0) => " ",
            (true, _) => ", ",
            (false, _) => "; ",
        };
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
