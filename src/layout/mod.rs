//! Bit layouts: the width and order of each field, the tick length and the epoch.
//!
//! A [`Layout`] is plain data, checked once when it is built: by `const fn` at compile time for
//! the presets and any layout written as a constant ([`LayoutBuilder::build_const`]), by
//! [`LayoutBuilder::build`] with an [`Error`] at run time.

use std::fmt;
use std::ops::RangeInclusive;

use crate::error::{Error, Result, bounded};
use crate::id::Id;

mod parts;

pub use crate::error::LayoutProblem;
pub use parts::Parts;

/// The most fields a layout can have, counting unused, time, node and sequence fields.
pub(crate) const MAX_FIELDS: usize = 8;

/// The names [`Layout::preset`] accepts, in the order of the README's table.
pub const PRESET_NAMES: &str =
    "twitter, discord, instagram, mastodon, sonyflake, nanoflake, snowflake-si, osmium";

/// `Number.MAX_SAFE_INTEGER`, 2^53 − 1: the largest integer below which every integer is
/// exactly a JavaScript number (an IEEE 754 double).
pub const JS_MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// What a field of a layout holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldKind {
    /// Bits that are always zero (Twitter's sign bit).
    Unused,
    /// Ticks since the layout's epoch.
    Time,
    /// A node identity fixed per generator: machine, worker, process, shard, generator.
    Node,
    /// One bit between the time and the sequence that tells two timelines apart: a
    /// generator with [`ClockBehind::TickTock`](crate::ClockBehind::TickTock) toggles it when
    /// its clock goes back, so it can keep minting at the earlier time without repeating an ID
    /// (sno's tick-tock bit).
    TickTock,
    /// The per-tick counter.
    Sequence,
}

/// One field of a [`Layout`]: its kind, name, width and position.
///
/// # Examples
///
/// ```
/// use snowmint::{Layout, layout::FieldKind};
///
/// let machine = Layout::TWITTER.node_field("machine").unwrap();
/// assert_eq!(machine.kind(), FieldKind::Node);
/// assert_eq!((machine.bits(), machine.shift(), machine.max()), (10, 12, 1023));
/// assert_eq!(machine.get(1_541_815_603_606_036_480), 378);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Field {
    kind: FieldKind,
    name: &'static str,
    bits: u8,
    shift: u8,
}

impl Field {
    const EMPTY: Field = Field {
        kind: FieldKind::Unused,
        name: "",
        bits: 0,
        shift: 0,
    };

    /// What the field holds.
    pub const fn kind(&self) -> FieldKind {
        self.kind
    }

    /// The field's name: `unused`, `time`, `sequence`, or the node field's own name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The field's width in bits.
    pub const fn bits(&self) -> u32 {
        self.bits as u32
    }

    /// How far the field is shifted left in an ID (the position of its lowest bit).
    pub const fn shift(&self) -> u32 {
        self.shift as u32
    }

    /// The largest value the field holds.
    pub const fn max(&self) -> u64 {
        low_bits(self.bits as u32)
    }

    /// The field's bits in ID coordinates.
    pub const fn mask(&self) -> u64 {
        self.max() << self.shift
    }

    /// The field's value in `id`.
    pub const fn get(&self, id: u64) -> u64 {
        (id >> self.shift) & self.max()
    }
}

/// A value with the lowest `bits` bits set (`bits` at most 64).
const fn low_bits(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// The width and order of an ID's fields, its tick length and its epoch.
///
/// Fields are listed most significant first. A layout has exactly one time field, exactly one
/// sequence field below it, any node fields, and unused bits where the format leaves some; their
/// widths add up to the layout's width (64 for most formats, 53 for Snowflake-SI).
///
/// # Examples
///
/// ```
/// use snowmint::Layout;
///
/// let twitter = Layout::TWITTER;
/// assert_eq!(twitter.time_field().bits(), 41);
/// assert_eq!(twitter.node_field("machine").unwrap().max(), 1023);
/// assert_eq!(twitter.max_sequence(), 4095);
///
/// // A custom layout checked at compile time: 41 time bits, no node, 22 sequence bits.
/// const HOT: Layout = Layout::builder("hot", 63)
///     .time(41)
///     .sequence(22)
///     .epoch_ms(1_700_000_000_000)
///     .build_const();
/// assert_eq!(HOT.max_sequence(), (1 << 22) - 1);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
    name: &'static str,
    width: u8,
    len: u8,
    time: u8,
    sequence: u8,
    tick_tock: Option<u8>,
    fields: [Field; MAX_FIELDS],
    tick_ms: u64,
    epoch_ms: u64,
}

