//! `JsonSchema` for [`Id`] and [`SnoId`] (feature `schemars`): the JSON they serialize to, so
//! OpenAPI generators describe them as the strings they are.
//!
//! An [`Id`] is a decimal string in JSON (a JavaScript number would round it); its schema is a
//! string of up to 20 digits with the pattern `^(0|[1-9][0-9]{0,19})$`. An ID in a field
//! serialized with `serde_id::number` is a number, and that field's schema is `u64`'s: mark
//! the field with `#[schemars(with = "u64")]`. A [`SnoId`] is its 16-character text, pattern
//! `^[2-9a-x]{16}$`.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use crate::id::Id;
use crate::sno::SnoId;

/// The pattern of an [`Id`]'s JSON string: a `u64` in decimal, without a sign or leading zeros.
pub(crate) const ID_PATTERN: &str = "^(0|[1-9][0-9]{0,19})$";

/// The pattern of a [`SnoId`]'s JSON string: 16 characters of sno's alphabet.
pub(crate) const SNO_ID_PATTERN: &str = "^[2-9a-x]{16}$";

/// A decimal string with its pattern, as an `Id` serializes to JSON.
///
/// # Examples
///
/// ```
/// # #[cfg(feature = "schemars")] {
/// use snowmint::Id;
///
/// let schema = schemars::schema_for!(Id);
/// assert_eq!(schema.get("type").unwrap(), "string");
/// assert_eq!(schema.get("pattern").unwrap(), "^(0|[1-9][0-9]{0,19})$");
/// # }
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "schemars")))]
impl JsonSchema for Id {
    fn schema_name() -> Cow<'static, str> {
        "SnowmintId".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "snowmint::Id".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "description": "A 64-bit snowmint ID as a decimal string (0..=18446744073709551615): \
                            a JSON number would lose precision in JavaScript.",
            "pattern": ID_PATTERN,
            "minLength": 1,
            "maxLength": 20,
            "examples": ["1541815603606036480"],
        })
    }
}

/// The 16-character text, as a `SnoId` serializes.
#[cfg_attr(docsrs, doc(cfg(feature = "schemars")))]
impl JsonSchema for SnoId {
    fn schema_name() -> Cow<'static, str> {
        "SnoId".into()
    }

    fn schema_id() -> Cow<'static, str> {
        "snowmint::sno::SnoId".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "description": "An 80-bit sno ID in its 16-character text form, which sorts as the \
                            IDs do.",
            "pattern": SNO_ID_PATTERN,
            "minLength": 16,
            "maxLength": 16,
            "examples": ["6ac1ekc2c22222t2"],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `text` matches [`ID_PATTERN`] (no regex engine here: what the pattern says,
    /// by hand).
    fn id_like(text: &str) -> bool {
        let digits =
            !text.is_empty() && text.len() <= 20 && text.bytes().all(|b| b.is_ascii_digit());
        digits && (text == "0" || !text.starts_with('0'))
    }

    #[test]
    fn every_ids_json_string_fits_the_schema() {
        for value in [0, 1, 9, 10, 1_541_815_603_606_036_480, u64::MAX] {
            let json = serde_json::to_value(Id::from_u64(value)).unwrap();
            let text = json.as_str().expect("a JSON string");
            assert!(id_like(text), "{text}");
        }
        let schema = schemars::schema_for!(Id);
        assert_eq!(schema.get("type").unwrap(), "string");
        assert_eq!(schema.get("pattern").unwrap(), ID_PATTERN);
        assert_eq!(schema.get("maxLength").unwrap(), 20);
        assert_eq!(u64::MAX.to_string().len(), 20);
    }

    #[test]
    fn every_sno_ids_json_string_fits_the_schema() {
        let alphabet = "23456789abcdefghijklmnopqrstuvwx";
        for id in [
            SnoId::from_bytes([0; 10]),
            SnoId::from_bytes([0xff; 10]),
            SnoId::compose(1_700_000_000_003, 1, 7, 0x410a, 42).unwrap(),
        ] {
            let json = serde_json::to_value(id).unwrap();
            let text = json.as_str().expect("a JSON string");
            assert_eq!(text.len(), 16);
            assert!(text.chars().all(|c| alphabet.contains(c)), "{text}");
            assert!(
                text.chars().all(|c| matches!(c, '2'..='9' | 'a'..='x')),
                "{text}"
            );
        }
        let schema = schemars::schema_for!(SnoId);
        assert_eq!(schema.get("pattern").unwrap(), SNO_ID_PATTERN);
        assert_eq!(schema.get("minLength").unwrap(), 16);
    }
}
