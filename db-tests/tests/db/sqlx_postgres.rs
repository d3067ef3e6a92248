//! The sqlx tests of `db_postgres.rs`, compiled once per sqlx line: the parent module names the
//! crate as `sqlx` and gives `sql`, which makes that line's query text from a `&str`.

use snowmint::Id;
use tokio::runtime::{Builder, Runtime};

use super::{sql, sqlx};
use crate::db::{
    self, BOUNDARIES, Row, assert_negative, assert_too_large, too_large, window_bounds,
};
use crate::{Table, pg_url};

/// A single-threaded tokio runtime and a sqlx connection on it; fails the test when the server
/// is unreachable.
pub(super) fn connect_sqlx(url: &str) -> (Runtime, sqlx::PgConnection) {
    let runtime = Builder::new_current_thread().enable_all().build().unwrap();
    let connection = runtime
        .block_on(<sqlx::PgConnection as sqlx::Connection>::connect(url))
        .unwrap_or_else(|err| panic!("SNOWMINT_PG_URL is set but {url} is unreachable: {err}"));
    (runtime, connection)
}

/// (a), (b), (c) with this sqlx on PostgreSQL.
#[test]
fn sqlx_postgres_keeps_ids_unique_windowed_and_ordered() {
    let Some(url) = pg_url("sqlx_postgres_keeps_ids_unique_windowed_and_ordered") else {
        return;
    };
    let table = Table::create(&url, "sqlx_pg");
    let name = &table.name;
    let rows = db::mint_and_insert(
        || connect_sqlx(&url),
        |(runtime, connection), batch: &[Row]| {
            let mut insert = sqlx::QueryBuilder::new(format!(
                "INSERT INTO {name} (id, thread, seq, minted_ms) "
            ));
            insert.push_values(batch, |mut values, row| {
                values
                    .push_bind(row.id)
                    .push_bind(row.thread)
                    .push_bind(row.seq)
                    .push_bind(row.minted_ms);
            });
            let done = runtime
                .block_on(insert.build().execute(&mut *connection))
                .unwrap();
            assert_eq!(done.rows_affected(), batch.len() as u64);
        },
    );

    let (runtime, mut connection) = connect_sqlx(&url);
    let (from, to) = window_bounds();
    let by_id: Vec<Id> = runtime
        .block_on(
            sqlx::query_scalar(sql(&format!(
                "SELECT id FROM {name} WHERE id >= $1 AND id <= $2 ORDER BY id"
            )))
            .bind(from)
            .bind(to)
            .fetch_all(&mut connection),
        )
        .unwrap();
    let minted: Vec<Id> = runtime
        .block_on(
            sqlx::query_scalar(sql(&format!(
                "SELECT id FROM {name} WHERE minted_ms >= $1 AND minted_ms < $2 ORDER BY id"
            )))
            .bind(db::WINDOW.0 as i64)
            .bind(db::WINDOW.1 as i64)
            .fetch_all(&mut connection),
        )
        .unwrap();
    db::check_window(&by_id, &minted, &rows);

    let threads_by_id: Vec<(i32, i32)> = runtime
        .block_on(
            sqlx::query_as(sql(&format!("SELECT thread, seq FROM {name} ORDER BY id")))
                .fetch_all(&mut connection),
        )
        .unwrap();
    db::check_order(&threads_by_id);
}

/// (d), (e) with this sqlx on PostgreSQL.
#[test]
fn sqlx_postgres_checks_the_signed_range() {
    let Some(url) = pg_url("sqlx_postgres_checks_the_signed_range") else {
        return;
    };
    let table = Table::create(&url, "sqlx_pg_range");
    let name = &table.name;
    let (runtime, mut connection) = connect_sqlx(&url);
    let insert = format!("INSERT INTO {name} (id, thread, seq, minted_ms) VALUES ($1, 0, 0, 0)");

    for id in BOUNDARIES {
        runtime
            .block_on(sqlx::query(sql(&insert)).bind(id).execute(&mut connection))
            .unwrap();
        let back: Id = runtime
            .block_on(
                sqlx::query_scalar(sql(&format!("SELECT id FROM {name} WHERE id = $1")))
                    .bind(id)
                    .fetch_one(&mut connection),
            )
            .unwrap();
        assert_eq!(back, id);
    }

    for id in too_large() {
        let err = runtime
            .block_on(sqlx::query(sql(&insert)).bind(id).execute(&mut connection))
            .unwrap_err();
        assert!(matches!(err, sqlx::Error::Encode(_)), "{err:?}");
        db::assert_too_large_message(&err, id);
        let err = sqlx::query::<sqlx::Postgres>(sql(&insert))
            .try_bind(id)
            .unwrap_err();
        assert_too_large(&*err, id);
    }
    let count: i64 = runtime
        .block_on(
            sqlx::query_scalar(sql(&format!("SELECT count(*) FROM {name}")))
                .fetch_one(&mut connection),
        )
        .unwrap();
    assert_eq!(count, BOUNDARIES.len() as i64, "a refused ID was stored");

    runtime
        .block_on(
            sqlx::query(sql(&format!(
                "INSERT INTO {name} (id, thread, seq, minted_ms) VALUES (-5, 0, 0, 0)"
            )))
            .execute(&mut connection),
        )
        .unwrap();
    let err = runtime
        .block_on(
            sqlx::query_scalar::<_, Id>(sql(&format!("SELECT id FROM {name} WHERE id < 0")))
                .fetch_one(&mut connection),
        )
        .unwrap_err();
    assert!(matches!(err, sqlx::Error::ColumnDecode { .. }), "{err:?}");
    assert_negative(&err, -5);
}
