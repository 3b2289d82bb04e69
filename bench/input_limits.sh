#!/usr/bin/env bash
# Peak memory of benchwatch record on inputs at the input limits, for docs/PERFORMANCE.md:
# a valid Google Benchmark file of about 100 MB (read in full), and the files refused by the
# common checks of src/ingest/ingest.cpp — 1 GiB (sparse), 10,000-deep nesting, a 1 MB name,
# invalid UTF-8 — which must be refused quickly and in little memory. Not a timed assertion.
#   bench/input_limits.sh [BUILD_DIR]     (default build/release; built when missing, not rebuilt)
set -euo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/../scripts/lib.sh"
cd "$BENCHWATCH_ROOT"
build_dir="${1:-build/release}"
ensure_packages "${BENCHWATCH_BUILD_DEPENDENCIES[@]}" time python3
[[ "$build_dir" == /* ]] || build_dir="$BENCHWATCH_ROOT/$build_dir"
benchwatch="$build_dir/src/cli/benchwatch"
make_data="$build_dir/bench/make_bench_data"
if [[ ! -x "$benchwatch" || ! -x "$make_data" ]]; then
    build_benchwatch "$build_dir" Release -DBENCHWATCH_TESTS=OFF -- benchwatch make_bench_data >/dev/null
fi

work="$(mktemp -d)"
trap 'rm -rf -- "$work"' EXIT
# 120,000 benchmarks × 3 repetitions: 360,000 rows, about 100 MB.
"$make_data" gbench "$work/large.json" 120000 3
truncate -s 1G "$work/gigabyte.json"
python3 - "$work" <<'PYTHON'
import sys
work = sys.argv[1]
with open(f"{work}/deep.json", "w") as out:
    out.write("[" * 10000 + "]" * 10000)
row = '{{"name":"{}","run_type":"iteration","real_time":3,"time_unit":"ns"}}'
with open(f"{work}/long-name.json", "w") as out:
    out.write('{"context":{},"benchmarks":[' + row.format("n" * (1 << 20)) + "]}")
with open(f"{work}/not-utf8.json", "wb") as out:
    out.write(b'{"benchmarks":[{"name":"\xff","real_time":1}]}')
PYTHON

# Prints "seconds max_rss_kib exit_status" of one run of benchwatch record on FILE.
measure() {
    local file="$1" line status=0
    rm -f "$work/r.db"*
    line="$(cd "$work" && /usr/bin/time -f '%e %M' "$benchwatch" record --store "$work/r.db" --project p \
        --machine m --commit 0123456789abcdef0123456789abcdef01234567 --branch main "$file" 2>&1 >/dev/null | tail -n 1)" || status=$?
    echo "$line $status"
}

printf '| input | size | outcome | wall time | peak memory |\n|:--|--:|:--|--:|--:|\n'
for name in large gigabyte deep long-name not-utf8; do
    file="$work/$name.json"
    read -r seconds kib status < <(measure "$file")
    outcome=recorded
    ((status == 0)) || outcome=refused
    printf '| %s | %s | %s | %s s | %d MB |\n' "$name.json" \
        "$(du -h --apparent-size "$file" | cut -f1)" "$outcome" "$seconds" $((kib / 1024))
done
