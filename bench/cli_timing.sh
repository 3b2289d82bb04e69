#!/usr/bin/env bash
# Times benchwatch as whole processes on generated data, for docs/PERFORMANCE.md:
#   - record of a Google Benchmark file of 100,000 results (one row each, 3 and 10 repetitions
#     each; the 10-repetition file, about 290 MiB, is read a batch of rows at a time)
#   - compare on a store of 1,000 default-branch runs × 1,000 benchmarks, its calibration
#     computed (nothing cached: a fresh copy of the store each run) and taken from the cache
#   - history --changes on one benchmark's 20,000 default-branch runs and on 332 runs × 56
#     benchmarks, each benchmark stepping four times (make_bench_data steps)
# Each is run 5 times; the minimum wall time and the largest peak memory (from GNU time) are shown.
#   bench/cli_timing.sh [BUILD_DIR]     (default build/release, built when missing)
set -euo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/../scripts/lib.sh"
cd "$BENCHWATCH_ROOT"
build_dir="${1:-build/release}"
ensure_packages "${BENCHWATCH_BUILD_DEPENDENCIES[@]}" time
build_benchwatch "$build_dir" Release -DBENCHWATCH_TESTS=OFF -- benchwatch make_bench_data >/dev/null
benchwatch="$BENCHWATCH_ROOT/$build_dir/src/cli/benchwatch"
make_data="$BENCHWATCH_ROOT/$build_dir/bench/make_bench_data"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$make_data" gbench "$work/results.json" 100000 1
"$make_data" gbench "$work/results-3x.json" 100000 3
"$make_data" gbench "$work/results-10x.json" 100000 10
"$make_data" history "$work/history.db" 1000 1000 >/dev/null
"$make_data" steps "$work/long.db" 20000 1 >/dev/null
"$make_data" steps "$work/suite.db" 332 56 >/dev/null
head_commit="$(printf '%040x' 1001)"

# Prints "seconds max_rss_kib" of the fastest of 5 runs of COMMAND... (peak memory of all 5),
# running the shell command in $prepare (untimed) before each when it is set.
measure() {
    local best="" peak=0 line seconds kib
    for _ in 1 2 3 4 5; do
        if [[ -n "${prepare:-}" ]]; then bash -c "$prepare"; fi
        line="$(/usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -n 1)"
        seconds="${line% *}"
        kib="${line#* }"
        if [[ -z "$best" ]] || awk "BEGIN{exit !($seconds < $best)}"; then best="$seconds"; fi
        ((kib > peak)) && peak="$kib"
    done
    echo "$best $peak"
}

printf 'input: %s (%s MB), %s (%s MB), %s (%s MB)\n' results.json "$(du -m "$work/results.json" | cut -f1)" \
    results-3x.json "$(du -m "$work/results-3x.json" | cut -f1)" \
    results-10x.json "$(du -m "$work/results-10x.json" | cut -f1)"
printf 'store: %s (%s MB)\n' history.db "$(du -m "$work/history.db" | cut -f1)"
printf '| command | wall time (min of 5) | peak memory |\n|:--|--:|--:|\n'
# A fresh store each time: recording into one store again would only find the same run.
read -r seconds kib < <(measure bash -c "cd '$work' && rm -f r.db*; exec '$benchwatch' record --store '$work/r.db' --project p --machine m --commit 0123456789abcdef0123456789abcdef01234567 --branch main '$work/results.json'")
printf '| record, 100,000 results (100,000 rows) | %s s | %d MB |\n' "$seconds" $((kib / 1024))
read -r seconds kib < <(measure bash -c "cd '$work' && rm -f r.db*; exec '$benchwatch' record --store '$work/r.db' --project p --machine m --commit 0123456789abcdef0123456789abcdef01234567 --branch main '$work/results-3x.json'")
printf '| record, 100,000 results × 3 repetitions (100,000 rows) | %s s | %d MB |\n' "$seconds" $((kib / 1024))
read -r seconds kib < <(measure bash -c "cd '$work' && rm -f r.db*; exec '$benchwatch' record --store '$work/r.db' --project p --machine m --commit 0123456789abcdef0123456789abcdef01234567 --branch main '$work/results-10x.json'")
printf '| record, 100,000 results × 10 repetitions (100,000 rows) | %s s | %d MB |\n' "$seconds" $((kib / 1024))
# The generated store holds no cached calibration: each uncached run gets a fresh copy of it.
cp "$work/history.db" "$work/pristine.db"
read -r seconds kib < <(prepare="cp '$work/pristine.db' '$work/history.db'; rm -f '$work/history.db-wal' '$work/history.db-shm'" measure "$benchwatch" compare --store "$work/history.db" --project synthetic --machine bench --head "$head_commit" --repo "$work" --format markdown)
printf '| compare, 1,000 runs × 1,000 benchmarks, calibration computed | %s s | %d MB |\n' "$seconds" $((kib / 1024))
read -r seconds kib < <(measure "$benchwatch" compare --store "$work/history.db" --project synthetic --machine bench --head "$head_commit" --repo "$work" --format markdown)
printf '| compare, 1,000 runs × 1,000 benchmarks, calibration cached | %s s | %d MB |\n' "$seconds" $((kib / 1024))
read -r seconds kib < <(measure "$benchwatch" history --store "$work/long.db" --project synthetic --machine bench --repo "$work" --changes)
printf '| history --changes, 1 benchmark × 20,000 runs | %s s | %d MB |\n' "$seconds" $((kib / 1024))
read -r seconds kib < <(measure "$benchwatch" history --store "$work/suite.db" --project synthetic --machine bench --repo "$work" --changes)
printf '| history --changes, 56 benchmarks × 332 runs | %s s | %d MB |\n' "$seconds" $((kib / 1024))
