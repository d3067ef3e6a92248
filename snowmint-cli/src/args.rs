//! The command line: clap's definitions of the subcommands and their flags.

use std::path::PathBuf;

use crate::layout::{self, Choice};
use crate::time::SPAN_FORMS;
use crate::{Cli, Failure};

use clap::error::ErrorKind;
use clap::{Args, CommandFactory, ValueEnum};
use snowmint::{ClockBehind, Layout, encoding::Encoding};

/// The names of the text forms, for `--format`, `--from` and `--to`.
pub(crate) const FORMS: &str = "decimal, base36, base32 (Crockford), base62, hex";

/// The text forms of `--format` for `--layout uuidv7` and `ulid`.
pub(crate) const WIDE_FORMS: &str =
    "uuidv7 and ulid ids take decimal or hex (the 128-bit integer) and default to their own text";

/// Parses a text form's name for clap, with the library's message on error.
pub(crate) fn parse_encoding(name: &str) -> Result<Encoding, String> {
    name.parse()
        .map_err(|error: snowmint::Error| error.to_string())
}

/// A text form for `convert`: the 64-bit forms, and for the 128-bit layouts `uuid` and
/// `ulid`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConvertForm {
    Id(Encoding),
    Uuid,
    Ulid,
}

impl std::fmt::Display for ConvertForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConvertForm::Id(encoding) => encoding.fmt(f),
            ConvertForm::Uuid => f.write_str("uuid"),
            ConvertForm::Ulid => f.write_str("ulid"),
        }
    }
}

/// Parses `convert`'s `--from` or `--to` for clap.
pub(crate) fn parse_convert_form(name: &str) -> Result<ConvertForm, String> {
    match name {
        "uuid" => Ok(ConvertForm::Uuid),
        "ulid" => Ok(ConvertForm::Ulid),
        name => parse_encoding(name)
            .map(ConvertForm::Id)
            .map_err(|error| format!("{error}; or uuid, ulid with --layout uuidv7 or ulid")),
    }
}

/// The layout options shared by every subcommand.
#[derive(Debug, Args)]
pub(crate) struct LayoutArgs {
    #[arg(long, value_name = "LAYOUT", default_value = "twitter", help = layout_help())]
    pub(crate) layout: String,

    /// The layout's epoch in Unix milliseconds: required for nanoflake and inline layouts,
    /// optional for snowflake-si and osmium, refused by the presets with a fixed epoch.
    #[arg(long, value_name = "MS", allow_negative_numbers = true,
          value_parser = number_in(0, u64::MAX))]
    pub(crate) epoch_ms: Option<u64>,

    /// An inline layout's tick in milliseconds [default: 1].
    #[arg(long, value_name = "MS", allow_negative_numbers = true,
          value_parser = number_in(1, u64::MAX))]
    pub(crate) tick_ms: Option<u64>,
}

impl LayoutArgs {
    /// What `--layout` names.
    pub(crate) fn choice(&self) -> Result<Choice, Failure> {
        layout::resolve(&self.layout, self.epoch_ms, self.tick_ms)
    }
}

pub(crate) fn layout_help() -> String {
    let presets = Layout::PRESETS.join(", ");
    format!(
        "The ID layout: a preset ({presets}), sno, uuidv7, ulid (128-bit ids: no node \
         values, --snapshot or --etcd), a JSON layout file (as the library's \
         Layout serializes), or fields most significant first, NAME:BITS each (unused, time \
         and sequence are those kinds, any other name a node field) or tick-tock, e.g. \
         unused:1,time:41,tick-tock,region:4,host:5,sequence:12 with --epoch-ms"
    )
}

/// A clap value parser for a decimal integer in `min..=max`; negative numbers and numbers past
/// `u64::MAX` get the range error too.
pub(crate) fn number_in(min: u64, max: u64) -> impl Fn(&str) -> Result<u64, String> + Clone {
    move |text: &str| {
        let out_of_range = || format!("out of range, expected {min}..={max}");
        let digits = text.strip_prefix('-').unwrap_or(text);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("expected a decimal number in {min}..={max}"));
        }
        if text.starts_with('-') {
            return Err(out_of_range());
        }
        match text.parse::<u64>() {
            Ok(value) if (min..=max).contains(&value) => Ok(value),
            _ => Err(out_of_range()),
        }
    }
}

/// A node value as given: any integer, checked against the layout's field once it is known.
pub(crate) fn node_value(text: &str) -> Result<i128, String> {
    text.parse::<i128>()
        .map_err(|_| "expected a decimal number".to_owned())
}

/// `--node NAME=VALUE`.
pub(crate) fn node_assignment(text: &str) -> Result<(String, i128), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| "expected NAME=VALUE, e.g. machine=5".to_owned())?;
    Ok((name.trim().to_owned(), node_value(value.trim())?))
}

