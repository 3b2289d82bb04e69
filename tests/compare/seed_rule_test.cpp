// What could break: reruns combined the wrong way, bigger-is-better metrics judged backwards,
// noise learned from more than the last 30 pairs or in the wrong order, benchmarks filed in the
// wrong category or row, summaries that do not match their rows, or unhelpful error messages.
#include <gtest/gtest.h>

#include <cmath>

#include "compare/compare.hpp"
#include "compare/level_method.hpp"
#include "compare/method.hpp"
#include "compare/seed_method.hpp"
#include "recording.hpp"

namespace benchwatch::compare {
namespace {

using testing::Recorder;
using testing::throughput;
using testing::timed;

std::string compare_error(Recorder& recorder, const CompareOptions& options) {
    try {
        compare(recorder.store, nullptr, options);
    } catch (const CompareError& error) {
        return error.what();
    }
    return "no error";
}

const model::BenchmarkComparison& find(const model::Comparison& comparison,
                                       const std::string& name) {
    for (const auto& benchmark : comparison.benchmarks)
        if (benchmark.name == name) return benchmark;
    throw std::out_of_range(name);
}

TEST(RecordedOrder, BaselineIsTheLatestDefaultBranchRunAndHistoryFollowsRecording) {
    Recorder recorder;
    // Recorded c, a, b: commit ids out of alphabetical order on purpose.
    recorder.record_a("c", "main", 100);
    recorder.record_a("a", "main", 110);
    recorder.record_a("b", "main", 121);
    recorder.record_a("pr", "feature", 170);
    recorder.record_a("other-pr", "feature2", 5000);  // not the default branch: no history
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));

    EXPECT_EQ(comparison.baseline.kind, model::BaselineKind::LatestOnDefaultBranch);
    EXPECT_EQ(comparison.baseline.commit, "b");
    EXPECT_EQ(comparison.history_order, model::HistoryOrder::Recorded);
    EXPECT_EQ(comparison.history_runs, 3);
    const auto& a = find(comparison, "a");
    // Series 100, 110, 121: typical ln 1.1 = 0.09531, threshold 3 × that = 0.28593;
    // |ln(170/121)| = 0.33997 exceeds it.
    EXPECT_DOUBLE_EQ(a.typical_change, std::log(1.1));
    EXPECT_DOUBLE_EQ(a.threshold, 3 * std::log(1.1));
    EXPECT_EQ(a.verdict, model::Verdict::Slower);
}

TEST(RecordedOrder, AnExplicitBaseEndsTheHistory) {
    Recorder recorder;
    recorder.record_a("c1", "main", 100);
    recorder.record_a("c2", "main", 200);
    recorder.record_a("c3", "main", 400);
    recorder.record_a("pr", "feature", 200);
    auto options = recorder.options("pr");
    options.base = "c2";
    const auto comparison = compare(recorder.store, nullptr, options);

    EXPECT_EQ(comparison.baseline.kind, model::BaselineKind::Explicit);
    EXPECT_EQ(comparison.baseline.commit, "c2");
    EXPECT_EQ(comparison.history_runs, 2);  // c1 and c2; c3 came after the baseline
    EXPECT_DOUBLE_EQ(comparison.benchmarks[0].typical_change, std::log(2.0));
}

TEST(RecordedOrder, OnlyTheLastThirtyPairsCount) {
    Recorder recorder;
    // Runs 0..40 alternate 100, 200 (40 pairs of ln 2), runs 41..70 alternate 101, 100 (30
    // pairs of ln 1.01, the first being 100 → 101). Over all 70 pairs the median would be ln 2.
    for (int i = 0; i <= 70; ++i) {
        const double value = i <= 40 ? (i % 2 == 0 ? 100 : 200) : (i % 2 == 0 ? 100 : 101);
        recorder.record_a("main" + std::to_string(i), "main", value);
    }
    recorder.record_a("pr", "feature", 104);
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));

    ASSERT_EQ(comparison.baseline.commit, "main70");
    const auto& a = find(comparison, "a");
    EXPECT_EQ(a.history_pairs, 30);
    EXPECT_EQ(comparison.history_runs, 31);
    EXPECT_DOUBLE_EQ(a.typical_change, std::log(1.01));
    // Threshold max(3 × ln 1.01 = 0.02985, ln 1.03 = 0.02956) = 0.02985 < ln 1.04 = 0.03922.
    EXPECT_DOUBLE_EQ(a.threshold, 3 * std::log(1.01));
    EXPECT_EQ(a.verdict, model::Verdict::Slower);
    // Head, baseline and the history read newest first: never the whole 71 runs.
    EXPECT_LT(recorder.store.runs_read(), 72);
}