/// Builds a [`Layout`] field by field, most significant first.
///
/// Every method is a `const fn`, so a layout can be a constant checked at compile time with
/// [`build_const`](Self::build_const); [`build`](Self::build) checks it at run time instead.
///
/// # Examples
///
/// ```
/// use snowmint::{Layout, layout::FieldKind};
///
/// // sno-like timing: 4 ms ticks from 2010-01-01.
/// let layout = Layout::builder("events", 64)
///     .time(40)
///     .node("partition", 8)
///     .sequence(16)
///     .tick_ms(4)
///     .epoch_ms(1_262_304_000_000)
///     .build()?;
/// let kinds: Vec<FieldKind> = layout.fields().iter().map(|f| f.kind()).collect();
/// assert_eq!(kinds, [FieldKind::Time, FieldKind::Node, FieldKind::Sequence]);
/// assert_eq!(layout.node_field("partition").unwrap().shift(), 16);
/// # Ok::<(), snowmint::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
#[must_use]
pub struct LayoutBuilder {
    name: &'static str,
    width: u8,
    len: usize,
    /// Fields pushed, counting any past `MAX_FIELDS`.
    given: usize,
    fields: [Field; MAX_FIELDS],
    tick_ms: u64,
    epoch_ms: u64,
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl LayoutBuilder {
    /// Starts a layout called `name`, `width` bits wide, with a 1 ms tick and the Unix epoch.
    pub const fn new(name: &'static str, width: u8) -> Self {
        LayoutBuilder {
            name,
            width,
            len: 0,
            given: 0,
            fields: [Field::EMPTY; MAX_FIELDS],
            tick_ms: 1,
            epoch_ms: 0,
        }
    }

    const fn push(mut self, kind: FieldKind, name: &'static str, bits: u8) -> Self {
        self.given += 1;
        if self.len < MAX_FIELDS {
            self.fields[self.len] = Field {
                kind,
                name,
                bits,
                shift: 0,
            };
            self.len += 1;
        }
        self
    }

    /// Adds `bits` bits that are always zero.
    pub const fn unused(self, bits: u8) -> Self {
        self.push(FieldKind::Unused, "unused", bits)
    }

    /// Adds the time field: `bits` bits of ticks since the epoch.
    pub const fn time(self, bits: u8) -> Self {
        self.push(FieldKind::Time, "time", bits)
    }

    /// Adds a node field called `name` (`machine`, `worker`, `process`, `shard`, ...).
    pub const fn node(self, name: &'static str, bits: u8) -> Self {
        self.push(FieldKind::Node, name, bits)
    }

    /// Adds a tick-tock bit (named `tick`), which must sit below the time field and above the
    /// sequence field; see [`FieldKind::TickTock`].
    pub const fn tick_tock(self) -> Self {
        self.push(FieldKind::TickTock, "tick", 1)
    }

    /// Adds the sequence field: `bits` bits of per-tick counter.
    pub const fn sequence(self, bits: u8) -> Self {
        self.push(FieldKind::Sequence, "sequence", bits)
    }

    /// Sets the tick length in milliseconds (default 1).
    pub const fn tick_ms(mut self, tick_ms: u64) -> Self {
        self.tick_ms = tick_ms;
        self
    }

    /// Sets the epoch in Unix milliseconds (default 0, the Unix epoch).
    pub const fn epoch_ms(mut self, epoch_ms: u64) -> Self {
        self.epoch_ms = epoch_ms;
        self
    }

    const fn check(self) -> core::result::Result<Layout, LayoutProblem> {
        if self.width == 0 || self.width > 64 {
            return Err(LayoutProblem::Width(self.width));
        }
        if self.given > MAX_FIELDS {
            return Err(LayoutProblem::TooManyFields {
                given: self.given,
                max: MAX_FIELDS,
            });
        }
        let mut fields = self.fields;
        let (mut sum, mut times, mut sequences) = (0u32, 0u32, 0u32);
        let (mut time, mut sequence) = (0u8, 0u8);
        let (mut tick_tocks, mut tick_tock) = (0u32, 0u8);
        let mut i = 0;
        while i < self.len {
            let field = fields[i];
            if field.bits == 0 {
                return Err(LayoutProblem::ZeroWidth(field.name));
            }
            if matches!(field.kind, FieldKind::Node) {
                if field.name.is_empty()
                    || str_eq(field.name, "unused")
                    || str_eq(field.name, "time")
                    || str_eq(field.name, "sequence")
                    || str_eq(field.name, "tick")
                {
                    return Err(LayoutProblem::ReservedName(field.name));
                }
                let mut j = 0;
                while j < i {
                    if matches!(fields[j].kind, FieldKind::Node)
                        && str_eq(fields[j].name, field.name)
                    {
                        return Err(LayoutProblem::DuplicateName(field.name));
                    }
                    j += 1;
                }
            }
            match field.kind {
                FieldKind::Time => {
                    times += 1;
                    time = i as u8;
                }
                FieldKind::Sequence => {
                    sequences += 1;
                    sequence = i as u8;
                }
                FieldKind::TickTock => {
                    tick_tocks += 1;
                    tick_tock = i as u8;
                }
                FieldKind::Unused | FieldKind::Node => {}
            }
            sum += field.bits as u32;
            i += 1;
        }
        if sum != self.width as u32 {
            return Err(LayoutProblem::WidthMismatch {
                sum,
                width: self.width,
            });
        }
        if times != 1 {
            return Err(LayoutProblem::TimeFields(times));
        }
        if sequences != 1 {
            return Err(LayoutProblem::SequenceFields(sequences));
        }
        if sequence < time {
            return Err(LayoutProblem::SequenceAboveTime);
        }
        let has_tick_tock = tick_tocks == 1;
        if tick_tocks > 1
            || has_tick_tock
                && (tick_tock < time
                    || tick_tock > sequence
                    || fields[tick_tock as usize].bits != 1)
        {
            return Err(LayoutProblem::TickTockPlacement);
        }
        if self.tick_ms == 0 {
            return Err(LayoutProblem::ZeroTick);
        }
        let time_bits = fields[time as usize].bits;
        let end = match low_bits(time_bits as u32).checked_mul(self.tick_ms) {
            Some(span) => span.checked_add(self.epoch_ms),
            None => None,
        };
        if end.is_none() {
            return Err(LayoutProblem::EndPastU64 {
                time_bits,
                tick_ms: self.tick_ms,
                epoch_ms: self.epoch_ms,
            });
        }
        // Place the fields, most significant first.
        let mut top = self.width;
        let mut i = 0;
        while i < self.len {
            top -= fields[i].bits;
            fields[i].shift = top;
            i += 1;
        }
        Ok(Layout {
            name: self.name,
            width: self.width,
            len: self.len as u8,
            time,
            sequence,
            tick_tock: if has_tick_tock { Some(tick_tock) } else { None },
            fields,
            tick_ms: self.tick_ms,
            epoch_ms: self.epoch_ms,
        })
    }

    /// Checks the layout and returns it.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidLayout`] when the widths do not add up to the layout's width, when there
    /// is not exactly one time and one sequence field, when the sequence field is above the time
    /// field, when a field has zero bits or a name used twice, when the tick is 0, or when the
    /// last representable time passes `u64::MAX` milliseconds.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let err = Layout::builder("short", 64).time(41).sequence(12).build().unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "invalid layout short: field widths add up to 53 bits, expected 64"
    /// );
    /// ```
    pub fn build(self) -> Result<Layout> {
        self.check().map_err(|problem| Error::InvalidLayout {
            layout: self.name,
            problem,
        })
    }

    /// Checks the layout in a `const` context: an invalid constant layout does not compile.
    ///
    /// # Panics
    ///
    /// On any problem [`build`](Self::build) reports; in a `const` item that panic is a compile
    /// error.
    ///
    /// ```compile_fail
    /// use snowmint::Layout;
    /// // 41 + 10 + 12 = 63 bits in a 64-bit layout: rejected when compiling.
    /// const BAD: Layout = Layout::builder("bad", 64).time(41).node("machine", 10).sequence(12).build_const();
    /// ```
    pub const fn build_const(self) -> Layout {
        match self.check() {
            Ok(layout) => layout,
            Err(problem) => panic!("{}", problem.summary()),
        }
    }
}

impl Layout {
    /// The most fields a layout can have, counting unused, time, node and sequence fields.
    pub const MAX_FIELDS: usize = MAX_FIELDS;

