//! sqlx's `Type`, `Encode` and `Decode` for [`Id`] (feature `sqlx`): on every database whose
//! `i64` sqlx maps (PostgreSQL `BIGINT`, SQLite `INTEGER`, MySQL `BIGINT`), an ID is that
//! signed 64-bit integer.
//!
//! Encoding writes [`Id::to_i64`], so an ID above `i64::MAX` is refused with
//! [`Error::IdTooLargeForI64`] rather than stored as a negative number: `Query::try_bind`
//! returns that error, `Query::bind` defers it to the query's execution as sqlx's
//! `Error::Encode` with its message. Decoding a negative value is refused with
//! [`Error::NegativeId`] (sqlx's `Error::ColumnDecode`, whose `source()` it is). The impls are generic over the database, so snowmint needs none of
//! sqlx's driver or runtime features: the application's own `sqlx` chooses them.
//!
//! [`Error::IdTooLargeForI64`]: crate::Error::IdTooLargeForI64
//! [`Error::NegativeId`]: crate::Error::NegativeId

use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::{Database, Decode, Encode, Type};

use crate::id::Id;

#[cfg_attr(docsrs, doc(cfg(feature = "sqlx")))]
impl<DB: Database> Type<DB> for Id
where
    i64: Type<DB>,
{
    /// The database's type for `i64`.
    fn type_info() -> DB::TypeInfo {
        <i64 as Type<DB>>::type_info()
    }

    /// The column types `i64` is read from.
    fn compatible(ty: &DB::TypeInfo) -> bool {
        <i64 as Type<DB>>::compatible(ty)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "sqlx")))]
impl<'q, DB: Database> Encode<'q, DB> for Id
where
    i64: Encode<'q, DB>,
{
    /// Writes the ID as an `i64`.
    ///
    /// # Errors
    ///
    /// [`Error::IdTooLargeForI64`](crate::Error::IdTooLargeForI64) for an ID above `i64::MAX`.
    fn encode_by_ref(
        &self,
        buf: &mut <DB as Database>::ArgumentBuffer<'q>,
    ) -> Result<IsNull, BoxDynError> {
        self.to_i64()?.encode_by_ref(buf)
    }

    fn size_hint(&self) -> usize {
        size_of::<i64>()
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "sqlx")))]
impl<'r, DB: Database> Decode<'r, DB> for Id
where
    i64: Decode<'r, DB>,
{
    /// Reads an `i64`.
    ///
    /// # Errors
    ///
    /// [`Error::NegativeId`](crate::Error::NegativeId) for a negative value.
    fn decode(value: <DB as Database>::ValueRef<'r>) -> Result<Id, BoxDynError> {
        Ok(Id::from_i64(<i64 as Decode<'r, DB>>::decode(value)?)?)
    }
}
