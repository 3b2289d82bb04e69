// What could break: the change-point detector calling a one-run spike a step, missing or
// misplacing a clean step, or finding fewer than 9 in 10 of the noise model's steps.
#include "stats/change_points.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <vector>

#include "stats/noise_model.hpp"

namespace benchwatch::stats {
namespace {

TEST(ChangePoints, CleanStepIsFound) {
    // No noise, so the noise level is the floor 0.001. One level costs 8 × (ln 1.2 / 2)² / 0.001²
    // ≈ 66,460 noise units; two levels cost 0 plus the penalty 3 × ln 8 ≈ 6.2.
    const std::vector<double> values{10, 10, 10, 10, 12, 12, 12, 12};
    EXPECT_EQ(change_points(values), std::vector<std::size_t>{4});
}

// Alternating 100 and 102 with the value at `spike` doubled.
std::vector<double> alternating_with_spike(std::size_t spike) {
    std::vector<double> values;
    for (std::size_t i = 0; i < 16; ++i) values.push_back(i % 2 == 0 ? 100 : 102);
    values[spike] *= 2;
    return values;
}

TEST(ChangePoints, OneRunSpikeIsNotAStep) {
    // Consecutive values differ by ln 1.02 ≈ 0.0198 (all but the two pairs at the spike), so the
    // noise level is 1.4826 × 0.0198 / √2 ≈ 0.0208 and the spike (ln 2 ≈ 0.69, 33 noise levels)
    // is clipped to 1.5 × 0.0208 above the median of its neighbours (≈ ln 102): it then moves the
    // cost by about 1.5² ≈ 2.3, under the penalty 3 × ln 16 ≈ 8.3 of even one step.
    EXPECT_TRUE(change_points(alternating_with_spike(7)).empty());
    EXPECT_TRUE(change_points(alternating_with_spike(0)).empty());
    EXPECT_TRUE(change_points(alternating_with_spike(15)).empty());
}

TEST(ChangePoints, UnclippedSpikeWouldBecomeAShortSegment) {
    // The same spike without clipping costs about 33² ≈ 1,100 noise units as part of a level,
    // and a three-run segment around it saves far more than two penalties: this is what the clip
    // is for.
    ChangePointSettings unclipped;
    unclipped.clip = 1e9;
    EXPECT_FALSE(change_points(alternating_with_spike(7), unclipped).empty());
}

TEST(ChangePoints, TwoStepsInOrder) {
    // Levels 10, 12, 9.
    const std::vector<double> values{10, 10, 10, 10, 12, 12, 12, 12, 9, 9, 9, 9};
    EXPECT_EQ(change_points(values), (std::vector<std::size_t>{4, 8}));
}

TEST(ChangePoints, ConstantSeriesHasNone) {
    const std::vector<double> values(20, 5.0);
    EXPECT_TRUE(change_points(values).empty());
}

TEST(ChangePoints, EachSideNeedsTheMinimumSegment) {
    // Five values cannot hold two segments of three; six can.
    const std::vector<double> five{10, 10, 12, 12, 12};
    const std::vector<double> six{10, 10, 10, 12, 12, 12};
    EXPECT_TRUE(change_points(five).empty());
    EXPECT_EQ(change_points(six), std::vector<std::size_t>{3});
    EXPECT_TRUE(change_points(std::vector<double>{}).empty());
    EXPECT_TRUE(change_points(std::vector<double>{7}).empty());
}

TEST(ChangePoints, TwoRunBlipIsNotAStep) {
    // Runs 7 and 8 are 30% up. Each five-run window around them holds at most two high values,
    // so its median is a low one (e.g. around run 7: 102, 100, 130, 132.6, 100 → 102) and both
    // are clipped to 1.5 noise levels (1.5 × 0.0208) above it: a three-run segment around them
    // then saves less than the two penalties (2 × 3 × ln 16 ≈ 16.6) it would cost.
    auto values = alternating_with_spike(15);
    values[15] = 102;
    values[7] *= 1.3;
    values[8] *= 1.3;
    EXPECT_TRUE(change_points(values).empty());
}

TEST(ChangePoints, StepsUnderTheMinimumAreMergedAway) {
    // Without noise both steps beat the penalty; 101 / 100 moves the median by 1%, under the
    // minimum of 2%, and 103 / 100 by 3%.
    const std::vector<double> one_percent{100, 100, 100, 100, 101, 101, 101, 101};
    const std::vector<double> three_percent{100, 100, 100, 100, 103, 103, 103, 103};
    EXPECT_TRUE(change_points(one_percent).empty());
    EXPECT_EQ(change_points(three_percent), std::vector<std::size_t>{4});
}

TEST(LeastCostPartition, TwoLevelsByHand) {
    // One level: mean 0.5, 6 × 0.5² = 1.5 noise units. Two levels cost nothing but one penalty.
    const std::vector<double> values{0, 0, 0, 1, 1, 1};
    EXPECT_EQ(least_cost_partition(values, 1, 1, 1), std::vector<std::size_t>{3});
    EXPECT_TRUE(least_cost_partition(values, 1, 1, 2).empty());
    // In units of noise 0.5 one level costs 6 and the split still 2.
    EXPECT_EQ(least_cost_partition(values, 0.5, 1, 2), std::vector<std::size_t>{3});
    EXPECT_TRUE(least_cost_partition(values, 1, 4, 0.1).empty());
}

// The least costly partition by weighing every start at every end, each segment's cost summed
// from its end backwards: what least_cost_partition() must equal however it narrows its search.
std::vector<std::size_t> every_start_weighed(const std::vector<double>& values, double noise,
                                             std::size_t minimum, double penalty) {
    std::vector<double> best(values.size() + 1, INFINITY);
    std::vector<std::size_t> previous(values.size() + 1, 0);
    best[0] = -penalty;
    for (std::size_t end = minimum; end <= values.size(); ++end) {
        double sum = 0;
        double squares = 0;
        for (std::size_t start = end; start-- > 0;) {
            sum += values[start];
            squares += values[start] * values[start];
            const auto count = static_cast<double>(end - start);
            if (end - start < minimum || (start > 0 && start < minimum)) continue;
            const double cost = (squares - sum * sum / count) / (noise * noise);
            const double total = best[start] + cost + penalty;
            if (total <= best[end]) {
                best[end] = total;
                previous[end] = start;
            }
        }
    }
    std::vector<std::size_t> starts;
    for (std::size_t end = values.size(); end > 0; end = previous[end])
        if (previous[end] > 0) starts.insert(starts.begin(), previous[end]);
    return starts;
}

TEST(LeastCostPartition, SameAsWeighingEveryStart) {
    // Long steady stretches, where pruning drops nothing and the search narrows by its bound,
    // between steps of 2 to 8 noise levels; then a series that steps every 40 values.
    SeededRandom random(7);
    std::vector<double> steady;
    double level = 0;
    for (std::size_t i = 0; i < 3000; ++i) {
        if (i % 700 == 699) level += random.uniform(-8, 8);
        steady.push_back(level + random.normal());
    }
    std::vector<double> stepping;
    for (std::size_t i = 0; i < 600; ++i) {
        if (i % 40 == 39) level += random.uniform(-6, 6);
        stepping.push_back(level + random.normal());
    }
    for (const auto* values : {&steady, &stepping})
        for (const std::size_t minimum : {1, 3})
            for (const double penalty : {3 * std::log(3000.0), 2.0}) {
                const auto found = least_cost_partition(*values, 1, minimum, penalty);
                EXPECT_EQ(found, every_start_weighed(*values, 1, minimum, penalty))
                    << "minimum " << minimum << ", penalty " << penalty;
                EXPECT_FALSE(found.empty());
            }
}

TEST(SeededRandom, FirstUniformIsTheEnginesFirstOutputScaled) {
    // mt19937_64 seeded with 5489 first gives 14514284786278117030; its top 53 bits / 2^53 =
    // 0.7868209548678019.
    SeededRandom random(5489);
    EXPECT_DOUBLE_EQ(random.uniform(), 0.7868209548678019);
}

TEST(NoiseModel, SameSeedSameSeriesAndStepsWhereTheModelSays) {
    const NoiseModel model;
    for (std::uint64_t seed = 1; seed <= 50; ++seed) {
        const auto series = generate_series(seed, model);
        const auto again = generate_series(seed, model);
        EXPECT_EQ(series.values, again.values);
        EXPECT_EQ(series.steps, again.steps);
        ASSERT_GE(series.values.size(), model.min_length);
        ASSERT_LE(series.values.size(), model.max_length);
        EXPECT_GE(series.noise, model.min_noise);
        EXPECT_LE(series.noise, model.max_noise);
        ASSERT_EQ(series.ratios.size(), series.steps.size());
        for (std::size_t i = 0; i < series.steps.size(); ++i) {
            EXPECT_GE(series.steps[i], model.spacing);
            EXPECT_LE(series.steps[i], series.values.size() - model.spacing);
            if (i > 0) {
                EXPECT_GE(series.steps[i] - series.steps[i - 1], model.spacing);
            }
            const double size = std::abs(std::log(series.ratios[i]));
            EXPECT_GE(size, std::log1p(model.min_step) - 1e-12);
            EXPECT_LE(size, std::log1p(model.max_step) + 1e-12);
        }
        for (const double value : series.values) EXPECT_GT(value, 0);
    }
    EXPECT_NE(generate_series(1).values, generate_series(2).values);
}

// How many of `detected` lie within `margin` runs of a step in `truth`, each true step matched
// at most once (to the first detection near it).
std::size_t matched_steps(const std::vector<std::size_t>& detected,
                          const std::vector<std::size_t>& truth, std::size_t margin) {
    std::vector<bool> taken(truth.size(), false);
    std::size_t matched = 0;
    for (const std::size_t found : detected) {
        std::size_t best = truth.size();
        std::size_t best_distance = margin + 1;
        for (std::size_t i = 0; i < truth.size(); ++i) {
            const std::size_t distance = found > truth[i] ? found - truth[i] : truth[i] - found;
            if (!taken[i] && distance < best_distance) {
                best = i;
                best_distance = distance;
            }
        }
        if (best < truth.size()) {
            taken[best] = true;
            ++matched;
        }
    }
    return matched;
}

TEST(ChangePoints, NoiseModelStepsFoundWithF1AtLeast0_9WithinFiveRuns) {
    // The detector's own figure: 200 generated series (seeds 1–200), a detection counts
    // when it lies within 5 runs of a true step not matched yet.
    constexpr std::size_t margin = 5;
    std::size_t detected = 0, truth = 0, matched = 0, runs = 0;
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
        const auto series = generate_series(seed);
        const auto found = change_points(series.values);
        detected += found.size();
        truth += series.steps.size();
        matched += matched_steps(found, series.steps, margin);
        runs += series.values.size();
    }
    const double precision = static_cast<double>(matched) / static_cast<double>(detected);
    const double recall = static_cast<double>(matched) / static_cast<double>(truth);
    const double f1 = 2 * precision * recall / (precision + recall);
    std::cout << "change points on 200 generated series (" << runs << " runs, " << truth
              << " true steps, " << detected << " detected, " << matched
              << " within 5 runs): precision " << precision << ", recall " << recall << ", F1 "
              << f1 << "\n";
    EXPECT_GE(f1, 0.9);
}

}  // namespace
}  // namespace benchwatch::stats
