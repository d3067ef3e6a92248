//! [`Uuid7`]: RFC 9562's version 7 UUID, its fields and its text forms.

use std::fmt;
use std::ops::{RangeBounds, RangeInclusive};
use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::text::{self, HYPHENATED_LEN};
use crate::error::{Error, ParseIdReason, Result};
use crate::layout::UnixTime;

/// The version nibble and the variant bits of every UUIDv7, in place.
const VERSION_BITS: u128 = 0x7 << 76;
const VARIANT_BITS: u128 = 0b10 << 62;
/// The bits that must hold the version and the variant.
const FIXED_MASK: u128 = 0xf << 76 | 0b11 << 62;
/// `rand_b`: the 62 bits below the variant.
const RAND_B_MASK: u128 = (1 << 62) - 1;
/// `rand_a`: the 12 bits below the version.
const RAND_A_MASK: u128 = 0xfff << 64;

/// A version 7 UUID (RFC 9562): 48 bits of Unix milliseconds, then 74 random bits around
/// the version and the variant.
///
/// Every value of the type is a UUIDv7: the checked constructors ([`from_u128`],
/// [`from_bytes`], [`FromStr`]) refuse other versions and variants. Ordered and hashed as its
/// 128 bits, so by time first; the text form sorts the same way.
///
/// | bits (127 = most significant) | field |
/// |---|---|
/// | 127..=80 | `unix_ts_ms`: Unix time in milliseconds |
/// | 79..=76 | `ver`: 7 |
/// | 75..=64 | `rand_a`: 12 bits |
/// | 63..=62 | `var`: `0b10` |
/// | 61..=0 | `rand_b`: 62 bits |
///
/// [`Display`](fmt::Display) writes the canonical form, 8-4-4-4-12 lowercase hex digits with
/// hyphens; [`FromStr`] reads that or 32 hex digits without hyphens, in either case.
///
/// [`from_u128`]: Uuid7::from_u128
/// [`from_bytes`]: Uuid7::from_bytes
///
/// # Examples
///
/// ```
/// use snowmint::id128::Uuid7;
///
/// // RFC 9562, Appendix A.6.
/// let id: Uuid7 = "017F22E2-79B0-7CC3-98C4-DC0C0C07398F".parse()?;
/// assert_eq!(id.unix_ms(), 0x017F_22E2_79B0);
/// assert_eq!(id.to_string(), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
/// assert_eq!(Uuid7::from_bytes(id.to_bytes())?, id);
/// assert!(Uuid7::min_at(id.unix_ms())? <= id && id <= Uuid7::max_at(id.unix_ms())?);
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Uuid7(u128);

impl Uuid7 {
    /// The least UUIDv7: time 0, every random bit clear.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Uuid7;
    ///
    /// assert_eq!(Uuid7::MIN.to_string(), "00000000-0000-7000-8000-000000000000");
    /// assert_eq!(Uuid7::MIN, Uuid7::default());
    /// ```
    pub const MIN: Uuid7 = Uuid7(VERSION_BITS | VARIANT_BITS);

    /// The greatest UUIDv7: the last millisecond 48 bits hold, every random bit set.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Uuid7;
    ///
    /// assert_eq!(Uuid7::MAX.to_string(), "ffffffff-ffff-7fff-bfff-ffffffffffff");
    /// assert_eq!(Uuid7::MAX.unix_ms(), Uuid7::MAX_UNIX_MS);
    /// ```
    pub const MAX: Uuid7 = Uuid7(!FIXED_MASK | VERSION_BITS | VARIANT_BITS);

    /// The last millisecond a UUIDv7 holds: 2^48 - 1 (the year 10889).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Uuid7;
    ///
    /// assert!(Uuid7::max_at(Uuid7::MAX_UNIX_MS + 1).is_err());
    /// ```
    pub const MAX_UNIX_MS: u64 = (1 << 48) - 1;

    /// The UUIDv7 with these 128 bits.
    ///
    /// # Errors
    ///
    /// [`Error::ParseId`] with [`ParseIdReason::NotUuid7`] when the version is not 7 or the
    /// variant not `0b10`.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Uuid7;
    ///
    /// let id = Uuid7::from_u128(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F)?;
    /// assert_eq!(id.unix_ms(), 1_645_557_742_000);
    /// let err = Uuid7::from_u128(0x017F22E2_79B0_4CC3_98C4_DC0C0C07398F).unwrap_err(); // v4
    /// assert_eq!(
    ///     err.to_string(),
    ///     "invalid uuidv7 id \"017f22e2-79b0-4cc3-98c4-dc0c0c07398f\": version 4 and \
    ///      variant 0b10, expected version 7 and variant 0b10 (a uuidv7)"
    /// );
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn from_u128(value: u128) -> Result<Uuid7> {
        if value & FIXED_MASK == VERSION_BITS | VARIANT_BITS {
            return Ok(Uuid7(value));
        }
        Err(text::parse_error(
            ENCODING,
            text::ascii(&text::hyphenated(value)),
            not_uuid7(value),
        ))
    }

