//! `ToSql` and `FromSql` for [`Id`] as PostgreSQL's `BIGINT` (feature `postgres`), the traits
//! of `postgres-types` 0.2 that the `postgres` 0.19 and `tokio-postgres` 0.7 clients use.
//!
//! `BIGINT` (`INT8`) is signed: an ID is written as its [`Id::to_i64`] value, so an ID above
//! `i64::MAX` is refused with [`Error::IdTooLargeForI64`] rather than stored as a negative
//! number, and a negative value read back is refused with [`Error::NegativeId`]. The client
//! returns its own error with snowmint's as its `source()`.
//!
//! [`Error::IdTooLargeForI64`]: crate::Error::IdTooLargeForI64
//! [`Error::NegativeId`]: crate::Error::NegativeId

use std::error::Error as StdError;

use bytes::BytesMut;
use postgres_types::{FromSql, IsNull, ToSql, Type, to_sql_checked};

use crate::id::Id;

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
