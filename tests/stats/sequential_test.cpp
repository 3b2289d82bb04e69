// What could break: confirm's sequential rule deciding too early (an interval narrower than its
// level allows, or error spent per look not divided over the looks) or never (ranks off by one).
#include "stats/sequential.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace benchwatch::stats {
namespace {

TEST(BinomialHalfCdf, SumsTheCoinFlipProbabilities) {
    EXPECT_DOUBLE_EQ(binomial_half_cdf(3, 0), 0.125);             // 1 / 8
    EXPECT_DOUBLE_EQ(binomial_half_cdf(4, 1), 0.3125);            // (1 + 4) / 16
    EXPECT_NEAR(binomial_half_cdf(10, 1), 11.0 / 1024.0, 1e-15);  // (1 + 10) / 2^10
    // (1 + 20 + 190 + 1140 + 4845 + 15504) / 2^20
    EXPECT_NEAR(binomial_half_cdf(20, 5), 21700.0 / 1048576.0, 1e-15);
}

TEST(BinomialHalfCdf, IsZeroBelowAndOneFromTheEnd) {
    EXPECT_EQ(binomial_half_cdf(5, -1), 0);
    EXPECT_EQ(binomial_half_cdf(5, 5), 1);
    EXPECT_EQ(binomial_half_cdf(5, 9), 1);
}

TEST(SignIntervalRank, IsTheLargestRankWithinTheLevel) {
    EXPECT_EQ(sign_interval_rank(6, 0.05), 1);  // 2 × 1/64 = 0.031; rank 2: 2 × 7/64 = 0.22
    EXPECT_EQ(sign_interval_rank(5, 0.05), 0);  // 2 × 1/32 = 0.0625 > 0.05
    // 2 × 21700/2^20 = 0.041 <= 0.05; rank 7: 2 × (21700 + 38760)/2^20 = 0.115
    EXPECT_EQ(sign_interval_rank(20, 0.05), 6);
    EXPECT_EQ(sign_interval_rank(3, 0.9), 1);  // rank 2 would be 2 × 1/2 = 1 > 0.9
    EXPECT_EQ(sign_interval_rank(0, 0.05), 0);
}

TEST(FewestValuesForInterval, IsTheFirstCountWithAFiniteInterval) {
    EXPECT_EQ(fewest_values_for_interval(0.05), 6);  // 2^-5 = 0.031; 2^-4 = 0.0625
    // confirm's default: 0.05 over 30 looks = 0.00167; 2^-10 = 0.00098, 2^-9 = 0.00195
    EXPECT_EQ(fewest_values_for_interval(0.05 / 30), 11);
}

TEST(MedianInterval, TakesTheOrderStatisticsOfTheRank) {
    const std::vector<double> six{5, 1, 4, 2, 3, 6};  // rank 1: smallest and largest
    const auto interval = median_interval(six, 0.05);
    EXPECT_EQ(interval.low, 1);
    EXPECT_EQ(interval.high, 6);
    EXPECT_TRUE(interval.finite());

    std::vector<double> twenty;
    for (int i = 20; i >= 1; --i) twenty.push_back(i * 0.01);  // rank 6: 6th and 15th smallest
    const auto wider = median_interval(twenty, 0.05);
    EXPECT_DOUBLE_EQ(wider.low, 0.06);
    EXPECT_DOUBLE_EQ(wider.high, 0.15);
}

TEST(MedianInterval, IsUnboundedWithTooFewValues) {
    const std::vector<double> five{1, 2, 3, 4, 5};
    const auto interval = median_interval(five, 0.05);
    EXPECT_FALSE(interval.finite());
    EXPECT_EQ(side_of(interval, 0), Side::Across);
}

TEST(AlphaPerLook, DividesTheErrorOverTheLooks) {
    EXPECT_DOUBLE_EQ(alpha_per_look(0.05, 10), 0.005);
    EXPECT_DOUBLE_EQ(alpha_per_look(0.05, 1), 0.05);
}

TEST(SideOf, NeedsTheWholeIntervalStrictlyOnOneSide) {
    EXPECT_EQ(side_of({0.1, 0.3}, 0.05), Side::Above);
    EXPECT_EQ(side_of({-0.3, -0.1}, 0.05), Side::Below);
    EXPECT_EQ(side_of({0.0, 0.1}, 0.05), Side::Across);
    EXPECT_EQ(side_of({0.05, 0.1}, 0.05), Side::Across);  // touching is not beyond
}

}  // namespace
}  // namespace benchwatch::stats
