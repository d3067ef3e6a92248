//! The [`Layout`] type: its fields in order, its width, tick and epoch, and what it says
//! about them.

use std::fmt;

use super::field::{Field, FieldKind};

/// The most fields a layout can have, counting unused, time, node and sequence fields.
pub(crate) const MAX_FIELDS: usize = 8;

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
    pub(super) name: &'static str,
    pub(super) width: u8,
    pub(super) len: u8,
    pub(super) time: u8,
    pub(super) sequence: u8,
    pub(super) tick_tock: Option<u8>,
    pub(super) fields: [Field; MAX_FIELDS],
    pub(super) tick_ms: u64,
    pub(super) epoch_ms: u64,
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
