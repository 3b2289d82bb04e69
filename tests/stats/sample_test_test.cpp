// What could break: the samples test's pieces going wrong in ways a report cannot show: a move
// or its within-run variance off by a factor (π/2, the counts), the run-to-run spread pulled by
// the one benchmark that really changed or not found where the samples explain everything, and
// Student's t tails or degrees of freedom off.
#include "stats/sample_test.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

namespace benchwatch::stats {
namespace {

// The p-quantile of a standard normal, by bisection on std::erfc.
double normal_quantile(double p) {
    double low = -10;
    double high = 10;
    for (int step = 0; step < 200; ++step) {
        const double middle = (low + high) / 2;
        if (0.5 * std::erfc(-middle / std::sqrt(2.0)) < p)
            low = middle;
        else
            high = middle;
    }
    return (low + high) / 2;
}

TEST(SampleMove, IsTheLogOfTheMediansRatioWithTheirSpreadsVariance) {
    const auto move = sample_move({10, 100, 100, 10, {}}, {10, 110, 110, 11, {}});
    ASSERT_TRUE(move);
    EXPECT_DOUBLE_EQ(move->log_move, std::log(1.1));
    // cv = 0.1 on both sides: π/2 × (0.01/10 + 0.01/10).
    EXPECT_DOUBLE_EQ(move->within_variance, std::numbers::pi / 2.0 * 0.002);
    EXPECT_EQ(move->within_df, 18);
}

TEST(SampleMove, TakesTheMedianNotTheMeanAndEachSidesOwnCount) {
    // cv 0.2 over 4 samples and 0 over 6: π/2 × 0.04/4.
    const auto move = sample_move({4, 50, 100, 20, {}}, {6, 25, 30, 0, {}});
    ASSERT_TRUE(move);
    EXPECT_DOUBLE_EQ(move->log_move, std::log(0.5));
    EXPECT_DOUBLE_EQ(move->within_variance, std::numbers::pi / 2.0 * 0.01);
    EXPECT_EQ(move->within_df, 8);
}

TEST(LogMedianVariance, WeighsEachOrderStatisticByItsChanceOfBeingTheMedian) {
    // Three samples, median the 2nd: Beta(2, 2) puts 7/27, 13/27 and 7/27 of its mass in the
    // thirds, so on ln x = 0, 1, 2 the mean is 1 and the mean square 41/27.
    const std::vector<double> kept{1, std::exp(1.0), std::exp(2.0)};
    EXPECT_NEAR(log_median_variance(kept, 3), 14.0 / 27.0, 1e-12);
    // The same order statistics kept of 30 samples: a median of ten times as many is ten times
    // less spread.
    EXPECT_NEAR(log_median_variance(kept, 30), 1.4 / 27.0, 1e-12);
    // Scale does not matter: ×1000 moves every log alike.
    const std::vector<double> scaled{1000, 1000 * std::exp(1.0), 1000 * std::exp(2.0)};
    EXPECT_NEAR(log_median_variance(scaled, 3), 14.0 / 27.0, 1e-12);
}

TEST(LogMedianVariance, SeesAMedianThatCanFallOnEitherOfTwoSpeeds) {
    // Five samples at 100 and five at 150: which speed the median of a run lands on is close
    // to a coin toss. The 5th of 10 falls in the lower half with the chance that 5 or more of
    // 10 fair coins come up, 638/1024, so the variance of its log is p (1 − p) ln² 1.5 = 0.0386,
    // 5.5 times the π/2 × cv²/n = 0.0070 that the deviation (cv 0.211) would give.
    std::vector<double> two_speeds(5, 100.0);
    two_speeds.insert(two_speeds.end(), 5, 150.0);
    const double lower = 638.0 / 1024.0;
    const double expected = lower * (1 - lower) * std::log(1.5) * std::log(1.5);
    EXPECT_NEAR(log_median_variance(two_speeds, 10), expected, 1e-12);
    const SampleSpread side{10, 125, 125, 26.35, two_speeds};
    const auto move = sample_move(side, side);
    ASSERT_TRUE(move);
    EXPECT_NEAR(move->within_variance, 2 * expected, 1e-12);
}

TEST(SampleMove, UsesTheDeviationWhereEitherSideKeptNoSamples) {
    const std::vector<double> kept{90, 100, 110};
    const auto move = sample_move({10, 100, 100, 10, kept}, {10, 110, 110, 11, {}});
    ASSERT_TRUE(move);
    EXPECT_DOUBLE_EQ(move->within_variance, std::numbers::pi / 2.0 * 0.002);
}

TEST(MoveTailDegreesOfFreedom, FindsTheStudentTWhoseTailsTheSuiteShows) {
    // |moves| with median 1 and 90th percentile 4: t_ν's ratio 4 is at ν = 1.637.
    std::vector<double> moves(50, 0.5);
    moves.push_back(-1);
    moves.insert(moves.end(), 39, -2.0);
    moves.push_back(4);
    moves.insert(moves.end(), 10, 8.0);
    EXPECT_NEAR(move_tail_degrees_of_freedom(moves), 1.6370, 1e-3);
}

TEST(MoveTailDegreesOfFreedom, IsNormalHeaviestOrAssumedWhereTheSuiteCannotTell) {
    // A normal's quantiles: ratio 2.44, no heavier than a normal.
    std::vector<double> normal;
    for (int i = 1; i <= 199; ++i) normal.push_back(normal_quantile(i / 200.0));
    EXPECT_TRUE(std::isinf(move_tail_degrees_of_freedom(normal)));
    // Most moves tiny and the largest tenth 30 times as large: heavier than any t, so 1.
    std::vector<double> spiky(70, 0.1);
    spiky.insert(spiky.end(), 50, 3.0);
    EXPECT_EQ(move_tail_degrees_of_freedom(spiky), 1);
    // 49 moves cannot show their tails: 2, however they lie.
    EXPECT_EQ(move_tail_degrees_of_freedom(std::vector<double>(49, 1.0)), 2);
    EXPECT_EQ(move_tail_degrees_of_freedom(std::vector<double>(kTailSuiteMinimum - 1, 0.0)), 2);
}

TEST(SampleMove, NeedsTwoSamplesAndPositiveFiniteSummariesOnBothSides) {
    const SampleSpread good{5, 10, 10, 1, {}};
    EXPECT_FALSE(sample_move({1, 10, 10, 0, {}}, good));
    EXPECT_FALSE(sample_move(good, {1, 10, 10, 0, {}}));
    EXPECT_FALSE(sample_move({5, 0, 10, 1, {}}, good));
    EXPECT_FALSE(sample_move(good, {5, 10, -1, 1, {}}));
    EXPECT_FALSE(sample_move(good, {5, 10, 10, NAN, {}}));
    EXPECT_FALSE(sample_move(good, {5, INFINITY, 10, 1, {}}));
    EXPECT_FALSE(sample_move(good, {5, 10, 10, -1, {}}));
    EXPECT_TRUE(sample_move(good, good));
}

TEST(RunToRunSpread, MakesTheMedianScaledSquareTheChiSquaresMedian) {
    const std::vector<double> none(3, 0.0);
    // The median |deviation| 0.1 must be the median of |N(0, τ²)|: τ = 0.1 / √0.454936.
    EXPECT_NEAR(run_to_run_spread(std::vector<double>{-0.1, 0, 0.1}, none), 0.148260221850560,
                1e-9);
    // 0.09 / (0.05 + τ²) = 0.454936: τ² = 0.147831.
    EXPECT_NEAR(
        run_to_run_spread(std::vector<double>{0.3, -0.3, 0.3, -0.3}, std::vector<double>(4, 0.05)),
        0.384486463283945, 1e-9);
}

TEST(RunToRunSpread, IsNotMovedByTheOneBenchmarkThatChanged) {
    EXPECT_NEAR(
        run_to_run_spread(std::vector<double>{-0.1, 0, 0.1, 0.1, 5}, std::vector<double>(5, 0.0)),
        0.148260221850560, 1e-9);
}

TEST(RunToRunSpread, IsZeroWhereTheSamplesExplainTheMovesAndForOneBenchmark) {
    // With within variances of 1 the scaled squares are 0.01, 0.01 and 0.04: their median is
    // already below the chi-square's 0.4549.
    EXPECT_EQ(run_to_run_spread(std::vector<double>{0.1, -0.1, 0.2}, std::vector<double>(3, 1.0)),
              0);
    EXPECT_EQ(run_to_run_spread(std::vector<double>{0.3}, std::vector<double>{0}), 0);
    EXPECT_EQ(run_to_run_spread(std::vector<double>{}, std::vector<double>{}), 0);
    EXPECT_EQ(run_to_run_spread(std::vector<double>(4, 0.0), std::vector<double>(4, 0.0)), 0);
}

TEST(RunToRunDegreesOfFreedom, IsTheMediansShareOfTheSuiteAndAtLeastOne) {
    EXPECT_DOUBLE_EQ(run_to_run_degrees_of_freedom(11), 3.7);
    EXPECT_DOUBLE_EQ(run_to_run_degrees_of_freedom(10001), 3700);
    EXPECT_DOUBLE_EQ(run_to_run_degrees_of_freedom(2), 1);
    EXPECT_DOUBLE_EQ(run_to_run_degrees_of_freedom(0), 1);
}

TEST(SatterthwaiteDegreesOfFreedom, WeighsEachPartByItsVariance) {
    EXPECT_NEAR(satterthwaite_degrees_of_freedom(1, 10, 1, 5), 4.0 / 0.3, 1e-12);
    EXPECT_DOUBLE_EQ(satterthwaite_degrees_of_freedom(2, 18, 0, 3.7), 18);
    EXPECT_DOUBLE_EQ(satterthwaite_degrees_of_freedom(0, 18, 2, 3.7), 3.7);
}

TEST(StudentT, HasTheTablesTails) {
    EXPECT_NEAR(student_t_critical(0.05, 10), 2.22813885196494, 1e-10);
    // 10,000 benchmarks at one false alarm: 18 degrees of freedom, p = 0.0001.
    EXPECT_NEAR(student_t_critical(1e-4, 18), 4.96570628529156, 1e-8);
    EXPECT_NEAR(student_t_critical(0.05, 1e6), 1.95996635681411, 1e-8);
}

}  // namespace
}  // namespace benchwatch::stats
