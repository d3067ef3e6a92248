//! The command line: clap's definitions of the subcommands and their flags, and what a
//! subcommand's flags say once the layout is known.

use std::fmt;
use std::path::PathBuf;

use crate::failure::{Failure, bounded};
use crate::snapshot::SNAPSHOT_FORMAT;
use crate::time::SPAN_FORMS;

use clap::error::ErrorKind;
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use snowmint::{ClockBehind, GeneratorBuilder, Layout, encoding::Encoding};

/// Mint Snowflake-style 64-bit IDs (and sno, UUIDv7 and ULID IDs), and decode them.
#[derive(Debug, Parser)]
#[command(name = "snowmint", version, propagate_version = true,
          after_help = crate::failure::EXIT_STATUS)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
// Parsed once per run: boxing the largest would buy nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Command {
    /// Mint IDs and print them, one per line (in decimal, or a uuidv7's or ulid's own text,
    /// unless --format says otherwise).
    #[command(after_long_help = mint_help())]
    Mint(MintArgs),
    /// Decode IDs given as arguments, or read from stdin one per line.
    Inspect(InspectArgs),
    /// Rewrite IDs from one text form to another: arguments, or stdin one per line.
    Convert(ConvertArgs),
    /// The smallest and the largest ID a layout can mint at a time or in a span (a day, an
    /// hour, a range), for paging by ID: the IDs minted in it are those in lower..=upper.
    Bounds(BoundsArgs),
    /// Mask IDs for the public: each ID (arguments, or stdin one per line) becomes its opaque
    /// value under a secret key, which `unmask` turns back into the ID.
    #[command(after_long_help = MASK_KEY)]
    Mask(MaskArgs),
    /// Unmask opaque values back into the IDs they mask (arguments, or stdin one per line).
    #[command(after_long_help = MASK_KEY)]
    Unmask(MaskArgs),
    /// Print a completion script for SHELL on stdout: for bash, save it as
    /// ~/.local/share/bash-completion/completions/snowmint; for zsh, as _snowmint in a
    /// directory on $fpath; for fish, as ~/.config/fish/completions/snowmint.fish.
    Completions {
        #[arg(value_enum, value_name = "SHELL")]
        shell: Shell,
    },
}

/// The shells `snowmint completions` writes for.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// The node values of `mint`, for `mint --help`.
pub(crate) const NODE_VALUES: &str = "\
Node values: a node field that no flag gives (--machine, --worker, --process, --shard, \
--generator, --node NAME=VALUE) is 0, so `snowmint mint` alone mints as machine 0 of the \
twitter layout. This default is the command line's: the library's generator builder refuses \
a missing node value unless told to default it. Processes that mint at the same time with one \
layout and epoch need different node values, or --etcd, which leases one; with --snapshot, \
node flags not given take the snapshot's values.";

/// `mint --help`'s text after the flags: the node values' default and the snapshot file.
fn mint_help() -> String {
    format!("{NODE_VALUES}\n\n{SNAPSHOT_FORMAT}")
}

/// The names of the 64-bit text forms, for `--format`, `--from` and `--to`.
pub(crate) const FORMS: &str = "decimal, base36, base32 (Crockford), base62, hex";

/// The text forms of `--layout uuidv7` and `ulid`.
pub(crate) const WIDE_FORMS: &str = "uuidv7 and ulid ids take uuid, ulid, decimal or hex (the \
128-bit integer) and default to their own text";

/// A text form, as `--format`, `--from` and `--to` name it: the library's 64-bit forms, and
/// `uuid` and `ulid` for 128-bit IDs. Which ones apply is the layout's to say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextForm {
    /// A 64-bit form; `decimal` and `hex` also name the 128-bit integer.
    Id(Encoding),
    /// A hyphenated UUID.
    Uuid,
    /// 26 characters of Crockford's base32.
    Ulid,
}

