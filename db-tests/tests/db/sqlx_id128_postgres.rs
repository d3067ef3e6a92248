//! `Uuid7` and `Ulid` in a PostgreSQL `uuid` column through sqlx, compiled once per sqlx line
//! as `sqlx_postgres.rs` is: the order and the window, `uuid[]` parameters and results, both
//! of PostgreSQL's formats (a prepared query's binary, a raw query's text), and a version 4
//! `uuid` refused as a `Uuid7`.

use snowmint::id128::{Ulid, Uuid7};

use super::tests::connect_sqlx;
use super::{sql, sqlx};
use crate::db::id128::{
    Id128, assert_not_uuid7, in_window, insertion_order, minted, uuid_text, window_bounds,
};
use crate::{Table, pg_url};

/// Inserts [`minted`] IDs of kind `K` (out of order) into a `uuid` column, then checks the
/// order (as binary and as text), the window (by bounds and as a `uuid[]`) and PostgreSQL's
/// text of each; returns the IDs in minting order.
fn stores_in_order_and_windows<K>(test: &str, url: &str) -> Vec<K>
where
    K: Id128
        + sqlx::Type<sqlx::Postgres>
        + sqlx::postgres::PgHasArrayType
        + for<'q> sqlx::Encode<'q, sqlx::Postgres>
        + for<'r> sqlx::Decode<'r, sqlx::Postgres>
        + Send
        + Unpin
        + 'static,
{
    let table = Table::with_columns(url, test, "id uuid PRIMARY KEY");
    let name = &table.name;
    let minted = minted::<K>();
    let (runtime, mut connection) = connect_sqlx(url);
    let mut insert = sqlx::QueryBuilder::new(format!("INSERT INTO {name} (id) "));
    insert.push_values(insertion_order(&minted), |mut values, id| {
        values.push_bind(id);
    });
    let done = runtime
        .block_on(insert.build().execute(&mut connection))
        .unwrap();
    assert_eq!(done.rows_affected(), minted.len() as u64);

    let by_id: Vec<(K, String)> = runtime
        .block_on(
            sqlx::query_as(sql(&format!(
                "SELECT id, id::text AS text FROM {name} ORDER BY id"
            )))
            .fetch_all(&mut connection),
        )
        .unwrap();
    assert!(
        by_id.iter().map(|(id, _)| *id).eq(minted.iter().copied()),
        "ORDER BY id is not minting order"
    );
    for (id, text) in &by_id {
        assert_eq!(*text, uuid_text(id.to_u128()));
    }

    // A raw query's results come in PostgreSQL's text format.
    let rows = runtime
        .block_on(
            sqlx::raw_sql(sql(&format!("SELECT id FROM {name} ORDER BY id")))
                .fetch_all(&mut connection),
        )
        .unwrap();
    let as_text: Vec<K> = rows
        .iter()
        .map(|row| sqlx::Row::try_get(row, 0).unwrap())
        .collect();
    assert!(as_text == minted, "the text format read back");

    let (from, to) = window_bounds::<K>();
    let window: Vec<K> = runtime
        .block_on(
            sqlx::query_scalar(sql(&format!(
                "SELECT id FROM {name} WHERE id BETWEEN $1 AND $2 ORDER BY id"
            )))
            .bind(from)
            .bind(to)
            .fetch_all(&mut connection),
        )
        .unwrap();
    let expected = in_window(&minted);
    assert!(window == expected, "the rows between the window's bounds");

    let array: Vec<K> = runtime
        .block_on(
            sqlx::query_scalar(sql(&format!(
                "SELECT array_agg(id ORDER BY id) FROM {name} WHERE id = ANY($1)"
            )))
            .bind(expected.clone())
            .fetch_one(&mut connection),
        )
        .unwrap();
    assert!(array == expected, "the rows of a uuid[] parameter");
    minted
}

#[test]
fn sqlx_postgres_stores_uuid7_in_order_and_as_its_text() {
    let Some(url) = pg_url("sqlx_postgres_stores_uuid7_in_order_and_as_its_text") else {
        return;
    };
    let minted = stores_in_order_and_windows::<Uuid7>("sqlx_pg_uuid7", &url);

    let (runtime, mut connection) = connect_sqlx(&url);
    let text: String = runtime
        .block_on(
            sqlx::query_scalar(sql("SELECT $1::uuid::text"))
                .bind(minted[0])
                .fetch_one(&mut connection),
        )
        .unwrap();
    assert_eq!(text, minted[0].to_string());
}

#[test]
fn sqlx_postgres_stores_ulid_as_the_same_bits() {
    let Some(url) = pg_url("sqlx_postgres_stores_ulid_as_the_same_bits") else {
        return;
    };
    stores_in_order_and_windows::<Ulid>("sqlx_pg_ulid", &url);
}

#[test]
fn sqlx_postgres_refuses_a_uuid_of_another_version_as_uuid7() {
    let Some(url) = pg_url("sqlx_postgres_refuses_a_uuid_of_another_version_as_uuid7") else {
        return;
    };
    let (runtime, mut connection) = connect_sqlx(&url);
    let v4 = "SELECT u, u::text FROM (SELECT gen_random_uuid() AS u) AS v4";
    let (ulid, text): (Ulid, String) = runtime
        .block_on(sqlx::query_as(sql(v4)).fetch_one(&mut connection))
        .unwrap();
    let bits = u128::from_str_radix(&text.replace('-', ""), 16).unwrap();
    assert_eq!(ulid.to_u128(), bits, "every 128 bits are a ULID");

    let err = runtime
        .block_on(
            sqlx::query_scalar::<_, Uuid7>(sql("SELECT $1::text::uuid"))
                .bind(&text)
                .fetch_one(&mut connection),
        )
        .unwrap_err();
    assert!(matches!(err, sqlx::Error::ColumnDecode { .. }), "{err:?}");
    assert_not_uuid7(&err, bits);

    // The same refusal from the text format.
    let row = runtime
        .block_on(sqlx::raw_sql(sql(&format!("SELECT '{text}'::uuid"))).fetch_one(&mut connection))
        .unwrap();
    let err = sqlx::Row::try_get::<Uuid7, _>(&row, 0).unwrap_err();
    assert_not_uuid7(&err, bits);

    // A column of another type is not read as a 128-bit ID.
    let err = runtime
        .block_on(sqlx::query_scalar::<_, Ulid>(sql("SELECT 1::int8")).fetch_one(&mut connection))
        .unwrap_err();
    assert!(matches!(err, sqlx::Error::ColumnDecode { .. }), "{err:?}");
    assert!(err.to_string().contains("INT8"), "{err}");
}
