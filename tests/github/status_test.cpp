// What could break: the status's state not following --fail-on-regression, or its description
// miscounting the verdicts or saying "0 slower" without the benchmarks that could not be judged,
// or failing on a flagged slowdown that re-measuring dismissed.
#include "github/status.hpp"

#include <gtest/gtest.h>

namespace benchwatch::github {
namespace {

model::Comparison comparison_with(std::vector<model::Verdict> verdicts) {
    model::Comparison comparison;
    comparison.project = "perf";
    comparison.baseline.kind = model::BaselineKind::MergeBase;
    for (const auto verdict : verdicts) {
        model::BenchmarkComparison benchmark;
        benchmark.verdict = verdict;
        comparison.benchmarks.push_back(benchmark);
    }
    return comparison;
}

TEST(Status, CountsTheVerdicts) {
    using enum model::Verdict;
    const auto comparison = comparison_with({Slower, Unchanged, Faster, Slower, Unchanged});
    const auto status = comparison_status(comparison, false);
    EXPECT_EQ(status.state, "success");
    EXPECT_EQ(status.description, "2 slower, 1 faster of 5 benchmarks");
    EXPECT_EQ(status.context, "benchwatch/perf");
    EXPECT_EQ(comparison_status(comparison, true).state, "failure");
}

TEST(Status, CountsWhatCouldNotBeJudged) {
    using enum model::Verdict;
    const auto comparison =
        comparison_with({TooNoisy, Inconclusive, TooNoisy, Unchanged, TooNoisy});
    EXPECT_EQ(comparison_status(comparison, false).description,
              "0 slower, 0 faster, 3 too noisy, 1 inconclusive of 5 benchmarks");
    EXPECT_EQ(comparison_status(comparison_with({Slower, TooNoisy}), true).description,
              "1 slower, 0 faster, 1 too noisy of 2 benchmarks");
}

// After re-measuring, the verdicts are the settled ones (compare::settle_by_confirmation): a
// dismissed flag is Unchanged, an undecided one Inconclusive, a confirmed one keeps its flag.
TEST(Status, WithTheFlaggedChangesReMeasuredOnlyAConfirmedSlowdownFails) {
    using enum model::Verdict;
    using C = model::ConfirmationVerdict;
    auto comparison = comparison_with({Unchanged, Inconclusive, Unchanged});
    comparison.benchmarks[0].confirmation = C::Dismissed;
    comparison.benchmarks[1].confirmation = C::Undecided;
    comparison.confirmation = model::Confirmation{};
    auto status = comparison_status(comparison, true);
    EXPECT_EQ(status.state, "success");
    EXPECT_EQ(status.description,
              "0 slower, 0 faster, 1 inconclusive of 3 benchmarks; re-measured: 0 confirmed, 1 "
              "dismissed, 1 undecided");

    comparison.benchmarks[1].verdict = Slower;
    comparison.benchmarks[1].confirmation = C::Confirmed;
    status = comparison_status(comparison, true);
    EXPECT_EQ(status.state, "failure");
    EXPECT_EQ(status.description,
              "1 slower, 0 faster of 3 benchmarks; re-measured: 1 confirmed, 1 dismissed, 0 "
              "undecided");
}

TEST(Status, FasterOnlyNeverFails) {
    using enum model::Verdict;
    EXPECT_EQ(comparison_status(comparison_with({Faster, Unchanged}), true).state, "success");
}

TEST(Status, SaysWhenThereIsNoBaseline) {
    auto comparison = comparison_with({});
    comparison.baseline.kind = model::BaselineKind::None;
    comparison.head_only_results.resize(3);
    const auto status = comparison_status(comparison, true);
    EXPECT_EQ(status.state, "success");
    EXPECT_EQ(status.description, "no baseline run to compare 3 benchmarks with");
}

}  // namespace
}  // namespace benchwatch::github
