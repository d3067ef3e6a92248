//! The command line: clap's definitions of the subcommands and their flags.

use std::path::PathBuf;

use crate::{Cli, Failure};

use clap::error::ErrorKind;
use clap::{Args, CommandFactory, ValueEnum};
use snowmint::{ClockBehind, Layout, encoding::Encoding, layout::PRESET_NAMES};

/// The names of the text forms, for `--format`, `--from` and `--to`.
pub(crate) const FORMS: &str = "decimal, base36, base32 (Crockford), base62, hex";

/// Parses a text form's name for clap, with the library's message on error.
pub(crate) fn parse_encoding(name: &str) -> Result<Encoding, String> {
    name.parse()
        .map_err(|error: snowmint::Error| error.to_string())
}

/// The layout options shared by both subcommands.
#[derive(Debug, Args)]
pub(crate) struct LayoutArgs {
    #[arg(long, value_name = "NAME", default_value = "twitter", help = layout_help())]
    pub(crate) layout: String,

    /// The layout's epoch in Unix milliseconds: required for nanoflake, optional for
    /// snowflake-si and osmium, refused by the presets with a fixed epoch.
    #[arg(long, value_name = "MS")]
    pub(crate) epoch_ms: Option<u64>,
}

impl LayoutArgs {
    pub(crate) fn layout(&self) -> Result<Layout, Failure> {
        Ok(Layout::preset(&self.layout, self.epoch_ms)?)
    }
}

pub(crate) fn layout_help() -> String {
    format!("The ID layout: {PRESET_NAMES}")
}

#[derive(Debug, Args)]
pub(crate) struct MintArgs {
    #[command(flatten)]
    pub(crate) layout: LayoutArgs,

    /// Machine id (twitter, sonyflake, snowflake-si); 0 when not given.
    #[arg(long, value_name = "N")]
    pub(crate) machine: Option<u64>,

    /// Worker id (discord, osmium); 0 when not given.
    #[arg(long, value_name = "N")]
    pub(crate) worker: Option<u64>,

    /// Process id (discord, osmium); 0 when not given.
    #[arg(long, value_name = "N")]
    pub(crate) process: Option<u64>,

    /// Shard id (instagram); 0 when not given.
    #[arg(long, value_name = "N")]
    pub(crate) shard: Option<u64>,

    /// Generator id (nanoflake); 0 when not given.
    #[arg(long, value_name = "N")]
    pub(crate) generator: Option<u64>,

    /// How many IDs to mint. They are minted in batches: one compare-and-swap reserves up to
    /// a tick's worth.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub(crate) count: u64,

    #[arg(long, value_name = "FORM", default_value = "decimal", value_parser = parse_encoding,
          help = format!("The text form of the IDs printed: {FORMS}"))]
    pub(crate) format: Encoding,

    /// What to do when the clock reads behind the last minted time (after resuming a
    /// snapshot saved on a host whose clock was ahead, say).
    #[arg(long, value_enum, value_name = "POLICY", default_value_t = Policy::Wait)]
    pub(crate) on_clock_behind: Policy,

    /// For `wait` and `tick-tock`: the longest wait for the clock to catch up, and the
    /// largest regression waited out, in milliseconds [default: 1000].
    #[arg(long, value_name = "MS")]
    pub(crate) max_wait_ms: Option<u64>,

    /// Resume from the snapshot in FILE if it exists (node flags then default to its values),
    /// and save the generator's state there after minting, atomically (FILE is created when
    /// missing). `--help` describes the format.
    #[arg(long, value_name = "FILE", conflicts_with = "etcd")]
    pub(crate) snapshot: Option<PathBuf>,

    /// Lease the layout's first node field (machine, worker, ...) from the etcd cluster at
    /// ENDPOINTS (comma separated, e.g. http://10.0.0.5:2379,http://10.0.0.6:2379) for the
    /// run, and release it at exit. Needs snowmint built with the etcd feature.
    #[arg(long, value_name = "ENDPOINTS", requires = "prefix")]
    pub(crate) etcd: Option<String>,

    /// With --etcd: the key prefix the node IDs are leased under, e.g. /snowmint/orders/.
    #[arg(long, value_name = "P", requires = "etcd")]
    pub(crate) prefix: Option<String>,

    /// With --etcd: the lease's time to live in seconds; --max-wait-ms then defaults to it.
    #[arg(long, value_name = "S", requires = "etcd", default_value_t = 10)]
    pub(crate) ttl: u64,
}

