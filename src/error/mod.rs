//! The crate's one error type.

use std::fmt;
use std::io;
use std::ops::RangeInclusive;
use std::sync::Arc;
use std::time::Duration;

pub(crate) mod layout_problem;

use layout_problem::LayoutProblem;

/// Everything that can go wrong in snowmint, with the bad value and what was expected.
///
/// Messages are lowercase and name the layout, the value given and the range allowed, so they
/// can be shown to a user as they are.
///
/// # Examples
///
/// ```
/// use snowmint::{Error, Generator, Layout};
///
/// let err = Generator::builder(Layout::TWITTER).node("machine", 1024).build().unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "machine id 1024 is out of range for layout twitter (0..=1023)"
/// );
/// assert!(matches!(err, Error::NodeOutOfRange { value: 1024, .. }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A layout's definition is inconsistent (widths that do not add up, a missing field, ...).
    #[error("invalid layout {layout}: {problem}")]
    InvalidLayout {
        /// The layout's name.
        layout: &'static str,
        /// What is wrong with it, and what was expected.
        problem: LayoutProblem,
    },

    /// A layout spelled as fields ([`LayoutBuilder::from_fields`](crate::layout::LayoutBuilder::from_fields))
    /// does not parse.
    #[error("layout fields {spec:?}: {problem}")]
    InvalidLayoutFields {
        /// The spec given, at most 64 characters of it (and an ellipsis when there were more).
        spec: String,
        /// Which field is wrong and what was expected.
        problem: String,
    },

    /// No preset has this name.
    #[error("unknown layout {name:?}, expected one of {expected}")]
    UnknownLayout {
        /// The name given, at most 64 characters of it (and an ellipsis when there were more).
        name: String,
        /// The preset names, comma separated.
        expected: &'static str,
    },

    /// A preset whose epoch the user must choose was built without one.
    #[error("layout {layout} needs an epoch in Unix milliseconds, and none was given")]
    EpochRequired {
        /// The layout's name.
        layout: &'static str,
    },

    /// A preset with a fixed epoch was given another one.
    #[error("layout {layout} has the fixed epoch {epoch_ms} ms and does not take {given_ms} ms")]
    EpochFixed {
        /// The layout's name.
        layout: &'static str,
        /// Its fixed epoch, in Unix milliseconds.
        epoch_ms: u64,
        /// The epoch that was given.
        given_ms: u64,
    },

    /// A mark file could not be read or written, holds something other than a mark, or
    /// does not fit the generator it is used with.
    #[error("mark file {path}: {reason}")]
    MarkFile {
        /// The file's path, its last 256 characters (behind an ellipsis when there were more).
        path: String,
        /// What went wrong, and what was expected.
        reason: String,
        /// The I/O error behind it, if one was: also the error's
        /// [`source`](std::error::Error::source).
        #[source]
        source: Option<IoError>,
    },

    /// A [`MarkStore`](crate::mark::MarkStore) of the caller's own failed: its mark could
    /// not be kept, read or raised. Made by [`Error::mark_store`], which bounds the store's name.
    #[error("mark store {store}: {reason}")]
    MarkStore {
        /// The store's name, as its implementer gives it: at most 64 characters (and an
        /// ellipsis when there were more).
        store: String,
        /// What went wrong, in the store's words.
        reason: String,
        /// The error behind it, if one was: also the error's
        /// [`source`](std::error::Error::source).
        #[source]
        source: Option<SourceError>,
    },

    /// A node ID source ([`NodeIdSource`](crate::node_id::NodeIdSource)) has no value, or one that
    /// does not parse or does not fit the layout's node field.
    #[error("node id from {origin}: {reason}")]
    NodeIdSource {
        /// Where the value was looked for: `environment variable SNOWMINT_NODE`,
        /// `host name "web-3"`, ...
        origin: String,
        /// What is wrong, and what was expected.
        reason: String,
    },

    /// A node field (machine, worker, process, shard, ...) was given a value it cannot hold.
    #[error("{field} id {value} is out of range for layout {layout} (0..={max})")]
    NodeOutOfRange {
        /// The layout's name.
        layout: &'static str,
        /// The field's name.
        field: &'static str,
        /// The value given.
        value: u64,
        /// The largest value the field holds.
        max: u64,
    },

    /// A generator was built without a value for one of its layout's node fields. A node
    /// field never defaults to 0: two processes that both left it unset would mint the same
    /// IDs.
    #[error(
        "layout {layout} needs {} set; expected a value for each (a node field has no default: \
         processes that all left it unset would share one node id)",
        unset_fields(fields)
    )]
    NodeNotSet {
        /// The layout's name.
        layout: &'static str,
        /// The fields not set, most significant first, each with the largest value it holds.
        fields: Vec<(&'static str, u64)>,
    },

    /// A node field was given twice in one call.
    #[error("node field {field} of layout {layout} is given twice, expected once")]
    DuplicateNodeField {
        /// The layout's name.
        layout: &'static str,
        /// The field's name.
        field: &'static str,
    },

    /// A node field was named that the layout does not have.
    #[error("layout {layout} has no node field {field:?}; its node fields are: {expected}")]
    UnknownNodeField {
        /// The layout's name.
        layout: &'static str,
        /// The name given, at most 64 characters of it (and an ellipsis when there were more).
        field: String,
        /// The layout's node fields, comma separated (`none` when it has none).
        expected: String,
    },

    /// A sequence number was given that the layout's sequence field cannot hold.
    #[error("sequence {value} is out of range for layout {layout} (0..={max})")]
    SequenceOutOfRange {
        /// The layout's name.
        layout: &'static str,
        /// The value given.
        value: u64,
        /// The largest sequence the layout holds.
        max: u64,
    },

    /// A sequence range is empty or reaches past the layout's sequence field.
    #[error(
        "sequence range {range:?} for layout {layout} {problem}; \
         expected a non-empty range within 0..={max}"
    )]
    InvalidSequenceRange {
        /// The layout's name.
        layout: &'static str,
        /// The range given.
        range: RangeInclusive<u64>,
        /// What is wrong with it.
        problem: &'static str,
        /// The largest sequence the layout holds.
        max: u64,
    },

    /// Two sequence ranges of one set overlap, so their generators could mint the same ID.
    #[error(
        "sequence ranges {first:?} and {second:?} for layout {layout} overlap; expected disjoint ranges"
    )]
    SequenceRangesOverlap {
        /// The layout's name.
        layout: &'static str,
        /// One range.
        first: RangeInclusive<u64>,
        /// A range that shares a value with `first`.
        second: RangeInclusive<u64>,
    },

    /// A request for more items than can be allocated.
    #[error("{what}: {requested} items cannot be allocated")]
    TooLarge {
        /// The call that asked.
        what: &'static str,
        /// How many items it asked for.
        requested: u64,
    },

    /// A sharded generator was asked for shards it cannot have.
    #[error("invalid shards for layout {layout}: {reason}")]
    InvalidShards {
        /// The layout's name.
        layout: &'static str,
        /// What is wrong, and what was expected.
        reason: String,
    },

    /// The tick-tock policy was chosen for a layout without a tick-tock bit.
    #[error(
        "layout {layout} has no tick-tock bit, which ClockBehind::TickTock needs; \
         expected a layout built with LayoutBuilder::tick_tock"
    )]
    TickTockUnsupported {
        /// The layout's name.
        layout: &'static str,
    },

    /// A generator was built on a [`SharedWord`](crate::generator::SharedWord) that a
    /// generator of another layout, node or sequence range claimed: their states would not
    /// mean the same.
    #[error(
        "the shared word is claimed by a generator of another layout, node or sequence range \
         (its fingerprint {found:#018x}, this generator's {expected:#018x}); expected every \
         process minting from one word to build its generator alike"
    )]
    SharedWordClaimed {
        /// The fingerprint of the configuration that claimed the word.
        found: u64,
        /// This generator's.
        expected: u64,
    },

    /// A generator whose type fixes its layout was built from a builder of another layout.
    #[error(
        "the builder's layout {found} differs from the layout {expected} that the \
         generator's type fixes; expected a builder of {expected}'s LAYOUT"
    )]
    LayoutMismatch {
        /// The layout the generator's type fixes.
        expected: &'static str,
        /// The builder's layout.
        found: &'static str,
    },

    /// A snapshot does not fit its layout.
    #[error("invalid snapshot for layout {layout}: {reason}")]
    InvalidSnapshot {
        /// The layout's name.
        layout: &'static str,
        /// What is out of range, and the range expected.
        reason: String,
    },

    /// A timeline (tick-tock bit value) was given that the layout cannot hold.
    #[error(
        "timeline {value} is out of range for layout {layout} (0..={max}; 1 needs a tick-tock bit)"
    )]
    TimelineOutOfRange {
        /// The layout's name.
        layout: &'static str,
        /// The value given.
        value: u64,
        /// The largest timeline the layout holds: 1 with a tick-tock bit, else 0.
        max: u64,
    },

    /// Every sequence value of the current tick is taken (returned by the `try_` methods).
    #[error(
        "sequence exhausted for tick {tick} of layout {layout}; room again in at most {retry_after:?}"
    )]
    SequenceExhausted {
        /// The layout's name.
        layout: &'static str,
        /// The exhausted tick, counted from the layout's epoch.
        tick: u64,
        /// How long until the next tick begins, at most.
        retry_after: Duration,
    },

    /// The layout's last tick is full: no later tick exists to mint in.
    #[error(
        "every id of layout {layout} is taken: its last tick, starting at {last_ms} ms, is full \
         and no later tick exists"
    )]
    LayoutExhausted {
        /// The layout's name.
        layout: &'static str,
        /// The start of the layout's last tick, in Unix milliseconds.
        last_ms: u64,
    },

    /// The clock reads behind the last minted time (by more than borrowing explains), and the
    /// generator's policy says not to wait, the clock is further behind than the policy waits
    /// out, or the wait ran out.
    #[error(
        "clock reads {behind_ms} ms behind the earliest time the generator of layout {layout} \
         can mint at; it waits at most {max_wait_ms} ms for the clock to catch up"
    )]
    ClockBehind {
        /// The layout's name.
        layout: &'static str,
        /// How far the clock reads behind the earliest time the generator can mint at, in
        /// milliseconds, as [`ClockBehind`](crate::ClockBehind) measures it: without borrowing
        /// and with room in the last minted tick, how far behind that tick's start.
        behind_ms: u64,
        /// The longest the generator's policy waits, in milliseconds (0 for `Error`).
        max_wait_ms: u64,
    },

    /// A time is after the last one the layout's time field can represent.
    #[error(
        "time {unix_ms} ms is past the end of layout {layout}, whose last tick starts at {max_unix_ms} ms"
    )]
    TimeOverflow {
        /// The layout's name.
        layout: &'static str,
        /// The time, in Unix milliseconds.
        unix_ms: u64,
        /// The start of the layout's last tick, in Unix milliseconds.
        max_unix_ms: u64,
    },

    /// A time is before the layout's epoch.
    #[error("time {unix_ms} ms is before the epoch {epoch_ms} ms of layout {layout}")]
    BeforeEpoch {
        /// The layout's name.
        layout: &'static str,
        /// The time, in Unix milliseconds.
        unix_ms: u64,
        /// The layout's epoch, in Unix milliseconds.
        epoch_ms: u64,
    },

    /// A generator's clock reads within the epoch's own tick, which generators leave unused.
    #[error(
        "time {unix_ms} ms is in the first tick of layout {layout}, which generators leave \
         unused; they mint from {first_ms} ms on"
    )]
    EpochTick {
        /// The layout's name.
        layout: &'static str,
        /// The time, in Unix milliseconds.
        unix_ms: u64,
        /// The first time a generator mints at, in Unix milliseconds (the epoch plus one tick).
        first_ms: u64,
    },

    /// A generator built in one process was used in its child after `fork()`: the child
    /// would mint the IDs its parent mints.
    #[error(
        "{generator} was built in process {built_in} and used in its forked child {used_in}, \
         which would repeat the parent's ids; build a new generator in the child with a node id \
         of its own (an etcd lease, or a node value no other process uses), or on the parent's \
         SharedWord if it is in memory the fork shared"
    )]
    Forked {
        /// The type the caller holds: `Generator`, `LocalGenerator`, `ShardedGenerator`,
        /// `MarkedGenerator` (over a file or a lease, `LeasedGenerator`), `SnoGenerator`, and
        /// `Uuid7Generator` or `UlidGenerator` on every engine; `MarkFile` for a mark file of
        /// the parent's used directly; the name a store gives its
        /// [`ForkCheck`](crate::mark::ForkCheck) (`EtcdLease` for `snowmint-etcd`'s lease).
        generator: &'static str,
        /// The process ID the generator was built in.
        built_in: u32,
        /// The process ID of the child that used it.
        used_in: u32,
    },

    /// No text form of IDs has this name.
    #[error("unknown encoding {name:?}, expected one of {expected}")]
    UnknownEncoding {
        /// The name given, at most 64 characters of it (and an ellipsis when there were more).
        name: String,
        /// The encoding names, comma separated.
        expected: &'static str,
    },

    /// A string is not an ID in the text form it was read as.
    #[error("invalid {encoding} id {input:?}: {reason}")]
    ParseId {
        /// The string given (its first 64 characters and an ellipsis, when longer).
        input: String,
        /// The text form it was read as: `decimal`, `base36`, `base32`, `base62`, `hex`, `sno`,
        /// `uuidv7`, `ulid`.
        encoding: &'static str,
        /// What is wrong with it.
        reason: ParseIdReason,
    },

    /// A string is not an RFC 3339 time (see [`Rfc3339`](crate::clock::Rfc3339)).
    #[error("invalid RFC 3339 time {input:?}: {problem}")]
    ParseTime {
        /// The string given (its first 64 characters and an ellipsis, when longer).
        input: String,
        /// What is wrong with it, and where: one line, ending with the form expected where
        /// the text does not follow it.
        problem: String,
    },

    /// The process-wide 128-bit generators (`Uuid7::now`, `Ulid::now`) serve processes whose
    /// fork count is at most 63: one more for each `fork()` of the lineage since snowmint's fork
    /// handlers were registered (and one more where a child registers its own); this process's
    /// count is higher.
    #[error(
        "this process's fork count is {depth}, past the {max} the process-wide 128-bit \
         generators serve; build a Uuid7Generator or UlidGenerator of its own in this process"
    )]
    ForkDepth {
        /// The process's fork count (about how many forks deep it is).
        depth: u64,
        /// The deepest served.
        max: u64,
    },

    /// A masking key is not 32 hexadecimal digits, or none could be drawn.
    #[error("invalid masking key: {problem}")]
    InvalidMaskKey {
        /// What is wrong (the key itself is never repeated).
        problem: String,
    },

    /// A mask width outside what a `mask::Masker` takes.
    #[error("mask width of {bits} bits is out of range, expected 32 to 64 bits")]
    InvalidMaskWidth {
        /// The width asked for.
        bits: u32,
    },

    /// A value given to a `mask::Masker` is not below 2^width: an ID too
    /// large to mask into the width, or a masked value no ID masks to.
    #[error(
        "{what} {value} is outside the mask's {bits}-bit width, expected a value below 2^{bits}"
    )]
    OutsideMaskWidth {
        /// `"id"` or `"masked value"`.
        what: &'static str,
        /// The value.
        value: u64,
        /// The mask's width.
        bits: u32,
    },

    /// A masked value unmasks to an ID above the largest one expected: it was never the mask
    /// of an ID (a guessed or corrupted value), as `mask::Masker::unmask_within` checks.
    #[error(
        "masked value {masked} is not a masked id: it unmasks above {max_id}, the largest id expected"
    )]
    NotMaskedId {
        /// The masked value.
        masked: u64,
        /// The largest ID expected.
        max_id: u64,
    },

    /// An ID has bits set that its layout leaves unused (above its width, or in an unused field).
    #[error("id {id} does not fit layout {layout}: bits {mask:#x} must be zero")]
    IdOutOfLayout {
        /// The ID.
        id: u64,
        /// The layout's name.
        layout: &'static str,
        /// The bits the layout requires to be zero.
        mask: u64,
    },

    /// A negative `i64` cannot be an ID.
    #[error("id {value} is negative; ids are 0..=9223372036854775807 as i64")]
    NegativeId {
        /// The value given.
        value: i64,
    },

    /// An ID above `i64::MAX` has no `i64` form.
    #[error(
        "id {id} does not fit in an i64 or a signed BIGINT column (at most \
         9223372036854775807); store it as NUMERIC(20) or fixed-width text"
    )]
    IdTooLargeForI64 {
        /// The ID.
        id: u64,
    },

    /// The operating system's random source failed to give a 128-bit ID generator its key
    /// ([`id128`](crate::id128)).
    #[error(
        "the operating system's random source failed ({source}); expected 16 random bytes for \
         a 128-bit id generator's key"
    )]
    RandomSource {
        /// What the random source reported: also the error's
        /// [`source`](std::error::Error::source).
        #[source]
        source: IoError,
    },
}

