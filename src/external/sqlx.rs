//! sqlx's `Type`, `Encode` and `Decode` for [`Id`]: feature `sqlx` for sqlx 0.9, feature
//! `sqlx-0_8` for sqlx 0.8 (both may be on). On every database whose `i64` sqlx maps
//! (PostgreSQL `BIGINT`, SQLite `INTEGER`, MySQL `BIGINT`), an ID is that signed 64-bit
//! integer.
//!
//! Encoding writes [`Id::to_i64`], so an ID above `i64::MAX` is refused with
//! [`Error::IdTooLargeForI64`] rather than stored as a negative number: `Query::try_bind`
//! returns that error, `Query::bind` defers it to the query's execution as sqlx's
//! `Error::Encode` with its message. Decoding a negative value is refused with
//! [`Error::NegativeId`] (sqlx's `Error::ColumnDecode`, whose `source()` it is). The impls are
//! generic over the database, so snowmint needs none of sqlx's driver or runtime features: the
//! application's own `sqlx` chooses them.
//!
//! The two sqlx lines differ only in `Encode`'s buffer type (0.9 dropped its lifetime), so one
//! macro writes both sets of impls.
//!
//! [`Error::IdTooLargeForI64`]: crate::Error::IdTooLargeForI64
//! [`Error::NegativeId`]: crate::Error::NegativeId

/// The impls for the sqlx crate `$sqlx`, whose `Encode` buffer is
/// `<DB as Database>::ArgumentBuffer$(<$buffer>)?`, behind `$feature`.
macro_rules! sqlx_impls {
    ($sqlx:ident, $feature:literal $(, $buffer:lifetime)?) => {
        #[cfg_attr(docsrs, doc(cfg(feature = $feature)))]
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

#[cfg(feature = "sqlx")]
sqlx_impls!(sqlx, "sqlx");
#[cfg(feature = "sqlx-0_8")]
sqlx_impls!(sqlx_0_8, "sqlx-0_8", 'q);
