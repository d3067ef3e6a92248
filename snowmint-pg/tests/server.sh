#!/usr/bin/env bash
# The extension on a real server, from outside: N concurrent sessions insert rows whose key
# defaults to snowmint_id() (pgbench), then a crash and a restart with the clock stepped back
# (libfaketime) must repeat nothing.
#
#   bash snowmint-pg/tests/server.sh PG_BIN_DIR
#
# Needs the extension installed into that PostgreSQL (`cargo pgrx install`, or the
# `cargo pgrx test` run before it), pgbench, and libfaketime. Runs the server as the current
# user, or as `postgres` when root, on the first free loopback port from 36432, in a temporary
# directory it removes. Prints the figures the note quotes; exits non-zero on any failed check.
set -euo pipefail

pg_bin=${1:?usage: server.sh PG_BIN_DIR}
clients=${SNOWMINT_PG_CLIENTS:-8}
per_client=${SNOWMINT_PG_ROWS:-20000}
step_back=${SNOWMINT_PG_STEP_BACK:-3}

faketime_lib=$(find /usr/lib -name 'libfaketime.so.1' -path '*faketime*' 2>/dev/null | head -n 1)
[[ -n $faketime_lib ]] || { echo "server.sh: libfaketime.so.1 not found (Debian's faketime package)" >&2; exit 1; }

# shellcheck source=private_server.sh
source "$(dirname "${BASH_SOURCE[0]}")/private_server.sh"
private_server "$pg_bin" 36432
cat >>"$data/postgresql.conf" <<EOF
max_connections = 64
shared_preload_libraries = 'snowmint_pg'
snowmint.layout = 'twitter'
snowmint.node = '7'
snowmint.max_clock_wait_ms = $(((step_back + 5) * 1000))
EOF

check() { # check WHAT QUERY: the query must return t
    local got
    got=$(sql "$2")
    [[ $got == t ]] || { echo "server.sh: FAILED: $1 (got '$got')" >&2; exit 1; }
    echo "ok: $1"
}
# check_order TABLE WHAT: each session's values increase in its insert order, and across
# sessions the values are ordered by time (no row 20 ms older than a row of a smaller value).
check_order() {
    check "each session's $2 increase in its insert order" \
        "SELECT NOT EXISTS (SELECT 1 FROM (SELECT id, lag(id) OVER (PARTITION BY pid ORDER BY n) AS prev FROM $1) s WHERE id <= prev)"
    check "across sessions, $2 are ordered by time: no row's time is 20 ms before a smaller one's" \
        "SELECT NOT EXISTS (SELECT 1 FROM (SELECT at, max(at) OVER (ORDER BY id ROWS UNBOUNDED PRECEDING) AS latest FROM $1) s WHERE latest - at > interval '20 ms')"
}

start
sql "CREATE EXTENSION snowmint_pg"
# insert_concurrently TABLE TYPE DEFAULT ROWS: a table whose key of TYPE defaults to DEFAULT,
# with each row's session, insert order and time, and ROWS inserts from each of $clients
# pgbench sessions. The primary key refuses a duplicate, and no ON CONFLICT hides one: a
# duplicate fails the run (the checks below count them anyway).
insert_concurrently() {
    sql "CREATE TABLE $1 (
        id $2 PRIMARY KEY DEFAULT $3,
        pid int NOT NULL DEFAULT pg_backend_pid(),
        n bigserial,
        at timestamptz NOT NULL DEFAULT clock_timestamp())"
    echo "INSERT INTO $1 DEFAULT VALUES;" >"$dir/$1.sql"
    chmod 644 "$dir/$1.sql"
    "$pg_bin/pgbench" -n -h 127.0.0.1 -p "$port" -U "$user" -c "$clients" -j "$clients" \
        -t "$4" -f "$dir/$1.sql" postgres >"$dir/pgbench-$1.log" 2>&1 ||
        { cat "$dir/pgbench-$1.log" >&2; exit 1; }
}

