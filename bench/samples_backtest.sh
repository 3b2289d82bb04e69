#!/usr/bin/env bash
# Backtests the samples method on a real history that carries samples, beside seed and level:
# the example suite (examples/) built once and run RUNS times (10 repetitions of 0.02 s each,
# as bench/two_files_pairs.sh runs it), each run recorded as the next default-branch commit of
# a fresh store, then `benchwatch backtest --method seed --method level --method samples
# --inject 0.10,0.20 --budget 1`. Every run is of one build, so every flag is a fluke unless the
# machine itself stepped. For docs/two-files.md.
#   bench/samples_backtest.sh BENCHWATCH [RUNS]      (default 40 runs; 16 at least)
# BENCHWATCH_KEEP_HISTORY=DIR keeps the store and the result files.
set -euo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/../scripts/lib.sh"
benchwatch="$(realpath "${1:?usage: bench/samples_backtest.sh BENCHWATCH [RUNS]}")"
runs="${2:-40}"
((runs >= 16)) || die "backtest needs at least 16 runs; give 16 or more"
ensure_packages libbenchmark-dev cmake ninja-build g++
work="$(mktemp -d)"
keep="${BENCHWATCH_KEEP_HISTORY:-}"
keep_files() {
    if [[ -n "$keep" ]] && mkdir -p "$keep"; then cp "$work"/*.json "$work"/history.db "$keep"/ 2>/dev/null || true; fi
    rm -rf "$work"
}
trap keep_files EXIT

cp -r "$BENCHWATCH_ROOT/examples" "$work/suite"
cmake -S "$work/suite" -B "$work/suite/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$work/suite/build" >/dev/null
store=(--store "$work/history.db" --project textkit --machine this)
for run in $(seq 1 "$runs"); do
    "$work/suite/build/textkit_bench" --benchmark_repetitions=10 --benchmark_min_time=0.02 \
        --benchmark_format=json --benchmark_out="$work/run_$run.json" >/dev/null
    commit="$(printf '%040x' "$run")"
    (cd "$work" && "$benchwatch" record "${store[@]}" --commit "$commit" --branch main \
        "$work/run_$run.json" >/dev/null)
done
(cd "$work" && "$benchwatch" backtest "${store[@]}" --method seed --method level --method samples \
    --inject 0.10,0.20 --budget 1)
