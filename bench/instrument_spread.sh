#!/usr/bin/env bash
# How much the example suite's counts and times move from run to run while another job loads
# every core: the example (examples/) built once, then RUNS rounds of `benchwatch run
# --instrument callgrind` and a timed `benchwatch run` of the same binary, each round on a
# commit of its own in a scratch repository, while busy loops (one per core) run throughout.
# Prints, per benchmark, the spread (largest over smallest, minus 1) of its instructions, its
# estimated cycles and its time over the rounds, and the seconds each kind of run took.
#   bench/instrument_spread.sh [--runs 20] [--no-load] [--benchwatch PATH]
set -euo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/../scripts/lib.sh"

usage="usage: bench/instrument_spread.sh [--runs 20] [--no-load] [--benchwatch PATH]"
runs=20
load=1
benchwatch="$BENCHWATCH_ROOT/build/test/src/cli/benchwatch"
while (($#)); do
    case "$1" in
    --runs | --benchwatch)
        (($# >= 2)) || die "$1 needs a value"$'\n'"$usage"
        case "$1" in
        --runs) runs="$2" ;;
        --benchwatch) benchwatch="$2" ;;
        esac
        shift 2
        ;;
    --no-load) load=0 && shift ;;
    --help) printf '%s\n' "$usage" && exit 0 ;;
    *) die "unknown argument: $1"$'\n'"$usage" ;;
    esac
done
[[ -x "$benchwatch" ]] || die "no benchwatch at $benchwatch: build it or give --benchwatch"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "--runs: a whole number above 0"
command -v valgrind >/dev/null || die "valgrind is not installed: apt-get install valgrind"

work="$(mktemp -d "${TMPDIR:-/tmp}/benchwatch-instrument-spread.XXXXXX")"
load_pid=
cleanup() {
    if [[ -n "$load_pid" ]]; then kill -- "-$load_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT

cmake -S "$BENCHWATCH_ROOT/examples" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -Wno-dev >"$work/build.log" 2>&1
ninja -C "$work/build" >>"$work/build.log" 2>&1
repository="$work/repository"
git init -q -b main "$repository"
git_quiet() { git -C "$repository" -c user.name=bench -c user.email=bench@localhost "$@" >/dev/null; }

if ((load)); then
    cores="$(nproc)"
    setsid bash -c "for ((i = 0; i < $cores; ++i)); do sh -c 'while :; do :; done' & done; wait" &
    load_pid=$!
fi

counted_seconds=0
timed_seconds=0
for ((round = 1; round <= runs; ++round)); do
    git_quiet commit --allow-empty -m "round $round"
    start="$EPOCHREALTIME"
    (cd "$repository" && "$benchwatch" run --store "$work/counted.db" --project textkit \
        --machine m --branch main --instrument callgrind --no-progress -- \
        "$work/build/textkit_bench" >/dev/null 2>"$work/counted-$round.err")
    counted_seconds="$(python3 -c "print($counted_seconds + $EPOCHREALTIME - $start)")"
    start="$EPOCHREALTIME"
    (cd "$repository" && "$benchwatch" run --store "$work/timed.db" --project textkit \
        --machine m --branch main --no-progress -- \
        "$work/build/textkit_bench" --benchmark_format=json >/dev/null 2>"$work/timed-$round.err")
    timed_seconds="$(python3 -c "print($timed_seconds + $EPOCHREALTIME - $start)")"
done
cleanup
load_pid=

for store in counted timed; do
    (cd "$repository" && "$benchwatch" history --store "$work/$store.db" --project textkit \
        --machine m --limit 0 --format json >"$work/$store.json")
done
python3 - "$work/counted.json" "$work/timed.json" "$runs" "$counted_seconds" "$timed_seconds" <<'EOF'
import json
import sys

counted_path, timed_path, runs, counted_seconds, timed_seconds = sys.argv[1:]
spreads = {}
for path in (counted_path, timed_path):
    for benchmark in json.load(open(path, encoding="utf-8"))["benchmarks"]:
        values = [point["value"] for point in benchmark["values"]]
        spreads.setdefault(benchmark["name"], {})[benchmark["metric"]] = (
            max(values) / min(values) - 1, len(values))
print("| benchmark | instructions | estimated cycles | time |")
print("|:--|--:|--:|--:|")
for name in sorted(spreads):
    row = spreads[name]
    cells = []
    for metric in ("instructions", "estimated_cycles", "time"):
        spread, count = row.get(metric, (float("nan"), 0))
        cells.append(f"{100 * spread:.4f}% ({count})" if metric != "time" else f"{100 * spread:.1f}% ({count})")
    print(f"| {name} | " + " | ".join(cells) + " |")
print(f"\n{runs} rounds; counted runs {float(counted_seconds) / int(runs):.2f} s each, "
      f"timed runs {float(timed_seconds) / int(runs):.2f} s each")
EOF
echo "work folder: $work" >&2
