//! `Uuid7` and `Ulid` in a SQLite `BLOB` column through rusqlite: 16 bytes, big-endian, that
//! round-trip, sort by `ORDER BY id` in minting order and page by a window's `min_at`/`max_at`
//! bounds; a blob of another length, or a `Uuid7` of another version, is refused by name.

use rusqlite::types::FromSql;
use rusqlite::{Connection, ToSql, params};
use snowmint::Error;
use snowmint::error::ParseIdReason;
use snowmint::id128::{Ulid, Uuid7};

use crate::db::id128::{
    Id128, assert_not_uuid7, in_window, insertion_order, minted, window_bounds,
};
use crate::db::snowmint_error;

const CREATE: &str = "CREATE TABLE ids (id BLOB PRIMARY KEY)";
const INSERT: &str = "INSERT INTO ids (id) VALUES (?1)";

/// Inserts [`minted`] IDs of kind `K` (out of order), then checks what is stored, the order
/// and the window.
fn stores_in_order_and_windows<K: Id128 + ToSql + FromSql>() {
    let connection = Connection::open_in_memory().unwrap();
    connection.execute_batch(CREATE).unwrap();
    let minted = minted::<K>();
    for id in insertion_order(&minted) {
        // A duplicate ID would fail here, on the primary key.
        connection.execute(INSERT, [id]).unwrap();
    }

    let ids = |sql: &str, params: &[&dyn ToSql]| -> Vec<K> {
        let mut query = connection.prepare(sql).unwrap();
        query
            .query_map(params, |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    assert!(
        ids("SELECT id FROM ids ORDER BY id", &[]) == minted,
        "ORDER BY id is not minting order"
    );
    let (from, to) = window_bounds::<K>();
    assert!(
        ids(
            "SELECT id FROM ids WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
            &[&from, &to]
        ) == in_window(&minted),
        "the rows between the window's bounds"
    );

    let (kind, bytes): (String, Vec<u8>) = connection
        .query_row(
            "SELECT typeof(id), id FROM ids WHERE id = ?1",
            [minted[0]],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    assert_eq!(kind, "blob");
    assert_eq!(bytes, minted[0].to_u128().to_be_bytes());
}

#[test]
fn rusqlite_stores_uuid7_as_16_bytes_in_order() {
    stores_in_order_and_windows::<Uuid7>();
}

#[test]
fn rusqlite_stores_ulid_as_16_bytes_in_order() {
    stores_in_order_and_windows::<Ulid>();
}

/// Reads `blob` as a `K`.
fn read<K: FromSql>(blob: &[u8]) -> rusqlite::Result<K> {
    let connection = Connection::open_in_memory().unwrap();
    connection.query_row("SELECT ?1", params![blob], |row| row.get(0))
}

#[test]
fn rusqlite_refuses_a_blob_of_another_length() {
    for length in [0, 1, 15, 17, 32] {
        let blob = vec![0x70; length];
        for err in [
            read::<Uuid7>(&blob).unwrap_err(),
            read::<Ulid>(&blob).unwrap_err(),
        ] {
            assert!(
                matches!(err, rusqlite::Error::FromSqlConversionFailure(..)),
                "{err:?}"
            );
            let Error::ParseId { reason, .. } = snowmint_error(&err) else {
                panic!("{err:?}");
            };
            assert_eq!(
                *reason,
                ParseIdReason::WrongByteLength {
                    length,
                    expected: 16
                }
            );
            let message = err.to_string();
            assert!(
                message.contains(&format!("{length} bytes, expected 16")),
                "{message}"
            );
        }
    }
    let err = read::<Uuid7>(&[0xab; 100]).unwrap_err();
    assert!(
        err.to_string().contains("…\": 100 bytes, expected 16"),
        "{err}"
    );

    let connection = Connection::open_in_memory().unwrap();
    let err = connection
        .query_row("SELECT 'not a blob'", [], |row| row.get::<_, Uuid7>(0))
        .unwrap_err();
    assert!(
        matches!(err, rusqlite::Error::InvalidColumnType(..)),
        "{err:?}"
    );
}

#[test]
fn rusqlite_refuses_a_uuid_of_another_version_as_uuid7() {
    // RFC 9562's version 4 example, Appendix B.2.
    let v4 = 0x919108f7_52d1_4320_9bac_f847db4148a8_u128;
    let err = read::<Uuid7>(&v4.to_be_bytes()).unwrap_err();
    assert_not_uuid7(&err, v4);
    assert_eq!(read::<Ulid>(&v4.to_be_bytes()).unwrap().to_u128(), v4);
}