    /// Twitter: 1 unused sign bit, 41 time, 10 machine, 12 sequence; 1 ms; epoch 1288834974657.
    pub const TWITTER: Layout = Layout::builder("twitter", 64)
        .unused(1)
        .time(41)
        .node("machine", 10)
        .sequence(12)
        .epoch_ms(1_288_834_974_657)
        .build_const();

    /// Discord: 42 time, 5 worker, 5 process, 12 sequence; 1 ms; epoch 1420070400000 (2015).
    pub const DISCORD: Layout = Layout::builder("discord", 64)
        .time(42)
        .node("worker", 5)
        .node("process", 5)
        .sequence(12)
        .epoch_ms(1_420_070_400_000)
        .build_const();

    /// Instagram: 41 time, 13 shard, 10 sequence; 1 ms; epoch 1293840000000 (2011).
    pub const INSTAGRAM: Layout = Layout::builder("instagram", 64)
        .time(41)
        .node("shard", 13)
        .sequence(10)
        .epoch_ms(1_293_840_000_000)
        .build_const();

    /// Mastodon: 48 time, 16 sequence; 1 ms; the Unix epoch.
    pub const MASTODON: Layout = Layout::builder("mastodon", 64)
        .time(48)
        .sequence(16)
        .epoch_ms(0)
        .build_const();

    /// Sonyflake: 1 unused, 39 time, 8 sequence, 16 machine; 10 ms; epoch 1409529600000 (2014-09-01).
    pub const SONYFLAKE: Layout = Layout::builder("sonyflake", 64)
        .unused(1)
        .time(39)
        .sequence(8)
        .node("machine", 16)
        .tick_ms(10)
        .epoch_ms(1_409_529_600_000)
        .build_const();

    /// Snowflake-SI with its default epoch: 53 bits, JavaScript-safe: 40 time, 5 machine,
    /// 8 sequence; 1 ms; epoch 1577836800000 (2020). Use [`with_epoch_ms`](Self::with_epoch_ms)
    /// for another epoch.
    pub const SNOWFLAKE_SI: Layout = Layout::builder("snowflake-si", 53)
        .time(40)
        .node("machine", 5)
        .sequence(8)
        .epoch_ms(1_577_836_800_000)
        .build_const();

    /// The chat protocol's layout with its default epoch: 42 time, 5 worker, 5 process,
    /// 12 sequence, all 64 bits unsigned; 1 ms; epoch 1640995200000 (2022).
    pub const OSMIUM: Layout = Layout::builder("osmium", 64)
        .time(42)
        .node("worker", 5)
        .node("process", 5)
        .sequence(12)
        .epoch_ms(1_640_995_200_000)
        .build_const();

