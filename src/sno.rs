//! sno IDs: 10 bytes of time, tick-tock bit, metabyte, partition and sequence, with a
//! 16-character text form, minted on the same one-word hot path as every other layout.
//!
//! [`SnoId`] documents the bit layout, the order and the text form; [`SnoGenerator`] the
//! mapping from its 64-bit state word to the 80-bit ID.

use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;
use std::sync::mpsc::SyncSender;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::clock::{Clock, DefaultClock};
use crate::error::{Error, ParseIdReason, Result};
use crate::generator::{ClockBehind, Event, Generator, GeneratorBuilder};
use crate::generator::{Snapshot, Stats};
use crate::layout::Layout;
use crate::time::Rfc3339;

/// sno's base32 alphabet, in ascending ASCII order: `2`-`9` then `a`-`x`.
const ALPHABET: &[u8; 32] = b"23456789abcdefghijklmnopqrstuvwx";

/// What a text character is expected to be, for parse errors.
const EXPECTED_DIGIT: &str = "a sno character (2-9 or lowercase a-x)";

/// The value of each byte as a sno digit, or `INVALID`.
const DECODE: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut i = 0;
    while i < ALPHABET.len() {
        table[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    table
};
const INVALID: u8 = 0xff;

/// The number of characters in the text form.
const TEXT_LEN: usize = 16;

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
/// assert_eq!(id.timestamp_ms(), 1_700_000_000_000); // floored to its 4 ms unit
/// assert_eq!((id.tick(), id.meta(), id.partition(), id.sequence()), (1, 7, 0x410a, 42));
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
    pub const EPOCH_MS: u64 = 1_262_304_000_000;

    /// The length of a time unit, in milliseconds.
    pub const TICK_MS: u64 = 4;

    /// The last time an ID holds, in Unix milliseconds: the start of the last 4 ms unit,
    /// 2079-09-07T15:47:35.548Z.
    pub const MAX_TIMESTAMP_MS: u64 = Self::EPOCH_MS + ((1 << 39) - 1) * Self::TICK_MS;

    /// The ID with these 10 bytes, big-endian as sno stores them.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoId;
    ///
    /// let id = SnoId::from_bytes([0, 0, 0, 0, 3, 9, 0x41, 0x0a, 0, 42]);
    /// assert_eq!(id.timestamp_ms(), SnoId::EPOCH_MS + 4); // one 4 ms unit after the epoch
    /// assert_eq!((id.tick(), id.meta(), id.partition(), id.sequence()), (1, 9, 0x410a, 42));
    /// ```
    pub const fn from_bytes(bytes: [u8; 10]) -> SnoId {
        SnoId(bytes)
    }

    /// The 10 bytes, big-endian.
    pub const fn to_bytes(self) -> [u8; 10] {
        self.0
    }

    /// The 10 bytes, big-endian, by reference.
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
    /// sequence where [`SnoGenerator::LAYOUT`] puts them), a metabyte and a partition.
    #[inline(always)]
    const fn from_word(word: u64, meta: u8, partition: u16) -> SnoId {
        // The top 8 bits of the word are unused (zero): `word >> 16` is the 40-bit block.
        let hi = (word >> 16) << 24 | (meta as u64) << 16 | partition as u64;
        let [b0, b1, b2, b3, b4, b5, b6, b7] = hi.to_be_bytes();
        let [b8, b9] = (word as u16).to_be_bytes();
        SnoId([b0, b1, b2, b3, b4, b5, b6, b7, b8, b9])
    }

    /// Builds an ID from its components; the time is floored to its 4 ms unit.
    ///
    /// `tick` is the tick-tock bit (0 or 1). No mint is involved: nothing stops two calls from
    /// building the same ID (sno's "user-defined time", for porting old IDs).
    ///
    /// # Errors
    ///
    /// [`Error::BeforeEpoch`] for a time before [`EPOCH_MS`](Self::EPOCH_MS),
    /// [`Error::TimeOverflow`] for one after [`MAX_TIMESTAMP_MS`](Self::MAX_TIMESTAMP_MS) plus
    /// its unit, and [`Error::TimelineOutOfRange`] for a `tick` above 1.
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
        timestamp_ms: u64,
        tick: u8,
        meta: u8,
        partition: u16,
        sequence: u16,
    ) -> Result<SnoId> {
        let ticks = SnoGenerator::LAYOUT.ticks_at(timestamp_ms)?;
        if tick > 1 {
            return Err(Error::TimelineOutOfRange {
                layout: SnoGenerator::LAYOUT.name(),
                value: u64::from(tick),
                max: 1,
            });
        }
        let word = ticks << 17 | u64::from(tick) << 16 | u64::from(sequence);
        Ok(SnoId::from_word(word, meta, partition))
    }

    /// The 40-bit timestamp block: time units shifted left by one, or the tick-tock bit.
    const fn time_block(&self) -> u64 {
        let b = self.0;
        u64::from_be_bytes([0, 0, 0, b[0], b[1], b[2], b[3], b[4]])
    }

    /// The time as 4 ms units since the sno epoch.
    pub const fn ticks(&self) -> u64 {
        self.time_block() >> 1
    }

    /// The time the ID carries, in Unix milliseconds (the start of its 4 ms unit).
    pub const fn timestamp_ms(&self) -> u64 {
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
        UNIX_EPOCH + Duration::from_millis(self.timestamp_ms())
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
        Rfc3339(self.timestamp_ms())
    }

    /// The tick-tock bit: the timeline (0 or 1) the ID was minted on.
    pub const fn tick(&self) -> u8 {
        self.0[4] & 1
    }

    /// The metabyte.
    pub const fn meta(&self) -> u8 {
        self.0[5]
    }

    /// The partition.
    pub const fn partition(&self) -> u16 {
        u16::from_be_bytes([self.0[6], self.0[7]])
    }

    /// The sequence.
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
            .field("timestamp_ms", &self.timestamp_ms())
            .field("tick", &self.tick())
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

