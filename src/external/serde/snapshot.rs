//! The forms of a generator's [`Snapshot`] and of a [`SnoSnapshot`]: the layout's form, the
//! node values and the state.

use std::ops::RangeInclusive;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::layout::{LayoutDef, bounded_error};
use crate::generator::Snapshot;
use crate::sno::SnoSnapshot;

/// A snapshot as stored.
#[derive(Serialize, Deserialize)]
pub(super) struct SnapshotDef {
    pub(super) layout: LayoutDef,
    pub(super) nodes: Vec<(String, u64)>,
    pub(super) last_tick: u64,
    pub(super) sequence: u64,
    pub(super) timeline: u64,
    pub(super) other_timeline_tick: u64,
    /// Absent in snapshots written before generators had ranges: the whole field.
    #[serde(default)]
    pub(super) sequence_range: Option<RangeInclusive<u64>>,
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
