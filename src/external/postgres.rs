//! `ToSql` and `FromSql` for [`Id`] as PostgreSQL's `BIGINT`, and for [`Uuid7`] and [`Ulid`]
//! as its `uuid` (feature `postgres`), the traits of `postgres-types` 0.2 that the `postgres`
//! 0.19 and `tokio-postgres` 0.7 clients use.
//!
//! `BIGINT` (`INT8`) is signed: an ID is written as its [`Id::to_i64`] value, so an ID above
//! `i64::MAX` is refused with [`Error::IdTooLargeForI64`] rather than stored as a negative
//! number, and a negative value read back is refused with [`Error::NegativeId`]. The client
//! returns its own error with snowmint's as its `source()`.
//!
//! A 128-bit ID is its 16 bytes, big-endian, in a `uuid` column; PostgreSQL compares `uuid`
//! values bytewise, so `ORDER BY` and ranges follow time for both kinds. A `Ulid` is stored
//! as the same 128 bits (its `uuid` text is not its ULID text). A `uuid` read as a `Uuid7`
//! must hold version 7 and variant `0b10` ([`Error::ParseId`], as [`Uuid7::from_u128`]).
//!
//! [`Error::IdTooLargeForI64`]: crate::Error::IdTooLargeForI64
//! [`Error::NegativeId`]: crate::Error::NegativeId
//! [`Error::ParseId`]: crate::Error::ParseId

use std::error::Error as StdError;

use bytes::BytesMut;
use postgres_types::{FromSql, IsNull, ToSql, Type, to_sql_checked};

use crate::id::Id;
use crate::id128::{Ulid, Uuid7};

type BoxError = Box<dyn StdError + Sync + Send>;

#[cfg_attr(docsrs, doc(cfg(feature = "postgres")))]
impl ToSql for Id {
    /// Writes the ID as a `BIGINT`.
    ///
    /// # Errors
    ///
    /// [`Error::IdTooLargeForI64`](crate::Error::IdTooLargeForI64) for an ID above `i64::MAX`.
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        self.to_i64()?.to_sql(ty, out)
    }

    /// `BIGINT` (`INT8`) only.
    fn accepts(ty: &Type) -> bool {
        <i64 as ToSql>::accepts(ty)
    }

    to_sql_checked!();
}

#[cfg_attr(docsrs, doc(cfg(feature = "postgres")))]
impl<'a> FromSql<'a> for Id {
    /// Reads a `BIGINT`.
    ///
    /// # Errors
    ///
    /// [`Error::NegativeId`](crate::Error::NegativeId) for a negative value.
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<Id, BoxError> {
        Ok(Id::from_i64(i64::from_sql(ty, raw)?)?)
    }

    /// `BIGINT` (`INT8`) only.
    fn accepts(ty: &Type) -> bool {
        <i64 as FromSql<'_>>::accepts(ty)
    }
}

/// `ToSql` and `FromSql` for a 128-bit ID `$id` as a `uuid`, read back with `$from_slice`.
macro_rules! uuid_impls {
    ($id:ty, $from_slice:path) => {
        #[cfg_attr(docsrs, doc(cfg(feature = "postgres")))]
        impl ToSql for $id {
            /// Writes the ID's 16 bytes as a `uuid`.
            fn to_sql(&self, _: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
                out.extend_from_slice(&self.to_bytes());
                Ok(IsNull::No)
            }

            /// `uuid` only.
            fn accepts(ty: &Type) -> bool {
                *ty == Type::UUID
            }

            to_sql_checked!();
        }

        #[cfg_attr(docsrs, doc(cfg(feature = "postgres")))]
        impl<'a> FromSql<'a> for $id {
            /// Reads a `uuid`.
            ///
            /// # Errors
            ///
            /// [`Error::ParseId`](crate::Error::ParseId) for a value that is not 16 bytes or,
            /// read as a `Uuid7`, not a UUIDv7.
            fn from_sql(_: &Type, raw: &'a [u8]) -> Result<$id, BoxError> {
                Ok($from_slice(raw)?)
            }

            /// `uuid` only.
            fn accepts(ty: &Type) -> bool {
                *ty == Type::UUID
            }
        }
    };
}

uuid_impls!(Uuid7, Uuid7::from_slice);
uuid_impls!(Ulid, Ulid::from_slice);
