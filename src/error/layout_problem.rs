//! What is wrong with a layout's definition, found when it is built.

use std::fmt;

/// What is wrong with a layout's definition: the `problem` of
/// [`Error::InvalidLayout`](crate::Error::InvalidLayout). Its `Display` is the message's second half, naming what was found and what was expected.
///
/// # Examples
///
/// ```
/// use snowmint::layout::LayoutProblem;
/// use snowmint::{Error, Layout};
///
/// let err = Layout::builder("short", 64).time(41).sequence(12).build().unwrap_err();
/// assert_eq!(
///     err,
///     Error::InvalidLayout {
///         layout: "short",
///         problem: LayoutProblem::WidthMismatch { sum: 53, width: 64 },
///     }
/// );
/// ```
// `Copy`, so the check runs in `const` contexts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LayoutProblem {
    /// The layout's width is outside 1..=64 bits.
    Width(u8),
    /// More fields than [`Layout::MAX_FIELDS`](crate::Layout::MAX_FIELDS) were given.
    TooManyFields {
        /// How many fields were given.
        given: usize,
        /// The most a layout can have.
        max: usize,
    },
    /// The named field has zero bits.
    ZeroWidth(&'static str),
    /// The field widths do not add up to the layout's width.
    WidthMismatch {
        /// The sum of the field widths.
        sum: u32,
        /// The layout's width.
        width: u8,
    },
    /// Not exactly one time field: how many there are.
    TimeFields(u32),
    /// Not exactly one sequence field: how many there are.
    SequenceFields(u32),
    /// The sequence field is more significant than the time field.
    SequenceAboveTime,
    /// A second tick-tock bit, or one outside the time and sequence fields.
    TickTockPlacement,
    /// Two node fields have this name.
    DuplicateName(&'static str),
    /// A node field is unnamed, or named `unused`, `time` or `sequence`.
    ReservedName(&'static str),
    /// The tick is 0 ms.
    ZeroTick,
    /// The last representable time passes `u64::MAX` milliseconds.
    EndPastU64 {
        /// The time field's width.
        time_bits: u8,
        /// The tick, in milliseconds.
        tick_ms: u64,
        /// The epoch, in Unix milliseconds.
        epoch_ms: u64,
    },
    /// A layout or node field name has a character other than ASCII letters, digits, `_`, `-`,
    /// `.` and `/`.
    NameCharacter {
        /// Whose name: `"layout"` or `"node field"`.
        of: &'static str,
        /// The first character not allowed.
        found: char,
        /// Its byte offset in the name.
        position: usize,
    },
    /// A layout or node field name is empty or longer than 64 characters.
    NameLength {
        /// Whose name: `"layout"` or `"node field"`.
        of: &'static str,
        /// The name's length, in characters.
        chars: usize,
    },
    /// A layout read back (through serde) names itself or a field with more characters than
    /// a name may have.
    NameTooLong {
        /// The name's length, in characters.
        chars: usize,
        /// The most a name may have.
        max: usize,
    },
    /// A layout read back (through serde) brings a new name when the process already holds
    /// as many distinct stored names as it keeps (each is kept for the process's life).
    TooManyNames {
        /// How many distinct stored names a process keeps.
        max: usize,
    },
    /// A layout read back (through serde) stores field `index` other than the field it
    /// builds: another name, or another width.
    StoredField {
        /// The field's position, most significant first.
        index: usize,
        /// The width stored.
        bits: u8,
        /// The name the field should have.
        expected: &'static str,
        /// The width the field should have.
        expected_bits: u8,
    },
}

impl LayoutProblem {
    /// A fixed message, for the compile-time panic of `build_const`.
    pub(crate) const fn summary(&self) -> &'static str {
        match self {
            LayoutProblem::Width(_) => "invalid layout: width must be 1..=64 bits",
            LayoutProblem::TooManyFields { .. } => "invalid layout: more than 8 fields",
            LayoutProblem::ZeroWidth(_) => "invalid layout: a field has zero bits",
            LayoutProblem::WidthMismatch { .. } => {
                "invalid layout: field widths do not add up to the layout's width"
            }
            LayoutProblem::TimeFields(_) => "invalid layout: expected exactly one time field",
            LayoutProblem::SequenceFields(_) => {
                "invalid layout: expected exactly one sequence field"
            }
            LayoutProblem::SequenceAboveTime => {
                "invalid layout: the sequence field must be less significant than the time field"
            }
            LayoutProblem::TickTockPlacement => {
                "invalid layout: at most one tick-tock bit, between the time and sequence fields"
            }
            LayoutProblem::DuplicateName(_) => "invalid layout: two node fields share a name",
            LayoutProblem::ReservedName(_) => {
                "invalid layout: a node field is unnamed or named unused, time or sequence"
            }
            LayoutProblem::ZeroTick => "invalid layout: the tick must be at least 1 ms",
            LayoutProblem::EndPastU64 { .. } => {
                "invalid layout: the last representable time passes u64 milliseconds"
            }
            LayoutProblem::StoredField { .. } => {
                "invalid layout: a stored field differs from the field it builds"
            }
            LayoutProblem::NameTooLong { .. } => "invalid layout: a stored name is too long",
            LayoutProblem::NameCharacter { .. } | LayoutProblem::NameLength { .. } => {
                "invalid layout: a name is not 1 to 64 ASCII letters, digits, '_', '-', '.' and '/'"
            }
            LayoutProblem::TooManyNames { .. } => "invalid layout: too many distinct stored names",
        }
    }
}

impl fmt::Display for LayoutProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LayoutProblem::Width(width) => write!(f, "width {width} bits is out of range (1..=64)"),
            LayoutProblem::TooManyFields { given, max } => {
                write!(f, "{given} fields, expected at most {max}")
            }
            LayoutProblem::ZeroWidth(name) => {
                write!(f, "field {name} has 0 bits, expected at least 1")
            }
            LayoutProblem::WidthMismatch { sum, width } => {
                write!(f, "field widths add up to {sum} bits, expected {width}")
            }
            LayoutProblem::TimeFields(n) => write!(f, "{n} time fields, expected exactly 1"),
            LayoutProblem::SequenceFields(n) => {
                write!(f, "{n} sequence fields, expected exactly 1")
            }
            LayoutProblem::SequenceAboveTime => {
                f.write_str("the sequence field is above the time field, expected it below")
            }
            LayoutProblem::TickTockPlacement => f.write_str(
                "a misplaced or second tick-tock bit, expected at most one, below the time field \
                 and above the sequence field",
            ),
            LayoutProblem::DuplicateName(name) => {
                write!(
                    f,
                    "two node fields are named {name:?}, expected distinct names"
                )
            }
            LayoutProblem::ReservedName(name) => write!(
                f,
                "node field named {name:?}, expected a non-empty name other than unused, time \
                 and sequence"
            ),
            LayoutProblem::ZeroTick => f.write_str("tick of 0 ms, expected at least 1 ms"),
            LayoutProblem::EndPastU64 {
                time_bits,
                tick_ms,
                epoch_ms,
            } => match ticks(time_bits).checked_mul(tick_ms) {
                Some(span) => write!(
                    f,
                    "epoch {epoch_ms} ms plus {} ticks of {tick_ms} ms passes u64::MAX ms, \
                     expected an epoch of at most {} ms",
                    ticks(time_bits),
                    u64::MAX - span
                ),
                None => write!(
                    f,
                    "{time_bits} time bits of {tick_ms} ms ticks span more than u64::MAX ms, \
                     expected fewer time bits or a shorter tick"
                ),
            },
            LayoutProblem::NameCharacter {
                of,
                found,
                position,
            } => write!(
                f,
                "{of} name has {found:?} at byte {position}, expected only ASCII letters, digits, \
                 '_', '-', '.' and '/'"
            ),
            LayoutProblem::NameLength { of, chars } => {
                write!(f, "{of} name has {chars} characters, expected 1 to 64")
            }
            LayoutProblem::NameTooLong { chars, max } => write!(
                f,
                "a stored name has {chars} characters, expected at most {max}"
            ),
            LayoutProblem::TooManyNames { max } => write!(
                f,
                "a new stored name after {max} distinct ones, expected at most {max} in one \
                 process (each is kept for its life)"
            ),
            LayoutProblem::StoredField {
                index,
                bits,
                expected,
                expected_bits,
            } => write!(
                f,
                "field {index} as stored ({bits} bits, and its name) is not the field it builds; \
                 expected {expected:?} with {expected_bits} bits"
            ),
        }
    }
}

/// The largest value of a time field of `time_bits` bits: its last tick.
fn ticks(time_bits: u8) -> u64 {
    u64::MAX
        .checked_shr(64u32.saturating_sub(u32::from(time_bits)))
        .unwrap_or(0)
}
