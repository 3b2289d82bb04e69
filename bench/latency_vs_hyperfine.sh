#!/usr/bin/env bash
# Checks benchwatch's latency timing against hyperfine's in one script run, for
# docs/PERFORMANCE.md:
#   - `sleep 0.05` and a CPU-bound command of about 50 ms: benchwatch's minimum wall time next to
#     hyperfine's minimum (hyperfine -N: no shell, as benchwatch runs a simple command);
#   - `true`: the per-run overhead of each tool's own process handling.
#   bench/latency_vs_hyperfine.sh [BUILD_DIR]     (default build/release, built when missing)
set -euo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/../scripts/lib.sh"
cd "$BENCHWATCH_ROOT"
build_dir="${1:-build/release}"
ensure_packages "${BENCHWATCH_BUILD_DEPENDENCIES[@]}" hyperfine gawk coreutils
build_benchwatch "$build_dir" Release -DBENCHWATCH_TESTS=OFF -- benchwatch >/dev/null
benchwatch="$BENCHWATCH_ROOT/$build_dir/src/cli/benchwatch"
runs=30

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Minimum wall time in ms of COMMAND (one argument, split on spaces by both tools) by hyperfine.
hyperfine_min_ms() {
    hyperfine -N --runs "$runs" --warmup 3 --export-json "$work/h.json" "$1" >/dev/null 2>&1
    gawk 'match($0, /"min": *([0-9.eE+-]+)/, m) { printf "%.4f", m[1] * 1000; exit }' "$work/h.json"
}

# Minimum wall time in ms of COMMAND by benchwatch run --latency (stored, then read back).
benchwatch_min_ms() {
    rm -f "$work/b.db"*
    "$benchwatch" run --store "$work/b.db" --project p --machine m --commit c --branch main \
        --latency "x=$1" --latency-runs "$runs" --latency-warmup 3 --no-progress >/dev/null 2>&1
    "$benchwatch" history --store "$work/b.db" --project p --machine m --format json |
        gawk 'match($0, /"latest": *([0-9.eE+-]+)/, m) { printf "%.4f", m[1] / 1e6; exit }'
}

# A CPU-bound command of about 50 ms: sha256sum of a file whose size is scaled from a trial run.
head -c 8000000 /dev/zero >"$work/trial"
trial_ms="$(hyperfine_min_ms "sha256sum $work/trial")"
bytes="$(gawk -v ms="$trial_ms" 'BEGIN { printf "%d", 8000000 * 50 / ms }')"
head -c "$bytes" /dev/zero >"$work/data"
cpu_command="sha256sum $work/data"

printf '| command | hyperfine min | benchwatch min | difference |\n|:--|--:|--:|--:|\n'
for command in "sleep 0.05" "$cpu_command" "true"; do
    h="$(hyperfine_min_ms "$command")"
    b="$(benchwatch_min_ms "$command")"
    gawk -v c="$command" -v h="$h" -v b="$b" 'BEGIN {
        printf "| `%s` | %.3f ms | %.3f ms | %+.2f%% (%+.3f ms) |\n", c, h, b, (b / h - 1) * 100, b - h }'
done

# benchwatch's own cost per timed run: the growth of its whole wall time from 30 to 230 runs of
# `true`, per run, minus the fastest measured run (so it counts spawning, waiting and bookkeeping
# that the measurement does not see).
whole_ms() {
    rm -f "$work/o.db"*
    local start="$EPOCHREALTIME"
    "$benchwatch" run --store "$work/o.db" --project p --machine m --commit c --branch main \
        --latency "x=true" --latency-runs "$1" --latency-warmup 0 --no-progress >/dev/null 2>&1
    gawk -v s="$start" -v e="$EPOCHREALTIME" 'BEGIN { printf "%.4f", (e - s) * 1000 }'
}
short="$(whole_ms 30)"
long="$(whole_ms 230)"
measured="$(benchwatch_min_ms true)"
gawk -v s="$short" -v l="$long" -v m="$measured" 'BEGIN {
    per_run = (l - s) / 200
    printf "\nper timed run of `true`: %.3f ms of benchwatch wall time, %.3f ms measured: %.3f ms overhead\n", per_run, m, per_run - m }'