    /// The UUIDv7 with these 16 bytes, big-endian (RFC 9562's byte order).
    ///
    /// # Errors
    ///
    /// As for [`from_u128`](Self::from_u128).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Uuid7;
    ///
    /// let id = Uuid7::from_bytes([0x01, 0x7f, 0x22, 0xe2, 0x79, 0xb0, 0x7c, 0xc3, 0x98, 0xc4, 0xdc, 0x0c, 0x0c, 0x07, 0x39, 0x8f])?;
    /// assert_eq!(id.to_string(), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
    /// assert!(Uuid7::from_bytes([0; 16]).is_err()); // the nil UUID
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn from_bytes(bytes: [u8; 16]) -> Result<Uuid7> {
        Uuid7::from_u128(u128::from_be_bytes(bytes))
    }

    /// The UUIDv7 with the 16 bytes in `bytes`, big-endian: a database's `uuid` or blob.
    ///
    /// # Errors
    ///
    /// [`Error::ParseId`] with [`ParseIdReason::WrongByteLength`] when `bytes` is not 16
    /// bytes long, and as for [`from_u128`](Self::from_u128).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Uuid7;
    ///
    /// let id = Uuid7::from_slice(&Uuid7::MIN.to_bytes())?;
    /// assert_eq!(id, Uuid7::MIN);
    /// let err = Uuid7::from_slice(&[0x01, 0x7f]).unwrap_err();
    /// assert_eq!(err.to_string(), "invalid uuidv7 id \"017f\": 2 bytes, expected 16");
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn from_slice(bytes: &[u8]) -> Result<Uuid7> {
        Uuid7::from_bytes(text::sixteen_bytes(ENCODING, bytes)?)
    }

    /// The UUIDv7 of time `unix_ms` and the 74 bits `random` (`rand_a` then `rand_b`; higher
    /// bits are ignored): what a generator assembles.
    #[inline(always)]
    pub(crate) const fn from_parts(unix_ms: u64, random: u128) -> Uuid7 {
        Uuid7(
            (unix_ms as u128) << 80
                | VERSION_BITS
                | (random << 2) & RAND_A_MASK
                | VARIANT_BITS
                | random & RAND_B_MASK,
        )
    }

    /// The first ID of millisecond `unix_ms` in a generator whose start there is `seed`: the
    /// seed's bits where `rand_a` and `rand_b` sit, less `rand_b`'s top bit, so that adding a
    /// sequence below 2^61 to the ID never carries out of `rand_b` (into the variant).
    #[inline(always)]
    pub(crate) const fn start(unix_ms: u64, seed: u128) -> Uuid7 {
        let random = seed & (RAND_A_MASK | RAND_B_MASK >> 1);
        Uuid7((unix_ms as u128) << 80 | VERSION_BITS | VARIANT_BITS | random)
    }

    /// The UUIDv7 with these bits, which hold version 7 and variant `0b10`.
    #[inline(always)]
    pub(crate) const fn from_bits(bits: u128) -> Uuid7 {
        Uuid7(bits)
    }

    /// The 128 bits.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Uuid7;
    ///
    /// assert_eq!(Uuid7::MIN.to_u128(), 0x0000_0000_0000_7000_8000_0000_0000_0000);
    /// ```
    pub const fn to_u128(self) -> u128 {
        self.0
    }

    /// The 16 bytes, big-endian.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Uuid7;
    ///
    /// let bytes = Uuid7::MIN.to_bytes();
    /// assert_eq!((bytes[6], bytes[8]), (0x70, 0x80)); // the version and the variant
    /// ```
    pub const fn to_bytes(self) -> [u8; 16] {
        self.0.to_be_bytes()
    }

