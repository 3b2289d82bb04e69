# The backtest of the seed rule (flukes and persistent flags, no injections) computed from
# its definitions without benchwatch, for tests/e2e/backtest_test.cpp's Metal.jl figures.
# Usage: python3 seed_backtest.py [FACTOR] [PATH-TO-metal-gh-pages-data.js]
import json, math, statistics, sys
factor = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
path = sys.argv[2] if len(sys.argv) > 2 else '../shared/data/metal-gh-pages-data.js'
s = open(path).read()
d = json.loads(s[s.index('{'):].rstrip().rstrip(';'))
runs = d['entries']['Metal Benchmarks']
names = sorted({b['name'] for r in runs for b in r['benches']})
matrix = {n: [None] * len(runs) for n in names}
for t, r in enumerate(runs):
    for b in r['benches']:
        if b['value'] > 0: matrix[b['name']][t] = float(b['value'])
R = len(runs)
prs = list(range(10, R - 5))
flukes = persistent = 0
for t in prs:
    for n in names:
        v = matrix[n]
        if v[t] is None or v[t - 1] is None: continue
        hist = [x for x in v[:t] if x is not None]
        pairs = [abs(math.log(hist[i + 1] / hist[i])) for i in range(len(hist) - 1)][-30:]
        tc = statistics.median(pairs) if pairs else 0.0
        minimum = 0.05 if n.startswith('latency/') else 0.03
        thr = max(factor * tc, math.log(1 + minimum))
        f = math.log(v[t] / v[t - 1])
        if abs(f) <= thr: continue
        after = statistics.median([x for x in v[t:t + 5] if x is not None])
        before = statistics.median([x for x in v[t - 5:t] if x is not None])
        m = math.log(after / before)
        if f * m > 0 and abs(m) >= abs(f) / 2: persistent += 1
        else: flukes += 1
print(f"prs={len(prs)} flukes={flukes} persistent={persistent} flukes_per_pr={flukes/len(prs)!r} persistent_per_pr={persistent/len(prs)!r}")
