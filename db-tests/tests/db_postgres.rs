//! `Id` in a real PostgreSQL `BIGINT` column, through the `postgres` client (feature
//! `postgres`) and through sqlx 0.9 and 0.8 (features `sqlx`, `sqlx-0_8`; the sqlx tests are
//! `db/sqlx_postgres.rs`, once per line): 100,000 IDs inserted from four threads under a
//! primary key, a time window by ID bounds, `ORDER BY id` as minting order, the column's
//! boundary values, and IDs above `i64::MAX` refused. `Uuid7` and `Ulid` in a `uuid` column
//! with each client (`db/id128_postgres.rs`, `db/sqlx_id128_postgres.rs`): the same window and
//! order, PostgreSQL's text of the stored bits, and a `uuid` of another version refused as a
//! `Uuid7`. And the public-ID pattern (feature `mask`): real IDs stored, masked ones served,
//! looked up and paged through.
//!
//! The tests connect to `SNOWMINT_PG_URL` (`.ci/check` starts a private server and sets it,
//! e.g. `postgres://postgres@127.0.0.1:35432/postgres`), each in tables of its own. Without it
//! they print that they are skipped and pass; with it, a server they cannot reach fails them.

// The root crate's test fixtures that these tests share: clocks, temporary files, threads.
#[allow(dead_code)]
#[path = "../../tests/common"]
mod common {
    pub mod clocks;
    pub mod files;
    pub mod threads;
}
mod db;

use postgres::types::ToSql;
use postgres::{Client, NoTls};
use snowmint::Id;

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

/// A table of its own for one test, dropped when the test ends (passed or failed).
struct Table {
    name: String,
    url: String,
}

impl Table {
    /// Creates `<name>(id BIGINT PRIMARY KEY, thread INT, seq INT, minted_ms BIGINT)`.
    fn create(url: &str, test: &str) -> Table {
        Table::with_columns(
            url,
            test,
            "id BIGINT PRIMARY KEY, thread INT NOT NULL, seq INT NOT NULL, \
             minted_ms BIGINT NOT NULL",
        )
    }

