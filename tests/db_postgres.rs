//! `Id` in a real PostgreSQL `BIGINT` column, through the `postgres` client (feature
//! `postgres`) and through sqlx (feature `sqlx`): 100,000 IDs inserted from four threads under
//! a primary key, a time window by ID bounds, `ORDER BY id` as minting order, the column's
//! boundary values, and IDs above `i64::MAX` refused.
//!
//! The tests connect to `SNOWMINT_PG_URL` (`.ci/check` starts a private server and sets it,
//! e.g. `postgres://postgres@127.0.0.1:35432/postgres`), each in tables of its own. Without it
//! they print that they are skipped and pass; with it, a server they cannot reach fails them.

mod common;
mod db;

use postgres::{Client, NoTls};
use postgres_types::ToSql;
use snowmint::Id;
use sqlx::{Connection, PgConnection, Postgres, QueryBuilder};
use tokio::runtime::{Builder, Runtime};

use common::files::unique_suffix;
use db::{BOUNDARIES, Row, assert_negative, assert_too_large, too_large, window_bounds};

/// The server's URL, or `None` (and a message) when the test is skipped.
fn pg_url(test: &str) -> Option<String> {
    match std::env::var("SNOWMINT_PG_URL") {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ => {
            eprintln!(
                "skipped {test}: SNOWMINT_PG_URL is not set, so there is no PostgreSQL to test \
                 against (.ci/check starts one and sets it; or set it to a server's URL, such as \
                 postgres://postgres@127.0.0.1:5432/postgres)"
            );
            None
        }
    }
}

/// A table name no other test or run uses: `snowmint_<test>_<pid>_<nanos>_<n>`.
pub fn table_name(test: &str) -> String {
    format!("snowmint_{test}_{}", unique_suffix())
}

/// A connection with the `postgres` client; fails the test when the server is unreachable.
fn connect(url: &str) -> Client {
    Client::connect(url, NoTls)
        .unwrap_or_else(|err| panic!("SNOWMINT_PG_URL is set but {url} is unreachable: {err}"))
}

/// A single-threaded tokio runtime and a sqlx connection on it; fails the test when the server
/// is unreachable.
fn connect_sqlx(url: &str) -> (Runtime, PgConnection) {
    let runtime = Builder::new_current_thread().enable_all().build().unwrap();
    let connection = runtime
        .block_on(PgConnection::connect(url))
        .unwrap_or_else(|err| panic!("SNOWMINT_PG_URL is set but {url} is unreachable: {err}"));
    (runtime, connection)
}

/// A table of its own for one test, dropped when the test ends (passed or failed).
struct Table {
    name: String,
    url: String,
}

impl Table {
    /// Creates `<name>(id BIGINT PRIMARY KEY, thread INT, seq INT, minted_ms BIGINT)`.
    fn create(url: &str, test: &str) -> Table {
        let name = table_name(test);
        connect(url)
            .batch_execute(&format!(
                "CREATE TABLE {name} (id BIGINT PRIMARY KEY, thread INT NOT NULL, \
                 seq INT NOT NULL, minted_ms BIGINT NOT NULL)"
            ))
            .unwrap();
        Table {
            name,
            url: url.to_owned(),
        }
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        if let Ok(mut client) = Client::connect(&self.url, NoTls) {
            let _ = client.batch_execute(&format!("DROP TABLE IF EXISTS {}", self.name));
        }
    }
}

/// `INSERT INTO <table> VALUES ($1, $2, $3, $4), ...`: one statement per batch.
fn insert_sql(table: &str, rows: usize) -> String {
    let values: Vec<String> = (0..rows)
        .map(|r| {
            let p = 4 * r;
            format!("(${}, ${}, ${}, ${})", p + 1, p + 2, p + 3, p + 4)
        })
        .collect();
    format!(
        "INSERT INTO {table} (id, thread, seq, minted_ms) VALUES {}",
        values.join(", ")
    )
}

/// (a), (b), (c) with the `postgres` client: the workload, the window and the order.
#[test]
fn postgres_client_keeps_ids_unique_windowed_and_ordered() {
    let Some(url) = pg_url("postgres_client_keeps_ids_unique_windowed_and_ordered") else {
        return;
    };
    let table = Table::create(&url, "pg");
    let sql = insert_sql(&table.name, db::BATCH);
    let rows = db::mint_and_insert(
        || connect(&url),
        |client, batch: &[Row]| {
            let params: Vec<&(dyn ToSql + Sync)> = batch
                .iter()
                .flat_map(|row| -> [&(dyn ToSql + Sync); 4] {
                    [&row.id, &row.thread, &row.seq, &row.minted_ms]
                })
                .collect();
            // A duplicate ID would fail here, on the primary key.
            assert_eq!(client.execute(&sql, &params).unwrap(), batch.len() as u64);
        },
    );

    let mut client = connect(&url);
    let name = &table.name;
    let (from, to) = window_bounds();
    let mut ids = |sql: &str, params: &[&(dyn ToSql + Sync)]| -> Vec<Id> {
        let rows = client.query(sql, params).unwrap();
        rows.iter().map(|row| row.get::<_, Id>(0)).collect()
    };
    let by_id = ids(
        &format!("SELECT id FROM {name} WHERE id >= $1 AND id <= $2 ORDER BY id"),
        &[&from, &to],
    );
    let (start, end) = (db::WINDOW.0 as i64, db::WINDOW.1 as i64);
    let minted = ids(
        &format!("SELECT id FROM {name} WHERE minted_ms >= $1 AND minted_ms < $2 ORDER BY id"),
        &[&start, &end],
    );
    db::check_window(&by_id, &minted, &rows);

    let threads_by_id: Vec<(i32, i32)> = client
        .query(&format!("SELECT thread, seq FROM {name} ORDER BY id"), &[])
        .unwrap()
        .iter()
        .map(|row| (row.get(0), row.get(1)))
        .collect();
    db::check_order(&threads_by_id);
}

