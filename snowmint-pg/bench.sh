#!/usr/bin/env bash
# snowmint_id() against a sequence (bigserial), gen_random_uuid() and snowmint_uuidv7() on one
# server, side by side: pgbench inserts with each as the key's default, and a SELECT of 1 M
# IDs per function. Paired rounds: each round runs every contender once, in a rotated order,
# and the table gives each contender's median and its median ratio to the sequence's figure
# of the same round (see BENCHMARKING.md in the shared docs: compare ratios, not absolutes).
#
#   bash snowmint-pg/bench.sh PG_BIN_DIR [ROUNDS] [SECONDS]
#
# Needs the extension installed into that PostgreSQL, built optimized:
# `cargo pgrx install --release --pg-config PG_BIN_DIR/pg_config` in snowmint-pg/. Writes the
# Markdown table to stdout. The server runs as in tests/server.sh (a private one on loopback).
set -euo pipefail

pg_bin=${1:?usage: bench.sh PG_BIN_DIR [ROUNDS] [SECONDS]}
rounds=${2:-5}
seconds=${3:-10}
clients=${SNOWMINT_PG_CLIENTS:-4}
# The layout snowmint_id() mints: mastodon (48 bits of milliseconds, 16 of sequence: 65,536 IDs
# per millisecond, past what one backend calls) by default; twitter's 4,096 per millisecond is
# a ceiling a SELECT of 1 M IDs from one backend reaches.
layout=${SNOWMINT_PG_LAYOUT:-mastodon}
node=${SNOWMINT_PG_NODE:-}

# shellcheck source=tests/private_server.sh
source "$(dirname "${BASH_SOURCE[0]}")/tests/private_server.sh"
private_server "$pg_bin" 37432
# Durability as a default server has it, but for synchronous_commit: an insert's figure is
# then the insert's work, not the disk's fsync.
cat >>"$data/postgresql.conf" <<EOF
shared_preload_libraries = 'snowmint_pg'
snowmint.layout = '$layout'
snowmint.node = '$node'
synchronous_commit = off
EOF
start
sql "CREATE EXTENSION snowmint_pg"

contenders=(sequence snowmint_id gen_random_uuid snowmint_uuidv7)
column() {
    case $1 in
        sequence) echo "id bigserial PRIMARY KEY" ;;
        snowmint_id) echo "id bigint PRIMARY KEY DEFAULT snowmint_id()" ;;
        gen_random_uuid) echo "id uuid PRIMARY KEY DEFAULT gen_random_uuid()" ;;
        snowmint_uuidv7) echo "id uuid PRIMARY KEY DEFAULT snowmint_uuidv7()" ;;
    esac
}
select_1m() {
    case $1 in
        sequence) echo "SELECT count(nextval('s')) FROM generate_series(1, 1000000)" ;;
        *) echo "SELECT count($1()) FROM generate_series(1, 1000000)" ;;
    esac
}
sql "CREATE SEQUENCE s"
echo "INSERT INTO t DEFAULT VALUES;" >"$dir/insert.sql"
chmod 644 "$dir/insert.sql"

declare -A tps select_ms
for ((round = 0; round < rounds; round++)); do
    for ((i = 0; i < ${#contenders[@]}; i++)); do
        name=${contenders[(i + round) % ${#contenders[@]}]}
        sql "DROP TABLE IF EXISTS t; CREATE TABLE t ($(column "$name"), payload int); CHECKPOINT"
        result=$("$pg_bin/pgbench" -n -h 127.0.0.1 -p "$port" -U "$user" -c "$clients" -j "$clients" \
            -T "$seconds" -f "$dir/insert.sql" postgres 2>&1 | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
        tps[$name]+="$result "
        start=$(date +%s%N)
        sql "$(select_1m "$name")" >/dev/null
        select_ms[$name]+="$((($(date +%s%N) - start) / 1000000)) "
    done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# ratios NAME FIELD: the median over rounds of NAME's figure / the sequence's, same round.
ratio() {
    local -n figures=$2
    paste -d' ' <(tr ' ' '\n' <<<"${figures[$1]}" | grep -v '^$') <(tr ' ' '\n' <<<"${figures[sequence]}" | grep -v '^$') |
        awk '{ printf "%.3f\n", $1 / $2 }' | median
}

echo "| function | inserts/s, $clients sessions (median) | × sequence | SELECT of 1 M (ms, median) | × sequence |"
echo "|---|---:|---:|---:|---:|"
for name in "${contenders[@]}"; do
    label=$name
    [[ $name != sequence ]] || label="bigserial (nextval)"
    [[ $name != snowmint_id ]] || label="snowmint_id() ($layout)"
    printf '| `%s` | %.0f | %s | %s | %s |\n' "$label" "$(median <<<"${tps[$name]}")" "$(ratio "$name" tps)" \
        "$(median <<<"${select_ms[$name]}")" "$(ratio "$name" select_ms)"
done
echo
echo "$rounds paired rounds of $seconds s inserts per contender (rotated order), PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}'), snowmint.layout '$layout', synchronous_commit off; each ratio is the median of the per-round ratios."