    /// Starts a custom layout; see [`LayoutBuilder`].
    pub const fn builder(name: &'static str, width: u8) -> LayoutBuilder {
        LayoutBuilder::new(name, width)
    }

    /// Nanoflake: 1 unused, 41 time, 10 generator, 12 sequence; 1 ms; the epoch the application
    /// chooses.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidLayout`] when the epoch is so late that the last representable time
    /// passes `u64::MAX` milliseconds.
    pub fn nanoflake(epoch_ms: u64) -> Result<Layout> {
        Layout::builder("nanoflake", 64)
            .unused(1)
            .time(41)
            .node("generator", 10)
            .sequence(12)
            .epoch_ms(epoch_ms)
            .build()
    }

    /// A preset by name, with the epoch rules of the README's table.
    ///
    /// `twitter`, `discord`, `instagram`, `mastodon` and `sonyflake` have fixed epochs and take
    /// none; `nanoflake` needs one; `snowflake-si` and `osmium` take one or use their default.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownLayout`] for a name not in [`PRESET_NAMES`], [`Error::EpochFixed`] for an
    /// epoch given to a fixed-epoch preset, [`Error::EpochRequired`] for `nanoflake` without one.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::preset("discord", None)?, Layout::DISCORD);
    /// assert_eq!(Layout::preset("osmium", Some(0))?.epoch_ms(), 0);
    /// assert!(Layout::preset("nanoflake", None).is_err());
    /// assert!(Layout::preset("twitter", Some(0)).is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn preset(name: &str, epoch_ms: Option<u64>) -> Result<Layout> {
        let fixed = match name {
            "twitter" => Layout::TWITTER,
            "discord" => Layout::DISCORD,
            "instagram" => Layout::INSTAGRAM,
            "mastodon" => Layout::MASTODON,
            "sonyflake" => Layout::SONYFLAKE,
            "snowflake-si" => return Layout::SNOWFLAKE_SI.with_epoch_or_default(epoch_ms),
            "osmium" => return Layout::OSMIUM.with_epoch_or_default(epoch_ms),
            "nanoflake" => {
                let epoch_ms = epoch_ms.ok_or(Error::EpochRequired {
                    layout: "nanoflake",
                })?;
                return Layout::nanoflake(epoch_ms);
            }
            _ => {
                return Err(Error::UnknownLayout {
                    name: bounded(name),
                    expected: PRESET_NAMES,
                });
            }
        };
        match epoch_ms {
            Some(given_ms) if given_ms != fixed.epoch_ms => Err(Error::EpochFixed {
                layout: fixed.name,
                epoch_ms: fixed.epoch_ms,
                given_ms,
            }),
            _ => Ok(fixed),
        }
    }

    fn with_epoch_or_default(self, epoch_ms: Option<u64>) -> Result<Layout> {
        match epoch_ms {
            Some(epoch_ms) => self.with_epoch_ms(epoch_ms),
            None => Ok(self),
        }
    }

    /// The same layout with another epoch.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let si = Layout::SNOWFLAKE_SI.with_epoch_ms(1_700_000_000_000)?;
    /// assert_eq!(si.epoch_ms(), 1_700_000_000_000);
    /// assert_eq!(si.fields(), Layout::SNOWFLAKE_SI.fields());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::InvalidLayout`] when the last representable time would pass `u64::MAX` ms.
    pub fn with_epoch_ms(self, epoch_ms: u64) -> Result<Layout> {
        let mut builder = LayoutBuilder::new(self.name, self.width).tick_ms(self.tick_ms);
        builder.fields = self.fields;
        builder.len = self.len as usize;
        builder.given = builder.len;
        builder.epoch_ms(epoch_ms).build()
    }

    /// The layout's name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The layout's width in bits: every ID is below `2^width`.
    pub const fn width(&self) -> u32 {
        self.width as u32
    }

    /// The tick length in milliseconds.
    pub const fn tick_ms(&self) -> u64 {
        self.tick_ms
    }

    /// The epoch in Unix milliseconds.
    pub const fn epoch_ms(&self) -> u64 {
        self.epoch_ms
    }

    /// All fields, most significant first.
    pub fn fields(&self) -> &[Field] {
        &self.fields[..self.len as usize]
    }

