#!/usr/bin/env python3
"""One calibrated factor for every benchmark against a per-benchmark share of the budget.

Replays a github-action-benchmark history (a data.js) as `benchwatch backtest` does, honestly:
at each pull request the setting is calibrated on the latest 75 earlier pull requests whose
persistence window has ended, to 0.75 x the budget, with the conservative factor 3 below 20 of
them. Two rules are calibrated that way:

  global  threshold = max(f x noise, floor) with one factor f (the level method's rule);
  shared  each benchmark's threshold is the one that buys the most expected catches of +10% and
          +20% per expected fluke at a price p, both read from the distribution of
          move / noise pooled over the suite's replayed pull requests, and never under its
          noise; p is calibrated instead of f.

The noise is the level method's (the 0.9 quantile of the last 40 one-run deviations that did not
last), and the share caught is the expected share over every judged benchmark, as in
bench/oracle_bound.py. A simpler suite-move rule than the method's: a pull request where at least
half of 10 or more judged benchmarks moved beyond their thresholds one way counts no fluke.

Usage: bench/budget_allocation.py global|shared DATA.js... [--budget 1]
Needs numpy (Debian's python3-numpy).
"""
import argparse
import json
import math

import numpy as np

LEVEL_RUNS = 5
NOISE_RUNS = 40
NOISE_QUANTILE = 0.9
MINIMUM_DEVIATIONS = 5
FIRST_PR = 10
FLOOR = math.log1p(0.03)
WINDOW = 75
MARGIN = 0.75
MINIMUM_PRS = 20
CONSERVATIVE = 3.0
SIZES = (math.log1p(0.1), math.log1p(0.2))
THRESHOLDS = np.log1p(np.exp(np.linspace(math.log(0.01), math.log(3.0), 80)))
NOISES = np.exp(np.linspace(math.log(1e-4), math.log(3.0), 160))


def load(path):
    text = open(path, encoding="utf-8").read()
    data = json.loads(text[text.index("{"):].rstrip().rstrip(";"))
    runs = next(iter(data["entries"].values()))
    names = sorted({bench["name"] for run in runs for bench in run["benches"]})
    row = {name: i for i, name in enumerate(names)}
    values = np.full((len(names), len(runs)), np.nan)
    for t, run in enumerate(runs):
        for bench in run["benches"]:
            if bench["value"] > 0:
                values[row[bench["name"]], t] = bench["value"]
    return values


def transient_deviations(logs):
    deviations = []
    for i in range(LEVEL_RUNS, len(logs)):
        before = np.median(logs[i - LEVEL_RUNS:i])
        deviation = logs[i] - before
        if i + LEVEL_RUNS <= len(logs) and abs(deviation) > FLOOR:
            moved = np.median(logs[i:i + LEVEL_RUNS]) - before
            if moved * deviation > 0 and abs(moved) >= abs(deviation) / 2:
                continue
        deviations.append(deviation)
    return deviations


def replay(values):
    """Pull requests (runs), and per pull request x benchmark: move, noise and later shift."""
    benchmarks, runs = values.shape
    requests = list(range(FIRST_PR, runs - LEVEL_RUNS))
    shape = (len(requests), benchmarks)
    move, noise, later = np.full(shape, np.nan), np.full(shape, np.nan), np.full(shape, np.nan)
    for b in range(benchmarks):
        for k, t in enumerate(requests):
            if np.isnan(values[b, t]) or np.isnan(values[b, t - 1]):
                continue
            history = values[b, :t]
            logs = np.log(history[~np.isnan(history)][-(NOISE_RUNS + 2 * LEVEL_RUNS):])
            if len(logs) <= LEVEL_RUNS:
                continue
            deviations = transient_deviations(logs)[-NOISE_RUNS:]
            if len(deviations) < MINIMUM_DEVIATIONS:
                continue
            move[k, b] = math.log(values[b, t]) - np.median(logs[-LEVEL_RUNS:])
            noise[k, b] = np.quantile(np.abs(deviations), NOISE_QUANTILE)
            before, after = values[b, t - 5:t], values[b, t:t + 5]
            later[k, b] = math.log(np.median(after[~np.isnan(after)]) /
                                   np.median(before[~np.isnan(before)]))
    return requests, move, noise, later


