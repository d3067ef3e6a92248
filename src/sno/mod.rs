//! sno IDs: 10 bytes of time, tick-tock bit, metabyte, partition and sequence, with a
//! 16-character text form, minted on the same one-word hot path as every other layout.
//!
//! [`SnoId`] documents the bit layout, the order and the text form; [`SnoGenerator`], sno's
//! [`FamilyGenerator`](crate::family::FamilyGenerator), the mapping from its 64-bit state word
//! to the 80-bit ID.

mod generator;
mod id;

pub use generator::{SnoGenerator, SnoGeneratorBuilder, SnoSnapshot};
pub use id::SnoId;
