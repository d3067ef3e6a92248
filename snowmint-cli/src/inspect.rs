//! `snowmint inspect`, `convert` and `bounds`: IDs read from arguments or stdin.

use std::fmt;
use std::io::{self, BufRead, BufReader, BufWriter, Write};

use crate::Failure;
use crate::args::ConvertForm;
use crate::args::{BoundsArgs, ConvertArgs, InspectArgs};
use crate::id128;
use crate::layout::{self, Choice};
use crate::output::{BoundsJson, Decoded, Sno, write_json_line};
use crate::time::parse_span;

use snowmint::{
    Id,
    clock::Rfc3339,
    encoding::Encoding,
    id128::{Ulid, Uuid7},
    sno::{SnoGenerator, SnoId},
};

pub(crate) fn inspect(args: &InspectArgs) -> Result<(), Failure> {
    let layout = match args.layout.choice()? {
        Choice::Ids(layout) => layout,
        Choice::Sno => return inspect_sno(args),
        Choice::Uuid7 => return id128::inspect::<Uuid7>(args),
        Choice::Ulid => return id128::inspect::<Ulid>(args),
    };
    let form = args.format.unwrap_or_default();
    for_each_id(&args.ids, args.keep_going, |out, text| {
        let decoded = read_id(form, text).and_then(|id| Ok(layout.decode(id)?));
        let parts = match decoded {
            Ok(parts) => parts,
            Err(error) => return Ok(Err(error)),
        };
        let decoded = Decoded { form, parts };
        if args.json {
            write_json_line(out, &decoded)?;
        } else {
            writeln!(out, "{decoded}")?;
        }
        Ok(Ok(()))
    })
}

/// `inspect --layout sno`: sno's 16-character IDs, every component.
pub(crate) fn inspect_sno(args: &InspectArgs) -> Result<(), Failure> {
    if let Some(format) = args.format {
        return Err(Failure::Usage(format!(
            "--format {format} does not apply to --layout sno: sno ids have one text form, 16 \
             characters of 23456789abcdefghijklmnopqrstuvwx"
        )));
    }
    for_each_id(&args.ids, args.keep_going, |out, text| {
        let id = match text.parse::<SnoId>() {
            Ok(id) => Sno(id),
            Err(error) => return Ok(Err(error.into())),
        };
        if args.json {
            write_json_line(out, &id)?;
        } else {
            writeln!(out, "{id}")?;
        }
        Ok(Ok(()))
    })
}

pub(crate) fn convert(args: &ConvertArgs) -> Result<(), Failure> {
    // With --layout, each ID must fit it.
    let layout = match &args.layout {
        None => None,
        Some(value) => match layout::resolve(value, args.epoch_ms, args.tick_ms)? {
            Choice::Ids(layout) => Some(layout),
            Choice::Sno => {
                return Err(Failure::Usage(
                    "convert does not apply to --layout sno: sno ids have one text form".to_owned(),
                ));
            }
            Choice::Uuid7 => {
                return id128::convert::<Uuid7>(args.from, args.to, &args.ids, args.keep_going);
            }
            Choice::Ulid => {
                return id128::convert::<Ulid>(args.from, args.to, &args.ids, args.keep_going);
            }
        },
    };
    // uuid and ulid are 128-bit forms.
    let wide = |flag: &str, form: ConvertForm| {
        Err(Failure::Usage(format!(
            "{flag} {form} is for 128-bit ids: expected --layout uuidv7 or ulid, or a 64-bit \
             form ({})",
            crate::args::FORMS
        )))
    };
    let (from, to) = match (args.from, args.to) {
        (ConvertForm::Id(from), ConvertForm::Id(to)) => (from, to),
        (ConvertForm::Id(_), form) => return wide("--to", form),
        (form, _) => return wide("--from", form),
    };
    for_each_id(&args.ids, args.keep_going, |out, text| {
        let id = read_id(from, text).and_then(|id| match layout {
            Some(layout) => Ok(layout.decode(id)?.id()),
            None => Ok(id),
        });
        let id = match id {
            Ok(id) => id,
            Err(error) => return Ok(Err(error)),
        };
        writeln!(out, "{}", to.encode(id))?;
        Ok(Ok(()))
    })
}

