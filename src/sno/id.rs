//! [`SnoId`]: the 10-byte ID, its fields and its 16-character text form.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::clock::Rfc3339;
use crate::encoding::{NOT_A_DIGIT as INVALID, digit_table};
use crate::error::{Error, ParseIdReason, Result};
use crate::layout::Layout;

/// sno's base32 alphabet, in ascending ASCII order: `2`-`9` then `a`-`x`.
const ALPHABET: &[u8; 32] = b"23456789abcdefghijklmnopqrstuvwx";

/// What a text character is expected to be, for parse errors.
const EXPECTED_DIGIT: &str = "a sno character (2-9 or lowercase a-x)";

/// The value of each byte as a sno digit (lowercase only), or `INVALID`.
const DECODE: [u8; 256] = digit_table(ALPHABET, false);

/// The number of characters in the text form.
const TEXT_LEN: usize = 16;

/// The layout of a sno generator's state word: 8 unused bits, 39 bits of time in 4 ms units
/// from [`SnoId::EPOCH_MS`], the tick-tock bit, 16 bits of sequence.
pub(super) const LAYOUT: Layout = Layout::builder("sno", 64)
    .unused(8)
    .time(39)
    .tick_tock()
    .sequence(16)
    .tick_ms(SnoId::TICK_MS)
    .epoch_ms(SnoId::EPOCH_MS)
    .build_const();

/// A sno ID: 10 bytes of time, tick-tock bit, metabyte, partition and sequence.
///
/// Ordered and hashed as its bytes (so by time first); its text form ([`Display`],
/// [`FromStr`]) is 16 characters of sno's base32 alphabet and sorts the same way.
///
/// [`Display`]: fmt::Display
///
/// # Layout
///
/// An ID is 80 bits, stored big-endian, in two 40-bit blocks: the timestamp block
/// (39 bits of 4 ms units since 2010-01-01 00:00:00 UTC, then the tick-tock bit as its least
/// significant bit) and the payload block (the metabyte, the 16-bit partition, the 16-bit
/// sequence):
///
/// | bytes | bits (79 = most significant) | component |
/// |---|---|---|
/// | 0 to 4 | 79..=41 | time: 4 ms units since Unix ms 1262304000000 (2010-01-01) |
/// | 4 (lowest bit) | 40 | tick-tock bit (timeline 0 or 1) |
/// | 5 | 39..=32 | metabyte |
/// | 6 and 7 | 31..=16 | partition |
/// | 8 and 9 | 15..=0 | sequence |
///
/// Only the tick-tock bit shares a byte with another component. Every 10-byte value is a valid
/// ID: the time field spans 2010-01-01T00:00:00.000Z to 2079-09-07T15:47:35.548Z (the start of
/// its last 4 ms unit).
///
/// # Order
///
/// IDs compare as their bytes, so by time, then tick-tock bit, then metabyte, partition and
/// sequence. The text form keeps that order: it is the 80 bits in 16 groups of 5, most
/// significant first, each written as a character of `23456789abcdefghijklmnopqrstuvwx`, an
/// alphabet in ascending ASCII order; so comparing two texts byte by byte compares the IDs.
///
/// # Text form and case
///
/// Exactly 16 characters of the alphabet above (sno's canonical form, `[2-9a-x]{16}`). Parsing
/// accepts only that: uppercase letters are rejected. sno's alphabet is strictly lowercase,
/// and accepting uppercase as well would give one ID two spellings: the text would stop being
/// usable as a key (equal IDs, unequal strings), and would stop sorting like the IDs (`A`-`X`
/// sort between the digits and `a` in ASCII).
///
/// # Examples
///
/// ```
/// use snowmint::sno::SnoId;
///
/// let id = SnoId::compose(1_700_000_000_003, 1, 7, 0x410a, 42)?;
/// assert_eq!(id.unix_ms(), 1_700_000_000_000); // floored to its 4 ms unit
/// assert_eq!((id.timeline(), id.meta(), id.partition(), id.sequence()), (1, 7, 0x410a, 42));
///
/// let text = id.to_string();
/// assert_eq!(text.len(), 16);
/// assert_eq!(text.parse::<SnoId>()?, id);
/// assert_eq!(SnoId::from_bytes(id.to_bytes()), id);
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct SnoId([u8; 10]);