TEST(RecordedOrder, PairsSettingLimitsTheHistory) {
    Recorder recorder;
    recorder.record_a("c1", "main", 100);
    recorder.record_a("c2", "main", 200);
    recorder.record_a("c3", "main", 202);
    recorder.record_a("pr", "feature", 202);
    auto options = recorder.options("pr");
    options.method.settings<SeedSettings>().pairs = 1;
    const auto comparison = compare(recorder.store, nullptr, options);
    // Only the pair c2 → c3: ln(202/200) = ln 1.01.
    EXPECT_DOUBLE_EQ(comparison.benchmarks[0].typical_change, std::log(1.01));
    EXPECT_EQ(comparison.benchmarks[0].history_pairs, 1);
    EXPECT_EQ(comparison.history_runs, 2);
}

TEST(Reruns, CombinedByTheirMinimumWithTheLatestEnvironment) {
    Recorder recorder;
    recorder.record("base", "main", {timed("a", 100)}, {{"julia", "1.10"}});
    recorder.record("base", "main", {timed("a", 105)}, {{"julia", "1.10"}});
    recorder.record("pr", "feature", {timed("a", 130)}, {{"julia", "1.10"}});
    auto fastest = timed("a", 120);
    fastest.allocations = 7;
    recorder.record("pr", "feature", {fastest}, {{"julia", "1.10"}});
    recorder.record("pr", "feature", {timed("a", 125)}, {{"julia", "1.11"}});
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));

    const auto& a = find(comparison, "a");
    EXPECT_EQ(a.base, 100);
    EXPECT_EQ(a.head, 120);
    EXPECT_EQ(a.head_allocations, 7);       // the best attempt's result is kept whole
    EXPECT_EQ(comparison.history_runs, 1);  // base's two runs are one history point
    EXPECT_EQ(comparison.environment_changes,
              (std::vector<model::EnvironmentChange>{{"julia", "1.10", "1.11"}}));
}

TEST(Reruns, HistoryPointsAreCombinedToo) {
    Recorder recorder;
    recorder.record_a("c1", "main", 100);
    recorder.record_a("c2", "main", 150);
    recorder.record_a("c2", "main", 110);  // a rerun: c2's point is 110
    recorder.record_a("pr", "feature", 110);
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));
    EXPECT_EQ(comparison.baseline.commit, "c2");
    EXPECT_EQ(comparison.benchmarks[0].base, 110);
    EXPECT_DOUBLE_EQ(comparison.benchmarks[0].typical_change, std::log(1.1));
}

TEST(Direction, BiggerIsBetterIsJudgedAndCombinedByItsMaximum) {
    Recorder recorder;
    recorder.record("base", "main", {throughput("rate", 950)});
    recorder.record("base", "main", {throughput("rate", 1000)});
    recorder.record("pr", "feature", {throughput("rate", 800)});
    recorder.record("pr2", "feature", {throughput("rate", 1250)});

    const auto slower = compare(recorder.store, nullptr, recorder.options("pr"));
    const auto& rate = find(slower, "rate");
    EXPECT_EQ(rate.metric, "throughput");
    EXPECT_EQ(rate.unit, "items/s");
    EXPECT_EQ(rate.direction, model::Direction::BiggerIsBetter);
    EXPECT_EQ(rate.base, 1000);
    // No history: threshold ln 1.03; |ln 0.8| = 0.223 exceeds it, and less throughput is worse.
    EXPECT_EQ(rate.verdict, model::Verdict::Slower);
    // The summary counts a throughput drop as a slowdown: 1000 / 800 − 1 = +25%.
    EXPECT_DOUBLE_EQ(slower.summaries[0].geometric_mean_change, 1000.0 / 800.0 - 1.0);

    const auto faster = compare(recorder.store, nullptr, recorder.options("pr2"));
    EXPECT_EQ(find(faster, "rate").verdict, model::Verdict::Faster);
}

