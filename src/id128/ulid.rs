//! [`Ulid`]: the ULID, its fields and its 26-character text form.

use std::fmt;
use std::ops::{RangeBounds, RangeInclusive};
use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::text::{self, ULID_LEN};
use crate::error::{Error, Result};
use crate::layout::UnixTime;

/// The 80 bits below the time.
const RANDOM_MASK: u128 = (1 << 80) - 1;

/// A ULID: 48 bits of Unix milliseconds, then 80 random bits.
///
/// Every 128-bit value is a ULID. Ordered and hashed as its 128 bits, so by time first; the
/// text form, 26 characters of Crockford's base32, sorts the same way.
/// [`Display`](fmt::Display) writes it uppercase; [`FromStr`] reads either case and refuses
/// a first character above `7` (more than 128 bits), as the ULID specification requires.
///
/// # Examples
///
/// ```
/// use snowmint::id128::Ulid;
///
/// let id: Ulid = "01ARYZ6S41TSV4RRFFQ69G5FAV".parse()?;
/// assert_eq!(id.unix_ms(), 1_469_918_176_385);
/// assert_eq!(id.to_string(), "01ARYZ6S41TSV4RRFFQ69G5FAV");
/// assert_eq!(Ulid::from_bytes(id.to_bytes()), id);
/// assert!(Ulid::min_at(id.unix_ms())? <= id && id <= Ulid::max_at(id.unix_ms())?);
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Ulid(u128);

impl Ulid {
    /// The least ULID, `00000000000000000000000000`.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Ulid;
    ///
    /// assert_eq!(Ulid::MIN.to_string(), "00000000000000000000000000");
    /// ```
    pub const MIN: Ulid = Ulid(0);

    /// The greatest ULID, `7ZZZZZZZZZZZZZZZZZZZZZZZZZ`.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Ulid;
    ///
    /// assert_eq!(Ulid::MAX.to_string(), "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
    /// assert_eq!(Ulid::MAX.unix_ms(), Ulid::MAX_UNIX_MS);
    /// ```
    pub const MAX: Ulid = Ulid(u128::MAX);

    /// The last millisecond a ULID holds: 2^48 - 1 (the year 10889).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Ulid;
    ///
    /// assert!(Ulid::min_at(Ulid::MAX_UNIX_MS + 1).is_err());
    /// ```
    pub const MAX_UNIX_MS: u64 = (1 << 48) - 1;

    /// The ULID with these 128 bits.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Ulid;
    ///
    /// let id = Ulid::from_u128(42);
    /// assert_eq!((id.unix_ms(), id.random()), (0, 42));
    /// ```
    pub const fn from_u128(value: u128) -> Ulid {
        Ulid(value)
    }

    /// The ULID with these 16 bytes, big-endian (the specification's binary form).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Ulid;
    ///
    /// let mut bytes = [0; 16];
    /// bytes[5] = 1; // the last byte of the time
    /// assert_eq!(Ulid::from_bytes(bytes).unix_ms(), 1);
    /// ```
    pub const fn from_bytes(bytes: [u8; 16]) -> Ulid {
        Ulid(u128::from_be_bytes(bytes))
    }

