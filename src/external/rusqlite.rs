//! rusqlite's `ToSql` and `FromSql` for [`Id`] (feature `rusqlite`), for rusqlite 0.32 through
//! 0.43, whose traits are the same: an ID is SQLite's `INTEGER`, a signed 64-bit integer.
//!
//! Writing uses [`Id::to_i64`], so an ID above `i64::MAX` is refused with
//! [`Error::IdTooLargeForI64`] (rusqlite's `Error::ToSqlConversionFailure`) rather than stored
//! as a negative number; reading a negative value is refused with [`Error::NegativeId`]
//! (rusqlite's `Error::FromSqlConversionFailure`).
//!
//! [`Error::IdTooLargeForI64`]: crate::Error::IdTooLargeForI64
//! [`Error::NegativeId`]: crate::Error::NegativeId

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

use crate::id::Id;

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