    /// The time the ID carries, in Unix milliseconds.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Uuid7;
    ///
    /// assert_eq!(Uuid7::min_at(1_700_000_000_000)?.unix_ms(), 1_700_000_000_000);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub const fn unix_ms(self) -> u64 {
        (self.0 >> 80) as u64
    }

    /// The time the ID carries, as a `SystemTime`.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Uuid7;
    /// use std::time::{Duration, UNIX_EPOCH};
    ///
    /// let id = Uuid7::min_at(1_700_000_000_000)?;
    /// assert_eq!(id.time(), UNIX_EPOCH + Duration::from_millis(1_700_000_000_000));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn time(self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.unix_ms())
    }

    /// The 74 random bits, `rand_a` (12) then `rand_b` (62), as one number: what a
    /// generator's IDs of one millisecond count up in.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Uuid7;
    ///
    /// let id: Uuid7 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f".parse()?;
    /// assert_eq!(id.random(), 0xcc3 << 62 | 0x18c4_dc0c_0c07_398f);
    /// assert_eq!(Uuid7::MAX.random(), (1 << 74) - 1);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub const fn random(self) -> u128 {
        (self.0 & RAND_A_MASK) >> 2 | self.0 & RAND_B_MASK
    }

    /// The least UUIDv7 of millisecond `unix_ms`: every random bit clear. With
    /// [`max_at`](Self::max_at), the bounds of a time range in a query.
    ///
    /// # Errors
    ///
    /// [`Error::TimeOverflow`] past [`MAX_UNIX_MS`](Self::MAX_UNIX_MS).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Uuid7;
    ///
    /// let min = Uuid7::min_at(1_700_000_000_000)?;
    /// assert_eq!(min.to_string(), "018bcfe5-6800-7000-8000-000000000000");
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn min_at(unix_ms: u64) -> Result<Uuid7> {
        check_time(unix_ms)?;
        Ok(Uuid7::from_parts(unix_ms, 0))
    }

    /// The greatest UUIDv7 of millisecond `unix_ms`: every random bit set.
    ///
    /// # Errors
    ///
    /// [`Error::TimeOverflow`] past [`MAX_UNIX_MS`](Self::MAX_UNIX_MS).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Uuid7;
    ///
    /// let max = Uuid7::max_at(1_700_000_000_000)?;
    /// assert_eq!(max.to_string(), "018bcfe5-6800-7fff-bfff-ffffffffffff");
    /// assert!(max < Uuid7::min_at(1_700_000_000_001)?);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn max_at(unix_ms: u64) -> Result<Uuid7> {
        check_time(unix_ms)?;
        Ok(Uuid7::from_parts(unix_ms, u128::MAX))
    }

    /// The inclusive range of Uuid7s that can carry a time in `times`: from the least Uuid7 of the
    /// first millisecond in it ([`min_at`](Self::min_at)) to the greatest of the last
    /// ([`max_at`](Self::max_at)), clamped to the 48-bit time (1970 to
    /// [`MAX_UNIX_MS`](Self::MAX_UNIX_MS)), as [`Layout::id_range`](crate::Layout::id_range)
    /// is for 64-bit IDs. `times` is any range of Unix milliseconds (`u64`),
    /// [`SystemTime`]s or [`Rfc3339`](crate::clock::Rfc3339) times, open ends included.
    ///
    /// For pagination: `WHERE id BETWEEN start AND end` over a `[since, until)` window, with
    /// no special case for an open end or for `until` at 0.
    ///
    /// Returns `None` when no Uuid7 can carry a time in `times`: the range is empty, or wholly
    /// outside the 48-bit time.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::Rfc3339, id128::Uuid7};
    ///
    /// let since: Rfc3339 = "2024-05-01T00:00:00Z".parse()?;
    /// let until: Rfc3339 = "2024-05-02T00:00:00Z".parse()?;
    /// let day = Uuid7::id_range(since..until).unwrap();
    /// assert_eq!(*day.start(), Uuid7::min_at(since.0)?);
    /// assert_eq!(*day.end(), Uuid7::max_at(until.0 - 1)?);
    ///
    /// // Open ends clamp to the first and last Uuid7; nothing carries an empty range.
    /// assert_eq!(Uuid7::id_range::<u64>(..), Some(Uuid7::MIN..=Uuid7::MAX));
    /// assert_eq!(Uuid7::id_range(0..0u64), None);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn id_range<T: UnixTime>(times: impl RangeBounds<T>) -> Option<RangeInclusive<Uuid7>> {
        let (first, last) = super::ms_span(&times)?;
        Some(Uuid7::from_parts(first, 0)..=Uuid7::from_parts(last, u128::MAX))
    }

    /// Writes the hyphenated text form into `buf` and returns it as a `str`; no allocation.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Uuid7;
    ///
    /// let mut buf = [0u8; 36];
    /// assert_eq!(Uuid7::MIN.encode(&mut buf), "00000000-0000-7000-8000-000000000000");
    /// ```
    pub fn encode(self, buf: &mut [u8; HYPHENATED_LEN]) -> &str {
        *buf = text::hyphenated(self.0);
        text::ascii(buf)
    }

    /// Parses a UUIDv7, hyphenated or as 32 hex digits, in either case; the same as
    /// `s.parse()`.
    ///
    /// # Errors
    ///
    /// [`Error::ParseId`] with [`ParseIdReason::Empty`], [`ParseIdReason::WrongLength`]
    /// (other than 36 or 32 characters), [`ParseIdReason::InvalidDigit`] (a character that
    /// is not a hex digit, or not a hyphen where one belongs, with its byte offset) or
    /// [`ParseIdReason::NotUuid7`] (another version or variant).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Uuid7;
    ///
    /// let id = Uuid7::parse("017F22E279B07CC398C4DC0C0C07398F")?;
    /// assert_eq!(id, Uuid7::parse("017f22e2-79b0-7cc3-98c4-dc0c0c07398f")?);
    /// let err = Uuid7::parse("017f22e2-79b0-7cc3-98c4_dc0c0c07398f").unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "invalid uuidv7 id \"017f22e2-79b0-7cc3-98c4_dc0c0c07398f\": '_' at position 23 \
    ///      is not a hyphen"
    /// );
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn parse(s: &str) -> Result<Uuid7> {
        let value = text::parse_uuid(s).map_err(|reason| text::parse_error(ENCODING, s, reason))?;
        if value & FIXED_MASK == VERSION_BITS | VARIANT_BITS {
            return Ok(Uuid7(value));
        }
        Err(text::parse_error(ENCODING, s, not_uuid7(value)))
    }
}

