#include "compare/backtest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <memory>
#include <random>

#include "compare/compare.hpp"
#include "stats/stats.hpp"

namespace benchwatch::compare {

namespace {

// Bisection steps of --budget's search for the best fixed setting.
constexpr int budget_bisection_steps = 24;

using PullRequest = ReplayedPullRequest;
using Prepared = std::vector<std::unique_ptr<PreparedSuite>>;

// Each pull request's suite prepared by `method`, parallel to `requests`.
Prepared prepare_all(const Method& method, std::span<const PullRequest> requests) {
    return method.prepare_each(suites_of(requests));
}

// z of a two-sided interval of about 95%.
constexpr double interval_z = 1.96;

struct FlagCounts {
    double flukes_per_pr = 0;
    double persistent_per_pr = 0;
    stats::Interval flukes_interval;
};

// The method judging each pull request, parallel to the pull requests.
using Judges = std::vector<std::shared_ptr<const Method>>;

// Flukes and persistent flags per pull request when pull request i is decided by judges[i].
FlagCounts flag_counts(std::span<const PullRequest> requests, const Prepared& prepared,
                       const Judges& judges) {
    std::vector<double> flukes;
    long persistent_flags = 0;
    flukes.reserve(requests.size());
    for (std::size_t i = 0; i < requests.size(); ++i) {
        const auto count =
            count_flags(requests[i], judges[i]->decide(*prepared[i], judges[i]->setting()));
        flukes.push_back(static_cast<double>(count.flukes));
        persistent_flags += count.persistent;
    }
    if (requests.empty()) return {};
    const auto count = static_cast<double>(requests.size());
    return {stats::mean(flukes), static_cast<double>(persistent_flags) / count,
            stats::rate_interval(flukes, interval_z)};
}

// `samples` as they would be had every sample been `factor` times what it was.
void scale_samples(model::SampleSummary& samples, double factor) {
    samples.median *= factor;
    samples.mean *= factor;
    samples.stddev *= factor;
    for (double& value : samples.values) value *= factor;
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

struct Caught {
    double share = 0;
    stats::Interval interval;
};

Caught caught_share(const Method& method, std::span<const PullRequest> requests,
                    const Judges& judges, double size, std::uint64_t seed) {
    long injected = 0;
    long caught = 0;
    std::vector<BenchmarkEvidence> suite;
    for (std::size_t i = 0; i < requests.size(); ++i) {
        const auto& request = requests[i];
        if (request.suite.empty()) continue;
        const auto entry = injected_entry(seed, request.run, size, request.suite.size());
        suite.assign(request.suite.begin(), request.suite.end());
        auto& target = suite[entry];
        target.head =
            target.smaller_is_better ? target.head * (1 + size) : target.head / (1 + size);
        model::SampleSummary scaled;
        if (target.head_samples) {
            scaled = *target.head_samples;
            scale_samples(scaled, target.smaller_is_better ? 1 + size : 1 / (1 + size));
            target.head_samples = &scaled;
        }
        const auto judgement = judges[i]->decide(*method.prepare(suite), judges[i]->setting());
        assert(judgement.benchmarks.size() == suite.size());
        ++injected;
        if (judgement.benchmarks[entry].verdict == model::Verdict::Slower) ++caught;
    }
    const double share =
        injected == 0 ? 0.0 : static_cast<double>(caught) / static_cast<double>(injected);
    return {share, stats::wilson_interval(caught, injected, interval_z)};
}

BacktestScore score(const Method& method, std::span<const PullRequest> requests,
                    const Prepared& prepared, const Judges& judges,
                    const BacktestOptions& options) {
    const auto flags = flag_counts(requests, prepared, judges);
    BacktestScore result;
    result.flukes_per_pr = flags.flukes_per_pr;
    result.persistent_per_pr = flags.persistent_per_pr;
    result.flukes_interval = flags.flukes_interval;
    for (const double size : options.injection_sizes) {
        const auto caught = caught_share(method, requests, judges, size, options.seed);
        result.caught.push_back(caught.share);
        result.caught_intervals.push_back(caught.interval);
    }
    return result;
}

BacktestScore fixed_score(const Method& method, std::span<const PullRequest> requests,
                          const Prepared& prepared, double setting,
                          const BacktestOptions& options) {
    const Judges judges(requests.size(), method.with_setting(setting));
    auto result = score(method, requests, prepared, judges, options);
    result.setting = setting;
    return result;
}

// Each pull request's calibration on the pull requests before it whose persistence window ends
// before it, as compare calibrates on the history up to its baseline.
std::vector<model::Calibration> calibrations(const Method& method,
                                             std::span<const PullRequest> requests,
                                             const Prepared& prepared) {
    std::vector<model::Calibration> settings;
    settings.reserve(requests.size());
    std::size_t available = 0;
    for (std::size_t index = 0; index < requests.size(); ++index) {
        while (available < requests.size() &&
               requests[available].run + persistence_window + 1 <= requests[index].run)
            ++available;
        settings.push_back(calibrate(method, requests.first(available),
                                     std::span(prepared).first(available), *prepared[index]));
    }
    return settings;
}

// The most sensitive fixed setting whose flukes per pull request are at most `budget`.
double budget_setting(const Method& method, std::span<const PullRequest> requests,
                      const Prepared& prepared, double budget) {
    return smallest_setting_within(
        method.setting_range(), budget, budget_bisection_steps, [&](double setting) {
            const Judges judges(requests.size(), method.with_setting(setting));
            return flag_counts(requests, prepared, judges).flukes_per_pr;
        });
}

}  // namespace

BacktestReport backtest(const BacktestMatrix& matrix, std::span<const BacktestCandidate> candidates,
                        const BacktestOptions& options) {
    if (matrix.runs < backtest_minimum_runs)
        throw CompareError(fmt::format(
            "backtest needs at least {} default-branch runs (10 of history before the first pull "
            "request, 5 after the last) and found {}; record more runs on the default branch",
            backtest_minimum_runs, matrix.runs));
    const Replay replay(matrix);
    const auto requests = replay.pull_requests();

    BacktestReport report;
    report.pull_requests = static_cast<int>(requests.size());
    for (const auto& candidate : candidates) {
        const Method& method = *candidate.method;
        const auto prepared = prepare_all(method, requests);
        MethodBacktest result;
        result.name = method.name();
        if (const auto budget = method.calibration_budget()) {
            const auto calibrated = calibrations(method, requests, prepared);
            Judges judges;
            std::vector<double> settings;
            // Shared by noise, the settings are the prices of a fluke.
            std::vector<double> prior_weights;
            std::vector<double> replay_weights;
            for (const auto& calibration : calibrated) {
                judges.push_back(method.calibrated_by(calibration));
                settings.push_back(calibration.sensitivity);
                prior_weights.push_back(calibration.prior_weight);
                replay_weights.push_back(calibration.replay_weight);
            }
            result.priced = method.shares_budget_by_noise();
            if (result.priced && !calibrated.empty()) {
                result.prior_weight = stats::median(prior_weights);
                result.replay_weight = stats::median(replay_weights);
            }
            result.calibrated_budget = *budget;
            result.score = score(method, requests, prepared, judges, options);
            if (!settings.empty()) {
                const auto [low, high] = std::minmax_element(settings.begin(), settings.end());
                result.score.setting_range = std::pair(*low, *high);
                result.score.setting = stats::median(settings);
            }
        } else {
            result.score = fixed_score(method, requests, prepared, method.setting(), options);
        }
        if (options.budget) {
            const auto setting = budget_setting(method, requests, prepared, *options.budget);
            result.at_budget = fixed_score(method, requests, prepared, setting, options);
        }
        report.methods.push_back(std::move(result));
    }
    return report;
}

}  // namespace benchwatch::compare