    /// The node fields, most significant first.
    pub fn node_fields(&self) -> impl Iterator<Item = &Field> + '_ {
        self.fields().iter().filter(|f| f.kind == FieldKind::Node)
    }

    /// The node field called `name`, if the layout has one.
    pub fn node_field(&self, name: &str) -> Option<&Field> {
        self.node_fields().find(|f| f.name == name)
    }

    /// The time field.
    pub const fn time_field(&self) -> Field {
        self.fields[self.time as usize]
    }

    /// The sequence field.
    pub const fn sequence_field(&self) -> Field {
        self.fields[self.sequence as usize]
    }

    /// The tick-tock bit, if the layout has one.
    pub const fn tick_tock_field(&self) -> Option<Field> {
        match self.tick_tock {
            Some(index) => Some(self.fields[index as usize]),
            None => None,
        }
    }

    /// The largest sequence value: one less than the IDs a generator mints per tick.
    pub const fn max_sequence(&self) -> u64 {
        self.sequence_field().max()
    }

    /// The last tick the time field can hold, counted from the epoch.
    pub const fn max_ticks(&self) -> u64 {
        self.time_field().max()
    }

    /// The last representable time, in Unix milliseconds (the start of the last tick).
    pub const fn max_unix_ms(&self) -> u64 {
        // Checked when the layout was built.
        self.epoch_ms + self.max_ticks() * self.tick_ms
    }

    /// The bits every ID of this layout has zero: above the width and in unused fields.
    pub fn zero_mask(&self) -> u64 {
        let used = self
            .fields()
            .iter()
            .filter(|f| f.kind != FieldKind::Unused)
            .fold(0, |mask, f| mask | f.mask());
        !used
    }

    /// The largest ID the layout holds: every bit of its time, tick-tock, node and sequence
    /// fields set (the last tick, the largest node values and sequence).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::TWITTER.max_id().to_u64(), i64::MAX as u64); // all but the sign bit
    /// assert_eq!(Layout::SNOWFLAKE_SI.max_id().to_u64(), (1 << 53) - 1);
    /// let last = Layout::SNOWFLAKE_SI.compose(Layout::SNOWFLAKE_SI.max_unix_ms(), &[("machine", 31)], 255)?;
    /// assert_eq!(last, Layout::SNOWFLAKE_SI.max_id());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn max_id(&self) -> Id {
        Id::from_u64(!self.zero_mask())
    }

    /// Whether every ID of this layout is at most 2^53 − 1 (`Number.MAX_SAFE_INTEGER`), so a
    /// JavaScript number or a JSON parser that reads numbers as doubles holds it exactly.
    ///
    /// True when the layout's [`max_id`](Self::max_id) is at most 2^53 − 1: its used bits all
    /// lie in the low 53. Of the presets only `snowflake-si` is: the others pass 2^53 − 1 once
    /// their time field reaches 2^(53 − its shift) ticks (for `twitter`, 2^31 ms: 25 days after
    /// its epoch), so send their IDs to JavaScript as strings (the `serde` feature's default).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert!(Layout::SNOWFLAKE_SI.is_js_safe());
    /// assert!(!Layout::TWITTER.is_js_safe());
    /// let small = Layout::builder("small", 64).unused(11).time(41).sequence(12).build()?;
    /// assert!(small.is_js_safe());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn is_js_safe(&self) -> bool {
        self.max_id().to_u64() <= JS_MAX_SAFE_INTEGER
    }

    /// The smallest ID that can carry the time `unix_ms`: its tick, every lower field zero.
    ///
    /// For pagination: the IDs minted in `[t0, t1)` are those with
    /// `min_id_at(t0) <= id < min_id_at(t1)`, with times rounded down to their ticks (a
    /// `sonyflake` time inside a 10 ms tick stands for the whole tick). In a layout with a
    /// tick-tock bit the bound covers both timelines, which sort below the time.
    ///
    /// # Errors
    ///
    /// [`Error::BeforeEpoch`] or [`Error::TimeOverflow`] when the time is outside the layout
    /// (for a range that runs to the layout's end, use `id <= max_id()` instead).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let t = 1_656_432_460_105;
    /// let tweet = Layout::TWITTER.parse("1541815603606036480")?; // minted at t
    /// let (from, to) = (Layout::TWITTER.min_id_at(t)?, Layout::TWITTER.min_id_at(t + 1)?);
    /// assert!(from <= tweet && tweet < to);
    /// let parts = Layout::TWITTER.decode(from)?;
    /// assert_eq!((parts.timestamp_ms(), parts.node("machine"), parts.sequence()), (t, Some(0), 0));
    ///
    /// // Sonyflake's ticks are 10 ms: every time inside one gives the same bound.
    /// let epoch = Layout::SONYFLAKE.epoch_ms();
    /// assert_eq!(Layout::SONYFLAKE.min_id_at(epoch + 20)?, Layout::SONYFLAKE.min_id_at(epoch + 29)?);
    /// assert!(Layout::TWITTER.min_id_at(0).is_err()); // before the epoch
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn min_id_at(&self, unix_ms: u64) -> Result<Id> {
        let ticks = self.ticks_at(unix_ms)?;
        Ok(Id::from_u64(ticks << self.time_field().shift()))
    }

    /// The largest ID that can carry the time `unix_ms`: its tick, every used bit below the
    /// time field set (both timelines, the largest nodes and sequence).
    ///
    /// `min_id_at(t)..=max_id_at(t)` holds every ID of `t`'s tick, and nothing else.
    ///
    /// # Errors
    ///
    /// [`Error::BeforeEpoch`] or [`Error::TimeOverflow`] when the time is outside the layout.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let t = 1_656_432_460_105;
    /// let max = Layout::TWITTER.max_id_at(t)?;
    /// let parts = Layout::TWITTER.decode(max)?;
    /// assert_eq!(parts.timestamp_ms(), t);
    /// assert_eq!((parts.node("machine"), parts.sequence()), (Some(1023), 4095));
    /// assert_eq!(max.to_u64() + 1, Layout::TWITTER.min_id_at(t + 1)?.to_u64());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn max_id_at(&self, unix_ms: u64) -> Result<Id> {
        let min = self.min_id_at(unix_ms)?.to_u64();
        let below_time = low_bits(self.time_field().shift());
        Ok(Id::from_u64(min | self.max_id().to_u64() & below_time))
    }

    /// The time `id` carries, in Unix milliseconds (the start of its tick), without checking
    /// that `id` fits the layout.
    pub(crate) fn unix_ms_of(&self, id: Id) -> u64 {
        // Cannot overflow: the last representable time was checked when the layout was built.
        self.epoch_ms + self.time_field().get(id.to_u64()) * self.tick_ms
    }

    /// The tick that holds `unix_ms`, counted from the epoch.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let epoch = Layout::SONYFLAKE.epoch_ms();
    /// assert_eq!(Layout::SONYFLAKE.ticks_at(epoch + 25)?, 2); // 10 ms ticks
    /// assert!(Layout::SONYFLAKE.ticks_at(epoch - 1).is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::BeforeEpoch`] or [`Error::TimeOverflow`] when the time is outside the layout.
    pub fn ticks_at(&self, unix_ms: u64) -> Result<u64> {
        match unix_ms.checked_sub(self.epoch_ms) {
            Some(since) if since / self.tick_ms <= self.max_ticks() => Ok(since / self.tick_ms),
            _ => Err(self.time_error(unix_ms)),
        }
    }

    /// The error for a time outside the layout: before its epoch or past its last tick.
    pub(crate) fn time_error(&self, unix_ms: u64) -> Error {
        if unix_ms < self.epoch_ms {
            Error::BeforeEpoch {
                layout: self.name,
                unix_ms,
                epoch_ms: self.epoch_ms,
            }
        } else {
            Error::TimeOverflow {
                layout: self.name,
                unix_ms,
                max_unix_ms: self.max_unix_ms(),
            }
        }
    }

    /// The node fields' bits in ID coordinates, from `(name, value)` pairs; fields not named are 0.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::DISCORD.node_bits(&[("worker", 1), ("process", 2)])?, 1 << 17 | 2 << 12);
    /// assert!(Layout::DISCORD.node_bits(&[("worker", 32)]).is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::UnknownNodeField`] for a name the layout lacks, [`Error::DuplicateNodeField`]
    /// for a name given twice, [`Error::NodeOutOfRange`] for a value the field cannot hold.
    pub fn node_bits(&self, nodes: &[(&str, u64)]) -> Result<u64> {
        nodes
            .iter()
            .enumerate()
            .try_fold(0, |bits, (i, &(name, value))| {
                let field = self
                    .node_field(name)
                    .ok_or_else(|| self.unknown_node(name))?;
                if nodes[..i].iter().any(|&(earlier, _)| earlier == name) {
                    return Err(Error::DuplicateNodeField {
                        layout: self.name,
                        field: field.name,
                    });
                }
                if value > field.max() {
                    return Err(Error::NodeOutOfRange {
                        layout: self.name,
                        field: field.name,
                        value,
                        max: field.max(),
                    });
                }
                Ok(bits | value << field.shift)
            })
    }

    pub(crate) fn unknown_node(&self, name: &str) -> Error {
        let names: Vec<&str> = self.node_fields().map(|f| f.name).collect();
        Error::UnknownNodeField {
            layout: self.name,
            field: name.to_owned(),
            expected: if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            },
        }
    }

    /// Checks that `range` is a non-empty range of this layout's sequence values.
    pub(crate) fn check_sequence_range(
        &self,
        range: &RangeInclusive<u64>,
    ) -> Result<RangeInclusive<u64>> {
        let problem = if range.start() > range.end() {
            "is empty"
        } else if *range.end() > self.max_sequence() {
            "ends past the sequence field"
        } else {
            return Ok(*range.start()..=*range.end());
        };
        Err(Error::InvalidSequenceRange {
            layout: self.name,
            range: *range.start()..=*range.end(),
            problem,
            max: self.max_sequence(),
        })
    }

    /// Builds the ID for a time, node values and sequence; the time is floored to its tick.
    ///
    /// # Errors
    ///
    /// [`Error::BeforeEpoch`] / [`Error::TimeOverflow`] for a time outside the layout,
    /// [`Error::SequenceOutOfRange`], and the errors of [`node_bits`](Self::node_bits).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let id = Layout::TWITTER.compose(1_656_432_460_105, &[("machine", 378)], 0)?;
    /// assert_eq!(id.to_u64(), 1_541_815_603_606_036_480);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn compose(&self, unix_ms: u64, nodes: &[(&str, u64)], sequence: u64) -> Result<Id> {
        self.compose_on_timeline(unix_ms, 0, nodes, sequence)
    }

    /// [`compose`](Self::compose) on timeline 0 or 1: the value of the tick-tock bit.
    ///
    /// # Errors
    ///
    /// The errors of [`compose`](Self::compose), and [`Error::TimelineOutOfRange`] for a
    /// timeline above 1, or above 0 in a layout without a tick-tock bit.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let layout = Layout::builder("tt", 64).time(41).tick_tock().node("machine", 10).sequence(12).build()?;
    /// let id = layout.compose_on_timeline(1_700_000_000_000, 1, &[("machine", 5)], 9)?;
    /// assert_eq!(layout.decode(id)?.timeline(), Some(1));
    /// assert!(Layout::TWITTER.compose_on_timeline(1_700_000_000_000, 1, &[], 0).is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn compose_on_timeline(
        &self,
        unix_ms: u64,
        timeline: u64,
        nodes: &[(&str, u64)],
        sequence: u64,
    ) -> Result<Id> {
        let ticks = self.ticks_at(unix_ms)?;
        let tick_tock = self.tick_tock_field();
        let max_timeline = tick_tock.map_or(0, |f| f.max());
        if timeline > max_timeline {
            return Err(Error::TimelineOutOfRange {
                layout: self.name,
                value: timeline,
                max: max_timeline,
            });
        }
        let timeline_bits = tick_tock.map_or(0, |f| timeline << f.shift);
        if sequence > self.max_sequence() {
            return Err(Error::SequenceOutOfRange {
                layout: self.name,
                value: sequence,
                max: self.max_sequence(),
            });
        }
        let node_bits = self.node_bits(nodes)?;
        Ok(Id::from_u64(
            ticks << self.time_field().shift
                | timeline_bits
                | sequence << self.sequence_field().shift
                | node_bits,
        ))
    }

    /// Decodes `id` into its parts under this layout.
    ///
    /// # Errors
    ///
    /// [`Error::IdOutOfLayout`] when `id` has bits set that the layout keeps zero.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Id, Layout};
    ///
    /// let parts = Layout::TWITTER.decode(Id::from_u64(1_541_815_603_606_036_480))?;
    /// assert_eq!(parts.timestamp_ms(), 1_656_432_460_105);
    /// assert_eq!(parts.node("machine"), Some(378));
    /// assert_eq!(parts.sequence(), 0);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn decode(&self, id: Id) -> Result<Parts<'_>> {
        let mask = self.zero_mask();
        if id.to_u64() & mask != 0 {
            return Err(Error::IdOutOfLayout {
                id: id.to_u64(),
                layout: self.name,
                mask,
            });
        }
        Ok(Parts::new(self, id))
    }

    /// Parses a decimal ID and checks that it fits this layout.
    ///
    /// # Errors
    ///
    /// [`Error::ParseId`] when `s` is not a decimal `u64`, [`Error::IdOutOfLayout`] when it does
    /// not fit the layout.
    pub fn parse(&self, s: &str) -> Result<Id> {
        let id: Id = s.parse()?;
        self.decode(id)?;
        Ok(id)
    }
}

