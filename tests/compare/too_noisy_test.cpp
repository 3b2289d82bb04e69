// What could break: a benchmark that could flag only huge changes reported as unchanged (the
// bound misplaced, or compared the wrong way), a flagged or inconclusive one relabelled, the
// summary not counting too noisy ones, or the seed rule's reports gaining a verdict they never
// had.
#include <gtest/gtest.h>

#include <cmath>

#include "compare/compare.hpp"
#include "compare/level_method.hpp"
#include "compare/method.hpp"
#include "recording.hpp"

namespace benchwatch::compare {
namespace {

using testing::Recorder;
using testing::timed;

TEST(TooNoisy, BeyondBothTenTimesTheMinimumAndAQuarter) {
    // A 3% category: ten times is 30%, above the 25% floor.
    EXPECT_TRUE(too_noisy(0.31, 0.03));
    EXPECT_FALSE(too_noisy(0.30, 0.03));
    EXPECT_FALSE(too_noisy(0.29, 0.03));
    // A 1% category: ten times is 10%, so the floor decides.
    EXPECT_FALSE(too_noisy(0.2, 0.01));
    EXPECT_FALSE(too_noisy(0.25, 0.01));
    EXPECT_TRUE(too_noisy(0.26, 0.01));
    // A 5% category (latency): 50%.
    EXPECT_FALSE(too_noisy(0.5, 0.05));
    EXPECT_TRUE(too_noisy(0.51, 0.05));
    // No minimum at all: only the floor.
    EXPECT_TRUE(too_noisy(0.26, 0));
}

// 15 default-branch runs; "noisy" and "flagged" spike to 200 at runs 7 and 11 and are 100
// otherwise, "quiet" is 100 throughout. For the level method the spikes are one-run deviations
// of ln 2 among ten, their 0.9 quantile is ln 2, and the threshold 1.5 × ln 2 is a detectable
// change of 2^1.5 − 1 = 182.8%, far beyond 30%; "quiet" has no noise, so its category's 3% is
// its detectable change.
Recorder noisy_history() {
    Recorder recorder;
    for (int run = 0; run < 15; ++run) {
        // The two noisy benchmarks spike in different runs: a run where most of the suite
        // doubled would be a slow spell of the machine, left out of the noise.
        const double spiky = run == 7 || run == 11 ? 200 : 100;
        const double other_spiky = run == 5 || run == 9 ? 200 : 100;
        recorder.record(
            "main" + std::to_string(run), "main",
            {timed("flagged", spiky), timed("noisy", other_spiky), timed("quiet", 100)});
    }
    // +50% is within the noise's 182.8%; +300% (ln 4 = 1.386 > 1.040) is beyond it.
    recorder.record("pr", "feature",
                    {timed("flagged", 400), timed("noisy", 150), timed("quiet", 101)});
    return recorder;
}

const model::BenchmarkComparison& find(const model::Comparison& comparison,
                                       const std::string& name) {
    for (const auto& benchmark : comparison.benchmarks)
        if (benchmark.name == name) return benchmark;
    throw std::out_of_range(name);
}

TEST(TooNoisy, TheLevelMethodCallsAnUnflaggedNoisyBenchmarkTooNoisy) {
    auto recorder = noisy_history();
    auto options = recorder.options("pr");
    options.method = default_choice("level");
    options.method.settings<LevelSettings>().false_alarms_per_pr =
        std::nullopt;  // the sensitivity 1.5 as set
    const auto comparison = compare(recorder.store, nullptr, options);

    const auto& noisy = find(comparison, "noisy");
    EXPECT_NEAR(noisy.detectable_change, std::pow(2.0, 1.5) - 1, 1e-12);
    EXPECT_EQ(noisy.verdict, model::Verdict::TooNoisy);
    // As noisy, but beyond its threshold: a flagged change stays flagged.
    EXPECT_EQ(find(comparison, "flagged").verdict, model::Verdict::Slower);
    EXPECT_NEAR(find(comparison, "quiet").detectable_change, 0.03, 1e-12);
    EXPECT_EQ(find(comparison, "quiet").verdict, model::Verdict::Unchanged);

    const auto& summary = comparison.summaries[0];
    EXPECT_EQ(summary.too_noisy, 1);
    EXPECT_EQ(summary.slower, 1);
    EXPECT_EQ(summary.compared, 3);
}

TEST(TooNoisy, AnInconclusiveBenchmarkKeepsItsOwnReason) {
    // Two runs of history, the second twice the first: the short history's threshold is
    // 2 × ln 2, a detectable change of 300%, yet the verdict stays inconclusive.
    Recorder recorder;
    recorder.record_a("m1", "main", 100);
    recorder.record_a("m2", "main", 200);
    recorder.record_a("pr", "feature", 210);
    auto options = recorder.options("pr");
    options.method = default_choice("level");
    options.method.settings<LevelSettings>().false_alarms_per_pr =
        std::nullopt;  // the sensitivity 1.5 as set
    const auto comparison = compare(recorder.store, nullptr, options);
    ASSERT_EQ(comparison.benchmarks.size(), 1u);
    EXPECT_NEAR(comparison.benchmarks[0].detectable_change, 3, 1e-12);
    EXPECT_EQ(comparison.benchmarks[0].verdict, model::Verdict::Inconclusive);
    EXPECT_EQ(comparison.summaries[0].too_noisy, 0);
}

TEST(TooNoisy, TheSeedRuleNeverCallsABenchmarkTooNoisy) {
    // Alternating 100, 200: a typical change of ln 2 and a threshold of 3 ln 2, a detectable
    // change of 700%; +50% is within it and stays plain Unchanged.
    Recorder recorder;
    for (int run = 0; run < 10; ++run)
        recorder.record_a("main" + std::to_string(run), "main", run % 2 == 0 ? 100 : 200);
    recorder.record_a("pr", "feature", 300);
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));
    ASSERT_EQ(comparison.benchmarks.size(), 1u);
    EXPECT_NEAR(comparison.benchmarks[0].detectable_change, 7, 1e-9);
    EXPECT_EQ(comparison.benchmarks[0].verdict, model::Verdict::Unchanged);
    EXPECT_EQ(comparison.summaries[0].too_noisy, 0);
}

}  // namespace
}  // namespace benchwatch::compare
