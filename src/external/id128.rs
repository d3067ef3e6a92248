//! The 128-bit IDs' integrations, each behind its feature: serde (their text forms),
//! schemars (those strings' schemas), and conversions to and from the `uuid` and `ulid`
//! crates' types.

#[cfg(feature = "serde")]
mod serde_impls {
    //! `Uuid7` and `Ulid` serialize as their text forms, in every format; deserializing
    //! accepts what their `FromStr` accepts.

    use std::fmt;
    use std::marker::PhantomData;
    use std::str::FromStr;

    use serde::de::{self, Visitor};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::id128::{Ulid, Uuid7};

    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    impl Serialize for Uuid7 {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut buf = [0u8; 36];
            serializer.serialize_str(self.encode(&mut buf))
        }
    }

    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    impl Serialize for Ulid {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut buf = [0u8; 26];
            serializer.serialize_str(self.encode(&mut buf))
        }
    }

    /// Reads an ID of type `T` from its text form.
    struct TextVisitor<T>(&'static str, PhantomData<T>);

    impl<T: FromStr<Err = crate::error::Error>> Visitor<'_> for TextVisitor<T> {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }

        fn visit_str<E: de::Error>(self, s: &str) -> Result<T, E> {
            s.parse().map_err(E::custom)
        }
    }

    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    impl<'de> Deserialize<'de> for Uuid7 {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Uuid7, D::Error> {
            deserializer.deserialize_str(TextVisitor(
                "a uuidv7: 8-4-4-4-12 hex digits with hyphens, or 32 hex digits",
                PhantomData,
            ))
        }
    }

    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    impl<'de> Deserialize<'de> for Ulid {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Ulid, D::Error> {
            deserializer.deserialize_str(TextVisitor(
                "a ulid: 26 characters of crockford base32",
                PhantomData,
            ))
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn ids_serialize_as_their_text_and_come_back() {
            let uuid: Uuid7 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f".parse().unwrap();
            let json = serde_json::to_string(&uuid).unwrap();
            assert_eq!(json, "\"017f22e2-79b0-7cc3-98c4-dc0c0c07398f\"");
            assert_eq!(serde_json::from_str::<Uuid7>(&json).unwrap(), uuid);
            let ulid: Ulid = "01ARYZ6S41TSV4RRFFQ69G5FAV".parse().unwrap();
            let json = serde_json::to_string(&ulid).unwrap();
            assert_eq!(json, "\"01ARYZ6S41TSV4RRFFQ69G5FAV\"");
            assert_eq!(serde_json::from_str::<Ulid>(&json).unwrap(), ulid);
            let err = serde_json::from_str::<Ulid>("\"8ZZZZZZZZZZZZZZZZZZZZZZZZZ\"").unwrap_err();
            assert!(
                err.to_string().contains("larger than the largest id"),
                "{err}"
            );
            assert!(serde_json::from_str::<Uuid7>("42").is_err());
        }
    }
}

#[cfg(feature = "schemars")]
mod schemars_impls {
    //! `JsonSchema` for `Uuid7` and `Ulid`: the strings they serialize to.

    use std::borrow::Cow;

    use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

    use crate::id128::{Ulid, Uuid7};

    /// The pattern of a `Uuid7`'s JSON string: lowercase, hyphenated, version 7, variant
    /// `0b10`.
    const UUID7_PATTERN: &str =
        "^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$";

    /// The pattern of a `Ulid`'s JSON string: 26 characters of Crockford's base32, uppercase,
    /// the first at most `7`.
    const ULID_PATTERN: &str = "^[0-7][0-9A-HJKMNP-TV-Z]{25}$";

    /// A hyphenated lowercase UUID string, as a `Uuid7` serializes.
    #[cfg_attr(docsrs, doc(cfg(feature = "schemars")))]
    impl JsonSchema for Uuid7 {
        fn schema_name() -> Cow<'static, str> {
            "Uuid7".into()
        }

