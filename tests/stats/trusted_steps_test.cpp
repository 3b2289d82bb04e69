// What could break: a step trusted whose level does not last five runs (three for the latest
// level), a step with three runs after it at the end of the history missed, that is no bigger than
// the detectable change before it, or that the rank test does not back; a doubted step left
// standing instead of merged into its neighbours; a one-run spike shown as a step; or the
// Mann–Whitney p-value computed with the wrong ranks, ties or variance. (A series alternating
// between two levels is tested in tests/compare/changes_test.cpp, with the level method's
// threshold that stops it.)
#include "stats/trusted_steps.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "stats/noise_model.hpp"
#include "stats/rank_test.hpp"

namespace benchwatch::stats {
namespace {

// The category minimum of 3% as the only threshold, so that these tests see the other rules.
const DetectableLogChange three_percent = [](std::span<const double>) { return std::log(1.03); };

TEST(MannWhitney, SeparatedSamplesByHand) {
    // Ranks of {1, 2, 3} among {1…6}: 1 + 2 + 3 = 6, U = 6 − 3 × 4 / 2 = 0, mean 4.5,
    // σ² = 9 / 12 × 7 = 5.25, z = (4.5 − 0.5) / 2.2913 = 1.7457, p = erfc(1.2344) = 0.080856.
    const std::vector<double> low{1, 2, 3};
    const std::vector<double> high{4, 5, 6};
    EXPECT_NEAR(mann_whitney_p_value(low, high), 0.080856, 1e-6);
    EXPECT_NEAR(mann_whitney_p_value(high, low), 0.080856, 1e-6);  // two-sided
}

TEST(MannWhitney, TiesTakeTheirAverageRankAndShrinkTheVariance) {
    // Pooled 1, 2, 2, 2, 3, 4: the three 2s share rank (2 + 3 + 4) / 3 = 3. R = 1 + 3 + 3 = 7,
    // U = 7 − 6 = 1; Σ(t³ − t) = 24, σ² = 9 / 12 × (7 − 24 / 30) = 4.65,
    // z = (|1 − 4.5| − 0.5) / 2.1564 = 1.3912, p = 0.164160.
    const std::vector<double> a{1, 2, 2};
    const std::vector<double> b{2, 3, 4};
    EXPECT_NEAR(mann_whitney_p_value(a, b), 0.164160, 1e-6);
}

TEST(MannWhitney, FiveAgainstFiveSeparatedDoesNotReachOnePercent) {
    // U = 0, mean 12.5, σ² = 25 / 12 × 11 = 22.917, z = 12 / 4.7871 = 2.5067, p = 0.012186:
    // two levels of five runs need some ties, or more runs, to be trusted at α = 0.01.
    const std::vector<double> low{1, 2, 3, 4, 5};
    const std::vector<double> high{11, 12, 13, 14, 15};
    EXPECT_NEAR(mann_whitney_p_value(low, high), 0.012186, 1e-6);
}

TEST(MannWhitneyExact, CountsTheChoicesAsExtremeAsTheOneSeen) {
    // {1, 2, 3} against {4, 5, 6}: of the C(6, 3) = 20 ways to pick three ranks, only 1 + 2 + 3
    // and 4 + 5 + 6 are 4.5 away from the mean rank sum 10.5: p = 2 / 20.
    const std::vector<double> low{1, 2, 3};
    const std::vector<double> high{4, 5, 6};
    EXPECT_DOUBLE_EQ(mann_whitney_exact_p_value(low, high), 0.1);
    EXPECT_DOUBLE_EQ(mann_whitney_exact_p_value(high, low), 0.1);
    // Three runs above nine: 2 / C(12, 3) = 2 / 220, below 0.01 where the normal
    // approximation gives z = (13.5 − 0.5) / √(27 × 13 / 12) = 2.4037, p = 0.016230.
    const std::vector<double> nine{1, 2, 3, 4, 5, 6, 7, 8, 9};
    const std::vector<double> three{11, 12, 13};
    EXPECT_NEAR(mann_whitney_exact_p_value(nine, three), 2.0 / 220, 1e-15);
    EXPECT_NEAR(mann_whitney_p_value(nine, three), 0.016230, 1e-6);
    // Eight below three: 2 / C(11, 3) = 2 / 165 = 0.012121, not below 0.01.
    EXPECT_NEAR(mann_whitney_exact_p_value(std::span(nine).first(8), three), 2.0 / 165, 1e-15);
}

TEST(MannWhitneyExact, TiesKeepTheirAverageRanks) {
    // Ten at 100 and three at 120: the ten have ranks 5.5 each, the three 12 each. A choice of
    // ten is as extreme as the one seen only when it is those ten: p = 1 / C(13, 3) = 1 / 286
    // (no choice reaches the other side: ten can hold at most three 12s).
    const std::vector<double> ten(10, 100);
    const std::vector<double> three(3, 120);
    EXPECT_NEAR(mann_whitney_exact_p_value(ten, three), 1.0 / 286, 1e-15);
    const std::vector<double> same{5, 5, 5};
    const std::vector<double> none;
    EXPECT_EQ(mann_whitney_exact_p_value(same, same), 1.0);
    EXPECT_EQ(mann_whitney_exact_p_value(same, none), 1.0);
}

TEST(MannWhitney, NothingToTellApart) {
    const std::vector<double> same{5, 5, 5};
    const std::vector<double> none;
    EXPECT_EQ(mann_whitney_p_value(same, same), 1.0);  // every value equal: σ² = 0
    EXPECT_EQ(mann_whitney_p_value(same, none), 1.0);
    // Interleaved {1, 3, 5} and {2, 4, 6}: R = 9, U = 3, |U − 4.5| − ½ = 1, z = 0.4364,
    // p = 0.662521.
    const std::vector<double> odd{1, 3, 5};
    const std::vector<double> even{2, 4, 6};
    EXPECT_NEAR(mann_whitney_p_value(odd, even), 0.662521, 1e-6);
}

// `count` runs at `low`, then `count` at `high`.
std::vector<double> two_levels(std::size_t count, double low, double high) {
    std::vector<double> values(count, low);
    values.insert(values.end(), count, high);
    return values;
}

TEST(TrustedSteps, CleanStepWithItsEvidence) {
    // The detector's step at 10, ratio 1.2; ten runs each side; detectable 3%; ten against ten
    // all tied within: only the ten 100s and the ten 120s are as extreme a choice of ten as the
    // one seen, p = 2 / C(20, 10) = 2 / 184756 = 1.0825e-5.
    const auto steps = trusted_steps(two_levels(10, 100, 120), three_percent);
    ASSERT_EQ(steps.size(), 1u);
    EXPECT_EQ(steps[0].step.index, 10u);
    EXPECT_DOUBLE_EQ(steps[0].step.ratio, 1.2);
    EXPECT_EQ(steps[0].runs_before, 10u);
    EXPECT_EQ(steps[0].runs_after, 10u);
    EXPECT_NEAR(steps[0].detectable_change, 0.03, 1e-12);
    EXPECT_NEAR(steps[0].p_value, 2.0 / 184756, 1e-15);
}

TEST(TrustedSteps, TheThresholdSeesOnlyTheRunsBeforeTheStep) {
    std::vector<std::size_t> seen;
    const DetectableLogChange recording = [&](std::span<const double> before) {
        seen.push_back(before.size());
        return std::log(1.03);
    };
    trusted_steps(two_levels(10, 100, 120), recording);
    EXPECT_EQ(seen, std::vector<std::size_t>{10});
}

TEST(TrustedSteps, EachLevelMustLastFiveRuns) {
    // The detector finds both steps of 100 ×8, 130 ×4, 100 ×8 (segments of 3 suffice for it);
    // the four-run level is too short, so the smaller step (by the medians, 130/100 up and
    // 100/130 down are equal in size: the first) is dropped, and with it merged the other moves
    // the medians of 100 ×8 and (130 ×4, 100 ×8) = 100 not at all: too small, dropped too.
    std::vector<double> values(8, 100);
    values.insert(values.end(), 4, 130);
    values.insert(values.end(), 8, 100);
    ASSERT_EQ(change_points(values).size(), 2u);
    EXPECT_TRUE(trusted_steps(values, three_percent).empty());
    TrustedStep step;
    const std::vector<std::size_t> starts{8, 12};
    EXPECT_EQ(doubt_about(values, starts, 0, three_percent, {}, step), StepDoubt::TooShort);
    EXPECT_EQ(step.runs_after, 4u);
    // Five runs suffice: 100 ×8, 130 ×5, 100 ×8 keeps both.
    values.insert(values.begin() + 12, 130);
    EXPECT_EQ(trusted_steps(values, three_percent).size(), 2u);
}

TEST(TrustedSteps, NoBiggerThanTheDetectableChangeIsNoStep) {
    // A clean 20% step against a threshold of ln 1.25: too small; against ln 1.19: trusted.
    const auto values = two_levels(10, 100, 120);
    const DetectableLogChange wide = [](std::span<const double>) { return std::log(1.25); };
    const DetectableLogChange narrow = [](std::span<const double>) { return std::log(1.19); };
    EXPECT_TRUE(trusted_steps(values, wide).empty());
    EXPECT_EQ(trusted_steps(values, narrow).size(), 1u);
    TrustedStep step;
    const std::vector<std::size_t> starts{10};
    EXPECT_EQ(doubt_about(values, starts, 0, wide, {}, step), StepDoubt::TooSmall);
    EXPECT_NEAR(step.detectable_change, 0.25, 1e-12);
}

TEST(TrustedSteps, TheRankTestMustReject) {
    // Levels 100…103, 121 then 120, 122…125, and the detector's step between them: a's rank sum
    // is 1 + 2 + 3 + 4 + 6 = 16, and of the C(10, 5) = 252 choices of five ranks only those
    // summing to 15 or 16 (and 39 or 40 on the other side) are as far from 27.5: p = 4 / 252,
    // not below α = 0.01, though below 0.05. Without the overlap, 2 / 252 = 0.0079 is.
    const std::vector<double> values{100, 101, 102, 103, 121, 120, 122, 123, 124, 125};
    const std::vector<std::size_t> starts{5};
    TrustedStep step;
    EXPECT_EQ(doubt_about(values, starts, 0, three_percent, {}, step), StepDoubt::NotSignificant);
    EXPECT_NEAR(step.p_value, 4.0 / 252, 1e-15);
    StepTrustSettings lenient;
    lenient.alpha = 0.05;
    EXPECT_EQ(doubt_about(values, starts, 0, three_percent, lenient, step), StepDoubt::None);
    const std::vector<double> apart{100, 101, 102, 103, 104, 120, 121, 122, 123, 124};
    EXPECT_EQ(doubt_about(apart, starts, 0, three_percent, {}, step), StepDoubt::None);
    EXPECT_NEAR(step.p_value, 2.0 / 252, 1e-15);
}

TEST(TrustedSteps, TheLatestLevelNeedsThreeRunsAboveNineBefore) {
    // Ten different runs around 102 then 130, 131, 132 at the end: the new level has had only three
    // runs to last, which is enough for the latest; the three lie above the ten before it, p = 2 /
    // 286.
    std::vector<double> values{100,   104.5, 101,   103.5, 102, 100.5, 104,
                               101.5, 103,   102.5, 130,   131, 132};
    const auto steps = trusted_steps(values, three_percent);
    ASSERT_EQ(steps.size(), 1u);
    EXPECT_EQ(steps[0].step.index, 10u);
    EXPECT_DOUBLE_EQ(steps[0].step.ratio, 131 / 102.25);
    EXPECT_EQ(steps[0].runs_after, 3u);
    EXPECT_NEAR(steps[0].p_value, 2.0 / 286, 1e-15);
    // With eight runs before, three above them cannot reach 0.01: 2 / C(11, 3) = 2 / 165.
    const std::vector<double> short_before(values.begin() + 2, values.end());
    TrustedStep step;
    const std::vector<std::size_t> starts{8};
    EXPECT_EQ(doubt_about(short_before, starts, 0, three_percent, {}, step),
              StepDoubt::NotSignificant);
    EXPECT_NEAR(step.p_value, 2.0 / 165, 1e-15);
    // The same three runs followed by the old level again did not last: too short.
    auto spell = values;
    spell.insert(spell.end(), {100, 104, 101, 103, 102, 100, 104, 101});
    const std::vector<std::size_t> around{10, 13};
    EXPECT_EQ(doubt_about(spell, around, 0, three_percent, {}, step), StepDoubt::TooShort);
}

TEST(TrustedSteps, OneRunSpikesAreNoSteps) {
    // 100 and 101 alternating over 60 runs, every fifth run 60% slower: the spikes alone would
    // make a level of their own only as segments of one run, which no rule lets through.
    std::vector<double> values;
    for (std::size_t i = 0; i < 60; ++i)
        values.push_back((i % 2 == 0 ? 100 : 101) * (i % 5 == 4 ? 1.6 : 1.0));
    EXPECT_TRUE(trusted_steps(values, three_percent).empty());
}

// trusted_steps() as its rules say it: every step judged again after each drop.
std::vector<TrustedStep> judging_every_step(std::span<const double> values,
                                            const DetectableLogChange& detectable) {
    auto starts = change_points(values);
    while (true) {
        std::vector<TrustedStep> trusted(starts.size());
        std::size_t weakest = starts.size();
        auto weakest_key = std::pair{std::numeric_limits<std::size_t>::max(),
                                     std::numeric_limits<double>::infinity()};
        for (std::size_t i = 0; i < starts.size(); ++i) {
            const auto doubt = doubt_about(values, starts, i, detectable, {}, trusted[i]);
            if (doubt == StepDoubt::None) continue;
            const auto key = std::pair{doubt == StepDoubt::TooShort
                                           ? std::min(trusted[i].runs_before, trusted[i].runs_after)
                                           : std::numeric_limits<std::size_t>::max(),
                                       std::abs(std::log(trusted[i].step.ratio))};
            if (key < weakest_key) {
                weakest = i;
                weakest_key = key;
            }
        }
        if (weakest == starts.size()) return trusted;
        starts.erase(starts.begin() + static_cast<std::ptrdiff_t>(weakest));
    }
}

TEST(TrustedSteps, SameAsJudgingEveryStepAgain) {
    // Levels of 6 to 14 runs, 1% to 12% apart, ±1.5% noise: the detector finds dozens of steps,
    // of which many are too short, too small or not significant and are dropped one by one; the
    // threshold grows as the runs before a step get fewer than 40.
    SeededRandom random(3);
    std::vector<double> values;
    double level = 100;
    while (values.size() < 600) {
        level *= 1 + random.uniform(-0.12, 0.12);
        for (std::size_t run = random.integer(6, 14); run > 0; --run)
            values.push_back(level * (1 + random.uniform(-0.015, 0.015)));
    }
    const DetectableLogChange shrinking = [](std::span<const double> before) {
        return std::log(1.03) + 0.2 / static_cast<double>(std::min<std::size_t>(before.size(), 40));
    };
    const auto trusted = trusted_steps(values, shrinking);
    const auto expected = judging_every_step(values, shrinking);
    ASSERT_EQ(trusted.size(), expected.size());
    EXPECT_GT(trusted.size(), 5U);
    EXPECT_LT(trusted.size(), change_points(values).size());
    for (std::size_t i = 0; i < trusted.size(); ++i) {
        EXPECT_EQ(trusted[i].step, expected[i].step);
        EXPECT_EQ(trusted[i].runs_before, expected[i].runs_before);
        EXPECT_EQ(trusted[i].runs_after, expected[i].runs_after);
        EXPECT_EQ(trusted[i].detectable_change, expected[i].detectable_change);
        EXPECT_EQ(trusted[i].p_value, expected[i].p_value);
    }
}

}  // namespace
}  // namespace benchwatch::stats
