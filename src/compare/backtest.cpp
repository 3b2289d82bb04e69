#include "compare/backtest.hpp"

#include <fmt/format.h>

#include <bit>
#include <cassert>
#include <cmath>
#include <random>

#include "compare/compare.hpp"
#include "stats/stats.hpp"
#include "stats/transient.hpp"

namespace benchwatch::compare {

namespace {

// Runs on either side of a pull request that decide whether its flags persist.
constexpr std::size_t persistence_window = 5;
// Runs of history before the first pull request.
constexpr std::size_t first_pull_request = 10;
// Log-spaced settings tried before bisecting, and bisection steps after.
constexpr int budget_grid_points = 24;
constexpr int budget_bisection_steps = 24;

// A benchmark's measured values and where each run's falls among them.
struct PreparedSeries {
    std::vector<double> measured;              // positive values, oldest first
    std::vector<std::size_t> measured_before;  // per run: how many measured values precede it
    std::vector<bool> present;                 // per run
};

PreparedSeries prepare(const BacktestSeries& series) {
    PreparedSeries prepared;
    prepared.measured_before.reserve(series.values.size());
    prepared.present.reserve(series.values.size());
    for (const auto& value : series.values) {
        prepared.measured_before.push_back(prepared.measured.size());
        const bool present = value && *value > 0;
        prepared.present.push_back(present);
        if (present) prepared.measured.push_back(*value);
    }
    return prepared;
}

// Median of the measured values of runs [first, last).
double window_median(const BacktestSeries& series, std::size_t first, std::size_t last) {
    std::vector<double> values;
    for (std::size_t run = first; run < last; ++run)
        if (series.values[run] && *series.values[run] > 0) values.push_back(*series.values[run]);
    assert(!values.empty());
    return stats::median(values);
}

// One pull request as every method sees it.
struct PullRequest {
    std::size_t run = 0;
    std::vector<BenchmarkEvidence> suite;
    std::vector<double> later_shift;  // per suite entry: m, the log ratio of the medians
};

std::vector<PullRequest> pull_requests(const BacktestMatrix& matrix,
                                       const std::vector<PreparedSeries>& prepared) {
    std::vector<PullRequest> requests;
    for (std::size_t t = first_pull_request; t + persistence_window + 1 <= matrix.runs; ++t) {
        PullRequest request{t, {}, {}};
        for (std::size_t b = 0; b < matrix.benchmarks.size(); ++b) {
            const auto& series = matrix.benchmarks[b];
            const auto& ready = prepared[b];
            if (!ready.present[t] || !ready.present[t - 1]) continue;
            BenchmarkEvidence evidence;
            evidence.history =
                std::span<const double>(ready.measured).first(ready.measured_before[t]);
            evidence.base = *series.values[t - 1];
            evidence.head = *series.values[t];
            evidence.smaller_is_better = series.smaller_is_better;
            evidence.minimum_change = series.minimum_change;
            request.suite.push_back(evidence);
            request.later_shift.push_back(
                std::log(window_median(series, t, t + persistence_window) /
                         window_median(series, t - persistence_window, t)));
        }
        requests.push_back(std::move(request));
    }
    return requests;
}

struct FlagCounts {
    double flukes_per_pr = 0;
    double persistent_per_pr = 0;
};

FlagCounts count_flags(const Method& method, std::span<const PullRequest> requests) {
    long flukes = 0;
    long persistent_flags = 0;
    for (const auto& request : requests) {
        const auto assessments = method.judge(request.suite);
        assert(assessments.size() == request.suite.size());
        for (std::size_t i = 0; i < assessments.size(); ++i) {
            if (!model::flags_change(assessments[i].verdict)) continue;
            // The flagged change is the one the report shows: head against the level the
            // method compared it with (seed: the baseline run).
            const auto& evidence = request.suite[i];
            const double reference =
                assessments[i].reference > 0 ? assessments[i].reference : evidence.base;
            if (stats::lasted(std::log(evidence.head / reference), request.later_shift[i]))
                ++persistent_flags;
            else
                ++flukes;
        }
    }
    if (requests.empty()) return {};
    const auto count = static_cast<double>(requests.size());
    return {static_cast<double>(flukes) / count, static_cast<double>(persistent_flags) / count};
}

// The suite entry of pull request `run` that injection size `size` makes worse.
std::size_t injected_entry(std::uint64_t seed, std::size_t run, double size,
                           std::size_t suite_size) {
    const auto size_bits = std::bit_cast<std::uint64_t>(size);
    std::seed_seq sequence{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                           static_cast<std::uint32_t>(run), static_cast<std::uint32_t>(size_bits),
                           static_cast<std::uint32_t>(size_bits >> 32)};
    std::mt19937_64 generator(sequence);
    return static_cast<std::size_t>(generator() % suite_size);
}

double caught_share(const Method& method, std::span<const PullRequest> requests, double size,
                    std::uint64_t seed) {
    long injected = 0;
    long caught = 0;
    std::vector<BenchmarkEvidence> suite;
    for (const auto& request : requests) {
        if (request.suite.empty()) continue;
        const auto entry = injected_entry(seed, request.run, size, request.suite.size());
        suite.assign(request.suite.begin(), request.suite.end());
        auto& target = suite[entry];
        target.head =
            target.smaller_is_better ? target.head * (1 + size) : target.head / (1 + size);
        const auto assessments = method.judge(suite);
        assert(assessments.size() == suite.size());
        ++injected;
        if (assessments[entry].verdict == model::Verdict::Slower) ++caught;
    }
    return injected == 0 ? 0.0 : static_cast<double>(caught) / static_cast<double>(injected);
}

BacktestScore score(const Method& method, std::span<const PullRequest> requests,
                    const BacktestOptions& options) {
    const auto flags = count_flags(method, requests);
    BacktestScore result{method.setting(), flags.flukes_per_pr, flags.persistent_per_pr, {}};
    for (const double size : options.injection_sizes)
        result.caught.push_back(caught_share(method, requests, size, options.seed));
    return result;
}

// The smallest setting in the method's range whose flukes per pull request are at most `budget`:
// the first of a log-spaced grid that keeps the budget, refined by bisection (in log space)
// against the grid point before it. Flukes fall nearly monotonically as the setting grows, so
// this finds the first crossing; the strictest setting when none keeps the budget.
double budget_setting(const Method& method, std::span<const PullRequest> requests, double budget) {
    const auto [smallest, largest] = method.setting_range();
    assert(smallest > 0 && smallest <= largest);
    const auto flukes_at = [&](double setting) {
        return count_flags(*method.with_setting(setting), requests).flukes_per_pr;
    };
    if (flukes_at(smallest) <= budget) return smallest;
    const double log_smallest = std::log(smallest);
    const double log_step = (std::log(largest) - log_smallest) / (budget_grid_points - 1);
    double too_loose = log_smallest;
    for (int point = 1; point < budget_grid_points; ++point) {
        double within =
            point + 1 == budget_grid_points ? std::log(largest) : log_smallest + point * log_step;
        if (flukes_at(std::exp(within)) > budget) {
            too_loose = within;
            continue;
        }
        for (int step = 0; step < budget_bisection_steps; ++step) {
            const double middle = (too_loose + within) / 2;
            (flukes_at(std::exp(middle)) <= budget ? within : too_loose) = middle;
        }
        return std::exp(within);
    }
    return largest;
}

}  // namespace

BacktestReport backtest(const BacktestMatrix& matrix, std::span<const Method* const> methods,
                        const BacktestOptions& options) {
    if (matrix.runs < backtest_minimum_runs)
        throw CompareError(fmt::format(
            "backtest needs at least {} default-branch runs (10 of history before the first pull "
            "request, 5 after the last) and found {}; record more runs on the default branch",
            backtest_minimum_runs, matrix.runs));
    std::vector<PreparedSeries> prepared;
    prepared.reserve(matrix.benchmarks.size());
    for (const auto& series : matrix.benchmarks) {
        assert(series.values.size() == matrix.runs);
        prepared.push_back(prepare(series));
    }
    const auto requests = pull_requests(matrix, prepared);

    BacktestReport report;
    report.pull_requests = static_cast<int>(requests.size());
    for (const Method* method : methods) {
        MethodBacktest result{method->name(), score(*method, requests, options), std::nullopt};
        if (options.budget) {
            const auto setting = budget_setting(*method, requests, *options.budget);
            result.at_budget = score(*method->with_setting(setting), requests, options);
        }
        report.methods.push_back(std::move(result));
    }
    return report;
}

}  // namespace benchwatch::compare