/// Why a string is not an ID in a text form.
///
/// # Examples
///
/// ```
/// use snowmint::{Error, Id, error::ParseIdReason};
///
/// let Err(Error::ParseId { reason, .. }) = "12a4".parse::<Id>() else { panic!() };
/// assert_eq!(reason, ParseIdReason::InvalidDigit { found: 'a', position: 2, expected: "a decimal digit" });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseIdReason {
    /// The string is empty.
    #[error("empty string, expected {expected}")]
    Empty {
        /// What the form expects, e.g. "1 to 20 decimal digits".
        expected: &'static str,
    },
    /// A character is not a digit of the form.
    #[error("{found:?} at position {position} is not {expected}")]
    InvalidDigit {
        /// The character found.
        found: char,
        /// Its byte offset in the string.
        position: usize,
        /// What the form expects there, e.g. "a decimal digit".
        expected: &'static str,
    },
    /// The string has more or fewer characters than the form allows.
    #[error("{length} characters, expected {expected}")]
    WrongLength {
        /// The number of characters found.
        length: usize,
        /// What the form expects, e.g. "exactly 13".
        expected: &'static str,
    },
    /// Bytes read as a 128-bit ID (a database's `uuid` or blob) are not 16 of them.
    #[error("{length} bytes, expected {expected}")]
    WrongByteLength {
        /// The number of bytes found.
        length: usize,
        /// The number of bytes the ID has: 16.
        expected: usize,
    },
    /// The value is larger than the largest ID of the form.
    #[error("larger than the largest id, {max}")]
    Overflow {
        /// The largest value, written in the form.
        max: &'static str,
    },
    /// A UUID's version or variant bits are not those of a UUIDv7
    /// ([`Uuid7`](crate::id128::Uuid7)).
    #[error(
        "version {version} and variant {variant:#04b}, expected version 7 and variant 0b10 \
         (a uuidv7)"
    )]
    NotUuid7 {
        /// The version found: the 4 bits after the 48-bit timestamp.
        version: u8,
        /// The variant found: the 2 bits at the start of the ninth byte.
        variant: u8,
    },
    /// A UUID's version or variant bits are not those of a version 4 UUID, which a masked
    /// UUIDv7 (`mask::MaskedUuid`) is.
    #[error(
        "version {version} and variant {variant:#04b}, expected version 4 and variant 0b10 \
         (a masked uuidv7)"
    )]
    NotUuid4 {
        /// The version found: the 4 bits after the first 48.
        version: u8,
        /// The variant found: the 2 bits at the start of the ninth byte.
        variant: u8,
    },
}

