// What could break: the samples test's pieces going wrong in ways a report cannot show: a move
// or its within-run variance off by a factor (π/2, the counts), the run-to-run spread pulled by
// the one benchmark that really changed or not found where the samples explain everything, and
// Student's t tails or degrees of freedom off; half a suite that changed alike taken for the
// suite's move or widening its spread, or a suite where nothing changed getting other figures
// than its median and spread.
#include "stats/sample_test.hpp"

#include <gtest/gtest.h>

#include <boost/math/distributions/normal.hpp>
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

TEST(SampleMove, TakesTheMinimumOrTheMeanWhenAsked) {
    // Kept samples on both sides: the minimums' move, with the bootstrap of each minimum.
    const std::vector<double> base = {1, std::exp(1.0)};
    const std::vector<double> head = {2, 2 * std::exp(1.0)};
    const auto minimum = sample_move({2, 1.5, 1.9, 1.2, base, 1}, {2, 3, 3.8, 2.4, head, 2},
                                     SampleStatistic::Minimum);
    ASSERT_TRUE(minimum);
    EXPECT_DOUBLE_EQ(minimum->log_move, std::log(2.0));
    // Weights 3/4 and 1/4 on ln x − ln min = 0 and 1 on each side: 3/16 each.
    EXPECT_NEAR(minimum->within_variance, 2 * 3.0 / 16.0, 1e-12);
    EXPECT_NEAR(log_minimum_variance(base, 2), 3.0 / 16.0, 1e-12);
    // Half of 4 samples kept: half the variance.
    EXPECT_NEAR(log_minimum_variance(base, 4), 3.0 / 32.0, 1e-12);
    // A summary alone: the median's spread from the deviation stands in for the minimum's.
    const auto summary_only = sample_move({10, 100, 100, 10, {}, 90}, {10, 110, 110, 11, {}, 108},
                                          SampleStatistic::Minimum);
    ASSERT_TRUE(summary_only);
    EXPECT_DOUBLE_EQ(summary_only->log_move, std::log(1.2));
    EXPECT_DOUBLE_EQ(summary_only->within_variance, std::numbers::pi / 2.0 * 0.002);
    // No minimum known on one side: no move.
    EXPECT_FALSE(
        sample_move({10, 100, 100, 10, {}}, {10, 110, 110, 11, {}, 108}, SampleStatistic::Minimum));
    // The means, with the variance of the log of a mean, cv²/n a side.
    const auto mean =
        sample_move({4, 50, 100, 20, {}}, {5, 25, 120, 24, {}}, SampleStatistic::Mean);
    ASSERT_TRUE(mean);
    EXPECT_DOUBLE_EQ(mean->log_move, std::log(1.2));
    EXPECT_DOUBLE_EQ(mean->within_variance, 0.04 / 4 + 0.04 / 5);
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

// Within variances of 10⁻⁴ (a noise of 1%) for each of `count` moves.
std::vector<double> one_percent(std::size_t count) {
    return std::vector<double>(count, 1e-4);
}

TEST(LargestAgreeingGroup, IsTheGroupAtNoMoveWhenHalfTheSuiteMovedAlike) {
    // Two groups of 3 agree within themselves, 0.3 apart: each is a shortest half, and the one
    // at no move is chosen. Its own spread, 0.010946 (below), puts the other 27 noises away.
    const std::vector<double> moves{0, 0.01, -0.01, 0.3, 0.31, 0.29};
    EXPECT_EQ(largest_agreeing_group(moves, one_percent(6)), (std::vector<std::size_t>{0, 1, 2}));
    // The group at no move is chosen even when the other agrees more closely: the shortest half
    // is {0.299, 0.3, 0.301}, and the 3 left out are as many, so they are grouped as well.
    const std::vector<double> tighter{0, 0.02, -0.02, 0.3, 0.301, 0.299};
    EXPECT_EQ(largest_agreeing_group(tighter, one_percent(6)), (std::vector<std::size_t>{0, 1, 2}));
    EXPECT_TRUE(largest_agreeing_group(std::vector<double>{}, std::vector<double>{}).empty());
}

TEST(LargestAgreeingGroup, IsTheLargerGroupWhereverItLies) {
    // Four moved alike by 0.3 and three did not: the four are the suite's largest group. Two
    // runs cannot tell this from a machine that ran 35% slower, on which three sped up.
    const std::vector<double> moves{0, 0.01, -0.01, 0.3, 0.31, 0.29, 0.305};
    EXPECT_EQ(largest_agreeing_group(moves, one_percent(7)),
              (std::vector<std::size_t>{3, 4, 5, 6}));
}

TEST(LargestAgreeingGroup, GrowsFromTheShortestHalfToEveryMoveThatAgrees) {
    // Shortest half {−0.02, −0.01, 0, 0.01} (of two as short, both 0.005 from no move, the
    // first): median −0.005 and scaled squares 0.25, 0.25, 2.25 and 2.25, whose median 1.25 is
    // 0.454936 at τ = √(1.25e-4 / 0.454936 − 1e-4) = 0.013220, so 0.02 lies within
    // 4 × √(1e-4 + τ²) = 0.0663 of it and joins; 0.3, 0.4 and 0.5 do not.
    const std::vector<double> moves{0, 0.01, -0.01, 0.02, -0.02, 0.3, 0.4, 0.5};
    EXPECT_EQ(largest_agreeing_group(moves, one_percent(8)),
              (std::vector<std::size_t>{0, 1, 2, 3, 4}));
    // A benchmark far more precise than the rest is held to the group's noise: the samples of
    // {0, ±0.005, ±0.01} explain their moves (τ = 0), and 0.03 is 300 of its own noises (0.01%)
    // from their median but within 4 of theirs (1%).
    auto within = one_percent(6);
    within[5] = 1e-8;
    EXPECT_EQ(
        largest_agreeing_group(std::vector<double>{0, 0.005, -0.005, 0.01, -0.01, 0.03}, within)
            .size(),
        6u);
}

TEST(LargestAgreeingGroup, KeepsTwoPopulationsApartWhenTheCloserOneIsWide) {
    // Two runs of 8 benchmarks × 10 repetitions, the first 4 made 30% slower (ln 1.3 = 0.262):
    // the moves and within variances as the samples gave them. The shortest half is the slowed
    // four, whose deviations from their median 0.262 have squares 3.8e-4, 2.0e-4, 6.8e-4 and
    // 2.0e-4; learned as a population of its own, τ² = 1.6e-4, and the unchanged four lie 9
    // noises and more away. Learned as the middle half of one population, τ would be twice as
    // wide and every benchmark would agree, leaving the spread 0.206 and all eight too noisy.
    const std::vector<double> moves{0.2815,  0.2477,  0.2359, 0.2763,
                                    -0.0034, -0.0142, 0.0332, -0.0321};
    const std::vector<double> within{2.4e-4, 3.4e-4, 5.2e-4, 2.1e-4,
                                     8.8e-4, 4.8e-4, 8.5e-4, 1.6e-4};
    EXPECT_EQ(largest_agreeing_group(moves, within), (std::vector<std::size_t>{4, 5, 6, 7}));
    const auto spread = suite_spread(moves, within);
    EXPECT_EQ(spread.learned_from, 4u);
    EXPECT_LT(spread.spread, 0.03);
}

TEST(LargestAgreeingGroup, DoesNotSplitASuiteWhereNothingMoved) {
    // 101 moves at the normal quantiles of (i + 0.5) / 101, spread 5%, with within variances far
    // smaller: the shortest half, the 51 within ±0.68 σ, has its own spread 0.4865 σ, and the
    // 95 within 4 × 0.4865 σ = 1.946 σ agree with it (the 3 outermost on each side lie beyond
    // 1.964 σ), more than two thirds, so the suite's figures are the whole suite's.
    std::vector<double> moves;
    for (int i = 0; i < 101; ++i)
        moves.push_back(0.05 * boost::math::quantile(boost::math::normal_distribution<double>(),
                                                     (i + 0.5) / 101.0));
    const std::vector<double> within(101, 1e-6);
    EXPECT_EQ(largest_agreeing_group(moves, within).size(), 95u);
    EXPECT_EQ(suite_spread(moves, within).learned_from, 101u);
    // The same for 8, the fewest that a group is learned from when a third moved.
    std::vector<double> eight;
    for (int i = 0; i < 8; ++i)
        eight.push_back(0.05 * boost::math::quantile(boost::math::normal_distribution<double>(),
                                                     (i + 0.5) / 8.0));
    EXPECT_EQ(largest_agreeing_group(eight, std::vector<double>(8, 1e-6)).size(), 8u);
}

TEST(SuiteSpread, IsLearnedFromTheGroupThatAgreesWhenFewerThanTwoThirdsDo) {
    // Half moved: the group at no move has median 0.005 and squared deviations 2.5e-5, 2.5e-5,
    // 2.25e-4 and 6.25e-4, so τ² = 1.25e-4 / 0.454936 − 1e-4. Over all eight, the median move
    // would be 0.15 and τ 0.224.
    const auto half = suite_spread(std::vector<double>{0, 0.02, -0.02, 0.01, 0.3, 0.32, 0.28, 0.31},
                                   one_percent(8));
    EXPECT_DOUBLE_EQ(half.centre, 0.005);
    EXPECT_NEAR(half.spread, 0.0132196, 1e-6);
    EXPECT_EQ(half.learned_from, 4u);
    // Five of eight agree, fewer than two thirds: the group's scaled squares 0, 1, 1, 4, 4 have
    // the same median 1. Over all eight the median move would be 0.015.
    const auto three_moved = suite_spread(
        std::vector<double>{0, 0.01, -0.01, 0.02, -0.02, 0.3, 0.4, 0.5}, one_percent(8));
    EXPECT_EQ(three_moved.centre, 0);
    EXPECT_NEAR(three_moved.spread, 0.0109458180978753, 1e-9);
    EXPECT_EQ(three_moved.learned_from, 5u);
}

TEST(SuiteSpread, IsTheWholeSuitesMedianAndSpreadWhenTwoThirdsAgree) {
    // Nothing moved: every benchmark agrees, and the figures are those of run_to_run_spread().
    const auto still = suite_spread(std::vector<double>{-0.1, 0, 0.1}, std::vector<double>(3, 0.0));
    EXPECT_EQ(still.centre, 0);
    EXPECT_NEAR(still.spread, 0.148260221850560, 1e-9);
    EXPECT_EQ(still.learned_from, 3u);
    // One of four moved by 0.5: three agree, three quarters of the suite, and the figures are
    // the whole suite's, median 0.005 and τ 0.0155996 (as tests/compare/samples_method_test
    // computes): one benchmark outside moves the median of the scaled squares by half a rank.
    const std::vector<double> one_moved{0, 0.01, -0.01, 0.5};
    const std::vector<double> within(4, std::numbers::pi / 2.0 * 2 * 1e-4 / 10);
    EXPECT_EQ(largest_agreeing_group(one_moved, within).size(), 3u);
    const auto whole = suite_spread(one_moved, within);
    EXPECT_DOUBLE_EQ(whole.centre, 0.005);
    EXPECT_NEAR(whole.spread, 0.0155996, 1e-6);
    EXPECT_EQ(whole.learned_from, 4u);
    // Too few to learn a spread from: two of four agree with each other, and fewer than
    // kAgreeingGroupMinimum.
    const auto pairs = suite_spread(std::vector<double>{0, 0.01, 0.3, 0.31}, one_percent(4));
    EXPECT_EQ(pairs.learned_from, 4u);
    EXPECT_DOUBLE_EQ(pairs.centre, 0.155);
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
