//! `Serialize` and `Deserialize` for [`Id`], [`Layout`] and [`Snapshot`] (feature `serde`).
//!
//! An [`Id`] serializes as its decimal string in human-readable formats (JSON, YAML, TOML):
//! JavaScript numbers, and JSON parsers that read numbers as doubles, lose precision above
//! 2^53 − 1, which 64-bit layouts pass within weeks of their epoch; Discord and the chat
//! protocol send IDs as strings for that reason. Binary formats (`is_human_readable()` false:
//! CBOR, bincode, postcard) get the `u64`. Deserializing a human-readable format accepts a
//! decimal string or a non-negative integer, so either side can move to strings first;
//! [`serde_id::number`] writes a field as a number, for layouts that are
//! [JS-safe](Layout::is_js_safe) or readers that handle 64-bit integers.
//!
//! A layout serializes as its definition (name, width, fields, tick, epoch) and deserializes
//! through [`LayoutBuilder::build`], so a stored layout is checked like any other. Layouts hold
//! `&'static str` names; deserialized names are interned: each distinct name is allocated once
//! per process and reused, so reading snapshots repeatedly does not grow memory.

use std::collections::HashSet;
use std::fmt;
use std::ops::RangeInclusive;
use std::sync::{Mutex, PoisonError};

use serde::de::{Error as _, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, bounded};
use crate::generator::Snapshot;
use crate::id::Id;
use crate::layout::{FieldKind, Layout, LayoutBuilder, LayoutProblem, name_problem};
use crate::sno::SnoSnapshot;

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for Id {
    /// The decimal string in human-readable formats, the `u64` in binary ones.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            serializer.collect_str(self)
        } else {
            serializer.serialize_u64(self.to_u64())
        }
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de> Deserialize<'de> for Id {
    /// A decimal string or a non-negative integer in human-readable formats, the `u64` in
    /// binary ones.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if deserializer.is_human_readable() {
            deserializer.deserialize_any(IdVisitor)
        } else {
            deserializer.deserialize_u64(IdVisitor)
        }
    }
}

/// Reads an ID from a decimal string or an integer in `0..=u64::MAX`.
struct IdVisitor;

impl Visitor<'_> for IdVisitor {
    type Value = Id;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an id: a decimal string or an integer in 0..=18446744073709551615")
    }

    fn visit_u64<E: serde::de::Error>(self, value: u64) -> Result<Id, E> {
        Ok(Id::from_u64(value))
    }

    fn visit_i64<E: serde::de::Error>(self, value: i64) -> Result<Id, E> {
        u64::try_from(value)
            .map(Id::from_u64)
            .map_err(|_| out_of_range(value))
    }

    fn visit_u128<E: serde::de::Error>(self, value: u128) -> Result<Id, E> {
        u64::try_from(value)
            .map(Id::from_u64)
            .map_err(|_| out_of_range(value))
    }

    fn visit_i128<E: serde::de::Error>(self, value: i128) -> Result<Id, E> {
        u64::try_from(value)
            .map(Id::from_u64)
            .map_err(|_| out_of_range(value))
    }

    /// JSON numbers past `u64::MAX`, or with a fraction or an exponent, arrive as doubles.
    fn visit_f64<E: serde::de::Error>(self, value: f64) -> Result<Id, E> {
        Err(E::custom(format_args!(
            "id {value:?} is not an integer in 0..={}, expected a decimal string or an integer \
             in that range",
            u64::MAX
        )))
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Id, E> {
        s.parse().map_err(E::custom)
    }
}

/// The error for an integer that is not an ID: negative, or above `u64::MAX`.
fn out_of_range<E: serde::de::Error>(value: impl fmt::Display) -> E {
    E::custom(format_args!(
        "id {value} is out of range, expected a decimal string or an integer in 0..={}",
        u64::MAX
    ))
}

