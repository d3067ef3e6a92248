//! The arithmetic of a layout: composing, decoding and bounding IDs, and converting times to
//! ticks.

use std::ops::RangeInclusive;

use super::field::{FieldKind, low_bits};
use super::parts::Parts;
use super::shape::Layout;
use crate::error::{Error, Result};
use crate::id::Id;

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

impl Layout {
    /// The bits every ID of this layout has zero: above the width and in unused fields.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::TWITTER.zero_mask(), 1 << 63); // the sign bit
    /// assert_eq!(Layout::SNOWFLAKE_SI.zero_mask(), !((1 << 53) - 1)); // above 53 bits
    /// ```
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
    /// ([`id_range`](Self::id_range) clamps a range of times to the layout instead).
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
    /// assert_eq!((parts.unix_ms(), parts.node("machine"), parts.sequence()), (t, Some(0), 0));
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
    /// assert_eq!(parts.unix_ms(), t);
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

    /// The tick that holds `unix_ms`, clamped to the layout's ticks (0 before the epoch, the
    /// last tick past it): every time below `unix_ms` is in this tick or an earlier one.
    pub(crate) fn tick_holding(&self, unix_ms: u64) -> u64 {
        (unix_ms.saturating_sub(self.epoch_ms) / self.tick_ms).min(self.max_ticks())
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
            field: crate::error::bounded(name),
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
    /// assert_eq!(parts.unix_ms(), 1_656_432_460_105);
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
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::Layout;
    ///
    /// assert_eq!(Layout::TWITTER.parse("1541815603606036480")?.to_u64(), 1_541_815_603_606_036_480);
    /// assert!(Layout::TWITTER.parse("18446744073709551615").is_err()); // the sign bit is set
    /// assert!(Layout::TWITTER.parse("12a").is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    pub fn parse(&self, s: &str) -> Result<Id> {
        let id: Id = s.parse()?;
        self.decode(id)?;
        Ok(id)
    }
}
