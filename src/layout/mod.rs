//! Bit layouts: the width and order of each field, the tick length and the epoch.
//!
//! A [`Layout`] is plain data, checked once when it is built: by `const fn` at compile time for
//! the presets and any layout written as a constant ([`LayoutBuilder::build_const`]), by
//! [`LayoutBuilder::build`] with an [`Error`](crate::Error) at run time.

use std::fmt;

mod arithmetic;
mod builder;
mod parts;
mod presets;
mod range;

pub use crate::error::layout_problem::LayoutProblem;
pub use builder::LayoutBuilder;
#[cfg(feature = "serde")]
pub(crate) use builder::name_problem;
pub use parts::Parts;
pub use range::UnixTime;

/// The most fields a layout can have, counting unused, time, node and sequence fields.
pub(crate) const MAX_FIELDS: usize = 8;

/// `Number.MAX_SAFE_INTEGER`, 2^53 − 1: the largest integer below which every integer is
/// exactly a JavaScript number (an IEEE 754 double).
///
/// # Examples
///
/// ```
/// use snowmint::{Layout, layout::JS_MAX_SAFE_INTEGER};
///
/// assert_eq!(JS_MAX_SAFE_INTEGER, 9_007_199_254_740_991);
/// assert_eq!(Layout::SNOWFLAKE_SI.max_id().to_u64(), JS_MAX_SAFE_INTEGER);
/// ```
pub const JS_MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// What a field of a layout holds.
///
/// # Examples
///
/// ```
/// use snowmint::{Layout, layout::FieldKind};
///
/// let kinds: Vec<FieldKind> = Layout::TWITTER.fields().iter().map(|f| f.kind()).collect();
/// assert_eq!(kinds, [FieldKind::Unused, FieldKind::Time, FieldKind::Node, FieldKind::Sequence]);
/// ```
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
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::{Layout, layout::FieldKind};
    ///
    /// assert_eq!(Layout::TWITTER.time_field().kind(), FieldKind::Time);
    /// ```
    pub const fn kind(&self) -> FieldKind {
        self.kind
    }

    /// The field's name: `unused`, `time`, `sequence`, or the node field's own name.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let names: Vec<&str> = Layout::DISCORD.fields().iter().map(|f| f.name()).collect();
    /// assert_eq!(names, ["time", "worker", "process", "sequence"]);
    /// ```
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The field's width in bits.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::TWITTER.time_field().bits(), 41);
    /// ```
    pub const fn bits(&self) -> u32 {
        self.bits as u32
    }

    /// How far the field is shifted left in an ID (the position of its lowest bit).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::TWITTER.time_field().shift(), 22); // above 10 machine and 12 sequence bits
    /// ```
    pub const fn shift(&self) -> u32 {
        self.shift as u32
    }

    /// The largest value the field holds.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::TWITTER.sequence_field().max(), 4095);
    /// ```
    pub const fn max(&self) -> u64 {
        low_bits(self.bits as u32)
    }

    /// The field's bits in ID coordinates.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::TWITTER.node_field("machine").unwrap().mask(), 0x3ff << 12);
    /// ```
    pub const fn mask(&self) -> u64 {
        self.max() << self.shift
    }

    /// The field's value in `id`.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let machine = Layout::TWITTER.node_field("machine").unwrap();
    /// assert_eq!(machine.get(1_541_815_603_606_036_480), 378);
    /// ```
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

impl Layout {
    /// The most fields a layout can have, counting unused, time, node and sequence fields.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert!(Layout::TWITTER.fields().len() <= Layout::MAX_FIELDS);
    /// ```
    pub const MAX_FIELDS: usize = MAX_FIELDS;

    /// The layout's name.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::SNOWFLAKE_SI.name(), "snowflake-si");
    /// ```
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The layout's width in bits: every ID is below `2^width`.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!((Layout::TWITTER.width(), Layout::SNOWFLAKE_SI.width()), (64, 53));
    /// ```
    pub const fn width(&self) -> u32 {
        self.width as u32
    }

    /// The tick length in milliseconds.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!((Layout::TWITTER.tick_ms(), Layout::SONYFLAKE.tick_ms()), (1, 10));
    /// ```
    pub const fn tick_ms(&self) -> u64 {
        self.tick_ms
    }

    /// The epoch in Unix milliseconds.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::TWITTER.epoch_ms(), 1_288_834_974_657);
    /// ```
    pub const fn epoch_ms(&self) -> u64 {
        self.epoch_ms
    }

    /// All fields, most significant first.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let widths: Vec<u32> = Layout::TWITTER.fields().iter().map(|f| f.bits()).collect();
    /// assert_eq!(widths, [1, 41, 10, 12]);
    /// ```
    pub fn fields(&self) -> &[Field] {
        &self.fields[..self.len as usize]
    }

    /// The node fields, most significant first.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let names: Vec<&str> = Layout::DISCORD.node_fields().map(|f| f.name()).collect();
    /// assert_eq!(names, ["worker", "process"]);
    /// ```
    pub fn node_fields(&self) -> impl Iterator<Item = &Field> + '_ {
        self.fields().iter().filter(|f| f.kind == FieldKind::Node)
    }

    /// The node field called `name`, if the layout has one.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::DISCORD.node_field("worker").map(|f| f.bits()), Some(5));
    /// assert!(Layout::DISCORD.node_field("machine").is_none());
    /// ```
    pub fn node_field(&self, name: &str) -> Option<&Field> {
        self.node_fields().find(|f| f.name == name)
    }

    /// The time field.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::DISCORD.time_field().bits(), 42);
    /// ```
    pub const fn time_field(&self) -> Field {
        self.fields[self.time as usize]
    }

    /// The sequence field.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::INSTAGRAM.sequence_field().bits(), 10);
    /// ```
    pub const fn sequence_field(&self) -> Field {
        self.fields[self.sequence as usize]
    }

    /// The tick-tock bit, if the layout has one.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert!(Layout::TWITTER.tick_tock_field().is_none());
    /// let tt = Layout::builder("tt", 64).time(41).tick_tock().node("machine", 10).sequence(12).build()?;
    /// assert_eq!(tt.tick_tock_field().map(|f| f.shift()), Some(22));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub const fn tick_tock_field(&self) -> Option<Field> {
        match self.tick_tock {
            Some(index) => Some(self.fields[index as usize]),
            None => None,
        }
    }

    /// The largest sequence value: one less than the IDs a generator mints per tick.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::TWITTER.max_sequence(), 4095); // 4,096 IDs per tick
    /// ```
    pub const fn max_sequence(&self) -> u64 {
        self.sequence_field().max()
    }

    /// The last tick the time field can hold, counted from the epoch.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::TWITTER.max_ticks(), (1 << 41) - 1);
    /// ```
    pub const fn max_ticks(&self) -> u64 {
        self.time_field().max()
    }

    /// The last representable time, in Unix milliseconds (the start of the last tick).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let twitter = Layout::TWITTER;
    /// assert_eq!(twitter.max_unix_ms(), twitter.epoch_ms() + twitter.max_ticks());
    /// assert_eq!(Layout::SONYFLAKE.max_unix_ms(), 6_907_087_738_870); // 10 ms ticks: until 2188
    /// ```
    pub const fn max_unix_ms(&self) -> u64 {
        // Checked when the layout was built.
        self.epoch_ms + self.max_ticks() * self.tick_ms
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
    use crate::error::Error;

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