/// `Result` with snowmint's [`Error`] as the default error type.
///
/// # Examples
///
/// ```
/// use snowmint::{Id, Result};
///
/// fn parse(text: &str) -> Result<Id> {
///     text.parse()
/// }
///
/// assert_eq!(parse("42")?.to_u64(), 42);
/// assert!(parse("forty-two").is_err());
/// # Ok::<(), snowmint::Error>(())
/// ```
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// An I/O error kept as the source of an [`Error`]: shared, so the error stays `Clone`, and
/// compared by kind, so it stays `PartialEq`.
///
/// # Examples
///
/// ```
/// use snowmint::error::IoError;
/// use std::io;
///
/// let error = IoError::from(io::Error::from(io::ErrorKind::NotFound));
/// assert_eq!(error.clone(), error); // `Clone` and `PartialEq`, unlike `io::Error`
/// assert_eq!(error.io().kind(), io::ErrorKind::NotFound);
/// ```
#[derive(Debug, Clone)]
pub struct IoError(Arc<io::Error>);

impl IoError {
    /// The I/O error.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::error::IoError;
    /// use std::io;
    ///
    /// let error = IoError::from(io::Error::new(io::ErrorKind::PermissionDenied, "read-only"));
    /// assert_eq!(error.io().kind(), io::ErrorKind::PermissionDenied);
    /// ```
    pub fn io(&self) -> &io::Error {
        &self.0
    }
}

