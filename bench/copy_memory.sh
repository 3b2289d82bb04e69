#!/usr/bin/env bash
# Peak memory of `benchwatch copy` as the history grows, for docs/PERFORMANCE.md: a history of 1
# run and one of 21 runs, 200,000 results each (bench/make_bench_data), copied SQLite → SQLite
# and SQLite → PostgreSQL (a private server from tests/support/postgres-cluster, Unix socket,
# started and stopped here), each as a whole process under GNU time (maximum resident set size).
#   bench/copy_memory.sh [BUILD_DIR] [BENCHWATCH...]
# BUILD_DIR (default build/release) is configured as a Release build when it has no CMakeCache.txt
# yet, and otherwise built as it is configured (say, the RelWithDebInfo build of scripts/test).
# Each BENCHWATCH given after it (another build's binary, such as one from before a change) is
# measured on the same stores as BUILD_DIR's own.
set -euo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/../scripts/lib.sh"
cd "$BENCHWATCH_ROOT"
build_dir="${1:-build/release}"
[[ "$build_dir" == /* ]] || build_dir="$BENCHWATCH_ROOT/$build_dir"
shift || true
results=200000
many=21

ensure_packages "${BENCHWATCH_BUILD_DEPENDENCIES[@]}" postgresql time
if [[ -f "$build_dir/CMakeCache.txt" ]]; then
    cmake --build "$build_dir" --parallel "$BENCHWATCH_JOBS" --target benchwatch make_bench_data >/dev/null
else
    build_benchwatch "$build_dir" Release -DBENCHWATCH_TESTS=OFF -DBENCHWATCH_BENCH=ON -- \
        benchwatch make_bench_data >/dev/null
fi
binaries=("$build_dir/src/cli/benchwatch" "$@")
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

# Prints the URL of a new, empty schema NAME on the server: a store of its own.
new_postgres_store() {
    local schema="copy_$1"
    psql --quiet --no-psqlrc --set=ON_ERROR_STOP=1 "$server_url" -c "CREATE SCHEMA $schema" >/dev/null
    printf '%s&options=-csearch_path%%3D%s\n' "$server_url" "$schema"
}

# Prints "PEAK_MB MB, SECONDS s" of BENCHWATCH copy --from FROM --to TO.
copy_cell() {
    local line
    line="$(/usr/bin/time -f '%M %e' "$1" copy --quiet --from "$2" --to "$3" 2>&1 >/dev/null | tail -n 1)"
    awk -v kib="${line% *}" -v s="${line#* }" 'BEGIN { printf "%d MB, %.1f s", kib / 1024, s }'
}

# make_bench_data history STORE N B records N default-branch runs and one pull-request run.
"$make_data" history "$work/one.db" 0 "$results" >/dev/null
"$make_data" history "$work/many.db" $((many - 1)) "$results" >/dev/null
printf 'machine: %s, %s cores; load average at the start: %s\n' "$(uname -m)" "$(nproc)" \
    "$(cut -d' ' -f1-3 /proc/loadavg)"
printf 'stores: 1 run (%s MB), %d runs (%s MB), %d results each\n' \
    "$(du -m "$work/one.db" | cut -f1)" "$many" "$(du -m "$work/many.db" | cut -f1)" "$results"
printf '| binary | SQLite → SQLite, 1 run | %d runs | SQLite → PostgreSQL, 1 run | %d runs |\n' "$many" "$many"
printf '|:--|--:|--:|--:|--:|\n'
for i in "${!binaries[@]}"; do
    binary="${binaries[$i]}"
    rm -f "$work"/target-*.db*
    printf '| %s | %s | %s | %s | %s |\n' "$binary" \
        "$(copy_cell "$binary" "$work/one.db" "$work/target-one.db")" \
        "$(copy_cell "$binary" "$work/many.db" "$work/target-many.db")" \
        "$(copy_cell "$binary" "$work/one.db" "$(new_postgres_store "one_$i")")" \
        "$(copy_cell "$binary" "$work/many.db" "$(new_postgres_store "many_$i")")"
done
printf 'load average at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
