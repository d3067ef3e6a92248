# Sourced by tests/server.sh and bench.sh: a private PostgreSQL cluster for one run.
#
#   private_server PG_BIN_DIR FIRST_PORT
#
# Sets `as_pg` (the command prefix that runs as the server's user: `postgres` when root, since
# PostgreSQL refuses root), `user`, `port` (the first free loopback port from FIRST_PORT), `dir`
# (a temporary directory, removed on exit, the server stopped first) and `data` (a cluster
# initialised there, trust auth, which the caller configures and starts), and defines `sql`
# (one statement or more, results unaligned) and `start [ENV...]` (starts the server with ENV in
# its environment).
private_server() {
    pg_bin=$1
    local first_port=$2
    as_pg=()
    user=$(id -un)
    if [[ $(id -u) -eq 0 ]]; then
        id -u postgres >/dev/null 2>&1 || useradd --system --user-group --no-create-home postgres
        as_pg=(runuser -u postgres --)
        user=postgres
    fi
    port=$first_port
    until ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
        port=$((port + 1))
        ((port < first_port + 100)) || { echo "no free port in $first_port..$((first_port + 100))" >&2; exit 1; }
    done
    dir=$(mktemp -d)
    chmod 755 "$dir"
    [[ $(id -u) -ne 0 ]] || chown postgres: "$dir"
    data=$dir/data
    trap 'stop_private_server' EXIT
    cd "$dir"
    "${as_pg[@]}" "$pg_bin/initdb" -D "$data" -U "$user" --auth=trust --no-sync >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; exit 1; }
    cat >>"$data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
CONF
}

stop_private_server() {
    (cd "$dir" && "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$data" -m immediate -w stop) >/dev/null 2>&1 || true
    rm -rf "$dir"
}

start() {
    "${as_pg[@]}" env "$@" "$pg_bin/pg_ctl" -D "$data" -l "$dir/log" -w -t 30 start >/dev/null ||
        { echo "the server did not start; its log:" >&2; cat "$dir/log" >&2; exit 1; }
}

sql() { "$pg_bin/psql" -X -q -h 127.0.0.1 -p "$port" -U "$user" -d postgres -v ON_ERROR_STOP=1 -Atc "$1"; }
