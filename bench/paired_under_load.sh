#!/usr/bin/env bash
# How `compare --paired` does on a busy machine: the example suite (examples/, narrowed to four
# Google Benchmark benchmarks so that one round takes about a second) in a scratch repository,
# whose pull request makes BM_Checksum/65536 CHANGE percent slower (its input that much longer)
# and leaves the rest as they are, compared REPLAYS times while a CPU hog of two busy loops is
# switched on and off at random (on for 1-4 s, off for 0-3 s) through every replay. Prints, per
# change: how often the slowdown was flagged, the false flags on the unchanged benchmarks, and
# each replay's rounds and seconds; writes every report to the work folder.
#   bench/paired_under_load.sh [--changes 10,5,0] [--replays 20] [--budget 300]
#                              [--false-alarms 1] [--no-hog] [--benchwatch PATH] [--gbench-flags F]
# --gbench-flags replaces the suite's Google Benchmark flags (default: --benchmark_min_time=0.05),
# e.g. "--benchmark_min_time=0.01 --benchmark_repetitions=5" to judge each round by the fastest of
# five short repetitions. A change of 0 makes a pull request whose binary is identical to its base. Takes up to
# changes × replays × budget seconds (each replay ends when every benchmark is decided).
set -euo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/../scripts/lib.sh"

usage="usage: bench/paired_under_load.sh [--changes 10,5,0] [--replays 20] [--budget 300]
       [--false-alarms 1] [--no-hog] [--benchwatch PATH] [--gbench-flags F]"
gbench_flags="--benchmark_min_time=0.05"
changes=10,5,0
replays=20
budget=300
false_alarms=1
hog=1
benchwatch="$BENCHWATCH_ROOT/build/test/src/cli/benchwatch"
while (($#)); do
    case "$1" in
    --changes | --replays | --budget | --false-alarms | --benchwatch | --gbench-flags)
        (($# >= 2)) || die "$1 needs a value"$'\n'"$usage"
        case "$1" in
        --changes) changes="$2" ;;
        --replays) replays="$2" ;;
        --budget) budget="$2" ;;
        --false-alarms) false_alarms="$2" ;;
        --benchwatch) benchwatch="$2" ;;
        --gbench-flags) gbench_flags="$2" ;;
        esac
        shift 2
        ;;
    --no-hog) hog=0 && shift ;;
    --help) printf '%s\n' "$usage" && exit 0 ;;
    *) die "unknown argument: $1"$'\n'"$usage" ;;
    esac
done
[[ -x "$benchwatch" ]] || die "no benchwatch at $benchwatch: build it or give --benchwatch"
[[ "$changes" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--changes: whole percentages separated by commas"
[[ "$replays" =~ ^[1-9][0-9]*$ ]] || die "--replays: a whole number above 0"

work="$(mktemp -d "${TMPDIR:-/tmp}/benchwatch-paired-load.XXXXXX")"
hog_pid=
cleanup() {
    if [[ -n "$hog_pid" ]]; then kill -- "-$hog_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT

# The scratch repository: the example at its base, and one branch per change.
repository="$work/textkit"
mkdir -p "$repository"
cp -r "$BENCHWATCH_ROOT/examples/src" "$BENCHWATCH_ROOT/examples/bench" \
    "$BENCHWATCH_ROOT/examples/CMakeLists.txt" "$repository/"
[[ "$gbench_flags" =~ ^[-a-z_=.0-9\ ]*$ ]] || die "--gbench-flags: only Google Benchmark flags"
cat >"$repository/benchwatch.toml" <<EOF
project = "textkit"
default_branch = "main"
[measure]
build = "cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -Wno-dev > build.log 2>&1 && ninja -C build >> build.log 2>&1"
run = "build/textkit_bench --benchmark_format=json $gbench_flags --benchmark_filter='BM_(Checksum|CountWords/1024|Join/64)'"
EOF
git_quiet() { git -C "$repository" -c user.name=bench -c user.email=bench@localhost "$@" >/dev/null; }
git_quiet init -b main
printf 'build/\nbuild.log\n' >"$repository/.gitignore"
git_quiet add -A
git_quiet commit -m "textkit"
for change in ${changes//,/ }; do
    git_quiet checkout -b "slower-$change" main
    # BM_Checksum/65536 checksums CHANGE percent more bytes; adler32 is linear in them. A change
    # of 0 is a commit that changes nothing, so that both builds are the same binary.
    if ((change == 0)); then
        git_quiet commit --allow-empty -m "nothing that changes the binary"
        continue
    fi
    sed -i "s|const std::string data = make_text(static_cast<std::size_t>(state.range(0)));|const std::string data = make_text(static_cast<std::size_t>(state.range(0) >= 65536 ? state.range(0) * (100 + $change) / 100 : state.range(0)));|" \
        "$repository/bench/textkit_bench.cpp"
    grep -q "(100 + $change)" "$repository/bench/textkit_bench.cpp" || die "the change was not made"
    git_quiet commit -am "BM_Checksum/65536 $change% slower"
done
git_quiet checkout main

if ((hog)); then
    # Two busy loops (one per core) on for 1-4 s, then off for 0-3 s, until the end; a group of
    # its own so that it ends with this script.
    setsid bash -c 'while :; do
        sh -c "while :; do :; done" & a=$!
        sh -c "while :; do :; done" & b=$!
        sleep $((1 + RANDOM % 4)); kill $a $b; wait $a $b 2>/dev/null
        sleep $((RANDOM % 4))
    done' &
    hog_pid=$!
fi

printf 'change\treplay\tverdict of BM_Checksum/65536\tfalse flags\trounds\tseconds\tstopped\n'
for change in ${changes//,/ }; do
    for ((replay = 1; replay <= replays; ++replay)); do
        report="$work/change-$change-replay-$replay.json"
        start="$EPOCHREALTIME"
        (cd "$repository" && "$benchwatch" compare --paired --head "slower-$change" \
            --paired-budget "$budget" --false-alarms-per-pr "$false_alarms" --format json \
            --output "$report" 2>"$report.err") || true
        seconds="$(elapsed_since "$start")"
        python3 - "$change" "$replay" "$report" "$seconds" <<'EOF'
import json
import sys

change, replay, path, seconds = sys.argv[1:]
try:
    report = json.load(open(path, encoding="utf-8"))
except (OSError, ValueError):
    print(f"{change}\t{replay}\tfailed: see {path}.err\t\t\t{seconds}\t")
    sys.exit(0)
target = "BM_Checksum/65536"
verdict = next(b["verdict"] for b in report["benchmarks"] if b["name"] == target)
false_flags = sum(b["verdict"] in ("slower", "faster") for b in report["benchmarks"]
                  if b["name"] != target)
rounds = report["confirmation"]["rounds"]
print(f"{change}\t{replay}\t{verdict}\t{false_flags}\t{rounds}\t{seconds}\t"
      f"{report['confirmation']['stopped']}")
EOF
    done
done
echo "reports in $work" >&2
