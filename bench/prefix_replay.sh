#!/usr/bin/env bash
# How the level method's calibration does on short histories: each history is cut to its first
# 30, 50, 80 and 120 runs (and kept whole), replayed by `generated_backtest --prefixes` with the
# calibrated level method at 1 fluke per pull request, and put beside the hindsight frontier of
# exactly that prefix (bench/oracle_bound.py --budget 1: weight 1, and cross-fitted) with the
# gaps in points (bound − level). Histories: Metal.jl's data.js, any --history files, and SUITES generated
# suites per regime of 200 runs and of 60 runs (whose regime change, in the middle third, falls
# inside their short prefixes; a 200-run suite's falls after run 65). Generated suites are shown
# as the mean of their SUITES suites per regime, length and prefix; --each-suite adds every one.
# Builds nothing: configure with -DBENCHWATCH_BENCH=ON and build generated_backtest first.
# About 3.5 minutes with the defaults on the shared 2-core machine (2.5 minutes of CPU).
#   bench/prefix_replay.sh [--backtest PATH] [--metal DATA.js] [--history DATA.js]...
#                          [--suites N] [--lengths 200,60] [--prefixes 30,50,80,120] [--each-suite]
# --backtest defaults to build/test/bench/generated_backtest under the source tree holding this
# script; --metal to $BENCHWATCH_SHARED_DATA/metal-gh-pages-data.js; --suites to 5; --suites 0
# replays the histories only. BENCHWATCH_KEEP=1 keeps the data.js files and outputs.
set -euo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/../scripts/lib.sh"

usage="usage: bench/prefix_replay.sh [--backtest PATH] [--metal DATA.js] [--history DATA.js]...
       [--suites N] [--lengths 200,60] [--prefixes 30,50,80,120] [--each-suite]"
backtest="$BENCHWATCH_ROOT/build/test/bench/generated_backtest"
metal="${BENCHWATCH_SHARED_DATA:+$BENCHWATCH_SHARED_DATA/metal-gh-pages-data.js}"
histories=()
suites=5
lengths=200,60
prefixes=30,50,80,120
each_suite=0
while (($#)); do
    case "$1" in
    --backtest | --metal | --history | --suites | --lengths | --prefixes)
        (($# >= 2)) || die "$1 needs a value"$'\n'"$usage"
        case "$1" in
        --backtest) backtest="$2" ;;
        --metal) metal="$2" ;;
        --history) histories+=("$2") ;;
        --suites) suites="$2" ;;
        --lengths) lengths="$2" ;;
        --prefixes) prefixes="$2" ;;
        esac
        shift 2
        ;;
    --each-suite) each_suite=1 && shift ;;
    --help) printf '%s\n' "$usage" && exit 0 ;;
    *) die "unknown argument: $1"$'\n'"$usage" ;;
    esac
done
[[ -x "$backtest" ]] || die "no generated_backtest at $backtest: build it (-DBENCHWATCH_BENCH=ON) or give --backtest"
[[ -n "$metal" && -f "$metal" ]] ||
    die "no Metal.jl history: set BENCHWATCH_SHARED_DATA or give --metal DATA.js"
