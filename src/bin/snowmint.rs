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
//! the snapshot's layout), and writes the generator's state back to FILE after minting, also
//! when minting stopped on an error or a closed stdout. The write is atomic: FILE.tmp is
//! written and fsynced, renamed over FILE, and the directory fsynced. A run killed before it
//! writes FILE back leaves the previous snapshot there; one FILE serves one process at a time.
//!
//! The format is a few lines of text, described in [`SNAPSHOT_FORMAT`] (which `snowmint mint
//! --help` prints); [`format_snapshot`] writes it and [`parse_snapshot`] reads it. A file that
//! does not parse is an error naming the line and what was expected, and is left as it is.

use std::ffi::OsString;
use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use snowmint::{
    ClockBehind, Generator, GeneratorBuilder, Id, Layout, Parts, Snapshot, encoding::Encoding,
    layout::PRESET_NAMES, sno::SnoId,
};

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

/// The names of the text forms, for `--format`, `--from` and `--to`.
const FORMS: &str = "decimal, base36, base32 (Crockford), base62, hex";

/// Parses a text form's name for clap, with the library's message on error.
fn parse_encoding(name: &str) -> Result<Encoding, String> {
    name.parse()
        .map_err(|error: snowmint::Error| error.to_string())
}

/// The layout options shared by both subcommands.
#[derive(Debug, Args)]
struct LayoutArgs {
    #[arg(long, value_name = "NAME", default_value = "twitter", help = layout_help())]
    layout: String,

    /// The layout's epoch in Unix milliseconds: required for nanoflake, optional for
    /// snowflake-si and osmium, refused by the presets with a fixed epoch.
    #[arg(long, value_name = "MS")]
    epoch_ms: Option<u64>,
}

impl LayoutArgs {
    fn layout(&self) -> Result<Layout, Failure> {
        Ok(Layout::preset(&self.layout, self.epoch_ms)?)
    }
}

fn layout_help() -> String {
    format!("The ID layout: {PRESET_NAMES}")
}

#[derive(Debug, Args)]
struct MintArgs {
    #[command(flatten)]
    layout: LayoutArgs,

    /// Machine id (twitter, sonyflake, snowflake-si); 0 when not given.
    #[arg(long, value_name = "N")]
    machine: Option<u64>,

    /// Worker id (discord, osmium); 0 when not given.
    #[arg(long, value_name = "N")]
    worker: Option<u64>,

    /// Process id (discord, osmium); 0 when not given.
    #[arg(long, value_name = "N")]
    process: Option<u64>,

    /// Shard id (instagram); 0 when not given.
    #[arg(long, value_name = "N")]
    shard: Option<u64>,

    /// Generator id (nanoflake); 0 when not given.
    #[arg(long, value_name = "N")]
    generator: Option<u64>,

    /// How many IDs to mint. They are minted in batches: one compare-and-swap reserves up to
    /// a tick's worth.
    #[arg(long, value_name = "N", default_value_t = 1)]
    count: u64,

    #[arg(long, value_name = "FORM", default_value = "decimal", value_parser = parse_encoding,
          help = format!("The text form of the IDs printed: {FORMS}"))]
    format: Encoding,

    /// What to do when the clock reads behind the last minted time (after resuming a
    /// snapshot saved on a host whose clock was ahead, say).
    #[arg(long, value_enum, value_name = "POLICY", default_value_t = Policy::Wait)]
    on_clock_behind: Policy,

    /// For `wait` and `tick-tock`: the longest wait for the clock to catch up, and the
    /// largest regression waited out, in milliseconds [default: 1000].
    #[arg(long, value_name = "MS")]
    max_wait_ms: Option<u64>,

    /// Resume from the snapshot in FILE if it exists (node flags then default to its values),
    /// and save the generator's state there after minting, atomically (FILE is created when
    /// missing). `--help` describes the format.
    #[arg(long, value_name = "FILE", conflicts_with = "etcd")]
    snapshot: Option<PathBuf>,

    /// Lease the layout's first node field (machine, worker, ...) from the etcd cluster at
    /// ENDPOINTS (comma separated, e.g. http://10.0.0.5:2379,http://10.0.0.6:2379) for the
    /// run, and release it at exit. Needs snowmint built with the etcd feature.
    #[arg(long, value_name = "ENDPOINTS", requires = "prefix")]
    etcd: Option<String>,

    /// With --etcd: the key prefix the node IDs are leased under, e.g. /snowmint/orders/.
    #[arg(long, value_name = "P", requires = "etcd")]
    prefix: Option<String>,

    /// With --etcd: the lease's time to live in seconds; --max-wait-ms then defaults to it.
    #[arg(long, value_name = "S", requires = "etcd", default_value_t = 10)]
    ttl: u64,
}

