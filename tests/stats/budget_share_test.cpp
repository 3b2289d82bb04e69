// What could break: pooled shares counted in the wrong units (a spike scaled by a quiet
// benchmark's noise), a prior mixed in by the wrong weight, a threshold below half its noise, a
// budget shared by noise that spends
// flukes it cannot afford at a high price (or refuses catches at a low one), flukes that rise as
// the price rises (the calibration's search then finds no crossing), or a lookup that reads the
// wrong point of the table.
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

// Pooled scores all in one noise unit: every one in the core.
std::vector<PooledScore> in_noise_units(std::initializer_list<double> scores) {
    std::vector<PooledScore> pooled;
    for (const double score : scores) pooled.push_back({score, std::abs(score), 1.0});
    return pooled;
}

TEST(PriorTail, IsLinearUpToTheNoiseThenFallsAsOneOverTheScoreWithSpikesUnder65Percent) {
    EXPECT_NEAR(prior_fluke_rate(0.1, 0.05), 0.05 + 0.01, 1e-12);  // u = 2: 0.1/2
    EXPECT_NEAR(prior_fluke_rate(0.05, 0.1), 0.55 + 0.01, 1e-12);  // u = 0.5: 1 − 0.45
    EXPECT_NEAR(prior_fluke_rate(0.6, 0.06), 0.01, 1e-12);         // u = 10, beyond the spikes
    EXPECT_DOUBLE_EQ(prior_fluke_rate(0, 0.1), 1.0);               // 1.01, clamped
    EXPECT_NEAR(prior_share_above(0.1, 0.05), 0.03, 1e-12);
    EXPECT_NEAR(prior_share_above(-0.1, 0.05), 0.97, 1e-12);
}

TEST(BudgetShare, WithNoScoresThePriorAloneDecides) {
    const double sizes[] = {0.1};
    const BudgetShare share({}, sizes, 0.7);
    EXPECT_DOUBLE_EQ(share.fluke_rate(0.1, 0.05), prior_fluke_rate(0.1, 0.05));
    EXPECT_DOUBLE_EQ(share.share_above(-0.1, 0.05), prior_share_above(-0.1, 0.05));
}

// Five pooled benchmarks of five past pull requests:
//   score 1, noise 0.1; score −2, noise 0.1; score 3 whose move lasted (no fluke), noise 0.1;
//   score 10 at noise 0.05 and −8 at noise 0.1, beyond the core: pooled by their sizes, 0.5 and
//   −0.8.
// Core fluke magnitudes {0, 1, 2}, large fluke sizes {0.5, 0.8}; core scores {−2, 1, 3}, large
// score sizes {0.5, −0.8}.
std::vector<PooledScore> five_scores() {
    return {{1, 1, 0.1}, {-2, 2, 0.1}, {3, 0, 0.1}, {10, 10, 0.05}, {-8, 8, 0.1}};
}

TEST(BudgetShare, PoolsTheCoreInNoiseUnitsAndTheTailBySize) {
    const double sizes[] = {0.1};
    const auto scores = five_scores();
    const BudgetShare share(scores, sizes, 1.0);
    // τ = 0.15 at noise 0.1 is 1.5 noises: the core's 2, and both large sizes beyond 0.15.
    EXPECT_DOUBLE_EQ(share.fluke_rate(0.15, 0.1), 3.0 / 5);
    // 6 noises: no core score is beyond; only the size 0.8.
    EXPECT_DOUBLE_EQ(share.fluke_rate(0.6, 0.1), 1.0 / 5);
    // A quiet benchmark (noise 0.01) at 5 noises: the core is within, both spikes beyond 0.05.
    EXPECT_DOUBLE_EQ(share.fluke_rate(0.05, 0.01), 2.0 / 5);
    // Moves beyond +0.15 at noise 0.1 (1.5 noises): the core's 3 and the size 0.5.
    EXPECT_DOUBLE_EQ(share.share_above(0.15, 0.1), 2.0 / 5);
    // Beyond −0.7 at noise 0.1 (−7 noises): every core score, and the size 0.5, not −0.8.
    EXPECT_DOUBLE_EQ(share.share_above(-0.7, 0.1), 4.0 / 5);
}

TEST(BudgetShare, MixesThePriorByTheWeightOfTheEvidence) {
    const double sizes[] = {0.1};
    const auto scores = five_scores();
    const BudgetShare share(scores, sizes, 0.5);
    // Half of 3/5, and half of the prior at u = 1.5 (0.1/1.5 + 0.01).
    EXPECT_NEAR(share.fluke_rate(0.15, 0.1), 0.3 + 0.5 * (0.1 / 1.5 + 0.01), 1e-12);
}

