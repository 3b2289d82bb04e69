#!/usr/bin/env bash
# `serve` (no uploads) on a real hot standby, for docs/postgres.md: starts a private primary with
# tests/support/postgres-cluster, records runs on it, clones it with `pg_basebackup -R` into a
# streaming replica on its own Unix socket, serves the dashboard from the replica, records more
# runs on the primary and waits until the replica's dashboard shows them. Then the same against
# the primary with default_transaction_read_only=on. Stops both servers at the end.
#   bench/standby_serve.sh [BUILD_DIR]     (default build; needs benchwatch and make_bench_data)
set -euo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/../scripts/lib.sh"
cd "$BENCHWATCH_ROOT"
build_dir="${1:-build}"
[[ "$build_dir" == /* ]] || build_dir="$BENCHWATCH_ROOT/$build_dir"
benchwatch="$build_dir/src/cli/benchwatch"
make_data="$build_dir/bench/make_bench_data"

work="$(mktemp -d)"
chmod 755 "$work"
as_server=()
((EUID == 0)) && as_server=(runuser -u postgres --)
bin="$(dirname -- "$(find /usr/lib/postgresql -path '*/bin/pg_ctl' | sort -V | tail -n 1)")"
standby=""
serve_pid=""
cleanup() {
    [[ -n "$serve_pid" ]] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
    [[ -n "$standby" ]] && "${as_server[@]}" "$bin/pg_ctl" stop --pgdata="$standby/data" \
        --mode=fast >/dev/null 2>&1
    "$BENCHWATCH_ROOT/tests/support/postgres-cluster" stop "$work/primary" || true
    [[ -n "${KEEP:-}" ]] || rm -rf "$work" "$standby"
}
trap cleanup EXIT

"$BENCHWATCH_ROOT/tests/support/postgres-cluster" start "$work/primary"
primary_url="$(<"$work/primary/url")"
cluster="$(<"$work/primary/cluster")"
# Let the superuser replicate over the socket, as pg_basebackup and the standby do.
"${as_server[@]}" sh -c "printf 'local replication benchwatch trust\n' >>'$cluster/data/pg_hba.conf'"
"${as_server[@]}" "$bin/pg_ctl" reload --pgdata="$cluster/data" >/dev/null
"$make_data" record "$primary_url" 0 20 100 >/dev/null

standby="$(mktemp -d /tmp/benchwatch-standby.XXXXXX)"
chmod 755 "$standby"
((EUID == 0)) && chown postgres: "$standby"
"${as_server[@]}" "$bin/pg_basebackup" --pgdata="$standby/data" --host="$cluster" \
    --username=benchwatch --write-recovery-conf --wal-method=stream --no-sync
"${as_server[@]}" "$bin/pg_ctl" start --wait --pgdata="$standby/data" --log="$standby/server.log" \
    --options="-c listen_addresses='' -c unix_socket_directories='$standby' -c hot_standby=on -c max_connections=200" >/dev/null || { cat "$standby/server.log" >&2; exit 1; }
standby_url="postgresql://benchwatch@/benchwatch?host=$standby"
printf 'standby in recovery: %s\n' "$(psql --no-psqlrc -At "$standby_url" -c 'SELECT pg_is_in_recovery()')"

# Serves STORE on a free port in the background; sets serve_pid and port.
serve() {
    "$benchwatch" serve --store "$1" --listen 127.0.0.1:0 --refresh-ms 200 >"$work/serve.out" 2>&1 &
    serve_pid=$!
    port=""
    for _ in $(seq 1 200); do
        port="$(sed -n 's|^serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$work/serve.out")"
        [[ -n "$port" ]] && return
        sleep 0.1
    done
    cat "$work/serve.out" >&2
    die "serve did not start"
}

# The runs the dashboard on `port` shows for project synthetic.
runs_shown() {
    curl -fsS "http://127.0.0.1:$port/api/v1/projects" | python3 -c '
import json, sys
print(sum(p["runs"] for p in json.load(sys.stdin)["projects"] if p["name"] == "synthetic"))' ||
        true
}

# Records runs FIRST … FIRST+9 on the primary and waits up to 20 s for the dashboard to show
# WANTED runs; prints what it showed and how long that took.
record_and_wait() {
    local first="$1" wanted="$2" start shown=""
    start="$EPOCHREALTIME"
    "$make_data" record "$primary_url" "$first" 10 100 >/dev/null
    for _ in $(seq 1 200); do
        shown="$(runs_shown)"
        [[ "$shown" == "$wanted" ]] && break
        sleep 0.1
    done
    printf '%s runs shown (wanted %s) %s after recording on the primary\n' "$shown" "$wanted" \
        "$(elapsed_since "$start")"
    [[ "$shown" == "$wanted" ]]
}

serve "$standby_url"
printf 'serve on the standby: %s runs at start\n' "$(runs_shown)"
record_and_wait 20 30
kill "$serve_pid" && wait "$serve_pid" 2>/dev/null || true
serve_pid=""

serve "$primary_url&options=-cdefault_transaction_read_only%3Don"
printf 'serve on the primary, read-only transactions: %s runs at start\n' "$(runs_shown)"
record_and_wait 30 40
grep -i 'error\|warning' "$work/serve.out" || true
printf 'both passed\n'
