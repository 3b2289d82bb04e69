// What could break: a slow spell of the machine in the default branch's history (four runs in a
// row in which every benchmark ran 20-60% slower) making the level or the noise of the default
// method wrong, so that a pull request identical to its base is called faster, or a real
// slowdown is hidden; the spell not named in the comparison; runs recorded under load not left
// out; or the levels of a suite that always runs under load emptied.
#include <gtest/gtest.h>

#include <cmath>

#include "compare/compare.hpp"
#include "compare/level_method.hpp"
#include "recording.hpp"

namespace benchwatch::compare {
namespace {

using testing::Recorder;
using testing::timed;

constexpr int kBenchmarks = 8;

// A fixed wobble of ±2% per benchmark and run.
double wobble(int run, int benchmark) {
    return 1 + 0.02 * std::sin(1.7 * run + 2.3 * benchmark);
}

// The results of one run: benchmark b takes 1000 × (b + 1) ns, times the wobble and `slowdown`
// (one factor per benchmark), and benchmark 0 `change` more.
std::vector<model::Result> suite(int run, const std::vector<double>& slowdown, double change = 0) {
    std::vector<model::Result> results;
    for (int b = 0; b < kBenchmarks; ++b)
        results.push_back(
            timed("bench/" + std::to_string(b),
                  1000.0 * (b + 1) * wobble(run, b) * slowdown[b] * (b == 0 ? 1 + change : 1)));
    return results;
}

// A load that slows each benchmark differently: 20% to 60%.
const std::vector<double> kSpell = {1.45, 1.6, 1.2, 1.5, 1.3, 1.55, 1.25, 1.4};
const std::vector<double> kQuiet(kBenchmarks, 1.0);

// 20 default-branch runs, those from `spell_start` for 4 runs slowed by kSpell (or each recorded
// with a high-load warning when `warned`), and a pull request `pr` whose benchmark 0 is `change`
// slower.
Recorder history_with_a_spell(int spell_start, double change, bool slowed = true,
                              bool warned = false) {
    Recorder recorder;
    for (int run = 0; run < 20; ++run) {
        const bool in_spell = run >= spell_start && run < spell_start + 4;
        std::vector<model::Warning> warnings;
        if (in_spell && warned) warnings.push_back({"high-load", "the load average was 3.2"});
        recorder.record("main" + std::to_string(run), "main",
                        suite(run, in_spell && slowed ? kSpell : kQuiet, 0), {},
                        std::move(warnings));
    }
    recorder.record("pr", "feature", suite(20, kQuiet, change));
    return recorder;
}

model::Comparison compared(const Recorder& recorder) {
    auto options = recorder.options("pr");
    options.method = default_choice("level");
    return compare::compare(const_cast<Recorder&>(recorder).store, nullptr, options);
}

int flagged(const model::Comparison& comparison) {
    int count = 0;
    for (const auto& benchmark : comparison.benchmarks)
        count += model::flags_change(benchmark.verdict);
    return count;
}

TEST(SlowSpell, AnIdenticalPullRequestAfterASpellAtTheNewestRunsIsNotCalledFaster) {
    const auto comparison = compared(history_with_a_spell(16, 0));
    EXPECT_EQ(flagged(comparison), 0);
    EXPECT_EQ(comparison.left_out_runs,
              (std::vector<std::string>{"main19", "main18", "main17", "main16"}));
    EXPECT_TRUE(comparison.left_out_unsettled);
    // The median of the suite's median moves in the four runs: the kSpell factors' median is
    // 1.425, give or take the wobble.
    EXPECT_NEAR(comparison.left_out_move, 0.425, 0.03);
    for (const auto& benchmark : comparison.benchmarks)
        EXPECT_LT(std::abs(benchmark.change()), 0.04) << benchmark.name << " against its level";
}

TEST(SlowSpell, ARealSlowdownAfterTheSpellIsFlaggedAndNothingElse) {
    const auto comparison = compared(history_with_a_spell(16, 0.3));
    ASSERT_EQ(flagged(comparison), 1);
    EXPECT_EQ(comparison.benchmarks[0].name, "bench/0");
    EXPECT_EQ(comparison.benchmarks[0].verdict, model::Verdict::Slower);
}

TEST(SlowSpell, ASpellInTheMiddleIsLeftOutOfTheNoise) {
    const auto comparison = compared(history_with_a_spell(8, 0.3));
    EXPECT_EQ(comparison.left_out_runs,
              (std::vector<std::string>{"main11", "main10", "main9", "main8"}));
    EXPECT_FALSE(comparison.left_out_unsettled);
    ASSERT_EQ(flagged(comparison), 1);
    EXPECT_EQ(comparison.benchmarks[0].verdict, model::Verdict::Slower);
    // Without the spell, every benchmark's noise is its ±2% wobble: a 30% change is far beyond.
    for (const auto& benchmark : comparison.benchmarks)
        EXPECT_LT(benchmark.detectable_change, 0.1) << benchmark.name;
}

TEST(SlowSpell, RunsRecordedUnderLoadAreLeftOutEvenWhenTheyDidNotMove) {
    const auto comparison = compared(history_with_a_spell(8, 0, /*slowed=*/false, /*warned=*/true));
    EXPECT_EQ(comparison.left_out_runs,
              (std::vector<std::string>{"main11", "main10", "main9", "main8"}));
    EXPECT_EQ(comparison.left_out_move, 0) << "none of them moved";
    EXPECT_EQ(flagged(comparison), 0);
}

TEST(SlowSpell, AMachineAlwaysUnderLoadKeepsItsRuns) {
    Recorder recorder;
    for (int run = 0; run < 20; ++run)
        recorder.record("main" + std::to_string(run), "main", suite(run, kQuiet), {},
                        {{"high-load", "the load average was 3.2"}});
    recorder.record("pr", "feature", suite(20, kQuiet, 0.3));
    const auto comparison = compared(recorder);
    EXPECT_TRUE(comparison.left_out_runs.empty());
    EXPECT_EQ(comparison.benchmarks[0].verdict, model::Verdict::Slower);
}

// 20 quiet default-branch runs, then a pull request recorded under load whose benchmark 0 is
// `change` slower.
Recorder pull_request_under_load(double change, bool history_under_load = false) {
    Recorder recorder;
    const std::vector<model::Warning> load = {{"high-load", "Other work kept 1.9 of 2 cores busy"}};
    for (int run = 0; run < 20; ++run)
        recorder.record("main" + std::to_string(run), "main", suite(run, kQuiet), {},
                        history_under_load ? load : std::vector<model::Warning>{});
    recorder.record("pr", "feature", suite(20, kQuiet, change), {}, load);
    return recorder;
}

TEST(SlowSpell, APullRequestRunUnderLoadCannotShowASlowdown) {
    const auto slower = compared(pull_request_under_load(0.3));
    EXPECT_TRUE(slower.head_under_load);
    EXPECT_EQ(slower.benchmarks[0].verdict, model::Verdict::Inconclusive);
    EXPECT_EQ(slower.summaries[0].slower, 0) << "the summary counts the settled verdicts";
    // Load only slows a run down: a speed-up measured under it still holds.
    const auto faster = compared(pull_request_under_load(-0.3));
    EXPECT_TRUE(faster.head_under_load);
    EXPECT_EQ(faster.benchmarks[0].verdict, model::Verdict::Faster);
}

TEST(SlowSpell, OnAMachineAlwaysUnderLoadAPullRequestUnderLoadIsJudgedAsUsual) {
    const auto comparison = compared(pull_request_under_load(0.3, /*history_under_load=*/true));
    EXPECT_FALSE(comparison.head_under_load);
    EXPECT_EQ(comparison.benchmarks[0].verdict, model::Verdict::Slower);
}

TEST(SlowSpell, ACommitMeasuredAgainWithoutLoadIsKept) {
    auto recorder = history_with_a_spell(8, 0, /*slowed=*/false, /*warned=*/true);
    recorder.record("main9", "main", suite(9, kQuiet));
    EXPECT_EQ(compared(recorder).left_out_runs,
              (std::vector<std::string>{"main11", "main10", "main8"}));
}

TEST(SlowSpell, DisturbedCommitsAreThoseAComparisonLeavesOutUntilTheyAreMeasuredAgain) {
    auto recorder = history_with_a_spell(8, 0);
    std::vector<std::string> commits;
    for (int run = 0; run < 20; ++run) commits.push_back("main" + std::to_string(run));
    const auto& categories = model::default_categories();
    EXPECT_EQ(disturbed_commits(recorder.store, "p", "m", commits, categories),
              (std::vector<std::string>{"main8", "main9", "main10", "main11"}));
    // A commit's runs are combined by each benchmark's best value, so a run at the usual speed
    // settles it.
    for (int run = 8; run < 12; ++run)
        recorder.record("main" + std::to_string(run), "main", suite(run, kQuiet));
    EXPECT_TRUE(disturbed_commits(recorder.store, "p", "m", commits, categories).empty());
    EXPECT_TRUE(compared(recorder).left_out_runs.empty());
    // Commits with no run, or outside the list, are not looked at.
    EXPECT_TRUE(
        disturbed_commits(recorder.store, "p", "m", std::vector<std::string>{"nowhere"}, categories)
            .empty());
}

TEST(SlowSpell, AQuietHistoryLeavesNothingOut) {
    const auto comparison = compared(history_with_a_spell(8, 0, /*slowed=*/false));
    EXPECT_TRUE(comparison.left_out_runs.empty());
    EXPECT_FALSE(comparison.left_out_unsettled);
    EXPECT_EQ(flagged(comparison), 0);
}

}  // namespace
}  // namespace benchwatch::compare