def flukes(move, threshold, later):
    judged = ~np.isnan(move)
    up = np.where(judged, move > threshold, False)
    down = np.where(judged, move < -threshold, False)
    count = judged.sum(axis=1)
    suite = (count >= 10) & (np.maximum(up.sum(1), down.sum(1)) >= 0.5 * count)
    lasted = np.where(judged, (later * move > 0) & (np.abs(later) >= np.abs(move) / 2), False)
    return np.where(suite, 0, ((up | down) & ~lasted).sum(axis=1))


def caught(move, threshold):
    judged = ~np.isnan(move)
    return [np.where(judged, move + size > threshold, False).sum() / max(judged.sum(), 1)
            for size in SIZES]


def smallest_within(low, high, target, flukes_at):
    """The smallest setting on a log grid refined by bisection whose flukes stay within target."""
    previous = None
    for setting in np.exp(np.linspace(math.log(low), math.log(high), 24)):
        if flukes_at(setting) <= target:
            if previous is None:
                return setting
            a, b = math.log(previous), math.log(setting)
            for _ in range(6):
                middle = (a + b) / 2
                a, b = (a, middle) if flukes_at(math.exp(middle)) <= target else (middle, b)
            return math.exp(b)
        previous = setting
    return high


def global_thresholds(factor, noise):
    return np.maximum(factor * noise, FLOOR)


def shared_thresholds(price, noise, scores):
    """Each benchmark's threshold at `price`, from the pooled sorted scores move / noise."""
    absolute = np.sort(np.abs(scores))
    n = len(scores)
    # Per noise level on the NOISES grid, per threshold: expected fluke rate and catches.
    fluke_rate = 1 - np.searchsorted(absolute, THRESHOLDS[None, :] / NOISES[:, None],
                                     side="right") / n
    catch = sum(1 - np.searchsorted(scores, (THRESHOLDS[None, :] - size) / NOISES[:, None],
                                    side="right") / n for size in SIZES)
    value = np.where(THRESHOLDS[None, :] >= NOISES[:, None], catch - price * fluke_rate, -np.inf)
    value[:, -1] = catch[:, -1] - price * fluke_rate[:, -1]  # the largest is always allowed
    table = np.maximum(THRESHOLDS[np.argmax(value, axis=1)], FLOOR)
    result = np.full(noise.shape, np.nan)
    judged = ~np.isnan(noise)
    result[judged] = np.interp(np.log(np.clip(noise[judged], NOISES[0], NOISES[-1])),
                               np.log(NOISES), table)
    return result


def backtest(values, rule, budget):
    requests, move, noise, later = replay(values)
    total_flukes, total_caught = 0, [0.0, 0.0]
    target = budget * MARGIN
    for k, run in enumerate(requests):
        window = [u for u in range(k) if requests[u] + LEVEL_RUNS + 1 <= run][-WINDOW:]
        m, n, lt = move[window], noise[window], later[window]
        if rule == "shared" and len(window) >= MINIMUM_PRS:
            scores = np.sort((m / n)[~np.isnan(m)])
            price = smallest_within(0.01, 1000, target,
                                    lambda p: flukes(m, shared_thresholds(p, n, scores), lt).mean())
            threshold = shared_thresholds(price, noise[k:k + 1], scores)
        else:
            factor = CONSERVATIVE
            if window:
                factor = smallest_within(
                    0.5, 20, target, lambda f: flukes(m, global_thresholds(f, n), lt).mean())
            if len(window) < MINIMUM_PRS:
                factor = max(factor, CONSERVATIVE)
            threshold = global_thresholds(factor, noise[k:k + 1])
        total_flukes += flukes(move[k:k + 1], threshold, later[k:k + 1]).sum()
        total_caught = [a + b for a, b in zip(total_caught, caught(move[k:k + 1], threshold))]
    count = len(requests)
    return total_flukes / count, [100 * c / count for c in total_caught]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("rule", choices=("global", "shared"))
    parser.add_argument("data", nargs="+")
    parser.add_argument("--budget", type=float, default=1.0)
    arguments = parser.parse_args()
    print("history  rule  flukes/PR  caught +10%  caught +20%")
    for path in arguments.data:
        rate, shares = backtest(load(path), arguments.rule, arguments.budget)
        print(f"{path}  {arguments.rule}  {rate:.2f}  {shares[0]:.1f}%  {shares[1]:.1f}%",
              flush=True)


if __name__ == "__main__":
    main()
