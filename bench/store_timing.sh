#!/usr/bin/env bash
# Times the stores against each other, for docs/PERFORMANCE.md: SQLite beside a private
# PostgreSQL server (tests/support/postgres-cluster, Unix socket, started and stopped here).
#   - record throughput: 1,000 runs × 1,000 benchmarks, one Store::record() each, from one
#     process and from 4 processes at once (250 runs each, disjoint commits)
#   - compare latency: `benchwatch compare --format json` on that history plus one pull-request
#     run, as a whole process, median of 7 (and the fastest)
#   - copy: `benchwatch copy` of the whole history from SQLite to PostgreSQL
# The test cluster runs with fsync=off; with --fsync the record figures are taken again after
# restarting it with fsync=on. The last lines are the ratios the PostgreSQL goals are about:
# SQLite's one-process runs per second over PostgreSQL's, and PostgreSQL's median compare over
# SQLite's. With --no-build, BUILD_DIR's binaries are timed as they are (an older build, say).
#   bench/store_timing.sh [--fsync] [--no-build] [BUILD_DIR]   (default build/release)
set -euo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/../scripts/lib.sh"
cd "$BENCHWATCH_ROOT"
with_fsync=0
building=1
while [[ "${1:-}" == --* ]]; do
    case "$1" in
    --fsync) with_fsync=1 ;;
    --no-build) building=0 ;;
    *) echo "usage: bench/store_timing.sh [--fsync] [--no-build] [BUILD_DIR]" >&2; exit 2 ;;
    esac
    shift