TEST(Direction, TwoMetricsOfOneBenchmarkAreTwoRowsNamedByMetric) {
    Recorder recorder;
    recorder.record("base", "main", {timed("copy", 100), throughput("copy", 1000)});
    recorder.record("pr", "feature", {timed("copy", 125), throughput("copy", 800)});
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));
    ASSERT_EQ(comparison.benchmarks.size(), 2u);
    std::vector<std::pair<std::string, model::Verdict>> rows;
    for (const auto& benchmark : comparison.benchmarks)
        rows.emplace_back(benchmark.display_name, benchmark.verdict);
    // 25% more time and 20% less throughput: both worse, both past ln 1.03.
    EXPECT_EQ(rows, (std::vector<std::pair<std::string, model::Verdict>>{
                        {"copy", model::Verdict::Slower},
                        {"copy (throughput)", model::Verdict::Slower}}));
    // Both are 25% worse: 125/100 and 1000/800; they add up rather than cancel out.
    EXPECT_DOUBLE_EQ(comparison.summaries[0].geometric_mean_change, 0.25);
}

TEST(Categories, RowsAreFiledByPrefixAndSortedByDisplayName) {
    Recorder recorder;
    const std::vector<std::string> names{"other/z",          "latency/ttfp", "integration/foo",
                                         "applications/bar", "array/copy",   "Array/alpha",
                                         "latency/import"};
    std::vector<model::Result> results;
    for (const auto& name : names) results.push_back(timed(name, 100));
    recorder.record("base", "main", results);
    recorder.record("pr", "feature", results);
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));

    std::vector<std::pair<std::size_t, std::string>> rows;
    for (const auto& benchmark : comparison.benchmarks)
        rows.emplace_back(benchmark.category, benchmark.display_name);
    EXPECT_EQ(rows, (std::vector<std::pair<std::size_t, std::string>>{{0, "Array/alpha"},
                                                                      {0, "array/copy"},
                                                                      {1, "import"},
                                                                      {1, "ttfp"},
                                                                      {2, "bar"},
                                                                      {2, "foo"},
                                                                      {3, "z"}}));
    EXPECT_EQ(comparison.categories, model::default_categories());
    EXPECT_EQ(comparison.summaries[2].compared, 2);
}

TEST(Categories, ConfigurationWithoutCatchAllGetsOne) {
    Recorder recorder;
    recorder.record("base", "main", {timed("gpu/x", 100), timed("cpu/y", 100)});
    recorder.record("pr", "feature", {timed("gpu/x", 100), timed("cpu/y", 100)});
    auto options = recorder.options("pr");
    options.categories = {{"GPU", {"gpu/"}, 0.1}};
    const auto comparison = compare(recorder.store, nullptr, options);

    ASSERT_EQ(comparison.categories.size(), 2u);
    EXPECT_EQ(comparison.categories[1], (model::Category{"Performance", {}, 0.03}));
    EXPECT_EQ(find(comparison, "cpu/y").category, 1u);
    EXPECT_EQ(find(comparison, "gpu/x").display_name, "x");
    EXPECT_EQ(comparison.summaries.size(), 2u);
}

TEST(Categories, MinimumChangeOfTheCategoryApplies) {
    Recorder recorder;
    recorder.record("base", "main", {timed("latency/l", 100), timed("p", 100)});
    recorder.record("pr", "feature", {timed("latency/l", 104), timed("p", 104)});
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));
    // ln 1.04 = 0.0392: above Performance's ln 1.03 = 0.0296, below Latency's ln 1.05 = 0.0488.
    EXPECT_EQ(find(comparison, "p").verdict, model::Verdict::Slower);
    EXPECT_EQ(find(comparison, "latency/l").verdict, model::Verdict::Unchanged);
    EXPECT_NEAR(find(comparison, "latency/l").threshold, std::log(1.05), 1e-12);
}

