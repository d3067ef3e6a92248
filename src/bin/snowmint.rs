//! `snowmint`: mint Snowflake-style IDs and inspect them.
//!
//! ```text
//! snowmint mint --layout discord --worker 3 --process 4 --count 5
//! snowmint mint --count 3 | snowmint inspect --json
//! ```
//!
//! Errors print one line, `snowmint: <message>`, on stderr and exit with status 1 (usage
//! errors found by clap keep clap's status 2). A closed stdout (`snowmint mint | head -1`)
//! ends the program quietly with status 0.

use std::fmt;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use snowmint::{Generator, Id, Layout, PRESET_NAMES, Parts};

/// Mint Snowflake-style 64-bit IDs, and decode them.
#[derive(Debug, Parser)]
#[command(name = "snowmint", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Mint IDs and print them in decimal, one per line.
    Mint(MintArgs),
    /// Decode IDs given as arguments, or read from stdin one per line.
    Inspect(InspectArgs),
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

    /// Machine id (twitter, sonyflake, snowflake-si).
    #[arg(long, value_name = "N")]
    machine: Option<u64>,

    /// Worker id (discord, osmium).
    #[arg(long, value_name = "N")]
    worker: Option<u64>,

    /// Process id (discord, osmium).
    #[arg(long, value_name = "N")]
    process: Option<u64>,

    /// Shard id (instagram).
    #[arg(long, value_name = "N")]
    shard: Option<u64>,

    /// Generator id (nanoflake).
    #[arg(long, value_name = "N")]
    generator: Option<u64>,

    /// How many IDs to mint.
    #[arg(long, value_name = "N", default_value_t = 1)]
    count: u64,
}

#[derive(Debug, Args)]
struct InspectArgs {
    #[command(flatten)]
    layout: LayoutArgs,

    /// Print one JSON object per ID (the id itself as a string).
    #[arg(long)]
    json: bool,

    /// Decimal IDs to decode; with none, IDs are read from stdin, one per line.
    #[arg(value_name = "ID", allow_negative_numbers = true)]
    ids: Vec<String>,
}

/// Why a command stopped.
#[derive(Debug)]
enum Failure {
    /// Bad input: the library's message says what and why.
    Snowmint(snowmint::Error),
    /// Reading stdin or writing stdout failed.
    Io(io::Error),
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
            Failure::Snowmint(error) => error.fmt(f),
            Failure::Io(error) => write!(f, "i/o error: {error}"),
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Mint(args) => mint(&args),
        Command::Inspect(args) => inspect(&args),
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
    let nodes = [
        ("machine", args.machine),
        ("worker", args.worker),
        ("process", args.process),
        ("shard", args.shard),
        ("generator", args.generator),
    ];
    let builder = nodes
        .into_iter()
        .filter_map(|(name, value)| Some((name, value?)))
        .fold(Generator::builder(layout), |builder, (name, value)| {
            builder.node(name, value)
        });
    let generator = builder.build()?;

    let mut out = BufWriter::with_capacity(64 * 1024, io::stdout().lock());
    for _ in 0..args.count {
        match generator.mint() {
            Ok(id) => writeln!(out, "{id}")?,
            Err(error) => return fail_after_flush(&mut out, error),
        }
    }
    out.flush()?;
    Ok(())
}

fn inspect(args: &InspectArgs) -> Result<(), Failure> {
    let layout = args.layout.layout()?;
    let mut out = BufWriter::new(io::stdout().lock());
    if args.ids.is_empty() {
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
                if let Err(error) = inspect_one(&mut out, &layout, text, args.json)? {
                    return fail_after_flush(&mut out, error);
                }
            }
            // Nothing more is waiting: show what we have (for interactive use).
            if input.buffer().is_empty() {
                out.flush()?;
            }
        }
    } else {
        for text in &args.ids {
            if let Err(error) = inspect_one(&mut out, &layout, text, args.json)? {
                return fail_after_flush(&mut out, error);
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// Decodes one ID and prints it; the outer error is output failing, the inner one a bad ID.
fn inspect_one(
    out: &mut impl Write,
    layout: &Layout,
    text: &str,
    json: bool,
) -> io::Result<Result<(), snowmint::Error>> {
    let parts = match text.parse::<Id>().and_then(|id| layout.decode(id)) {
        Ok(parts) => parts,
        Err(error) => return Ok(Err(error)),
    };
    if json {
        write_json(out, &parts)?;
    } else {
        writeln!(out, "{parts}")?;
    }
    Ok(Ok(()))
}

/// Flushes what was printed before `error`, then reports it.
fn fail_after_flush(out: &mut impl Write, error: snowmint::Error) -> Result<(), Failure> {
    match out.flush() {
        // A reader that went away does not hide the bad input.
        Err(io_error) if io_error.kind() != io::ErrorKind::BrokenPipe => Err(io_error.into()),
        _ => Err(error.into()),
    }
}

/// `{"id":"…","layout":"…","timestamp_ms":…,"time":"…",<node fields>,"sequence":…}`
fn write_json(out: &mut impl Write, parts: &Parts<'_>) -> io::Result<()> {
    write!(out, "{{\"id\":\"{}\",\"layout\":", parts.id())?;
    write_json_string(out, parts.layout().name())?;
    write!(
        out,
        ",\"timestamp_ms\":{},\"time\":\"{}\"",
        parts.timestamp_ms(),
        parts.time_rfc3339()
    )?;
    for (name, value) in parts.nodes() {
        out.write_all(b",")?;
        write_json_string(out, name)?;
        write!(out, ":{value}")?;
    }
    writeln!(out, ",\"sequence\":{}}}", parts.sequence())
}

/// A JSON string literal. Preset names are plain ASCII; escaping keeps any other name valid.
fn write_json_string(out: &mut impl Write, s: &str) -> io::Result<()> {
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
