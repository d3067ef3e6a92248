//! `snowmint inspect`, `convert` and `bounds`: IDs read from arguments or stdin.

use std::io::{self, BufRead, BufReader, BufWriter, Write};

use crate::Failure;
use crate::args::{BoundsArgs, ConvertArgs, InspectArgs};
use crate::output::{write_json, write_json_string};
use crate::time::parse_rfc3339;

use snowmint::sno::SnoId;

pub(crate) fn inspect(args: &InspectArgs) -> Result<(), Failure> {
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
pub(crate) fn inspect_sno(args: &InspectArgs) -> Result<(), Failure> {
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

pub(crate) fn convert(args: &ConvertArgs) -> Result<(), Failure> {
    for_each_id(&args.ids, |out, text| {
        let id = match args.from.decode(text) {
            Ok(id) => id,
            Err(error) => return Ok(Err(error)),
        };
        writeln!(out, "{}", args.to.encode(id))?;
        Ok(Ok(()))
    })
}

pub(crate) fn bounds(args: &BoundsArgs) -> Result<(), Failure> {
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
pub(crate) fn for_each_id(
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

/// Flushes what was printed before `error`, then reports it.
pub(crate) fn fail_after_flush(
    out: &mut impl Write,
    error: snowmint::Error,
) -> Result<(), Failure> {
    match out.flush() {
        // A reader that went away does not hide the bad input.
        Err(io_error) if io_error.kind() != io::ErrorKind::BrokenPipe => Err(io_error.into()),
        _ => Err(error.into()),
    }
}