    /// The ULID with the 16 bytes in `bytes`, big-endian: a database's `uuid` or blob.
    ///
    /// # Errors
    ///
    /// [`Error::ParseId`] with
    /// [`ParseIdReason::WrongByteLength`](crate::error::ParseIdReason::WrongByteLength) when
    /// `bytes` is not 16 bytes long.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Ulid;
    ///
    /// assert_eq!(Ulid::from_slice(&Ulid::MAX.to_bytes())?, Ulid::MAX);
    /// let err = Ulid::from_slice(&[0xff; 17]).unwrap_err();
    /// assert!(err.to_string().ends_with(": 17 bytes, expected 16"));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn from_slice(bytes: &[u8]) -> Result<Ulid> {
        Ok(Ulid::from_bytes(text::sixteen_bytes(ENCODING, bytes)?))
    }

    /// The ULID's 128 bits written as a UUID, hyphenated in lowercase hex: how PostgreSQL
    /// shows a ULID stored in a `uuid` column. [`parse_uuid`](Self::parse_uuid) reads it back.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Ulid;
    ///
    /// let id: Ulid = "01ARZ3NDEKTSV4RRFFQ69G5FAV".parse()?;
    /// assert_eq!(id.to_uuid_string(), "01563e3a-b5d3-d676-4c61-efb99302bd5b");
    /// assert_eq!(Ulid::parse_uuid(&id.to_uuid_string())?, id);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn to_uuid_string(self) -> String {
        text::ascii(&text::hyphenated(self.0)).to_owned()
    }

    /// The ULID whose 128 bits a UUID's text holds (hyphenated or 32 hex digits, either
    /// case): a ULID stored in a `uuid` column and read back as text.
    ///
    /// # Errors
    ///
    /// [`Error::ParseId`] when `s` is not a UUID's text.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Ulid;
    ///
    /// let id: Ulid = "01ARZ3NDEKTSV4RRFFQ69G5FAV".parse()?;
    /// assert_eq!(Ulid::parse_uuid("01563e3a-b5d3-d676-4c61-efb99302bd5b")?, id);
    /// assert!(Ulid::parse_uuid("01ARZ3NDEKTSV4RRFFQ69G5FAV").is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn parse_uuid(s: &str) -> Result<Ulid> {
        text::parse_uuid(s)
            .map(Ulid)
            .map_err(|reason| text::parse_error(ENCODING, s, reason))
    }

    /// The ULID of time `unix_ms` (48 bits) and the 80 bits `random` (higher bits are
    /// ignored): what a generator assembles.
    #[inline(always)]
    pub(crate) const fn from_parts(unix_ms: u64, random: u128) -> Ulid {
        Ulid((unix_ms as u128) << 80 | random & RANDOM_MASK)
    }

    /// The first ID of millisecond `unix_ms` in a generator whose start there is `seed`:
    /// the seed's low 80 bits less the top one, so that adding a sequence below 2^79 to the ID
    /// never carries out of the random part (into the time).
    #[inline(always)]
    pub(crate) const fn start(unix_ms: u64, seed: u128) -> Ulid {
        Ulid::from_parts(unix_ms, seed & !(1 << 79))
    }

    /// The 128 bits.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Ulid;
    ///
    /// assert_eq!(Ulid::MAX.to_u128(), u128::MAX);
    /// ```
    pub const fn to_u128(self) -> u128 {
        self.0
    }

    /// The 16 bytes, big-endian.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Ulid;
    ///
    /// assert_eq!(Ulid::from_u128(1).to_bytes()[15], 1);
    /// ```
    pub const fn to_bytes(self) -> [u8; 16] {
        self.0.to_be_bytes()
    }

    /// The time the ID carries, in Unix milliseconds.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Ulid;
    ///
    /// assert_eq!(Ulid::max_at(1_700_000_000_000)?.unix_ms(), 1_700_000_000_000);
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
    /// use snowmint::id128::Ulid;
    /// use std::time::{Duration, UNIX_EPOCH};
    ///
    /// let id = Ulid::min_at(1_700_000_000_000)?;
    /// assert_eq!(id.time(), UNIX_EPOCH + Duration::from_millis(1_700_000_000_000));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn time(self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.unix_ms())
    }

    /// The 80 random bits: what a generator's IDs of one millisecond count up in.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Ulid;
    ///
    /// assert_eq!(Ulid::MAX.random(), (1 << 80) - 1);
    /// ```
    pub const fn random(self) -> u128 {
        self.0 & RANDOM_MASK
    }

    /// The least ULID of millisecond `unix_ms`: every random bit clear. With
    /// [`max_at`](Self::max_at), the bounds of a time range in a query.
    ///
    /// # Errors
    ///
    /// [`Error::TimeOverflow`] past [`MAX_UNIX_MS`](Self::MAX_UNIX_MS).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Ulid;
    ///
    /// assert_eq!(Ulid::min_at(1_469_918_176_385)?.to_string(), "01ARYZ6S410000000000000000");
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn min_at(unix_ms: u64) -> Result<Ulid> {
        check_time(unix_ms)?;
        Ok(Ulid::from_parts(unix_ms, 0))
    }

    /// The greatest ULID of millisecond `unix_ms`: every random bit set.
    ///
    /// # Errors
    ///
    /// [`Error::TimeOverflow`] past [`MAX_UNIX_MS`](Self::MAX_UNIX_MS).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Ulid;
    ///
    /// let max = Ulid::max_at(1_469_918_176_385)?;
    /// assert_eq!(max.to_string(), "01ARYZ6S41ZZZZZZZZZZZZZZZZ");
    /// assert!(max < Ulid::min_at(1_469_918_176_386)?);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn max_at(unix_ms: u64) -> Result<Ulid> {
        check_time(unix_ms)?;
        Ok(Ulid::from_parts(unix_ms, u128::MAX))
    }

    /// The inclusive range of Ulids that can carry a time in `times`: from the least Ulid of the
    /// first millisecond in it ([`min_at`](Self::min_at)) to the greatest of the last
    /// ([`max_at`](Self::max_at)), clamped to the 48-bit time (1970 to
    /// [`MAX_UNIX_MS`](Self::MAX_UNIX_MS)), as [`Layout::id_range`](crate::Layout::id_range)
    /// is for 64-bit IDs. `times` is any range of Unix milliseconds (`u64`),
    /// [`SystemTime`]s or [`Rfc3339`](crate::clock::Rfc3339) times, open ends included.
    ///
    /// For pagination: `WHERE id BETWEEN start AND end` over a `[since, until)` window, with
    /// no special case for an open end or for `until` at 0.
    ///
    /// Returns `None` when no Ulid can carry a time in `times`: the range is empty, or wholly
    /// outside the 48-bit time.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::Rfc3339, id128::Ulid};
    ///
    /// let since: Rfc3339 = "2024-05-01T00:00:00Z".parse()?;
    /// let until: Rfc3339 = "2024-05-02T00:00:00Z".parse()?;
    /// let day = Ulid::id_range(since..until).unwrap();
    /// assert_eq!(*day.start(), Ulid::min_at(since.0)?);
    /// assert_eq!(*day.end(), Ulid::max_at(until.0 - 1)?);
    ///
    /// // Open ends clamp to the first and last Ulid; nothing carries an empty range.
    /// assert_eq!(Ulid::id_range::<u64>(..), Some(Ulid::MIN..=Ulid::MAX));
    /// assert_eq!(Ulid::id_range(0..0u64), None);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn id_range<T: UnixTime>(times: impl RangeBounds<T>) -> Option<RangeInclusive<Ulid>> {
        let (first, last) = super::ms_span(&times)?;
        Some(Ulid::from_parts(first, 0)..=Ulid::from_parts(last, u128::MAX))
    }

    /// Writes the 26-character text form into `buf` and returns it as a `str`; no
    /// allocation.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Ulid;
    ///
    /// let mut buf = [0u8; 26];
    /// assert_eq!(Ulid::MAX.encode(&mut buf), "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
    /// ```
    pub fn encode(self, buf: &mut [u8; ULID_LEN]) -> &str {
        *buf = text::crockford(self.0);
        text::ascii(buf)
    }

    /// Parses the 26-character text form, in either case; the same as `s.parse()`.
    ///
    /// # Errors
    ///
    /// [`Error::ParseId`] with [`ParseIdReason::Empty`](crate::error::ParseIdReason::Empty),
    /// [`ParseIdReason::WrongLength`](crate::error::ParseIdReason::WrongLength),
    /// [`ParseIdReason::InvalidDigit`](crate::error::ParseIdReason::InvalidDigit) (a
    /// character outside Crockford's base32, `I`, `L`, `O` and `U` included, with its byte
    /// offset) or [`ParseIdReason::Overflow`](crate::error::ParseIdReason::Overflow) (above
    /// `7ZZZZZZZZZZZZZZZZZZZZZZZZZ`).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Ulid;
    ///
    /// assert_eq!(Ulid::parse("01aryz6s41tsv4rrffq69g5fav")?.unix_ms(), 1_469_918_176_385);
    /// let err = Ulid::parse("80000000000000000000000000").unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "invalid ulid id \"80000000000000000000000000\": larger than the largest id, \
    ///      7ZZZZZZZZZZZZZZZZZZZZZZZZZ"
    /// );
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn parse(s: &str) -> Result<Ulid> {
        match text::parse_ulid(s) {
            Ok(value) => Ok(Ulid(value)),
            Err(reason) => Err(text::parse_error(ENCODING, s, reason)),
        }
    }
}

