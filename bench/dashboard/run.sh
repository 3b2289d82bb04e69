#!/usr/bin/env bash
# The history dashboard's performance goals end to end (docs/PERFORMANCE.md), on a generated store:
#   1. generate-history.mjs writes a github-action-benchmark data.js (500 benchmarks × 5,000 runs);
#   2. `benchwatch import` stores it (wall time and peak memory from GNU time);
#   3. `benchwatch serve` starts on a free port: time until it prints its address, and its
#      resident memory (VmRSS and VmHWM from /proc) after start-up and after each test;
#   4. first-paint.mjs: first charts visible and bytes before first paint in headless Chromium;
#   5. load.mjs: 50 concurrent keep-alive API clients, p50/p99 and requests/s;
#   6. `benchwatch site` of the same store: wall time, peak memory, files and size;
#   7. first-paint.mjs again on that static site, served by Python's http.server (no compression,
#      like a plain static host; GitHub Pages would gzip).
# Run from anywhere:
#   bench/dashboard/run.sh --binary build-perf/benchwatch [--benchmarks 500] [--runs 5000]
#       [--clients 50] [--seconds 20] [--first-paint-runs 5] [--keep DIR [--reuse-store]]
# The binary may also come from $BENCHWATCH_BINARY. Work happens in a temporary folder outside any
# git repository (so no benchwatch.toml applies), removed at the end unless --keep DIR names a
# folder to work in and keep. The load average is printed before and after, since the machine is
# shared. --reuse-store skips steps 1 and 2 when DIR already holds a store.db from an earlier run
# (to compare two binaries on the same data).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
binary="${BENCHWATCH_BINARY:-}"
benchmarks=500
runs=5000
clients=50
seconds=20
first_paint_runs=5
keep=""
reuse_store=false
while (($#)); do
    case "$1" in
        --binary) binary="$2"; shift 2 ;;
        --benchmarks) benchmarks="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --clients) clients="$2"; shift 2 ;;
        --seconds) seconds="$2"; shift 2 ;;
        --first-paint-runs) first_paint_runs="$2"; shift 2 ;;
        --keep) keep="$2"; shift 2 ;;
        --reuse-store) reuse_store=true; shift ;;
        *) echo "run.sh: unknown argument '$1'; see the header of $0" >&2; exit 2 ;;
    esac
done
if [[ -z "$binary" || ! -x "$binary" ]]; then
    echo "run.sh: pass --binary PATH (or set BENCHWATCH_BINARY) to a built benchwatch" >&2
    exit 2
fi
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"

if [[ -n "$keep" ]]; then
    mkdir -p "$keep"
    work="$(cd "$keep" && pwd)"
else
    work="$(mktemp -d /tmp/benchwatch-dashboard-perf.XXXXXX)"
fi
serve_pid=""
site_pid=""
cleanup() {
    for pid in "$serve_pid" "$site_pid"; do
        if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
            kill "$pid"
            wait "$pid" 2>/dev/null || true
        fi
    done
    if [[ -z "$keep" ]]; then rm -rf "$work"; fi
}
trap cleanup EXIT
cd "$work"

now_ms() { date +%s%3N; }
memory_of() { # "VmRSS … MB, VmHWM … MB" of a process
    awk '/^VmRSS|^VmHWM/ { printf "%s%s %.0f MB", sep, $1, $2 / 1024; sep = ", " }' "/proc/$1/status"
}
summary=()
note() { summary+=("$1"); echo "== $1"; }

note "machine: $(nproc) cores, load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
note "binary: $binary"

if [[ "$reuse_store" == true && -n "$keep" && -f store.db ]]; then
    note "store: reusing $work/store.db ($(du -m store.db | cut -f1) MB)"
else
# 1. the history
node "$here/generate-history.mjs" --out history.js --benchmarks "$benchmarks" --runs "$runs" --seed 1
note "history: $(du -m history.js | cut -f1) MB of data.js"

# 2. import
rm -f store.db store.db-wal store.db-shm
/usr/bin/time -f '%e %M' -o import.time \
    "$binary" import github-action-benchmark --store store.db --project bench --machine ci-runner history.js
read -r import_seconds import_kb < import.time
note "import: ${import_seconds} s, peak ${import_kb} KB; store $(du -m store.db | cut -f1) MB"
fi

# 3. serve
started=$(now_ms)
"$binary" serve --store store.db --listen 127.0.0.1:0 > serve.out 2> serve.err &
serve_pid=$!
url=""
while [[ -z "$url" ]]; do
    if ! kill -0 "$serve_pid" 2>/dev/null; then
        echo "run.sh: benchwatch serve ended before listening:" >&2
        cat serve.err >&2
        exit 1
    fi
    url="$(sed -n '1s/^serving \(http:[^ ]*\) from .*/\1/p' serve.out)"
    [[ -n "$url" ]] || sleep 0.02
done
ready=$(now_ms)
note "serve: listening at $url after $((ready - started)) ms; $(memory_of "$serve_pid")"

# 4. first charts in Chromium
node "$here/first-paint.mjs" --url "${url}?pkg=bench" --runs "$first_paint_runs" \
    --screenshot first-paint.png --timeline | tee first-paint.txt
note "first paint: $(grep -E '^(first |transferred)' first-paint.txt | sed 's/  */ /g' | paste -sd ';' -)"
note "serve after the page loads: $(memory_of "$serve_pid")"

# 5. API load
note "load average before the load test $(cut -d' ' -f1-3 /proc/loadavg)"
load_status=0
node "$here/load.mjs" --url "$url" --clients "$clients" --seconds "$seconds" --server-pid "$serve_pid" | tee load.txt || load_status=$?
note "load test: $(grep -E '^requests' load.txt); $(grep -E '^all ' load.txt | awk '{ printf "p50 %s ms, p90 %s ms, p99 %s ms, max %s ms", $3, $4, $5, $6 }') (exit $load_status); $(grep -E '^CPU per' load.txt)"
note "serve after the load test: $(memory_of "$serve_pid")"
kill "$serve_pid"
wait "$serve_pid" 2>/dev/null || true
serve_pid=""

# 6. static site
rm -rf site
/usr/bin/time -f '%e %M' -o site.time "$binary" site --store store.db site > site.out
read -r site_seconds site_kb < site.time
note "site: ${site_seconds} s, peak ${site_kb} KB; $(cat site.out); on disk $(du -sm site | cut -f1) MB in $(find site -type f | wc -l) files"
# 7. first charts of the static site
site_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory site "$site_port" > site-server.log 2>&1 &
site_pid=$!
until curl -s -o /dev/null "http://127.0.0.1:$site_port/index.html"; do sleep 0.1; done
site_status=0
node "$here/first-paint.mjs" --url "http://127.0.0.1:$site_port/?pkg=bench" --runs "$first_paint_runs" \
    --timeline | tee site-first-paint.txt || site_status=$?
kill "$site_pid"
wait "$site_pid" 2>/dev/null || true
site_pid=""
note "static site first paint (exit $site_status): $(grep -E '^(first |transferred)' site-first-paint.txt | sed 's/  */ /g' | paste -sd ';' -)"
note "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "summary (work folder $work):"
printf '  %s\n' "${summary[@]}"
exit "$load_status"