TEST(Summaries, GeometricMeanAndCountsPerCategory) {
    Recorder recorder;
    recorder.record("base", "main",
                    {timed("a", 100), timed("b", 100), timed("c", 100), timed("latency/l", 100)});
    recorder.record("pr", "feature",
                    {timed("a", 200), timed("b", 50), timed("c", 121), timed("latency/l", 110)});
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));

    ASSERT_EQ(comparison.summaries.size(), 4u);
    const auto& performance = comparison.summaries[0];
    // (2 × 0.5 × 1.21)^(1/3) − 1 = 1.21^(1/3) − 1 = 0.06560.
    EXPECT_DOUBLE_EQ(performance.geometric_mean_change, std::cbrt(1.21) - 1.0);
    EXPECT_EQ(performance.slower, 2);  // a (ln 2) and c (ln 1.21) exceed ln 1.03
    EXPECT_EQ(performance.faster, 1);  // b
    EXPECT_EQ(performance.compared, 3);
    const auto& latency = comparison.summaries[1];
    EXPECT_NEAR(latency.geometric_mean_change, 0.1, 1e-12);
    EXPECT_EQ(latency.slower, 1);  // ln 1.1 = 0.0953 > ln 1.05 = 0.0488
    EXPECT_EQ(latency.compared, 1);
    EXPECT_EQ(comparison.summaries[2].compared, 0);
    EXPECT_EQ(comparison.summaries[2].geometric_mean_change, 0.0);
}

TEST(Allocations, StartingOrStoppingIsUnusualButNeitherSlowerNorFaster) {
    auto allocating = [](std::string name, double count) {
        auto result = timed(std::move(name), 100);
        result.allocations = count;
        return result;
    };
    Recorder recorder;
    recorder.record("base", "main",
                    {allocating("starts", 0), allocating("stops", 2), allocating("more", 1),
                     timed("unknown", 100)});
    recorder.record("pr", "feature",
                    {allocating("starts", 3), allocating("stops", 0), allocating("more", 5),
                     allocating("unknown", 0)});
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));

    EXPECT_EQ(find(comparison, "starts").allocation_change, model::AllocationChange::Starts);
    EXPECT_EQ(find(comparison, "starts").head_allocations, 3);
    EXPECT_EQ(find(comparison, "stops").allocation_change, model::AllocationChange::Stops);
    EXPECT_EQ(find(comparison, "more").allocation_change, model::AllocationChange::None);
    EXPECT_EQ(find(comparison, "unknown").allocation_change, model::AllocationChange::None);
    EXPECT_TRUE(find(comparison, "starts").unusual());
    EXPECT_EQ(comparison.summaries[0].slower, 0);
    EXPECT_EQ(comparison.summaries[0].faster, 0);
}

TEST(AddedAndRemoved, ListedByNameAndNotCompared) {
    Recorder recorder;
    recorder.record("base", "main", {timed("kept", 1), timed("zeta", 1), timed("Gone", 1)});
    recorder.record("pr", "feature", {timed("kept", 1), timed("new", 1), timed("Another", 1)});
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));

    ASSERT_EQ(comparison.benchmarks.size(), 1u);
    ASSERT_EQ(comparison.added.size(), 2u);
    EXPECT_EQ(comparison.added[0].benchmark, "Another");
    EXPECT_EQ(comparison.added[1].benchmark, "new");
    ASSERT_EQ(comparison.removed.size(), 2u);
    EXPECT_EQ(comparison.removed[0].benchmark, "Gone");
    EXPECT_EQ(comparison.removed[1].benchmark, "zeta");
    EXPECT_EQ(comparison.summaries[0].compared, 1);
}

TEST(Environment, ChangedKeysInKeyOrderAndAKeyOnOneSideOnlyIsNoChange) {
    Recorder recorder;
    recorder.record("base", "main", {timed("a", 1)},
                    {{"A", "1"}, {"B", "2"}, {"C", "3"}, {"Z", "old"}});
    recorder.record("pr", "feature", {timed("a", 1)},
                    {{"A", "1"}, {"B", "5"}, {"D", "4"}, {"Z", "new"}});
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));
    EXPECT_EQ(comparison.environment_changes, (std::vector<model::EnvironmentChange>{
                                                  {"B", "2", "5"},
                                                  {"Z", "old", "new"},
                                              }));
}

TEST(Environment, ToolchainsDifferOnlyByTheVersionsTheyName) {
    Recorder recorder;
    // The base was stored with the banner line older versions kept; the head with the version.
    recorder.record("base", "main", {timed("a", 1)},
                    {{"compiler.g++", "g++ (Debian 12.2.0-14) 12.2.0"},
                     {"compiler.go", "go version go1.19.8 linux/amd64"}});
    recorder.record("pr", "feature", {timed("a", 1)},
                    {{"compiler.g++", "12.2.0"}, {"compiler.go", "1.21.3"}});
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));
    EXPECT_EQ(comparison.environment_changes, (std::vector<model::EnvironmentChange>{
                                                  {"compiler.go", "1.19.8", "1.21.3"},
                                              }));
}

