//! The ID newtype: a `u64` with checked conversions and its decimal text form. Encodings
//! ([`crate::encoding`]) and layouts ([`crate::layout`]) add their own methods to it.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, ParseIdReason, Result, bounded};

/// A minted ID: a `u64` whose fields follow a [`Layout`](crate::Layout).
///
/// `Id` is the raw value, 8 bytes, ordered and hashed as the number; its text form is decimal.
/// The layout that gives it meaning is not stored in it: [`Layout::decode`](crate::Layout::decode)
/// (or a generator's `decode`) takes the ID and returns the [`Parts`](crate::Parts), whose
/// `Debug` shows every field.
///
/// # Examples
///
/// ```
/// use snowmint::{Id, Layout};
///
/// let id: Id = "1541815603606036480".parse()?;
/// assert_eq!(id.to_u64(), 1_541_815_603_606_036_480);
/// assert_eq!(id.to_string(), "1541815603606036480");
/// let parts = Layout::TWITTER.decode(id)?;
/// assert_eq!(parts.node("machine"), Some(378));
/// assert_eq!(
///     format!("{parts:?}"),
///     "Parts { id: 1541815603606036480, layout: \"twitter\", \
///      time: 2022-06-28T16:07:40.105Z, unix_ms: 1656432460105, machine: 378, sequence: 0 }"
/// );
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Id(u64);

impl Id {
    /// Wraps a raw value.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Id;
    ///
    /// assert_eq!(Id::from_u64(42).to_string(), "42");
    /// ```
    pub const fn from_u64(value: u64) -> Id {
        Id(value)
    }

    /// The raw value.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Id;
    ///
    /// assert_eq!(Id::from_u64(u64::MAX).to_u64(), u64::MAX);
    /// ```
    pub const fn to_u64(self) -> u64 {
        self.0
    }

    /// Wraps a non-negative `i64` (the form databases with signed 64-bit columns store).
    ///
    /// # Errors
    ///
    /// [`Error::NegativeId`] for a negative value.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Error, Id};
    ///
    /// assert_eq!(Id::from_i64(42)?, Id::from_u64(42));
    /// assert!(matches!(Id::from_i64(-1), Err(Error::NegativeId { value: -1 })));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
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
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Error, Id};
    ///
    /// assert_eq!(Id::from_u64(42).to_i64()?, 42);
    /// assert!(matches!(Id::from_u64(1 << 63).to_i64(), Err(Error::IdTooLargeForI64 { .. })));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub const fn to_i64(self) -> Result<i64> {
        if self.0 > i64::MAX as u64 {
            Err(Error::IdTooLargeForI64 { id: self.0 })
        } else {
            Ok(self.0 as i64)
        }
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
            input: bounded(s),
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
}
