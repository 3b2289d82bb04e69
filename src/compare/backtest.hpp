#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "compare/method.hpp"

namespace benchwatch::compare {

// One benchmark across the default branch's runs.
struct BacktestSeries {
    std::string name;
    bool smaller_is_better = true;
    double minimum_change = 0.03;  // its category's minimum change
    // One entry per run, oldest first; std::nullopt (or a value <= 0) where it was not measured.
    std::vector<std::optional<double>> values;
};

// The default branch's history as benchmarks × runs; every series has `runs` values.
struct BacktestMatrix {
    std::size_t runs = 0;
    std::vector<BacktestSeries> benchmarks;
};

// What to measure besides flags on the real history.
struct BacktestOptions {
    std::vector<double> injection_sizes = {0.1, 0.2};  // d: heads made worse by the factor 1 + d
    std::optional<double> budget;                      // flukes per pull request allowed
    std::uint64_t seed = 1;                            // of the injected benchmarks' choice
};

// One method's figures at one setting.
struct BacktestScore {
    double setting = 0;
    double flukes_per_pr = 0;
    double persistent_per_pr = 0;
    std::vector<double> caught;  // share caught per injection size, parallel to injection_sizes
};

// One method's figures at its own setting and, with a budget, at the budget.
struct MethodBacktest {
    std::string name;
    BacktestScore score;
    // The most sensitive setting whose flukes per pull request stay within the budget; when even
    // the strictest setting of setting_range() exceeds it, that strictest setting.
    std::optional<BacktestScore> at_budget;
};

// Everything `benchwatch backtest` prints.
struct BacktestReport {
    int pull_requests = 0;
    std::vector<MethodBacktest> methods;  // in the order given
};

// Fewest runs a backtest needs: 10 before the first pull request and 5 after the last.
inline constexpr std::size_t backtest_minimum_runs = 16;

// Replays the default branch as pull requests (issue 8): every run t from 10 to runs − 6
// (0-based) is a pull request with baseline run t − 1, history runs 0…t − 1 and head run t; a
// benchmark takes part only when measured at t and t − 1. A flag (Slower or Faster) is persistent
// when f = ln(head/base) and m = ln(median of runs t…t+4 / median of runs t−5…t−1), over the
// measured values, have the same sign and |m| >= |f| / 2; else it is a fluke. For each injection
// size d, one taking-part benchmark per pull request, chosen as the first output of mt19937_64
// seeded with seed_seq{seed, t, bits of d} modulo their count (in matrix order), gets its head
// made worse by 1 + d and the suite is judged again; caught when its verdict is Slower.
// Throws CompareError when the matrix has fewer than backtest_minimum_runs runs.
BacktestReport backtest(const BacktestMatrix& matrix, std::span<const Method* const> methods,
                        const BacktestOptions& options);

}  // namespace benchwatch::compare