/// The name of the text form in parse errors.
const ENCODING: &str = "uuidv7";

/// What `value`'s version and variant are, for an error.
#[cold]
fn not_uuid7(value: u128) -> ParseIdReason {
    ParseIdReason::NotUuid7 {
        version: (value >> 76) as u8 & 0xf,
        variant: (value >> 62) as u8 & 0b11,
    }
}

/// `Ok` for a millisecond 48 bits hold.
fn check_time(unix_ms: u64) -> Result<()> {
    if unix_ms <= Uuid7::MAX_UNIX_MS {
        return Ok(());
    }
    Err(Error::TimeOverflow {
        layout: ENCODING,
        unix_ms,
        max_unix_ms: Uuid7::MAX_UNIX_MS,
    })
}

impl Default for Uuid7 {
    /// [`Uuid7::MIN`]: the all-zero value is not a UUIDv7.
    fn default() -> Uuid7 {
        Uuid7::MIN
    }
}

impl FromStr for Uuid7 {
    type Err = Error;

    /// See [`Uuid7::parse`].
    fn from_str(s: &str) -> Result<Uuid7> {
        Uuid7::parse(s)
    }
}

impl TryFrom<u128> for Uuid7 {
    type Error = Error;

    /// See [`Uuid7::from_u128`].
    fn try_from(value: u128) -> Result<Uuid7> {
        Uuid7::from_u128(value)
    }
}

impl From<Uuid7> for u128 {
    fn from(id: Uuid7) -> u128 {
        id.0
    }
}

impl From<Uuid7> for [u8; 16] {
    fn from(id: Uuid7) -> [u8; 16] {
        id.to_bytes()
    }
}

impl fmt::Display for Uuid7 {
    /// The canonical form: 8-4-4-4-12 lowercase hex digits with hyphens.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; HYPHENATED_LEN];
        f.pad(self.encode(&mut buf))
    }
}

impl fmt::Debug for Uuid7 {
    /// The text form and the time.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; HYPHENATED_LEN];
        f.debug_struct("Uuid7")
            .field("text", &self.encode(&mut buf))
            .field("unix_ms", &self.unix_ms())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_land_in_their_fields() {
        let random = (1u128 << 74) - 1;
        let id = Uuid7::from_parts(0x0123_4567_89ab, random);
        assert_eq!(id, Uuid7::from_u128(id.0).unwrap());
        assert_eq!((id.unix_ms(), id.random()), (0x0123_4567_89ab, random));
        let id = Uuid7::from_parts(1, 0x2aa << 62 | 0x1234);
        assert_eq!(id.random(), 0x2aa << 62 | 0x1234);
        assert_eq!(id.0 >> 64 & 0xfff, 0x2aa);
    }
}
