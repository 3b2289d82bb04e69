#include "compare/replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "compare/level_method.hpp"
#include "compare/parallel.hpp"
#include "stats/budget_share.hpp"
#include "stats/stats.hpp"
#include "stats/transient.hpp"

namespace benchwatch::compare {

namespace {

// Log-spaced settings tried before bisecting.
constexpr int grid_points = 24;
// Bisection steps of the calibration: the setting to 1 part in 10,000 of a grid step.
constexpr int calibration_bisection_steps = 14;

bool measured(const std::optional<double>& value) {
    return value && *value > 0;
}

// Median of the measured values of runs [first, last), a window of persistence_window runs.
double window_median(const BacktestSeries& series, std::size_t first, std::size_t last) {
    assert(last - first <= persistence_window);
    std::array<double, persistence_window> values{};
    std::size_t count = 0;
    for (std::size_t run = first; run < last; ++run)
        if (measured(series.values[run])) values[count++] = *series.values[run];
    assert(count > 0);
    return stats::median(std::span<const double>(values.data(), count));
}

// Each benchmark measured at the history's last run, as the suite of a head judged against it:
// its latest `wanted` values as its history, the last as its baseline and its head. `values`
// holds what the evidence points to.
std::vector<BenchmarkEvidence> suite_after(const BacktestMatrix& history, std::size_t wanted,
                                           std::vector<std::vector<double>>& values) {
    values.clear();
    std::vector<const BacktestSeries*> measured_last;
    if (history.runs > 0)
        for (const auto& series : history.benchmarks)
            if (measured(series.values[history.runs - 1])) measured_last.push_back(&series);
    values.resize(measured_last.size());
    std::vector<BenchmarkEvidence> suite(measured_last.size());
    for (std::size_t b = 0; b < measured_last.size(); ++b) {
        const auto& series = *measured_last[b];
        auto& latest = values[b];
        for (std::size_t run = history.runs;
             run-- > 0 && latest.size() < std::max<std::size_t>(wanted, 1);)
            if (measured(series.values[run])) latest.push_back(*series.values[run]);
        std::reverse(latest.begin(), latest.end());
        auto& evidence = suite[b];
        evidence.history = latest;
        evidence.base = evidence.head = latest.back();
        evidence.smaller_is_better = series.smaller_is_better;
        evidence.minimum_change = series.minimum_change;
        evidence.budget_weight = series.budget_weight;
    }
    return suite;
}

}  // namespace

std::vector<std::span<const BenchmarkEvidence>> suites_of(
    std::span<const ReplayedPullRequest> requests) {
    std::vector<std::span<const BenchmarkEvidence>> suites;
    suites.reserve(requests.size());
    for (const auto& request : requests) suites.emplace_back(request.suite);
    return suites;
}

Replay::Replay(const BacktestMatrix& matrix, std::size_t first_run) {
    const auto count = matrix.benchmarks.size();
    measured_.resize(count);
    // measured_before[b][t]: how many measured values of benchmark b precede run t.
    std::vector<std::vector<std::size_t>> measured_before(count);
    for (std::size_t b = 0; b < count; ++b) {
        const auto& series = matrix.benchmarks[b];
        assert(series.values.size() == matrix.runs);
        measured_before[b].reserve(matrix.runs);
        for (const auto& value : series.values) {
            measured_before[b].push_back(measured_[b].size());
            if (measured(value)) measured_[b].push_back(*value);
        }
    }
    // Runs t with t + persistence_window + 1 <= matrix.runs, each replayed on its own.
    const auto first = std::max(first_pull_request, first_run);
    const auto end = matrix.runs > persistence_window ? matrix.runs - persistence_window : 0;
    requests_.resize(end > first ? end - first : 0);
    detail::for_each_index(requests_.size(), [&](std::size_t i) {
        const auto t = first + i;
        auto& request = requests_[i];
        request.run = t;
        // Reserved whole: grown a step at a time, a suite of thousands is copied many times over.
        request.suite.reserve(count);
        request.later_shift.reserve(count);
        for (std::size_t b = 0; b < count; ++b) {
            const auto& series = matrix.benchmarks[b];
            if (!measured(series.values[t]) || !measured(series.values[t - 1])) continue;
            BenchmarkEvidence evidence;
            evidence.history = std::span<const double>(measured_[b]).first(measured_before[b][t]);
            evidence.base = *series.values[t - 1];
            evidence.head = *series.values[t];
            evidence.smaller_is_better = series.smaller_is_better;
            evidence.minimum_change = series.minimum_change;
            evidence.budget_weight = series.budget_weight;
            if (!series.samples.empty()) {
                const auto& base_samples = series.samples[t - 1];
                const auto& head_samples = series.samples[t];
                if (base_samples) evidence.base_samples = &*base_samples;
                if (head_samples) evidence.head_samples = &*head_samples;
            }
            request.suite.push_back(evidence);
            request.later_shift.push_back(
                std::log(window_median(series, t, t + persistence_window) /
                         window_median(series, t - persistence_window, t)));
        }
    });
}

FlagCount count_flags(const ReplayedPullRequest& request, const SuiteJudgement& judgement) {
    const auto& assessments = judgement.benchmarks;
    assert(assessments.size() == request.suite.size());
    FlagCount count;
    for (std::size_t i = 0; i < assessments.size(); ++i)
        if (model::flags_change(assessments[i].verdict))
            count_flag(request, i, assessments[i].reference, count);
    return count;
}

void count_flag(const ReplayedPullRequest& request, std::size_t entry, double reference,
                FlagCount& count) {
    const auto& evidence = request.suite[entry];
    if (!(reference > 0)) reference = evidence.base;
    if (stats::lasted(std::log(evidence.head / reference), request.later_shift[entry]))
        ++count.persistent;
    else
        ++count.flukes;
}

double smallest_setting_within(std::pair<double, double> range, double target, int bisection_steps,
                               const std::function<double(double)>& flukes_at) {
    const auto [smallest, largest] = range;
    assert(smallest > 0 && smallest <= largest);
    if (flukes_at(smallest) <= target) return smallest;
    const double log_smallest = std::log(smallest);
    const double log_step = (std::log(largest) - log_smallest) / (grid_points - 1);
    double too_loose = log_smallest;
    for (int point = 1; point < grid_points; ++point) {
        double within =
            point + 1 == grid_points ? std::log(largest) : log_smallest + point * log_step;
        if (flukes_at(std::exp(within)) > target) {
            too_loose = within;
            continue;
        }
        for (int step = 0; step < bisection_steps; ++step) {
            const double middle = (too_loose + within) / 2;
            (flukes_at(std::exp(middle)) <= target ? within : too_loose) = middle;
        }
        return std::exp(within);
    }
    return largest;
}

namespace {

// The flukes per pull request that `judge` makes on the replayed pull requests.
double replayed_flukes(const Method& judge, std::span<const ReplayedPullRequest> requests,
                       std::span<const std::unique_ptr<PreparedSuite>> prepared) {
    std::vector<long> flukes(requests.size());
    detail::for_each_index(requests.size(), [&](std::size_t i) {
        flukes[i] = judge.count_flags(*prepared[i], requests[i]).flukes;
    });
    return requests.empty()
               ? 0.0
               : static_cast<double>(std::accumulate(flukes.begin(), flukes.end(), 0L)) /
                     static_cast<double>(requests.size());
}

// Calibrated on the replay alone: see calibrate().
model::Calibration calibrate_on_replay(const Method& method,
                                       std::span<const ReplayedPullRequest> requests,
                                       std::span<const std::unique_ptr<PreparedSuite>> prepared,
                                       double budget) {
    const auto used = requests.size();
    model::Calibration calibration;
    calibration.budget = budget;
    calibration.pull_requests = static_cast<int>(used);
    // The search ends on a setting it has tried: what each gave is kept rather than replayed again.
    std::vector<std::pair<double, double>> tried;
    const auto flukes_at = [&](double setting) {
        for (const auto& [one, flukes] : tried)
            if (one == setting) return flukes;
        return tried
            .emplace_back(setting,
                          replayed_flukes(*method.with_setting(setting), requests, prepared))
            .second;
    };
    double setting = kConservativeSensitivity;
    if (used > 0)
        setting = smallest_setting_within(method.setting_range(), budget * kCalibrationMargin,
                                          calibration_bisection_steps, flukes_at);
    calibration.source = model::CalibrationSource::Calibrated;
    if (used < kCalibrationMinimum) {
        setting = std::max(setting, kConservativeSensitivity);
        calibration.source = model::CalibrationSource::Conservative;
    }
    calibration.sensitivity = setting;
    calibration.flukes_per_pr = flukes_at(setting);
    return calibration;
}

// The expected flukes of `suite` with the thresholds by noise of `calibration` (those of each
// benchmark's budget weight), each at least its floor.
double expected_flukes(const stats::BudgetShare& share, const model::Calibration& calibration,
                       std::span<const NoiseScore> suite) {
    double expected = 0;
    for (const auto& one : suite) {
        const double noise = one.pooled.noise;
        const auto table = thresholds_of_weight(
            calibration.thresholds_by_noise, calibration.thresholds_by_weight, one.budget_weight);
        const double threshold = std::max(stats::threshold_at(table, one.position), one.floor);
        expected += share.fluke_rate(threshold, noise);
    }
    return expected;
}

// Calibrated by noise on the pooled scores and the replay: see calibrate().
model::Calibration calibrate_by_noise(const Method& method,
                                      std::span<const ReplayedPullRequest> requests,
                                      std::span<const std::unique_ptr<PreparedSuite>> prepared,
                                      const PreparedSuite& now, double budget) {
    const auto used = requests.size();
    std::vector<std::vector<NoiseScore>> past(used);
    detail::for_each_index(used, [&](std::size_t i) {
        past[i] = method.noise_scores(*prepared[i], requests[i].later_shift);
    });
    std::vector<stats::PooledScore> pooled;
    std::size_t scores = 0;
    for (const auto& suite : past) scores += suite.size();
    pooled.reserve(scores);
    for (const auto& suite : past)
        for (const auto& one : suite) pooled.push_back(one.pooled);
    const auto present = method.noise_scores(now, {});
    // Every budget weight other than 1 gets thresholds of its own, bought at the price ÷ weight.
    std::set<double> weights;
    for (const auto& one : present) weights.insert(one.budget_weight);
    for (const auto& suite : past)
        for (const auto& one : suite) weights.insert(one.budget_weight);
    weights.erase(1.0);
    const double pull_requests = static_cast<double>(used);
    const double evidence_weight = pull_requests / (pull_requests + kPriorPullRequests);
    const stats::BudgetShare share(pooled, shared_budget_sizes, evidence_weight);

    model::Calibration calibration;
    calibration.source = model::CalibrationSource::Calibrated;
    calibration.budget = budget;
    calibration.pull_requests = static_cast<int>(used);
    calibration.prior_weight = 1 - evidence_weight;
    const auto priced = [&](double price) {
        auto result = calibration;
        result.sensitivity = price;
        result.thresholds_by_noise = share.thresholds(price);
        for (const double weight : weights)
            result.thresholds_by_weight.push_back({weight, share.thresholds(price / weight)});
        const auto judge = method.calibrated_by(result);
        // Each pull request's expected and replayed flukes at once, summed in order afterwards.
        std::vector<double> expected(used);
        std::vector<long> flukes(used);
        detail::for_each_index(used, [&](std::size_t i) {
            expected[i] = expected_flukes(share, result, past[i]);
            flukes[i] = judge->count_flags(*prepared[i], requests[i]).flukes;
        });
        double expected_past = 0;
        for (const double one : expected) expected_past += one;
        result.flukes_per_pr =
            used == 0 ? 0.0
                      : static_cast<double>(std::accumulate(flukes.begin(), flukes.end(), 0L)) /
                            pull_requests;
        const double replayed = result.flukes_per_pr * pull_requests;
        result.replay_weight = expected_past / (expected_past + kReplayEvidenceFlukes);
        result.expected_flukes_per_pr = expected_flukes(share, result, present) *
                                        (replayed + kReplayEvidenceFlukes) /
                                        (expected_past + kReplayEvidenceFlukes);
        return result;
    };
    // The search ends on a price it has tried: what each price gave is kept rather than worked
    // out again, since each costs a replay of every pull request.
    std::vector<model::Calibration> tried;
    const auto price = smallest_setting_within(
        shared_budget_prices, budget * kPooledCalibrationMargin, calibration_bisection_steps,
        [&](double one) { return tried.emplace_back(priced(one)).expected_flukes_per_pr; });
    for (auto& one : tried)
        if (one.sensitivity == price) return std::move(one);
    return priced(price);
}

}  // namespace

model::Calibration calibrate(const Method& method, std::span<const ReplayedPullRequest> requests,
                             std::span<const std::unique_ptr<PreparedSuite>> prepared,
                             const PreparedSuite& now) {
    assert(requests.size() == prepared.size());
    const auto budget = method.calibration_budget();
    assert(budget);
    const auto used = std::min(kCalibrationWindow, requests.size());
    requests = requests.last(used);
    prepared = prepared.last(used);
    if (method.shares_budget_by_noise())
        return calibrate_by_noise(method, requests, prepared, now, *budget);
    return calibrate_on_replay(method, requests, prepared, *budget);
}

namespace {

// Whether `value` lies in [low, high], give or take the rounding of exp(log(x)).
bool within(double value, double low, double high) {
    constexpr double slack = 1e-9;
    return value >= low * (1 - slack) && value <= high * (1 + slack);
}

}  // namespace

namespace {

// Why `calibration`'s sensitivity is not one a search over `range` finds; std::nullopt when it is.
std::optional<std::string> sensitivity_outside(const model::Calibration& calibration,
                                               std::pair<double, double> range) {
    if (within(calibration.sensitivity, range.first, range.second)) return std::nullopt;
    return fmt::format(
        "its sensitivity {:g} is outside {:g} to {:g}, the range calibration chooses from",
        calibration.sensitivity, range.first, range.second);
}

// Why a calibration by noise is not one calibrate_by_noise() gives; std::nullopt when it could be.
std::optional<std::string> by_noise_out_of_range(const model::Calibration& calibration,
                                                 std::size_t used) {
    if (calibration.source != model::CalibrationSource::Calibrated)
        return fmt::format("it is {}, where a calibration by noise is calibrated",
                           model::to_string(calibration.source));
    const auto grid = stats::share_threshold_grid();
    if (calibration.thresholds_by_noise.size() != stats::share_noise_grid().size())
        return fmt::format("it holds {} thresholds by noise, not {}",
                           calibration.thresholds_by_noise.size(),
                           stats::share_noise_grid().size());
    for (const double threshold : calibration.thresholds_by_noise)
        if (!within(threshold, grid.front(), grid.back()))
            return fmt::format(
                "its threshold {:g} is outside {:g} to {:g}, the thresholds calibration chooses "
                "from",
                threshold, grid.front(), grid.back());
    const double dearest = shared_budget_prices.second;
    if (auto outside = sensitivity_outside(calibration, shared_budget_prices)) return outside;
    const double pull_requests = static_cast<double>(used);
    const double prior_weight =
        used == 0 ? 1.0 : kPriorPullRequests / (pull_requests + kPriorPullRequests);
    if (std::abs(calibration.prior_weight - prior_weight) > 1e-9)
        return fmt::format("its prior weighs {:g}, where {} pull requests leave it {:g}",
                           calibration.prior_weight, used, prior_weight);
    if (!(calibration.replay_weight >= 0 && calibration.replay_weight < 1) ||
        (used == 0 && calibration.replay_weight != 0))
        return fmt::format("its replay weighs {:g}, outside what {} pull requests can give",
                           calibration.replay_weight, used);
    // The estimate at a price below the dearest is the one that met the margin.
    const double target = calibration.budget * kPooledCalibrationMargin;
    if (calibration.sensitivity < dearest * (1 - 1e-9) &&
        !(calibration.expected_flukes_per_pr <= target * (1 + 1e-9)))
        return fmt::format(
            "its {:g} expected flukes per pull request are over the {:g} its price {:g} was "
            "chosen to keep within",
            calibration.expected_flukes_per_pr, target, calibration.sensitivity);
    return std::nullopt;
}

// Why a calibration on the replay alone is not one calibrate_on_replay() gives for `method`.
std::optional<std::string> replay_out_of_range(const model::Calibration& calibration,
                                               const Method& method, std::size_t used) {
    const auto expected_source = used < kCalibrationMinimum ? model::CalibrationSource::Conservative
                                                            : model::CalibrationSource::Calibrated;
    if (calibration.source != expected_source)
        return fmt::format("it is {} with {} pull requests, where calibration is {}",
                           model::to_string(calibration.source), used,
                           model::to_string(expected_source));
    if (!calibration.thresholds_by_noise.empty())
        return "it holds thresholds by noise, which these settings do not calibrate";
    auto range = method.setting_range();
    if (used == 0)
        range = {kConservativeSensitivity, kConservativeSensitivity};
    else if (calibration.source == model::CalibrationSource::Conservative)
        range = {std::max(range.first, kConservativeSensitivity),
                 std::max(range.second, kConservativeSensitivity)};
    if (auto outside = sensitivity_outside(calibration, range)) return outside;
    // A calibrated setting below the top of its range is the smallest that kept the flukes
    // within the budget's margin: flukes beyond it cannot come with that setting.
    const double target = calibration.budget * kCalibrationMargin;
    if (calibration.source == model::CalibrationSource::Calibrated &&
        calibration.sensitivity < range.second * (1 - 1e-9) &&
        calibration.flukes_per_pr > target * (1 + 1e-9))
        return fmt::format(
            "its {:g} flukes per pull request are over the {:g} its sensitivity {:g} was "
            "chosen to keep within",
            calibration.flukes_per_pr, target, calibration.sensitivity);
    return std::nullopt;
}

}  // namespace

std::optional<std::string> calibration_out_of_range(const model::Calibration& calibration,
                                                    const model::MethodChoice& choice) {
    const auto method = make_method(choice);
    const auto budget = method->calibration_budget();
    if (!budget) return "the settings calibrate nothing, they fix the sensitivity";
    if (calibration.budget != *budget)
        return fmt::format("its budget {:g} is not the {:g} configured", calibration.budget,
                           *budget);
    const auto used = static_cast<std::size_t>(std::max(calibration.pull_requests, 0));
    if (used > kCalibrationWindow)
        return fmt::format("its {} pull requests are more than the {} calibration replays",
                           calibration.pull_requests, kCalibrationWindow);
    if (used == 0 && calibration.flukes_per_pr != 0)
        return fmt::format("it counts {:g} flukes per pull request without pull requests",
                           calibration.flukes_per_pr);
    // Flukes are counted per replayed pull request, so their sum is a whole number.
    const double flukes = calibration.flukes_per_pr * static_cast<double>(used);
    if (std::abs(flukes - std::round(flukes)) > 1e-6 * std::max(1.0, flukes))
        return fmt::format(
            "its {:g} flukes per pull request are no whole number of flukes over its {} pull "
            "requests",
            calibration.flukes_per_pr, used);
    return method->shares_budget_by_noise() ? by_noise_out_of_range(calibration, used)
                                            : replay_out_of_range(calibration, *method, used);
}

std::size_t calibration_runs(const model::MethodChoice& choice) {
    const auto method = make_method(choice);
    if (!method->calibration_budget()) return 0;
    return kCalibrationWindow + method->history_wanted() + persistence_window + 1;
}

model::Calibration calibrate_choice(const BacktestMatrix& history,
                                    const model::MethodChoice& choice) {
    const auto method = make_method(choice);
    if (!method->calibration_budget()) {
        model::Calibration fixed;
        fixed.sensitivity = method->setting();
        if (const auto* level = choice.settings_if<LevelSettings>()) {
            fixed.thresholds_by_noise = level->thresholds_by_noise;
            fixed.thresholds_by_weight = level->thresholds_by_weight;
        }
        return fixed;
    }
    // Only the latest kCalibrationWindow pull requests are replayed: those from this run on.
    const auto first_run = history.runs > kCalibrationWindow + persistence_window + 1
                               ? history.runs - persistence_window - kCalibrationWindow
                               : 0;
    const Replay replay(history, first_run);
    const auto requests = replay.pull_requests();
    const auto prepared = method->prepare_each(suites_of(requests));
    std::vector<std::vector<double>> latest;
    const auto now = method->prepare(suite_after(history, method->history_wanted(), latest));
    return calibrate(*method, requests, prepared, *now);
}

BacktestMatrix matrix_of(const model::History& history,
                         const std::vector<model::Category>& categories,
                         const model::BenchmarkRules& rules) {
    // A series' commits are the history's in the same order with some left out, so each is
    // found walking on from the one before; the map is for a history that breaks that order.
    std::map<std::string_view, std::size_t> column_of;
    const auto find_column = [&](const std::string& commit, std::size_t from) {
        for (std::size_t column = from; column < history.commits.size(); ++column)
            if (history.commits[column] == commit) return column;
        if (column_of.empty())
            for (std::size_t column = 0; column < history.commits.size(); ++column)
                column_of.emplace(history.commits[column], column);
        return column_of.at(commit);
    };
    BacktestMatrix matrix;
    matrix.runs = history.commits.size();
    for (const auto& benchmark : history.benchmarks) {
        if (model::is_ignored(benchmark.name, rules)) continue;
        BacktestSeries series;
        series.name = model::with_metric(benchmark.name, benchmark.metric);
        series.smaller_is_better = benchmark.direction == model::Direction::SmallerIsBetter;
        series.minimum_change =
            model::minimum_change_of(benchmark.name, benchmark.metric, categories, rules);
        series.budget_weight = model::budget_weight_of(benchmark.name, rules);
        series.values.resize(matrix.runs);
        if (!benchmark.samples.empty()) series.samples.resize(matrix.runs);
        for (std::size_t i = 0, column = 0; i < benchmark.commits.size(); ++i) {
            column = find_column(benchmark.commits[i], column);
            series.values[column] = benchmark.values[i];
            if (!benchmark.samples.empty()) series.samples[column] = benchmark.samples[i];
        }
        matrix.benchmarks.push_back(std::move(series));
    }
    return matrix;
}

model::MethodChoice calibrated_on(const model::History& history, const model::MethodChoice& choice,
                                  const std::vector<model::Category>& categories,
                                  bool leave_out_latest) {
    if (calibration_runs(choice) == 0) return choice;
    auto matrix = matrix_of(history, categories);
    if (leave_out_latest && matrix.runs > 0) {
        --matrix.runs;
        for (auto& series : matrix.benchmarks) series.values.pop_back();
    }
    return calibrated(choice, calibrate_choice(matrix, choice));
}

model::MethodChoice calibrated(model::MethodChoice choice, const model::Calibration& calibration) {
    // A method that calibrates nothing keeps its settings: its calibration is Fixed at them.
    if (auto* level = choice.settings_if<LevelSettings>()) {
        level->sensitivity = calibration.sensitivity;
        level->thresholds_by_noise = calibration.thresholds_by_noise;
        level->thresholds_by_weight = calibration.thresholds_by_weight;
    }
    return choice;
}

}  // namespace benchwatch::compare
