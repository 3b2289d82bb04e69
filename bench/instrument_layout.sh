#!/usr/bin/env bash
# How much the example suite's instruction counts move between builds that change nothing the
# benchmarks run: the example (examples/) built as it is, then as each variant below, each counted
# once with `benchwatch run --instrument callgrind` (a count repeats to the instruction between
# runs of one binary). Prints, per variant, the largest move of any benchmark's instructions and
# estimated cycles from the unchanged build's, and which benchmark moved most: what a commit that
# does not touch a benchmark's code can do to its count, against the counted minimum of 0.2%.
#   bench/instrument_layout.sh [--benchwatch PATH]
set -euo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/../scripts/lib.sh"

usage="usage: bench/instrument_layout.sh [--benchwatch PATH]"
benchwatch="$BENCHWATCH_ROOT/build/test/src/cli/benchwatch"
while (($#)); do
    case "$1" in
    --benchwatch)
        (($# >= 2)) || die "$1 needs a value"$'\n'"$usage"
        benchwatch="$2"
        shift 2
        ;;
    --help) printf '%s\n' "$usage" && exit 0 ;;
    *) die "unknown argument: $1"$'\n'"$usage" ;;
    esac
done
[[ -x "$benchwatch" ]] || die "no benchwatch at $benchwatch: build it or give --benchwatch"
command -v valgrind >/dev/null || die "valgrind is not installed: apt-get install valgrind"

work="$(mktemp -d "${TMPDIR:-/tmp}/benchwatch-instrument-layout.XXXXXX")"

# Each variant: a name, and a shell command run in a fresh copy of examples/ before it is built.
variants=(
    "unchanged|:"
    "an unused function in the library|printf '\nint textkit_unused(int x) { return x * 7 + 3; }\n' >>src/textkit.cpp"
    "a 4 KiB unused table in the library|printf '\nextern const unsigned char textkit_table[4096] = {1};\n' >>src/textkit.cpp"
    "a string allocated before main|printf '\n#include <string>\nstatic std::string textkit_padding(333, 42);\n' >>bench/textkit_bench.cpp"
    "functions not aligned to 64 bytes|sed -i 's/ -falign-functions=64//' CMakeLists.txt"
    "a longer binary name|sed -i 's/textkit_bench /textkit_benchmarks_with_a_longer_name /; s/(textkit_bench PRIVATE/(textkit_benchmarks_with_a_longer_name PRIVATE/g' CMakeLists.txt"
    "a deeper build folder|:"
)

for index in "${!variants[@]}"; do
    name="${variants[$index]%%|*}"
    change="${variants[$index]#*|}"
    source_folder="$work/source-$index"
    cp -r "$BENCHWATCH_ROOT/examples" "$source_folder"
    (cd "$source_folder" && eval "$change")
    build="$work/build-$index"
    [[ "$name" == "a deeper build folder" ]] && build="$work/build-$index/one/two/three/four"
    cmake -S "$source_folder" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -Wno-dev \
        >"$work/build-$index.log" 2>&1
    ninja -C "$build" >>"$work/build-$index.log" 2>&1
    binary="$(find "$build" -maxdepth 1 -type f -name 'textkit_bench*' -perm -u+x | head -n 1)"
    [[ -n "$binary" ]] || die "variant '$name' built no benchmark binary; see $work/build-$index.log"
    # From the work folder, outside any repository, each build a commit of its own.
    (cd "$work" && "$benchwatch" run --store "$work/counts.db" --project "variant-$index" \
        --machine m --commit "$(printf '%040d' "$((index + 1))")" --branch main \
        --instrument callgrind --no-progress -- "$binary" >/dev/null 2>"$work/run-$index.err") ||
        die "variant '$name' could not be counted: $(tail -n 1 "$work/run-$index.err")"
    (cd "$work" && "$benchwatch" history --store "$work/counts.db" --project "variant-$index" \
        --machine m --format json >"$work/variant-$index.json")
    printf '%s\n' "$name" >"$work/variant-$index.name"
done

python3 - "$work" "${#variants[@]}" <<'EOF'
import json
import sys

work, count = sys.argv[1], int(sys.argv[2])


def counts(index):
    history = json.load(open(f"{work}/variant-{index}.json", encoding="utf-8"))
    return {(b["name"], b["metric"]): b["values"][-1]["value"] for b in history["benchmarks"]}


base = counts(0)
print("| variant | largest move of instructions | of estimated cycles | benchmark that moved most |")
print("|:--|--:|--:|:--|")
for index in range(1, count):
    name = open(f"{work}/variant-{index}.name", encoding="utf-8").read().strip()
    moved = counts(index)
    largest = {"instructions": (0.0, ""), "estimated_cycles": (0.0, "")}
    for (benchmark, metric), value in moved.items():
        if (benchmark, metric) not in base or metric not in largest:
            continue
        change = value / base[(benchmark, metric)] - 1
        if abs(change) >= abs(largest[metric][0]):
            largest[metric] = (change, benchmark)
    instructions, cycles = largest["instructions"], largest["estimated_cycles"]
    print(f"| {name} | {100 * instructions[0]:+.4f}% | {100 * cycles[0]:+.4f}% | "
          f"{instructions[1] or '-'} |")
EOF
echo "work folder: $work" >&2