impl SnoId {
    /// The sno epoch: 2010-01-01 00:00:00 UTC, in Unix milliseconds.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    ///
    /// assert_eq!(SnoId::from_bytes([0; 10]).unix_ms(), SnoId::EPOCH_MS);
    /// ```
    pub const EPOCH_MS: u64 = 1_262_304_000_000;

    /// The length of a time unit, in milliseconds.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    ///
    /// let id = SnoId::from_bytes([0, 0, 0, 0, 2, 0, 0, 0, 0, 0]); // one unit after the epoch
    /// assert_eq!(id.unix_ms(), SnoId::EPOCH_MS + SnoId::TICK_MS);
    /// ```
    pub const TICK_MS: u64 = 4;

    /// The last time an ID holds, in Unix milliseconds: the start of the last 4 ms unit,
    /// 2079-09-07T15:47:35.548Z.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    ///
    /// assert_eq!(SnoId::from_bytes([0xff; 10]).unix_ms(), SnoId::MAX_UNIX_MS);
    /// ```
    pub const MAX_UNIX_MS: u64 = Self::EPOCH_MS + ((1 << 39) - 1) * Self::TICK_MS;

    /// The ID with these 10 bytes, big-endian as sno stores them.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    ///
    /// let id = SnoId::from_bytes([0, 0, 0, 0, 3, 9, 0x41, 0x0a, 0, 42]);
    /// assert_eq!(id.unix_ms(), SnoId::EPOCH_MS + 4); // one 4 ms unit after the epoch
    /// assert_eq!((id.timeline(), id.meta(), id.partition(), id.sequence()), (1, 9, 0x410a, 42));
    /// ```
    pub const fn from_bytes(bytes: [u8; 10]) -> SnoId {
        SnoId(bytes)
    }

    /// The 10 bytes, big-endian.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    ///
    /// let bytes = [0, 0, 0, 0, 3, 9, 0x41, 0x0a, 0, 42];
    /// assert_eq!(SnoId::from_bytes(bytes).to_bytes(), bytes);
    /// ```
    pub const fn to_bytes(self) -> [u8; 10] {
        self.0
    }

    /// The 10 bytes, big-endian, by reference.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    ///
    /// let id = SnoId::from_bytes([0, 0, 0, 0, 3, 9, 0x41, 0x0a, 0, 42]);
    /// assert_eq!(id.as_bytes()[5], 9); // the metabyte
    /// ```
    pub const fn as_bytes(&self) -> &[u8; 10] {
        &self.0
    }

    /// The ID as an 80-bit number (the bytes read big-endian).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    ///
    /// assert_eq!(SnoId::from_bytes([0xff; 10]).to_u128(), (1 << 80) - 1);
    /// ```
    pub const fn to_u128(self) -> u128 {
        let b = self.0;
        let hi = u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
        let lo = u16::from_be_bytes([b[8], b[9]]);
        (hi as u128) << 16 | lo as u128
    }