/// Mints [`SnoId`]s for one partition, from any number of threads, lock-free.
///
/// A [`Generator`] on [`LAYOUT`](Self::LAYOUT) (time, tick-tock bit and sequence in one
/// `AtomicU64`, one compare-and-swap per ID) plus the partition and a metabyte. The partition
/// must be set, as a node field must; the metabyte is 0 unless the builder sets another, and
/// [`mint_with_meta`](Self::mint_with_meta) gives one per ID, as sno does. The defaults follow sno: the whole sequence (65,536 IDs per 4 ms)
/// and, when the clock goes back, tick-tock ([`ClockBehind::TickTock`] with `max_ms: 1000`):
/// minting goes on without waiting at the earlier time on the other timeline; only a second
/// regression into time that timeline has already used waits (at most one second, then
/// [`Error::ClockBehind`]).
///
/// Order: the IDs of one generator increase within each timeline; across a toggle they sort by
/// time, then timeline (a timeline-1 ID sorts right after the timeline-0 IDs of its 4 ms
/// unit). With one metabyte they increase in minting order as long as the clock does not go
/// back; IDs of one 4 ms unit with different metabytes sort by metabyte first.
///
/// # The state word
///
/// A `SnoGenerator` is a [`Generator`] on [`LAYOUT`](Self::LAYOUT), a 64-bit layout that
/// holds everything that changes from one ID to the next: bits 63..=56 unused (zero),
/// 55..=17 the time (4 ms ticks from the sno epoch), 16 the tick-tock bit, 15..=0 the sequence. Time, timeline and
/// sequence change together in its one `AtomicU64`, with one compare-and-swap per ID; the
/// partition and the metabyte are not in the word (the metabyte may differ per mint). An ID is assembled from the word `w`, the metabyte `m` and the partition `p` as
///
/// ```text
/// id = (w >> 16) << 40 | m << 32 | p << 16 | (w & 0xffff)
/// ```
///
/// (`w >> 16` is the whole 40-bit timestamp block, time and tick-tock bit, because the layout
/// puts them right above the sequence.)
///
/// # Examples
///
/// ```
/// use snowmint::{sno::{SnoGenerator, SnoId}};
///
/// let generator = SnoGenerator::builder().partition(0x410a).meta(1).build()?;
/// let a = generator.mint()?;
/// let b = generator.mint()?;
/// assert!(b > a);
/// assert!(b.to_string() > a.to_string()); // the text sorts like the ID
/// assert_eq!((b.meta(), b.partition()), (1, 0x410a));
/// # Ok::<(), snowmint::Error>(())
/// ```
pub struct SnoGenerator<C = DefaultClock> {
    inner: Generator<C>,
    partition: u16,
    meta: u8,
}

