//! `Serialize` and `Deserialize` for [`Layout`] and [`Snapshot`] (feature `serde`).
//!
//! A layout serializes as its definition (name, width, fields, tick, epoch) and deserializes
//! through [`LayoutBuilder::build`], so a stored layout is checked like any other. Layouts hold
//! `&'static str` names; deserialized names are interned: each distinct name is allocated once
//! per process and reused, so reading snapshots repeatedly does not grow memory.

use std::collections::HashSet;
use std::ops::RangeInclusive;
use std::sync::{Mutex, PoisonError};

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::generator::Snapshot;
use crate::layout::{FieldKind, Layout, LayoutBuilder};

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

/// `name`, allocated once per process.
fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut names = NAMES.lock().unwrap_or_else(PoisonError::into_inner);
    let names = names.get_or_insert_with(HashSet::new);
    match names.get(name) {
        Some(&interned) => interned,
        None => {
            let interned: &'static str = Box::leak(name.to_owned().into_boxed_str());
            names.insert(interned);
            interned
        }
    }
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
        let builder = self.fields.iter().fold(
            LayoutBuilder::new(intern(&self.name), self.width),
            |builder, field| match field.kind {
                Kind::Unused => builder.unused(field.bits),
                Kind::Time => builder.time(field.bits),
                Kind::Node => builder.node(intern(&field.name), field.bits),
                Kind::TickTock => builder.tick_tock(),
                Kind::Sequence => builder.sequence(field.bits),
            },
        );
        builder
            .tick_ms(self.tick_ms)
            .epoch_ms(self.epoch_ms)
            .build()
    }
}

impl Serialize for Layout {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        LayoutDef::from(self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Layout {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        LayoutDef::deserialize(deserializer)?
            .build()
            .map_err(D::Error::custom)
    }
}

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

impl<'de> Deserialize<'de> for Snapshot {
    /// Checks the layout and the node names; the state's ranges are checked by
    /// [`Generator::resume`](crate::Generator::resume)'s `build`.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let def = SnapshotDef::deserialize(deserializer)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ClockBehind, Generator, ManualClock};

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
        assert!(std::ptr::eq(intern("rack"), intern("rack")));
        let json = serde_json::to_string(&generator_snapshot_with_unknown_node()).unwrap();
        let err = serde_json::from_str::<Snapshot>(&json)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("layout twitter has no node field \"rack\""),
            "{err}"
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
