//! `#[serde(with = "snowmint::mask::masked")]`: a struct keeps the real [`Id`], its serialized
//! form shows the masked one (feature `serde` as well as `mask`).
//!
//! The field is written as the [`install`](super::install)ed masker's value for the ID, in
//! [`Id`]'s own serde form (a decimal string in human-readable formats such as JSON, so
//! JavaScript reads it exactly at any width; the `u64` in binary ones), and read back the same
//! way, then unmasked. Without an installed masker, both are errors that say so; a value
//! outside the masker's width is an error naming it.
//!
//! # Examples
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use snowmint::mask::{self, MaskKey, MaskWidth, Masker};
//! use snowmint::{Generator, Id, Layout};
//!
//! #[derive(Serialize, Deserialize)]
//! struct Order {
//!     #[serde(with = "snowmint::mask::masked")]
//!     id: Id,
//!     item: String,
//! }
//!
//! let key = MaskKey::from_hex("000102030405060708090a0b0c0d0e0f")?;
//! let _ = mask::install(Masker::new(&key, MaskWidth::BIGINT));
//! let generator = Generator::builder(Layout::TWITTER).node("machine", 1).build()?;
//!
//! let order = Order { id: generator.mint()?, item: "tea".into() };
//! let json = serde_json::to_string(&order).unwrap();
//! assert!(!json.contains(&order.id.to_string())); // the API never shows the real ID
//! let back: Order = serde_json::from_str(&json).unwrap();
//! assert_eq!(back.id, order.id); // and reads it back exactly
//! # Ok::<(), snowmint::Error>(())
//! ```

use serde::{Deserialize, Deserializer, Serialize, Serializer, de, ser};

use super::installed;
use crate::id::Id;

/// What a masked field says without an installed masker.
const NOT_INSTALLED: &str = "no masker installed: call snowmint::mask::install at startup, \
                             before masked IDs are written or read";

/// Writes the masked value of `id`.
///
/// # Errors
///
/// The serializer's error when no masker is installed or `id` does not fit its width.
pub fn serialize<S: Serializer>(id: &Id, serializer: S) -> Result<S::Ok, S::Error> {
    let masker = installed().ok_or_else(|| ser::Error::custom(NOT_INSTALLED))?;
    let masked = masker.mask(*id).map_err(ser::Error::custom)?;
    Id::from_u64(masked).serialize(serializer)
}

/// Reads a masked value and unmasks it.
///
/// # Errors
///
/// The deserializer's error when no masker is installed, the value is not an ID's form, or it
/// is outside the masker's width.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Id, D::Error> {
    let masked = Id::deserialize(deserializer)?;
    let masker = installed().ok_or_else(|| de::Error::custom(NOT_INSTALLED))?;
    masker.unmask(masked.to_u64()).map_err(de::Error::custom)
}