insert_concurrently minted bigint "snowmint_id()" "$per_client"
rows=$((clients * per_client))
echo "$clients sessions x $per_client inserts: $(grep -E '^tps' "$dir/pgbench-minted.log" | head -n 1)"
check "$rows rows, $rows distinct IDs" \
    "SELECT count(*) = $rows AND count(DISTINCT id) = $rows FROM minted"
check "$clients sessions" "SELECT count(DISTINCT pid) = $clients FROM minted"
check_order minted IDs
check "every ID decodes to node 7 and to its row's time within 20 ms" \
    "SELECT bool_and(snowmint_node(id) = 7 AND abs(extract(epoch FROM snowmint_time(id) - at)) < 0.020) FROM minted"
# UUIDv7s from concurrent sessions: one counter in shared memory orders them across sessions.
uuid_rows=$((clients * per_client / 4))
insert_concurrently uuids uuid "snowmint_uuidv7()" "$((per_client / 4))"
check "$uuid_rows UUIDv7s from $clients sessions, all distinct, all version 7" \
    "SELECT count(*) = $uuid_rows AND count(DISTINCT id) = $uuid_rows AND bool_and(substr(id::text, 15, 1) = '7') FROM uuids"
check_order uuids UUIDv7s

last=$(sql "SELECT max(id) FROM minted")
mark=$(cat "$data/snowmint.mark")
check "the mark file ($mark) is above the last ID's time" \
    "SELECT (extract(epoch FROM snowmint_time($last)) * 1000)::bigint < $mark"

# A crash, then a restart with the clock $step_back s behind: the first calls wait for the
# clock to pass the mark, and repeat nothing.
"${as_pg[@]}" "$pg_bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null
start LD_PRELOAD="$faketime_lib" FAKETIME="-${step_back}s" FAKETIME_DONT_RESET=1
check "the restarted server's clock is about $step_back s behind" \
    "SELECT extract(epoch FROM clock_timestamp()) * 1000 < $mark - 500"
sql "INSERT INTO minted (id) SELECT snowmint_id() FROM generate_series(1, 10000)"
check "after the restart, every new ID is above every ID minted before it" \
    "SELECT min(id) > $last FROM minted WHERE n > $rows"
check "after the restart, 10000 new distinct IDs" \
    "SELECT count(DISTINCT id) = $((rows + 10000)) FROM minted"

# Settings a call refuses, each with its reason; the server stays up. (Each restart is
# ordinary: the mark keeps every later ID above the ones before.)
expect_error() { # expect_error WHAT QUERY MESSAGE: the query must fail with MESSAGE
    local got
    if got=$(sql "$2" 2>&1); then
        echo "server.sh: FAILED: $1: the query succeeded ($got)" >&2
        exit 1
    fi
    [[ $got == *"$3"* ]] || { echo "server.sh: FAILED: $1: $got" >&2; exit 1; }
    echo "ok: $1"
}
restart() {
    "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null
    start
}
sql "ALTER SYSTEM SET snowmint.node = '5000'"
restart
expect_error "a node out of the layout's range is refused" "SELECT snowmint_id()" \
    "machine id 5000 is out of range for layout twitter (0..=1023)"
sql "ALTER SYSTEM RESET snowmint.node"
sql "ALTER SYSTEM SET snowmint.layout = 'time:41,machine:3,sequence:20'"
sql "ALTER SYSTEM SET snowmint.epoch_ms = '0'"
restart
expect_error "an ID above a BIGINT's range is refused, not wrapped" "SELECT snowmint_id()" \
    "does not fit a BIGINT (at most 2^63 - 1)"
sql "ALTER SYSTEM RESET snowmint.layout"
sql "ALTER SYSTEM RESET snowmint.epoch_ms"
sql "ALTER SYSTEM SET shared_preload_libraries = 'plpgsql'" # anything but snowmint_pg
restart
expect_error "without shared_preload_libraries, calls say to preload" "SELECT snowmint_id()" \
    "snowmint_pg is not loaded at server start; expected shared_preload_libraries = 'snowmint_pg'"
expect_error "... and so do the decoding functions" "SELECT snowmint_time($last)" \
    "snowmint_pg is not loaded at server start"
check "the server stays up" "SELECT true"
echo "server.sh: all checks passed ($((rows + 10000)) IDs, 0 duplicates)"
