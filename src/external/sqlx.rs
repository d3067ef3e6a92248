//! sqlx's `Type`, `Encode` and `Decode` for [`Id`]: feature `sqlx` for sqlx 0.9, feature
//! `sqlx-0_8` for sqlx 0.8 (both may be on). On every database whose `i64` sqlx maps
//! (PostgreSQL `BIGINT`, SQLite `INTEGER`, MySQL `BIGINT`), an ID is that signed 64-bit
//! integer.
//!
//! Encoding writes [`Id::to_i64`], so an ID above `i64::MAX` is refused with
//! [`Error::IdTooLargeForI64`] rather than stored as a negative number: `Query::try_bind`
//! returns that error, `Query::bind` defers it to the query's execution as sqlx's
//! `Error::Encode` with its message. Decoding a negative value is refused with
//! [`Error::NegativeId`] (sqlx's `Error::ColumnDecode`, whose `source()` it is). These impls
//! are generic over the database: the application's own `sqlx` chooses its drivers.
//!
//! With `sqlx-postgres` (`sqlx-0_8-postgres` for sqlx 0.8), [`Uuid7`] and [`Ulid`] are
//! PostgreSQL's `uuid` (and arrays of them `uuid[]`): their 16
//! bytes, big-endian, which PostgreSQL compares bytewise, so `ORDER BY` and ranges follow
//! time for both kinds. A `Ulid` is stored as the same 128 bits (its `uuid` text is not its
//! ULID text). Decoding a `uuid` that is not a UUIDv7 as a `Uuid7` is refused with
//! [`Error::ParseId`] (sqlx's `Error::ColumnDecode`). These impls are PostgreSQL's, so their
//! features enable sqlx's `postgres` (its driver's types; the runtime and TLS stay the
//! application's choice), which `sqlx` alone leaves off. They write the 16 bytes themselves and name the type by its OID:
//! sqlx's `uuid` feature stays off, since it would draw sqlx's SQLite driver into the
//! resolution of a build that has rusqlite, whose `libsqlite3-sys` it conflicts with. SQLite
//! through sqlx has no 128-bit impls.
//!
//! The two sqlx lines differ only in `Encode`'s buffer type (0.9 dropped its lifetime), so one
//! macro writes both lines' `Id` impls, and another their 128-bit ones.
//!
//! [`Error::IdTooLargeForI64`]: crate::Error::IdTooLargeForI64
//! [`Error::NegativeId`]: crate::Error::NegativeId
//! [`Error::ParseId`]: crate::Error::ParseId
//! [`Id`]: crate::Id
//! [`Id::to_i64`]: crate::Id::to_i64
//! [`Ulid`]: crate::id128::Ulid
//! [`Uuid7`]: crate::id128::Uuid7

