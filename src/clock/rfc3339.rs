//! RFC 3339 text of a time, both ways, without a date-time dependency: [`Rfc3339`], the form of
//! an ID's time ([`Parts::time_rfc3339`](crate::Parts::time_rfc3339)) and of the times paging
//! bounds are given in.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, bounded};

/// Unix milliseconds as RFC 3339 text: displayed in UTC with milliseconds,
/// `2022-06-28T16:07:40.105Z` (the proleptic Gregorian calendar, four-digit years up to 9999
/// and wider beyond), and parsed from any RFC 3339 time.
///
/// Parsing ([`str::parse`]) reads `YYYY-MM-DDTHH:MM:SS[.fraction]` and `Z` or an offset
/// `±HH:MM`, with the lowercase `t` and `z` and the space separator RFC 3339 allows, into the
/// Unix millisecond it names (an offset is applied, so `+02:00` is two hours before the same
/// text in `Z`). An `Rfc3339` holds whole milliseconds: a fraction finer than a millisecond
/// is truncated to the millisecond it falls in, so as the excluded end of a range
/// (`..until`), `12:00:00.0005Z` excludes the millisecond `12:00:00.000` as `12:00:00Z`
/// does; give such ends in whole milliseconds, or as a [`SystemTime`](std::time::SystemTime). Times before 1970 (Unix
/// milliseconds are unsigned), leap seconds (`:60`, which Unix time does not count), dates that
/// do not exist (`2023-02-29`) and anything else are [`Error::ParseTime`], which names the
/// problem and its position.
///
/// With [`Layout::id_range`](crate::Layout::id_range) or
/// [`Uuid7::id_range`](crate::id128::Uuid7::id_range), it pages IDs by time with no date-time
/// crate beside snowmint:
///
/// ```
/// use snowmint::clock::Rfc3339;
///
/// let since: Rfc3339 = "2024-05-01T00:00:00Z".parse()?;
/// let until: Rfc3339 = "2024-05-01T02:00:00.5+02:00".parse()?;
/// assert_eq!(until.0 - since.0, 500);
/// assert_eq!(since.to_string().parse::<Rfc3339>()?, since);
/// assert!("2023-02-29T00:00:00Z".parse::<Rfc3339>().is_err());
/// # Ok::<(), snowmint::Error>(())
/// ```
///
/// # Examples
///
/// ```
/// use snowmint::clock::Rfc3339;
///
/// assert_eq!(Rfc3339(0).to_string(), "1970-01-01T00:00:00.000Z");
/// assert_eq!(Rfc3339(1_656_432_460_105).to_string(), "2022-06-28T16:07:40.105Z");
/// assert_eq!(format!("from {}", Rfc3339(951_782_400_000)), "from 2000-02-29T00:00:00.000Z");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rfc3339(pub u64);

impl fmt::Display for Rfc3339 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0 % 1000;
        let secs = self.0 / 1000;
        let (days, day_secs) = (secs / 86_400, secs % 86_400);
        let (year, month, day) = civil_from_days(days);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{ms:03}Z",
            day_secs / 3600,
            day_secs / 60 % 60,
            day_secs % 60
        )
    }
}

impl FromStr for Rfc3339 {
    type Err = Error;

    /// Reads an RFC 3339 time (see [`Rfc3339`]).
    ///
    /// # Errors
    ///
    /// [`Error::ParseTime`], naming what is wrong and where.
    fn from_str(text: &str) -> Result<Self, Error> {
        unix_ms_of(text)
            .map(Rfc3339)
            .map_err(|problem| Error::ParseTime {
                input: bounded(text),
                problem,
            })
    }
}

/// Unix milliseconds from an RFC 3339 time, as [`Rfc3339`]'s `FromStr` reads it, or what is
/// wrong with the text.
fn unix_ms_of(text: &str) -> Result<u64, String> {
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

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Unix milliseconds `text` parses to, or the problem its error names.
    fn parse(text: &str) -> Result<u64, String> {
        match text.parse::<Rfc3339>() {
            Ok(time) => Ok(time.0),
            Err(Error::ParseTime { input, problem }) => {
                assert_eq!(input, bounded(text));
                Err(problem)
            }
            Err(other) => panic!("{text:?}: not a ParseTime error: {other}"),
        }
    }

    #[test]
    fn formats_known_instants() {
        assert_eq!(Rfc3339(0).to_string(), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            Rfc3339(1_656_432_460_105).to_string(),
            "2022-06-28T16:07:40.105Z"
        );
        assert_eq!(
            Rfc3339(951_782_400_000).to_string(),
            "2000-02-29T00:00:00.000Z"
        );
        assert_eq!(
            Rfc3339(4_102_444_799_999).to_string(),
            "2099-12-31T23:59:59.999Z"
        );
        assert_eq!(
            Rfc3339(1_288_834_974_657).to_string(),
            "2010-11-04T01:42:54.657Z"
        );
    }

    #[test]
    fn display_writes_what_parse_reads() {
        for (text, unix_ms) in [
            ("1970-01-01T00:00:00.000Z", 0),
            ("2000-02-29T00:00:00.000Z", 951_782_400_000),
            ("2024-02-29T23:59:59.999Z", 1_709_251_199_999),
            ("2024-05-01T00:00:00.010Z", 1_714_521_600_010),
            ("9999-12-31T23:59:59.999Z", 253_402_300_799_999),
        ] {
            assert_eq!(Rfc3339(unix_ms).to_string(), text);
            assert_eq!(parse(text), Ok(unix_ms), "{text}");
        }
        // Every day across four centuries round-trips.
        for days in (0..146_097 * 2).step_by(7) {
            let unix_ms = days * 86_400_000 + 12_345;
            assert_eq!(parse(&Rfc3339(unix_ms).to_string()), Ok(unix_ms));
        }
    }

    #[test]
    fn parse_reads_known_instants() {
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
            assert_eq!(parse(text), Ok(unix_ms), "{text}");
        }
    }

    #[test]
    fn parse_applies_offsets_across_day_and_year_boundaries() {
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
            assert_eq!(parse(text), Ok(unix_ms), "{text}");
        }
    }

    #[test]
    fn parse_takes_lowercase_t_and_z_and_a_space_separator() {
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
            assert_eq!(parse(text), Ok(unix_ms), "{text}");
        }
    }

    #[test]
    fn parse_truncates_a_fraction_to_its_millisecond() {
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
            assert_eq!(parse(&text), Ok(second + ms), "{text}");
        }
    }

    #[test]
    fn parse_errors_say_what_is_wrong() {
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
            match parse(text) {
                Ok(unix_ms) => panic!("{text:?} parsed as {unix_ms} ms"),
                Err(error) => assert!(error.starts_with(message), "{text:?}: {error:?}"),
            }
        }
    }
}