#[derive(Debug, Args)]
pub(crate) struct MintArgs {
    #[command(flatten)]
    pub(crate) layout: LayoutArgs,

    /// Machine id (twitter, sonyflake, snowflake-si); 0 when not given.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = node_value)]
    pub(crate) machine: Option<i128>,

    /// Worker id (discord, osmium); 0 when not given.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = node_value)]
    pub(crate) worker: Option<i128>,

    /// Process id (discord, osmium); 0 when not given.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = node_value)]
    pub(crate) process: Option<i128>,

    /// Shard id (instagram); 0 when not given.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = node_value)]
    pub(crate) shard: Option<i128>,

    /// Generator id (nanoflake); 0 when not given.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = node_value)]
    pub(crate) generator: Option<i128>,

    /// A node field's value, for any layout: `--node region=3 --node host=17`. Repeatable;
    /// 0 for a node field not given.
    #[arg(long = "node", value_name = "NAME=VALUE", allow_negative_numbers = true,
          value_parser = node_assignment)]
    pub(crate) node: Vec<(String, i128)>,

    /// With --layout sno: the partition every ID carries.
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = number_in(0, u64::from(u16::MAX)))]
    pub(crate) partition: Option<u64>,

    /// With --layout sno: the metabyte every ID carries [default: 0].
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = number_in(0, u64::from(u8::MAX)))]
    pub(crate) meta: Option<u64>,

    /// How many IDs to mint. They are minted in batches: one compare-and-swap reserves up to
    /// a tick's worth.
    #[arg(long, value_name = "N", default_value = "1", allow_negative_numbers = true,
          value_parser = number_in(1, u64::MAX))]
    pub(crate) count: u64,

    #[arg(long, value_name = "FORM", value_parser = parse_encoding,
          help = format!("The text form of the IDs printed: {FORMS} [default: decimal]; sno \
                          ids have one text form; {WIDE_FORMS}"))]
    pub(crate) format: Option<Encoding>,

    /// What to do when the clock reads behind the last minted time (after resuming a
    /// snapshot saved on a host whose clock was ahead, say).
    #[arg(long, value_enum, value_name = "POLICY", default_value_t = Policy::Wait)]
    pub(crate) on_clock_behind: Policy,

    /// For `wait` and `tick-tock`: the longest wait for the clock to catch up, and the
    /// largest regression waited out, in milliseconds [default: 1000].
    #[arg(long, value_name = "MS", allow_negative_numbers = true,
          value_parser = number_in(0, u64::MAX))]
    pub(crate) max_wait_ms: Option<u64>,

    /// Resume from the snapshot in FILE if it exists (node flags, or --partition and --meta
    /// for sno, then default to its values), keep FILE ahead of every ID printed, and save the
    /// generator's state there after minting, atomically (FILE is created when missing). One
    /// run per FILE at a time: a second fails at once. `--help` describes the format.
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
    #[arg(long, value_name = "S", requires = "etcd", default_value = "10",
          allow_negative_numbers = true, value_parser = number_in(1, u64::MAX))]
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
    /// The node values given (the preset flags and `--node`), by the layout's field names,
    /// each checked against its field.
    pub(crate) fn nodes(&self, layout: &Layout) -> Result<Vec<(&'static str, u64)>, Failure> {
        let flags = [
            ("machine", self.machine),
            ("worker", self.worker),
            ("process", self.process),
            ("shard", self.shard),
            ("generator", self.generator),
        ];
        let given = flags
            .into_iter()
            .filter_map(|(name, value)| Some((format!("--{name}"), name.to_owned(), value?)))
            .chain(self.node.iter().map(|(name, value)| {
                (
                    format!("--node {}", layout::bounded(name)),
                    name.clone(),
                    *value,
                )
            }));
        let mut nodes: Vec<(&'static str, u64)> = Vec::new();
        for (flag, name, value) in given {
            let Some(field) = layout.node_field(&name) else {
                let fields: Vec<&str> = layout.node_fields().map(|field| field.name()).collect();
                return Err(Failure::Usage(format!(
                    "{flag} {value}: layout {} has no node field {}; its node fields are: {}",
                    layout.name(),
                    layout::bounded(&name),
                    if fields.is_empty() {
                        "none".to_owned()
                    } else {
                        fields.join(", ")
                    }
                )));
            };
            let max = field.max();
            let value = u64::try_from(value)
                .ok()
                .filter(|&value| value <= max)
                .ok_or_else(|| {
                    Failure::Usage(format!(
                        "{flag} {value} is out of range for layout {} ({}: 0..={max})",
                        layout.name(),
                        field.name()
                    ))
                })?;
            if nodes.iter().any(|&(seen, _)| seen == field.name()) {
                return Err(Failure::Usage(format!(
                    "{flag} {value}: the {} field is given twice",
                    field.name()
                )));
            }
            nodes.push((field.name(), value));
        }
        Ok(nodes)
    }

    /// Whether any node value was given.
    pub(crate) fn has_nodes(&self) -> bool {
        !self.node.is_empty()
            || [
                self.machine,
                self.worker,
                self.process,
                self.shard,
                self.generator,
            ]
            .iter()
            .any(Option::is_some)
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

/// Exits as for a usage error clap found, with `mint`'s usage.
pub(crate) fn usage_error(kind: ErrorKind, message: &str) -> ! {
    let mut command = Cli::command();
    command.build();
    let mint = command
        .find_subcommand_mut("mint")
        .expect("the mint subcommand");
    let error = mint.error(kind, message);
    std::process::exit(i32::from(crate::report_usage(&error)))
}

#[derive(Debug, Args)]
pub(crate) struct InspectArgs {
    #[command(flatten)]
    pub(crate) layout: LayoutArgs,

    /// Print one JSON object per ID: "id" in the form read, "decimal" too when that is not
    /// decimal, then the ID's parts.
    #[arg(long)]
    pub(crate) json: bool,

    #[arg(long, value_name = "FORM", value_parser = parse_encoding,
          help = format!("The text form of the IDs read: {FORMS} [default: decimal]; hex may \
                          have a 0x prefix and fewer than 16 digits; with --layout sno, IDs are \
                          sno's 16-character text and --format does not apply; {WIDE_FORMS}"))]
    pub(crate) format: Option<Encoding>,

    /// Report each bad ID on stderr and carry on, failing at the end if any was bad (status 2
    /// for an argument, 1 for a line of stdin); without it, the first bad ID ends the run.
    #[arg(long)]
    pub(crate) keep_going: bool,

    /// IDs to decode; with none, IDs are read from stdin, one per line.
    #[arg(value_name = "ID", allow_negative_numbers = true)]
    pub(crate) ids: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct ConvertArgs {
    #[arg(long, value_name = "FORM", default_value = "decimal",
          value_parser = parse_convert_form,
          help = format!("The text form of the IDs read: {FORMS}; hex may have a 0x prefix \
                          and fewer than 16 digits (32 for 128-bit ids). With --layout uuidv7 \
                          or ulid: uuid, ulid, decimal or hex (the 16 bytes, big-endian)"))]
    pub(crate) from: ConvertForm,

    #[arg(long, value_name = "FORM", value_parser = parse_convert_form,
          help = format!("The text form to write: {FORMS}; with --layout uuidv7 or ulid: \
                          uuid, ulid, decimal or hex"))]
    pub(crate) to: ConvertForm,

    /// Check that each ID fits this layout (as `--layout` elsewhere: a preset, a JSON layout
    /// file or fields); without it, any 64-bit ID converts. uuidv7 and ulid convert 128-bit
    /// IDs (a UUIDv7's version and variant checked).
    #[arg(long, value_name = "LAYOUT")]
    pub(crate) layout: Option<String>,

    /// With --layout: its epoch in Unix milliseconds, as elsewhere.
    #[arg(long, value_name = "MS", allow_negative_numbers = true, requires = "layout",
          value_parser = number_in(0, u64::MAX))]
    pub(crate) epoch_ms: Option<u64>,

    /// With --layout: an inline layout's tick in milliseconds [default: 1].
    #[arg(long, value_name = "MS", allow_negative_numbers = true, requires = "layout",
          value_parser = number_in(1, u64::MAX))]
    pub(crate) tick_ms: Option<u64>,

    /// Report each bad ID on stderr and carry on, failing at the end if any was bad (status 2
    /// for an argument, 1 for a line of stdin); without it, the first bad ID ends the run.
    #[arg(long)]
    pub(crate) keep_going: bool,

    /// IDs to convert; with none, IDs are read from stdin, one per line.
    #[arg(value_name = "ID", allow_negative_numbers = true)]
    pub(crate) ids: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct BoundsArgs {
    #[command(flatten)]
    pub(crate) layout: LayoutArgs,

    #[arg(long, value_name = "FORM", value_parser = parse_encoding,
          help = format!("The text form of the bounds printed: {FORMS} [default: decimal]; \
                          sno ids have one text form; {WIDE_FORMS}"))]
    pub(crate) format: Option<Encoding>,

    /// Print one JSON object: the layout, the time (a span's start, within the layout) and
    /// the ticks holding the span (the first's start, the last's end exclusive) in Unix
    /// milliseconds, and the bounds as strings.
    #[arg(long)]
    pub(crate) json: bool,

    #[arg(value_name = "TIME", help = format!(
        "The time: {SPAN_FORMS}. E.g. 1714521600000, 2024-05-01T14:00:00.250+02:00, 2024-05-01, \
         2024-05-01T12, 2024-05-01..2024-05-08. A span reaching past the layout's times is \
         clamped to them"))]
    pub(crate) time: String,
}
