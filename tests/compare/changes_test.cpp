// What could break: a step shown that does not last five runs a side, is no bigger than what the
// configured method would flag before it, or that the rank test does not back; a series that
// alternates between two levels, or spikes, shown with steps; a step of the whole suite listed
// once per benchmark, or a step of a few benchmarks taken for one of the suite; the dashboard's
// badge saying something else than a report on the latest commit would (the suite's move
// ignored, a step of the suite counted as the benchmark's own, an old step kept as news); or the
// trusted steps finding fewer than 9 in 10 of the generated steps they promise to show.
#include "compare/changes.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "compare/level_method.hpp"
#include "compare/method.hpp"
#include "compare/replay.hpp"
#include "compare/seed_method.hpp"
#include "ingest/github_action_benchmark.hpp"
#include "stats/noise_model.hpp"
#include "stats/rank_test.hpp"
#include "stats/stats.hpp"

namespace benchwatch::compare {
namespace {

namespace fs = std::filesystem;

std::unique_ptr<Method> level() {
    return make_level_method({});
}

const EnvironmentOf no_environment = [](const std::string&) { return model::Environment{}; };

// A history of commits c00, c01, … with one time benchmark per entry of `series`, each with a
// value at every commit.
model::History history_of(const std::map<std::string, std::vector<double>>& series) {
    model::History history;
    history.project = "p";
    history.machine = "m";
    history.order = model::HistoryOrder::Recorded;
    const std::size_t count = series.begin()->second.size();
    for (std::size_t i = 0; i < count; ++i) history.commits.push_back(fmt::format("c{:02}", i));
    history.runs = static_cast<int>(count);
    for (const auto& [name, values] : series) {
        model::BenchmarkHistory benchmark;
        benchmark.name = name;
        benchmark.commits = history.commits;
        benchmark.values = values;
        history.benchmarks.push_back(std::move(benchmark));
    }
    return history;
}

// 15 runs at 100 with one-run spikes to 110 at positions 7 and 11, as in level_method_test.cpp:
// the level method's noise is ln 1.1 and its threshold 1.5 × ln 1.1 = 0.1430.
std::vector<double> spiky_history() {
    std::vector<double> history(15, 100.0);
    history[7] = 110;
    history[11] = 110;
    return history;
}

TEST(DetectableLogChange, IsTheMethodsThresholdForAHeadAfterTheHistory) {
    const auto method = level();
    const auto history = spiky_history();
    EXPECT_NEAR(detectable_log_change(*method, history, 0.03, true), 1.5 * std::log(1.1), 1e-12);
    // The category minimum when it is larger; nothing for no history.
    EXPECT_NEAR(detectable_log_change(*method, history, 0.2, true), std::log(1.2), 1e-12);
    EXPECT_EQ(detectable_log_change(*method, {}, 0.03, true), 0);
    // The seed rule's: 3 × the median |ln ratio| of consecutive runs (0 here), at least ln 1.03.
    const auto seed = make_seed_method({});
    EXPECT_NEAR(detectable_log_change(*seed, history, 0.03, true), std::log(1.03), 1e-12);
}

// Values alternating between 41 and 48 with a small wobble, by `pattern` (L or H).
std::vector<double> two_levels(std::string_view pattern) {
    std::vector<double> values;
    for (std::size_t i = 0; i < pattern.size(); ++i)
        values.push_back((pattern[i] == 'L' ? 41.0 : 48.0) *
                         (1 + 0.005 * static_cast<double>(static_cast<int>((i * 7) % 5) - 2)));
    return values;
}

TEST(FindChanges, SeriesAlternatingBetweenTwoLevelsHasNoStep) {
    // Like Metal.jl's array/shared/copyto!/cpu_to_gpu: two levels 17% apart, mostly the lower
    // for 24 runs, then mostly the upper. The detector alone calls that a step at 23, ratio
    // ≈ 1.159 (the medians moved from one level to the other); but one run in four already
    // jumped by ln(48/41) = 0.158 before it, so the level method's threshold there is about
    // 1.5 × 0.158 (a detectable change near 27%): a report would flag no single run of it, and
    // no step is shown.
    const auto values = two_levels("LLLHLLLHLLLHLLLHLLLHLLLHHHHLHHHLHHHLHHHLHHHLHHHL");
    ASSERT_EQ(stats::change_points(values), std::vector<std::size_t>{23});
    const auto changes = find_changes(history_of({{"copy", values}}), no_environment, *level(), {});
    EXPECT_TRUE(changes.steps.empty());
    EXPECT_TRUE(changes.events.empty());
}

TEST(FindChanges, ACountedMetricsOnePercentStepIsAStepThoughTimesNeedTwo) {
    // Six counts of 2,000 instructions, then six of 2,020: the detector merges away moves under
    // 2% by default, which would hide every step the counted minimum of 0.2% exists to show. As
    // a time the same 1% is no step: the default minimum of 3% is above it.
    std::vector<double> values(6, 2000.0);
    values.insert(values.end(), 6, 2020.0);
    auto counted = history_of({{"parse", values}});
    counted.benchmarks[0].metric = "instructions";
    const auto changes =
        find_changes(counted, no_environment, *level(), model::default_categories());
    ASSERT_EQ(changes.steps.size(), 1u);
    EXPECT_EQ(changes.steps[0].after_commit, "c06");
    EXPECT_NEAR(changes.steps[0].ratio, 1.01, 1e-12);
    EXPECT_TRUE(find_changes(history_of({{"parse", values}}), no_environment, *level(),
                             model::default_categories())
                    .steps.empty());
}

TEST(FindChanges, SpikesAreNoSteps) {
    // Sixty runs at 100 and 101 with every seventh run twice as slow.
    std::vector<double> values;
    for (std::size_t i = 0; i < 60; ++i)
        values.push_back((i % 2 == 0 ? 100 : 101) * (i % 7 == 3 ? 2.0 : 1.0));
    const auto changes =
        find_changes(history_of({{"spiky", values}}), no_environment, *level(), {});
    EXPECT_TRUE(changes.steps.empty());
}

// A step of `benchmark` whose new level starts at `position`.
model::HistoryStep step_at(std::string benchmark, std::size_t position, double ratio) {
    model::HistoryStep step;
    step.benchmark = std::move(benchmark);
    step.position = position;
    step.ratio = ratio;
    return step;
}

model::HistoryChanges ten_commits() {
    model::HistoryChanges changes;
    for (int i = 0; i < 10; ++i) changes.commits.push_back(fmt::format("c{}", i));
    return changes;
}

TEST(GroupSuiteEvents, TenOfTwelveWithinOneCommitAreOneEvent) {
    // Ten benchmarks step at 5, 4 or 6 (slack 1); b09 also steps at 8, which stays its own, as
    // does lone's at 2. The event is at 5, where most stepped exactly: 10 of 12 measured.
    auto changes = ten_commits();
    for (int i = 0; i < 10; ++i)
        changes.steps.push_back(step_at(fmt::format("b{:02}", i),
                                        i == 0   ? 4
                                        : i == 1 ? 6
                                                 : 5,
                                        1.1 + 0.01 * i));
    changes.steps.push_back(step_at("b09", 8, 0.9));
    changes.steps.push_back(step_at("lone", 2, 1.5));
    group_suite_events(changes, [](std::size_t) { return 12; }, {});
    ASSERT_EQ(changes.events.size(), 1u);
    const auto& event = changes.events[0];
    EXPECT_EQ(event.position, 5u);
    EXPECT_EQ(event.before_commit, "c4");
    EXPECT_EQ(event.after_commit, "c5");
    EXPECT_EQ(event.benchmarks, 10);
    EXPECT_EQ(event.measured, 12);
    EXPECT_EQ(event.steps.size(), 10u);
    // Ratios 1.10 … 1.19: the median is (1.14 + 1.15) / 2.
    EXPECT_NEAR(event.median_ratio, 1.145, 1e-12);
    ASSERT_EQ(changes.steps.size(), 2u);
    EXPECT_EQ(changes.steps[0].benchmark, "b09");
    EXPECT_EQ(changes.steps[0].position, 8u);
    EXPECT_EQ(changes.steps[1].benchmark, "lone");
}

TEST(GroupSuiteEvents, FewerThanTenOrUnderHalfIsNoEvent) {
    auto nine = ten_commits();
    for (int i = 0; i < 9; ++i) nine.steps.push_back(step_at(fmt::format("b{}", i), 5, 1.2));
    group_suite_events(nine, [](std::size_t) { return 9; }, {});
    EXPECT_TRUE(nine.events.empty());
    EXPECT_EQ(nine.steps.size(), 9u);

    auto under_half = ten_commits();
    for (int i = 0; i < 10; ++i) under_half.steps.push_back(step_at(fmt::format("b{}", i), 5, 1.2));
    group_suite_events(under_half, [](std::size_t) { return 21; }, {});  // 10 < 21 / 2
    EXPECT_TRUE(under_half.events.empty());
    group_suite_events(under_half, [](std::size_t) { return 20; }, {});  // 10 ≥ 20 / 2
    EXPECT_EQ(under_half.events.size(), 1u);

    // Two commits apart, the slack of one lets the commit between them take both groups, and the
    // event is placed where the first five stepped (as many as the others, and earlier); three
    // apart, no commit lies within one of both, and five and five are too few.
    auto two_apart = ten_commits();
    for (int i = 0; i < 10; ++i)
        two_apart.steps.push_back(step_at(fmt::format("b{}", i), i < 5 ? 3 : 5, 1.2));
    group_suite_events(two_apart, [](std::size_t) { return 10; }, {});
    ASSERT_EQ(two_apart.events.size(), 1u);
    EXPECT_EQ(two_apart.events[0].position, 3u);
    EXPECT_EQ(two_apart.events[0].benchmarks, 10);
    auto apart = ten_commits();
    for (int i = 0; i < 10; ++i)
        apart.steps.push_back(step_at(fmt::format("b{}", i), i < 5 ? 2 : 5, 1.2));
    group_suite_events(apart, [](std::size_t) { return 10; }, {});
    EXPECT_TRUE(apart.events.empty());
}

// Twelve benchmarks on the spiky history with `latest` appended as each one's latest run. A third
// of them spike at runs 7 and 11, a third one run earlier, a third one run later: runs where the
// whole suite spiked at once would be a slow spell of the machine, left out of the noise.
model::History suite_with_latest(const std::vector<double>& latest) {
    std::map<std::string, std::vector<double>> series;
    for (std::size_t i = 0; i < latest.size(); ++i) {
        auto values = spiky_history();
        if (i % 3 != 0) {
            const std::size_t shift = i % 3 == 1 ? 6 : 8;
            std::fill(values.begin(), values.end(), 100.0);
            values[shift] = 110;
            values[shift + 4] = 110;
        }
        values.push_back(latest[i]);
        series[fmt::format("b{:02}", i)] = values;
    }
    return history_of(series);
}

TEST(Standings, TheLatestRunJudgedAsCompareWouldJudgeIt) {
    // b00's latest run is 150: ln 1.5 = 0.405 above its level 100, beyond 0.1430: regressed by
    // 150 / 100 − 1. The others' 100 is no move. One of twelve is no move of the suite.
    std::vector<double> latest(12, 100);
    latest[0] = 150;
    const auto history = suite_with_latest(latest);
    const auto method = level();
    const auto changes = find_changes(history, no_environment, *method, {});
    const auto result = standings(history, changes, *method, model::default_categories());
    ASSERT_EQ(result.size(), 12u);
    EXPECT_EQ(result[0].trend, model::Trend::Regressed);
    EXPECT_EQ(result[0].reason, model::TrendReason::LatestRun);
    EXPECT_NEAR(result[0].change, 0.5, 1e-12);
    EXPECT_NEAR(result[0].threshold, std::pow(1.1, 1.5) - 1, 1e-12);
    EXPECT_EQ(result[1].trend, model::Trend::Stable);
    EXPECT_EQ(result[1].reason, model::TrendReason::None);
    EXPECT_NEAR(result[1].change, 0, 1e-12);
    // A report would flag beyond the same threshold, learned from the 16 runs now: the spikes
    // at 7 and 11 still give the 0.9 quantile ln 1.1 (b01: the latest 100 adds a 0).
    ASSERT_TRUE(result[1].detectable_change);
    EXPECT_NEAR(*result[1].detectable_change, std::pow(1.1, 1.5) - 1, 1e-12);
}

TEST(Standings, AMoveOfTheWholeSuiteIsNoBenchmarksRegression) {
    // All twelve latest runs at 150: the suite moved as a whole, and each moved with it, so a
    // report on the latest commit flags none; neither does the badge.
    const auto history = suite_with_latest(std::vector<double>(12, 150));
    const auto method = level();
    const auto changes = find_changes(history, no_environment, *method, {});
    for (const auto& standing : standings(history, changes, *method, {})) {
        EXPECT_EQ(standing.trend, model::Trend::Stable);
        EXPECT_NEAR(standing.change, 0.5, 1e-12);
    }
}

TEST(Standings, ARecentStepOfItsOwnButNotOneOfTheSuite) {
    // "own" is 100 ×14 then 120 ×10: a trusted step 10 runs ago (worse), and its latest run is
    // on its new level (not flagged). Twelve others step at the same commit in another
    // history, as a suite event: no badge from it.
    std::vector<double> own(14, 100);
    own.insert(own.end(), 10, 120);
    const auto method = level();
    const auto alone = history_of({{"own", own}});
    const auto changes = find_changes(alone, no_environment, *method, {});
    ASSERT_EQ(changes.steps.size(), 1u);
    EXPECT_EQ(changes.steps[0].position, 14u);
    auto result = standings(alone, changes, *method, {});
    EXPECT_EQ(result[0].trend, model::Trend::Regressed);
    EXPECT_EQ(result[0].reason, model::TrendReason::RecentStep);
    EXPECT_NEAR(result[0].change, 0.2, 1e-12);
    // Ten commits ago is not within the last 10 (positions 14…23 are; 14 is the first).
    EXPECT_EQ(standings(alone, changes, *method, {}, 10)[0].trend, model::Trend::Regressed);
    EXPECT_EQ(standings(alone, changes, *method, {}, 9)[0].trend, model::Trend::Stable);

    std::map<std::string, std::vector<double>> suite;
    for (int i = 0; i < 12; ++i) suite[fmt::format("s{:02}", i)] = own;
    const auto together = history_of(suite);
    const auto suite_changes = find_changes(together, no_environment, *method, {});
    ASSERT_EQ(suite_changes.events.size(), 1u);
    EXPECT_TRUE(suite_changes.steps.empty());
    for (const auto& standing : standings(together, suite_changes, *method, {}))
        EXPECT_EQ(standing.trend, model::Trend::Stable);
}

// How many of `detected` lie within `margin` runs of a step in `truth`, each true step matched
// at most once (to the first detection near it), as in tests/stats/change_points_test.cpp.
std::size_t matched_steps(const std::vector<std::size_t>& detected,
                          const std::vector<std::size_t>& truth, std::size_t margin) {
    std::vector<bool> taken(truth.size(), false);
    std::size_t matched = 0;
    for (const std::size_t found : detected) {
        std::size_t best = truth.size();
        std::size_t best_distance = margin + 1;
        for (std::size_t i = 0; i < truth.size(); ++i) {
            const std::size_t distance = found > truth[i] ? found - truth[i] : truth[i] - found;
            if (!taken[i] && distance < best_distance) {
                best = i;
                best_distance = distance;
            }
        }
        if (best < truth.size()) {
            taken[best] = true;
            ++matched;
        }
    }
    return matched;
}

TEST(TrustedSteps, GeneratedStepsTheyPromiseToShowFoundWithF1AtLeast0_9WithinFiveRuns) {
    // The noise model's 200 series (seeds 1–200). The trusted steps show only steps bigger than
    // what the level method would flag where they happen, so the steps they promise are the
    // true steps bigger than the level method's detectable change learned from the runs before
    // them (3% minimum); the others, real but smaller than any report would flag, are scored
    // separately. A detection counts within 5 runs of a true step not matched yet.
    const auto method = level();
    constexpr std::size_t margin = 5;
    std::size_t detected = 0, truth = 0, promised = 0, matched = 0, matched_promised = 0;
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
        const auto series = stats::generate_series(seed);
        const std::span<const double> values(series.values);
        const auto detectable = [&](std::span<const double> before) {
            return detectable_log_change(*method, before, 0.03, true);
        };
        std::vector<std::size_t> found;
        for (const auto& step : stats::trusted_steps(values, detectable))
            found.push_back(step.step.index);
        std::vector<std::size_t> shown;
        for (std::size_t i = 0; i < series.steps.size(); ++i)
            if (std::abs(std::log(series.ratios[i])) > detectable(values.first(series.steps[i])))
                shown.push_back(series.steps[i]);
        detected += found.size();
        truth += series.steps.size();
        promised += shown.size();
        matched += matched_steps(found, series.steps, margin);
        matched_promised += matched_steps(found, shown, margin);
    }
    const auto ratio = [](std::size_t a, std::size_t b) {
        return static_cast<double>(a) / static_cast<double>(b);
    };
    const double precision = ratio(matched, detected);
    const double recall = ratio(matched_promised, promised);
    const double f1 = 2 * precision * recall / (precision + recall);
    const double recall_all = ratio(matched, truth);
    std::cout << "trusted steps on 200 generated series: " << detected << " shown, " << truth
              << " true steps of which " << promised << " beat the detectable change; precision "
              << precision << ", recall of those " << recall << ", F1 " << f1
              << "; recall of all true steps " << recall_all << ", F1 "
              << 2 * precision * recall_all / (precision + recall_all) << "\n";
    EXPECT_GE(f1, 0.9);
    EXPECT_GE(precision, 0.95);
}

fs::path shared_data() {
    const char* const found = std::getenv("BENCHWATCH_SHARED_DATA");
    return found != nullptr && *found != '\0' ? fs::path(found) : fs::path(BENCHWATCH_SHARED_DATA);
}

// Metal.jl's history as compare::history() reads it in recording order: one point per run.
model::History metal_history(const fs::path& file) {
    const auto imported = ingest::read_github_action_benchmark_history(file);
    model::History history;
    history.project = "metal";
    history.machine = "mac";
    history.order = model::HistoryOrder::Recorded;
    std::map<std::string, model::BenchmarkHistory> by_name;
    for (const auto& run : imported.suites.at(0).runs) {
        history.commits.push_back(run.commit);
        for (const auto& result : run.results) {
            auto& series = by_name[result.benchmark];
            series.name = result.benchmark;
            series.unit = result.unit;
            series.direction = result.direction;
            series.commits.push_back(run.commit);
            series.values.push_back(result.value);
        }
    }
    history.runs = static_cast<int>(history.commits.size());
    for (auto& [name, series] : by_name) history.benchmarks.push_back(std::move(series));
    std::sort(history.benchmarks.begin(), history.benchmarks.end(),
              [](const auto& a, const auto& b) { return model::name_less(a.name, b.name); });
    return history;
}

TEST(FindChanges, EveryStepShownOnMetalLastsBeatsItsDetectableChangeAndPassesTheRankTest) {
    const auto file = shared_data() / "metal-gh-pages-data.js";
    if (!fs::exists(file)) GTEST_SKIP() << file << " is absent (it lives outside the project)";
    const auto history = metal_history(file);
    ASSERT_EQ(history.commits.size(), 216u);
    ASSERT_EQ(std::set<std::string>(history.commits.begin(), history.commits.end()).size(), 216u);
    // The default method calibrated on the whole history, as `history --changes` judges it.
    const auto categories = model::default_categories();
    const auto method = make_method(calibrated_on(history, default_choice("level"), categories));
    const auto changes = find_changes(history, no_environment, *method, categories);

    // Every step shown, its own or a suite event's, by benchmark.
    std::map<std::string, std::vector<const model::HistoryStep*>> by_benchmark;
    std::size_t shown = 0;
    for (const auto& step : changes.steps) by_benchmark[step.benchmark].push_back(&step);
    for (const auto& event : changes.events)
        for (const auto& step : event.steps) by_benchmark[step.benchmark].push_back(&step);
    for (const auto& series : history.benchmarks) {
        auto& steps = by_benchmark[series.name];
        shown += steps.size();
        // Where each step's new level starts in the benchmark's own values (all positive here).
        std::vector<std::size_t> starts;
        for (const auto* step : steps) {
            const auto found =
                std::find(series.commits.begin(), series.commits.end(), step->after_commit);
            ASSERT_NE(found, series.commits.end());
            const auto index = static_cast<std::size_t>(found - series.commits.begin());
            ASSERT_GT(index, 0u);
            EXPECT_EQ(series.commits[index - 1], step->before_commit);
            starts.push_back(index);
        }
        std::vector<std::size_t> order(steps.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(),
                  [&](std::size_t a, std::size_t b) { return starts[a] < starts[b]; });
        const std::span<const double> values(series.values);
        for (std::size_t k = 0; k < order.size(); ++k) {
            const std::size_t start = starts[order[k]];
            const std::size_t begin = k == 0 ? 0 : starts[order[k - 1]];
            const std::size_t end = k + 1 == order.size() ? values.size() : starts[order[k + 1]];
            const auto before = values.subspan(begin, start - begin);
            const auto after = values.subspan(start, end - start);
            const auto& step = *steps[order[k]];
            const std::string what = series.name + " at " + step.after_commit;
            EXPECT_GE(before.size(), 5u) << what;
            EXPECT_GE(after.size(), 5u) << what;
            EXPECT_NEAR(step.ratio, stats::median(after) / stats::median(before), 1e-12) << what;
            // What the level method would flag after the runs before the step.
            BenchmarkEvidence evidence;
            evidence.history = values.first(start);
            evidence.base = evidence.head = values[start - 1];
            evidence.minimum_change =
                model::minimum_change_of(series.name, series.metric, categories);
            const double threshold = method->judge(std::vector{evidence}).benchmarks[0].threshold;
            EXPECT_GT(std::abs(std::log(step.ratio)), threshold) << what;
            const auto p = stats::mann_whitney_exact_p_value(
                before.last(std::min<std::size_t>(10, before.size())),
                after.first(std::min<std::size_t>(10, after.size())));
            EXPECT_LT(p, 0.01) << what;
        }
    }
    // The figures docs/JUDGEMENT.md gives: 162 steps (the detector alone: 496), 50 of them in
    // one suite event at d6ff4aaeb (50 of the 79 benchmarks measured there stepped, a median
    // 35.6% faster), 112 on their own.
    EXPECT_EQ(shown, 162u);
    EXPECT_EQ(changes.steps.size(), 112u);
    ASSERT_EQ(changes.events.size(), 1u);
    EXPECT_EQ(changes.events[0].after_commit.substr(0, 9), "d6ff4aaeb");
    EXPECT_EQ(changes.events[0].benchmarks, 50);
    EXPECT_EQ(changes.events[0].measured, 79);
    EXPECT_NEAR(changes.events[0].median_ratio - 1, -0.356, 0.0005);
    // The series that alternates between two levels after that event has no step of its own.
    EXPECT_EQ(by_benchmark["array/shared/copyto!/cpu_to_gpu"].size(), 1u);
}

}  // namespace
}  // namespace benchwatch::compare