    /// Creates `<name>(<columns>)`.
    fn with_columns(url: &str, test: &str, columns: &str) -> Table {
        let name = table_name(test);
        connect(url)
            .batch_execute(&format!("CREATE TABLE {name} ({columns})"))
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

// `Uuid7` and `Ulid` in a `uuid` column with the `postgres` client.
#[path = "db/id128_postgres.rs"]
mod id128_postgres;

/// The sqlx tests on sqlx 0.9, which takes query text built at run time only when asserted
/// safe (these tests format only their own table names into it).
#[path = "db"] // its `tests` is `db/sqlx_postgres.rs`
mod sqlx_0_9 {
    pub(crate) use ::sqlx;

    pub(crate) fn sql(text: &str) -> sqlx::AssertSqlSafe<String> {
        sqlx::AssertSqlSafe(text.to_owned())
    }

    // The same file on purpose: its `sqlx` and `sql` are this module's.
    #[allow(clippy::duplicate_mod)]
    #[path = "sqlx_postgres.rs"]
    mod tests;

    // The same file on purpose, as `tests`.
    #[allow(clippy::duplicate_mod)]
    #[path = "sqlx_id128_postgres.rs"]
    mod id128;
}

/// The sqlx tests on sqlx 0.8, which borrows the `&str`.
#[path = "db"]
mod sqlx_0_8 {
    pub(crate) use ::sqlx_0_8 as sqlx;

    pub(crate) fn sql(text: &str) -> &str {
        text
    }

    // The same file on purpose: its `sqlx` and `sql` are this module's.
    #[allow(clippy::duplicate_mod)]
    #[path = "sqlx_postgres.rs"]
    mod tests;

    // The same file on purpose, as `tests`.
    #[allow(clippy::duplicate_mod)]
    #[path = "sqlx_id128_postgres.rs"]
    mod id128;
}

/// The public-ID pattern (`snowmint::docs::public_ids`): rows stored under their real IDs,
/// pages served as JSON with masked IDs, each next page asked for by the masked ID of the last
/// row (unmasked, then `WHERE id > $1 ORDER BY id`), a row looked up by its masked ID, and a
/// value never shown finding no row. Every row is served exactly once, in minting order, and
/// no real ID appears in a response.
#[test]
fn masked_ids_are_served_looked_up_and_paged_by_the_real_id() {
    use snowmint::mask::{self, MaskKey, MaskWidth, Masker};
    use snowmint::{Generator, Layout};

    #[derive(serde::Serialize, serde::Deserialize)]
    struct Item {
        #[serde(with = "snowmint::mask::masked")]
        id: Id,
        name: String,
    }

    let Some(url) = pg_url("masked_ids_are_served_looked_up_and_paged_by_the_real_id") else {
        return;
    };
    let masker = Masker::new(
        &MaskKey::from_hex("8f3a9c2d1e4b5a6978c0d1e2f3a4b5c6").unwrap(),
        MaskWidth::BIGINT,
    );
    // The only test of this binary that installs the process's masker.
    assert!(mask::install(masker.clone()).is_ok());
    let table = Table::with_columns(&url, "masked", "id BIGINT PRIMARY KEY, name TEXT NOT NULL");
    let name = &table.name;
    let mut client = connect(&url);

    // Store real IDs.
    let generator = Generator::builder(Layout::TWITTER)
        .node("machine", 3)
        .build()
        .unwrap();
    let stored: Vec<Id> = (0..1_000).map(|_| generator.mint().unwrap()).collect();
    let insert = format!("INSERT INTO {name} (id, name) VALUES ($1, $2)");
    for (i, id) in stored.iter().enumerate() {
        client
            .execute(&insert, &[id, &format!("item {i}")])
            .unwrap();
    }

    // Serve pages of 64 as JSON; the client sends back the last masked ID as its cursor.
    let first_page = format!("SELECT id, name FROM {name} ORDER BY id LIMIT 64");
    let next_page = format!("SELECT id, name FROM {name} WHERE id > $1 ORDER BY id LIMIT 64");
    let mut served = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let rows = match &cursor {
            None => client.query(&first_page, &[]).unwrap(),
            Some(masked) => {
                let after = masker.unmask(masked.parse().unwrap()).unwrap();
                client.query(&next_page, &[&after]).unwrap()
            }
        };
        if rows.is_empty() {
            break;
        }
        let page: Vec<Item> = rows
            .iter()
            .map(|row| Item {
                id: row.get(0),
                name: row.get(1),
            })
            .collect();
        let json = serde_json::to_string(&page).unwrap();
        for item in &page {
            assert!(!json.contains(&item.id.to_string()), "a real ID in {json}");
        }
        // The client's view: masked IDs only.
        let shown: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
        cursor = Some(shown.last().unwrap()["id"].as_str().unwrap().to_owned());
        let read_back: Vec<Item> = serde_json::from_str(&json).unwrap();
        served.extend(read_back.into_iter().map(|item| item.id));
    }
    assert_eq!(served, stored, "every row once, in minting order");

    // The masked values do not follow the real order (the order is hidden).
    let masked: Vec<u64> = stored.iter().map(|&id| masker.mask(id).unwrap()).collect();
    assert!(masked.windows(2).any(|pair| pair[0] > pair[1]));

    // A lookup by a masked ID finds its row; a value never shown finds none.
    let lookup = format!("SELECT name FROM {name} WHERE id = $1");
    let wanted = masker.unmask(masked[417]).unwrap();
    let found = client.query(&lookup, &[&wanted]).unwrap();
    assert_eq!(found[0].get::<_, String>(0), "item 417");
    let guessed = masker.unmask(12_345_678_901_234).unwrap();
    assert!(client.query(&lookup, &[&guessed]).unwrap().is_empty());
}