/// Per-field serde forms of [`Id`], for `#[serde(with = "...")]`.
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
pub mod serde_id {
    /// An [`Id`](crate::Id) field as a number: serializes the `u64`, deserializes a number or
    /// a decimal string (like `Id`'s own `Deserialize`).
    ///
    /// For IDs of [JS-safe](crate::Layout::is_js_safe) layouts, or readers that keep 64-bit
    /// integers exact (Rust, Go, Python, a JavaScript `BigInt` reviver); others round IDs above
    /// 2^53 − 1 to the nearest double.
    ///
    /// # Examples
    ///
    /// ```
    /// use serde::{Deserialize, Serialize};
    /// use snowmint::Id;
    ///
    /// #[derive(Serialize, Deserialize, PartialEq, Debug)]
    /// struct Message {
    ///     id: Id,
    ///     #[serde(with = "snowmint::serde_id::number")]
    ///     author: Id,
    /// }
    ///
    /// let message = Message { id: Id::from_u64(1_541_815_603_606_036_480), author: Id::from_u64(42) };
    /// let json = serde_json::to_string(&message)?;
    /// assert_eq!(json, r#"{"id":"1541815603606036480","author":42}"#);
    /// assert_eq!(serde_json::from_str::<Message>(r#"{"id":1541815603606036480,"author":"42"}"#)?, message);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    pub mod number {
        use serde::{Deserialize, Deserializer, Serializer};

        use crate::id::Id;

        /// Serializes `id` as its `u64`.
        ///
        /// # Errors
        ///
        /// The serializer's own errors.
        ///
        /// # Examples
        ///
        /// ```
        /// use snowmint::{Id, serde_id};
        ///
        /// let mut json = Vec::new();
        /// serde_id::number::serialize(&Id::from_u64(42), &mut serde_json::Serializer::new(&mut json))?;
        /// assert_eq!(json, b"42");
        /// # Ok::<(), serde_json::Error>(())
        /// ```
        pub fn serialize<S: Serializer>(id: &Id, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.serialize_u64(id.to_u64())
        }

        /// Deserializes an ID from a number or a decimal string.
        ///
        /// # Errors
        ///
        /// A negative number, one above `u64::MAX` or with a fraction, a string that is not a
        /// decimal ID, or another type.
        ///
        /// # Examples
        ///
        /// ```
        /// use snowmint::{Id, serde_id};
        ///
        /// let number = serde_id::number::deserialize(&mut serde_json::Deserializer::from_str("42"))?;
        /// let text = serde_id::number::deserialize(&mut serde_json::Deserializer::from_str(r#""42""#))?;
        /// assert_eq!((number, text), (Id::from_u64(42), Id::from_u64(42)));
        /// assert!(serde_id::number::deserialize(&mut serde_json::Deserializer::from_str("-1")).is_err());
        /// # Ok::<(), serde_json::Error>(())
        /// ```
        pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Id, D::Error> {
            Id::deserialize(deserializer)
        }
    }
}

/// A field as stored: its kind, name and width.
#[derive(Serialize, Deserialize)]
struct FieldDef {
    kind: Kind,
    name: String,
    bits: u8,
}

#[derive(Serialize, Deserialize, Clone, Copy)]
#[serde(rename_all = "kebab-case")]
enum Kind {
    Unused,
    Time,
    Node,
    TickTock,
    Sequence,
}

/// A layout as stored.
#[derive(Serialize, Deserialize)]
struct LayoutDef {
    name: String,
    width: u8,
    fields: Vec<FieldDef>,
    tick_ms: u64,
    epoch_ms: u64,
}

/// A snapshot as stored.
#[derive(Serialize, Deserialize)]
struct SnapshotDef {
    layout: LayoutDef,
    nodes: Vec<(String, u64)>,
    last_tick: u64,
    sequence: u64,
    timeline: u64,
    other_timeline_tick: u64,
    /// Absent in snapshots written before generators had ranges: the whole field.
    #[serde(default)]
    sequence_range: Option<RangeInclusive<u64>>,
}

