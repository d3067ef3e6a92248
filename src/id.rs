//! The ID newtype and its decoded parts.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::encoding::{EncodedId, Encoding};
use crate::error::{Error, ParseIdReason, Result};
use crate::layout::Layout;
use crate::time::Rfc3339;

/// A minted ID: a `u64` whose fields follow a [`Layout`].
///
/// `Id` is the raw value, 8 bytes, ordered and hashed as the number; its text form is decimal.
/// The layout that gives it meaning is not stored in it: [`Id::decode`] (or [`Layout::decode`])
/// takes the layout and returns the [`Parts`], whose `Debug` shows every field.
///
/// # Examples
///
/// ```
/// use snowmint::{Id, Layout};
///
/// let id: Id = "1541815603606036480".parse()?;
/// assert_eq!(id.to_u64(), 1_541_815_603_606_036_480);
/// assert_eq!(id.to_string(), "1541815603606036480");
/// let parts = id.decode(&Layout::TWITTER)?;
/// assert_eq!(parts.node("machine"), Some(378));
/// assert_eq!(
///     format!("{parts:?}"),
///     "Parts { id: 1541815603606036480, layout: \"twitter\", \
///      time: 2022-06-28T16:07:40.105Z, timestamp_ms: 1656432460105, machine: 378, sequence: 0 }"
/// );
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Id(u64);

impl Id {
    /// Wraps a raw value.
    pub const fn from_u64(value: u64) -> Id {
        Id(value)
    }

    /// The raw value.
    pub const fn to_u64(self) -> u64 {
        self.0
    }

    /// Wraps a non-negative `i64` (the form databases with signed 64-bit columns store).
    ///
    /// # Errors
    ///
    /// [`Error::NegativeId`] for a negative value.
    pub const fn from_i64(value: i64) -> Result<Id> {
        if value < 0 {
            Err(Error::NegativeId { value })
        } else {
            Ok(Id(value as u64))
        }
    }

    /// The value as an `i64`.
    ///
    /// # Errors
    ///
    /// [`Error::IdTooLargeForI64`] when the ID is above `i64::MAX` (only layouts that use all
    /// 64 bits, such as `discord` and `osmium`, can mint those).
    pub const fn to_i64(self) -> Result<i64> {
        if self.0 > i64::MAX as u64 {
            Err(Error::IdTooLargeForI64 { id: self.0 })
        } else {
            Ok(self.0 as i64)
        }
    }

    /// The ID in a text form, as a stack value that displays as the text; the same as
    /// [`Encoding::encode`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, encoding::Encoding};
    ///
    /// let id = Id::from_u64(1_541_815_603_606_036_480);
    /// assert_eq!(id.encode(Encoding::Base62).as_str(), "1ptWyK4WgZU");
    /// assert_eq!(format!("{}", id.encode(Encoding::Decimal)), id.to_string());
    /// ```
    pub fn encode(self, encoding: Encoding) -> EncodedId {
        encoding.encode(self)
    }

    /// Reads an ID written in a text form; the same as [`Encoding::decode`].
    ///
    /// # Errors
    ///
    /// [`Error::ParseId`] naming the form and what is wrong: the bad character and its
    /// position, the length, or an overflow.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, encoding::Encoding};
    ///
    /// assert_eq!(Id::parse_as("1565a11f6217a000", Encoding::Hex)?.to_u64(), 1_541_815_603_606_036_480);
    /// assert!(Id::parse_as("1565a11f6217a00g", Encoding::Hex).is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn parse_as(s: &str, encoding: Encoding) -> Result<Id> {
        encoding.decode(s)
    }

    /// Decodes the ID under `layout`; the same as [`Layout::decode`].
    ///
    /// # Errors
    ///
    /// [`Error::IdOutOfLayout`] when the ID has bits set that the layout keeps zero.
    pub fn decode(self, layout: &Layout) -> Result<Parts<'_>> {
        layout.decode(self)
    }
}

impl From<u64> for Id {
    fn from(value: u64) -> Id {
        Id(value)
    }
}

impl From<Id> for u64 {
    fn from(id: Id) -> u64 {
        id.0
    }
}

impl TryFrom<i64> for Id {
    type Error = Error;

    fn try_from(value: i64) -> Result<Id> {
        Id::from_i64(value)
    }
}

impl TryFrom<Id> for i64 {
    type Error = Error;

    fn try_from(id: Id) -> Result<i64> {
        id.to_i64()
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Id({})", self.0)
    }
}

impl FromStr for Id {
    type Err = Error;

    /// Parses 1 to 20 decimal digits (leading zeros allowed) into an ID up to `u64::MAX`.
    fn from_str(s: &str) -> Result<Id> {
        let fail = |reason| Error::ParseId {
            input: shorten(s),
            encoding: "decimal",
            reason,
        };
        if s.is_empty() {
            return Err(fail(ParseIdReason::Empty {
                expected: "1 to 20 decimal digits",
            }));
        }
        let mut value: u64 = 0;
        for (position, found) in s.char_indices() {
            let digit = found.to_digit(10).ok_or_else(|| {
                fail(ParseIdReason::InvalidDigit {
                    found,
                    position,
                    expected: "a decimal digit",
                })
            })?;
            value = value
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(digit)))
                .ok_or_else(|| {
                    fail(ParseIdReason::Overflow {
                        max: "18446744073709551615",
                    })
                })?;
        }
        Ok(Id(value))
    }
}

/// `s`, or its first 64 characters and an ellipsis.
pub(crate) fn shorten(s: &str) -> String {
    match s.char_indices().nth(64) {
        Some((end, _)) => format!("{}…", &s[..end]),
        None => s.to_owned(),
    }
}