    /// The ID whose 80-bit number is the low 80 bits of `value`.
    const fn from_u80(value: u128) -> SnoId {
        let b = value.to_be_bytes();
        SnoId([
            b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15],
        ])
    }

    /// The ID assembled from the generator's state word `word` (time, tick-tock bit and
    /// sequence where [`LAYOUT`] puts them), a metabyte and a partition.
    #[inline(always)]
    pub(super) const fn from_word(word: u64, meta: u8, partition: u16) -> SnoId {
        // The top 8 bits of the word are unused (zero): `word >> 16` is the 40-bit block.
        let hi = (word >> 16) << 24 | (meta as u64) << 16 | partition as u64;
        let [b0, b1, b2, b3, b4, b5, b6, b7] = hi.to_be_bytes();
        let [b8, b9] = (word as u16).to_be_bytes();
        SnoId([b0, b1, b2, b3, b4, b5, b6, b7, b8, b9])
    }

    /// Builds an ID from its components; the time is floored to its 4 ms unit.
    ///
    /// `timeline` is the tick-tock bit (0 or 1). No mint is involved: nothing stops two calls from
    /// building the same ID (sno's "user-defined time", for porting old IDs).
    ///
    /// # Errors
    ///
    /// [`Error::BeforeEpoch`] for a time before [`EPOCH_MS`](Self::EPOCH_MS),
    /// [`Error::TimeOverflow`] for one after [`MAX_UNIX_MS`](Self::MAX_UNIX_MS) plus
    /// its unit, and [`Error::TimelineOutOfRange`] for a `timeline` above 1.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    ///
    /// let id = SnoId::compose(SnoId::EPOCH_MS, 0, 0, 0, 0)?;
    /// assert_eq!(id.to_string(), "2222222222222222");
    ///
    /// let err = SnoId::compose(1_000, 0, 0, 0, 0).unwrap_err();
    /// assert_eq!(err.to_string(), "time 1000 ms is before the epoch 1262304000000 ms of layout sno");
    /// let err = SnoId::compose(SnoId::EPOCH_MS, 2, 0, 0, 0).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "timeline 2 is out of range for layout sno (0..=1; 1 needs a tick-tock bit)"
    /// );
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn compose(
        unix_ms: u64,
        timeline: u8,
        meta: u8,
        partition: u16,
        sequence: u16,
    ) -> Result<SnoId> {
        let ticks = LAYOUT.ticks_at(unix_ms)?;
        if timeline > 1 {
            return Err(Error::TimelineOutOfRange {
                layout: LAYOUT.name(),
                value: u64::from(timeline),
                max: 1,
            });
        }
        let word = ticks << 17 | u64::from(timeline) << 16 | u64::from(sequence);
        Ok(SnoId::from_word(word, meta, partition))
    }

    /// The 40-bit timestamp block: time units shifted left by one, or the tick-tock bit.
    const fn time_block(&self) -> u64 {
        let b = self.0;
        u64::from_be_bytes([0, 0, 0, b[0], b[1], b[2], b[3], b[4]])
    }

    /// The time as 4 ms units since the sno epoch.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    ///
    /// let id = SnoId::from_bytes([0, 0, 0, 0, 7, 0, 0, 0, 0, 0]); // time block 7: unit 3, tick 1
    /// assert_eq!(id.ticks(), 3);
    /// ```
    pub const fn ticks(&self) -> u64 {
        self.time_block() >> 1
    }

    /// The time the ID carries, in Unix milliseconds (the start of its 4 ms unit).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    ///
    /// let id = SnoId::from_bytes([0, 0, 0, 0, 7, 0, 0, 0, 0, 0]);
    /// assert_eq!(id.unix_ms(), SnoId::EPOCH_MS + 3 * 4);
    /// ```
    pub const fn unix_ms(&self) -> u64 {
        Self::EPOCH_MS + self.ticks() * Self::TICK_MS
    }

    /// The time the ID carries, as a `SystemTime`.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    /// use std::time::{Duration, UNIX_EPOCH};
    ///
    /// let id: SnoId = "2222222222222222".parse()?;
    /// assert_eq!(id.time(), UNIX_EPOCH + Duration::from_secs(1_262_304_000)); // 2010-01-01
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn time(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.unix_ms())
    }

    /// The time the ID carries, displayed as RFC 3339 in UTC with milliseconds.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    ///
    /// let last = SnoId::from_bytes([0xff; 10]);
    /// assert_eq!(last.time_rfc3339().to_string(), "2079-09-07T15:47:35.548Z");
    /// ```
    pub fn time_rfc3339(&self) -> impl fmt::Display + use<> {
        Rfc3339(self.unix_ms())
    }

    /// The timeline (0 or 1) the ID was minted on: its tick-tock bit.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    ///
    /// assert_eq!(SnoId::from_bytes([0, 0, 0, 0, 7, 0, 0, 0, 0, 0]).timeline(), 1);
    /// assert_eq!(SnoId::from_bytes([0, 0, 0, 0, 6, 0, 0, 0, 0, 0]).timeline(), 0);
    /// ```
    pub const fn timeline(&self) -> u8 {
        self.0[4] & 1
    }

    /// The metabyte.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    ///
    /// assert_eq!(SnoId::from_bytes([0, 0, 0, 0, 3, 9, 0x41, 0x0a, 0, 42]).meta(), 9);
    /// ```
    pub const fn meta(&self) -> u8 {
        self.0[5]
    }

    /// The partition.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    ///
    /// assert_eq!(SnoId::from_bytes([0, 0, 0, 0, 3, 9, 0x41, 0x0a, 0, 42]).partition(), 0x410a);
    /// ```
    pub const fn partition(&self) -> u16 {
        u16::from_be_bytes([self.0[6], self.0[7]])
    }

    /// The sequence.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    ///
    /// assert_eq!(SnoId::from_bytes([0, 0, 0, 0, 3, 9, 0x41, 0x0a, 0, 42]).sequence(), 42);
    /// ```
    pub const fn sequence(&self) -> u16 {
        u16::from_be_bytes([self.0[8], self.0[9]])
    }

    /// Writes the 16-character text form into `buf` and returns it as a `str`; no allocation.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    ///
    /// let mut buf = [0u8; 16];
    /// assert_eq!(SnoId::from_bytes([0; 10]).encode(&mut buf), "2222222222222222");
    /// assert_eq!(SnoId::from_bytes([0xff; 10]).encode(&mut buf), "xxxxxxxxxxxxxxxx");
    /// ```
    pub fn encode(self, buf: &mut [u8; 16]) -> &str {
        *buf = self.to_text();
        // The alphabet is ASCII, so the buffer is valid UTF-8; the fallback is unreachable.
        std::str::from_utf8(buf).unwrap_or_default()
    }

    /// The 16 ASCII bytes of the text form.
    const fn to_text(self) -> [u8; TEXT_LEN] {
        let value = self.to_u128();
        let mut text = [0u8; TEXT_LEN];
        let mut i = 0;
        while i < TEXT_LEN {
            let digit = (value >> (75 - 5 * i)) & 0x1f;
            text[i] = ALPHABET[digit as usize];
            i += 1;
        }
        text
    }

    /// Parses the 16-character text form; the same as `s.parse()`.
    ///
    /// # Errors
    ///
    /// [`Error::ParseId`] with [`ParseIdReason::Empty`] for an empty string,
    /// [`ParseIdReason::WrongLength`] for a string of other than 16 characters and
    /// [`ParseIdReason::InvalidDigit`] (with the character and its byte offset) for a
    /// character outside `2`-`9`, `a`-`x`, uppercase letters included. Every 16-character
    /// string of the alphabet is an ID, so there is no overflow.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    ///
    /// assert_eq!(SnoId::parse("xxxxxxxxxxxxxxxx")?, SnoId::from_bytes([0xff; 10]));
    /// let err = SnoId::parse("222222222222222y").unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "invalid sno id \"222222222222222y\": 'y' at position 15 is not \
    ///      a sno character (2-9 or lowercase a-x)"
    /// );
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn parse(s: &str) -> Result<SnoId> {
        match decode_text(s.as_bytes()) {
            Some(value) => Ok(SnoId::from_u80(value)),
            None => Err(parse_error(s, problem(s))),
        }
    }
}

