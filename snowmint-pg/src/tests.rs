// The extension's functions, in a server `cargo pgrx test` starts with the library preloaded
// (`snowmint.layout = 'twitter'`, `snowmint.node = '7'`: see `pg_test` in the crate root).

use pgrx::prelude::*;

fn one<T: pgrx::IntoDatum + pgrx::FromDatum>(query: &str) -> T {
    Spi::get_one::<T>(query)
        .unwrap_or_else(|e| panic!("{query}: {e}"))
        .unwrap_or_else(|| panic!("{query}: NULL"))
}

#[pg_test]
fn ids_increase_decode_to_the_node_and_fall_inside_their_time_bounds() {
    let ids: Vec<i64> = (0..10_000).map(|_| crate::snowmint_id()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "IDs not increasing");
    let last = *ids.last().unwrap();
    assert_eq!(one::<i64>(&format!("SELECT snowmint_node({last})")), 7);
    assert_eq!(one::<i64>(&format!("SELECT snowmint_node({last}, 'machine')")), 7);
    let in_bounds = one::<bool>(&format!(
        "SELECT {last} BETWEEN snowmint_min_id(snowmint_time({last})) AND snowmint_max_id(snowmint_time({last}))"
    ));
    assert!(in_bounds);
    let near_now = one::<bool>(&format!(
        "SELECT abs(extract(epoch FROM clock_timestamp() - snowmint_time({last}))) < 5"
    ));
    assert!(near_now, "the ID's time is not the server's");
    let sequence = one::<i64>(&format!("SELECT snowmint_sequence({last})"));
    assert!((0..4096).contains(&sequence));
}

#[pg_test]
fn a_column_default_mints_one_id_per_row() {
    Spi::run("CREATE TABLE t (id bigint PRIMARY KEY DEFAULT snowmint_id(), n int)").unwrap();
    Spi::run("INSERT INTO t (n) SELECT g FROM generate_series(1, 5000) g").unwrap();
    assert_eq!(one::<i64>("SELECT count(DISTINCT id) FROM t"), 5000);
    // Inserted in n's order, so the IDs increase with n.
    let ordered = one::<bool>(
        "SELECT bool_and(id > prev) FROM (SELECT id, lag(id) OVER (ORDER BY n) prev FROM t) s WHERE prev IS NOT NULL",
    );
    assert!(ordered);
}

#[pg_test]
fn uuidv7s_carry_version_7_and_increase() {
    let ordered = one::<bool>(
        "SELECT bool_and(u > prev) AND bool_and(substr(u::text, 15, 1) = '7') \
         FROM (SELECT u, lag(u) OVER (ORDER BY g) prev FROM \
               (SELECT g, snowmint_uuidv7() u FROM generate_series(1, 5000) g) s) s WHERE prev IS NOT NULL",
    );
    assert!(ordered);
    let near_now = one::<bool>(
        "SELECT abs(extract(epoch FROM clock_timestamp()) * 1000 - \
         ('x' || substr(replace(snowmint_uuidv7()::text, '-', ''), 1, 12))::bit(48)::bigint) < 5000",
    );
    assert!(near_now, "the UUID's time is not the server's");
}

#[pg_test(error = "-1 is not an ID: IDs are not negative")]
fn a_negative_id_is_refused() {
    crate::snowmint_node(-1, None);
}

#[pg_test(error = "layout twitter has no node field \"worker\"; its node fields: machine")]
fn an_unknown_node_field_is_named() {
    crate::snowmint_node(crate::snowmint_id(), Some("worker"));
}

#[pg_test(error = "an infinite timestamp has no ID; expected a finite one")]
fn an_infinite_bound_is_refused() {
    Spi::get_one::<i64>("SELECT snowmint_min_id('infinity')").unwrap();
}

#[pg_test]
fn partitions_bounded_by_snowmint_min_id_take_the_rows_of_their_month() {
    // The README's pattern: a partition per month, bounds from snowmint_min_id.
    Spi::run(
        "CREATE TABLE events (id bigint NOT NULL DEFAULT snowmint_id(), body text) \
         PARTITION BY RANGE (id)",
    )
    .unwrap();
    Spi::run(
        "DO $$
         DECLARE
             month timestamptz := date_trunc('month', now());
         BEGIN
             EXECUTE format(
                 'CREATE TABLE events_now PARTITION OF events FOR VALUES FROM (%s) TO (%s)',
                 snowmint_min_id(month), snowmint_min_id(month + interval '1 month'));
             EXECUTE format(
                 'CREATE TABLE events_before PARTITION OF events FOR VALUES FROM (%s) TO (%s)',
                 snowmint_min_id(month - interval '1 month'), snowmint_min_id(month));
         END $$",
    )
    .unwrap();
    Spi::run("INSERT INTO events (body) SELECT 'x' FROM generate_series(1, 100)").unwrap();
    assert_eq!(one::<i64>("SELECT count(*) FROM events_now"), 100);
    assert_eq!(one::<i64>("SELECT count(*) FROM events_before"), 0);
    // An ID's time range is its partition's: last month's bounds hold last month's times.
    let last_month = one::<bool>(
        "SELECT snowmint_time(snowmint_max_id(date_trunc('month', now()) - interval '1 millisecond')) \
         < date_trunc('month', now())",
    );
    assert!(last_month);
}
