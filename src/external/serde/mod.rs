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

mod id;
mod layout;
mod snapshot;
#[cfg(test)]
mod tests;

pub use id::serde_id;