/// `--on-clock-behind`: the library's [`ClockBehind`] policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Policy {
    /// Wait for the clock to catch up, if it is at most --max-wait-ms behind and does so within
    /// --max-wait-ms; else fail.
    Wait,
    /// Fail at once, saying how far behind the clock reads.
    Error,
    /// Keep minting on the layout's other timeline (needs a layout with a tick-tock bit);
    /// where that is not possible, wait as `wait` does.
    TickTock,
}

/// `--max-wait-ms` when it is not given: the library's default wait.
pub(crate) const DEFAULT_MAX_WAIT_MS: u64 = 1_000;

impl MintArgs {
    /// The node flags given, by field name.
    pub(crate) fn nodes(&self) -> Vec<(&'static str, u64)> {
        [
            ("machine", self.machine),
            ("worker", self.worker),
            ("process", self.process),
            ("shard", self.shard),
            ("generator", self.generator),
        ]
        .into_iter()
        .filter_map(|(name, value)| Some((name, value?)))
        .collect()
    }

    /// The clock-behind policy; `--max-wait-ms` with `error`, which never waits, is a usage
    /// error (clap's message and status).
    pub(crate) fn policy(&self) -> ClockBehind {
        // A leased node ID starts above its last holder's mark, up to a TTL ahead of the clock.
        let default_ms = if self.etcd.is_some() {
            self.ttl.saturating_mul(1_000)
        } else {
            DEFAULT_MAX_WAIT_MS
        };
        let max_ms = self.max_wait_ms.unwrap_or(default_ms);
        match self.on_clock_behind {
            Policy::Wait => ClockBehind::Wait { max_ms },
            Policy::TickTock => ClockBehind::TickTock { max_ms },
            Policy::Error if self.max_wait_ms.is_some() => usage_error(
                ErrorKind::ArgumentConflict,
                "--max-wait-ms is for --on-clock-behind wait or tick-tock; error never waits",
            ),
            Policy::Error => ClockBehind::Error,
        }
    }
}

/// Exits as clap does for a usage error found after parsing, with `mint`'s usage.
pub(crate) fn usage_error(kind: ErrorKind, message: &str) -> ! {
    let mut command = Cli::command();
    command.build();
    let mint = command
        .find_subcommand_mut("mint")
        .expect("the mint subcommand");
    mint.error(kind, message).exit()
}

#[derive(Debug, Args)]
pub(crate) struct InspectArgs {
    #[command(flatten)]
    pub(crate) layout: LayoutArgs,

    /// Print one JSON object per ID (the id itself as a string).
    #[arg(long)]
    pub(crate) json: bool,

    #[arg(long, value_name = "FORM", value_parser = parse_encoding,
          help = format!("The text form of the IDs read: {FORMS} [default: decimal]; with \
                          --layout sno, IDs are sno's 16-character text and --format does not \
                          apply"))]
    pub(crate) format: Option<Encoding>,

    /// IDs to decode; with none, IDs are read from stdin, one per line.
    #[arg(value_name = "ID", allow_negative_numbers = true)]
    pub(crate) ids: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct ConvertArgs {
    #[arg(long, value_name = "FORM", default_value = "decimal", value_parser = parse_encoding,
          help = format!("The text form of the IDs read: {FORMS}"))]
    pub(crate) from: Encoding,

    #[arg(long, value_name = "FORM", value_parser = parse_encoding,
          help = format!("The text form to write: {FORMS}"))]
    pub(crate) to: Encoding,

    /// IDs to convert; with none, IDs are read from stdin, one per line.
    #[arg(value_name = "ID", allow_negative_numbers = true)]
    pub(crate) ids: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct BoundsArgs {
    #[command(flatten)]
    pub(crate) layout: LayoutArgs,

    #[arg(long, value_name = "FORM", default_value = "decimal", value_parser = parse_encoding,
          help = format!("The text form of the bounds printed: {FORMS}"))]
    pub(crate) format: Encoding,

    /// Print one JSON object: the layout, the time in Unix milliseconds, and the bounds as
    /// strings.
    #[arg(long)]
    pub(crate) json: bool,

    /// An RFC 3339 time, e.g. 2024-05-01T12:00:00Z or 2024-05-01T14:00:00.250+02:00.
    #[arg(value_name = "TIME")]
    pub(crate) time: String,
}