impl From<io::Error> for IoError {
    fn from(error: io::Error) -> Self {
        IoError(Arc::new(error))
    }
}

impl PartialEq for IoError {
    fn eq(&self, other: &Self) -> bool {
        self.0.kind() == other.0.kind()
    }
}

impl Eq for IoError {}

impl fmt::Display for IoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for IoError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// Any error kept as the source of an [`Error::MarkStore`]: shared, so the error stays `Clone`,
/// and compared by its message, so it stays `PartialEq`.
///
/// # Examples
///
/// ```
/// use snowmint::error::SourceError;
/// use std::io;
///
/// let error = SourceError::from(Box::new(io::Error::other("disk full")) as Box<_>);
/// assert_eq!(error.clone(), error); // `Clone` and `PartialEq`
/// assert_eq!(error.to_string(), "disk full");
/// assert!(error.get().downcast_ref::<io::Error>().is_some());
/// ```
#[derive(Debug, Clone)]
pub struct SourceError(Arc<dyn std::error::Error + Send + Sync>);

impl SourceError {
    /// The error.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::error::SourceError;
    /// use std::io;
    ///
    /// let error = SourceError::from(Box::new(io::Error::other("disk full")) as Box<_>);
    /// assert_eq!(error.get().to_string(), "disk full");
    /// ```
    pub fn get(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.0
    }
}