// At price 0 only catches count, and they never rise with the threshold: the smallest candidate
// allowed wins, half the noise. At an enormous price no fluke is worth anything: the smallest
// threshold beyond every score, 2σ here (|score| at most 2).
TEST(BudgetShare, BuysEveryCatchForFreeAndAvoidsEveryFlukeAtAnEnormousPrice) {
    const double sizes[] = {0.1, 0.2};
    const auto scores = in_noise_units({-1, 0, 1, 2});
    const BudgetShare share(scores, sizes, 1.0);
    const auto noises = share_noise_grid();
    const auto free = share.thresholds(0);
    const auto dear = share.thresholds(1e9);
    for (std::size_t n = 0; n < noises.size(); ++n) {
        if (2 * noises[n] > share_threshold_grid().back()) break;  // beyond the largest one
        EXPECT_DOUBLE_EQ(free[n], smallest_threshold_from(kThresholdNoiseFloor * noises[n]))
            << noises[n];
        EXPECT_DOUBLE_EQ(dear[n], smallest_threshold_from(2 * noises[n])) << noises[n];
    }
}

// Every past move was a tenth of its benchmark's noise: any threshold from 0.1σ on risks no
// fluke, and the smallest catches the most, so a noisy benchmark gets one below its noise, but
// not below half of it.
TEST(BudgetShare, GoesBelowTheNoiseWhereTheHistoryNeverMovedThatFarButNotBelowHalfOfIt) {
    const double sizes[] = {std::log(1.1), std::log(1.2)};
    const auto scores = in_noise_units({0.1, -0.1, 0.1, -0.1});
    const BudgetShare share(scores, sizes, 1.0);
    const auto n = noise_index_near(0.2);
    ASSERT_EQ(kThresholdNoiseFloor, 0.5);
    EXPECT_DOUBLE_EQ(share.thresholds(10)[n], smallest_threshold_from(0.5 * share_noise_grid()[n]));
    EXPECT_LT(share.thresholds(10)[n], share_noise_grid()[n]);
}

TEST(BudgetShare, TheFlukesBoughtNeverRiseAsThePriceRises) {
    std::vector<double> raw;
    for (int i = -30; i <= 30; ++i) raw.push_back(i / 10.0 + (i % 7 == 0 ? 4 : 0));
    std::vector<PooledScore> scores;
    for (const double score : raw) scores.push_back({score, std::abs(score), 0.02});
    const double sizes[] = {std::log(1.1), std::log(1.2)};
    const BudgetShare share(scores, sizes, 0.8);
    const auto noises = share_noise_grid();
    const auto flukes_at = [&](double price) {
        std::vector<double> rates;
        const auto table = share.thresholds(price);
        for (std::size_t n = 0; n < table.size(); ++n)
            rates.push_back(share.fluke_rate(table[n], noises[n]));
        return rates;
    };
    auto previous = flukes_at(0.001);
    for (double price = 0.002; price < 1e5; price *= 1.5) {
        const auto now = flukes_at(price);
        for (std::size_t n = 0; n < now.size(); ++n) EXPECT_LE(now[n], previous[n]) << price;
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

namespace benchwatch::stats {
namespace {

TEST(ThresholdForNoise, BelowTheGridsSmallestThresholdItIsAsManyNoisesAsWhereTheTableLastChoseIt) {
    const auto noises = share_noise_grid();
    const double smallest = share_threshold_grid().front();
    // The table at 1% up to its 40th noise, and 1% plus the noise beyond.
    std::vector<double> table(noises.size());
    for (std::size_t i = 0; i < noises.size(); ++i)
        table[i] = i <= 40 ? smallest : smallest + noises[i];
    EXPECT_DOUBLE_EQ(threshold_for_noise(table, noises[40] / 4), smallest / 4);
    EXPECT_DOUBLE_EQ(threshold_for_noise(table, 0), 0) << "a count that never moved";
    EXPECT_DOUBLE_EQ(threshold_for_noise(table, noises[40]), smallest);
    EXPECT_DOUBLE_EQ(threshold_for_noise(table, noises[60]), smallest + noises[60]);
    // A table that never holds the smallest threshold is read as threshold_at() reads it.
    std::vector<double> above(noises.size(), 0.5);
    EXPECT_DOUBLE_EQ(threshold_for_noise(above, 1e-6), 0.5);
}

}  // namespace
}  // namespace benchwatch::stats
