// What could break: the calibration of the level method reading runs after the baseline (a
// report that could change once later runs are recorded), keeping less or more than budget ×
// margin on the replayed pull requests, trusting too few of them, or compare not using what it
// calibrated.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "compare/level_method.hpp"
#include "compare/method.hpp"
#include "compare/replay.hpp"
#include "recording.hpp"
#include "stats/budget_share.hpp"

namespace benchwatch::compare {
namespace {

using testing::Recorder;
using testing::timed;

// A deterministic, noisy value for run t of benchmark b: 1000 × (1 + 3% × a hash in [−1, 1])
// with a one-run spike of +40% every 13th run (offset by b), which never lasts.
double noisy_value(int b, int t) {
    const unsigned hash =
        (static_cast<unsigned>(t) * 2654435761u) ^ (static_cast<unsigned>(b) * 40503u);
    const double unit = static_cast<double>(hash % 2001) / 1000.0 - 1.0;
    double value = 1000 * (1 + 0.03 * unit);
    if ((t + b) % 13 == 0) value *= 1.4;
    return value;
}

BacktestMatrix noisy_matrix(int benchmarks, int runs) {
    BacktestMatrix matrix;
    matrix.runs = static_cast<std::size_t>(runs);
    for (int b = 0; b < benchmarks; ++b) {
        BacktestSeries series;
        series.name = "b" + std::to_string(b);
        for (int t = 0; t < runs; ++t) series.values.push_back(noisy_value(b, t));
        matrix.benchmarks.push_back(std::move(series));
    }
    return matrix;
}

model::MethodChoice level_with_budget(double budget) {
    auto choice = default_choice("level");
    choice.settings<LevelSettings>().false_alarms_per_pr = budget;
    return choice;
}

// level_with_budget() spending its budget through one factor for every benchmark.
model::MethodChoice one_factor_with_budget(double budget) {
    auto choice = level_with_budget(budget);
    choice.settings<LevelSettings>().allocation = BudgetAllocation::OneFactor;
    return choice;
}

TEST(Calibration, KeepsTheReplayedPullRequestsWithinBudgetTimesMargin) {
    // 8 benchmarks × 120 runs: 104 replayable pull requests, of which the last 75 count.
    const auto matrix = noisy_matrix(8, 120);
    const auto choice = one_factor_with_budget(1);
    const auto calibration = calibrate_choice(matrix, choice);
    EXPECT_EQ(calibration.source, model::CalibrationSource::Calibrated);
    EXPECT_EQ(calibration.pull_requests, 75);
    EXPECT_LE(calibration.flukes_per_pr, 0.7);

    // Recount by hand at the setting chosen and a little below it: within the target at the
    // setting, over it just below (it is the most sensitive setting that keeps it).
    const Replay replay(matrix);
    const auto requests = replay.pull_requests().last(75);
    const auto count_at = [&](double sensitivity) {
        auto settings = choice.settings<LevelSettings>();
        settings.sensitivity = sensitivity;
        const auto method = make_level_method(settings);
        long flukes = 0;
        for (const auto& request : requests)
            flukes += count_flags(request, method->judge(request.suite)).flukes;
        return static_cast<double>(flukes) / 75.0;
    };
    EXPECT_DOUBLE_EQ(count_at(calibration.sensitivity), calibration.flukes_per_pr);
    EXPECT_GT(count_at(calibration.sensitivity * 0.98), 0.7);
}

TEST(Calibration, ABiggerBudgetGivesASmallerSensitivity) {
    const auto matrix = noisy_matrix(8, 120);
    for (const auto& choice : {level_with_budget(0.5), one_factor_with_budget(0.5)}) {
        SCOPED_TRACE(to_string(choice.settings<LevelSettings>().allocation));
        auto looser = choice;
        looser.settings<LevelSettings>().false_alarms_per_pr = 2;
        const auto strict = calibrate_choice(matrix, choice);
        const auto loose = calibrate_choice(matrix, looser);
        EXPECT_LT(loose.sensitivity, strict.sensitivity);
        EXPECT_LE(strict.flukes_per_pr, 0.5 * 0.7);
        EXPECT_LE(loose.flukes_per_pr, 2 * 0.7);
    }
}

TEST(SmallestSettingWithin, FindsTheCrossingOfFlukesThatFallAsTheSettingGrows) {
    // 10 / s flukes: the target 1 is kept from s = 10 on.
    const auto found = smallest_setting_within({0.5, 20}, 1.0, 14, [](double s) { return 10 / s; });
    EXPECT_NEAR(found, 10.0, 10.0 * 1e-3);
    // Kept everywhere: the loosest end; nowhere: the strictest.
    EXPECT_EQ(smallest_setting_within({0.5, 20}, 1.0, 14, [](double) { return 0.0; }), 0.5);
    EXPECT_EQ(smallest_setting_within({0.5, 20}, 1.0, 14, [](double) { return 5.0; }), 20.0);
}

// noisy_value with the noise scaled by 1/3 for b0 … b3, so that half the suite is quiet.
double half_quiet(int b, int t) {
    const double value = noisy_value(b, t);
    return b < 4 ? 1000 + (value - 1000) / 3 : value;
}

TEST(Calibration, ByNoiseKeepsBudgetTimesMarginAndLetsQuietBenchmarksCatchSmallChanges) {
    BacktestMatrix matrix;
    matrix.runs = 120;
    for (int b = 0; b < 8; ++b) {
        BacktestSeries series;
        series.name = "b" + std::to_string(b);
        for (int t = 0; t < 120; ++t) series.values.push_back(half_quiet(b, t));
        matrix.benchmarks.push_back(std::move(series));
    }
    const auto choice = level_with_budget(1);
    ASSERT_EQ(choice.settings<LevelSettings>().allocation,
              BudgetAllocation::ByNoise);  // the default
    const auto calibration = calibrate_choice(matrix, choice);
    EXPECT_EQ(calibration.source, model::CalibrationSource::Calibrated);
    EXPECT_EQ(calibration.pull_requests, 75);
    EXPECT_LE(calibration.flukes_per_pr, 0.7);
    ASSERT_EQ(calibration.thresholds_by_noise.size(), stats::share_noise_grid().size());

    // The next pull request judged as compare judges it: every threshold at least its noise,
    // and the quiet benchmarks, whose flags cost few flukes, able to catch a 10% regression.
    const auto method = make_method(calibrated(choice, calibration));
    const Replay replay(matrix);
    const auto& request = replay.pull_requests().back();
    const auto assessments = method->judge(request.suite).benchmarks;
    ASSERT_EQ(assessments.size(), 8u);
    for (const auto& assessment : assessments)
        EXPECT_GE(assessment.threshold, assessment.typical_change);
    for (int quiet = 0; quiet < 4; ++quiet) EXPECT_LT(assessments[quiet].threshold, std::log(1.1));

    // The flukes it reports are those of the thresholds it chose, recounted by hand.
    const auto requests = replay.pull_requests().last(75);
    long flukes = 0;
    for (const auto& one : requests) flukes += count_flags(one, method->judge(one.suite)).flukes;
    EXPECT_DOUBLE_EQ(static_cast<double>(flukes) / 75.0, calibration.flukes_per_pr);
}

TEST(Calibration, TooFewPullRequestsUseTheConservativeSetting) {
    // 30 runs replay pull requests 10 … 24 (15 of them), under the 20 needed: at least 3.
    const auto calibration = calibrate_choice(noisy_matrix(8, 30), level_with_budget(1));
    EXPECT_EQ(calibration.source, model::CalibrationSource::Conservative);
    EXPECT_EQ(calibration.pull_requests, 15);
    EXPECT_GE(calibration.sensitivity, 3.0);
    // None at all: the conservative setting itself.
    const auto none = calibrate_choice(noisy_matrix(8, 12), level_with_budget(1));
    EXPECT_EQ(none.source, model::CalibrationSource::Conservative);
    EXPECT_EQ(none.pull_requests, 0);
    EXPECT_EQ(none.sensitivity, 3.0);
}

TEST(Calibration, WithoutABudgetTheSensitivityIsUsedAsSet) {
    auto choice = default_choice("level");
    choice.settings<LevelSettings>().false_alarms_per_pr = std::nullopt;
    choice.settings<LevelSettings>().sensitivity = 2.25;
    const auto calibration = calibrate_choice(noisy_matrix(4, 60), choice);
    EXPECT_EQ(calibration.source, model::CalibrationSource::Fixed);
    EXPECT_EQ(calibration.sensitivity, 2.25);
    EXPECT_EQ(calibration_runs(choice), 0u);
    // The level method's history (40 + 2 × 5 runs) and persistence window around 75 pull
    // requests: 75 + 50 + 5 + 1.
    EXPECT_EQ(calibration_runs(level_with_budget(1)), 131u);
}

// Eight benchmarks b0 … b7 of one run, each valued value(b, t).
std::vector<model::Result> suite_at(int t, double (*value)(int b, int t)) {
    std::vector<model::Result> results;
    for (int b = 0; b < 8; ++b) results.push_back(timed("b" + std::to_string(b), value(b, t)));
    return results;
}

// The pull request's head: b0 25% slower than the level near 1000, the others at 1000.
std::vector<model::Result> head_suite() {
    return suite_at(0, [](int b, int) { return b == 0 ? 1250.0 : 1000.0; });
}

// Records 60 default-branch runs c0 … c59 of noisy_value, `after` more runs a0 … made by
// `later` after them, and the pull request.
Recorder history_with_later_runs(int after, double (*later)(int b, int t)) {
    Recorder recorder;
    for (int t = 0; t < 60; ++t)
        recorder.record("c" + std::to_string(t), "main", suite_at(t, noisy_value));
    for (int t = 0; t < after; ++t)
        recorder.record("a" + std::to_string(t), "main", suite_at(t, later));
    recorder.record("pr", "feature", head_suite());
    return recorder;
}

// noisy_value with a one-run jump of +80% every fifth run as well.
double wild(int b, int t) {
    return noisy_value(b, t) * ((t + b) % 5 == 0 ? 1.8 : 1.0);
}

double quiet(int, int) {
    return 1000.0;
}

TEST(Calibration, ReadsOnlyThePast) {
    // The same comparison against c59 with 30 quiet runs recorded after it, with 30 wild ones,
    // and with none: every verdict, threshold and the calibration itself are the same, with the
    // budget spent by one factor or shared by noise.
    for (const auto allocation : {BudgetAllocation::OneFactor, BudgetAllocation::ByNoise}) {
        SCOPED_TRACE(to_string(allocation));
        std::vector<model::Comparison> comparisons;
        const std::pair<int, double (*)(int, int)> variants[] = {
            {30, quiet}, {30, wild}, {0, quiet}};
        for (const auto& [after, later] : variants) {
            auto recorder = history_with_later_runs(after, later);
            auto options = recorder.options("pr");
            options.method = level_with_budget(1);
            options.method.settings<LevelSettings>().allocation = allocation;
            options.base = "c59";
            comparisons.push_back(compare(recorder.store, nullptr, options));
        }
        const auto& first = comparisons.front();
        EXPECT_EQ(first.calibration.source, model::CalibrationSource::Calibrated);
        EXPECT_EQ(first.calibration.pull_requests, 45);  // runs 10 … 54 of the 60
        EXPECT_EQ(first.calibration.thresholds_by_noise.empty(),
                  allocation == BudgetAllocation::OneFactor);
        ASSERT_EQ(first.benchmarks.size(), 8u);
        // One factor inside the range searched, not at its loosest end; shared by noise, the
        // thresholds come from the scores of the history read, which the wild runs would change.
        if (allocation == BudgetAllocation::OneFactor) {
            EXPECT_GT(first.calibration.sensitivity, 0.5);
        }
        for (const auto& other : comparisons) {
            EXPECT_EQ(other.calibration.sensitivity, first.calibration.sensitivity);
            EXPECT_EQ(other.calibration.flukes_per_pr, first.calibration.flukes_per_pr);
            EXPECT_EQ(other.calibration.thresholds_by_noise, first.calibration.thresholds_by_noise);
            EXPECT_EQ(other.method.settings<LevelSettings>().sensitivity,
                      first.calibration.sensitivity);
            ASSERT_EQ(other.benchmarks.size(), 8u);
            for (std::size_t i = 0; i < 8; ++i) {
                EXPECT_EQ(other.benchmarks[i].verdict, first.benchmarks[i].verdict);
                EXPECT_EQ(other.benchmarks[i].threshold, first.benchmarks[i].threshold);
                EXPECT_EQ(other.benchmarks[i].base, first.benchmarks[i].base);
            }
        }
        // And the comparison does judge: b0, 25% slower than a level near 1000, is flagged.
        EXPECT_EQ(first.benchmarks[0].name, "b0");
        EXPECT_EQ(first.benchmarks[0].verdict, model::Verdict::Slower);
    }
}

TEST(Calibration, LaterRunsOnTheBaselinesBranchDoCountOnceTheyPrecedeIt) {
    // The control for the test above: the wild runs, recorded before the baseline instead,
    // change the calibration, so that test could tell if they were read.
    for (const auto allocation : {BudgetAllocation::OneFactor, BudgetAllocation::ByNoise}) {
        SCOPED_TRACE(to_string(allocation));
        auto choice = level_with_budget(1);
        choice.settings<LevelSettings>().allocation = allocation;
        Recorder recorder;
        for (int t = 0; t < 60; ++t)
            recorder.record("c" + std::to_string(t), "main",
                            suite_at(t, t < 30 ? noisy_value : wild));
        recorder.record("pr", "feature", head_suite());
        auto options = recorder.options("pr");
        options.method = choice;
        options.base = "c59";
        const auto wild_past = compare(recorder.store, nullptr, options).calibration;

        auto calm = history_with_later_runs(0, quiet);
        auto calm_options = calm.options("pr");
        calm_options.method = choice;
        calm_options.base = "c59";
        const auto calm_past = compare(calm.store, nullptr, calm_options).calibration;
        EXPECT_TRUE(wild_past.sensitivity != calm_past.sensitivity ||
                    wild_past.thresholds_by_noise != calm_past.thresholds_by_noise);
    }
}

}  // namespace
}  // namespace benchwatch::compare