/// Reads an ID in `form` with the library's parser. Hex may also be written with a `0x` or
/// `0X` prefix and fewer than 16 digits (`0x1565a11f6217a000`, `1565a11f6217a00`): such text
/// is zero-padded to the library's 16 digits first. Other text goes to the library as given,
/// so its error names what was typed.
pub(crate) fn read_id(form: Encoding, text: &str) -> Result<Id, Failure> {
    const WIDTH: usize = 16;
    if form == Encoding::Hex {
        let digits = text
            .strip_prefix("0x")
            .or_else(|| text.strip_prefix("0X"))
            .unwrap_or(text);
        if (1..=WIDTH).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            let mut padded = [b'0'; WIDTH];
            padded[WIDTH - digits.len()..].copy_from_slice(digits.as_bytes());
            let padded = std::str::from_utf8(&padded).expect("ASCII hex digits");
            return form.decode(padded).map_err(Failure::from);
        }
        return Err(Failure::Usage(format!(
            "{:?} is not a hex id: expected 1 to {WIDTH} hex digits, optionally after 0x",
            crate::layout::bounded(text)
        )));
    }
    form.decode(text).map_err(Failure::from)
}

pub(crate) fn bounds(args: &BoundsArgs) -> Result<(), Failure> {
    let choice = args.layout.choice()?;
    let span = parse_span(&args.time).map_err(|problem| {
        Failure::Usage(format!(
            "invalid time {:?}: {problem}",
            layout::bounded(&args.time)
        ))
    })?;
    let (name, epoch_ms, tick_ms, last_ms) = match choice {
        Choice::Ids(layout) => (
            layout.name(),
            layout.epoch_ms(),
            layout.tick_ms(),
            layout.max_unix_ms(),
        ),
        Choice::Sno => {
            if let Some(format) = args.format {
                return Err(Failure::Usage(format!(
                    "--format {format} does not apply to --layout sno: sno ids have one text form"
                )));
            }
            let layout = SnoGenerator::LAYOUT;
            (
                "sno",
                layout.epoch_ms(),
                layout.tick_ms(),
                layout.max_unix_ms(),
            )
        }
        Choice::Uuid7 => ("uuidv7", 0, 1, Uuid7::MAX_UNIX_MS),
        Choice::Ulid => ("ulid", 0, 1, Ulid::MAX_UNIX_MS),
    };
    // The span, clamped to the times the layout holds: from its epoch to its last tick's end.
    // A time outside it gets the library's error.
    let last_ms = last_ms.saturating_add(tick_ms - 1);
    let outside = span.last_ms < epoch_ms || span.first_ms > last_ms;
    if outside && span.first_ms != span.last_ms {
        return Err(Failure::Usage(format!(
            "{} is outside layout {name}, whose times run {}..={}",
            layout::bounded(&args.time),
            Rfc3339(epoch_ms),
            Rfc3339(last_ms)
        )));
    }
    let (first, last) = if span.last_ms < epoch_ms {
        (span.last_ms, span.last_ms)
    } else if span.first_ms > last_ms {
        (span.first_ms, span.first_ms)
    } else {
        (span.first_ms.max(epoch_ms), span.last_ms.min(last_ms))
    };
    let (lower, upper) = match choice {
        Choice::Ids(layout) => {
            let form = args.format.unwrap_or_default();
            let lower = layout.min_id_at(first).map_err(Failure::usage)?;
            let upper = layout.max_id_at(last).map_err(Failure::usage)?;
            (
                form.encode(lower).to_string(),
                form.encode(upper).to_string(),
            )
        }
        Choice::Sno => {
            // Every ID of the span's 4 ms units: both timelines, every metabyte, partition and
            // sequence.
            let lower = SnoId::compose(first, 0, 0, 0, 0).map_err(Failure::usage)?;
            let upper =
                SnoId::compose(last, 1, u8::MAX, u16::MAX, u16::MAX).map_err(Failure::usage)?;
            (lower.to_string(), upper.to_string())
        }
        Choice::Uuid7 => id128::bounds::<Uuid7>(first, last, args.format)?,
        Choice::Ulid => id128::bounds::<Ulid>(first, last, args.format)?,
    };
    // The ticks holding the span: every time in them has an ID within these bounds.
    let tick_start_ms = first - (first - epoch_ms) % tick_ms;
    let tick_end_ms = (last - (last - epoch_ms) % tick_ms).saturating_add(tick_ms);
    let mut out = io::stdout().lock();
    if args.json {
        let json = BoundsJson {
            layout: name,
            unix_ms: first,
            tick_start_ms,
            tick_end_ms,
            lower: lower.as_str(),
            upper: upper.as_str(),
        };
        write_json_line(&mut out, &json)?;
    } else {
        let (ticks, each) = match tick_end_ms - tick_start_ms == tick_ms {
            true => ("tick", ""),
            false => ("ticks", " each"),
        };
        writeln!(
            out,
            "lower {lower}\nupper {upper}\n{ticks} {}..{} ({tick_ms} ms{each})",
            Rfc3339(tick_start_ms),
            Rfc3339(tick_end_ms),
        )?;
    }
    out.flush()?;
    Ok(())
}

