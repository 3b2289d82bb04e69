// What could break: the seed rule's numbers (medians, typical change over the last pairs, the
// threshold's two bounds and its strictness, directions) silently flagging the wrong benchmarks;
// the intervals backtest prints for short histories being narrower than their data allows.
#include "stats/stats.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace benchwatch::stats {
namespace {

TEST(Median, OddCountIsTheMiddleValue) {
    const std::vector<double> values{5, 1, 3};  // sorted 1 3 5
    EXPECT_DOUBLE_EQ(median(values), 3);
}

TEST(Median, EvenCountAveragesTheTwoMiddleValues) {
    const std::vector<double> values{3, 1, 2, 10};  // sorted 1 2 3 10 → (2 + 3) / 2
    EXPECT_DOUBLE_EQ(median(values), 2.5);
}

TEST(Median, OfFiveIsTheThirdSmallestWhateverTheOrder) {
    // Every order of five distinct values, and of values with ties.
    for (const std::vector<double>& set :
         {std::vector<double>{1, 2, 3, 4, 5}, std::vector<double>{-2, 0.5, 0.5, 7, 7},
          std::vector<double>{3, 3, 3, 1, 9}}) {
        auto values = set;
        std::sort(values.begin(), values.end());
        const double third = values[2];
        do {
            EXPECT_EQ(median(values), third);
        } while (std::next_permutation(values.begin(), values.end()));
    }
    EXPECT_EQ(median(std::vector<double>{0.3, -1e300, 1e300, 0.2, 0.1}), 0.2);
}

TEST(Median, EmptyIsZero) {
    EXPECT_EQ(median({}), 0);
}

TEST(KeptOrderStatistics, KeepsEverySampleSortedUpToTheBound) {
    EXPECT_EQ(kept_order_statistics(std::vector<double>{5, 1, 4, 2, 3}, 5),
              (std::vector<double>{1, 2, 3, 4, 5}));
    EXPECT_EQ(kept_order_statistics(std::vector<double>{}, 5), std::vector<double>{});
}

TEST(KeptOrderStatistics, KeepsTheEndsAndEvenlySpacedRanksBeyondTheBound) {
    EXPECT_EQ(kept_order_statistics(std::vector<double>{5, 1, 4, 2, 3}, 3),
              (std::vector<double>{1, 3, 5}));
    // 101 values 0 … 100 kept as 5: ranks 0, 25, 50, 75, 100.
    std::vector<double> hundred;
    for (int i = 100; i >= 0; --i) hundred.push_back(i);
    EXPECT_EQ(kept_order_statistics(hundred, 5), (std::vector<double>{0, 25, 50, 75, 100}));
    // 10 values kept as 4: ranks round(0), round(3), round(6), round(9).
    EXPECT_EQ(kept_order_statistics(std::vector<double>{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, 4),
              (std::vector<double>{0, 3, 6, 9}));
}

TEST(Mean, AveragesAndEmptyIsZero) {
    const std::vector<double> values{1, 2, 3, 4};  // 10 / 4
    EXPECT_DOUBLE_EQ(mean(values), 2.5);
    EXPECT_EQ(mean({}), 0);
}

TEST(SampleStddev, UsesNMinusOne) {
    // mean 5; squared deviations 9 1 1 1 0 0 4 16 sum to 32; sqrt(32 / 7)
    const std::vector<double> values{2, 4, 4, 4, 5, 5, 7, 9};
    EXPECT_DOUBLE_EQ(sample_stddev(values), std::sqrt(32.0 / 7.0));
}

TEST(SampleStddev, FewerThanTwoValuesIsZero) {
    const std::vector<double> one{42};
    EXPECT_EQ(sample_stddev(one), 0);
    EXPECT_EQ(sample_stddev({}), 0);
}

TEST(Minimum, FindsTheSmallest) {
    const std::vector<double> values{3, -1, 2};
    EXPECT_EQ(minimum(values), -1);
}

TEST(PairsUsed, CountsConsecutivePairsUpToTheLimit) {
    EXPECT_EQ(pairs_used(0, 30), 0);
    EXPECT_EQ(pairs_used(1, 30), 0);
    EXPECT_EQ(pairs_used(5, 30), 4);
    EXPECT_EQ(pairs_used(31, 30), 30);
    EXPECT_EQ(pairs_used(41, 30), 30);
    EXPECT_EQ(pairs_used(41, 40), 40);
}

TEST(TypicalChange, NoHistoryIsZero) {
    EXPECT_EQ(typical_change({}, 30), 0);
    const std::vector<double> single{5};
    EXPECT_EQ(typical_change(single, 30), 0);
}

TEST(TypicalChange, OnePairIsItsLogRatio) {
    const std::vector<double> series{100, 125};  // |ln(125 / 100)|
    EXPECT_DOUBLE_EQ(typical_change(series, 30), std::log(1.25));
}

TEST(TypicalChange, UpAndDownCountTheSame) {
    const std::vector<double> series{100, 110, 100};  // ln(1.1) and |ln(1 / 1.1)|
    EXPECT_DOUBLE_EQ(typical_change(series, 30), std::log(1.1));
}

TEST(TypicalChange, EqualValuesAreZero) {
    const std::vector<double> series{7, 7, 7, 7};
    EXPECT_EQ(typical_change(series, 30), 0);
}

TEST(TypicalChange, EvenPairCountAveragesTheMiddleTwo) {
    // pairs: ln 2, 0, ln 2, ln 1.5 → sorted 0, ln 1.5, ln 2, ln 2 → (ln 1.5 + ln 2) / 2 = ln(3) / 2
    const std::vector<double> series{100, 200, 200, 100, 150};
    EXPECT_DOUBLE_EQ(typical_change(series, 30), std::log(3.0) / 2);
}

TEST(TypicalChange, OnlyTheLastPairsCount) {
    // 20 values alternating 1, 2, then 21 values of 3: 41 values, 40 pairs:
    // pairs 0–18 are ln 2 (19 of them), pair 19 is 2 → 3 (ln 1.5), pairs 20–39 are 0 (20 of them).
    std::vector<double> series;
    for (int i = 0; i < 20; ++i) series.push_back(i % 2 == 0 ? 1 : 2);
    for (int i = 0; i < 21; ++i) series.push_back(3);
    // Last 30 pairs (10–39): 9 × ln 2, ln 1.5, 20 × 0 → the 15th and 16th sorted are both 0.
    EXPECT_EQ(typical_change(series, 30), 0);
    // All 40 pairs: 20 × 0, ln 1.5, 19 × ln 2 → the 20th and 21st sorted are 0 and ln 1.5.
    EXPECT_DOUBLE_EQ(typical_change(series, 40), std::log(1.5) / 2);
}

TEST(GeometricMean, OfRatios) {
    const std::vector<double> reciprocal{2, 0.5};  // sqrt(2 × 0.5)
    EXPECT_DOUBLE_EQ(geometric_mean(reciprocal), 1);
    const std::vector<double> powers{2, 4, 8};  // cbrt(64)
    EXPECT_DOUBLE_EQ(geometric_mean(powers), 4);
    const std::vector<double> pair{1, 4};  // sqrt(4)
    EXPECT_DOUBLE_EQ(geometric_mean(pair), 2);
}

TEST(GeometricMean, EmptyIsOne) {
    EXPECT_EQ(geometric_mean({}), 1);
}

TEST(SeedThreshold, CategoryMinimumWinsOverSmallNoise) {
    // 3 × 0.005 = 0.015 < ln(1.03) ≈ 0.02956 (log1p: 1.03 itself is not exact in binary)
    EXPECT_DOUBLE_EQ(seed_threshold(0.005, 3, 0.03), std::log1p(0.03));
    EXPECT_NEAR(seed_threshold(0.005, 3, 0.03), 0.0295588, 1e-7);
    // 3 × 0.01 = 0.03 > ln(1.03) ≈ 0.02956: the noise bound wins by a hair
    EXPECT_DOUBLE_EQ(seed_threshold(0.01, 3, 0.03), 0.03);
}

TEST(SeedThreshold, NoiseWinsOverTheMinimum) {
    // 3 × 0.02 = 0.06 > ln(1.05) ≈ 0.04879
    EXPECT_DOUBLE_EQ(seed_threshold(0.02, 3, 0.05), 0.06);
    // 2.5 × 0.1 = 0.25
    EXPECT_DOUBLE_EQ(seed_threshold(0.1, 2.5, 0.03), 0.25);
}

// A category minimum of 3% with no noise: the bound is ln(1.03), so 3.01% is unusual and 2.99%
// is not, in both directions.
TEST(Judge, CategoryMinimumBoundOnBothSides) {
    const double threshold = seed_threshold(0, 3, 0.03);
    EXPECT_EQ(judge(100, 103.01, threshold, true), Judgement::Worse);
    EXPECT_EQ(judge(100, 102.99, threshold, true), Judgement::Unchanged);
    EXPECT_EQ(judge(100, 100 / 1.0301, threshold, true), Judgement::Better);
    EXPECT_EQ(judge(100, 100 / 1.0299, threshold, true), Judgement::Unchanged);
}

// Typical change 0.02 with factor 3: the bound is 0.06 in log space, above ln(1.03); a change of
// e^0.059 ≈ +6.1% is still noise, e^0.061 ≈ +6.3% is not.
TEST(Judge, NoiseBoundOnBothSides) {
    const double threshold = seed_threshold(0.02, 3, 0.03);
    EXPECT_EQ(judge(100, 100 * std::exp(0.061), threshold, true), Judgement::Worse);
    EXPECT_EQ(judge(100, 100 * std::exp(0.059), threshold, true), Judgement::Unchanged);
    EXPECT_EQ(judge(100, 100 * std::exp(-0.061), threshold, true), Judgement::Better);
    EXPECT_EQ(judge(100, 100 * std::exp(-0.059), threshold, true), Judgement::Unchanged);
}

TEST(Judge, BiggerIsBetterFlipsTheDirection) {
    const double threshold = seed_threshold(0.02, 3, 0.03);
    EXPECT_EQ(judge(100, 100 * std::exp(0.061), threshold, false), Judgement::Better);
    EXPECT_EQ(judge(100, 100 * std::exp(-0.061), threshold, false), Judgement::Worse);
    EXPECT_EQ(judge(100, 100 * std::exp(0.059), threshold, false), Judgement::Unchanged);
}

TEST(Judge, ExactlyAtTheThresholdIsUnchanged) {
    // |ln(150 / 100)| == ln(1.5), computed the same way: not strictly greater
    EXPECT_EQ(judge(100, 150, std::log(150.0 / 100.0), true), Judgement::Unchanged);
}

TEST(Judge, EqualValuesAreUnchangedEvenWithZeroThreshold) {
    EXPECT_EQ(judge(42, 42, 0, true), Judgement::Unchanged);
}

TEST(DownsampleExtremes, KeepsEachBucketsSmallestAndLargestInOrder) {
    // buckets of 3: {5, 1, 9} keeps positions 1 (min) and 2 (max); {3, 4, 8} keeps 3 and 5
    const std::vector<double> values{5, 1, 9, 3, 4, 8};
    EXPECT_EQ(downsample_extremes(values, 4), (std::vector<std::size_t>{1, 2, 3, 5}));
}

TEST(DownsampleExtremes, ShortSeriesAreKeptWhole) {
    const std::vector<double> values{3, 2, 1};
    EXPECT_EQ(downsample_extremes(values, 3), (std::vector<std::size_t>{0, 1, 2}));
    EXPECT_TRUE(downsample_extremes(std::vector<double>{}, 2).empty());
}

TEST(DownsampleExtremes, FlatBucketKeepsOnePointAndAStepSurvives) {
    // 8 values into 3 buckets (max 7 → 3): starts at 0, 8/3 = 2, 16/3 = 5 → [0,2) [2,5) [5,8).
    // [0,2) is flat: one point, 0. [2,5) = {1, 1, 9}: min 2, max 4. [5,8) = {9, 9, 9}: 5.
    const std::vector<double> values{1, 1, 1, 1, 9, 9, 9, 9};
    EXPECT_EQ(downsample_extremes(values, 7), (std::vector<std::size_t>{0, 2, 4, 5}));
}

TEST(DownsampleExtremes, KeepsAtMostMaxPoints) {
    std::vector<double> values;
    for (int i = 0; i < 5000; ++i) values.push_back(std::sin(i * 0.01) + 2);
    const auto kept = downsample_extremes(values, 301);
    EXPECT_LE(kept.size(), 301u);
    EXPECT_GE(kept.size(), 150u);
    EXPECT_TRUE(std::is_sorted(kept.begin(), kept.end()));
    EXPECT_EQ(std::adjacent_find(kept.begin(), kept.end()), kept.end());
}

}  // namespace
TEST(WilsonInterval, HalfOfTenByHand) {
    // p = 0.5, n = 10, z² = 3.8416: centre (0.5 + 0.19208) / 1.38416 = 0.5; half-width
    // 1.96 / 1.38416 × √(0.025 + 0.009604) = 1.416021 × 0.186022 = 0.263411.
    const auto interval = wilson_interval(5, 10, 1.96);
    EXPECT_NEAR(interval.low, 0.5 - 0.263411, 1e-6);
    EXPECT_NEAR(interval.high, 0.5 + 0.263411, 1e-6);
}

TEST(WilsonInterval, AllCaughtStillLeavesRoomBelow) {
    // 1 of 1: centre (1 + 1.9208) / 4.8416 = 0.603272, half-width 1.96 / 4.8416 × √(0.9604) =
    // 0.396728: the interval is [0.206544, 1], not the point 1.
    const auto interval = wilson_interval(1, 1, 1.96);
    EXPECT_NEAR(interval.low, 0.206544, 1e-6);
    EXPECT_DOUBLE_EQ(interval.high, 1.0);
    const auto none = wilson_interval(0, 0, 1.96);
    EXPECT_EQ(none.low, 0.0);
    EXPECT_EQ(none.high, 1.0);
}

TEST(RateInterval, OneUnitGetsThePoissonWidth) {
    // One pull request with one fluke: no spread to measure, so the error is √(1 / 1) = 1.
    const std::vector<double> one{1};
    const auto interval = rate_interval(one, 1.96);
    EXPECT_DOUBLE_EQ(interval.low, 0.0);
    EXPECT_DOUBLE_EQ(interval.high, 2.96);
}

TEST(RateInterval, TheSampleSpreadWinsWhenItIsWider) {
    // {0, 2}: mean 1, sample standard deviation √2, error √2 / √2 = 1 > √(1 / 2) = 0.707.
    const std::vector<double> counts{0, 2};
    const auto interval = rate_interval(counts, 1.0);
    EXPECT_DOUBLE_EQ(interval.low, 0.0);
    EXPECT_DOUBLE_EQ(interval.high, 2.0);
    // {3, 3, 3, 3}: no spread, so the Poisson error √(3 / 4) = 0.866 gives 3 ± 0.866.
    const std::vector<double> steady{3, 3, 3, 3};
    const auto narrow = rate_interval(steady, 1.0);
    EXPECT_NEAR(narrow.low, 3 - std::sqrt(0.75), 1e-12);
    EXPECT_NEAR(narrow.high, 3 + std::sqrt(0.75), 1e-12);
}

}  // namespace benchwatch::stats
