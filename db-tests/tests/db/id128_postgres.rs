//! `Uuid7` and `Ulid` in a PostgreSQL `uuid` column through the `postgres` client: IDs from one
//! shared generator in milliseconds of their own come back in minting order from `ORDER BY id`
//! and exactly by a window's `min_at`/`max_at` bounds; PostgreSQL writes a stored `Uuid7` as
//! its `Display` does; a version 4 `uuid` is refused as a `Uuid7`.

use postgres::types::{FromSql, ToSql};
use snowmint::id128::{Ulid, Uuid7};

use crate::db::id128::{
    Id128, assert_not_uuid7, in_window, insertion_order, minted, uuid_text, window_bounds,
};
use crate::{Table, connect, pg_url};

/// Inserts [`minted`] IDs of kind `K` (out of order) into a `uuid` column, then checks the
/// order, the window and PostgreSQL's text of each; returns the IDs in minting order.
fn stores_in_order_and_windows<K>(test: &str, url: &str) -> Vec<K>
where
    K: Id128 + ToSql + Sync + for<'a> FromSql<'a>,
{
    let table = Table::with_columns(url, test, "id uuid PRIMARY KEY");
    let name = &table.name;
    let minted = minted::<K>();
    let mut client = connect(url);
    let mut tx = client.transaction().unwrap();
    let insert = tx
        .prepare(&format!("INSERT INTO {name} (id) VALUES ($1)"))
        .unwrap();
    for id in insertion_order(&minted) {
        // A duplicate ID would fail here, on the primary key.
        tx.execute(&insert, &[&id]).unwrap();
    }
    tx.commit().unwrap();

    let rows = client
        .query(
            &format!("SELECT id, id::text AS text FROM {name} ORDER BY id"),
            &[],
        )
        .unwrap();
    let by_id: Vec<K> = rows.iter().map(|row| row.get(0)).collect();
    assert!(by_id == minted, "ORDER BY id is not minting order");
    for (row, id) in rows.iter().zip(&minted) {
        assert_eq!(row.get::<_, String>(1), uuid_text(id.to_u128()));
    }

    let (from, to) = window_bounds::<K>();
    let window: Vec<K> = client
        .query(
            &format!("SELECT id FROM {name} WHERE id BETWEEN $1 AND $2 ORDER BY id"),
            &[&from, &to],
        )
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert!(
        window == in_window(&minted),
        "the rows between the window's bounds"
    );
    minted
}

#[test]
fn postgres_client_stores_uuid7_in_order_and_as_its_text() {
    let Some(url) = pg_url("postgres_client_stores_uuid7_in_order_and_as_its_text") else {
        return;
    };
    let minted = stores_in_order_and_windows::<Uuid7>("pg_uuid7", &url);

    // PostgreSQL's own text of the stored UUIDv7 is its Display.
    let mut client = connect(&url);
    let text: String = client
        .query_one("SELECT $1::uuid::text", &[&minted[0]])
        .unwrap()
        .get(0);
    assert_eq!(text, minted[0].to_string());
    let parsed: Uuid7 = client
        .query_one("SELECT $1::text::uuid", &[&minted[0].to_string()])
        .unwrap()
        .get(0);
    assert_eq!(parsed, minted[0]);
}

#[test]
fn postgres_client_stores_ulid_as_the_same_bits() {
    let Some(url) = pg_url("postgres_client_stores_ulid_as_the_same_bits") else {
        return;
    };
    stores_in_order_and_windows::<Ulid>("pg_ulid", &url);
}

#[test]
fn postgres_client_refuses_a_uuid_of_another_version_as_uuid7() {
    let Some(url) = pg_url("postgres_client_refuses_a_uuid_of_another_version_as_uuid7") else {
        return;
    };
    let mut client = connect(&url);
    let row = client
        .query_one(
            "SELECT u, u::text FROM (SELECT gen_random_uuid() AS u) AS v4",
            &[],
        )
        .unwrap();
    let text: String = row.get(1);
    let bits = u128::from_str_radix(&text.replace('-', ""), 16).unwrap();
    let err = row.try_get::<_, Uuid7>(0).unwrap_err();
    assert_not_uuid7(&err, bits);
    // Every 128 bits are a ULID.
    assert_eq!(row.get::<_, Ulid>(0).to_u128(), bits);

    // A column of another type is not read as a 128-bit ID.
    let row = client.query_one("SELECT 1::int8", &[]).unwrap();
    let err = row.try_get::<_, Uuid7>(0).unwrap_err();
    let wrong_type = std::error::Error::source(&err).unwrap().to_string();
    assert!(
        wrong_type.contains("Uuid7") && wrong_type.contains("int8"),
        "{wrong_type}"
    );
}