impl From<Box<dyn std::error::Error + Send + Sync>> for SourceError {
    fn from(error: Box<dyn std::error::Error + Send + Sync>) -> Self {
        SourceError(Arc::from(error))
    }
}

impl PartialEq for SourceError {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.to_string() == other.0.to_string()
    }
}

impl Eq for SourceError {}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for SourceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl Error {
    /// A [`MarkStore`](crate::mark::MarkStore)'s own failure, [`Error::MarkStore`]: `store`
    /// names the store (its first 64 characters are kept), `reason` says what went wrong, and
    /// `source` is the error behind it, if one was.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Error;
    /// use std::io;
    ///
    /// let err = Error::mark_store("redis", "cannot raise the mark", Some(io::Error::other("timed out").into()));
    /// assert_eq!(err.to_string(), "mark store redis: cannot raise the mark");
    /// assert_eq!(std::error::Error::source(&err).unwrap().to_string(), "timed out");
    /// assert!(matches!(Error::mark_store("memory", "past the mark", None), Error::MarkStore { .. }));
    /// ```
    pub fn mark_store(
        store: &str,
        reason: impl Into<String>,
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Error {
        Error::MarkStore {
            store: bounded(store),
            reason: reason.into(),
            source: source.map(SourceError::from),
        }
    }

    /// Whether the same call can succeed later without any change by the caller: a full tick
    /// ([`SequenceExhausted`](Error::SequenceExhausted)), a clock behind the last minted time
    /// ([`ClockBehind`](Error::ClockBehind)). Configuration errors, bad input and an
    /// exhausted layout are not retryable; whether a store's own failure
    /// ([`MarkStore`](Error::MarkStore)) is, its source says (`snowmint-etcd`'s errors have an
    /// `is_retryable` of their own).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::clock::ManualClock;
    /// use snowmint::{Generator, Layout};
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = Generator::builder(Layout::TWITTER).node("machine", 1).clock(&clock).build()?;
    /// let err = loop {
    ///     if let Err(err) = generator.try_mint() {
    ///         break err;
    ///     }
    /// };
    /// assert!(err.is_retryable());
    /// assert!(err.retry_after().unwrap() <= std::time::Duration::from_millis(1));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Error::SequenceExhausted { .. } | Error::ClockBehind { .. }
        )
    }

    /// How long to wait before retrying, when the error says: until the next tick for
    /// [`SequenceExhausted`](Error::SequenceExhausted), and until the clock reaches the
    /// earliest time the generator can mint at for [`ClockBehind`](Error::ClockBehind). `None`
    /// for the other errors, retryable or not.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{ClockBehind, Generator, Id, Layout, clock::ManualClock};
    /// use std::time::Duration;
    ///
    /// let clock = ManualClock::new(1_700_000_000_000);
    /// let generator = Generator::builder(Layout::TWITTER)
    ///     .node("machine", 1)
    ///     .clock(&clock)
    ///     .on_clock_behind(ClockBehind::Error)
    ///     .build()?;
    /// generator.mint()?;
    /// clock.set(1_699_999_999_990);
    /// assert_eq!(generator.mint().unwrap_err().retry_after(), Some(Duration::from_millis(10)));
    /// assert_eq!("x".parse::<Id>().unwrap_err().retry_after(), None);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Error::SequenceExhausted { retry_after, .. } => Some(*retry_after),
            Error::ClockBehind { behind_ms, .. } => Some(Duration::from_millis(*behind_ms)),
            _ => None,
        }
    }
}