/// The impls for the sqlx crate `$sqlx` (`$line` in their docs), whose `Encode` buffer is
/// `<DB as Database>::ArgumentBuffer$(<$buffer>)?`, behind `$feature`.
macro_rules! sqlx_impls {
    ($sqlx:ident, $line:literal, $feature:literal $(, $buffer:lifetime)?) => {
        #[cfg_attr(docsrs, doc(cfg(feature = $feature)))]
        #[doc = concat!("The impl for ", $line, ", behind the feature `", $feature, "`.")]
        impl<DB: $sqlx::Database> $sqlx::Type<DB> for $crate::Id
        where
            i64: $sqlx::Type<DB>,
        {
            /// The database's type for `i64`.
            fn type_info() -> DB::TypeInfo {
                <i64 as $sqlx::Type<DB>>::type_info()
            }

            /// The column types `i64` is read from.
            fn compatible(ty: &DB::TypeInfo) -> bool {
                <i64 as $sqlx::Type<DB>>::compatible(ty)
            }
        }

        #[cfg_attr(docsrs, doc(cfg(feature = $feature)))]
        #[doc = concat!("The impl for ", $line, ", behind the feature `", $feature, "`.")]
        impl<'q, DB: $sqlx::Database> $sqlx::Encode<'q, DB> for $crate::Id
        where
            i64: $sqlx::Encode<'q, DB>,
        {
            /// Writes the ID as an `i64`.
            ///
            /// # Errors
            ///
            /// [`Error::IdTooLargeForI64`](crate::Error::IdTooLargeForI64) for an ID above
            /// `i64::MAX`.
            fn encode_by_ref(
                &self,
                buf: &mut <DB as $sqlx::Database>::ArgumentBuffer$(<$buffer>)?,
            ) -> Result<$sqlx::encode::IsNull, $sqlx::error::BoxDynError> {
                <i64 as $sqlx::Encode<'q, DB>>::encode_by_ref(&self.to_i64()?, buf)
            }

            fn size_hint(&self) -> usize {
                size_of::<i64>()
            }
        }

        #[cfg_attr(docsrs, doc(cfg(feature = $feature)))]
        #[doc = concat!("The impl for ", $line, ", behind the feature `", $feature, "`.")]
        impl<'r, DB: $sqlx::Database> $sqlx::Decode<'r, DB> for $crate::Id
        where
            i64: $sqlx::Decode<'r, DB>,
        {
            /// Reads an `i64`.
            ///
            /// # Errors
            ///
            /// [`Error::NegativeId`](crate::Error::NegativeId) for a negative value.
            fn decode(
                value: <DB as $sqlx::Database>::ValueRef<'r>,
            ) -> Result<$crate::Id, $sqlx::error::BoxDynError> {
                Ok($crate::Id::from_i64(<i64 as $sqlx::Decode<'r, DB>>::decode(value)?)?)
            }
        }
    };
}

/// The impls of the 128-bit ID `$id` as PostgreSQL's `uuid` for the sqlx crate `$sqlx` (`$line`),
/// behind `$feature`; `$from_slice` and `$from_text` read the binary and the text format.
#[cfg(any(feature = "sqlx-postgres", feature = "sqlx-0_8-postgres"))]
macro_rules! sqlx_uuid_impls {
    ($sqlx:ident, $line:literal, $feature:literal, $id:ty, $from_slice:path, $from_text:path) => {
        #[cfg_attr(docsrs, doc(cfg(feature = $feature)))]
        #[doc = concat!("The impl for ", $line, ", behind the feature `", $feature, "`.")]
        impl $sqlx::Type<$sqlx::Postgres> for $id {
            /// `uuid`.
            fn type_info() -> $sqlx::postgres::PgTypeInfo {
                $sqlx::postgres::PgTypeInfo::with_oid($sqlx::postgres::types::Oid(UUID_OID))
            }
        }

        #[cfg_attr(docsrs, doc(cfg(feature = $feature)))]
        #[doc = concat!("The impl for ", $line, ", behind the feature `", $feature, "`.")]
        impl $sqlx::postgres::PgHasArrayType for $id {
            /// `uuid[]`.
            fn array_type_info() -> $sqlx::postgres::PgTypeInfo {
                $sqlx::postgres::PgTypeInfo::with_oid($sqlx::postgres::types::Oid(UUID_ARRAY_OID))
            }
        }

        #[cfg_attr(docsrs, doc(cfg(feature = $feature)))]
        #[doc = concat!("The impl for ", $line, ", behind the feature `", $feature, "`.")]
        impl $sqlx::Encode<'_, $sqlx::Postgres> for $id {
            /// Writes the ID's 16 bytes as a `uuid`.
            fn encode_by_ref(
                &self,
                buf: &mut $sqlx::postgres::PgArgumentBuffer,
            ) -> Result<$sqlx::encode::IsNull, $sqlx::error::BoxDynError> {
                buf.extend_from_slice(&self.to_bytes());
                Ok($sqlx::encode::IsNull::No)
            }

            fn size_hint(&self) -> usize {
                16
            }
        }

        #[cfg_attr(docsrs, doc(cfg(feature = $feature)))]
        #[doc = concat!("The impl for ", $line, ", behind the feature `", $feature, "`.")]
        impl $sqlx::Decode<'_, $sqlx::Postgres> for $id {
            /// Reads a `uuid`, in the binary or the text format.
            ///
            /// # Errors
            ///
            /// [`Error::ParseId`](crate::Error::ParseId) for a value that is not a `uuid` or,
            /// read as a `Uuid7`, not a UUIDv7.
            fn decode(
                value: $sqlx::postgres::PgValueRef<'_>,
            ) -> Result<$id, $sqlx::error::BoxDynError> {
                Ok(match value.format() {
                    $sqlx::postgres::PgValueFormat::Binary => $from_slice(value.as_bytes()?)?,
                    $sqlx::postgres::PgValueFormat::Text => $from_text(value.as_str()?)?,
                })
            }
        }
    };
}

/// PostgreSQL's OIDs of `uuid` and `uuid[]`, fixed for built-in types: naming the type by OID
/// spares a connection the look-up of its name.
#[cfg(any(feature = "sqlx-postgres", feature = "sqlx-0_8-postgres"))]
const UUID_OID: u32 = 2950;
#[cfg(any(feature = "sqlx-postgres", feature = "sqlx-0_8-postgres"))]
const UUID_ARRAY_OID: u32 = 2951;

#[cfg(feature = "sqlx")]
mod sqlx_0_9 {
    sqlx_impls!(sqlx, "sqlx 0.9", "sqlx");
}
#[cfg(feature = "sqlx-postgres")]
mod sqlx_0_9_postgres {
    use super::{UUID_ARRAY_OID, UUID_OID};
    use crate::id128::{Ulid, Uuid7};

    sqlx_uuid_impls!(
        sqlx,
        "sqlx 0.9",
        "sqlx-postgres",
        Uuid7,
        Uuid7::from_slice,
        str::parse
    );
    sqlx_uuid_impls!(
        sqlx,
        "sqlx 0.9",
        "sqlx-postgres",
        Ulid,
        Ulid::from_slice,
        Ulid::parse_uuid
    );
}
#[cfg(feature = "sqlx-0_8")]
mod sqlx_0_8 {
    sqlx_impls!(sqlx_0_8, "sqlx 0.8", "sqlx-0_8", 'q);
}
#[cfg(feature = "sqlx-0_8-postgres")]
mod sqlx_0_8_postgres {
    use super::{UUID_ARRAY_OID, UUID_OID};
    use crate::id128::{Ulid, Uuid7};

    sqlx_uuid_impls!(
        sqlx_0_8,
        "sqlx 0.8",
        "sqlx-0_8-postgres",
        Uuid7,
        Uuid7::from_slice,
        str::parse
    );
    sqlx_uuid_impls!(
        sqlx_0_8,
        "sqlx 0.8",
        "sqlx-0_8-postgres",
        Ulid,
        Ulid::from_slice,
        Ulid::parse_uuid
    );
}
