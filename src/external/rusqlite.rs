//! rusqlite's `ToSql` and `FromSql` for [`Id`], [`Uuid7`] and [`Ulid`] (feature `rusqlite`),
//! for rusqlite 0.32 through 0.43, whose traits are the same: an ID is SQLite's `INTEGER`, a
//! signed 64-bit integer; a 128-bit ID is a 16-byte `BLOB`, its bytes big-endian, which SQLite
//! compares bytewise, so `ORDER BY` and ranges follow time.
//!
//! Writing uses [`Id::to_i64`], so an ID above `i64::MAX` is refused with
//! [`Error::IdTooLargeForI64`] (rusqlite's `Error::ToSqlConversionFailure`) rather than stored
//! as a negative number; reading a negative value is refused with [`Error::NegativeId`]
//! (rusqlite's `Error::FromSqlConversionFailure`), as is a blob that is not 16 bytes
//! ([`Error::ParseId`]) or, read as a `Uuid7`, not a UUIDv7.
//!
//! [`Error::IdTooLargeForI64`]: crate::Error::IdTooLargeForI64
//! [`Error::NegativeId`]: crate::Error::NegativeId
//! [`Error::ParseId`]: crate::Error::ParseId

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

use crate::id::Id;
use crate::id128::{Ulid, Uuid7};

#[cfg_attr(docsrs, doc(cfg(feature = "rusqlite")))]
impl ToSql for Id {
    /// Writes the ID as an `INTEGER`.
    ///
    /// # Errors
    ///
    /// [`Error::IdTooLargeForI64`](crate::Error::IdTooLargeForI64) for an ID above `i64::MAX`.
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        let value = self
            .to_i64()
            .map_err(|err| rusqlite::Error::ToSqlConversionFailure(Box::new(err)))?;
        Ok(ToSqlOutput::from(value))
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "rusqlite")))]
impl FromSql for Id {
    /// Reads an `INTEGER`.
    ///
    /// # Errors
    ///
    /// [`Error::NegativeId`](crate::Error::NegativeId) for a negative value, and rusqlite's
    /// `InvalidType` for a value that is not an integer.
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Id> {
        Id::from_i64(value.as_i64()?).map_err(|err| FromSqlError::Other(Box::new(err)))
    }
}

/// `ToSql` and `FromSql` for a 128-bit ID `$id` as a 16-byte blob, read back with
/// `$from_slice`.
macro_rules! blob_impls {
    ($id:ty, $from_slice:path) => {
        #[cfg_attr(docsrs, doc(cfg(feature = "rusqlite")))]
        impl ToSql for $id {
            /// Writes the ID's 16 bytes, big-endian, as a `BLOB`.
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                Ok(ToSqlOutput::from(self.to_bytes().to_vec()))
            }
        }

        #[cfg_attr(docsrs, doc(cfg(feature = "rusqlite")))]
        impl FromSql for $id {
            /// Reads a 16-byte `BLOB`.
            ///
            /// # Errors
            ///
            /// [`Error::ParseId`](crate::Error::ParseId) for a blob that is not 16 bytes or,
            /// read as a `Uuid7`, not a UUIDv7, and rusqlite's `InvalidType` for a value that
            /// is not a blob.
            fn column_result(value: ValueRef<'_>) -> FromSqlResult<$id> {
                $from_slice(value.as_blob()?).map_err(|err| FromSqlError::Other(Box::new(err)))
            }
        }
    };
}

blob_impls!(Uuid7, Uuid7::from_slice);
blob_impls!(Ulid, Ulid::from_slice);
