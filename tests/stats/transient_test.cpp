// What could break: the level method's noise taken over the wrong window, steps counted as noise
// (inflating every threshold after a change), or spikes dropped as steps (hiding real noise).
#include "stats/transient.hpp"

#include <gtest/gtest.h>

#include <cmath>
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

}  // namespace
}  // namespace benchwatch::stats
