// What could break: confirm's loop measuring in the wrong order (drift would not cancel),
// judging against the wrong line, deciding before the interval allows, running past its rounds
// or budget, or revising a verdict once reached.
#include "run/confirm.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace benchwatch::run {
namespace {

model::Result time_result(const std::string& name, double value) {
    model::Result result;
    result.benchmark = name;
    result.value = value;
    return result;
}

ConfirmTarget flagged_target(const std::string& name, double change) {
    ConfirmTarget target;
    target.name = name;
    target.flagged = change > 0 ? model::Verdict::Slower : model::Verdict::Faster;
    target.flagged_change = change;
    return target;
}

const ConfirmSettings kDefault;

// ln(1.1) repeated: every round measured head 10% slower.
std::vector<double> rounds_of(double change, int count) {
    return std::vector<double>(static_cast<std::size_t>(count), std::log1p(change));
}

TEST(JudgeRounds, ConfirmsAChangeBeyondHalfTheFlaggedOne) {
    // Flagged +20%: the line is sqrt(1.2) − 1 = +9.54%; eight rounds at +10% are beyond it, and
    // at alpha 0.05 eight values give the interval [min, max] = [+10%, +10%].
    const auto judged = judge_rounds(flagged_target("a", 0.2), rounds_of(0.10, 8), kDefault);
    EXPECT_EQ(judged.verdict, model::ConfirmationVerdict::Confirmed);
    EXPECT_EQ(judged.measured, model::Verdict::Slower);
    EXPECT_NEAR(judged.boundary, std::sqrt(1.2) - 1, 1e-12);
    EXPECT_NEAR(judged.change, 0.10, 1e-12);
    EXPECT_NEAR(*judged.change_low, 0.10, 1e-12);
    EXPECT_EQ(judged.rounds, 8);
}

TEST(JudgeRounds, DismissesAChangeShortOfHalfTheFlaggedOne) {
    // +9% < +9.54%: short of the line, so the flagged +20% was mostly noise.
    const auto judged = judge_rounds(flagged_target("a", 0.2), rounds_of(0.09, 8), kDefault);
    EXPECT_EQ(judged.verdict, model::ConfirmationVerdict::Dismissed);
    EXPECT_EQ(judged.measured, model::Verdict::Unchanged);
}

TEST(JudgeRounds, MirrorsForAFlaggedSpeedUp) {
    // Flagged −19%: the line is sqrt(0.81) − 1 = −10%; −12% is beyond, −5% short of it.
    EXPECT_EQ(judge_rounds(flagged_target("a", -0.19), rounds_of(-0.12, 8), kDefault).measured,
              model::Verdict::Faster);
    EXPECT_EQ(judge_rounds(flagged_target("a", -0.19), rounds_of(-0.05, 8), kDefault).verdict,
              model::ConfirmationVerdict::Dismissed);
}

TEST(JudgeRounds, StaysUndecidedWhileTheIntervalCrossesTheLine) {
    // Seven values cannot make a 95% interval: all seven above is evidence 255 / 8 < 2 / 0.05.
    const auto few = judge_rounds(flagged_target("a", 0.2), rounds_of(0.5, 7), kDefault);
    EXPECT_EQ(few.verdict, model::ConfirmationVerdict::Undecided);
    EXPECT_FALSE(few.change_low.has_value());
    // Eight values spanning the line at ln(1.2)/2 = 0.0912: interval [0.0, 0.2] crosses it.
    const std::vector<double> spread{0.0, 0.2, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1};
    EXPECT_EQ(judge_rounds(flagged_target("a", 0.2), spread, kDefault).verdict,
              model::ConfirmationVerdict::Undecided);
}

TEST(JudgeRounds, WithoutAFlagJudgesAgainstTheMinimumEitherWay) {
    ConfirmTarget target;
    target.name = "a";
    target.minimum_change = 0.03;
    EXPECT_EQ(judge_rounds(target, rounds_of(-0.04, 8), kDefault).measured, model::Verdict::Faster);
    EXPECT_EQ(judge_rounds(target, rounds_of(0.02, 8), kDefault).verdict,
              model::ConfirmationVerdict::Dismissed);
    // [+1%, +4%] crosses +3%.
    const std::vector<double> across{
        std::log1p(0.01), std::log1p(0.04), 0.02, 0.02, 0.02, 0.02, 0.02, 0.02};
    EXPECT_EQ(judge_rounds(target, across, kDefault).verdict,
              model::ConfirmationVerdict::Undecided);
    // Bigger is better: a 4% rise is an improvement.
    target.direction = model::Direction::BiggerIsBetter;
    EXPECT_EQ(judge_rounds(target, rounds_of(0.04, 8), kDefault).measured, model::Verdict::Faster);
}

// A fake pair of builds: head is `head_factor` times base; records the order of measurements.
struct FakeBuilds {
    double head_factor = 1.0;
    std::vector<Build> order{};
    std::vector<model::Result> operator()(Build build) {
        order.push_back(build);
        return {time_result("a", build == Build::Head ? 100 * head_factor : 100),
                time_result("b", 50)};
    }
};

TEST(Confirm, AlternatesWhichBuildGoesFirstAndStopsWhenAllAreDecided) {
    FakeBuilds builds{1.2};
    ConfirmSettings settings;
    settings.max_rounds = 10;  // no matter to the confidence sequence: 8 rounds at alpha 0.05
    const auto confirmation = confirm(
        std::vector{flagged_target("a", 0.2)}, {}, std::ref(builds), [] { return 0.0; }, settings);
    EXPECT_EQ(confirmation.first_deciding_round, 8);
    EXPECT_EQ(confirmation.rounds, 8);
    EXPECT_EQ(confirmation.stop, model::ConfirmationStop::AllDecided);
    ASSERT_EQ(confirmation.benchmarks.size(), 1u);
    EXPECT_EQ(confirmation.benchmarks[0].verdict, model::ConfirmationVerdict::Confirmed);
    ASSERT_GE(builds.order.size(), 4u);
    EXPECT_EQ(builds.order[0], Build::Base);
    EXPECT_EQ(builds.order[1], Build::Head);
    EXPECT_EQ(builds.order[2], Build::Head);
    EXPECT_EQ(builds.order[3], Build::Base);
    EXPECT_EQ(builds.order.size(), 16u);
}

TEST(Confirm, WithoutTargetsJudgesEveryBenchmarkInBoth) {
    FakeBuilds builds{1.2};
    ConfirmSettings settings;
    settings.max_rounds = 10;
    const auto confirmation = confirm(
        std::nullopt, model::default_categories(), std::ref(builds), [] { return 0.0; }, settings);
    ASSERT_EQ(confirmation.benchmarks.size(), 2u);
    EXPECT_EQ(confirmation.benchmarks[0].measured, model::Verdict::Slower);  // a: +20%
    EXPECT_EQ(confirmation.benchmarks[1].verdict, model::ConfirmationVerdict::Dismissed);  // b
    EXPECT_NEAR(confirmation.benchmarks[1].boundary, 0.03, 1e-12);  // Performance's minimum
}

TEST(Confirm, NoRoundStartsThatWouldEndPastTheBudget) {
    FakeBuilds builds{1.2};
    double now = 0;
    // Each round takes 10 s of the fake clock: after 5 rounds (50 s) a sixth would end at 60 s.
    auto measure = [&](Build build) {
        now += 5;
        return builds(build);
    };
    ConfirmSettings settings;
    settings.time_budget_seconds = 55;
    const auto confirmation = confirm(
        std::vector{flagged_target("a", 0.2)}, {}, measure, [&] { return now; }, settings);
    EXPECT_EQ(confirmation.rounds, 5);
    EXPECT_EQ(confirmation.stop, model::ConfirmationStop::TimeBudget);
    EXPECT_EQ(confirmation.benchmarks[0].verdict, model::ConfirmationVerdict::Undecided);
}

TEST(Confirm, AVerdictOnceReachedStays) {
    // Head is 20% slower for 8 rounds (decided at round 8), then equal; "b" is never decided
    // since the target's line sits at its true change of 0.
    int measured = 0;
    auto measure = [&](Build build) {
        ++measured;
        const double factor = build == Build::Head && measured <= 16 ? 1.2 : 1.0;
        return std::vector{time_result("a", 100 * factor), time_result("b", 50)};
    };
    ConfirmTarget never;
    never.name = "b";
    never.flagged_change = 0.0;
    ConfirmSettings settings;
    settings.max_rounds = 10;
    const auto confirmation = confirm(
        std::vector{flagged_target("a", 0.2), never}, {}, measure, [] { return 0.0; }, settings);
    EXPECT_EQ(confirmation.rounds, 10);
    EXPECT_EQ(confirmation.stop, model::ConfirmationStop::MaxRounds);
    EXPECT_EQ(confirmation.benchmarks[0].verdict, model::ConfirmationVerdict::Confirmed);
    EXPECT_EQ(confirmation.benchmarks[0].rounds, 8);
    EXPECT_EQ(confirmation.benchmarks[1].verdict, model::ConfirmationVerdict::Undecided);
}

TEST(Confirm, MissingTargetIsAnErrorNamingTheBuildAndRound) {
    FakeBuilds builds;
    try {
        confirm(std::vector{flagged_target("c", 0.2)}, {}, std::ref(builds), [] { return 0.0; },
                {});
        FAIL() << "expected ConfirmError";
    } catch (const ConfirmError& error) {
        EXPECT_STREQ(error.what(),
                     "benchmark 'c' is missing from the base command's results in round 1; make "
                     "--base-cmd run every benchmark to confirm (or leave it out of "
                     "--only-unusual's report)");
    }
}

TEST(TargetsFromReport, TakesOnlyTimeVerdictsWithTheirChange) {
    model::Comparison report;
    report.categories = model::default_categories();
    model::BenchmarkComparison slower;
    slower.name = "z";
    slower.base = 100;
    slower.head = 125;
    slower.verdict = model::Verdict::Slower;
    model::BenchmarkComparison allocation_only = slower;
    allocation_only.name = "y";
    allocation_only.verdict = model::Verdict::Unchanged;
    allocation_only.allocation_change = model::AllocationChange::Starts;
    report.benchmarks = {slower, allocation_only};
    const auto targets = targets_from_report(report);
    ASSERT_EQ(targets.size(), 1u);
    EXPECT_EQ(targets[0].name, "z");
    EXPECT_DOUBLE_EQ(*targets[0].flagged_change, 0.25);  // 125 / 100 − 1
}

}  // namespace
}  // namespace benchwatch::run
