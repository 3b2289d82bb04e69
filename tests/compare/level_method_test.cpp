// What could break: the level method comparing a head with the wrong level, learning its noise
// from the wrong deviations, flagging inside its threshold, calling a move of the whole suite
// many regressions (also when quiet benchmarks' thresholds lie far beyond it), or judging a short
// history without its wide margin.
#include "compare/level_method.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace benchwatch::compare {
namespace {

// 15 runs at 100 with one-run spikes to 110 at positions 7 and 11. With 5-run levels the
// deviations at positions 5…14 are 0 except ln 1.1 = 0.0953 at 7 (the next five runs' median is
// 100 again: it did not last) and at 11 (too recent to know: kept). Their 0.9 quantile sits at
// position 0.9 × 9 = 8.1 of the sorted ten, between two 0.0953s: the noise is 0.0953, and the
// threshold 1.5 × 0.0953 = 0.1430 (above ln 1.03), a detectable change of e^0.1430 − 1 = 15.37%.
// The level is the median of the last five runs (100, 110, 100, 100, 100): 100.
std::vector<double> spiky_history() {
    std::vector<double> history(15, 100.0);
    history[7] = 110;
    history[11] = 110;
    return history;
}

BenchmarkEvidence evidence(const std::vector<double>& history, double head,
                           bool smaller_is_better = true) {
    BenchmarkEvidence one;
    one.history = history;
    one.base = history.back();
    one.head = head;
    one.smaller_is_better = smaller_is_better;
    return one;
}

std::unique_ptr<Method> level() {
    return make_level_method({});
}

TEST(LevelMethod, FlagsAHeadBeyondItsNoiseFromTheRecentLevel) {
    const auto history = spiky_history();
    const std::vector<BenchmarkEvidence> suite{evidence(history, 116), evidence(history, 115)};
    const auto assessments = level()->judge(suite).benchmarks;
    ASSERT_EQ(assessments.size(), 2U);
    // ln 1.16 = 0.1484 > 0.1430; ln 1.15 = 0.1398 is not.
    EXPECT_EQ(assessments[0].verdict, model::Verdict::Slower);
    EXPECT_EQ(assessments[1].verdict, model::Verdict::Unchanged);
    EXPECT_DOUBLE_EQ(assessments[0].reference, 100);
    EXPECT_NEAR(assessments[0].typical_change, std::log(1.1), 1e-12);
    EXPECT_NEAR(assessments[0].threshold, 1.5 * std::log(1.1), 1e-12);
    EXPECT_NEAR(assessments[0].detectable_change, 0.1537, 1e-4);
    EXPECT_EQ(assessments[0].history_pairs, 10);
}

TEST(LevelMethod, AnUnchangedHeadItsNoiseCannotJudgeIsTooNoisy) {
    // The spiky history with its spikes at 200: the noise is ln 2, the threshold 1.5 × ln 2 =
    // 1.0397, a detectable change of 2^1.5 − 1 = 182.8%, beyond 10 × the 3% minimum and 25%. A
    // head at its level is too noisy to call unchanged; 300 (ln 3 = 1.0986) is still flagged.
    std::vector<double> history(15, 100.0);
    history[7] = 200;
    history[11] = 200;
    const std::vector<BenchmarkEvidence> suite{evidence(history, 100), evidence(history, 300)};
    const auto judgement = level()->judge(suite);
    EXPECT_EQ(judgement.benchmarks[0].verdict, model::Verdict::TooNoisy);
    EXPECT_NEAR(judgement.benchmarks[0].detectable_change, std::pow(2.0, 1.5) - 1, 1e-12);
    EXPECT_EQ(judgement.benchmarks[1].verdict, model::Verdict::Slower);
}

TEST(LevelMethod, DirectionFollowsTheMetric) {
    const auto history = spiky_history();
    // Throughput: 80 is ln 0.8 = −0.223 below the level, beyond 0.1430 and worse.
    const std::vector<BenchmarkEvidence> suite{evidence(history, 80, false),
                                               evidence(history, 80, true)};
    const auto assessments = level()->judge(suite).benchmarks;
    EXPECT_EQ(assessments[0].verdict, model::Verdict::Slower);
    EXPECT_EQ(assessments[1].verdict, model::Verdict::Faster);
}

TEST(LevelMethod, TheLevelIsNotTheBaselineRun) {
    // The baseline run is a slow spike (130) on a level of 100: a head of 100 is no faster, and a
    // head of 125 (ln 1.25 = 0.223 above the level) is slower although it beats the baseline run.
    auto history = spiky_history();
    history.push_back(130);
    const std::vector<BenchmarkEvidence> suite{evidence(history, 100), evidence(history, 125)};
    const auto assessments = level()->judge(suite).benchmarks;
    EXPECT_EQ(assessments[0].verdict, model::Verdict::Unchanged);
    EXPECT_EQ(assessments[1].verdict, model::Verdict::Slower);
    EXPECT_DOUBLE_EQ(assessments[1].reference, 100);  // median(110, 100, 100, 100, 130)
}

TEST(LevelMethod, AShortHistoryIsFlaggedOnlyBeyondTwiceItsLargestChange) {
    // Nine runs give four deviations (positions 5…8), one short of the five needed. The largest
    // consecutive change is ln 1.05 = 0.04879, so the threshold is 2 × 0.04879 = 0.09758 (above
    // ln 1.03), a detectable change of 1.05² − 1 = 10.25%, around the level median(last 5) = 100.
    std::vector<double> history(9, 100.0);
    history[1] = 105;
    const std::vector<BenchmarkEvidence> suite{evidence(history, 111), evidence(history, 109),
                                               evidence(history, 89)};
    const auto assessments = level()->judge(suite).benchmarks;
    EXPECT_EQ(assessments[0].verdict, model::Verdict::Slower);        // ln 1.11 = 0.1044
    EXPECT_EQ(assessments[1].verdict, model::Verdict::Inconclusive);  // ln 1.09 = 0.0862
    EXPECT_EQ(assessments[2].verdict, model::Verdict::Faster);        // ln 0.89 = −0.1165
    for (const auto& assessment : assessments) {
        EXPECT_DOUBLE_EQ(assessment.reference, 100);
        EXPECT_EQ(assessment.history_pairs, 8);
        EXPECT_NEAR(assessment.threshold, 2 * std::log(1.05), 1e-12);
        EXPECT_NEAR(assessment.detectable_change, 0.1025, 1e-12);
    }
    // Ten runs give five deviations: the noise is learned (all zero here, so the category
    // minimum ln 1.03 decides) and 109 is slower.
    history.push_back(100);
    EXPECT_EQ(level()->judge(std::vector{evidence(history, 109)}).benchmarks[0].verdict,
              model::Verdict::Slower);
}

TEST(LevelMethod, OneRunOfHistoryIsInconclusiveWhateverTheHead) {
    // The evidence keeps a view of its history, which must outlive the judgement.
    const std::vector<double> one_run{100};
    const std::vector<BenchmarkEvidence> suite{evidence(one_run, 1000), evidence(one_run, 10)};
    for (const auto& assessment : level()->judge(suite).benchmarks) {
        EXPECT_EQ(assessment.verdict, model::Verdict::Inconclusive);
        EXPECT_DOUBLE_EQ(assessment.reference, 100);
    }
}

TEST(LevelMethod, AMoveOfTheWholeSuiteIsJudgedOnce) {
    // Twelve benchmarks on the spiky history: ten heads at 150 (ln 1.5 = 0.405 up), one at 100 and
    // one at 200 (ln 2 = 0.693). Eleven of twelve moved up beyond 0.1430: the suite moved. Its
    // median move is 0.405 (the 6th and 7th of the sorted moves), the spread 1.4826 × median
    // |move − 0.405| = 0, so thresholds stay 0.1430. The ten moved with the suite (unchanged);
    // 100 is 0.405 below the suite but not below its own level (unchanged); 200 is 0.288 beyond
    // the suite and 0.693 beyond its level (slower).
    const auto history = spiky_history();
    std::vector<BenchmarkEvidence> suite(10, evidence(history, 150));
    suite.push_back(evidence(history, 100));
    suite.push_back(evidence(history, 200));
    const auto judgement = level()->judge(suite);
    const auto& assessments = judgement.benchmarks;
    for (std::size_t i = 0; i < 10; ++i)
        EXPECT_EQ(assessments[i].verdict, model::Verdict::Unchanged) << i;
    EXPECT_EQ(assessments[10].verdict, model::Verdict::Unchanged);
    EXPECT_EQ(assessments[11].verdict, model::Verdict::Slower);
    EXPECT_NEAR(judgement.suite_move, 0.5, 1e-12);
}

TEST(LevelMethod, BenchmarksCountTowardsASuiteMoveBeyondTwiceTheirNoiseWhateverTheirThresholds) {
    // At sensitivity 5 the thresholds are 5 × 0.0953 = 0.4766, far beyond the heads at 130 (ln
    // 1.3 = 0.262), so none is flagged (each is too noisy: it could flag only changes beyond
    // 61%); but a move counts towards the suite's beyond the nearer
    // of its threshold and 2 × 0.0953 = 0.1906 (at least ln 1.03): ten of twelve moved up, so the
    // suite moved by its median move, ln 1.3 (+30%), and a one-run move of the machine is judged
    // once.
    const auto strict = level()->with_setting(5.0);
    const auto history = spiky_history();
    std::vector<BenchmarkEvidence> suite(10, evidence(history, 130));
    suite.push_back(evidence(history, 100));
    suite.push_back(evidence(history, 100));
    const auto judgement = strict->judge(suite);
    for (const auto& assessment : judgement.benchmarks)
        EXPECT_FALSE(model::flags_change(assessment.verdict));
    EXPECT_NEAR(judgement.suite_move, 0.3, 1e-12);
    // Ten heads at 120 (ln 1.2 = 0.182) are within twice the noise: no suite move.
    std::vector<BenchmarkEvidence> smaller(10, evidence(history, 120));
    smaller.push_back(evidence(history, 100));
    smaller.push_back(evidence(history, 100));
    EXPECT_EQ(strict->judge(smaller).suite_move, 0);
}

TEST(LevelMethod, UnderHalfTheSuiteMovingIsNoSuiteMove) {
    // Five of twelve at 150: below the half, so each is judged alone and flagged.
    const auto history = spiky_history();
    std::vector<BenchmarkEvidence> suite(5, evidence(history, 150));
    for (int i = 0; i < 7; ++i) suite.push_back(evidence(history, 100));
    const auto judgement = level()->judge(suite);
    const auto& assessments = judgement.benchmarks;
    for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(assessments[i].verdict, model::Verdict::Slower);
    for (std::size_t i = 5; i < 12; ++i)
        EXPECT_EQ(assessments[i].verdict, model::Verdict::Unchanged);
    EXPECT_EQ(judgement.suite_move, 0);
}

TEST(LevelMethod, TheSettingIsTheSensitivity) {
    const auto method = level();
    EXPECT_EQ(method->name(), "level");
    EXPECT_DOUBLE_EQ(method->setting(), 1.5);
    // At sensitivity 1 the threshold is 0.0953 itself: 106 (ln 1.06 = 0.058) is not beyond it,
    // 111 (0.104) is.
    const auto looser = method->with_setting(1.0);
    const auto history = spiky_history();
    const std::vector<BenchmarkEvidence> suite{evidence(history, 106), evidence(history, 111)};
    const auto assessments = looser->judge(suite).benchmarks;
    EXPECT_EQ(assessments[0].verdict, model::Verdict::Unchanged);
    EXPECT_EQ(assessments[1].verdict, model::Verdict::Slower);
}

}  // namespace
}  // namespace benchwatch::compare