/// The most characters a stored layout or field name may have.
const MAX_NAME_CHARS: usize = 64;

/// The most distinct stored names a process keeps: each is allocated once and kept for the
/// process's life, so layouts read from untrusted input cannot grow memory without bound.
const MAX_NAMES: usize = 4096;

/// `name`, allocated once per process; refused when longer than [`MAX_NAME_CHARS`], or new
/// once [`MAX_NAMES`] are held.
fn intern(name: &str) -> Result<&'static str, LayoutProblem> {
    /// Fork: held only inside a fork section (see `crate::fork`), so a child never finds it
    /// taken by a thread it does not have.
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    // The gate before the lock: a fork waits for the insert, which allocates at most.
    let _section = crate::fork::enter();
    let mut names = NAMES.lock().unwrap_or_else(PoisonError::into_inner);
    intern_into(names.get_or_insert_with(HashSet::new), name, MAX_NAMES)
}

/// [`intern`], once `name` is known to hold only the characters a name of `of` may have (the
/// builder checks the rest), so no stored name with others is kept.
fn intern_checked(of: &'static str, name: &str) -> Result<&'static str, LayoutProblem> {
    match name_problem(of, name) {
        Some(problem @ LayoutProblem::NameCharacter { .. }) => Err(problem),
        _ => intern(name),
    }
}

/// [`intern`] into `names`, which holds at most `max` names.
fn intern_into(
    names: &mut HashSet<&'static str>,
    name: &str,
    max: usize,
) -> Result<&'static str, LayoutProblem> {
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        return Err(LayoutProblem::NameTooLong {
            chars,
            max: MAX_NAME_CHARS,
        });
    }
    if let Some(&interned) = names.get(name) {
        return Ok(interned);
    }
    if names.len() >= max {
        return Err(LayoutProblem::TooManyNames { max });
    }
    let interned: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(interned);
    Ok(interned)
}

impl From<&Layout> for LayoutDef {
    fn from(layout: &Layout) -> Self {
        let fields = layout
            .fields()
            .iter()
            .map(|f| FieldDef {
                kind: match f.kind() {
                    FieldKind::Unused => Kind::Unused,
                    FieldKind::Time => Kind::Time,
                    FieldKind::Node => Kind::Node,
                    FieldKind::TickTock => Kind::TickTock,
                    FieldKind::Sequence => Kind::Sequence,
                },
                name: f.name().to_owned(),
                bits: f.bits() as u8,
            })
            .collect();
        LayoutDef {
            name: layout.name().to_owned(),
            width: layout.width() as u8,
            fields,
            tick_ms: layout.tick_ms(),
            epoch_ms: layout.epoch_ms(),
        }
    }
}

impl LayoutDef {
    fn build(&self) -> crate::Result<Layout> {
        let name =
            intern_checked("layout", &self.name).map_err(|problem| Error::InvalidLayout {
                layout: "(stored)",
                problem,
            })?;
        let mut builder = LayoutBuilder::new(name, self.width);
        for field in &self.fields {
            builder = match field.kind {
                Kind::Unused => builder.unused(field.bits),
                Kind::Time => builder.time(field.bits),
                Kind::Node => {
                    let field_name =
                        intern_checked("node field", &field.name).map_err(|problem| {
                            Error::InvalidLayout {
                                layout: name,
                                problem,
                            }
                        })?;
                    builder.node(field_name, field.bits)
                }
                Kind::TickTock => builder.tick_tock(),
                Kind::Sequence => builder.sequence(field.bits),
            };
        }
        let layout = builder
            .tick_ms(self.tick_ms)
            .epoch_ms(self.epoch_ms)
            .build()?;
        // Every stored field must be the field built from it: a tick-tock bit is one bit
        // wide and named `tick-tock`, and only node fields have names of their own.
        let built = LayoutDef::from(&layout);
        let mismatch = self
            .fields
            .iter()
            .zip(&built.fields)
            .position(|(stored, made)| stored.bits != made.bits || stored.name != made.name);
        if let Some(i) = mismatch {
            let (stored, made) = (&self.fields[i], &built.fields[i]);
            return Err(Error::InvalidLayout {
                layout: layout.name(),
                problem: LayoutProblem::StoredField {
                    index: i,
                    bits: stored.bits,
                    expected: layout.fields()[i].name(),
                    expected_bits: made.bits,
                },
            });
        }
        Ok(layout)
    }
}

