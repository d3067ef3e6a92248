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

/// Unix milliseconds from an RFC 3339 time, `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, with
/// the `t`, `z` and space separators RFC 3339 allows. A fraction finer than a millisecond is
/// truncated to the millisecond it falls in. Times before 1970 and leap seconds (`:60`, which
/// Unix time does not count) are errors.
pub(crate) fn parse_rfc3339(text: &str) -> Result<u64, String> {
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
pub(crate) fn days_from_civil(year: u64, month: u64, day: u64) -> i64 {
    let (month, day) = (month as i64, day as i64);
    let year = year as i64 - i64::from(month <= 2);
    let era = year.div_euclid(400);
    let yoe = year - era * 400;
    let doy = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
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

    #[test]
    fn rfc3339_writes_what_parse_rfc3339_reads() {
        for (text, unix_ms) in [
            ("1970-01-01T00:00:00.000Z", 0),
            ("2000-02-29T00:00:00.000Z", 951_782_400_000),
            ("2024-02-29T23:59:59.999Z", 1_709_251_199_999),
            ("2024-05-01T00:00:00.010Z", 1_714_521_600_010),
            ("9999-12-31T23:59:59.999Z", 253_402_300_799_999),
        ] {
            assert_eq!(Rfc3339(unix_ms).to_string(), text);
            assert_eq!(parse_rfc3339(text), Ok(unix_ms), "{text}");
        }
        // Every day across four centuries round-trips.
        for days in (0..146_097 * 2).step_by(7) {
            let unix_ms = days * 86_400_000 + 12_345;
            assert_eq!(parse_rfc3339(&Rfc3339(unix_ms).to_string()), Ok(unix_ms));
        }
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
