//! `snowmint bounds`: the least and the greatest ID the kind `--layout` names can hold at a
//! time or in a span, for paging by ID.

use serde::Serialize;
use snowmint::clock::Rfc3339;

use crate::args::BoundsArgs;
use crate::failure::{Failure, bounded};
use crate::id_kind::{IdKind, OverKind};
use crate::layout::Choice;
use crate::stdio::Stdout;
use crate::time::parse_span;

/// Runs `snowmint bounds`.
pub(crate) fn run(args: &BoundsArgs) -> Result<(), Failure> {
    Choice::of(&args.layout)?.run(Bounds(args))
}

/// `bounds` with its flags.
struct Bounds<'a>(&'a BoundsArgs);

impl OverKind for Bounds<'_> {
    fn run<K: IdKind>(self, kind: &K) -> Result<(), Failure> {
        let args = self.0;
        let span = parse_span(&args.time).map_err(|problem| {
            Failure::Usage(format!("invalid time {:?}: {problem}", bounded(&args.time)))
        })?;
        let form = K::form("--format", args.format)?;
        let name = kind.name();
        let times = kind.times();
        let (epoch_ms, tick_ms) = (times.epoch_ms, times.tick_ms);
        // The span, clamped to the times the layout holds: from its epoch to its last tick's
        // end. A time outside it gets the library's error.
        let last_ms = times.last_ms.saturating_add(tick_ms - 1);
        let outside = span.last_ms < epoch_ms || span.first_ms > last_ms;
        if outside && span.first_ms != span.last_ms {
            return Err(Failure::Usage(format!(
                "{} is outside layout {name}, whose times run {}..={}",
                bounded(&args.time),
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
        let (lower, upper) = kind.bounds(first, last)?;
        let (lower, upper) = (
            K::write(form, lower).to_string(),
            K::write(form, upper).to_string(),
        );
        // The ticks holding the span: every time in them has an ID within these bounds.
        let tick_start_ms = first - (first - epoch_ms) % tick_ms;
        let tick_end_ms = (last - (last - epoch_ms) % tick_ms).saturating_add(tick_ms);
        let mut out = Stdout::new();
        if args.json {
            out.json_line(&BoundsJson {
                layout: name,
                unix_ms: first,
                tick_start_ms,
                tick_end_ms,
                lower: &lower,
                upper: &upper,
            })?;
        } else {
            let (ticks, each) = match tick_end_ms - tick_start_ms == tick_ms {
                true => ("tick", ""),
                false => ("ticks", " each"),
            };
            out.line(format_args!(
                "lower {lower}\nupper {upper}\n{ticks} {}..{} ({tick_ms} ms{each})",
                Rfc3339(tick_start_ms),
                Rfc3339(tick_end_ms),
            ))?;
        }
        out.flush()
    }
}

/// `bounds --json`: `{"layout":"…","unix_ms":…,"tick_start_ms":…,"tick_end_ms":…,
/// "lower":"…","upper":"…"}`: the time (a span's start, within the layout), the ticks holding
/// the span (the last one's end exclusive) and the bounds.
#[derive(Serialize)]
struct BoundsJson<'a> {
    layout: &'a str,
    unix_ms: u64,
    tick_start_ms: u64,
    tick_end_ms: u64,
    lower: &'a str,
    upper: &'a str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_json_keeps_its_key_order_and_escapes_the_layout_name() {
        let bounds = BoundsJson {
            layout: "a\"b\\c\n",
            unix_ms: 5,
            tick_start_ms: 0,
            tick_end_ms: 10,
            lower: "0",
            upper: "1",
        };
        assert_eq!(
            serde_json::to_string(&bounds).unwrap() + "\n",
            "{\"layout\":\"a\\\"b\\\\c\\n\",\"unix_ms\":5,\"tick_start_ms\":0,\
             \"tick_end_ms\":10,\"lower\":\"0\",\"upper\":\"1\"}\n"
        );
    }
}