TEST(Fields, CopiedFromTheOptions) {
    Recorder recorder;
    recorder.record_a("base", "main", 1);
    recorder.record_a("0123456789abcdef", "feature", 1);
    auto options = recorder.options("0123456");
    options.history_url = "https://example.org/perf";
    options.method.settings<SeedSettings>() = {2.5, 10};
    const auto comparison = compare(recorder.store, nullptr, options);
    EXPECT_EQ(comparison.project, "p");
    EXPECT_EQ(comparison.machine, "m");
    EXPECT_EQ(comparison.head_commit, "0123456789abcdef");  // found by its unique prefix
    EXPECT_EQ(comparison.method.name(), "seed");
    EXPECT_EQ(comparison.method.settings<SeedSettings>().factor, 2.5);
    EXPECT_EQ(comparison.method.settings<SeedSettings>().pairs, 10);
    EXPECT_EQ(comparison.calibration.source, model::CalibrationSource::Fixed);
    EXPECT_EQ(comparison.history_url, "https://example.org/perf");
}

TEST(Fields, TheDefaultMethodIsLevelWithItsSettings) {
    Recorder recorder;
    recorder.record_a("base", "main", 1);
    recorder.record_a("head", "feature", 1);
    compare::CompareOptions options;
    options.source.project = "p";
    options.source.machine = "m";
    options.head = "head";
    options.method.settings<LevelSettings>().sensitivity = 2.5;
    options.method.settings<LevelSettings>().false_alarms_per_pr = std::nullopt;
    const auto comparison = compare(recorder.store, nullptr, options);
    EXPECT_EQ(comparison.method.name(), "level");
    EXPECT_EQ(comparison.method.settings<LevelSettings>().sensitivity, 2.5);
    EXPECT_EQ(comparison.calibration.source, model::CalibrationSource::Fixed);
}

TEST(Errors, HeadWithoutRun) {
    Recorder recorder;
    recorder.record_a("base", "main", 1);
    EXPECT_EQ(compare_error(recorder, recorder.options("abc1234")),
              "no run of commit abc1234 for project 'p' on machine 'm'; record one with "
              "`benchwatch record --commit abc1234` first");
}

TEST(Errors, ShortPrefixesDoNotMatch) {
    Recorder recorder;
    recorder.record_a("abcdef0123", "main", 1);
    EXPECT_EQ(compare_error(recorder, recorder.options("abcdef")),
              "no run of commit abcdef for project 'p' on machine 'm'; record one with "
              "`benchwatch record --commit abcdef` first");
}

TEST(Errors, AmbiguousPrefix) {
    Recorder recorder;
    recorder.record_a("abcdef01", "main", 1);
    recorder.record_a("abcdef02", "main", 1);
    EXPECT_EQ(compare_error(recorder, recorder.options("abcdef0")),
              "commit prefix 'abcdef0' matches 2 recorded commits of project 'p' on machine 'm' "
              "(abcdef01, abcdef02…); give more digits");
}

TEST(Errors, RunsOfOtherMachinesDoNotCount) {
    Recorder recorder;
    recorder.record_a("pr", "feature", 1);
    auto options = recorder.options("pr");
    options.source.machine = "elsewhere";
    EXPECT_EQ(compare_error(recorder, options),
              "no run of commit pr for project 'p' on machine 'elsewhere'; record one with "
              "`benchwatch record --commit pr` first");
}

TEST(Errors, UnknownMethod) {
    try {
        compare::default_choice("magic");
        FAIL() << "no error";
    } catch (const compare::CompareError& error) {
        EXPECT_STREQ(error.what(), "unknown method 'magic'; available: seed, level, samples");
    }
}

TEST(NoBaseline, WithoutDefaultBranchRuns) {
    Recorder recorder;
    recorder.record("pr", "feature", {timed("a", 1)});
    recorder.record("main-elsewhere", "trunk", {timed("a", 1)});
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));
    EXPECT_EQ(comparison.baseline.kind, model::BaselineKind::None);
    ASSERT_EQ(comparison.head_only_results.size(), 1u);
    EXPECT_TRUE(comparison.benchmarks.empty());
}

}  // namespace
}  // namespace benchwatch::compare