/// `--on-clock-behind`: the library's [`ClockBehind`] policies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Policy {
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
const DEFAULT_MAX_WAIT_MS: u64 = 1_000;

impl MintArgs {
    /// The node flags given, by field name.
    fn nodes(&self) -> Vec<(&'static str, u64)> {
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
    fn policy(&self) -> ClockBehind {
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
fn usage_error(kind: ErrorKind, message: &str) -> ! {
    let mut command = Cli::command();
    command.build();
    let mint = command
        .find_subcommand_mut("mint")
        .expect("the mint subcommand");
    mint.error(kind, message).exit()
}

#[derive(Debug, Args)]
struct InspectArgs {
    #[command(flatten)]
    layout: LayoutArgs,

    /// Print one JSON object per ID (the id itself as a string).
    #[arg(long)]
    json: bool,

    #[arg(long, value_name = "FORM", value_parser = parse_encoding,
          help = format!("The text form of the IDs read: {FORMS} [default: decimal]; with \
                          --layout sno, IDs are sno's 16-character text and --format does not \
                          apply"))]
    format: Option<Encoding>,

    /// IDs to decode; with none, IDs are read from stdin, one per line.
    #[arg(value_name = "ID", allow_negative_numbers = true)]
    ids: Vec<String>,
}

#[derive(Debug, Args)]
struct ConvertArgs {
    #[arg(long, value_name = "FORM", default_value = "decimal", value_parser = parse_encoding,
          help = format!("The text form of the IDs read: {FORMS}"))]
    from: Encoding,

    #[arg(long, value_name = "FORM", value_parser = parse_encoding,
          help = format!("The text form to write: {FORMS}"))]
    to: Encoding,

    /// IDs to convert; with none, IDs are read from stdin, one per line.
    #[arg(value_name = "ID", allow_negative_numbers = true)]
    ids: Vec<String>,
}

#[derive(Debug, Args)]
struct BoundsArgs {
    #[command(flatten)]
    layout: LayoutArgs,

    #[arg(long, value_name = "FORM", default_value = "decimal", value_parser = parse_encoding,
          help = format!("The text form of the bounds printed: {FORMS}"))]
    format: Encoding,

    /// Print one JSON object: the layout, the time in Unix milliseconds, and the bounds as
    /// strings.
    #[arg(long)]
    json: bool,

    /// An RFC 3339 time, e.g. 2024-05-01T12:00:00Z or 2024-05-01T14:00:00.250+02:00.
    #[arg(value_name = "TIME")]
    time: String,
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

fn mint(args: &MintArgs) -> Result<(), Failure> {
    let layout = args.layout.layout()?;
    let nodes = args.nodes();
    let policy = args.policy();
    if let Some(endpoints) = &args.etcd {
        return mint_leased(args, layout, &nodes, endpoints, policy);
    }
    let Some(path) = &args.snapshot else {
        let generator = fresh(layout, &nodes).on_clock_behind(policy).build()?;
        return mint_ids(|out| generator.mint_batch(out), args.count, args.format);
    };

    let builder = match load_snapshot(path)? {
        Some(snapshot) => {
            check_fits(path, &snapshot, &layout, &nodes)?;
            Generator::resume(&snapshot)
        }
        None => fresh(layout, &nodes),
    };
    let generator = builder
        .on_clock_behind(policy)
        .build()
        .map_err(|error| match error {
            snowmint::Error::InvalidSnapshot { .. } => Failure::snapshot(path, error),
            error => error.into(),
        })?;
    // Opened before minting, so an unwritable directory fails before any ID is printed.
    let pending = PendingSave::create(path)?;
    let minted = mint_ids(|out| generator.mint_batch(out), args.count, args.format);
    // Saved whatever happened: IDs may have been printed before an error or a closed stdout.
    match (minted, pending.commit(&generator.snapshot())) {
        (minted, Ok(())) => minted,
        (Ok(()), Err(error)) => Err(Failure::snapshot(path, error)),
        (Err(failure), Err(error)) => Err(Failure::snapshot(
            path,
            format_args!("{error}; minting had stopped on: {failure}"),
        )),
    }
}

