//! Building a layout: [`LayoutBuilder`], its checks, and [`Layout::builder`].

use super::field::{Field, FieldKind, low_bits};
use super::shape::{Layout, MAX_FIELDS};
use crate::error::layout_problem::LayoutProblem;
use crate::error::{Error, Result};

/// Builds a [`Layout`] field by field, most significant first.
///
/// Every method is a `const fn`, so a layout can be a constant checked at compile time with
/// [`build_const`](Self::build_const); [`build`](Self::build) checks it at run time instead.
///
/// The layout's name and its node fields' names are 1 to 64 ASCII letters, digits, `_`, `-`,
/// `.` and `/`, so every message that names them stays on one line.
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

/// The most characters a layout or node field name has.
const MAX_NAME_CHARS: usize = 64;

/// Whether `byte` may appear in a layout or node field name: an ASCII letter or digit, `_`,
/// `-`, `.` or `/`.
const fn name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'.' | b'/')
}

/// The character starting at byte `i` of `bytes`, which hold UTF-8.
const fn char_at(bytes: &[u8], i: usize) -> char {
    let lead = bytes[i] as u32;
    let (len, mut code) = if lead < 0x80 {
        (1, lead)
    } else if lead < 0xE0 {
        (2, lead & 0x1F)
    } else if lead < 0xF0 {
        (3, lead & 0x0F)
    } else {
        (4, lead & 0x07)
    };
    let mut k = 1;
    while k < len && i + k < bytes.len() {
        code = code << 6 | (bytes[i + k] as u32 & 0x3F);
        k += 1;
    }
    match char::from_u32(code) {
        Some(c) => c,
        None => char::REPLACEMENT_CHARACTER,
    }
}

/// What is wrong with `name` as the name of `of` (`"layout"` or `"node field"`), if anything:
/// a character other than ASCII letters, digits, `_`, `-`, `.` and `/`, or a length outside
/// 1..=64.
pub(crate) const fn name_problem(of: &'static str, name: &str) -> Option<LayoutProblem> {
    let bytes = name.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !name_byte(bytes[i]) {
            return Some(LayoutProblem::NameCharacter {
                of,
                found: char_at(bytes, i),
                position: i,
            });
        }
        i += 1;
    }
    // Every byte is ASCII here, so bytes are characters.
    if bytes.is_empty() || bytes.len() > MAX_NAME_CHARS {
        return Some(LayoutProblem::NameLength {
            of,
            chars: bytes.len(),
        });
    }
    None
}

impl LayoutBuilder {
    /// A builder holding `layout`'s fields and tick, to build it again with another epoch.
    pub(super) fn of(layout: &Layout) -> Self {
        let mut builder = LayoutBuilder::new(layout.name, layout.width).tick_ms(layout.tick_ms);
        builder.fields = layout.fields;
        builder.len = layout.len as usize;
        builder.given = builder.len;
        builder
    }

    /// Starts a layout called `name`, `width` bits wide, with a 1 ms tick and the Unix epoch.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::layout::LayoutBuilder;
    ///
    /// let layout = LayoutBuilder::new("flat", 64).time(48).sequence(16).build()?;
    /// assert_eq!((layout.name(), layout.tick_ms(), layout.epoch_ms()), ("flat", 1, 0));
    /// # Ok::<(), snowmint::Error>(())
    /// ```
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
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let layout = Layout::builder("signed", 64).unused(1).time(41).sequence(22).build()?;
    /// assert_eq!(layout.zero_mask(), 1 << 63);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub const fn unused(self, bits: u8) -> Self {
        self.push(FieldKind::Unused, "unused", bits)
    }

    /// Adds the time field: `bits` bits of ticks since the epoch.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let layout = Layout::builder("wide", 64).time(44).sequence(20).build()?;
    /// assert_eq!(layout.time_field().bits(), 44);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub const fn time(self, bits: u8) -> Self {
        self.push(FieldKind::Time, "time", bits)
    }

    /// Adds a node field called `name` (`machine`, `worker`, `process`, `shard`, ...).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let layout = Layout::builder("regions", 64).time(41).node("region", 3).node("host", 8).sequence(12).build()?;
    /// assert_eq!(layout.node_field("region").unwrap().shift(), 20);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub const fn node(self, name: &'static str, bits: u8) -> Self {
        self.push(FieldKind::Node, name, bits)
    }

    /// Adds a tick-tock bit (named `tick`), which must sit below the time field and above the
    /// sequence field; see [`FieldKind::TickTock`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let layout = Layout::builder("tt", 64).time(41).tick_tock().node("machine", 10).sequence(12).build()?;
    /// assert_eq!(layout.tick_tock_field().unwrap().name(), "tick");
    /// // Below the sequence field, it is rejected.
    /// assert!(Layout::builder("bad", 64).time(41).node("machine", 10).sequence(12).tick_tock().build().is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub const fn tick_tock(self) -> Self {
        self.push(FieldKind::TickTock, "tick", 1)
    }

    /// Adds the sequence field: `bits` bits of per-tick counter.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let layout = Layout::builder("busy", 64).time(40).sequence(24).build()?;
    /// assert_eq!(layout.max_sequence(), (1 << 24) - 1);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub const fn sequence(self, bits: u8) -> Self {
        self.push(FieldKind::Sequence, "sequence", bits)
    }

    /// Sets the tick length in milliseconds (default 1).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let layout = Layout::builder("coarse", 64).time(40).sequence(24).tick_ms(10).build()?;
    /// assert_eq!(layout.tick_ms(), 10);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub const fn tick_ms(mut self, tick_ms: u64) -> Self {
        self.tick_ms = tick_ms;
        self
    }

    /// Sets the epoch in Unix milliseconds (default 0, the Unix epoch).
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let layout = Layout::builder("recent", 64).time(41).sequence(23).epoch_ms(1_700_000_000_000).build()?;
    /// assert_eq!(layout.epoch_ms(), 1_700_000_000_000);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub const fn epoch_ms(mut self, epoch_ms: u64) -> Self {
        self.epoch_ms = epoch_ms;
        self
    }

    const fn check(self) -> core::result::Result<Layout, LayoutProblem> {
        if let Some(problem) = name_problem("layout", self.name) {
            return Err(problem);
        }
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
            if matches!(field.kind, FieldKind::Node) {
                if field.name.is_empty()
                    || str_eq(field.name, "unused")
                    || str_eq(field.name, "time")
                    || str_eq(field.name, "sequence")
                    || str_eq(field.name, "tick")
                {
                    return Err(LayoutProblem::ReservedName(field.name));
                }
                if let Some(problem) = name_problem("node field", field.name) {
                    return Err(problem);
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
            if field.bits == 0 {
                return Err(LayoutProblem::ZeroWidth(field.name));
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
    /// [`Error::InvalidLayout`] when the layout's name or a node field's name is not 1 to 64
    /// ASCII letters, digits, `_`, `-`, `.` and `/` (its `layout` is then `(invalid name)`
    /// for the layout's own), when the widths do not add up to the layout's width, when there
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
            layout: match problem {
                LayoutProblem::NameCharacter { of: "layout", .. }
                | LayoutProblem::NameLength { of: "layout", .. } => "(invalid name)",
                _ => self.name,
            },
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
    /// Starts a custom layout; see [`LayoutBuilder`].
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// let layout = Layout::builder("hot", 63).time(41).sequence(22).build()?;
    /// assert_eq!(layout.width(), 63);
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub const fn builder(name: &'static str, width: u8) -> LayoutBuilder {
        LayoutBuilder::new(name, width)
    }
}