/// How many characters of a user's input an error repeats.
const ECHO_CHARS: usize = 64;

/// How many characters of a file's path an error repeats: enough for the paths servers keep
/// their files under, and still one bounded line.
const PATH_ECHO_CHARS: usize = 256;

/// `input` as snowmint's errors repeat it: at most 64 characters, and an ellipsis when there
/// were more, so an error about untrusted input stays one bounded line. For the errors of
/// crates built on snowmint (its command-line tool, its etcd lease, a store of your own) to
/// echo input the same way.
///
/// # Examples
///
/// ```
/// use snowmint::error::bounded;
///
/// assert_eq!(bounded("node-7"), "node-7");
/// let long = bounded(&"é".repeat(100));
/// assert_eq!(long.chars().count(), 65);
/// assert!(long.ends_with('…'));
/// ```
pub fn bounded(input: &str) -> String {
    match input.char_indices().nth(ECHO_CHARS) {
        Some((end, _)) => format!("{}…", &input[..end]),
        None => input.to_owned(),
    }
}

/// `path` as an error repeats it: at most [`PATH_ECHO_CHARS`] characters, its end (the file's
/// name) kept behind an ellipsis when there were more.
pub(crate) fn bounded_path(path: &std::path::Path) -> String {
    let text = path.display().to_string();
    let chars = text.chars().count();
    match text
        .char_indices()
        .nth(chars.saturating_sub(PATH_ECHO_CHARS - 1))
    {
        Some((start, _)) if chars > PATH_ECHO_CHARS => format!("…{}", &text[start..]),
        _ => text,
    }
}

/// The fields of [`Error::NodeNotSet`] as its message lists them: `worker (0..=31) and process
/// (0..=31)`.
fn unset_fields(fields: &[(&'static str, u64)]) -> String {
    let each: Vec<String> = fields
        .iter()
        .map(|(name, max)| format!("node field {name} (0..={max})"))
        .collect();
    match each.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => "every node field".to_owned(),
    }
}
