#!/usr/bin/env bash
# Measures `benchwatch compare BASE_FILE HEAD_FILE` on real files, for docs/two-files.md: builds
# the example suite (examples/) as it is and with count_words doing 15% more work, then makes
# ROUNDS rounds of three Google Benchmark files (the build run twice, then the slowed build; 10
# repetitions of 0.02 s), three hyperfine files (six commands, 10 runs each, run twice on one
# input, then with gzip given a 15% larger one) and three hyperfine files of gzip alone (the
# commonest use of hyperfine: one command before and after), and compares each round's first
# file with its second (every benchmark flagged is a false flag) and with its third (the slowdown
# is caught when BM_CountWords… or gzip is flagged slower), at the default budget and at 0.1.
#   bench/two_files_pairs.sh BENCHWATCH [ROUNDS] [interleaved|warmed]
# "interleaved" runs Google Benchmark with --benchmark_enable_random_interleaving=true, "warmed"
# with --benchmark_min_warmup_time=0.5.
# BENCHWATCH_KEEP_PAIRS=DIR keeps the result files there, for a second look at them;
# BENCHWATCH_REUSE_PAIRS=DIR judges the files an earlier run kept there instead of making new ones
# (ROUNDS of them), so that two builds of benchwatch can be compared on the same files.
set -euo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/../scripts/lib.sh"
benchwatch="$(realpath "${1:?usage: bench/two_files_pairs.sh BENCHWATCH [ROUNDS] [interleaved|warmed]}")"
rounds="${2:-20}"
harness_options=()
case "${3:-}" in
    interleaved) harness_options=(--benchmark_enable_random_interleaving=true) ;;
    warmed) harness_options=(--benchmark_min_warmup_time=0.5) ;;
    "") ;;
    *) die "unknown harness option '$3': interleaved or warmed" ;;
esac
reuse="${BENCHWATCH_REUSE_PAIRS:-}"
work="$(mktemp -d)"
keep="${BENCHWATCH_KEEP_PAIRS:-}"
keep_files() {
    if [[ -n "$keep" ]] && mkdir -p "$keep"; then
        cp "$work"/gb_*.json "$work"/hf_*.json "$work"/hf1_*.json "$keep"/ 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap keep_files EXIT

gbench() {
    "$work/$1/build/textkit_bench" --benchmark_repetitions=10 --benchmark_min_time=0.02 \
        "${harness_options[@]}" --benchmark_format=json --benchmark_out="$2" >/dev/null
}
hyperfine_options=(-N --runs 10 --warmup 1)
hyperfine_run() {
    (cd "$work" && hyperfine "${hyperfine_options[@]}" --export-json "$2" -n gzip "gzip -1 -c $1" \
        -n sha256 "sha256sum input.txt" -n md5 "md5sum input.txt" -n wc "wc input.txt" \
        -n sort "sort input.txt" -n cksum "cksum input.txt" >/dev/null 2>&1)
}
hyperfine_one_run() {
    (cd "$work" && hyperfine "${hyperfine_options[@]}" --export-json "$2" -n gzip "gzip -1 -c $1" \
        >/dev/null 2>&1)
}
# count_words does 15% more work in the slowed build.
slow_down_count_words() {
    python3 - "$1" <<'PYEOF'
import sys
path = sys.argv[1]
text = open(path).read()
counted = "    for_each_word(text, [&words](std::string_view) { ++words; });\n    return words;"
assert counted in text, "examples/src/textkit.cpp: count_words is not as this script expects"
text = text.replace(counted, """    for_each_word(text, [&words](std::string_view) { ++words; });
    std::size_t again = 0;
    for_each_word(text.substr(0, text.size() * 15 / 100), [&again](std::string_view) { ++again; });
    return again == static_cast<std::size_t>(-1) ? 0 : words;""")
open(path, "w").write(text)
PYEOF
}
make_pairs() {
    ensure_packages hyperfine libbenchmark-dev cmake ninja-build g++ python3
    cp -r "$BENCHWATCH_ROOT/examples" "$work/plain"
    cp -r "$BENCHWATCH_ROOT/examples" "$work/slowed"
    slow_down_count_words "$work/slowed/src/textkit.cpp"
    for build in plain slowed; do
        cmake -S "$work/$build" -B "$work/$build/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
        ninja -C "$work/$build/build" >/dev/null
    done
    head -c 3000000 /dev/urandom | base64 > "$work/input.txt"
    head -c 3450000 /dev/urandom | base64 > "$work/input_larger.txt"
    for round in $(seq 1 "$rounds"); do
        gbench plain "$work/gb_base_$round.json"
        gbench plain "$work/gb_same_$round.json"
        gbench slowed "$work/gb_slow_$round.json"
        hyperfine_run input.txt "$work/hf_base_$round.json"
        hyperfine_run input.txt "$work/hf_same_$round.json"
        hyperfine_run input_larger.txt "$work/hf_slow_$round.json"
        hyperfine_one_run input.txt "$work/hf1_base_$round.json"
        hyperfine_one_run input.txt "$work/hf1_same_$round.json"
        hyperfine_one_run input_larger.txt "$work/hf1_slow_$round.json"
    done
}
if [[ -n "$reuse" ]]; then
    cp "$reuse"/gb_*.json "$reuse"/hf_*.json "$work"/
    cp "$reuse"/hf1_*.json "$work"/ 2>/dev/null || true  # kept sets made before it was measured
else
    make_pairs
fi
# Prints the benchmarks the report in $1 flagged, one verdict and name a line.
flagged() {
    python3 -c 'import json, sys
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b["verdict"] in ("slower", "faster"): print(b["verdict"], b["name"])' "$1"
}
for kind in gb hf hf1; do
    [[ -e "$work/${kind}_base_1.json" ]] || continue
    slowed_name=BM_CountWords
    [[ "$kind" == hf* ]] && slowed_name=gzip
    for budget in 1 0.1; do
        false_flags=0 caught=0 spreads=()
        for round in $(seq 1 "$rounds"); do
            "$benchwatch" compare "$work/${kind}_base_$round.json" "$work/${kind}_same_$round.json" \
                --false-alarms-per-pr "$budget" --format json -o "$work/same.json"
            "$benchwatch" compare "$work/${kind}_base_$round.json" "$work/${kind}_slow_$round.json" \
                --false-alarms-per-pr "$budget" --format json -o "$work/slow.json"
            false_flags=$((false_flags + $(flagged "$work/same.json" | wc -l)))
            # Through a variable: grep -q may stop reading before flagged has written everything.
            slow_flags="$(flagged "$work/slow.json")"
            if grep -q "^slower $slowed_name" <<<"$slow_flags"; then caught=$((caught + 1)); fi
            spreads+=("$(python3 -c 'import json, sys; print(round(100 * json.load(open(sys.argv[1]))["run_to_run_spread"], 1))' "$work/same.json")")
        done
        median_spread="$(printf '%s\n' "${spreads[@]}" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }')"
        printf '%s, budget %s: %d false flags in %d same-build pairs (%.2f per pair); slowdown caught in %d of %d; median run-to-run spread %s%%\n' \
            "$(case $kind in gb) echo "Google Benchmark${3:+, $3}" ;; hf) echo hyperfine ;; *) echo "hyperfine, gzip alone" ;; esac)" \
            "$budget" "$false_flags" "$rounds" "$(echo "$false_flags / $rounds" | bc -l)" "$caught" "$rounds" "$median_spread"
    done
done