/// The 80-bit value of exactly 16 alphabet characters, or `None`.
#[inline]
fn decode_text(bytes: &[u8]) -> Option<u128> {
    if bytes.len() != TEXT_LEN {
        return None;
    }
    bytes.iter().try_fold(0u128, |value, &byte| {
        let digit = DECODE[usize::from(byte)];
        (digit != INVALID).then_some(value << 5 | u128::from(digit))
    })
}

/// Why `s` is not an ID: empty, a length other than 16 characters (checked first), or the
/// first character outside the alphabet.
#[cold]
#[inline(never)]
fn problem(s: &str) -> ParseIdReason {
    if s.is_empty() {
        return ParseIdReason::Empty {
            expected: "16 sno characters (2-9, a-x)",
        };
    }
    let length = s.chars().count();
    if length != TEXT_LEN {
        return ParseIdReason::WrongLength {
            length,
            expected: "exactly 16",
        };
    }
    // Some character is outside the alphabet, or `s` would have parsed.
    let (position, found) = s
        .char_indices()
        .find(|&(_, c)| !c.is_ascii() || DECODE[c as usize] == INVALID)
        .unwrap_or_default();
    ParseIdReason::InvalidDigit {
        found,
        position,
        expected: EXPECTED_DIGIT,
    }
}