done
build_dir="${1:-build/release}"
[[ "$build_dir" == /* ]] || build_dir="$BENCHWATCH_ROOT/$build_dir"
runs=1000
benchmarks=1000
processes=4

ensure_packages "${BENCHWATCH_BUILD_DEPENDENCIES[@]}" postgresql
if ((building)); then
    build_benchwatch "$build_dir" Release -DBENCHWATCH_TESTS=OFF -DBENCHWATCH_BENCH=ON -- \
        benchwatch make_bench_data >/dev/null
fi
benchwatch="$build_dir/src/cli/benchwatch"
make_data="$build_dir/bench/make_bench_data"

work="$(mktemp -d)"
cluster_dir="$work/postgres"
cleanup() {
    "$BENCHWATCH_ROOT/tests/support/postgres-cluster" stop "$cluster_dir" || true
    rm -rf "$work"
}
trap cleanup EXIT
"$BENCHWATCH_ROOT/tests/support/postgres-cluster" start "$cluster_dir"
server_url="$(<"$cluster_dir/url")"
head_commit="$(printf '%040x' $((runs + 1)))"

# Prints the URL of a new, empty schema NAME on the server: a store of its own.
new_postgres_store() {
    local schema="bench_$1"
    psql --quiet --no-psqlrc --set=ON_ERROR_STOP=1 "$server_url" -c "CREATE SCHEMA $schema" >/dev/null
    printf '%s&options=-csearch_path%%3D%s\n' "$server_url" "$schema"
}

# Records runs 0 … runs-1 into STORE from `processes` processes at once, each a disjoint range;
# prints the wall time from the first start to the last end as a table cell.
record_at_once() {
    local store="$1" share=$((runs / processes)) pids=() i start
    "$make_data" record "$store" 0 1 "$benchmarks" >/dev/null # creates the schema outside the timing
    start="$EPOCHREALTIME"
    for ((i = 0; i < processes; i++)); do
        "$make_data" record "$store" $((1 + i * share)) "$share" "$benchmarks" >/dev/null &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid"; done
    local seconds
    seconds="$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')"
    awk -v s="$seconds" -v n=$((processes * share)) -v b="$benchmarks" \
        'BEGIN { printf "%.1f runs/s, %.0f results/s (%d runs in %.2f s)", n / s, n * b / s, n, s }'
}

# Times `compare` on the SQLite store and on the PostgreSQL store alternately, 7 times each after
# one warm-up of each, so that both see the same load; sets sqlite_compare and postgres_compare
# to "MEDIAN ms, min MIN ms" and sqlite_median and postgres_median to the medians.
compare_both() {
    local sqlite_times=() postgres_times=() start
    local common=(compare --project synthetic --machine bench --head "$head_commit" --repo "$work"
        --format json)
    "$benchwatch" "${common[@]}" --store "$sqlite_store" >/dev/null
    "$benchwatch" "${common[@]}" --store "$postgres_store" >/dev/null
    for _ in 1 2 3 4 5 6 7; do
        start="$EPOCHREALTIME"
        "$benchwatch" "${common[@]}" --store "$sqlite_store" >/dev/null
        sqlite_times+=("$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", (b - a) * 1000 }')")
        start="$EPOCHREALTIME"
        "$benchwatch" "${common[@]}" --store "$postgres_store" >/dev/null
        postgres_times+=("$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", (b - a) * 1000 }')")
    done
    sqlite_median="$(printf '%s\n' "${sqlite_times[@]}" | sort -n | sed -n 4p)"
    postgres_median="$(printf '%s\n' "${postgres_times[@]}" | sort -n | sed -n 4p)"
    sqlite_compare="$sqlite_median ms, min $(printf '%s\n' "${sqlite_times[@]}" | sort -n | head -n 1) ms"
    postgres_compare="$postgres_median ms, min $(printf '%s\n' "${postgres_times[@]}" | sort -n | head -n 1) ms"
}

# The one-process figure from make_bench_data's "recorded … : R runs/s, X results/s" line.
one_process_cell() {
    sed -n 's/^recorded \([0-9]*\) runs ([0-9]* results) in \([0-9.]*\) s: \(.*\)$/\3 (\1 runs in \2 s)/p'
}

sqlite_store="$work/history.db"
postgres_store="$(new_postgres_store one)"
printf 'machine: %s, %s cores; load average at the start: %s\n' "$(uname -m)" "$(nproc)" \
    "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '| store | record, 1 process | record, %d processes at once | compare (median of 7) |\n' "$processes"
printf '|:--|--:|--:|--:|\n'
sqlite_one="$("$make_data" history "$sqlite_store" "$runs" "$benchmarks" | one_process_cell)"
postgres_one="$("$make_data" history "$postgres_store" "$runs" "$benchmarks" | one_process_cell)"
sqlite_many="$(record_at_once "$work/many.db")"
postgres_many="$(record_at_once "$(new_postgres_store many)")"
compare_both
printf '| SQLite | %s | %s | %s |\n' "$sqlite_one" "$sqlite_many" "$sqlite_compare"
printf '| PostgreSQL (fsync=off) | %s | %s | %s |\n' "$postgres_one" "$postgres_many" "$postgres_compare"
awk -v s="${sqlite_one%% runs/s*}" -v p="${postgres_one%% runs/s*}" \
    'BEGIN { printf "record, 1 process: SQLite/PostgreSQL runs per second = %.2f (goal <= 2)\n", s / p }'
awk -v s="$sqlite_median" -v p="$postgres_median" \
    'BEGIN { printf "compare: PostgreSQL/SQLite median = %.2f (goal <= 1.5)\n", p / s }'

copy_start="$EPOCHREALTIME"
copy_line="$("$benchwatch" copy --from "$sqlite_store" --to "$(new_postgres_store copy)")"
printf '\ncopy SQLite → PostgreSQL: %s (%s)\n' "$(elapsed_since "$copy_start")" "$copy_line"
copy_start="$EPOCHREALTIME"
copy_line="$("$benchwatch" copy --from "$postgres_store" --to "$work/copied.db")"
printf 'copy PostgreSQL → SQLite: %s (%s)\n' "$(elapsed_since "$copy_start")" "$copy_line"

if ((with_fsync)); then
    # Restarted with fsync on; the other settings as postgres-cluster starts it.
    cluster="$(<"$cluster_dir/cluster")"
    as_server=()
    ((EUID == 0)) && as_server=(runuser -u postgres --)
    bin="$(dirname -- "$(find /usr/lib/postgresql -path '*/bin/pg_ctl' | sort -V | tail -n 1)")"
    "${as_server[@]}" "$bin/pg_ctl" restart --wait --pgdata="$cluster/data" --mode=fast \
        --log="$cluster/server.log" \
        --options="-c listen_addresses='' -c unix_socket_directories='$cluster' -c fsync=on -c max_connections=200" >/dev/null
    printf '\nfsync: %s\n' "$(psql --no-psqlrc -At "$server_url" -c 'SHOW fsync')"
    printf '| PostgreSQL (fsync=on) | %s | %s | |\n' \
        "$("$make_data" history "$(new_postgres_store fsync_one)" "$runs" "$benchmarks" | one_process_cell)" \
        "$(record_at_once "$(new_postgres_store fsync_many)")"
fi
printf 'load average at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
