//! `Id` in a real SQLite `INTEGER` column, through rusqlite (feature `rusqlite`), in database
//! files of their own: 100,000 IDs inserted from four threads under a primary key, a time
//! window by ID bounds, `ORDER BY id` as minting order, the column's boundary values, and IDs
//! above `i64::MAX` refused. `Uuid7` and `Ulid` as 16-byte `BLOB`s (`db/id128_sqlite.rs`): the
//! same order and window, and blobs of another length refused.
//!
//! sqlx's impls are generic over the database and run on PostgreSQL (`db_postgres.rs`): sqlx's
//! SQLite driver needs an older libsqlite3-sys than the rusqlite tested here, and a build holds
//! one.

// The root crate's test fixtures that these tests share: clocks, temporary files, threads.
#[allow(dead_code)]
#[path = "../../tests/common"]
mod common {
    pub mod clocks;
    pub mod files;
    pub mod threads;
}
mod db;

// `Uuid7` and `Ulid` in a `BLOB` column.
#[path = "db/id128_sqlite.rs"]
mod id128_sqlite;

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior, params};
use snowmint::Id;

use common::files::TempDir;
use db::{BOUNDARIES, Row, assert_negative, assert_too_large, too_large, window_bounds};

/// How long a writer waits for another's lock before failing.
const BUSY: Duration = Duration::from_secs(30);

const CREATE: &str = "CREATE TABLE ids (id INTEGER PRIMARY KEY, thread INTEGER NOT NULL, \
                      seq INTEGER NOT NULL, minted_ms INTEGER NOT NULL)";
const INSERT: &str = "INSERT INTO ids (id, thread, seq, minted_ms) VALUES (?1, ?2, ?3, ?4)";
const BY_ID: &str = "SELECT id FROM ids WHERE id >= ?1 AND id <= ?2 ORDER BY id";
const MINTED: &str = "SELECT id FROM ids WHERE minted_ms >= ?1 AND minted_ms < ?2 ORDER BY id";
const THREADS_BY_ID: &str = "SELECT thread, seq FROM ids ORDER BY id";

/// A rusqlite connection to `path` (a WAL database its writers share), waiting out locks.
fn open(path: &Path) -> Connection {
    let connection = Connection::open(path).unwrap();
    connection.busy_timeout(BUSY).unwrap();
    connection
        .pragma_update(None, "journal_mode", "WAL")
        .unwrap();
    connection
}

/// (a), (b), (c) with rusqlite: the workload (a transaction per batch), the window and the
/// order.
#[test]
fn rusqlite_keeps_ids_unique_windowed_and_ordered() {
    let dir = TempDir::new("db-rusqlite");
    let path = dir.join("ids.sqlite");
    open(&path).execute_batch(CREATE).unwrap();
    let rows = db::mint_and_insert(
        || open(&path),
        |connection, batch: &[Row]| {
            let tx = connection
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .unwrap();
            {
                let mut insert = tx.prepare_cached(INSERT).unwrap();
                for row in batch {
                    // A duplicate ID would fail here, on the primary key.
                    insert
                        .execute(params![row.id, row.thread, row.seq, row.minted_ms])
                        .unwrap();
                }
            }
            tx.commit().unwrap();
        },
    );

    let connection = open(&path);
    let ids = |sql: &str, from: &dyn rusqlite::ToSql, to: &dyn rusqlite::ToSql| -> Vec<Id> {
        let mut query = connection.prepare(sql).unwrap();
        query
            .query_map([from, to], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let (from, to) = window_bounds();
    let by_id = ids(BY_ID, &from, &to);
    let minted = ids(MINTED, &(db::WINDOW.0 as i64), &(db::WINDOW.1 as i64));
    db::check_window(&by_id, &minted, &rows);

    let threads_by_id: Vec<(i32, i32)> = connection
        .prepare(THREADS_BY_ID)
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    db::check_order(&threads_by_id);
}

/// (d), (e) with rusqlite: 0 and `i64::MAX` round-trip; an ID above it is refused, and a
/// negative `INTEGER` is refused when read.
#[test]
fn rusqlite_checks_the_signed_range() {
    let connection = Connection::open_in_memory().unwrap();
    connection.execute_batch(CREATE).unwrap();

    for id in BOUNDARIES {
        connection.execute(INSERT, params![id, 0, 0, 0]).unwrap();
        let back: Id = connection
            .query_row("SELECT id FROM ids WHERE id = ?1", [id], |row| row.get(0))
            .unwrap();
        assert_eq!(back, id);
    }

    for id in too_large() {
        let err = connection
            .execute(INSERT, params![id, 0, 0, 0])
            .unwrap_err();
        assert!(
            matches!(err, rusqlite::Error::ToSqlConversionFailure(_)),
            "{err:?}"
        );
        assert_too_large(&err, id);
    }
    let count: i64 = connection
        .query_row("SELECT count(*) FROM ids", [], |row| row.get(0))
        .unwrap();
    assert_eq!(count, BOUNDARIES.len() as i64, "a refused ID was stored");

    connection.execute(INSERT, params![-5i64, 0, 0, 0]).unwrap();
    let err = connection
        .query_row("SELECT id FROM ids WHERE id < 0", [], |row| {
            row.get::<_, Id>(0)
        })
        .unwrap_err();
    assert!(
        matches!(err, rusqlite::Error::FromSqlConversionFailure(..)),
        "{err:?}"
    );
    assert_negative(&err, -5);
}