/// Configures a [`SnoGenerator`]: partition (required), metabyte, sequence range, clock and
/// clock-behind policy.
///
/// # Examples
///
/// ```
/// use snowmint::{clock::ManualClock, sno::SnoGenerator};
///
/// // Two generators share partition 7, each with half of every 4 ms unit's sequence.
/// let clock = ManualClock::new(1_700_000_000_000);
/// let low = SnoGenerator::builder().partition(7).sequence_range(0..=32767).clock(&clock).build()?;
/// let high = SnoGenerator::builder().partition(7).sequence_range(32768..=65535).clock(&clock).build()?;
/// assert_eq!(low.mint()?.sequence(), 0);
/// assert_eq!(high.mint()?.sequence(), 32768);
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct SnoGeneratorBuilder<C = DefaultClock> {
    inner: GeneratorBuilder<C>,
    /// `None` until set: a partition has no default, as a node field has none.
    partition: Option<u16>,
    meta: u8,
}

/// A [`SnoGenerator`]'s state, to save when it stops and resume from after a restart: its
/// partition and its word's [`Snapshot`].
///
/// # Examples
///
/// ```
/// use snowmint::{clock::ManualClock, sno::SnoGenerator};
///
/// let old = SnoGenerator::builder().partition(3).clock(ManualClock::new(1_700_000_010_000)).build()?;
/// let last = old.mint()?;
/// let snapshot = old.snapshot();
///
/// // Restarted on a host whose clock is 10 s behind: the other timeline, no repeat possible.
/// let new = SnoGenerator::resume(&snapshot).clock(ManualClock::new(1_700_000_000_000)).build()?;
/// let next = new.mint()?;
/// assert_eq!((last.tick(), next.tick(), next.partition()), (0, 1, 3));
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnoSnapshot {
    /// The generator's partition.
    pub partition: u16,
    /// The state of its word: last tick, sequence, timeline, the other timeline's high-water
    /// mark and the sequence range, on [`SnoGenerator::LAYOUT`].
    pub core: Snapshot,
}

impl SnoGenerator {
    /// The layout of the generator's state word: 8 unused bits, 39 bits of time in 4 ms ticks
    /// from [`SnoId::EPOCH_MS`], the tick-tock bit, 16 bits of sequence.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{sno::{SnoGenerator, SnoId}};
    ///
    /// let layout = SnoGenerator::LAYOUT;
    /// assert_eq!((layout.time_field().bits(), layout.time_field().shift()), (39, 17));
    /// assert_eq!(layout.tick_tock_field().map(|f| f.shift()), Some(16));
    /// assert_eq!(layout.max_sequence(), 65_535);
    /// assert_eq!(layout.max_unix_ms(), SnoId::MAX_TIMESTAMP_MS);
    /// ```
    pub const LAYOUT: Layout = Layout::builder("sno", 64)
        .unused(8)
        .time(39)
        .tick_tock()
        .sequence(16)
        .tick_ms(SnoId::TICK_MS)
        .epoch_ms(SnoId::EPOCH_MS)
        .build_const();