        fn schema_id() -> Cow<'static, str> {
            "snowmint::id128::Uuid7".into()
        }

        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            json_schema!({
                "type": "string",
                "format": "uuid",
                "description": "A version 7 UUID (RFC 9562), hyphenated and lowercase.",
                "pattern": UUID7_PATTERN,
                "minLength": 36,
                "maxLength": 36,
                "examples": ["017f22e2-79b0-7cc3-98c4-dc0c0c07398f"],
            })
        }
    }

    /// The 26-character text, as a `Ulid` serializes.
    #[cfg_attr(docsrs, doc(cfg(feature = "schemars")))]
    impl JsonSchema for Ulid {
        fn schema_name() -> Cow<'static, str> {
            "Ulid".into()
        }

        fn schema_id() -> Cow<'static, str> {
            "snowmint::id128::Ulid".into()
        }

        fn json_schema(_: &mut SchemaGenerator) -> Schema {
            json_schema!({
                "type": "string",
                "description": "A ULID: 26 characters of Crockford's base32, uppercase, which \
                                sort as the IDs do.",
                "pattern": ULID_PATTERN,
                "minLength": 26,
                "maxLength": 26,
                "examples": ["01ARYZ6S41TSV4RRFFQ69G5FAV"],
            })
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn schemas_describe_the_strings() {
            let schema = schemars::schema_for!(Uuid7);
            assert_eq!(schema.get("pattern").unwrap(), UUID7_PATTERN);
            let schema = schemars::schema_for!(Ulid);
            assert_eq!(schema.get("pattern").unwrap(), ULID_PATTERN);
            for id in [Ulid::MIN, Ulid::MAX, Ulid::from_u128(0x0123_4567_89ab_cdef)] {
                let text = id.to_string();
                assert!(text.starts_with(|c: char| ('0'..='7').contains(&c)));
                assert!(
                    text.chars().all(
                        |c| c.is_ascii_digit() || c.is_ascii_uppercase() && !"ILOU".contains(c)
                    )
                );
            }
        }
    }
}

#[cfg(feature = "uuid")]
mod uuid_impls {
    //! `Uuid7` to `uuid::Uuid` and back, checked.

    use crate::error::Error;
    use crate::id128::Uuid7;

    /// Every UUIDv7 is a UUID.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Uuid7;
    ///
    /// let id: Uuid7 = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f".parse()?;
    /// let uuid = uuid::Uuid::from(id);
    /// assert_eq!(uuid.get_version_num(), 7);
    /// assert_eq!(uuid.to_string(), id.to_string());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "uuid")))]
    impl From<Uuid7> for uuid::Uuid {
        fn from(id: Uuid7) -> uuid::Uuid {
            uuid::Uuid::from_u128(id.to_u128())
        }
    }

    /// A UUID is a `Uuid7` if its version is 7 and its variant RFC 9562's.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Uuid7;
    ///
    /// let v7 = uuid::Uuid::from_u128(0x017f22e2_79b0_7cc3_98c4_dc0c0c07398f);
    /// assert_eq!(Uuid7::try_from(v7)?.unix_ms(), 0x017f_22e2_79b0);
    /// assert!(Uuid7::try_from(uuid::Uuid::nil()).is_err());
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "uuid")))]
    impl TryFrom<uuid::Uuid> for Uuid7 {
        type Error = Error;

        fn try_from(uuid: uuid::Uuid) -> Result<Uuid7, Error> {
            Uuid7::from_u128(uuid.as_u128())
        }
    }
}

#[cfg(feature = "ulid")]
mod ulid_impls {
    //! `Ulid` to `ulid::Ulid` and back: the same 128 bits.

    use crate::id128::Ulid;

    /// The same 128 bits.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Ulid;
    ///
    /// let id: Ulid = "01ARYZ6S41TSV4RRFFQ69G5FAV".parse()?;
    /// assert_eq!(ulid::Ulid::from(id).to_string(), "01ARYZ6S41TSV4RRFFQ69G5FAV");
    /// # Ok::<(), snowmint::Error>(())
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "ulid")))]
    impl From<Ulid> for ulid::Ulid {
        fn from(id: Ulid) -> ulid::Ulid {
            ulid::Ulid(id.to_u128())
        }
    }

    /// The same 128 bits.
    ///
    /// # Examples
    ///
    /// ```
    /// use snowmint::id128::Ulid;
    ///
    /// let theirs = ulid::Ulid::from_string("01ARYZ6S41TSV4RRFFQ69G5FAV").unwrap();
    /// assert_eq!(Ulid::from(theirs).unix_ms(), 1_469_918_176_385);
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "ulid")))]
    impl From<ulid::Ulid> for Ulid {
        fn from(id: ulid::Ulid) -> Ulid {
            Ulid::from_u128(id.0)
        }
    }
}