/// The deserializer's error with every string it repeats cut to at most 64 characters, an
/// ellipsis marking the cut: serde's messages repeat a string given where another type was
/// expected (`string "..."`), and an unknown variant or field name (`` `...` ``), whole.
fn bounded_error<E: serde::de::Error>(error: E) -> E {
    let message = error.to_string();
    match bound_echoes(&message) {
        Some(bounded) => E::custom(bounded),
        None => error,
    }
}

/// `message` with each string serde repeats cut to 64 characters; `None` when none is longer.
fn bound_echoes(message: &str) -> Option<String> {
    let mut out = String::new();
    let mut rest = message;
    let mut cut = false;
    loop {
        let quoted = rest
            .find("string \"")
            .map(|at| (at + "string \"".len(), '"'));
        let ticked = ["unknown variant `", "unknown field `"]
            .iter()
            .filter_map(|opening| rest.find(opening).map(|at| (at + opening.len(), '`')))
            .min();
        let Some((start, close)) = [quoted, ticked].into_iter().flatten().min() else {
            break;
        };
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        // The echo ends at its closing mark: an unescaped `"` for `{:?}`-written strings; for
        // names written as they are, the last "`, expected" or "`, there are no" (serde's
        // list of expected names follows, and holds neither).
        let end = if close == '"' {
            let mut escaped = false;
            rest.char_indices()
                .find(|&(_, c)| {
                    let end = c == '"' && !escaped;
                    escaped = c == '\\' && !escaped;
                    end
                })
                .map_or(rest.len(), |(at, _)| at)
        } else {
            rest.rfind("`, expected ")
                .or_else(|| rest.rfind("`, there are no "))
                .unwrap_or(rest.len())
        };
        let echo = bounded(&rest[..end]);
        cut |= echo.len() < end;
        out.push_str(&echo);
        rest = &rest[end..];
    }
    out.push_str(rest);
    cut.then_some(out)
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for Layout {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        LayoutDef::from(self).serialize(serializer)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de> Deserialize<'de> for Layout {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        LayoutDef::deserialize(deserializer)
            .map_err(bounded_error)?
            .build()
            .map_err(D::Error::custom)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for Snapshot {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SnapshotDef {
            layout: LayoutDef::from(&self.layout),
            nodes: self
                .nodes
                .iter()
                .map(|&(name, value)| (name.to_owned(), value))
                .collect(),
            last_tick: self.last_tick,
            sequence: self.sequence,
            timeline: self.timeline,
            other_timeline_tick: self.other_timeline_tick,
            sequence_range: Some(self.sequence_range.clone()),
        }
        .serialize(serializer)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de> Deserialize<'de> for Snapshot {
    /// Checks the layout and the node names; the state's ranges are checked by
    /// [`Generator::resume`](crate::Generator::resume)'s `build`.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let def = SnapshotDef::deserialize(deserializer).map_err(bounded_error)?;
        let layout = def.layout.build().map_err(D::Error::custom)?;
        let nodes = def
            .nodes
            .iter()
            .map(|(name, value)| {
                let field = layout
                    .node_field(name)
                    .ok_or_else(|| D::Error::custom(layout.unknown_node(name)))?;
                Ok((field.name(), *value))
            })
            .collect::<Result<_, D::Error>>()?;
        Ok(Snapshot {
            layout,
            nodes,
            last_tick: def.last_tick,
            sequence: def.sequence,
            timeline: def.timeline,
            other_timeline_tick: def.other_timeline_tick,
            sequence_range: def.sequence_range.unwrap_or(0..=layout.max_sequence()),
        })
    }
}

/// The stored form of a [`SnoSnapshot`].
#[derive(Serialize, Deserialize)]
#[serde(rename = "SnoSnapshot")]
struct SnoSnapshotDef {
    partition: u16,
    /// Absent in forms written before sno snapshots kept the metabyte: 0, as it was resumed.
    #[serde(default)]
    meta: u8,
    core: Snapshot,
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for SnoSnapshot {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SnoSnapshotDef {
            partition: self.partition,
            meta: self.meta,
            core: self.core.clone(),
        }
        .serialize(serializer)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de> Deserialize<'de> for SnoSnapshot {
    /// Checks the core snapshot as [`Snapshot`]'s form does; its layout is checked by
    /// [`SnoGenerator::resume`](crate::sno::SnoGenerator::resume)'s `build`.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let def = SnoSnapshotDef::deserialize(deserializer).map_err(bounded_error)?;
        Ok(SnoSnapshot {
            partition: def.partition,
            meta: def.meta,
            core: def.core,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ClockBehind, Generator, clock::ManualClock};

    const TT: Layout = Layout::builder("twitter-tt", 64)
        .unused(1)
        .time(41)
        .tick_tock()
        .node("machine", 9)
        .sequence(12)
        .epoch_ms(1_288_834_974_657)
        .build_const();

    #[test]
    fn snapshots_round_trip_through_json_and_resume() {
        let generator = Generator::builder(TT)
            .node("machine", 7)
            .clock(ManualClock::new(1_700_000_000_000))
            .build()
            .unwrap();
        let last = generator.mint().unwrap();
        let json = serde_json::to_string(&generator.snapshot()).unwrap();
        let snapshot: Snapshot = serde_json::from_str(&json).unwrap();
        assert_eq!(snapshot, generator.snapshot());
        let resumed = Generator::resume(&snapshot)
            .clock(ManualClock::new(1_699_999_990_000))
            .on_clock_behind(ClockBehind::TickTock { max_ms: 0 })
            .build()
            .unwrap();
        let next = resumed.mint().unwrap();
        assert_ne!(next, last);
        assert_eq!(resumed.decode(next).unwrap().timeline(), Some(1));
    }

    #[test]
    fn sno_snapshots_round_trip_and_an_old_form_without_meta_reads_as_0() {
        use crate::sno::SnoGenerator;
        let generator = SnoGenerator::builder()
            .partition(7)
            .meta(9)
            .clock(ManualClock::new(1_700_000_000_000))
            .build()
            .unwrap();
        generator.mint().unwrap();
        let snapshot = generator.snapshot();
        let json = serde_json::to_string(&snapshot).unwrap();
        assert_eq!(
            serde_json::from_str::<SnoSnapshot>(&json).unwrap(),
            snapshot
        );
        let old = json.replace("\"meta\":9,", "");
        assert_ne!(old, json);
        let read: SnoSnapshot = serde_json::from_str(&old).unwrap();
        assert_eq!(
            read,
            SnoSnapshot {
                meta: 0,
                ..snapshot
            }
        );
    }

    #[test]
    fn every_preset_layout_round_trips() {
        for layout in [
            Layout::TWITTER,
            Layout::DISCORD,
            Layout::INSTAGRAM,
            Layout::MASTODON,
            Layout::SONYFLAKE,
            Layout::SNOWFLAKE_SI,
            Layout::OSMIUM,
            TT,
        ] {
            let json = serde_json::to_string(&layout).unwrap();
            assert_eq!(serde_json::from_str::<Layout>(&json).unwrap(), layout);
        }
    }

    /// Regression: every distinct name of a stored layout was kept for the process's life,
    /// whatever its length and however many there were, so layouts read from untrusted input
    /// could grow memory without bound. Names are at most 64 characters, and at most 4,096
    /// distinct ones are kept.
    #[test]
    fn stored_names_are_bounded_in_length_and_in_number() {
        let long_layout = format!(
            r#"{{"name":"{}","width":64,"fields":[{{"kind":"unused","name":"unused","bits":1}},
            {{"kind":"time","name":"time","bits":41}},{{"kind":"node","name":"machine","bits":10}},
            {{"kind":"sequence","name":"sequence","bits":12}}],"tick_ms":1,"epoch_ms":0}}"#,
            "n".repeat(100_000)
        );
        let err = serde_json::from_str::<Layout>(&long_layout)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(
                "invalid layout (stored): a stored name has 100000 characters, expected at most 64"
            ),
            "{err}"
        );
        let long_node = long_layout
            .replace(&"n".repeat(100_000), "ok")
            .replace("machine", &"m".repeat(65));
        let err = serde_json::from_str::<Layout>(&long_node)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("invalid layout ok: a stored name has 65 characters"),
            "{err}"
        );
        // At most `max` distinct names; one already held is still found.
        let mut names = HashSet::new();
        assert_eq!(intern_into(&mut names, "a", 2), Ok("a"));
        assert_eq!(intern_into(&mut names, "b", 2), Ok("b"));
        assert_eq!(
            intern_into(&mut names, "c", 2),
            Err(LayoutProblem::TooManyNames { max: 2 })
        );
        assert_eq!(intern_into(&mut names, "a", 2), Ok("a"));
    }

    #[test]
    fn a_stored_layout_is_checked_and_names_are_interned_once() {
        let json = r#"{"name":"bad","width":64,"fields":[{"kind":"time","name":"time","bits":41},
            {"kind":"sequence","name":"sequence","bits":12}],"tick_ms":1,"epoch_ms":0}"#;
        let err = serde_json::from_str::<Layout>(json)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("invalid layout bad: field widths add up to 53 bits, expected 64"),
            "{err}"
        );
        assert!(std::ptr::eq(
            intern("rack").unwrap(),
            intern("rack").unwrap()
        ));
        let json = serde_json::to_string(&generator_snapshot_with_unknown_node()).unwrap();
        let err = serde_json::from_str::<Snapshot>(&json)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("layout twitter has no node field \"rack\""),
            "{err}"
        );
    }

    /// Regression: stored fields were ignored where the builder takes none: a tick-tock
    /// bit stored as 65 bits was read back as 1, and a time field could be stored under any
    /// name. Every stored field must now be the field built from it, and the error names the
    /// field by position, never repeating a stored name.
    #[test]
    fn a_stored_field_that_is_not_the_field_built_from_it_is_an_error() {
        let tick_tock = r#"{"name":"tt","width":64,"fields":[{"kind":"unused","name":"unused","bits":1},
            {"kind":"time","name":"time","bits":41},{"kind":"tick-tock","name":"tick","bits":65},
            {"kind":"node","name":"machine","bits":9},{"kind":"sequence","name":"sequence","bits":12}],
            "tick_ms":1,"epoch_ms":0}"#;
        let err = serde_json::from_str::<Layout>(tick_tock)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(
                "invalid layout tt: field 2 as stored (65 bits, and its name) is not the field it \
                 builds; expected \"tick\" with 1 bits"
            ),
            "{err}"
        );
        let long = "c".repeat(100_000);
        let renamed = format!(
            r#"{{"name":"rn","width":64,"fields":[{{"kind":"unused","name":"unused","bits":1}},
            {{"kind":"time","name":"{long}","bits":41}},{{"kind":"node","name":"machine","bits":10}},
            {{"kind":"sequence","name":"sequence","bits":12}}],"tick_ms":1,"epoch_ms":0}}"#
        );
        let err = serde_json::from_str::<Layout>(&renamed)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "invalid layout rn: field 1 as stored (41 bits, and its name) is not the field it \
             builds; expected \"time\" with 41 bits"
        );
        assert!(
            err.len() < 300,
            "the stored name is echoed unbounded: {} bytes",
            err.len()
        );
        // What a layout writes, it reads back.
        let tt = LayoutDef::from(&TT);
        assert_eq!(tt.build().unwrap(), TT);
    }

    #[test]
    fn a_stored_layout_or_node_field_name_with_a_line_break_is_refused() {
        let json = |layout: &str, node: &str| {
            format!(
                r#"{{"name":"{layout}","width":64,"fields":[{{"kind":"time","name":"time","bits":52}},
                {{"kind":"node","name":"{node}","bits":1}},{{"kind":"sequence","name":"sequence","bits":11}}],
                "tick_ms":1,"epoch_ms":0}}"#
            )
        };
        let err = serde_json::from_str::<Layout>(&json("ok", "mach\\nine"))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("invalid layout ok: node field name has '\\n' at byte 4"),
            "{err}"
        );
        let err = serde_json::from_str::<Layout>(&json("new\\nline-layout", "machine"))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("invalid layout (stored): layout name has '\\n' at byte 3"),
            "{err}"
        );
    }

    /// Serde's own messages repeat a string given where a number, a struct or a list was
    /// expected, and an unknown variant or field name, whole; every one is cut to 64
    /// characters.
    #[test]
    fn huge_strings_in_a_stored_snapshot_are_echoed_at_most_64_characters() {
        let generator = Generator::builder(Layout::TWITTER)
            .node("machine", 1)
            .clock(ManualClock::new(1_700_000_000_000))
            .build()
            .unwrap();
        generator.mint().unwrap();
        let good = serde_json::to_string(&generator.snapshot()).unwrap();
        let huge = "h".repeat(100_000);
        for (what, from, to) in [
            (
                "a number",
                "\"timeline\":0",
                format!("\"timeline\":\"{huge}\""),
            ),
            (
                "a variant",
                "\"kind\":\"time\"",
                format!("\"kind\":\"{huge}\""),
            ),
            (
                "a struct",
                "\"layout\":{",
                format!("\"layout\":\"{huge}\",\"x\":{{"),
            ),
            (
                "a range field",
                "\"start\":",
                format!("\"{huge}\":0,\"start\":"),
            ),
            (
                "an escaped string",
                "\"sequence\":0",
                format!("\"sequence\":\"{}\"", "\\\"".repeat(50_000)),
            ),
        ] {
            assert!(good.contains(from), "{what}: {good}");
            let bad = good.replacen(from, &to, 1);
            let err = serde_json::from_str::<Snapshot>(&bad)
                .unwrap_err()
                .to_string();
            assert!(
                err.len() < 400,
                "{what}: {} bytes: {}",
                err.len(),
                &err[..400]
            );
            assert!(err.contains('…'), "{what}: {err}");
            let sno = format!("{{\"partition\":1,\"core\":{bad}}}");
            let err = serde_json::from_str::<SnoSnapshot>(&sno)
                .unwrap_err()
                .to_string();
            assert!(err.len() < 400, "{what} in sno: {} bytes", err.len());
        }
        let layout = serde_json::to_string(&Layout::TWITTER).unwrap().replacen(
            "\"width\":64",
            &format!("\"width\":\"{huge}\""),
            1,
        );
        let err = serde_json::from_str::<Layout>(&layout)
            .unwrap_err()
            .to_string();
        assert!(err.len() < 400, "{} bytes", err.len());
        assert_eq!(
            bound_echoes("invalid type: string \"short\", expected u8"),
            None
        );
    }

    fn generator_snapshot_with_unknown_node() -> SnapshotDef {
        SnapshotDef {
            layout: LayoutDef::from(&Layout::TWITTER),
            nodes: vec![("rack".to_owned(), 1)],
            last_tick: 0,
            sequence: 0,
            timeline: 0,
            other_timeline_tick: 0,
            sequence_range: None,
        }
    }
}
