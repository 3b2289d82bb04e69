// What could break: a budget shared by noise that gives a benchmark a threshold below its own
// noise, that spends flukes it cannot afford at a high price (or refuses catches at a low one),
// whose thresholds fall as the price rises (the calibration's search then finds no crossing),
// or a lookup that reads the wrong point of the table.
#include "stats/budget_share.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace benchwatch::stats {
namespace {

// The smallest candidate threshold at or above `bound`.
double smallest_threshold_from(double bound) {
    const auto grid = share_threshold_grid();
    return *std::find_if(grid.begin(), grid.end(), [&](double t) { return t >= bound; });
}

// The index of the grid noise nearest `noise`.
std::size_t noise_index_near(double noise) {
    const auto grid = share_noise_grid();
    std::size_t best = 0;
    for (std::size_t i = 0; i < grid.size(); ++i)
        if (std::abs(std::log(grid[i] / noise)) < std::abs(std::log(grid[best] / noise))) best = i;
    return best;
}

TEST(BudgetShare, TheGridsSpanTheDocumentedRanges) {
    const auto noises = share_noise_grid();
    ASSERT_EQ(noises.size(), 160u);
    EXPECT_NEAR(noises.front(), 1e-4, 1e-12);
    EXPECT_NEAR(noises.back(), 3.0, 1e-9);
    const auto thresholds = share_threshold_grid();
    ASSERT_EQ(thresholds.size(), 80u);
    EXPECT_NEAR(thresholds.front(), std::log(1.01), 1e-12);
    EXPECT_NEAR(thresholds.back(), std::log(4.0), 1e-9);
}

TEST(BudgetShare, WithNoScoresEveryThresholdIsTheLargest) {
    const double sizes[] = {0.1};
    const BudgetShare share({}, sizes);
    for (const double threshold : share.thresholds(1.0))
        EXPECT_DOUBLE_EQ(threshold, share_threshold_grid().back());
}

// Scores −1, 0, 1, 2 and one size, 0.1. For a benchmark of noise σ ≈ 0.1, a threshold τ in
// [σ, 2σ) flags |score| > τ/σ ∈ [1, 2): only the 2, a fluke rate of 1/4, and catches a 0.1
// regression when score > (τ − 0.1)/σ, which is under 1: at least the 1 and the 2, 1/2. Any τ
// from 2σ on flags nothing and catches only the 2 (score > about 1), 1/4. So the first is worth
// at least 1/2 − price/4 and the second at most 1/4: below a price of 1 the smallest τ ≥ σ wins,
// and at a price of 3 (1/2 − 3/4 < 0 < 1/4) the smallest τ ≥ 2σ does.
TEST(BudgetShare, BuysCatchesWithFlukesOnlyWhileTheyAreCheap) {
    const double sizes[] = {0.1};
    const BudgetShare share({-1, 0, 1, 2}, sizes);
    const auto n = noise_index_near(0.1);
    const double noise = share_noise_grid()[n];
    ASSERT_NEAR(noise, 0.1, 0.01);
    EXPECT_DOUBLE_EQ(share.thresholds(0.5)[n], smallest_threshold_from(noise));
    EXPECT_DOUBLE_EQ(share.thresholds(3)[n], smallest_threshold_from(2 * noise));
}

// At price 0 only catches count, and they fall as the threshold rises: the smallest threshold
// allowed, which is never below the benchmark's noise. At an enormous price no fluke is worth
// anything: the smallest threshold beyond every score, 2σ here (|score| at most 2).
TEST(BudgetShare, NeverGoesBelowTheNoiseAndAvoidsEveryFlukeAtAnEnormousPrice) {
    const double sizes[] = {0.1, 0.2};
    const BudgetShare share({-1, 0, 1, 2}, sizes);
    const auto noises = share_noise_grid();
    const auto free = share.thresholds(0);
    const auto dear = share.thresholds(1e9);
    for (std::size_t n = 0; n < noises.size(); ++n) {
        if (2 * noises[n] > share_threshold_grid().back()) break;  // beyond the largest one
        EXPECT_DOUBLE_EQ(free[n], smallest_threshold_from(noises[n])) << noises[n];
        EXPECT_DOUBLE_EQ(dear[n], smallest_threshold_from(2 * noises[n])) << noises[n];
    }
    // Noisier than every candidate: the largest, the only one allowed.
    EXPECT_DOUBLE_EQ(free.back(), share_threshold_grid().back());
}

TEST(BudgetShare, ThresholdsNeverFallAsThePriceRises) {
    std::vector<double> scores;
    for (int i = -30; i <= 30; ++i) scores.push_back(i / 10.0 + (i % 7 == 0 ? 4 : 0));
    const double sizes[] = {std::log(1.1), std::log(1.2)};
    const BudgetShare share(scores, sizes);
    auto previous = share.thresholds(0.01);
    for (double price = 0.02; price < 1000; price *= 1.5) {
        const auto now = share.thresholds(price);
        for (std::size_t n = 0; n < now.size(); ++n) EXPECT_GE(now[n], previous[n]) << price;
        previous = now;
    }
}

TEST(ThresholdAt, InterpolatesInLogNoiseAndHoldsTheEnds) {
    const auto noises = share_noise_grid();
    std::vector<double> table(noises.size());
    for (std::size_t i = 0; i < table.size(); ++i) table[i] = 0.01 * static_cast<double>(i);
    const auto at = [&](double noise) { return threshold_at(table, grid_position(noise)); };
    EXPECT_DOUBLE_EQ(at(noises[3]), 0.03);
    // Halfway between points 3 and 4 in ln noise: halfway between their thresholds.
    EXPECT_NEAR(at(std::sqrt(noises[3] * noises[4])), 0.035, 1e-12);
    EXPECT_DOUBLE_EQ(at(1e-9), 0.0);
    EXPECT_DOUBLE_EQ(at(0.0), 0.0);
    EXPECT_DOUBLE_EQ(at(100.0), 1.59);
}

}  // namespace
}  // namespace benchwatch::stats
