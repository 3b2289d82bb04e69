// What could break: the level method's noise taken over the wrong window, steps counted as noise
// (inflating every threshold after a change), or spikes dropped as steps (hiding real noise).
#include "stats/transient.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <span>
#include <vector>

namespace benchwatch::stats {
namespace {

TEST(Quantile, InterpolatesBetweenTheSortedValues) {
    const std::vector<double> values{4, 1, 3, 2};  // sorted 1 2 3 4
    EXPECT_DOUBLE_EQ(quantile(values, 0.5), 2.5);  // position 1.5: 2 + 0.5 × (3 − 2)
    EXPECT_DOUBLE_EQ(quantile(values, 0.9), 3.7);  // position 2.7: 3 + 0.7 × (4 − 3)
    EXPECT_DOUBLE_EQ(quantile(values, 0), 1);
    EXPECT_DOUBLE_EQ(quantile(values, 1), 4);
}

TEST(Quantile, OfNothingIsZeroAndOfOneValueIsThatValue) {
    EXPECT_EQ(quantile({}, 0.9), 0);
    const std::vector<double> one{7};
    EXPECT_EQ(quantile(one, 0.9), 7);
}

TEST(Quantile, IsTheSortedValuesInterpolatedForEverySizeAndQuantile) {
    // Near the top the largest few are kept in one pass, elsewhere the values are partitioned:
    // both must give the sorted values' interpolation, with ties and in any order.
    std::mt19937 random(3);
    std::uniform_int_distribution<int> small(0, 9);
    for (std::size_t size = 1; size <= 60; ++size) {
        for (const double q : {0.0, 0.1, 0.5, 0.8, 0.9, 0.95, 0.99, 1.0}) {
            std::vector<double> values;
            for (std::size_t i = 0; i < size; ++i)
                values.push_back(i % 3 == 0 ? small(random) : std::ldexp(small(random) + 0.5, -3));
            auto sorted = values;
            std::sort(sorted.begin(), sorted.end());
            const double position = q * static_cast<double>(size - 1);
            const auto below = static_cast<std::size_t>(std::floor(position));
            const auto above = std::min(below + 1, size - 1);
            const double expected = sorted[below] + (position - static_cast<double>(below)) *
                                                        (sorted[above] - sorted[below]);
            EXPECT_EQ(quantile(values, q), expected) << size << " " << q;
            EXPECT_EQ(quantile_in_place(values, q), expected) << size << " " << q;
        }
    }
}

TEST(TransientDeviations, ASpikeThatDidNotLastIsNoise) {
    // Position 3: 1 − median(0, 0, 0) = 1; the next three runs' median (1, 0, 0) is 0, so the
    // move did not last. Positions 4…6: each value 0 minus a median of 0.
    const std::vector<double> series{0, 0, 0, 1, 0, 0, 0};
    EXPECT_EQ(transient_deviations(series, 3, 0.1), (std::vector<double>{1, 0, 0, 0}));
}

TEST(TransientDeviations, AStepThatLastedIsLeftOut) {
    // Position 3: 1 − 0 = 1, and median(1, 1, 1) − median(0, 0, 0) = 1 ≥ 1 / 2: left out.
    // Position 4: 1 − median(0, 0, 1) = 1, and median(1, 1, 1) − median(0, 0, 1) = 1: left out.
    // Positions 5, 6: 1 − median(0, 1, 1) = 0 and 1 − median(1, 1, 1) = 0, kept.
    const std::vector<double> series{0, 0, 0, 1, 1, 1, 1};
    EXPECT_EQ(transient_deviations(series, 3, 0.1), (std::vector<double>{0, 0}));
}

TEST(TransientDeviations, AMoveTooRecentToJudgeIsKept) {
    // Position 5 has only one run from it on (fewer than 3): its 1 is kept although it may last.
    const std::vector<double> series{0, 0, 0, 0, 0, 1};
    EXPECT_EQ(transient_deviations(series, 3, 0.1), (std::vector<double>{0, 0, 1}));
}

TEST(TransientDeviations, AMoveThatLastedOnlyHalfwayIsStillAStep) {
    // Position 3: 0.4 − 0 = 0.4; the next runs' median(0.4, 0.2, 0.2) = 0.2 ≥ 0.4 / 2: lasted.
    // Position 4: 0.2 − median(0, 0, 0.4) = 0.2; median(0.2, 0.2, 0.2) − 0 = 0.2: lasted.
    // Position 5: 0.2 − median(0, 0.4, 0.2) = 0, kept; positions 6…: 0 each.
    const std::vector<double> series{0, 0, 0, 0.4, 0.2, 0.2, 0.2};
    const auto deviations = transient_deviations(series, 3, 0.1);
    ASSERT_EQ(deviations.size(), 2U);
    EXPECT_NEAR(deviations[0], 0, 1e-12);
    EXPECT_NEAR(deviations[1], 0, 1e-12);
}

TEST(TransientDeviations, SmallMovesAreKeptWhateverFollowed) {
    // Position 3: 0.05 ≤ ignore_below 0.1, so it is noise even though the level stayed there.
    const std::vector<double> series{0, 0, 0, 0.05, 0.05, 0.05, 0.05};
    const auto deviations = transient_deviations(series, 3, 0.1);
    ASSERT_EQ(deviations.size(), 4U);
    EXPECT_DOUBLE_EQ(deviations[0], 0.05);
    EXPECT_DOUBLE_EQ(deviations[1], 0.05);  // 0.05 − median(0, 0, 0.05)
}

TEST(TransientDeviations, ShorterThanTheLevelHasNone) {
    const std::vector<double> series{0, 1, 2};
    EXPECT_TRUE(transient_deviations(series, 3, 0.1).empty());
}

TEST(WindowMedians, TakeTheMedianOfEveryRunOfConsecutiveValues) {
    const std::vector<double> values{3, 1, 2, 5};
    EXPECT_EQ(window_medians(values, 3), (std::vector<double>{2, 2}));  // of 3 1 2, of 1 2 5
    EXPECT_EQ(window_medians(values, 2), (std::vector<double>{2, 1.5, 3.5}));
    EXPECT_TRUE(window_medians(values, 5).empty());
}

TEST(TransientDeviations, FromAWholeSeriesMediansEqualThoseOfEachWindowOfIt) {
    // A replay judges the windows [s, e) of one series; the medians of the whole series, taken
    // once, must give every window exactly the deviations it gives alone: spikes, steps and
    // small moves, windows that end inside a step and windows shorter than two levels.
    std::vector<double> series;
    for (int i = 0; i < 120; ++i) {
        const double noise = 0.02 * std::sin(i * 2.3) + 0.015 * std::cos(i * 0.7);
        const double step = i >= 40 ? 0.3 : 0.0;
        const double spike = i % 17 == 5 ? 0.25 : 0.0;
        series.push_back(noise + step + spike);
    }
    for (const std::size_t level_runs : {1U, 3U, 5U}) {
        const auto medians = window_medians(series, level_runs);
        int compared = 0;
        for (std::size_t first = 0; first < series.size(); first += 7) {
            for (std::size_t last = first; last <= series.size(); last += 3) {
                const auto window = std::span<const double>(series).subspan(first, last - first);
                const auto alone = transient_deviations(window, level_runs, 0.1);
                const auto shared = transient_deviations(
                    window,
                    window.size() < level_runs ? std::span<const double>{}
                                               : std::span<const double>(medians).subspan(
                                                     first, window.size() - level_runs + 1),
                    level_runs, 0.1);
                ASSERT_EQ(alone, shared) << "window " << first << " to " << last;
                compared += alone.empty() ? 0 : 1;
            }
        }
        EXPECT_GT(compared, 100);
    }
}

TEST(WindowDeviations, AreTheTransientDeviationsOfEveryWindowOfTheSeries) {
    // A series with a lasting step, one-run spikes, a move back and ties: every window's
    // deviations from the whole series' must be those found in the window alone, the last `most`
    // of them, whatever the floor below which moves are never taken for steps.
    std::vector<double> logs;
    for (int i = 0; i < 90; ++i) {
        double value = 0.01 * ((i * 7) % 5);
        if (i >= 30) value += 0.4;
        if (i >= 60) value -= 0.3;
        if (i % 11 == 0) value += 0.8;
        logs.push_back(value);
    }
    const std::size_t level_runs = 5;
    const auto medians = window_medians(logs, level_runs);
    for (const double floor : {0.0, 0.02, 0.5}) {
        const auto series = series_deviations(logs, medians, level_runs, floor);
        std::vector<double> got;
        for (std::size_t first = 0; first < logs.size(); ++first)
            for (std::size_t end = first; end <= logs.size(); ++end)
                for (const std::size_t most : {3UL, 40UL, 1000UL}) {
                    auto expected = transient_deviations(
                        std::span<const double>(logs).subspan(first, end - first), level_runs,
                        floor);
                    if (expected.size() > most)
                        expected.erase(expected.begin(),
                                       expected.end() - static_cast<std::ptrdiff_t>(most));
                    window_deviations(series, first, end, most, got);
                    ASSERT_EQ(got, expected) << first << " " << end << " " << most << " " << floor;
                }
    }
}

}  // namespace
}  // namespace benchwatch::stats