/// `mint --etcd`: leases the layout's first node field for the run, mints, and releases the
/// node ID (lowering its mark to the last ID's tick) at exit.
#[cfg(feature = "etcd")]
fn mint_leased(
    args: &MintArgs,
    layout: Layout,
    nodes: &[(&'static str, u64)],
    endpoints: &str,
    policy: ClockBehind,
) -> Result<(), Failure> {
    use snowmint::etcd::{EtcdConfig, EtcdLease, LeasedGenerator};
    use std::time::Duration;

    let field = leased_field(&layout, nodes)?;
    let prefix = args.prefix.as_deref().unwrap_or_default();
    let config = EtcdConfig::new(endpoints.split(','), prefix, 0..=field.max())
        .ttl(Duration::from_secs(args.ttl));
    let lease = EtcdLease::claim(&config)?;
    let builder = with_nodes(lease.resume(layout, field.name()), nodes);
    let generator = LeasedGenerator::new(builder.on_clock_behind(policy).build()?, lease)?;
    let minted = mint_ids(|out| generator.mint_batch(out), args.count, args.format);
    let released = generator.shutdown().map_err(Failure::from);
    minted.and(released)
}

/// Without the etcd feature, `--etcd` is an error that says how to get it.
#[cfg(not(feature = "etcd"))]
fn mint_leased(
    _args: &MintArgs,
    layout: Layout,
    nodes: &[(&'static str, u64)],
    _endpoints: &str,
    _policy: ClockBehind,
) -> Result<(), Failure> {
    leased_field(&layout, nodes)?;
    Err(Failure::Input(
        "--etcd needs snowmint built with the etcd feature (cargo build --features cli,etcd)"
            .to_owned(),
    ))
}

/// The node field `--etcd` leases: the layout's first, which no node flag may give.
fn leased_field(
    layout: &Layout,
    nodes: &[(&'static str, u64)],
) -> Result<snowmint::layout::Field, Failure> {
    let field = *layout.node_fields().next().ok_or_else(|| {
        Failure::Input(format!(
            "layout {} has no node field for --etcd to lease; expected a layout with one",
            layout.name()
        ))
    })?;
    if let Some(&(name, value)) = nodes.iter().find(|&&(name, _)| name == field.name()) {
        return Err(Failure::Input(format!(
            "--{name} {value} and --etcd both give the {name} id; omit --{name}"
        )));
    }
    Ok(field)
}

/// A generator builder for a fresh start, with the node flags given and 0 for the rest.
fn fresh(layout: Layout, nodes: &[(&'static str, u64)]) -> GeneratorBuilder {
    with_nodes(Generator::builder(layout), nodes)
}

/// `builder` with the node flags given, and 0 for every other node field it does not set
/// (the library has no default node ID; the command line's is 0).
fn with_nodes<C>(
    builder: GeneratorBuilder<C>,
    nodes: &[(&'static str, u64)],
) -> GeneratorBuilder<C> {
    nodes
        .iter()
        .fold(builder, |builder, &(name, value)| builder.node(name, value))
        .default_nodes()
}

/// The most IDs reserved by one batch: a whole tick of the twitter layout.
const BATCH: usize = 4096;

/// Mints `count` IDs onto stdout in `format`, in batches: one compare-and-swap reserves what
/// is left of the current tick, up to [`BATCH`] IDs.
fn mint_ids(
    mut mint_batch: impl FnMut(&mut [Id]) -> snowmint::Result<usize>,
    count: u64,
    format: Encoding,
) -> Result<(), Failure> {
    let mut out = BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    let mut batch = [Id::default(); BATCH];
    let mut left = count;
    while left > 0 {
        let want = usize::try_from(left).map_or(BATCH, |left| left.min(BATCH));
        let minted = match mint_batch(&mut batch[..want]) {
            Ok(minted) => minted,
            Err(error) => return fail_after_flush(&mut out, error),
        };
        for &id in &batch[..minted] {
            writeln!(out, "{}", format.encode(id))?;
        }
        left -= minted as u64;
    }
    out.flush()?;
    Ok(())
}

/// The snapshot's layout must be the command line's, and each node flag given must equal the
/// snapshot's value (an absent flag takes it).
fn check_fits(
    path: &Path,
    snapshot: &Snapshot,
    layout: &Layout,
    nodes: &[(&'static str, u64)],
) -> Result<(), Failure> {
    let saved = &snapshot.layout;
    if (saved.name(), saved.epoch_ms()) != (layout.name(), layout.epoch_ms()) {
        return Err(Failure::snapshot(
            path,
            format_args!(
                "it is for layout {} with epoch {} ms, but --layout/--epoch-ms give layout {} \
                 with epoch {} ms",
                saved.name(),
                saved.epoch_ms(),
                layout.name(),
                layout.epoch_ms()
            ),
        ));
    }
    // The errors of a fresh start first: a field the layout lacks, a value out of range.
    layout.node_bits(nodes)?;
    for &(name, value) in nodes {
        let saved = snapshot.nodes.iter().find(|&&(n, _)| n == name);
        match saved {
            Some(&(_, saved)) if saved == value => {}
            Some(&(_, saved)) => {
                return Err(Failure::snapshot(
                    path,
                    format_args!(
                        "--{name} {value} does not match the snapshot's {name} {saved}; \
                         omit --{name} or give {saved}"
                    ),
                ));
            }
            None => {
                return Err(Failure::snapshot(
                    path,
                    format_args!("--{name} {value} is given, but the snapshot has no {name}"),
                ));
            }
        }
    }
    Ok(())
}

fn inspect(args: &InspectArgs) -> Result<(), Failure> {
    if args.layout.layout == "sno" {
        return inspect_sno(args);
    }
    let layout = args.layout.layout()?;
    let format = args.format.unwrap_or_default();
    for_each_id(&args.ids, |out, text| {
        let parts = match format.decode(text).and_then(|id| layout.decode(id)) {
            Ok(parts) => parts,
            Err(error) => return Ok(Err(error)),
        };
        if args.json {
            write_json(out, &parts)?;
        } else {
            writeln!(out, "{parts}")?;
        }
        Ok(Ok(()))
    })
}

/// `inspect --layout sno`: sno's 16-character IDs, every component.
fn inspect_sno(args: &InspectArgs) -> Result<(), Failure> {
    if let Some(format) = args.format {
        return Err(Failure::Input(format!(
            "--format {format} does not apply to --layout sno: sno ids have one text form, 16 \
             characters of 23456789abcdefghijklmnopqrstuvwx"
        )));
    }
    if let Some(epoch_ms) = args.layout.epoch_ms {
        return Err(Failure::Input(format!(
            "layout sno has the fixed epoch {} ms (2010-01-01T00:00:00Z) and does not take \
             --epoch-ms {epoch_ms}",
            SnoId::EPOCH_MS
        )));
    }
    for_each_id(&args.ids, |out, text| {
        let id = match text.parse::<SnoId>() {
            Ok(id) => id,
            Err(error) => return Ok(Err(error)),
        };
        let (tick, meta, partition, sequence) =
            (id.tick(), id.meta(), id.partition(), id.sequence());
        if args.json {
            writeln!(
                out,
                "{{\"id\":\"{id}\",\"layout\":\"sno\",\"timestamp_ms\":{},\"time\":\"{}\",\
                 \"tick\":{tick},\"meta\":{meta},\"partition\":{partition},\
                 \"sequence\":{sequence}}}",
                id.timestamp_ms(),
                id.time_rfc3339(),
            )?;
        } else {
            writeln!(
                out,
                "{id} (sno {} tick={tick} meta={meta} partition={partition} sequence={sequence})",
                id.time_rfc3339(),
            )?;
        }
        Ok(Ok(()))
    })
}

fn convert(args: &ConvertArgs) -> Result<(), Failure> {
    for_each_id(&args.ids, |out, text| {
        let id = match args.from.decode(text) {
            Ok(id) => id,
            Err(error) => return Ok(Err(error)),
        };
        writeln!(out, "{}", args.to.encode(id))?;
        Ok(Ok(()))
    })
}

fn bounds(args: &BoundsArgs) -> Result<(), Failure> {
    let layout = args.layout.layout()?;
    let unix_ms = parse_rfc3339(&args.time)
        .map_err(|problem| Failure::Input(format!("invalid time {:?}: {problem}", args.time)))?;
    let lower = args.format.encode(layout.min_id_at(unix_ms)?);
    let upper = args.format.encode(layout.max_id_at(unix_ms)?);
    let mut out = io::stdout().lock();
    if args.json {
        write!(out, "{{\"layout\":")?;
        write_json_string(&mut out, layout.name())?;
        writeln!(
            out,
            ",\"timestamp_ms\":{unix_ms},\"lower\":\"{lower}\",\"upper\":\"{upper}\"}}"
        )?;
    } else {
        writeln!(out, "lower {lower}\nupper {upper}")?;
    }
    out.flush()?;
    Ok(())
}

/// Runs `handle` on each ID: the arguments, or with none the non-blank lines of stdin
/// (trimmed), flushing when no more input is waiting. `handle`'s outer error is output
/// failing, its inner one a bad ID, which stops the run after what was printed is flushed.
fn for_each_id(
    ids: &[String],
    mut handle: impl FnMut(&mut dyn Write, &str) -> io::Result<Result<(), snowmint::Error>>,
) -> Result<(), Failure> {
    let mut out = BufWriter::new(io::stdout().lock());
    if ids.is_empty() {
        let mut input = BufReader::new(io::stdin().lock());
        let mut line = Vec::new();
        loop {
            line.clear();
            if input.read_until(b'\n', &mut line)? == 0 {
                break;
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim();
            if !text.is_empty() {
                if let Err(error) = handle(&mut out, text)? {
                    return fail_after_flush(&mut out, error);
                }
            }
            // Nothing more is waiting: show what we have (for interactive use).
            if input.buffer().is_empty() {
                out.flush()?;
            }
        }
    } else {
        for text in ids {
            if let Err(error) = handle(&mut out, text)? {
                return fail_after_flush(&mut out, error);
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// Unix milliseconds from an RFC 3339 time, `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, with
/// the `t`, `z` and space separators RFC 3339 allows. A fraction finer than a millisecond is
/// truncated to the millisecond it falls in. Times before 1970 and leap seconds (`:60`, which
/// Unix time does not count) are errors.
fn parse_rfc3339(text: &str) -> Result<u64, String> {
    const EXPECTED: &str = "expected YYYY-MM-DDTHH:MM:SS[.fraction] and Z or an offset like +02:00";
    let b = text.as_bytes();
    let digits = |at: usize, len: usize, what: &str| -> Result<u64, String> {
        match b.get(at..at + len) {
            Some(part) if part.iter().all(u8::is_ascii_digit) => {
                Ok(part.iter().fold(0, |n, d| n * 10 + u64::from(d - b'0')))
            }
            _ => Err(format!(
                "{what} at position {at} is not {len} digits; {EXPECTED}"
            )),
        }
    };
    let separator = |at: usize, allowed: &[u8], what: &str| -> Result<(), String> {
        match b.get(at) {
            Some(c) if allowed.contains(c) => Ok(()),
            _ => Err(format!("expected {what} at position {at}; {EXPECTED}")),
        }
    };
    let year = digits(0, 4, "the year")?;
    separator(4, b"-", "'-'")?;
    let month = digits(5, 2, "the month")?;
    separator(7, b"-", "'-'")?;
    let day = digits(8, 2, "the day")?;
    separator(10, b"Tt ", "'T'")?;
    let hour = digits(11, 2, "the hour")?;
    separator(13, b":", "':'")?;
    let minute = digits(14, 2, "the minute")?;
    separator(16, b":", "':'")?;
    let second = digits(17, 2, "the second")?;
    let mut at = 19;
    let mut ms = 0;
    if b.get(at) == Some(&b'.') {
        at += 1;
        let start = at;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            if at - start < 3 {
                ms = ms * 10 + u64::from(b[at] - b'0');
            }
            at += 1;
        }
        if at == start {
            return Err(format!(
                "no digit after '.' at position {start}; {EXPECTED}"
            ));
        }
        for _ in (at - start)..3 {
            ms *= 10;
        }
    }
    let offset_minutes = match b.get(at) {
        Some(b'Z' | b'z') if at + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) if at + 6 == b.len() => {
            let hours = digits(at + 1, 2, "the offset's hours")?;
            separator(at + 3, b":", "':' in the offset")?;
            let minutes = digits(at + 4, 2, "the offset's minutes")?;
            if hours > 23 || minutes > 59 {
                return Err(format!(
                    "offset {} is out of range (-23:59..=+23:59)",
                    &text[at..]
                ));
            }
            let offset = (hours * 60 + minutes) as i64;
            if sign == b'-' { -offset } else { offset }
        }
        _ => {
            return Err(format!(
                "expected Z or an offset like +02:00 at position {at}, then the end; {EXPECTED}"
            ));
        }
    };
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        _ => return Err(format!("month {month:02} is out of range (01..=12)")),
    };
    if day == 0 || day > days_in_month {
        return Err(format!(
            "day {day:02} is out of range for {year:04}-{month:02} (01..={days_in_month})"
        ));
    }
    if hour > 23 || minute > 59 {
        return Err(format!(
            "{hour:02}:{minute:02} is not a time of day (00:00..=23:59)"
        ));
    }
    if second == 60 {
        return Err(
            "second 60 is a leap second, which Unix time does not count; use :59.999".to_owned(),
        );
    }
    if second > 59 {
        return Err(format!("second {second:02} is out of range (00..=59)"));
    }
    let seconds = days_from_civil(year, month, day) * 86_400
        + (hour * 3600 + minute * 60 + second) as i64
        - offset_minutes * 60;
    let unix_ms = seconds * 1000 + ms as i64;
    u64::try_from(unix_ms)
        .map_err(|_| "before 1970-01-01T00:00:00Z, where Unix time starts".to_owned())
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: u64, month: u64, day: u64) -> i64 {
    let (month, day) = (month as i64, day as i64);
    let year = year as i64 - i64::from(month <= 2);
    let era = year.div_euclid(400);
    let yoe = year - era * 400;
    let doy = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Flushes what was printed before `error`, then reports it.
fn fail_after_flush(out: &mut impl Write, error: snowmint::Error) -> Result<(), Failure> {
    match out.flush() {
        // A reader that went away does not hide the bad input.
        Err(io_error) if io_error.kind() != io::ErrorKind::BrokenPipe => Err(io_error.into()),
        _ => Err(error.into()),
    }
}

/// `{"id":"…","layout":"…","timestamp_ms":…,"time":"…",["tick":0|1,]<node fields>,"sequence":…}`
///
/// `tick` (the timeline) is there exactly when the layout has a tick-tock bit.
fn write_json(out: &mut dyn Write, parts: &Parts<'_>) -> io::Result<()> {
    write!(out, "{{\"id\":\"{}\",\"layout\":", parts.id())?;
    write_json_string(out, parts.layout().name())?;
    write!(
        out,
        ",\"timestamp_ms\":{},\"time\":\"{}\"",
        parts.timestamp_ms(),
        parts.time_rfc3339()
    )?;
    if let Some(timeline) = parts.timeline() {
        write!(out, ",\"tick\":{timeline}")?;
    }
    for (name, value) in parts.nodes() {
        out.write_all(b",")?;
        write_json_string(out, name)?;
        write!(out, ":{value}")?;
    }
    writeln!(out, ",\"sequence\":{}}}", parts.sequence())
}

/// A JSON string literal. Preset names are plain ASCII; escaping keeps any other name valid.
fn write_json_string(out: &mut dyn Write, s: &str) -> io::Result<()> {
    out.write_all(b"\"")?;
    for c in s.chars() {
        match c {
            '"' => out.write_all(b"\\\"")?,
            '\\' => out.write_all(b"\\\\")?,
            c if u32::from(c) < 0x20 => write!(out, "\\u{:04x}", u32::from(c))?,
            c => write!(out, "{c}")?,
        }
    }
    out.write_all(b"\"")
}

/// The snapshot file format, for `mint --help`. The example between the blank lines is a
/// whole file, and a unit test parses it.
const SNAPSHOT_FORMAT: &str = "\
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
const SNAPSHOT_HEADER: &str = "snowmint-snapshot 1";

/// The largest snapshot file read; real ones are a few hundred bytes.
const SNAPSHOT_MAX_BYTES: u64 = 64 * 1024;

/// The snapshot in `path`, or `None` if there is no such file.
fn load_snapshot(path: &Path) -> Result<Option<Snapshot>, Failure> {
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
fn format_snapshot(snapshot: &Snapshot) -> String {
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
fn parse_snapshot(text: &str) -> Result<Snapshot, String> {
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

fn check_range(line: usize, key: &str, value: u64, max: u64) -> Result<(), String> {
    if value > max {
        return Err(format!(
            "line {line}: {key} {value} is out of range, expected 0..={max}"
        ));
    }
    Ok(())
}

/// A snapshot file's lines, numbered from 1.
struct SnapshotLines<'a> {
    lines: std::str::Lines<'a>,
    /// The number of the last line read.
    number: usize,
}

impl<'a> SnapshotLines<'a> {
    /// The next line, which must be the words `keys` and one more, described by `placeholder`:
    /// its number and that last word.
    fn expect(&mut self, keys: &[&str], placeholder: &str) -> Result<(usize, &'a str), String> {
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
    fn number(&mut self, keys: &[&str], placeholder: &str) -> Result<(usize, u64), String> {
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
    fn end(&mut self) -> Result<(), String> {
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
fn quoted(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((end, _)) => format!("{:?}…", &text[..end]),
        None => format!("{text:?}"),
    }
}

/// A snapshot save begun before minting: `FILE.tmp` created, to be written, fsynced and renamed
/// over `FILE` by [`commit`](Self::commit).
struct PendingSave<'a> {
    path: &'a Path,
    tmp_path: PathBuf,
    tmp: File,
}

impl<'a> PendingSave<'a> {
    fn create(path: &'a Path) -> Result<Self, Failure> {
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
    fn commit(self, snapshot: &Snapshot) -> Result<(), String> {
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
fn sync_parent(path: &Path) -> io::Result<()> {
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    File::open(parent)?.sync_all()
}

/// Directories cannot be opened for fsync here; the rename is as durable as the platform makes it.
#[cfg(not(unix))]
fn sync_parent(_path: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A layout with a tick-tock bit (no preset has one yet).
    const TICK_TOCK: Layout = Layout::builder("tt", 64)
        .unused(1)
        .time(41)
        .tick_tock()
        .node("machine", 9)
        .sequence(12)
        .epoch_ms(1_288_834_974_657)
        .build_const();

    fn json(layout: &Layout, id: Id) -> String {
        let mut out = Vec::new();
        write_json(&mut out, &layout.decode(id).unwrap()).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn json_has_a_tick_key_after_time_exactly_when_the_layout_has_the_bit() {
        for timeline in [0, 1] {
            let id = TICK_TOCK
                .compose_on_timeline(1_656_432_460_105, timeline, &[("machine", 378)], 9)
                .unwrap();
            assert_eq!(
                json(&TICK_TOCK, id),
                format!(
                    "{{\"id\":\"{id}\",\"layout\":\"tt\",\"timestamp_ms\":1656432460105,\
                     \"time\":\"2022-06-28T16:07:40.105Z\",\"tick\":{timeline},\"machine\":378,\
                     \"sequence\":9}}\n"
                )
            );
        }
        let id = Layout::TWITTER
            .compose(1_656_432_460_105, &[("machine", 378)], 9)
            .unwrap();
        assert!(!json(&Layout::TWITTER, id).contains("tick"));
    }

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

    #[test]
    fn parse_rfc3339_reads_known_instants() {
        let cases = [
            ("1970-01-01T00:00:00Z", 0),
            ("1970-01-01T00:00:00.001Z", 1),
            ("2000-02-29T00:00:00Z", 951_782_400_000),
            ("2000-03-01T00:00:00Z", 951_868_800_000),
            ("2010-11-04T01:42:54.657Z", 1_288_834_974_657),
            ("2022-06-28T16:07:40.105Z", 1_656_432_460_105),
            ("2024-02-29T23:59:59.999Z", 1_709_251_199_999),
            ("9999-12-31T23:59:59.999Z", 253_402_300_799_999),
        ];
        for (text, unix_ms) in cases {
            assert_eq!(parse_rfc3339(text), Ok(unix_ms), "{text}");
        }
    }

    #[test]
    fn parse_rfc3339_applies_offsets_across_day_and_year_boundaries() {
        let new_year_2024 = 1_704_067_200_000;
        let cases = [
            ("2024-01-01T00:00:00Z", new_year_2024),
            ("2024-01-01T00:00:00+00:00", new_year_2024),
            ("2024-01-01T00:00:00-00:00", new_year_2024),
            ("2023-12-31T18:30:00-05:30", new_year_2024),
            ("2023-12-31T18:29:59.999-05:30", new_year_2024 - 1),
            ("2024-01-01T14:00:00+14:00", new_year_2024),
            ("2024-01-01T13:59:59.999+14:00", new_year_2024 - 1),
            ("2024-01-01T23:59:00+23:59", new_year_2024),
            ("2023-12-31T00:01:00-23:59", new_year_2024),
            // The Unix epoch from either side.
            ("1970-01-01T14:00:00+14:00", 0),
            ("1969-12-31T18:30:00-05:30", 0),
            ("1969-12-31T18:30:00.001-05:30", 1),
        ];
        for (text, unix_ms) in cases {
            assert_eq!(parse_rfc3339(text), Ok(unix_ms), "{text}");
        }
    }

    #[test]
    fn parse_rfc3339_takes_lowercase_t_and_z_and_a_space_separator() {
        let unix_ms = 1_288_834_974_657;
        for text in [
            "2010-11-04T01:42:54.657Z",
            "2010-11-04t01:42:54.657z",
            "2010-11-04t01:42:54.657Z",
            "2010-11-04T01:42:54.657z",
            "2010-11-04 01:42:54.657Z",
            "2010-11-04 01:42:54.657z",
            "2010-11-04 03:42:54.657+02:00",
        ] {
            assert_eq!(parse_rfc3339(text), Ok(unix_ms), "{text}");
        }
    }

    #[test]
    fn parse_rfc3339_truncates_a_fraction_to_its_millisecond() {
        let second = 1_288_834_974_000;
        for (fraction, ms) in [
            ("", 0),
            (".5", 500),
            (".05", 50),
            (".005", 5),
            (".0005", 0),
            (".123456789", 123),
            (".999999999999999999999999", 999),
        ] {
            let text = format!("2010-11-04T01:42:54{fraction}Z");
            assert_eq!(parse_rfc3339(&text), Ok(second + ms), "{text}");
        }
    }

    #[test]
    fn parse_rfc3339_errors_say_what_is_wrong() {
        let cases = [
            (
                "2023-02-29T00:00:00Z",
                "day 29 is out of range for 2023-02 (01..=28)",
            ),
            (
                "1900-02-29T00:00:00Z",
                "day 29 is out of range for 1900-02 (01..=28)",
            ),
            (
                "2024-04-31T00:00:00Z",
                "day 31 is out of range for 2024-04 (01..=30)",
            ),
            (
                "2024-01-00T00:00:00Z",
                "day 00 is out of range for 2024-01 (01..=31)",
            ),
            ("2024-13-01T00:00:00Z", "month 13 is out of range (01..=12)"),
            ("2024-00-01T00:00:00Z", "month 00 is out of range (01..=12)"),
            (
                "2024-01-01T24:00:00Z",
                "24:00 is not a time of day (00:00..=23:59)",
            ),
            (
                "2024-01-01T23:60:00Z",
                "23:60 is not a time of day (00:00..=23:59)",
            ),
            ("2016-12-31T23:59:60Z", "second 60 is a leap second"),
            (
                "2016-12-31T23:59:61Z",
                "second 61 is out of range (00..=59)",
            ),
            ("1969-12-31T23:59:59Z", "before 1970-01-01T00:00:00Z"),
            ("1969-12-31T23:59:59.999Z", "before 1970-01-01T00:00:00Z"),
            (
                "1970-01-01T13:59:59.999+14:00",
                "before 1970-01-01T00:00:00Z",
            ),
            ("0000-01-01T00:00:00Z", "before 1970-01-01T00:00:00Z"),
            ("2024-05-01T00:00:00+24:00", "offset +24:00 is out of range"),
            ("2024-05-01T00:00:00-00:60", "offset -00:60 is out of range"),
            ("", "the year at position 0 is not 4 digits"),
            ("garbage", "the year at position 0 is not 4 digits"),
            (
                "24-05-01T00:00:00Z",
                "the year at position 0 is not 4 digits",
            ),
            ("2024/05/01T00:00:00Z", "expected '-' at position 4"),
            (
                "2024-5-01T00:00:00Z",
                "the month at position 5 is not 2 digits",
            ),
            ("2024-05-01", "expected 'T' at position 10"),
            ("2024-05-01_00:00:00Z", "expected 'T' at position 10"),
            (
                "2024-05-01T0:00:00Z",
                "the hour at position 11 is not 2 digits",
            ),
            ("2024-05-01T00:00Z", "expected ':' at position 16"),
            (
                "2024-05-01T00:00:0Z",
                "the second at position 17 is not 2 digits",
            ),
            ("2024-05-01T00:00:00.Z", "no digit after '.' at position 20"),
            (
                "2024-05-01T00:00:00",
                "expected Z or an offset like +02:00 at position 19",
            ),
            (
                "2024-05-01T00:00:00Z ",
                "expected Z or an offset like +02:00 at position 19",
            ),
            (
                "2024-05-01T00:00:00UTC",
                "expected Z or an offset like +02:00 at position 19",
            ),
            (
                "2024-05-01T00:00:00+0200",
                "expected Z or an offset like +02:00 at position 19",
            ),
            (
                "2024-05-01T00:00:00+02:00Z",
                "expected Z or an offset like +02:00 at position 19",
            ),
            (
                "2024-05-01T00:00:00+2:000",
                "the offset's hours at position 20 is not 2 digits",
            ),
            (
                "2024-05-01T00:00:00+02-00",
                "expected ':' in the offset at position 22",
            ),
            (
                "2024-05-01T00:00:00\u{2212}02:00",
                "expected Z or an offset like +02:00 at position 19",
            ),
            (
                "２０２４-05-01T00:00:00Z",
                "the year at position 0 is not 4 digits",
            ),
        ];
        for (text, message) in cases {
            match parse_rfc3339(text) {
                Ok(unix_ms) => panic!("{text:?} parsed as {unix_ms} ms"),
                Err(error) => assert!(error.starts_with(message), "{text:?}: {error:?}"),
            }
        }
    }
}
