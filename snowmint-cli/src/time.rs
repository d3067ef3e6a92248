//! Times on the command line, to Unix milliseconds; the library's [`Rfc3339`] writes them back.

use std::time::{SystemTime, UNIX_EPOCH};

use snowmint::clock::Rfc3339;

/// Unix milliseconds from a time on the command line: `now` (the wall clock), Unix
/// milliseconds (all digits), or RFC 3339 (as [`parse_rfc3339`] reads it).
pub(crate) fn parse_time(text: &str) -> Result<u64, String> {
    if text == "now" {
        let since_epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_err(|_| "the wall clock reads before 1970-01-01T00:00:00Z".to_owned())?;
        return u64::try_from(since_epoch.as_millis())
            .map_err(|_| "the wall clock reads past the last Unix millisecond".to_owned());
    }
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse().map_err(|_| {
            format!(
                "{} digits of Unix milliseconds is out of range (0..={})",
                text.len(),
                u64::MAX
            )
        });
    }
    parse_rfc3339(text)
}

/// A span of time in Unix milliseconds, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    /// The first millisecond.
    pub(crate) first_ms: u64,
    /// The last millisecond.
    pub(crate) last_ms: u64,
}

/// The times `bounds` takes, for its help and its errors.
pub(crate) const SPAN_FORMS: &str = "a time (now, Unix milliseconds, or RFC 3339 such as \
2024-05-01T12:00:00Z: the tick holding it), a UTC date 2024-05-01 (the whole day), an hour \
2024-05-01T12 or a minute 2024-05-01T12:30 (UTC, an optional Z: the whole hour or minute), or \
a range A..B (from A's start up to B's start, B excluded) or A..=B (up to B's end, B included) \
of those";

/// The span `text` names: a time ([`parse_time`]: one millisecond), a UTC date `YYYY-MM-DD`
/// (its day), an hour `YYYY-MM-DDTHH` or a minute `YYYY-MM-DDTHH:MM` (UTC, with an optional
/// `Z`), or a range of those: `A..B` from A's first millisecond to just before B's, `A..=B` to
/// B's last.
pub(crate) fn parse_span(text: &str) -> Result<Span, String> {
    let (first, last) = if let Some((from, to)) = text.split_once("..=") {
        let (from, to) = (part(from, "start")?, part(to, "end")?);
        (from.first_ms, to.last_ms)
    } else if let Some((from, to)) = text.split_once("..") {
        let (from, to) = (part(from, "start")?, part(to, "end")?);
        let Some(last_ms) = to.first_ms.checked_sub(1) else {
            return Err("the range is empty: its end is the first Unix millisecond".to_owned());
        };
        (from.first_ms, last_ms)
    } else {
        let span = one_span(text)?;
        (span.first_ms, span.last_ms)
    };
    if first > last {
        return Err(format!(
            "the range is empty: it starts at {} and ends before; expected its end after its \
             start",
            Rfc3339(first)
        ));
    }
    Ok(Span {
        first_ms: first,
        last_ms: last,
    })
}

/// One end of a range, its errors said as that end's.
fn part(text: &str, end: &str) -> Result<Span, String> {
    one_span(text).map_err(|problem| format!("the range's {end}: {problem}"))
}

/// A time, a date, an hour or a minute: the span it names.
fn one_span(text: &str) -> Result<Span, String> {
    const DAY_MS: u64 = 86_400_000;
    let b = text.as_bytes();
    let zoned = matches!(b.last(), Some(b'Z' | b'z')) && b.len() > 10;
    let bare = if zoned { &text[..text.len() - 1] } else { text };
    let dated = b.get(4) == Some(&b'-');
    let separated = dated && bare.len() > 10 && matches!(b[10], b'T' | b't' | b' ');
    let (full, span_ms) = match bare.len() {
        10 if dated && !zoned => (format!("{bare}T00:00:00Z"), DAY_MS),
        13 if separated => (format!("{bare}:00:00Z"), 3_600_000),
        16 if separated => (format!("{bare}:00Z"), 60_000),
        _ => {
            let unix_ms = parse_time(text)?;
            return Ok(Span {
                first_ms: unix_ms,
                last_ms: unix_ms,
            });
        }
    };
    let first_ms = parse_rfc3339(&full)?;
    Ok(Span {
        first_ms,
        last_ms: first_ms + (span_ms - 1),
    })
}

/// Unix milliseconds from an RFC 3339 time, as the library's [`Rfc3339`] reads it; the error
/// says what is wrong with the text (its callers name the text).
pub(crate) fn parse_rfc3339(text: &str) -> Result<u64, String> {
    match text.parse::<Rfc3339>() {
        Ok(time) => Ok(time.0),
        Err(snowmint::Error::ParseTime { problem, .. }) => Err(problem),
        Err(other) => Err(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_time_reads_now_unix_milliseconds_and_rfc3339() {
        let before = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
        let now = parse_time("now").unwrap();
        let after = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
        assert!((before.as_millis()..=after.as_millis()).contains(&u128::from(now)));
        assert_eq!(parse_time("0"), Ok(0));
        assert_eq!(parse_time("1714521600000"), Ok(1_714_521_600_000));
        assert_eq!(parse_time("0001714521600005"), Ok(1_714_521_600_005));
        assert_eq!(parse_time("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(
            parse_time("2024-05-01T00:00:00.005Z"),
            Ok(1_714_521_600_005)
        );
    }

    #[test]
    fn parse_span_reads_ten_digits_as_milliseconds_and_a_dashed_date_as_its_day() {
        let instant = |ms| Span {
            first_ms: ms,
            last_ms: ms,
        };
        assert_eq!(parse_span("1714521600"), Ok(instant(1_714_521_600)));
        assert_eq!(
            parse_span("2024-05-01"),
            Ok(Span {
                first_ms: 1_714_521_600_000,
                last_ms: 1_714_607_999_999,
            })
        );
        assert_eq!(parse_span("0..=0"), Ok(instant(0)));
        assert!(parse_span("1..1").unwrap_err().contains("empty"));
        assert!(parse_span("5..0").unwrap_err().contains("empty"));
    }

    #[test]
    fn parse_time_errors_say_what_is_wrong() {
        let cases = [
            (
                "18446744073709551616",
                "20 digits of Unix milliseconds is out of range",
            ),
            ("NOW", "the year at position 0 is not 4 digits"),
            ("-1", "the year at position 0 is not 4 digits"),
            ("+1714521600000", "the year at position 0 is not 4 digits"),
            ("", "the year at position 0 is not 4 digits"),
        ];
        for (text, message) in cases {
            match parse_time(text) {
                Ok(unix_ms) => panic!("{text:?} parsed as {unix_ms} ms"),
                Err(error) => assert!(error.starts_with(message), "{text:?}: {error:?}"),
            }
        }
    }
}
