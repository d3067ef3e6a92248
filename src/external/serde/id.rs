//! An [`Id`]'s forms: its decimal string in human-readable formats, its `u64` in binary ones,
//! and [`serde_id::number`] for a field written as a number.

use std::fmt;

use serde::de::Visitor;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::id::Id;

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
