#!/usr/bin/env python3
"""Upper bound on what any per-benchmark threshold can do on a github-action-benchmark history.

Replays the backtest of docs/JUDGEMENT.md with the level method's reference (the median of the 5
runs before the pull request) and its persistence test, but picks each benchmark's threshold
knowing the whole history, the future included: the thresholds that catch the most injected
regressions for a given number of flukes per pull request. No rule that reads only the past can
do better with one fixed threshold per benchmark, so targets above this frontier are out of reach
for such rules on this history.

Generous on purpose: a run where half the benchmarks moved beyond 10% the same way counts no
fluke (a method judges it as a suite move), and the share caught is the expected share over all
benchmarks rather than one random draw per pull request.

The last row is a fairer bound for a rule that must learn its thresholds: each benchmark's
threshold is fitted on every other pull request (at the price that holds the budget there) and
counted on the pull requests it was not fitted on, both ways round. It still reads the future, but
no pull request is judged by a threshold chosen knowing that pull request's own deviations, which
is what lets the frontier above step exactly over one-run spikes it has seen.

Usage: bench/oracle_bound.py DATA.js [--budget 1]
"""
import argparse
import json
import math
import statistics

LEVEL_RUNS = 5
FIRST_PR = 10  # the 11th run, as the backtest
GRID = [math.log1p(percent / 100) for percent in range(1, 300)]
SIZES = (0.1, 0.2)


def load(path):
    text = open(path, encoding="utf-8").read()
    data = json.loads(text[text.index("{"):].rstrip().rstrip(";"))
    runs = next(iter(data["entries"].values()))
    names = sorted({bench["name"] for run in runs for bench in run["benches"]})
    series = {name: [None] * len(runs) for name in names}
    for index, run in enumerate(runs):
        for bench in run["benches"]:
            if bench["value"] > 0:
                series[bench["name"]][index] = float(bench["value"])
    return len(runs), series


def deviations(run_count, series):
    """Per benchmark, per pull request: (ln(head / level), later shift) or None."""
    table = {}
    for name, values in series.items():
        rows = []
        for t in range(FIRST_PR, run_count - 5):
            if values[t] is None or values[t - 1] is None:
                rows.append(None)
                continue
            history = [v for v in values[:t] if v is not None]
            level = statistics.median(history[-LEVEL_RUNS:])
            before = [v for v in values[t - 5:t] if v is not None]
            after = [v for v in values[t:t + 5] if v is not None]
            rows.append((math.log(values[t] / level),
                         math.log(statistics.median(after) / statistics.median(before))))
        table[name] = rows
    return table


def suite_moves(table):
    moved = set()
    pull_requests = len(next(iter(table.values())))
    for index in range(pull_requests):
        moves = [rows[index][0] for rows in table.values() if rows[index]]
        up = sum(move > 0.1 for move in moves)
        down = sum(move < -0.1 for move in moves)
        if moves and max(up, down) >= 0.5 * len(moves):
            moved.add(index)
    return moved


def outcomes(rows, threshold, moved):
    """Flukes and the shares of +10% and +20% injections caught at one threshold."""
    flukes = 0
    judged = 0
    caught = [0] * len(SIZES)
    for index, row in enumerate(rows):
        if row is None:
            continue
        move, later = row
        judged += 1
        if index not in moved and abs(move) > threshold:
            lasted = later * move > 0 and abs(later) >= abs(move) / 2
            flukes += not lasted
        for k, size in enumerate(SIZES):
            caught[k] += move + math.log1p(size) > threshold
    return flukes, [c / max(judged, 1) for c in caught]


def cross_fitted(table, moved, weight, budget):
    """Flukes per pull request and shares caught with thresholds fitted on the other half.

    Each benchmark's threshold at a price is the best on every other pull request; it is counted
    on the rest, both ways round. The one price for all benchmarks is the cheapest whose counted
    flukes fit the budget, so only that scalar is chosen knowing the pull requests it is counted on.
    """
    pull_requests = len(next(iter(table.values())))

    def half(rows, keep):
        return [row if index % 2 == keep else None for index, row in enumerate(rows)]

    fits = {}
    for parity in (0, 1):
        for name, rows in table.items():
            fits[name, parity] = ([outcomes(half(rows, parity), g, moved) for g in GRID],
                                  [outcomes(half(rows, 1 - parity), g, moved) for g in GRID],
                                  sum(row is not None for row in half(rows, 1 - parity)))
    for step in range(60):
        price = 0.005 * 1.15 ** step
        flukes = 0
        shares = [0.0, 0.0]
        for name, rows in table.items():
            judged_total = sum(fits[name, parity][2] for parity in (0, 1))
            for parity in (0, 1):
                fit, counted, judged = fits[name, parity]
                index = max(range(len(GRID)),
                            key=lambda i: fit[i][1][1] + weight * fit[i][1][0] - price * fit[i][0])
                flukes += counted[index][0]
                shares = [s + c * judged / max(judged_total, 1)
                          for s, c in zip(shares, counted[index][1])]
        if flukes / pull_requests <= budget:
            break
    return flukes / pull_requests, [s / len(table) for s in shares]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data")
    parser.add_argument("--budget", type=float, default=1.0)
    arguments = parser.parse_args()
    run_count, series = load(arguments.data)
    table = deviations(run_count, series)
    moved = suite_moves(table)
    pull_requests = run_count - 5 - FIRST_PR
    options = {name: [outcomes(rows, g, moved) for g in GRID] for name, rows in table.items()}
    print(f"{pull_requests} pull requests, {len(series)} benchmarks, "
          f"{len(moved)} suite moves left out of the flukes")
    print("weight of +10%  flukes/PR  caught +10%  caught +20%")
    for weight in (0.0, 0.5, 1.0, 2.0, 4.0):
        # The price of a fluke rises until the flukes fit the budget.
        for step in range(60):
            price = 0.005 * 1.15 ** step
            flukes = 0
            shares = [0.0, 0.0]
            for choices in options.values():
                best = max(choices,
                           key=lambda o: o[1][1] + weight * o[1][0] - price * o[0])
                flukes += best[0]
                shares = [s + c for s, c in zip(shares, best[1])]
            if flukes / pull_requests <= arguments.budget:
                break
        count = len(options)
        print(f"{weight:14g}  {flukes / pull_requests:9.2f}  {100 * shares[0] / count:10.1f}%"
              f"  {100 * shares[1] / count:10.1f}%")
    flukes, shares = cross_fitted(table, moved, 1.0, arguments.budget)
    print(f"{'cross-fitted 1':>14}  {flukes:9.2f}  {100 * shares[0]:10.1f}%  {100 * shares[1]:10.1f}%")


if __name__ == "__main__":
    main()