    /// Starts configuring a generator: no partition yet (set one), metabyte 0, the whole
    /// sequence, the process-wide [`CachedClock`](crate::clock::CachedClock) and
    /// [`ClockBehind::TickTock`] with `max_ms: 1000`.
    pub fn builder() -> SnoGeneratorBuilder {
        SnoGeneratorBuilder {
            inner: Generator::builder(Self::LAYOUT).on_clock_behind(DEFAULT_POLICY),
            partition: None,
            meta: 0,
        }
    }

    /// Starts configuring a generator that continues from `snapshot`: its partition, sequence
    /// range, last minted state and high-water marks. A generator resumed on a clock behind
    /// the snapshot moves to the other timeline (or waits or fails, by policy) and never
    /// repeats an ID minted before the snapshot. See [`SnoSnapshot`] for an example.
    pub fn resume(snapshot: &SnoSnapshot) -> SnoGeneratorBuilder {
        SnoGeneratorBuilder {
            inner: Generator::resume(&snapshot.core).on_clock_behind(DEFAULT_POLICY),
            partition: Some(snapshot.partition),
            meta: 0,
        }
    }
}

/// sno's behaviour on a regression: tick-tock, and wait (here: at most a second) only when the
/// other timeline has already used the time.
const DEFAULT_POLICY: ClockBehind = ClockBehind::TickTock { max_ms: 1_000 };

impl<C> SnoGeneratorBuilder<C> {
    /// Sets the partition every ID carries; required (0 included), as a node field is:
    /// generators that all left it unset would mint the same IDs. Generators minting at the
    /// same time need distinct partitions, or one partition with disjoint sequence ranges.
    pub fn partition(mut self, partition: u16) -> Self {
        self.partition = Some(partition);
        self
    }

    /// Sets the metabyte of the IDs [`mint`](SnoGenerator::mint) and the other minting methods
    /// return (0 by default); [`mint_with_meta`](SnoGenerator::mint_with_meta) gives one per
    /// ID.
    pub fn meta(mut self, meta: u8) -> Self {
        self.meta = meta;
        self
    }

    /// Confines the generator to the sequence values in `range` (sno's `SequenceMin` and
    /// `SequenceMax`): each 4 ms unit starts at `range.start()` and holds at most
    /// `range.end() - range.start() + 1` IDs. Generators with one partition and disjoint ranges
    /// never mint the same ID. The whole sequence, `0..=65535`, by default.
    ///
    /// sno refuses pools of fewer than 4 values; snowmint accepts any non-empty range (a
    /// small pool only lowers the generator's throughput), so every range sno accepts works.
    /// Checked by [`build`](SnoGeneratorBuilder::build): an empty range is
    /// [`Error::InvalidSequenceRange`].
    pub fn sequence_range(mut self, range: RangeInclusive<u16>) -> Self {
        let range = u64::from(*range.start())..=u64::from(*range.end());
        self.inner = self.inner.sequence_range(range);
        self
    }

    /// Sets what to do when the clock reads behind the last minted time:
    /// [`ClockBehind::TickTock`] by default (sno's behaviour), or `Wait` or `Error` for IDs that
    /// strictly increase.
    pub fn on_clock_behind(mut self, policy: ClockBehind) -> Self {
        self.inner = self.inner.on_clock_behind(policy);
        self
    }

    /// Sends an [`Event`] when a thread stalls on a full 4 ms unit ([`Event::Overflow`], sno's
    /// sequence overflow notification) and when the clock goes back ([`Event::Regression`]),
    /// at most once per unit of each kind; ticks in events count 4 ms units from
    /// [`SnoId::EPOCH_MS`]. See [`GeneratorBuilder::notify`].
    pub fn notify(mut self, events: SyncSender<Event>) -> Self {
        self.inner = self.inner.notify(events);
        self
    }

