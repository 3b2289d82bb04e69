// What could break: the samples method judging two runs by the wrong numbers (values instead of
// medians, the move without the suite's), not learning the spread between runs that the samples
// leave unexplained, or not assuming one where the suite is too small to show it, ignoring a
// benchmark's own history of moves, not spending the budget over the suite, flagging a
// benchmark it has no samples for, or letting half a suite that slowed alike widen the spread
// between runs or pass for the suite's move.
#include "compare/samples_method.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <vector>

namespace benchwatch::compare {
namespace {

// `samples` kept for as long as the tests run, since evidence only points at its samples.
const model::SampleSummary* kept(model::SampleSummary samples) {
    static std::deque<model::SampleSummary> all;
    return &all.emplace_back(std::move(samples));
}

// A benchmark of median `median` over 10 samples with a relative spread of `spread` (1% unless
// given) on both sides.
BenchmarkEvidence evidence(double base_median, double head_median, bool smaller_is_better = true,
                           double spread = 0.01) {
    BenchmarkEvidence one;
    one.base = base_median * 0.98;
    one.head = head_median * 0.98;
    one.smaller_is_better = smaller_is_better;
    one.base_samples = kept({10, base_median, base_median, base_median * spread, {}});
    one.head_samples = kept({10, head_median, head_median, head_median * spread, {}});
    return one;
}

// Log moves 0, 0.01, −0.01 and 0.5. The suite's median move is 0.005, the deviations from it
// ±0.005, −0.015 and 0.495, each with a within variance of π/2 × 2 × 0.0001/10 = 3.1416e-5.
// The median of their squares, (25e-6 + 225e-6)/2 = 125e-6, over within + τ² is 0.454936 at
// τ² = 2.4335e-4 (τ = 0.015600). With 0.37 × 3 = 1.11 degrees of freedom for τ² and 18 for the
// within variance, Satterthwaite gives 1.4136; a budget of 1, shared as among 5 benchmarks since
// fewer than 5 are judged, puts Student's t at p = 0.2, |t| = 2.28370, and the threshold at
// 2.28370 × √(within + τ²) = 0.0378546, above the 3% minimum's ln 1.03 = 0.029559.
std::vector<BenchmarkEvidence> suite_with_one_slowdown() {
    return {evidence(100, 100), evidence(100, 100 * std::exp(0.01)),
            evidence(100, 100 * std::exp(-0.01)), evidence(100, 100 * std::exp(0.5))};
}

TEST(SamplesMethod, FlagsTheMoveBeyondTheNoiseThatTheSuiteAndTheSamplesShow) {
    const auto judgement = make_samples_method({})->judge(suite_with_one_slowdown());
    const auto& assessments = judgement.benchmarks;
    ASSERT_EQ(assessments.size(), 4u);
    EXPECT_EQ(assessments[0].verdict, model::Verdict::Unchanged);
    EXPECT_EQ(assessments[1].verdict, model::Verdict::Unchanged);
    EXPECT_EQ(assessments[2].verdict, model::Verdict::Unchanged);
    EXPECT_EQ(assessments[3].verdict, model::Verdict::Slower);
    for (const auto& assessment : assessments) {
        EXPECT_NEAR(assessment.threshold, 0.0378546, 1e-6);
        EXPECT_NEAR(assessment.detectable_change, 0.0385802, 1e-6);
        EXPECT_NEAR(assessment.typical_change, 0.0165760, 1e-6);
    }
    EXPECT_NEAR(judgement.run_to_run, 0.0155996, 1e-6);
    EXPECT_NEAR(judgement.suite_move, std::expm1(0.005), 1e-12);
    EXPECT_FALSE(judgement.run_to_run_assumed);
    // The medians are what was judged, not the files' best values.
    EXPECT_DOUBLE_EQ(assessments[3].reference, 100);
    EXPECT_NEAR(assessments[3].head_value, 100 * std::exp(0.5), 1e-9);
}

// `count` default-branch values alternating 100 and 200: every consecutive move is ln 2.
std::vector<double> alternating_history(std::size_t count) {
    std::vector<double> values;
    for (std::size_t i = 0; i < count; ++i) values.push_back(i % 2 == 0 ? 100.0 : 200.0);
    return values;
}

TEST(SamplesMethod, JudgesABenchmarkByItsHistoryWhereItMovesMoreThanTheSuiteShows) {
    // The 0.5 move's benchmark doubles or halves from one default-branch run to the next: its
    // last 30 pairs give 1.4826 × ln 2 = 1.027662 for the spread of a move, far above the
    // 0.016576 the samples and the suite explain. With min(2 for a suite under 50, 0.37 × 30)
    // = 2 degrees of freedom, Student's t at p = 0.2 is √(2 × 0.8² / (1 − 0.8²)) = 1.885618
    // and the threshold 1.937777: the 0.495 deviation is noise for this benchmark, and a
    // detectable change of e^1.937777 − 1 = 594% is beyond 10 × the 3% minimum: too noisy.
    auto suite = suite_with_one_slowdown();
    const auto history = alternating_history(31);
    suite[3].history = history;
    const auto assessments = make_samples_method({})->judge(suite).benchmarks;
    EXPECT_EQ(assessments[3].verdict, model::Verdict::TooNoisy);
    EXPECT_NEAR(assessments[3].typical_change, 1.027662, 1e-6);
    EXPECT_NEAR(assessments[3].threshold, 1.937777, 1e-6);
    // The others, without history, are judged as before.
    EXPECT_NEAR(assessments[0].threshold, 0.0378546, 1e-6);

    // Four pairs are too few to learn a benchmark's spread from: the samples judge it alone.
    const auto short_history = alternating_history(5);
    suite[3].history = short_history;
    EXPECT_EQ(make_samples_method({})->judge(suite).benchmarks[3].verdict, model::Verdict::Slower);
    // A quiet history does not lower the noise below what the samples and the suite show.
    const std::vector<double> quiet(31, 100.0);
    suite[3].history = quiet;
    EXPECT_NEAR(make_samples_method({})->judge(suite).benchmarks[3].threshold, 0.0378546, 1e-6);
}

TEST(SamplesMethod, SpendsItsBudgetOverTheWholeSuite) {
    // Budget 0.001 over max(4, 5): p = 0.0002, |t| = 329.69 at 1.41 degrees of freedom, a
    // threshold of 5.4650 that the 0.495 deviation does not reach, so wide that it is too noisy.
    const auto strict = make_samples_method({.false_alarms_per_pr = 0.001});
    const auto assessments = strict->judge(suite_with_one_slowdown()).benchmarks;
    EXPECT_NEAR(assessments[3].threshold, 5.46500, 1e-4);
    EXPECT_EQ(assessments[3].verdict, model::Verdict::TooNoisy);
    EXPECT_DOUBLE_EQ(strict->setting(), 1000);
    EXPECT_EQ(strict->with_setting(1)->judge(suite_with_one_slowdown()).benchmarks[3].verdict,
              model::Verdict::Slower);
}

TEST(SamplesMethod, JudgesEachBenchmarkAgainstTheSuitesMove) {
    // The machine ran 40% slower for the head: every move is judged less 0.3365, the median.
    std::vector<BenchmarkEvidence> suite;
    for (const double move : {0.33, 0.34, 0.335, 0.345, 0.3365})
        suite.push_back(evidence(100, 100 * std::exp(move)));
    const auto judgement = make_samples_method({})->judge(suite);
    for (const auto& assessment : judgement.benchmarks)
        EXPECT_EQ(assessment.verdict, model::Verdict::Unchanged);
    EXPECT_NEAR(judgement.suite_move, std::expm1(0.3365), 1e-12);
}

TEST(SamplesMethod, HalfTheSuiteSlowedAlikeIsFlaggedAgainstTheHalfThatDidNot) {
    // Four benchmarks moved by 0, 0.01, −0.01 and 0.005, and four by ln 1.3 more. Over all
    // eight the median move would be 0.131 and the spread between runs 0.194 (all eight too noisy
    // to judge). The four that did not move are a group as large as the four that did, and
    // nearer no move: the suite's move is their median, 0.0025, and their scaled squares
    // (0.0125², 0.0025², 0.0025², 0.0075²) / (3.1416e-5 + τ²) have the chi-square's median at
    // τ² = 3.125e-5 / 0.454936 − 3.1416e-5 = 3.7275e-5 (τ = 0.0061053), with 0.37 × 3
    // degrees of freedom. Satterthwaite gives 3.61, the suite's tails 2, and Student's t at
    // p = 1/8 is 2.556039: 2.556039 × √(3.1416e-5 + τ²) = 0.021184, below the 3% minimum.
    std::vector<BenchmarkEvidence> suite;
    for (const double offset : {0.0, std::log(1.3)})
        for (const double move : {0.0, 0.01, -0.01, 0.005})
            suite.push_back(evidence(100, 100 * std::exp(offset + move)));
    const auto judgement = make_samples_method({})->judge(suite);
    const auto& assessments = judgement.benchmarks;
    ASSERT_EQ(assessments.size(), 8u);
    for (std::size_t i = 0; i < 8; ++i) {
        EXPECT_EQ(assessments[i].verdict,
                  i < 4 ? model::Verdict::Unchanged : model::Verdict::Slower)
            << i;
        EXPECT_NEAR(assessments[i].typical_change, 0.0082880, 1e-6);
        EXPECT_NEAR(assessments[i].threshold, std::log(1.03), 1e-12);
    }
    EXPECT_NEAR(judgement.run_to_run, 0.0061053, 1e-6);
    EXPECT_NEAR(judgement.suite_move, std::expm1(0.0025), 1e-12);
}

TEST(SamplesMethod, ReadsTheDirectionOfEachMetric) {
    auto suite = suite_with_one_slowdown();
    for (auto& one : suite) one.smaller_is_better = false;
    EXPECT_EQ(make_samples_method({})->judge(suite).benchmarks[3].verdict, model::Verdict::Faster);
}

TEST(SamplesMethod, CannotJudgeWithoutSamplesOnBothSides) {
    auto suite = suite_with_one_slowdown();
    suite.push_back(evidence(100, 200));
    suite.back().base_samples = nullptr;
    const auto assessments = make_samples_method({})->judge(suite).benchmarks;
    EXPECT_EQ(assessments[4].verdict, model::Verdict::Inconclusive);
    // The four with samples are judged as before: the fifth is not one of the suite's m.
    EXPECT_EQ(assessments[3].verdict, model::Verdict::Slower);
    EXPECT_NEAR(assessments[3].threshold, 0.0378546, 1e-6);
}

// A benchmark of median 100 in the base and `head_median` in the head, 10 samples each with a
// relative spread of 5%: a within variance of π/2 × 2 × 0.0025 / 10 = 7.853982e-4.
BenchmarkEvidence spread_evidence(double head_median) {
    return evidence(100, head_median, true, 0.05);
}

TEST(SamplesMethod, AssumesTheSpreadBetweenRunsWhereTooFewBenchmarksShowIt) {
    // Two benchmarks cannot show the spread between runs: each move's variance is taken as
    // 2² × 7.853982e-4 = 3.141593e-3 (a noise of 0.0560499), with 2 degrees of freedom, and the
    // budget of 1 is shared as among 5: Student's t at p = 0.2 is 1.885618 and the threshold
    // 0.1056887. Without the factor of 2 it would be 0.0528443, and +10% (ln 1.1 = 0.0953102)
    // would be flagged. The suite's move is not taken out: with two benchmarks it would be half
    // of the one that changed.
    const std::vector<BenchmarkEvidence> two{spread_evidence(110), spread_evidence(120)};
    const auto judgement = make_samples_method({})->judge(two);
    const auto& assessments = judgement.benchmarks;
    ASSERT_EQ(assessments.size(), 2u);
    EXPECT_EQ(assessments[0].verdict, model::Verdict::Unchanged);
    EXPECT_EQ(assessments[1].verdict, model::Verdict::Slower);
    for (const auto& assessment : assessments) {
        EXPECT_NEAR(assessment.typical_change, 0.0560499, 1e-6);
        EXPECT_NEAR(assessment.threshold, 0.1056887, 1e-6);
    }
    EXPECT_EQ(judgement.suite_move, 0);
    EXPECT_EQ(judgement.run_to_run, 0);
    EXPECT_TRUE(judgement.run_to_run_assumed);
    // One benchmark alone is judged the same way.
    const std::vector<BenchmarkEvidence> one{spread_evidence(120)};
    EXPECT_EQ(make_samples_method({})->judge(one).benchmarks[0].verdict, model::Verdict::Slower);
    EXPECT_NEAR(make_samples_method({})->judge(one).benchmarks[0].threshold, 0.1056887, 1e-6);
    // A larger budget is not spread over fewer than 5: a budget of 5 tests each at p = 1, and
    // the threshold falls to the category's minimum, ln 1.03.
    EXPECT_NEAR(make_samples_method({.false_alarms_per_pr = 5})->judge(one).benchmarks[0].threshold,
                std::log(1.03), 1e-12);
    // A benchmark's own history of moves between default-branch runs still widens its noise:
    // 1.4826 × ln 2 = 1.027662 beyond the assumed 0.0560499, and the threshold is Student's t at
    // p = 0.2 with 2 degrees of freedom times that, 1.937777, as with a suite: too noisy.
    auto with_history = one;
    const auto history = alternating_history(31);
    with_history[0].history = history;
    const auto by_history = make_samples_method({})->judge(with_history).benchmarks[0];
    EXPECT_EQ(by_history.verdict, model::Verdict::TooNoisy);
    EXPECT_NEAR(by_history.threshold, 1.937777, 1e-6);
    // The suite learns the spread itself from 3 benchmarks on.
    EXPECT_FALSE(make_samples_method({})->judge(suite_with_one_slowdown()).run_to_run_assumed);
}

TEST(SamplesMethod, ABenchmarkWithOneSampleIsNotJudgedAndDoesNotCountInTheSuite) {
    auto suite = std::vector<BenchmarkEvidence>{spread_evidence(100), spread_evidence(100),
                                                spread_evidence(120)};
    auto one_sample = *suite[0].head_samples;
    one_sample.count = 1;
    suite[0].head_samples = kept(one_sample);
    const auto judgement = make_samples_method({})->judge(suite);
    const auto& assessments = judgement.benchmarks;
    EXPECT_EQ(assessments[0].verdict, model::Verdict::Inconclusive);
    // The two left are too few to learn the spread from.
    EXPECT_EQ(assessments[2].verdict, model::Verdict::Slower);
    EXPECT_NEAR(assessments[2].threshold, 0.1056887, 1e-6);
    EXPECT_TRUE(judgement.run_to_run_assumed);
}

}  // namespace
}  // namespace benchwatch::compare