/// Where an ID was read, for the message of a bad one: `line 3` of stdin or `argument 2`
/// (both counted from 1, blank lines included).
#[derive(Debug, Clone, Copy)]
enum Place {
    Line(u64),
    Argument(usize),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Line(n) => write!(f, "line {n}"),
            Place::Argument(n) => write!(f, "argument {n}"),
        }
    }
}

/// Runs `handle` on each ID: the arguments, or with none the non-blank lines of stdin
/// (trimmed), flushing when no more input is waiting. `handle`'s outer error is output
/// failing, its inner one a bad ID, reported as `<place>: <error>`.
///
/// A bad ID stops the run after what was printed is flushed; with `keep_going` it is reported
/// on stderr at once, the run goes on, and at the end the process exits with the status of a
/// bad ID: 2 for an argument (a usage error), 1 for a line of stdin.
pub(crate) fn for_each_id(
    ids: &[String],
    keep_going: bool,
    mut handle: impl FnMut(&mut dyn Write, &str) -> io::Result<Result<(), Failure>>,
) -> Result<(), Failure> {
    let mut out = BufWriter::new(io::stdout().lock());
    let mut worst: Option<Failure> = None;
    let mut each = |out: &mut BufWriter<_>, place: Place, text: &str| -> Result<(), Failure> {
        let Err(error) = handle(out, text)? else {
            return Ok(());
        };
        let failure = match place {
            Place::Argument(_) => Failure::Usage(format!("{place}: {error}")),
            Place::Line(_) => Failure::Data(format!("{place}: {error}")),
        };
        if !keep_going {
            return fail_after_flush(out, failure);
        }
        // What was printed before it first, so a terminal shows the two in order.
        out.flush()?;
        eprintln!("snowmint: {failure}");
        worst = Some(failure);
        Ok(())
    };
    if ids.is_empty() {
        let mut input = BufReader::new(io::stdin().lock());
        let mut line = Vec::new();
        for number in 1.. {
            line.clear();
            if input.read_until(b'\n', &mut line)? == 0 {
                break;
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim();
            if !text.is_empty() {
                each(&mut out, Place::Line(number), text)?;
            }
            // Nothing more is waiting: show what we have (for interactive use).
            if input.buffer().is_empty() {
                out.flush()?;
            }
        }
    } else {
        for (number, text) in (1..).zip(ids) {
            each(&mut out, Place::Argument(number), text)?;
        }
    }
    out.flush()?;
    if let Some(failure) = worst {
        // Each bad ID has had its line on stderr: only the status is left to give.
        return Err(Failure::Reported(failure.status()));
    }
    Ok(())
}

/// Flushes what was printed before `error`, then reports it.
pub(crate) fn fail_after_flush(
    out: &mut impl Write,
    error: impl Into<Failure>,
) -> Result<(), Failure> {
    match out.flush() {
        // A reader that went away does not hide the bad input.
        Err(io_error) if io_error.kind() != io::ErrorKind::BrokenPipe => Err(io_error.into()),
        _ => Err(error.into()),
    }
}