/// The name of the text form in parse errors.
const ENCODING: &str = "ulid";

/// `Ok` for a millisecond 48 bits hold.
fn check_time(unix_ms: u64) -> Result<()> {
    if unix_ms <= Ulid::MAX_UNIX_MS {
        return Ok(());
    }
    Err(Error::TimeOverflow {
        layout: ENCODING,
        unix_ms,
        max_unix_ms: Ulid::MAX_UNIX_MS,
    })
}

impl FromStr for Ulid {
    type Err = Error;

    /// See [`Ulid::parse`].
    fn from_str(s: &str) -> Result<Ulid> {
        Ulid::parse(s)
    }
}

impl From<u128> for Ulid {
    fn from(value: u128) -> Ulid {
        Ulid(value)
    }
}

impl From<Ulid> for u128 {
    fn from(id: Ulid) -> u128 {
        id.0
    }
}

impl From<[u8; 16]> for Ulid {
    fn from(bytes: [u8; 16]) -> Ulid {
        Ulid::from_bytes(bytes)
    }
}

impl From<Ulid> for [u8; 16] {
    fn from(id: Ulid) -> [u8; 16] {
        id.to_bytes()
    }
}

impl fmt::Display for Ulid {
    /// The 26-character text form, uppercase.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; ULID_LEN];
        f.pad(self.encode(&mut buf))
    }
}

impl fmt::Debug for Ulid {
    /// The text form and the time.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; ULID_LEN];
        f.debug_struct("Ulid")
            .field("text", &self.encode(&mut buf))
            .field("unix_ms", &self.unix_ms())
            .finish()
    }
}
