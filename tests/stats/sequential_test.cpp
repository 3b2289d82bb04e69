// What could break: confirm's sequential rules deciding too early (an interval narrower than its
// level allows, evidence that a fair coin reaches too often, or error spent per look not divided
// over the looks) or never (ranks off by one).
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

TEST(SignMixtureEvidence, IsTheLikelihoodRatioMixedOverTheUpperHalf) {
    EXPECT_DOUBLE_EQ(sign_mixture_evidence(0, 0), 1);  // no value: no evidence either way
    // ∫ over [1/2, 1] of 2 × 2(1 − p) dp = 1/2: one value below halves it
    EXPECT_DOUBLE_EQ(sign_mixture_evidence(1, 0), 0.5);
    // ∫ over [1/2, 1] of 2 × (2p) × 2(1 − p) dp = 8 × (1/6 − 1/12) = 2/3
    EXPECT_NEAR(sign_mixture_evidence(2, 1), 2.0 / 3.0, 1e-14);
    // 2^9 × (1 − 2^-9) / 9: eight values above
    EXPECT_NEAR(sign_mixture_evidence(8, 8), 511.0 / 9.0, 1e-12);
    EXPECT_LT(sign_mixture_evidence(8, 7), sign_mixture_evidence(8, 8));
}

// The chance that a fair coin's evidence ever reaches `threshold` in `looks` flips, summed exactly
// over every path (a path stops where it first reaches it).
double chance_of_ever_reaching(double threshold, int looks) {
    std::vector<double> chance_of_count{1.0};  // by the count of heads so far, paths still going
    double reached = 0;
    for (int n = 1; n <= looks; ++n) {
        std::vector<double> next(chance_of_count.size() + 1, 0.0);
        for (std::size_t heads = 0; heads < chance_of_count.size(); ++heads)
            for (const std::size_t after : {heads, heads + 1}) {
                const double chance = chance_of_count[heads] / 2;
                if (sign_mixture_evidence(n, static_cast<int>(after)) >= threshold)
                    reached += chance;
                else
                    next[after] += chance;
            }
        chance_of_count = std::move(next);
    }
    return reached;
}

TEST(SignMixtureEvidence, ReachesOneOverAlphaWithChanceAtMostAlphaOverAnyNumberOfLooks) {
    EXPECT_LE(chance_of_ever_reaching(20, 30), 0.05);
    EXPECT_LE(chance_of_ever_reaching(20, 200), 0.05);
    EXPECT_GT(chance_of_ever_reaching(20, 30), 0.01);  // not vacuously strict either
}

TEST(SequentialSignRank, IsTheLargestRankWhoseEvidenceReachesTwoOverAlpha) {
    EXPECT_EQ(sequential_sign_rank(7, 0.05), 0);  // 255 / 8 = 31.9 < 40
    EXPECT_EQ(sequential_sign_rank(8, 0.05), 1);  // 511 / 9 = 56.8 >= 40
    // 17 of 20 above: 87.5 >= 40; 16 of 20: 20.5 < 40
    EXPECT_EQ(sequential_sign_rank(20, 0.05), 4);
    EXPECT_EQ(sequential_sign_rank(0, 0.05), 0);
}

TEST(FewestValuesForSequence, IsTheFirstCountWithAFiniteInterval) {
    EXPECT_EQ(fewest_values_for_sequence(0.05), 8);
    EXPECT_EQ(fewest_values_for_sequence(0.05 / 30),
              14);  // (2^15 − 1) / 15 = 2184 >= 1200; n = 13: 1170
}

TEST(MedianConfidenceSequence, TakesTheOrderStatisticsOfTheRank) {
    const std::vector<double> eight{8, 1, 7, 2, 6, 3, 5, 4};
    const auto interval = median_confidence_sequence(eight, 0.05);
    EXPECT_EQ(interval.low, 1);
    EXPECT_EQ(interval.high, 8);
    std::vector<double> twenty;
    for (int i = 20; i >= 1; --i) twenty.push_back(i * 0.01);  // rank 4: 4th and 17th smallest
    const auto wider = median_confidence_sequence(twenty, 0.05);
    EXPECT_DOUBLE_EQ(wider.low, 0.04);
    EXPECT_DOUBLE_EQ(wider.high, 0.17);
    EXPECT_FALSE(
        median_confidence_sequence(std::vector<double>{1, 2, 3, 4, 5, 6, 7}, 0.05).finite());
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