    /// Uses `clock` instead of the process-wide [`CachedClock`](crate::clock::CachedClock).
    pub fn clock<D: Clock>(self, clock: D) -> SnoGeneratorBuilder<D> {
        SnoGeneratorBuilder {
            inner: self.inner.clock(clock),
            partition: self.partition,
            meta: self.meta,
        }
    }

    /// A snapshot resumed for another layout cannot hold sno IDs.
    fn check_layout(&self) -> Result<()> {
        let layout = self.inner.layout();
        if *layout == SnoGenerator::LAYOUT {
            return Ok(());
        }
        Err(Error::InvalidSnapshot {
            layout: layout.name(),
            reason: "its layout is not SnoGenerator::LAYOUT, the only one sno ids are minted on"
                .to_owned(),
        })
    }
}

impl<C: Clock> SnoGeneratorBuilder<C> {
    /// Validates the configuration and builds the generator.
    ///
    /// # Errors
    ///
    /// [`Error::NodeNotSet`] without a partition, [`Error::InvalidSequenceRange`] for an
    /// empty sequence range, and [`Error::InvalidSnapshot`] for a resumed snapshot that does
    /// not fit [`SnoGenerator::LAYOUT`].
    pub fn build(self) -> Result<SnoGenerator<C>> {
        self.check_layout()?;
        let partition = self.partition.ok_or_else(|| Error::NodeNotSet {
            layout: "sno",
            fields: vec![("partition", u64::from(u16::MAX))],
        })?;
        Ok(SnoGenerator {
            inner: self.inner.build()?,
            partition,
            meta: self.meta,
        })
    }
}

