#include "compare/replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <map>

#include "compare/level_method.hpp"
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

}  // namespace

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
    for (std::size_t t = std::max(first_pull_request, first_run);
         t + persistence_window + 1 <= matrix.runs; ++t) {
        ReplayedPullRequest request{t, {}, {}};
        for (std::size_t b = 0; b < count; ++b) {
            const auto& series = matrix.benchmarks[b];
            if (!measured(series.values[t]) || !measured(series.values[t - 1])) continue;
            BenchmarkEvidence evidence;
            evidence.history = std::span<const double>(measured_[b]).first(measured_before[b][t]);
            evidence.base = *series.values[t - 1];
            evidence.head = *series.values[t];
            evidence.smaller_is_better = series.smaller_is_better;
            evidence.minimum_change = series.minimum_change;
            if (!series.samples.empty()) {
                evidence.base_samples = series.samples[t - 1];
                evidence.head_samples = series.samples[t];
            }
            request.suite.push_back(evidence);
            request.later_shift.push_back(
                std::log(window_median(series, t, t + persistence_window) /
                         window_median(series, t - persistence_window, t)));
        }
        requests_.push_back(std::move(request));
    }
}

FlagCount count_flags(const ReplayedPullRequest& request, const SuiteJudgement& judgement) {
    const auto& assessments = judgement.benchmarks;
    assert(assessments.size() == request.suite.size());
    FlagCount count;
    for (std::size_t i = 0; i < assessments.size(); ++i) {
        if (!model::flags_change(assessments[i].verdict)) continue;
        const auto& evidence = request.suite[i];
        const double reference =
            assessments[i].reference > 0 ? assessments[i].reference : evidence.base;
        if (stats::lasted(std::log(evidence.head / reference), request.later_shift[i]))
            ++count.persistent;
        else
            ++count.flukes;
    }
    return count;
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

model::Calibration calibrate(const Method& method, std::span<const ReplayedPullRequest> requests,
                             std::span<const std::unique_ptr<PreparedSuite>> prepared) {
    assert(requests.size() == prepared.size());
    const auto budget = method.calibration_budget();
    assert(budget);
    const auto used = std::min(kCalibrationWindow, requests.size());
    requests = requests.last(used);
    prepared = prepared.last(used);

    model::Calibration calibration;
    calibration.budget = *budget;
    calibration.pull_requests = static_cast<int>(used);
    // The past is met with a margin: a setting that just keeps the budget on the pull requests
    // it was chosen on makes more flukes on the next ones (docs/JUDGEMENT.md measures how many).
    const double target = *budget * kCalibrationMargin;
    const auto flukes_of = [&](const Method& judge) {
        long flukes = 0;
        for (std::size_t i = 0; i < used; ++i)
            flukes += count_flags(requests[i], judge.decide(*prepared[i], judge.setting())).flukes;
        return used == 0 ? 0.0 : static_cast<double>(flukes) / static_cast<double>(used);
    };
    const auto flukes_at = [&](double setting) { return flukes_of(*method.with_setting(setting)); };
    const auto finish = [&](double setting) {
        calibration.source = model::CalibrationSource::Calibrated;
        if (used < kCalibrationMinimum) {
            setting = std::max(setting, kConservativeSensitivity);
            calibration.source = model::CalibrationSource::Conservative;
        }
        calibration.sensitivity = setting;
        calibration.flukes_per_pr = flukes_at(setting);
        return calibration;
    };
    if (used == 0) return finish(kConservativeSensitivity);
    if (!method.shares_budget_by_noise() || used < kCalibrationMinimum)
        return finish(smallest_setting_within(method.setting_range(), target,
                                              calibration_bisection_steps, flukes_at));

    std::vector<double> scores;
    for (std::size_t i = 0; i < used; ++i) {
        const auto more = method.noise_scores(*prepared[i]);
        scores.insert(scores.end(), more.begin(), more.end());
    }
    const stats::BudgetShare share(std::move(scores), shared_budget_sizes);
    const auto priced = [&](double price) {
        auto result = calibration;
        result.source = model::CalibrationSource::Calibrated;
        result.sensitivity = price;
        result.thresholds_by_noise = share.thresholds(price);
        return result;
    };
    const auto flukes_at_price = [&](double price) {
        return flukes_of(*method.calibrated_by(priced(price)));
    };
    calibration = priced(smallest_setting_within(shared_budget_prices, target,
                                                 calibration_bisection_steps, flukes_at_price));
    calibration.flukes_per_pr = flukes_of(*method.calibrated_by(calibration));
    return calibration;
}

namespace {

// Whether `value` lies in [low, high], give or take the rounding of exp(log(x)).
bool within(double value, double low, double high) {
    constexpr double slack = 1e-9;
    return value >= low * (1 - slack) && value <= high * (1 + slack);
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
    const auto expected_source = used < kCalibrationMinimum
                                     ? model::CalibrationSource::Conservative
                                     : model::CalibrationSource::Calibrated;
    if (calibration.source != expected_source)
        return fmt::format("it is {} with {} pull requests, where calibration is {}",
                           model::to_string(calibration.source), used,
                           model::to_string(expected_source));
    if (used == 0 && calibration.flukes_per_pr != 0)
        return fmt::format("it counts {:g} flukes per pull request without pull requests",
                           calibration.flukes_per_pr);
    const bool by_noise =
        used > 0 && method->shares_budget_by_noise() && used >= kCalibrationMinimum;
    if (!by_noise && !calibration.thresholds_by_noise.empty())
        return "it holds thresholds by noise, which these settings do not calibrate";
    std::pair<double, double> range;
    if (used == 0) {
        range = {kConservativeSensitivity, kConservativeSensitivity};
    } else if (by_noise) {
        range = shared_budget_prices;
        const auto grid = stats::share_threshold_grid();
        if (calibration.thresholds_by_noise.size() != stats::share_noise_grid().size())
            return fmt::format("it holds {} thresholds by noise, not {}",
                               calibration.thresholds_by_noise.size(),
                               stats::share_noise_grid().size());
        for (const double threshold : calibration.thresholds_by_noise)
            if (!within(threshold, grid.front(), grid.back()))
                return fmt::format(
                    "its threshold {:g} is outside {:g} to {:g}, the thresholds "
                    "calibration chooses from",
                    threshold, grid.front(), grid.back());
    } else {
        range = method->setting_range();
        if (calibration.source == model::CalibrationSource::Conservative)
            range = {std::max(range.first, kConservativeSensitivity),
                     std::max(range.second, kConservativeSensitivity)};
    }
    if (!within(calibration.sensitivity, range.first, range.second))
        return fmt::format(
            "its sensitivity {:g} is outside {:g} to {:g}, the range calibration "
            "chooses from",
            calibration.sensitivity, range.first, range.second);
    // Flukes are counted per replayed pull request, so their sum is a whole number.
    const double flukes = calibration.flukes_per_pr * static_cast<double>(used);
    if (std::abs(flukes - std::round(flukes)) > 1e-6 * std::max(1.0, flukes))
        return fmt::format(
            "its {:g} flukes per pull request are no whole number of flukes over its {} pull "
            "requests",
            calibration.flukes_per_pr, used);
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
        if (const auto* level = choice.settings_if<LevelSettings>())
            fixed.thresholds_by_noise = level->thresholds_by_noise;
        return fixed;
    }
    // Only the latest kCalibrationWindow pull requests are replayed: those from this run on.
    const auto first_run = history.runs > kCalibrationWindow + persistence_window + 1
                               ? history.runs - persistence_window - kCalibrationWindow
                               : 0;
    const Replay replay(history, first_run);
    const auto requests = replay.pull_requests();
    std::vector<std::unique_ptr<PreparedSuite>> prepared;
    prepared.reserve(requests.size());
    for (const auto& request : requests) prepared.push_back(method->prepare(request.suite));
    return calibrate(*method, requests, prepared);
}

BacktestMatrix matrix_of(const model::History& history,
                         const std::vector<model::Category>& categories) {
    std::map<std::string, std::size_t> column_of;
    for (std::size_t column = 0; column < history.commits.size(); ++column)
        column_of.emplace(history.commits[column], column);
    BacktestMatrix matrix;
    matrix.runs = history.commits.size();
    for (const auto& benchmark : history.benchmarks) {
        BacktestSeries series;
        series.name = model::with_metric(benchmark.name, benchmark.metric);
        series.smaller_is_better = benchmark.direction == model::Direction::SmallerIsBetter;
        series.minimum_change = model::minimum_change_of(benchmark.name, categories);
        series.values.resize(matrix.runs);
        if (!benchmark.samples.empty()) series.samples.resize(matrix.runs);
        for (std::size_t i = 0; i < benchmark.commits.size(); ++i) {
            const std::size_t column = column_of.at(benchmark.commits[i]);
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
    }
    return choice;
}

}  // namespace benchwatch::compare