/// (d), (e) with the `postgres` client: 0 and `i64::MAX` round-trip; an ID above it is refused
/// before anything is sent, and a negative `BIGINT` is refused when read.
#[test]
fn postgres_client_checks_the_signed_range() {
    let Some(url) = pg_url("postgres_client_checks_the_signed_range") else {
        return;
    };
    let table = Table::create(&url, "pg_range");
    let name = &table.name;
    let mut client = connect(&url);
    let insert = format!("INSERT INTO {name} (id, thread, seq, minted_ms) VALUES ($1, 0, 0, 0)");

    for id in BOUNDARIES {
        client.execute(&insert, &[&id]).unwrap();
        let back: Id = client
            .query_one(&format!("SELECT id FROM {name} WHERE id = $1"), &[&id])
            .unwrap()
            .get(0);
        assert_eq!(back, id);
        let raw: i64 = client
            .query_one(&format!("SELECT id FROM {name} WHERE id = $1"), &[&id])
            .unwrap()
            .get(0);
        assert_eq!(raw as u64, id.to_u64());
    }

    for id in too_large() {
        let err = client.execute(&insert, &[&id]).unwrap_err();
        assert_too_large(&err, id);
    }
    let count: i64 = client
        .query_one(&format!("SELECT count(*) FROM {name}"), &[])
        .unwrap()
        .get(0);
    assert_eq!(count, BOUNDARIES.len() as i64, "a refused ID was stored");

    client
        .execute(
            &format!("INSERT INTO {name} (id, thread, seq, minted_ms) VALUES (-5, 0, 0, 0)"),
            &[],
        )
        .unwrap();
    let row = client
        .query_one(&format!("SELECT id FROM {name} WHERE id < 0"), &[])
        .unwrap();
    let err = row.try_get::<_, Id>(0).unwrap_err();
    assert_negative(&err, -5);
}

/// (a), (b), (c) with sqlx on PostgreSQL.
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
            let mut insert =
                QueryBuilder::new(format!("INSERT INTO {name} (id, thread, seq, minted_ms) "));
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
            sqlx::query_scalar(&format!(
                "SELECT id FROM {name} WHERE id >= $1 AND id <= $2 ORDER BY id"
            ))
            .bind(from)
            .bind(to)
            .fetch_all(&mut connection),
        )
        .unwrap();
    let minted: Vec<Id> = runtime
        .block_on(
            sqlx::query_scalar(&format!(
                "SELECT id FROM {name} WHERE minted_ms >= $1 AND minted_ms < $2 ORDER BY id"
            ))
            .bind(db::WINDOW.0 as i64)
            .bind(db::WINDOW.1 as i64)
            .fetch_all(&mut connection),
        )
        .unwrap();
    db::check_window(&by_id, &minted, &rows);

    let threads_by_id: Vec<(i32, i32)> = runtime
        .block_on(
            sqlx::query_as(&format!("SELECT thread, seq FROM {name} ORDER BY id"))
                .fetch_all(&mut connection),
        )
        .unwrap();
    db::check_order(&threads_by_id);
}

/// (d), (e) with sqlx on PostgreSQL.
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
            .block_on(sqlx::query(&insert).bind(id).execute(&mut connection))
            .unwrap();
        let back: Id = runtime
            .block_on(
                sqlx::query_scalar(&format!("SELECT id FROM {name} WHERE id = $1"))
                    .bind(id)
                    .fetch_one(&mut connection),
            )
            .unwrap();
        assert_eq!(back, id);
    }

    for id in too_large() {
        let err = runtime
            .block_on(sqlx::query(&insert).bind(id).execute(&mut connection))
            .unwrap_err();
        assert!(matches!(err, sqlx::Error::Encode(_)), "{err:?}");
        db::assert_too_large_message(&err, id);
        let err = sqlx::query::<Postgres>(&insert).try_bind(id).unwrap_err();
        assert_too_large(&*err, id);
    }
    let count: i64 = runtime
        .block_on(
            sqlx::query_scalar(&format!("SELECT count(*) FROM {name}")).fetch_one(&mut connection),
        )
        .unwrap();
    assert_eq!(count, BOUNDARIES.len() as i64, "a refused ID was stored");

    runtime
        .block_on(
            sqlx::query(&format!(
                "INSERT INTO {name} (id, thread, seq, minted_ms) VALUES (-5, 0, 0, 0)"
            ))
            .execute(&mut connection),
        )
        .unwrap();
    let err = runtime
        .block_on(
            sqlx::query_scalar::<_, Id>(&format!("SELECT id FROM {name} WHERE id < 0"))
                .fetch_one(&mut connection),
        )
        .unwrap_err();
    assert!(matches!(err, sqlx::Error::ColumnDecode { .. }), "{err:?}");
    assert_negative(&err, -5);
}
