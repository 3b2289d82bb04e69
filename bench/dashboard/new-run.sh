#!/usr/bin/env bash
# How soon `benchwatch serve` shows a run recorded while it runs, and what taking it in costs
# (docs/PERFORMANCE.md, "History dashboard"), on the store that run.sh --keep DIR leaves:
#   1. copies DIR/store.db and starts `benchwatch serve` on the copy: time until it prints its
#      address, and its peak memory (VmHWM from /proc) for that load of the whole store;
#   2. records --runs new default-branch runs one after another with `benchwatch record`, each
#      once the server is idle (done judging the one before), each of
#      every benchmark at its latest value; for each, the time `record` took, the time from its
#      end until /api/v1/projects shows the new commit, and the server's peak memory meanwhile
#      (VmHWM reset through /proc/PID/clear_refs before each run);
#   3. deletes the oldest run with sqlite3 and records one more, which makes the server read the
#      whole store again: the same figures for that reload.
# Run from anywhere:
#   bench/dashboard/new-run.sh --binary build-perf/src/cli/benchwatch --store DIR/store.db
#       [--runs 5] [--refresh-ms N]
# The load average is printed before and after, since the machine is shared.
set -euo pipefail

binary="${BENCHWATCH_BINARY:-}"
source_store=""
runs=5
refresh=()
while (($#)); do
    case "$1" in
        --binary) binary="$2"; shift 2 ;;
        --store) source_store="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --refresh-ms) refresh=(--refresh-ms "$2"); shift 2 ;;
        *) echo "new-run.sh: unknown argument '$1'; see the header of $0" >&2; exit 2 ;;
    esac
done
if [[ -z "$binary" || ! -x "$binary" || ! -f "$source_store" ]]; then
    echo "new-run.sh: pass --binary PATH to a built benchwatch and --store PATH to a store.db" >&2
    exit 2
fi
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"

work="$(mktemp -d /tmp/new-run.XXXXXX)"
serve_pid=""
cleanup() {
    if [[ -n "$serve_pid" ]] && kill -0 "$serve_pid" 2>/dev/null; then
        kill "$serve_pid"
        wait "$serve_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
cp "$source_store" "$work/store.db"
cd "$work"

now_ms() { date +%s%3N; }
peak_of() { awk '/^VmHWM/ { printf "%.0f MB", $2 / 1024 }' "/proc/$1/status"; }
resident_of() { awk '/^VmRSS/ { printf "%.0f MB", $2 / 1024 }' "/proc/$1/status"; }
summary=()
note() { summary+=("$1"); echo "== $1"; }

note "machine: $(nproc) cores, load average at start $(cut -d' ' -f1-3 /proc/loadavg)"

: > serve.out
started=$(now_ms)
"$binary" serve --store store.db --listen 127.0.0.1:0 "${refresh[@]}" > serve.out 2> serve.err &
serve_pid=$!
url=""
while [[ -z "$url" ]]; do
    if ! kill -0 "$serve_pid" 2>/dev/null; then
        echo "new-run.sh: benchwatch serve ended before listening:" >&2
        cat serve.err >&2
        exit 1
    fi
    url="$(sed -n '1s/^serving \(http:[^ ]*\) from .*/\1/p' serve.out)"
    [[ -n "$url" ]] || sleep 0.02
done
note "start-up (the whole store read): $(($(now_ms) - started)) ms, peak $(peak_of "$serve_pid"), resident $(resident_of "$serve_pid")"

project="$(curl -s "${url}api/v1/projects" | python3 -c 'import json,sys; print(json.load(sys.stdin)["projects"][0]["name"])')"
machine="$(curl -s "${url}api/v1/projects" | python3 -c 'import json,sys; print(json.load(sys.stdin)["projects"][0]["default_machine"])')"
# A Google Benchmark file of every benchmark of the default machine at its latest value.
curl -s "${url}api/v1/projects/${project}/benchmarks" | python3 -c '
import json, sys
listed = json.load(sys.stdin)["benchmarks"]
rows = [{"name": b["name"], "run_type": "iteration", "iterations": 1, "real_time": b["latest"],
         "cpu_time": b["latest"], "time_unit": "ns"}
        for b in listed if b["metric"] == "time" and b["latest"] is not None and not b["retired"]]
json.dump({"context": {}, "benchmarks": rows}, open("run.json", "w"))
print(len(rows), "benchmarks in each new run", file=sys.stderr)'

# The default machine's commit count and newest commit time: a new commit changes the time even
# when a deleted one keeps the count.
commits_shown() {
    curl -s "${url}api/v1/projects" | python3 -c '
import json, sys
project = json.load(sys.stdin)["projects"][0]
machine = next(m for m in project["machines"] if m["name"] == project["default_machine"])
print(machine["runs"], machine["last_time"])'
}

# The server's CPU time in clock ticks (user + system).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$serve_pid/stat"; }
# Waits until the server has used no CPU for 0.3 s: done judging the run before, as it is when
# runs come minutes apart.
wait_until_idle() {
    local previous current
    previous="$(cpu_ticks)"
    while sleep 0.3; current="$(cpu_ticks)"; [[ "$current" != "$previous" ]]; do
        previous="$current"
    done
}

# Records one run of a new commit, once the server is idle, and waits until the API shows it;
# prints the figures.
record_and_wait() {
    local label="$1" number="$2" before recorded shown
    wait_until_idle
    before="$(commits_shown)"
    echo 5 > "/proc/$serve_pid/clear_refs"
    local begin
    begin=$(now_ms)
    "$binary" record --store store.db --project "$project" --machine "$machine" \
        --commit "$(printf '%040x' "$number")" --branch main --input-format googlebenchmark \
        run.json > /dev/null
    recorded=$(now_ms)
    while [[ "$(commits_shown)" == "$before" ]]; do sleep 0.01; done
    shown=$(now_ms)
    note "$label: record $((recorded - begin)) ms, shown $((shown - recorded)) ms after it, peak meanwhile $(peak_of "$serve_pid"), resident $(resident_of "$serve_pid"); load average $(cut -d' ' -f1 /proc/loadavg)"
}

for ((i = 1; i <= runs; i++)); do
    record_and_wait "new run $i" $((0xbe00 + i))
done
if grep -q "read again whole" serve.err; then note "warning: serve read the whole store again for a new run"; fi

sqlite3 store.db "DELETE FROM runs WHERE id = (SELECT min(id) FROM runs)"
record_and_wait "after a deletion (the whole store read again)" $((0xbf00))
grep -q "read again whole" serve.err || note "warning: serve did not say it read the whole store again"
note "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "summary:"
printf '  %s\n' "${summary[@]}"