[[ "$suites" =~ ^[0-9]+$ ]] || die "--suites: expected a whole number, got $suites"
[[ "$lengths" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--lengths: expected numbers separated by commas, got $lengths"
for history in "${histories[@]}"; do [[ -f "$history" ]] || die "no such history: $history"; done

work="$(mktemp -d "${TMPDIR:-/tmp}/benchwatch-prefix-replay.XXXXXX")"
trap '[[ -n "${BENCHWATCH_KEEP:-}" ]] && echo "kept $work" >&2 || rm -rf -- "$work"' EXIT
start="$EPOCHREALTIME"

# generated_backtest checks the prefixes and the lengths itself.
history_arguments=(--history "$metal")
for history in "${histories[@]}"; do history_arguments+=(--history "$history"); done
mkdir "$work/histories"
"$backtest" --prefixes "$prefixes" --data "$work/histories" "${history_arguments[@]}" \
    >"$work/histories.tsv"
if ((suites > 0)); then
    for length in ${lengths//,/ }; do
        mkdir "$work/of$length"
        "$backtest" "$suites" --runs "$length" --prefixes "$prefixes" --data "$work/of$length" \
            >"$work/of$length.tsv"
    done
fi

# The frontier of every prefix written, two at a time.
for table in "$work"/*.tsv; do tail -n +2 "$table" | cut -f 12; done >"$work/data.list"
# shellcheck disable=SC2016  # the inner sh expands $1 and $2
xargs -P "$BENCHWATCH_JOBS" -I{} -d '\n' \
    sh -c 'python3 "$1" "$2" --budget 1 >"$2.frontier"' sh "$BENCHWATCH_ROOT/bench/oracle_bound.py" {} \
    <"$work/data.list"

python3 - "$each_suite" "$work"/*.tsv <<'EOF'
import re
import sys

each_suite = sys.argv[1] == "1"


def frontier(path):
    """Pull requests; flukes/PR, +10%, +20% of oracle_bound.py's weight-1 row and cross-fitted row."""
    lines = open(path + ".frontier", encoding="utf-8").read().splitlines()
    pull_requests = int(lines[0].split()[0])
    rows = {}
    for line in lines[2:]:
        fields = line.rsplit(None, 3)
        rows[fields[0].strip()] = [float(field.rstrip("%")) for field in fields[1:]]
    if "1" not in rows or "cross-fitted 1" not in rows:
        sys.exit(f"error: no weight-1 or cross-fitted row in {path}.frontier")
    return pull_requests, rows["1"], rows["cross-fitted 1"]


def cells(label, runs, pull_requests, ours, best, fitted):
    gaps = [best[1] - ours[1], best[2] - ours[2], fitted[1] - ours[1], fitted[2] - ours[2]]
    return (f"| {label} | {runs} | {pull_requests} | {ours[0]:.2f} | {ours[1]:.1f}% | "
            f"{ours[2]:.1f}% | {best[0]:.2f}, {best[1]:.1f}%, {best[2]:.1f}% | "
            f"{gaps[0]:+.1f}, {gaps[1]:+.1f} | {fitted[0]:.2f}, {fitted[1]:.1f}%, {fitted[2]:.1f}% | "
            f"{gaps[2]:+.1f}, {gaps[3]:+.1f} |")


print("| history | runs | PRs | flukes/PR | +10% | +20% | frontier: flukes/PR, +10%, +20% "
      "| gap (points) | cross-fitted: flukes/PR, +10%, +20% | gap (points) |")
print("|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
groups = {}  # (length, regime, runs) -> rows, in the order first seen
for table in sys.argv[2:]:
    for line in open(table, encoding="utf-8").read().splitlines()[1:]:
        fields = line.split("\t")
        name, runs, regime_start, pull_requests = fields[0], int(fields[1]), int(fields[2]), int(fields[3])
        ours = [float(value) for value in fields[4:7]]
        oracle_requests, best, fitted = frontier(fields[11])
        if oracle_requests != pull_requests:
            sys.exit(f"error: {fields[11]}: the frontier has {oracle_requests} pull requests, "
                     f"the replay {pull_requests}")
        generated = re.fullmatch(r"(\w+)-(\d+)-of(\d+)", name)
        if not generated or "/histories.tsv" in table.replace("\\", "/"):
            print(cells(name, runs, pull_requests, ours, best, fitted))
            continue
        regime, length = generated.group(1), int(generated.group(3))
        if each_suite:
            change = f", change at {regime_start}" if regime_start else ""
            print(cells(f"{name}{change}", runs, pull_requests, ours, best, fitted))
        groups.setdefault((length, regime, runs), []).append(
            (regime_start, pull_requests, ours, best, fitted))
for (length, regime, runs), rows in groups.items():
    count = len(rows)
    ours = [sum(row[2][k] for row in rows) / count for k in range(3)]
    best = [sum(row[3][k] for row in rows) / count for k in range(3)]
    fitted = [sum(row[4][k] for row in rows) / count for k in range(3)]
    starts = sorted(row[0] for row in rows if row[0])
    inside = sum(start < runs for start in starts)
    change = f", {inside} with the regime change" if starts else ""
    print(cells(f"{regime}: mean of {count} suites of {length} runs{change}", runs, rows[0][1],
                ours, best, fitted))
EOF
echo >&2 "prefix replay: $(elapsed_since "$start")"
