#!/usr/bin/env bash
# Whether a slow spell of the machine in the default branch's history makes the default
# `compare` wrong: the example suite (examples/, four Google Benchmark benchmarks) recorded on
# RUNS default-branch commits of a scratch repository, a CPU hog of two busy loops running through
# the runs of SPELL consecutive ones (from the FROM-th), then two pull requests compared with the
# default method: one whose binary is identical to its base, one whose BM_Checksum/65536 is
# SLOWER percent slower. Every run is `benchwatch run --repetitions REPETITIONS` (the few-samples
# warning's advice is 3); each pull request is compared at every false-alarm budget of BUDGETS (--false-alarms-per-pr;
# the default's is 1).
# --spell 0 gives the same history without the hog, to tell what the spell adds. Prints both
# reports' verdicts and the runs the comparison left out.
#   bench/slow_spell_trial.sh [--runs 16] [--from 13] [--spell 4] [--slower 30] [--repetitions 3]
#                             [--budgets 1,0.1] [--benchwatch PATH]
set -euo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/../scripts/lib.sh"

usage="usage: bench/slow_spell_trial.sh [--runs 16] [--from 13] [--spell 4] [--slower 30] [--repetitions 3] [--budgets 1,0.1] [--benchwatch PATH]"
runs=16
repetitions=3
budgets=1,0.1
from=13
spell=4
slower=30
benchwatch="$BENCHWATCH_ROOT/build/test/src/cli/benchwatch"
while (($#)); do
    case "$1" in
    --runs | --from | --spell | --slower | --repetitions | --budgets | --benchwatch)
        (($# >= 2)) || die "$1 needs a value"$'\n'"$usage"
        case "$1" in
        --runs) runs="$2" ;;
        --from) from="$2" ;;
        --spell) spell="$2" ;;
        --slower) slower="$2" ;;
        --repetitions) repetitions="$2" ;;
        --budgets) budgets="$2" ;;
        --benchwatch) benchwatch="$2" ;;
        esac
        shift 2
        ;;
    --help) printf '%s\n' "$usage" && exit 0 ;;
    *) die "unknown argument: $1"$'\n'"$usage" ;;
    esac
done
[[ -x "$benchwatch" ]] || die "no benchwatch at $benchwatch: build it or give --benchwatch"
for value in "$runs" "$from" "$spell" "$slower" "$repetitions"; do
    [[ "$value" =~ ^[0-9]+$ ]] || die "expected whole numbers, got $value"$'\n'"$usage"
done
[[ "$budgets" =~ ^[0-9.]+(,[0-9.]+)*$ ]] || die "expected numbers split by commas for --budgets, got $budgets"$'\n'"$usage"

work="$(mktemp -d "${TMPDIR:-/tmp}/benchwatch-slow-spell.XXXXXX")"
hog_pid=
stop_hog() {
    if [[ -n "$hog_pid" ]]; then kill -- "-$hog_pid" 2>/dev/null || true; wait "$hog_pid" 2>/dev/null || true; fi
    hog_pid=
}
trap stop_hog EXIT

repository="$work/textkit"
mkdir -p "$repository"
cp -r "$BENCHWATCH_ROOT/examples/src" "$BENCHWATCH_ROOT/examples/bench" \
    "$BENCHWATCH_ROOT/examples/CMakeLists.txt" "$repository/"
printf 'project = "textkit"\ndefault_branch = "main"\nstore = "%s"\n' "$work/history.db" \
    >"$repository/benchwatch.toml"
printf 'build/\n' >"$repository/.gitignore"
git_quiet() { git -C "$repository" -c user.name=bench -c user.email=bench@localhost "$@" >/dev/null; }
git_quiet init -b main
git_quiet add -A
git_quiet commit -m "textkit"
(cd "$repository" && cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -Wno-dev >/dev/null &&
    ninja -C build >/dev/null)
suite=(build/textkit_bench --benchmark_format=json --benchmark_min_time=0.05
    "--benchmark_filter=BM_(Checksum|CountWords/1024|Join/64)")

for ((run = 1; run <= runs; ++run)); do
    # Commits that change no code: every run measures the same binary.
    git_quiet commit --allow-empty -m "main $run"
    if ((run >= from && run < from + spell)); then
        setsid bash -c 'sh -c "while :; do :; done" & sh -c "while :; do :; done" & wait' &
        hog_pid=$!
        sleep 1
    fi
    (cd "$repository" && "$benchwatch" run --repetitions "$repetitions" --branch main -- "${suite[@]}" >/dev/null 2>"$work/run-$run.err")
    stop_hog
    printf 'run %2d recorded%s\n' "$run" "$( ((run >= from && run < from + spell)) && echo ' (under the hog)')"
done

report() {
    local branch="$1"
    (cd "$repository" && "$benchwatch" run --repetitions "$repetitions" --branch "$branch" -- "${suite[@]}" >/dev/null 2>&1)
    local budget
    for budget in ${budgets//,/ }; do
        (cd "$repository" && "$benchwatch" compare --false-alarms-per-pr "$budget" --format json \
            --output "$work/$branch-$budget.json")
        python3 - "$work/$branch-$budget.json" "$branch" "$budget" <<'EOF'
import json
import sys

report = json.load(open(sys.argv[1], encoding="utf-8"))
rows = ", ".join(f"{b['name']} {100 * b['change']:+.1f}% {b['verdict']}" for b in report["benchmarks"])
left = report["left_out_runs"]
expected = report["calibration"].get("expected_flukes_per_pr")
print(f"{sys.argv[2]} at budget {sys.argv[3]} (expected flukes {expected or 0:.2f}): {rows}")
print(f"  left out: {len(left['commits'])} runs, suite move {100 * (left['suite_move'] or 0):+.1f}%, "
      f"unsettled {left['unsettled']}")
EOF
    done
}
git_quiet checkout -b identical
git_quiet commit --allow-empty -m "a comment-only change"
report identical
git_quiet checkout -b "slower-$slower" main
sed -i "s|const std::string data = make_text(static_cast<std::size_t>(state.range(0)));|const std::string data = make_text(static_cast<std::size_t>(state.range(0) >= 65536 ? state.range(0) * (100 + $slower) / 100 : state.range(0)));|" \
    "$repository/bench/textkit_bench.cpp"
git_quiet commit -am "BM_Checksum/65536 $slower% slower"
(cd "$repository" && ninja -C build >/dev/null)
report "slower-$slower"
echo "work folder: $work" >&2