#[cold]
fn parse_error(s: &str, reason: ParseIdReason) -> Error {
    let input = match s.char_indices().nth(64) {
        Some((end, _)) => format!("{}…", &s[..end]),
        None => s.to_owned(),
    };
    Error::ParseId {
        input,
        encoding: "sno",
        reason,
    }
}

impl FromStr for SnoId {
    type Err = Error;

    /// Parses exactly 16 characters of `23456789abcdefghijklmnopqrstuvwx`; see
    /// [`SnoId::parse`].
    fn from_str(s: &str) -> Result<SnoId> {
        SnoId::parse(s)
    }
}

impl fmt::Display for SnoId {
    /// The 16-character text form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; TEXT_LEN];
        f.pad(self.encode(&mut buf))
    }
}

impl fmt::Debug for SnoId {
    /// The text form and every component.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; TEXT_LEN];
        f.debug_struct("SnoId")
            .field("text", &self.encode(&mut buf))
            .field("time", &format_args!("{}", self.time_rfc3339()))
            .field("unix_ms", &self.unix_ms())
            .field("timeline", &self.timeline())
            .field("meta", &self.meta())
            .field("partition", &self.partition())
            .field("sequence", &self.sequence())
            .finish()
    }
}

impl From<[u8; 10]> for SnoId {
    fn from(bytes: [u8; 10]) -> SnoId {
        SnoId(bytes)
    }
}

impl From<SnoId> for [u8; 10] {
    fn from(id: SnoId) -> [u8; 10] {
        id.0
    }
}

impl AsRef<[u8]> for SnoId {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

#[cfg(feature = "serde")]
mod serde_impls {
    //! `SnoId` serializes as its 16-character text form, in every format.

    use std::fmt;

    use serde::de::{self, Visitor};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{SnoId, TEXT_LEN};

    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    impl Serialize for SnoId {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut buf = [0u8; TEXT_LEN];
            serializer.serialize_str(self.encode(&mut buf))
        }
    }

    struct SnoIdVisitor;

    impl Visitor<'_> for SnoIdVisitor {
        type Value = SnoId;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a sno id: 16 characters of 23456789abcdefghijklmnopqrstuvwx")
        }

        fn visit_str<E: de::Error>(self, s: &str) -> Result<SnoId, E> {
            SnoId::parse(s).map_err(E::custom)
        }
    }

    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    impl<'de> Deserialize<'de> for SnoId {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<SnoId, D::Error> {
            deserializer.deserialize_str(SnoIdVisitor)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_maps_to_bytes_as_documented() {
        let word = 0x5a_5a5a_5a5a << 17 | 1 << 16 | 0xbeef;
        let id = SnoId::from_word(word, 0x12, 0x3456);
        let expected: u128 = (word as u128 >> 16) << 40 | 0x12 << 32 | 0x3456 << 16 | 0xbeef;
        assert_eq!(id.to_u128(), expected);
        assert_eq!(SnoId::from_u80(expected), id);
        assert_eq!(id.ticks(), 0x5a_5a5a_5a5a);
        assert_eq!(
            (id.timeline(), id.meta(), id.partition()),
            (1, 0x12, 0x3456)
        );
        assert_eq!(id.sequence(), 0xbeef);
    }

    #[test]
    fn decode_table_inverts_the_alphabet() {
        let valid = (0..=255u8).filter(|&b| DECODE[usize::from(b)] != INVALID);
        assert!(valid.eq(ALPHABET.iter().copied()));
        for (value, &byte) in ALPHABET.iter().enumerate() {
            assert_eq!(usize::from(DECODE[usize::from(byte)]), value);
        }
    }
}
