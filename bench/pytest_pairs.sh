#!/usr/bin/env bash
# Measures `benchwatch compare BASE_FILE HEAD_FILE` on real pytest-benchmark files by each
# statistic, for docs/two-files.md: makes ROUNDS rounds of three runs of
# tests/data/two-files/planted_suite.py (five benchmarks, 20 rounds each; the suite run twice,
# then with PLANTED_SLOWDOWN=1, which makes test_sum_squares do 20% more work) and compares each
# round's first file with its second (every benchmark flagged is a false flag) and with its third
# (the slowdown is caught when test_sum_squares is flagged slower), with --statistic min, median
# and mean, on the whole suite and on files of test_sum_squares alone.
#   bench/pytest_pairs.sh BENCHWATCH [ROUNDS]
# BENCHWATCH_KEEP_PAIRS=DIR keeps the result files there; BENCHWATCH_REUSE_PAIRS=DIR judges the
# files an earlier run kept there instead of making new ones.
set -euo pipefail
source "$(dirname -- "${BASH_SOURCE[0]}")/../scripts/lib.sh"
benchwatch="$(realpath "${1:?usage: bench/pytest_pairs.sh BENCHWATCH [ROUNDS]}")"
rounds="${2:-20}"
suite="$(realpath "$(dirname -- "${BASH_SOURCE[0]}")/../tests/data/two-files/planted_suite.py")"
ensure_packages python3-pytest-benchmark
reuse="${BENCHWATCH_REUSE_PAIRS:-}"
keep="${BENCHWATCH_KEEP_PAIRS:-}"
work="$(mktemp -d)"
finish() {
    if [[ -n "$keep" ]] && mkdir -p "$keep"; then cp "$work"/pb_*.json "$keep"/ 2>/dev/null || true; fi
    rm -rf "$work"
}
trap finish EXIT

pytest_run() {  # FILE [PLANTED]
    (cd "$work" && PLANTED_SLOWDOWN="${2:-0}" PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -m pytest \
        -p no:cacheprovider -q "$suite" --benchmark-min-rounds=20 --benchmark-max-time=0.000001 \
        --benchmark-json="$1" >"$work/pytest.log" 2>&1) || { cat "$work/pytest.log" >&2; return 1; }
}

for ((round = 1; round <= rounds; round++)); do
    for side in a b c; do
        if [[ -n "$reuse" ]]; then
            cp "$reuse/pb_${round}_$side.json" "$work/"
        else
            pytest_run "$work/pb_${round}_$side.json" "$([[ $side == c ]] && echo 1 || echo 0)"
        fi
    done
done

# The verdicts of one comparison as "NAME VERDICT CHANGE" lines.
verdicts() {
    python3 -c '
import json, sys
for benchmark in json.load(sys.stdin)["benchmarks"]:
    print(benchmark["name"], benchmark["verdict"], benchmark.get("change"))'
}

# Files of test_sum_squares alone, as a suite of one benchmark.
alone() {
    python3 - "$1" "$2" <<'PYEOF'
import json, sys
document = json.load(open(sys.argv[1]))
document["benchmarks"] = [b for b in document["benchmarks"] if b["name"] == "test_sum_squares"]
json.dump(document, open(sys.argv[2], "w"))
PYEOF
}

printf '| files | statistic | false flags per same-build pair | +20%% slowdown caught | its change (median) |\n'
printf '|:--|:--|--:|--:|--:|\n'
for files in suite alone; do
    for statistic in min median mean; do
        false_flags=0
        caught=0
        changes=()
        for ((round = 1; round <= rounds; round++)); do
            a="$work/pb_${round}_a.json" b="$work/pb_${round}_b.json" c="$work/pb_${round}_c.json"
            if [[ $files == alone ]]; then
                for side in a b c; do alone "$work/pb_${round}_$side.json" "$work/one_$side.json"; done
                a="$work/one_a.json" b="$work/one_b.json" c="$work/one_c.json"
            fi
            same="$("$benchwatch" compare "$a" "$b" --statistic "$statistic" --format json | verdicts)"
            false_flags=$((false_flags + $(grep -cE ' (slower|faster) ' <<<"$same" || true)))
            slowed="$("$benchwatch" compare "$a" "$c" --statistic "$statistic" --format json |
                verdicts | grep -E '(^|::)test_sum_squares ')"
            [[ "$slowed" == *" slower "* ]] && caught=$((caught + 1))
            changes+=("${slowed##* }")
        done
        median_change="$(printf '%s\n' "${changes[@]}" | sort -g |
            awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%+.1f%%", 100 * m }')"
        printf '| %s | %s | %.2f | %d of %d | %s |\n' \
            "$([[ $files == suite ]] && echo '5 benchmarks' || echo 'test_sum_squares alone')" \
            "$statistic" "$(bc -l <<<"$false_flags / $rounds")" "$caught" "$rounds" "$median_change"
    done
done
