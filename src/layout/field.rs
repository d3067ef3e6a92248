//! A layout's fields: [`Field`], its [`FieldKind`], and the masks they are read with.

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

/// One field of a [`Layout`](super::Layout): its kind, name, width and position.
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
    pub(super) kind: FieldKind,
    pub(super) name: &'static str,
    pub(super) bits: u8,
    pub(super) shift: u8,
}

impl Field {
    pub(super) const EMPTY: Field = Field {
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
pub(super) const fn low_bits(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}
