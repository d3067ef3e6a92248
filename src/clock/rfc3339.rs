//! RFC 3339 text of a time, without a date-time dependency: [`Rfc3339`], the form of an ID's
//! time ([`Parts::time_rfc3339`](crate::Parts::time_rfc3339)).

use std::fmt;

/// Displays Unix milliseconds as RFC 3339 in UTC with milliseconds: `2022-06-28T16:07:40.105Z`
/// (the proleptic Gregorian calendar, four-digit years up to 9999 and wider beyond).
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
}
