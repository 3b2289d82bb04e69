#!/usr/bin/env bash
# Times `benchwatch compare BASE_FILE HEAD_FILE` as a whole process on generated Google Benchmark
# files of 10,000 benchmarks × 10 repetitions, where every 20th benchmark (5%) is 10% slower in
# every repetition of the head, beside Google Benchmark's own tools/compare.py (Debian's
# libbenchmark-tools) on the same files, for docs/PERFORMANCE.md. Each is run 5 times; the
# fastest wall time and the largest peak memory (GNU time) are shown, and how many benchmarks
# each flagged, and whether benchwatch flagged exactly the slowed ones. Debian's python3
# (/usr/bin/python3, with python3-scipy) runs compare.py, whatever python3 comes first on PATH.
#   bench/two_files_timing.sh [BUILD_DIR]     (default build/release, built when missing)
set -euo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/../scripts/lib.sh"
cd "$BENCHWATCH_ROOT"
build_dir="${1:-build/release}"
ensure_packages "${BENCHWATCH_BUILD_DEPENDENCIES[@]}" time libbenchmark-tools python3-scipy
build_benchwatch "$build_dir" Release -DBENCHWATCH_TESTS=OFF -- benchwatch make_bench_data >/dev/null
benchwatch="$BENCHWATCH_ROOT/$build_dir/src/cli/benchwatch"
make_data="$BENCHWATCH_ROOT/$build_dir/bench/make_bench_data"
compare_py=/usr/share/benchmark/compare.py

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$make_data" gbench "$work/base.json" 10000 10 1 1.0
"$make_data" gbench "$work/head.json" 10000 10 2 1.1

# Prints "seconds max_rss_kib" of the fastest of 5 runs of COMMAND... (peak memory of all 5).
measure() {
    local best="" peak=0 line seconds kib
    for _ in 1 2 3 4 5; do
        line="$(/usr/bin/time -f '%e %M' "$@" 2>&1 >/dev/null | tail -n 1)"
        seconds="${line% *}"
        kib="${line#* }"
        if [[ -z "$best" ]] || awk "BEGIN{exit !($seconds < $best)}"; then best="$seconds"; fi
        ((kib > peak)) && peak="$kib"
    done
    echo "$best $peak"
}

printf 'input: base.json, head.json (%s MB each), 10,000 benchmarks × 10 repetitions, 500 slowed by 10%%\n' \
    "$(du -m "$work/base.json" | cut -f1)"
printf 'load average: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '| command | wall time (min of 5) | peak memory | benchmarks flagged |\n|:--|--:|--:|:--|\n'

"$benchwatch" compare "$work/base.json" "$work/head.json" --format json -o "$work/report.json"
flagged="$(/usr/bin/python3 - "$work/report.json" <<'PYEOF'
import json, sys
report = json.load(open(sys.argv[1]))
flagged = {b["name"] for b in report["benchmarks"] if b["verdict"] in ("slower", "faster")}
slowed = {f"BM_Synthetic/{i}" for i in range(0, 10000, 20)}
exact = "exactly the 500 slowed" if flagged == slowed else f"{len(flagged & slowed)} of the 500 slowed and {len(flagged - slowed)} others"
print(f"{len(flagged)}: {exact}")
PYEOF
)"
read -r seconds kib < <(measure "$benchwatch" compare "$work/base.json" "$work/head.json" --format markdown)
printf '| benchwatch compare base.json head.json | %s s | %d MB | %s |\n' "$seconds" $((kib / 1024)) "$flagged"

# compare.py prints a U test's p-value per benchmark; it flags at its default alpha of 0.05. It
# takes minutes on these files, so it is timed once.
line="$(/usr/bin/time -f '%e %M' -o "$work/compare_py.time" /usr/bin/python3 "$compare_py" \
    --no-color benchmarks "$work/base.json" "$work/head.json" > "$work/compare_py.txt" 2>&1;
    cat "$work/compare_py.time")"
flagged_py="$(grep -E '_pvalue' "$work/compare_py.txt" | awk '{ if ($2 + 0 < 0.05) n++ } END { print n + 0 }')"
slowed_py="$(grep -E '_pvalue' "$work/compare_py.txt" |
    awk '{ split($1, part, /[\/_]/); if ($2 + 0 < 0.05 && part[3] % 20 == 0) n++ } END { print n + 0 }')"
printf '| compare.py benchmarks base.json head.json (one run) | %s s | %d MB | %s with p < 0.05, %s of them slowed |\n' \
    "${line% *}" $((${line#* } / 1024)) "$flagged_py" "$slowed_py"
