#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "compare/method.hpp"
#include "compare/replay.hpp"
#include "stats/stats.hpp"

namespace benchwatch::compare {

// What to measure besides flags on the real history.
struct BacktestOptions {
    std::vector<double> injection_sizes = {0.1, 0.2};  // d: heads made worse by the factor 1 + d
    std::optional<double> budget;                      // flukes per pull request allowed
    std::uint64_t seed = 1;                            // of the injected benchmarks' choice
};

// One method's figures at one setting, or calibrated at every pull request.
struct BacktestScore {
    double setting = 0;  // calibrated: the median setting used
    // Calibrated: the smallest and largest setting used over the pull requests.
    std::optional<std::pair<double, double>> setting_range;
    double flukes_per_pr = 0;
    double persistent_per_pr = 0;
    std::vector<double> caught;  // share caught per injection size, parallel to injection_sizes
    // About 95% intervals: flukes per pull request (stats::rate_interval over the pull requests)
    // and each caught share (Wilson), parallel to `caught`.
    stats::Interval flukes_interval;
    std::vector<stats::Interval> caught_intervals;
};

// Fewer replayed pull requests than this make figures whose intervals a report should show.
inline constexpr int backtest_uncertain_below = 30;

// A method to backtest; when it has a calibration_budget(), its setting is calibrated at each
// pull request from the pull requests before it, as compare calibrates it.
struct BacktestCandidate {
    const Method* method = nullptr;
};

// One method's figures at its own setting (or calibrated) and, with a budget, at the budget.
struct MethodBacktest {
    std::string name;
    std::optional<double> calibrated_budget;  // the calibration's budget when it was calibrated
    // The budget was shared by noise: score.setting and its range are the prices of a fluke.
    bool priced = false;
    // Then the medians over the pull requests of their calibrations' prior weight and replay
    // weight (model::Calibration): how much the estimate leaned on the prior tail and on the
    // replayed pull requests' count of flukes.
    double prior_weight = 0;
    double replay_weight = 0;
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

// Replays the default branch as pull requests: every run t from 10 to runs − 6 (0-based) is a
// pull request with baseline run t − 1, history runs 0…t − 1 and head run t; a benchmark takes
// part only when measured at t and t − 1. A flag (Slower or Faster) is persistent when
// f = ln(head/reference) and m = ln(median of runs t…t+4 / median of runs t−5…t−1), over the
// measured values, have the same sign and |m| >= |f| / 2; else it is a fluke. A calibrated
// candidate judges pull request t at the setting calibrate() finds on the pull requests u with
// u + 6 <= t, which read only runs before t. For each injection
// size d, one taking-part benchmark per pull request, chosen as the first output of mt19937_64
// seeded with seed_seq{seed, t, bits of d} modulo their count (in matrix order), gets its head
// made worse by 1 + d and the suite is judged again; caught when its verdict is Slower.
// Throws CompareError when the matrix has fewer than backtest_minimum_runs runs.
BacktestReport backtest(const BacktestMatrix& matrix, std::span<const BacktestCandidate> candidates,
                        const BacktestOptions& options);

}  // namespace benchwatch::compare
