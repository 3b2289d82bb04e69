#!/usr/bin/env bash
# Times one CI step of a default-branch push as whole processes, for docs/PERFORMANCE.md: in a
# real git repository whose default branch has RUNS recorded runs of a BENCHMARKS-benchmark
# Google Benchmark suite, a new commit lands, `record` stores its run and `compare` judges it
# against the run before with the calibrated default (the level method calibrated on the replayed
# pull requests of the history). Every trial adds a new default-branch run, so no trial finds the
# calibration of an earlier one ready unless `record` made it. TRIALS trials, each process's wall
# time; prints the fastest and the median of record, compare and both.
#   bench/ci_step_timing.sh [BUILD_DIR [RUNS BENCHMARKS TRIALS]]   (default build/release 332 56 9)
set -euo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/../scripts/lib.sh"
cd "$BENCHWATCH_ROOT"
build_dir="${1:-build/release}"
runs="${2:-332}"
benchmarks="${3:-56}"
trials="${4:-9}"
ensure_packages "${BENCHWATCH_BUILD_DEPENDENCIES[@]}" git
if [[ ! -x "$build_dir/src/cli/benchwatch" || ! -x "$build_dir/bench/make_bench_data" ]]; then
    build_benchwatch "$build_dir" Release -DBENCHWATCH_TESTS=OFF -- benchwatch make_bench_data >/dev/null
fi
benchwatch="$BENCHWATCH_ROOT/$build_dir/src/cli/benchwatch"
make_data="$BENCHWATCH_ROOT/$build_dir/bench/make_bench_data"

work="$(mktemp -d)"
# KEEP=1 leaves the repository and store behind for profiling, and says where.
if [[ "${KEEP:-}" == 1 ]]; then echo "kept in $work"; else trap 'rm -rf "$work"' EXIT; fi
repository="$work/project"
git init --quiet --initial-branch=main "$repository"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
unset GITHUB_ACTIONS GITHUB_SHA GITHUB_REF GITHUB_REF_NAME GITHUB_HEAD_REF GITHUB_BASE_REF \
    GITHUB_EVENT_NAME GITHUB_EVENT_PATH CI_COMMIT_SHA CI_MERGE_REQUEST_IID BUILDKITE

# Commits a change to the repository and writes that commit's results (seeded by N) to results.json.
new_commit() {
    local n="$1"
    echo "$n" >"$repository/version"
    git -C "$repository" add version
    git -C "$repository" commit --quiet -m "change $n"
    "$make_data" gbench "$repository/results.json" "$benchmarks" 1 "$n" 1.0
}

record_args=(record --store "$work/history.db" --project p --machine ci --branch main
    --repo "$repository" "$repository/results.json")
for ((n = 1; n <= runs; n++)); do
    new_commit "$n"
    (cd "$repository" && "$benchwatch" "${record_args[@]}" >/dev/null 2>&1)
done
# Packed, as a clone is: git reads loose objects several times slower.
git -C "$repository" gc --quiet
echo "history: $runs default-branch runs × $benchmarks benchmarks in a git repository of $runs commits"

# Prints the seconds COMMAND... took, from bash's clock (GNU time rounds to 10 ms); its output is dropped.
seconds_of() {
    local start="$EPOCHREALTIME"
    "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; return 1; }
    awk "BEGIN { printf \"%.4f\", $EPOCHREALTIME - $start }"
}

record_times=()
compare_times=()
cd "$repository"
for ((t = 1; t <= trials; t++)); do
    new_commit $((runs + t))
    record_times+=("$(seconds_of "$benchwatch" "${record_args[@]}")")
    compare_times+=("$(seconds_of "$benchwatch" compare --store "$work/history.db" --project p \
        --machine ci --format markdown --output "$work/report.md")")
done
cd "$BENCHWATCH_ROOT"
grep -q "Benchmark" "$work/report.md" || { echo "compare wrote no report" >&2; exit 1; }

# Prints "fastest median" of the numbers given.
summary() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f %.3f\n", v[1], v[int((NR + 1) / 2)] }'
}
totals=()
for ((t = 0; t < trials; t++)); do
    totals+=("$(awk "BEGIN { print ${record_times[t]} + ${compare_times[t]} }")")
done
read -r record_best record_median < <(summary "${record_times[@]}")
read -r compare_best compare_median < <(summary "${compare_times[@]}")
read -r total_best total_median < <(summary "${totals[@]}")
printf 'load average at the end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '| step | fastest of %d | median |\n|:--|--:|--:|\n' "$trials"
printf '| record | %s s | %s s |\n' "$record_best" "$record_median"
printf '| compare | %s s | %s s |\n' "$compare_best" "$compare_median"
printf '| record + compare | %s s | %s s |\n' "$total_best" "$total_median"