impl fmt::Display for TextForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextForm::Id(encoding) => encoding.fmt(f),
            TextForm::Uuid => f.write_str("uuid"),
            TextForm::Ulid => f.write_str("ulid"),
        }
    }
}

/// Parses a text form's name for clap, with the library's message for a name it does not
/// know.
pub(crate) fn parse_form(name: &str) -> Result<TextForm, String> {
    match name {
        "uuid" => Ok(TextForm::Uuid),
        "ulid" => Ok(TextForm::Ulid),
        name => name
            .parse()
            .map(TextForm::Id)
            .map_err(|error: snowmint::Error| {
                format!("{error}; or uuid, ulid with --layout uuidv7 or ulid")
            }),
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

fn layout_help() -> String {
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

    /// Machine id (twitter, sonyflake, snowflake-si); 0 when not given (see --help).
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

    #[arg(long, value_name = "FORM", value_parser = parse_form,
          help = format!("The text form of the IDs printed: {FORMS} [default: decimal]; sno \
                          ids have one text form; {WIDE_FORMS}"))]
    pub(crate) format: Option<TextForm>,

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
    /// run, and release it at exit. Needs snowmint-cli built with its etcd feature.
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
        let given =
            flags
                .into_iter()
                .filter_map(|(name, value)| Some((format!("--{name}"), name.to_owned(), value?)))
                .chain(self.node.iter().map(|(name, value)| {
                    (format!("--node {}", bounded(name)), name.clone(), *value)
                }));
        let mut nodes: Vec<(&'static str, u64)> = Vec::new();
        for (flag, name, value) in given {
            let Some(field) = layout.node_field(&name) else {
                let fields: Vec<&str> = layout.node_fields().map(|field| field.name()).collect();
                return Err(Failure::Usage(format!(
                    "{flag} {value}: layout {} has no node field {}; its node fields are: {}",
                    layout.name(),
                    bounded(&name),
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
    /// error, reported as clap reports a conflict.
    pub(crate) fn policy(&self) -> Result<ClockBehind, Failure> {
        // A leased node ID starts above its last holder's mark, up to a TTL ahead of the clock.
        let default_ms = if self.etcd.is_some() {
            self.ttl.saturating_mul(1_000)
        } else {
            DEFAULT_MAX_WAIT_MS
        };
        let max_ms = self.max_wait_ms.unwrap_or(default_ms);
        match self.on_clock_behind {
            Policy::Wait => Ok(ClockBehind::Wait { max_ms }),
            Policy::TickTock => Ok(ClockBehind::TickTock { max_ms }),
            Policy::Error if self.max_wait_ms.is_some() => Err(conflict(
                "mint",
                "--max-wait-ms is for --on-clock-behind wait or tick-tock; error never waits",
            )),
            Policy::Error => Ok(ClockBehind::Error),
        }
    }
}

/// `builder` with the node values given (`MintArgs::nodes`), and 0 for every other node field
/// it does not set: the library has no default node value, the command line's is 0
/// ([`NODE_VALUES`]).
pub(crate) fn with_nodes<C>(
    builder: GeneratorBuilder<C>,
    nodes: &[(&'static str, u64)],
) -> GeneratorBuilder<C> {
    nodes
        .iter()
        .fold(builder, |builder, &(name, value)| builder.node(name, value))
        .default_nodes()
}

/// A conflict between `subcommand`'s flags that clap does not check, as clap would report it.
fn conflict(subcommand: &str, message: &str) -> Failure {
    let mut command = Cli::command();
    command.build();
    let subcommand = command
        .find_subcommand_mut(subcommand)
        .expect("a subcommand of the command line");
    Failure::Clap(subcommand.error(ErrorKind::ArgumentConflict, message))
}

#[derive(Debug, Args)]
pub(crate) struct InspectArgs {
    #[command(flatten)]
    pub(crate) layout: LayoutArgs,

    /// Print one JSON object per ID: "id" in the form read, "decimal" too when that is not
    /// decimal, then the ID's parts.
    #[arg(long)]
    pub(crate) json: bool,

    #[arg(long, alias = "format", value_name = "FORM", value_parser = parse_form,
          help = format!("The text form of the IDs read, as for convert: {FORMS} [default: \
                          decimal]; hex may have a 0x prefix and fewer than 16 digits; with \
                          --layout sno, IDs are sno's 16-character text and --from does not \
                          apply; {WIDE_FORMS}. Also spelled --format"))]
    pub(crate) from: Option<TextForm>,

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
    #[arg(long, value_name = "FORM", value_parser = parse_form,
          help = format!("The text form of the IDs read: {FORMS} [default: decimal]; hex may \
                          have a 0x prefix and fewer than 16 digits (32 for 128-bit ids). With \
                          --layout uuidv7 or ulid: uuid, ulid, decimal or hex (the 16 bytes, \
                          big-endian) [default: the layout's own text, uuid or ulid]"))]
    pub(crate) from: Option<TextForm>,

    #[arg(long, value_name = "FORM", value_parser = parse_form,
          help = format!("The text form to write: {FORMS}; with --layout uuidv7 or ulid: \
                          uuid, ulid, decimal or hex"))]
    pub(crate) to: TextForm,

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

/// Where `mask` and `unmask` find the key, for their long help.
pub(crate) const MASK_KEY: &str = "\
The key: 32 hexadecimal digits (128 bits; `openssl rand -hex 16` makes one), read from \
--key-file or from the environment variable SNOWMINT_MASK_KEY, never from an argument, where \
`ps` and the shell's history would show it. The same key and width give the same values every \
time; keep the key secret, as anyone with it unmasks every ID.";

#[derive(Debug, Args)]
pub(crate) struct MaskArgs {
    /// A file holding the key: 32 hexadecimal digits (a final newline is fine). Without it,
    /// the key is SNOWMINT_MASK_KEY's.
    #[arg(long, value_name = "PATH")]
    pub(crate) key_file: Option<PathBuf>,

    /// The masked values' width: bigint (below 2^63, a signed BIGINT column), js (below 2^53,
    /// a JavaScript number), 64 (any u64), or a number of bits from 32 to 64. The IDs must fit
    /// it.
    #[arg(long, value_name = "WIDTH", default_value = "bigint", value_parser = parse_width)]
    pub(crate) width: snowmint::mask::MaskWidth,

    #[arg(long, value_name = "FORM", default_value = "decimal",
          help = format!("The text form of the IDs and of the masked values, read and written: \
                          {FORMS}"))]
    pub(crate) format: Encoding,

    /// Report each bad value on stderr and carry on, failing at the end if any was bad
    /// (status 2 for an argument, 1 for a line of stdin); without it, the first ends the run.
    #[arg(long)]
    pub(crate) keep_going: bool,

    /// The values; with none, they are read from stdin, one per line.
    #[arg(value_name = "VALUE", allow_negative_numbers = true)]
    pub(crate) values: Vec<String>,
}

/// A `--width`: a name or a number of bits.
fn parse_width(text: &str) -> Result<snowmint::mask::MaskWidth, String> {
    use snowmint::mask::MaskWidth;
    match text {
        "bigint" => Ok(MaskWidth::BIGINT),
        "js" => Ok(MaskWidth::JS_SAFE),
        bits => {
            let bits = number_in(32, 64)(bits)
                .map_err(|_| "expected bigint, js, or a number of bits from 32 to 64".to_owned())?;
            // In 32..=64, which `bits` accepts.
            MaskWidth::bits(bits as u32).map_err(|error| error.to_string())
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct BoundsArgs {
    #[command(flatten)]
    pub(crate) layout: LayoutArgs,

    #[arg(long, value_name = "FORM", value_parser = parse_form,
          help = format!("The text form of the bounds printed: {FORMS} [default: decimal]; \
                          sno ids have one text form; {WIDE_FORMS}"))]
    pub(crate) format: Option<TextForm>,

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