impl fmt::Debug for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Layout({self})")
    }
}

impl fmt::Display for Layout {
    /// `twitter: unused 1, time 41, machine 10, sequence 12; tick 1 ms; epoch 1288834974657 ms`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.name)?;
        for (i, field) in self.fields().iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{} {}", field.name, field.bits)?;
        }
        write!(f, "; tick {} ms; epoch {} ms", self.tick_ms, self.epoch_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_match_the_source_documents() {
        let shape = |l: &Layout| -> Vec<(&str, u32)> {
            l.fields().iter().map(|f| (f.name(), f.bits())).collect()
        };
        let t = Layout::TWITTER;
        assert_eq!(
            shape(&t),
            [
                ("unused", 1),
                ("time", 41),
                ("machine", 10),
                ("sequence", 12)
            ]
        );
        assert_eq!(
            (t.tick_ms(), t.epoch_ms(), t.width()),
            (1, 1_288_834_974_657, 64)
        );
        let d = Layout::DISCORD;
        assert_eq!(
            shape(&d),
            [
                ("time", 42),
                ("worker", 5),
                ("process", 5),
                ("sequence", 12)
            ]
        );
        assert_eq!(d.epoch_ms(), 1_420_070_400_000);
        let i = Layout::INSTAGRAM;
        assert_eq!(shape(&i), [("time", 41), ("shard", 13), ("sequence", 10)]);
        assert_eq!(i.epoch_ms(), 1_293_840_000_000);
        let m = Layout::MASTODON;
        assert_eq!(shape(&m), [("time", 48), ("sequence", 16)]);
        assert_eq!(m.epoch_ms(), 0);
        let s = Layout::SONYFLAKE;
        assert_eq!(
            shape(&s),
            [
                ("unused", 1),
                ("time", 39),
                ("sequence", 8),
                ("machine", 16)
            ]
        );
        assert_eq!((s.tick_ms(), s.epoch_ms()), (10, 1_409_529_600_000));
        let n = Layout::nanoflake(1_600_000_000_000).unwrap();
        assert_eq!(
            shape(&n),
            [
                ("unused", 1),
                ("time", 41),
                ("generator", 10),
                ("sequence", 12)
            ]
        );
        let si = Layout::SNOWFLAKE_SI;
        assert_eq!(shape(&si), [("time", 40), ("machine", 5), ("sequence", 8)]);
        assert_eq!((si.width(), si.epoch_ms()), (53, 1_577_836_800_000));
        let o = Layout::OSMIUM;
        assert_eq!(
            shape(&o),
            [
                ("time", 42),
                ("worker", 5),
                ("process", 5),
                ("sequence", 12)
            ]
        );
        assert_eq!(o.epoch_ms(), 1_640_995_200_000);
    }

    #[test]
    fn shifts_place_fields_most_significant_first() {
        let t = Layout::TWITTER;
        assert_eq!(t.time_field().shift(), 22);
        assert_eq!(t.node_field("machine").unwrap().shift(), 12);
        assert_eq!(t.sequence_field().shift(), 0);
        assert_eq!(t.zero_mask(), 1 << 63);
        let s = Layout::SONYFLAKE;
        assert_eq!(s.sequence_field().shift(), 16);
        assert_eq!(s.node_field("machine").unwrap().shift(), 0);
        assert_eq!(Layout::SNOWFLAKE_SI.zero_mask(), !((1u64 << 53) - 1));
    }

    fn problem(builder: LayoutBuilder) -> String {
        match builder.build() {
            Err(Error::InvalidLayout { problem, .. }) => problem.to_string(),
            other => panic!("expected InvalidLayout, got {other:?}"),
        }
    }

    #[test]
    fn invalid_layouts_are_rejected_with_the_reason() {
        let b = Layout::builder;
        assert_eq!(
            problem(b("x", 64).time(41).node("m", 10).sequence(12)),
            "field widths add up to 63 bits, expected 64"
        );
        assert_eq!(
            problem(b("x", 65).time(53).sequence(12)),
            "width 65 bits is out of range (1..=64)"
        );
        assert_eq!(
            problem(b("x", 12).sequence(12)),
            "0 time fields, expected exactly 1"
        );
        assert_eq!(
            problem(b("x", 41).time(41)),
            "0 sequence fields, expected exactly 1"
        );
        assert_eq!(
            problem(b("x", 64).sequence(12).time(52)),
            "the sequence field is above the time field, expected it below"
        );
        assert_eq!(
            problem(b("x", 64).time(40).node("m", 6).node("m", 6).sequence(12)),
            "two node fields are named \"m\", expected distinct names"
        );
        for name in ["", "unused", "time", "sequence"] {
            assert_eq!(
                problem(b("x", 64).time(40).node(name, 12).sequence(12)),
                format!(
                    "node field named {name:?}, expected a non-empty name other than unused, time and sequence"
                )
            );
        }
        assert_eq!(
            problem(b("x", 64).time(52).node("m", 0).sequence(12)),
            "field m has 0 bits, expected at least 1"
        );
        assert_eq!(
            problem(b("x", 64).time(52).sequence(12).tick_ms(0)),
            "tick of 0 ms, expected at least 1 ms"
        );
        let last_epoch = u64::MAX - ((1 << 52) - 1);
        assert_eq!(
            problem(b("x", 64).time(52).sequence(12).epoch_ms(last_epoch + 1)),
            format!(
                "epoch {} ms plus {} ticks of 1 ms passes u64::MAX ms, \
                 expected an epoch of at most {last_epoch} ms",
                last_epoch + 1,
                (1u64 << 52) - 1
            )
        );
        assert!(
            b("x", 64)
                .time(52)
                .sequence(12)
                .epoch_ms(last_epoch)
                .build()
                .is_ok()
        );
        assert_eq!(
            problem(b("x", 64).time(63).sequence(1).tick_ms(3)),
            "63 time bits of 3 ms ticks span more than u64::MAX ms, \
             expected fewer time bits or a shorter tick"
        );
        let nine = b("x", 9)
            .unused(1)
            .unused(1)
            .unused(1)
            .unused(1)
            .unused(1)
            .unused(1)
            .time(1)
            .sequence(1)
            .unused(1);
        assert_eq!(problem(nine), "9 fields, expected at most 8");
    }

    #[test]
    fn preset_epoch_rules() {
        assert!(matches!(
            Layout::preset("nanoflake", None),
            Err(Error::EpochRequired { .. })
        ));
        assert_eq!(Layout::preset("nanoflake", Some(5)).unwrap().epoch_ms(), 5);
        assert!(matches!(
            Layout::preset("twitter", Some(1)),
            Err(Error::EpochFixed { .. })
        ));
        assert_eq!(
            Layout::preset("twitter", Some(1_288_834_974_657)).unwrap(),
            Layout::TWITTER
        );
        assert_eq!(
            Layout::preset("snowflake-si", None).unwrap(),
            Layout::SNOWFLAKE_SI
        );
        assert_eq!(
            Layout::preset("snowflake-si", Some(7)).unwrap().epoch_ms(),
            7
        );
        let err = Layout::preset("twiter", None).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("unknown layout \"twiter\", expected one of twitter")
        );
    }

    #[test]
    fn ticks_at_rejects_times_outside_the_layout() {
        let t = Layout::TWITTER;
        assert_eq!(t.ticks_at(t.epoch_ms()).unwrap(), 0);
        assert_eq!(t.ticks_at(t.max_unix_ms()).unwrap(), t.max_ticks());
        assert!(matches!(
            t.ticks_at(t.max_unix_ms() + 1),
            Err(Error::TimeOverflow { .. })
        ));
        assert!(matches!(
            t.ticks_at(t.epoch_ms() - 1),
            Err(Error::BeforeEpoch { .. })
        ));
        // Sonyflake: the last tick spans 10 ms.
        let s = Layout::SONYFLAKE;
        assert_eq!(s.ticks_at(s.max_unix_ms() + 9).unwrap(), s.max_ticks());
        assert!(s.ticks_at(s.max_unix_ms() + 10).is_err());
    }
}