impl<C: Clock> SnoGenerator<C> {
    /// Mints the next ID, with the generator's metabyte, waiting for the next 4 ms unit if this
    /// one's sequence range is exhausted.
    ///
    /// # Errors
    ///
    /// [`Error::ClockBehind`] when the clock reads behind the last minted time and the policy
    /// does not toggle or wait that long (with tick-tock: a second regression into time the
    /// other timeline has used, more than `max_ms` behind); [`Error::TimeOverflow`],
    /// [`Error::BeforeEpoch`] or [`Error::EpochTick`] for a clock outside 2010-01-01T00:00:00.004Z
    /// to 2079-09-07T15:47:35.551Z; [`Error::LayoutExhausted`] when the last 4 ms unit is full.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{clock::ManualClock, sno::SnoGenerator};
    ///
    /// let clock = ManualClock::new(1_700_000_000_001);
    /// let generator = SnoGenerator::builder().partition(9).meta(200).clock(&clock).build()?;
    /// let id = generator.mint()?;
    /// assert_eq!(id.timestamp_ms(), 1_700_000_000_000);
    /// assert_eq!((id.tick(), id.meta(), id.partition(), id.sequence()), (0, 200, 9, 0));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint(&self) -> Result<SnoId> {
        self.mint_with_meta(self.meta)
    }

    /// Mints the next ID with metabyte `meta`, as [`mint`](Self::mint) does.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::sno::SnoGenerator;
    ///
    /// let generator = SnoGenerator::builder().partition(9).build()?;
    /// assert_eq!(generator.mint_with_meta(7)?.meta(), 7);
    /// assert_eq!(generator.mint()?.meta(), 0);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint_with_meta(&self, meta: u8) -> Result<SnoId> {
        let id = self.inner.mint()?;
        Ok(SnoId::from_word(id.to_u64(), meta, self.partition))
    }

    /// Mints the next ID, or fails if this 4 ms unit's sequence range is exhausted.
    ///
    /// # Errors
    ///
    /// [`Error::SequenceExhausted`], saying how long until the next unit, and the errors of
    /// [`mint`](Self::mint).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Error, clock::ManualClock, sno::SnoGenerator};
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = SnoGenerator::builder()
    ///     .partition(1)
    ///     .sequence_range(0..=3)
    ///     .clock(&clock)
    ///     .build()?;
    /// for _ in 0..4 {
    ///     generator.try_mint()?;
    /// }
    /// assert!(matches!(generator.try_mint(), Err(Error::SequenceExhausted { .. })));
    /// clock.advance(4);
    /// assert_eq!(generator.try_mint()?.sequence(), 0);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn try_mint(&self) -> Result<SnoId> {
        let id = self.inner.try_mint()?;
        Ok(SnoId::from_word(id.to_u64(), self.meta, self.partition))
    }

    /// Mints up to `out.len()` IDs with one compare-and-swap and writes them to the front of
    /// `out`, returning how many: all of them if the current 4 ms unit's range has room, else
    /// what it has left (at least one, waiting for the next unit if this one is full).
    /// Consecutive sequence values, strictly increasing; no allocation. An empty `out` mints
    /// nothing and returns 0.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint). Nothing is written on error.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{sno::{SnoGenerator, SnoId}};
    ///
    /// let generator = SnoGenerator::builder().partition(1).build()?;
    /// let mut buffer = [SnoId::default(); 100];
    /// let written = generator.mint_batch(&mut buffer)?;
    /// assert!((1..=100).contains(&written));
    /// assert!(buffer[..written].windows(2).all(|pair| pair[0] < pair[1]));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[inline]
    pub fn mint_batch(&self, out: &mut [SnoId]) -> Result<usize> {
        self.batch(self.meta, out, true)
    }

    /// [`mint_batch`](Self::mint_batch) with metabyte `meta`.
    ///
    /// # Errors
    ///
    /// As for [`mint`](Self::mint). Nothing is written on error.
    #[inline]
    pub fn mint_batch_with_meta(&self, meta: u8, out: &mut [SnoId]) -> Result<usize> {
        self.batch(meta, out, true)
    }

    /// [`mint_batch`](Self::mint_batch), failing with [`Error::SequenceExhausted`] instead of
    /// waiting when the current 4 ms unit is full.
    ///
    /// # Errors
    ///
    /// As for [`try_mint`](Self::try_mint).
    #[inline]
    pub fn try_mint_batch(&self, out: &mut [SnoId]) -> Result<usize> {
        self.batch(self.meta, out, false)
    }

    #[inline(always)]
    fn batch(&self, meta: u8, out: &mut [SnoId], wait: bool) -> Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let (first, count) = self.inner.reserve_states(out.len() as u64, wait)?;
        // `count <= out.len()`, and the run's sequence values stay inside the field.
        for (slot, word) in out[..count as usize].iter_mut().zip(first..) {
            *slot = SnoId::from_word(word, meta, self.partition);
        }
        Ok(count as usize)
    }
}

impl<C> SnoGenerator<C> {
    /// The partition every ID of this generator carries.
    pub fn partition(&self) -> u16 {
        self.partition
    }

    /// The metabyte of the IDs [`mint`](SnoGenerator::mint) returns.
    pub fn meta(&self) -> u8 {
        self.meta
    }

    /// The generator's clock.
    pub fn clock(&self) -> &C {
        self.inner.clock()
    }

    /// The counters of overflows, waits, regressions and tick-tock toggles so far.
    pub fn stats(&self) -> Stats {
        self.inner.stats()
    }

    /// The generator's state now, to resume from with [`SnoGenerator::resume`]: take it when
    /// minting has stopped.
    pub fn snapshot(&self) -> SnoSnapshot {
        SnoSnapshot {
            partition: self.partition,
            core: self.inner.snapshot(),
        }
    }
}

impl<C> fmt::Debug for SnoGenerator<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SnoGenerator")
            .field("partition", &self.partition)
            .field("meta", &self.meta)
            .field("core", &self.inner)
            .finish()
    }
}

#[cfg(feature = "serde")]
mod serde_impls {
    //! `SnoId` serializes as its 16-character text form, in every format.

    use std::fmt;

    use serde::de::{self, Visitor};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{SnoId, TEXT_LEN};

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
        assert_eq!((id.tick(), id.meta(), id.partition()), (1, 0x12, 0x3456));
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