/// An ID decoded under its layout: time, node fields and sequence.
///
/// # Examples
///
/// ```
/// use snowmint::{Id, Layout};
/// use std::time::{Duration, UNIX_EPOCH};
///
/// let parts = Layout::DISCORD.decode(Id::from_u64(175_928_847_299_117_063))?;
/// assert_eq!(parts.timestamp_ms(), 1_462_015_105_796);
/// assert_eq!(parts.time(), UNIX_EPOCH + Duration::from_millis(1_462_015_105_796));
/// assert_eq!(parts.node("worker"), Some(1));
/// assert_eq!(parts.node("process"), Some(0));
/// assert_eq!(parts.sequence(), 7);
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Parts<'l> {
    layout: &'l Layout,
    id: Id,
}

impl<'l> Parts<'l> {
    pub(crate) fn new(layout: &'l Layout, id: Id) -> Self {
        Parts { layout, id }
    }

    /// The ID.
    pub fn id(&self) -> Id {
        self.id
    }

    /// The layout it was decoded under.
    pub fn layout(&self) -> &'l Layout {
        self.layout
    }

    /// Ticks since the layout's epoch.
    pub fn ticks(&self) -> u64 {
        self.layout.time_field().get(self.id.0)
    }

    /// The time the ID carries, in Unix milliseconds (the start of its tick).
    pub fn timestamp_ms(&self) -> u64 {
        self.layout.unix_ms_of(self.id)
    }

    /// The time the ID carries, as a `SystemTime`.
    pub fn time(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.timestamp_ms())
    }

    /// The time the ID carries, displayed as RFC 3339 in UTC with milliseconds.
    pub fn time_rfc3339(&self) -> impl fmt::Display + use<> {
        Rfc3339(self.timestamp_ms())
    }

    /// The sequence number.
    pub fn sequence(&self) -> u64 {
        self.layout.sequence_field().get(self.id.0)
    }

    /// The timeline (the tick-tock bit: 0 or 1), or `None` if the layout has no tick-tock bit.
    pub fn timeline(&self) -> Option<u64> {
        self.layout.tick_tock_field().map(|f| f.get(self.id.0))
    }

    /// The value of the node field called `name`, or `None` if the layout has no such field.
    pub fn node(&self, name: &str) -> Option<u64> {
        self.layout.node_field(name).map(|f| f.get(self.id.0))
    }

    /// Every node field as `(name, value)`, most significant first.
    pub fn nodes(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.layout
            .node_fields()
            .map(|f| (f.name(), f.get(self.id.0)))
    }
}

impl fmt::Debug for Parts<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("Parts");
        s.field("id", &self.id.0)
            .field("layout", &self.layout.name())
            .field("time", &format_args!("{}", self.time_rfc3339()))
            .field("timestamp_ms", &self.timestamp_ms());
        if let Some(timeline) = self.timeline() {
            s.field("timeline", &timeline);
        }
        for (name, value) in self.nodes() {
            s.field(name, &value);
        }
        s.field("sequence", &self.sequence()).finish()
    }
}

impl fmt::Display for Parts<'_> {
    /// `1541815603606036480 (twitter 2022-06-28T16:07:40.105Z machine=378 sequence=0)`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({} {}",
            self.id,
            self.layout.name(),
            self.time_rfc3339()
        )?;
        if let Some(timeline) = self.timeline() {
            write!(f, " timeline={timeline}")?;
        }
        for (name, value) in self.nodes() {
            write!(f, " {name}={value}")?;
        }
        write!(f, " sequence={})", self.sequence())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors_name_the_bad_character_and_position() {
        let err = "12a4".parse::<Id>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid decimal id \"12a4\": 'a' at position 2 is not a decimal digit"
        );
        assert!(matches!(
            "".parse::<Id>(),
            Err(Error::ParseId {
                reason: ParseIdReason::Empty { .. },
                ..
            })
        ));
        assert!(matches!(
            "18446744073709551616".parse::<Id>(),
            Err(Error::ParseId {
                reason: ParseIdReason::Overflow { .. },
                ..
            })
        ));
        assert!("-1".parse::<Id>().is_err());
        assert!("+1".parse::<Id>().is_err());
        assert!(" 1".parse::<Id>().is_err());
        assert_eq!(
            "18446744073709551615".parse::<Id>().unwrap().to_u64(),
            u64::MAX
        );
        assert_eq!("0".parse::<Id>().unwrap().to_u64(), 0);
    }

    #[test]
    fn i64_conversions_are_checked() {
        assert_eq!(Id::from_i64(5).unwrap().to_u64(), 5);
        assert!(matches!(
            Id::from_i64(-1),
            Err(Error::NegativeId { value: -1 })
        ));
        assert_eq!(Id::from_u64(i64::MAX as u64).to_i64().unwrap(), i64::MAX);
        assert!(matches!(
            Id::from_u64(1 << 63).to_i64(),
            Err(Error::IdTooLargeForI64 { .. })
        ));
        assert_eq!(i64::try_from(Id::from_u64(7)).unwrap(), 7);
        assert_eq!(Id::try_from(7i64).unwrap(), Id::from_u64(7));
    }

    #[test]
    fn display_of_parts_lists_every_field() {
        let parts = Layout::DISCORD
            .decode(Id::from_u64(175_928_847_299_117_063))
            .unwrap();
        assert_eq!(
            parts.to_string(),
            "175928847299117063 (discord 2016-04-30T11:18:25.796Z worker=1 process=0 sequence=7)"
        );
    }
}
