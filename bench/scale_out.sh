#!/usr/bin/env bash
# Two `serve --allow-upload` processes on one PostgreSQL store, for docs/PERFORMANCE.md and
# docs/postgres.md: the end-to-end test TwoServersOnOnePostgresStoreStoreEachRunOnceAndShowTheSame
# (tests/e2e/upload_test.cpp) at its full size, 16 uploaders × 50 runs split across the servers,
# every third run also sent to the other server at once, on a private PostgreSQL server
# (tests/support/postgres-cluster, started and stopped here). Prints the test's verdict and its
# wall time.
#   bench/scale_out.sh [BUILD_DIR] [RUNS_PER_UPLOADER]   (default build and 50; BUILD_DIR has tests)
set -euo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/../scripts/lib.sh"
cd "$BENCHWATCH_ROOT"
build_dir="${1:-build}"
[[ "$build_dir" == /* ]] || build_dir="$BENCHWATCH_ROOT/$build_dir"
runs="${2:-50}"
[[ -x "$build_dir/tests/test_e2e" ]] || { echo "error: no $build_dir/tests/test_e2e; build the tests first" >&2; exit 2; }

work="$(mktemp -d)"
cleanup() {
    "$BENCHWATCH_ROOT/tests/support/postgres-cluster" stop "$work/postgres" || true
    rm -rf "$work"
}
trap cleanup EXIT
"$BENCHWATCH_ROOT/tests/support/postgres-cluster" start "$work/postgres"
printf 'load average at the start: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
start="$EPOCHREALTIME"
status=0
BENCHWATCH_TEST_POSTGRES_URL="$(<"$work/postgres/url")" BENCHWATCH_REQUIRE_POSTGRES=1 \
    BENCHWATCH_SCALE_OUT_RUNS="$runs" "$build_dir/tests/test_e2e" \
    --gtest_filter='UploadTest.TwoServersOnOnePostgresStoreStoreEachRunOnceAndShowTheSame' ||
    status=$?
printf '16 uploaders × %s runs over two servers: %s in %s; load average at the end: %s\n' \
    "$runs" "$( ((status == 0)) && echo passed || echo FAILED)" "$(elapsed_since "$start")" \
    "$(cut -d' ' -f1-3 /proc/loadavg)"
exit "$status"
