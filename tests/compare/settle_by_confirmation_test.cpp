// What could break: a flag that re-measuring dismissed still counted as slower or faster (in the
// summary, the markers, the status, the exit code), an undecided flag counted as confirmed, a
// benchmark that was not re-measured changed, or settling a settled report changing it again.
#include <gtest/gtest.h>

#include "compare/compare.hpp"

namespace benchwatch::compare {
namespace {

using model::ConfirmationVerdict;
using model::Verdict;

model::BenchmarkComparison benchmark(std::string name, Verdict verdict, double head) {
    model::BenchmarkComparison row;
    row.name = name;
    row.display_name = std::move(name);
    row.base = 100;
    row.head = head;
    row.verdict = verdict;
    return row;
}

model::ConfirmedBenchmark decided(std::string name, ConfirmationVerdict verdict,
                                  Verdict measured = Verdict::Unchanged) {
    model::ConfirmedBenchmark row;
    row.name = std::move(name);
    row.verdict = verdict;
    row.measured = measured;
    return row;
}

// Five benchmarks in one category: a confirmed slowdown, a dismissed slowdown, a dismissed
// speed-up, an undecided slowdown, and an unflagged one that re-measuring did not touch.
model::Comparison flagged_and_re_measured() {
    model::Comparison comparison;
    comparison.categories = model::default_categories();
    comparison.summaries.resize(comparison.categories.size());
    comparison.benchmarks = {
        benchmark("a", Verdict::Slower, 130), benchmark("b", Verdict::Slower, 150),
        benchmark("c", Verdict::Faster, 60), benchmark("d", Verdict::Slower, 120),
        benchmark("e", Verdict::Unchanged, 101)};
    model::Confirmation confirmation;
    confirmation.benchmarks = {decided("a", ConfirmationVerdict::Confirmed, Verdict::Slower),
                               decided("b", ConfirmationVerdict::Dismissed),
                               decided("c", ConfirmationVerdict::Dismissed),
                               decided("d", ConfirmationVerdict::Undecided)};
    comparison.confirmation = std::move(confirmation);
    return comparison;
}

TEST(SettleByConfirmation, DismissedFlagsCountAsUnchangedAndUndecidedOnesAsInconclusive) {
    auto comparison = flagged_and_re_measured();
    settle_by_confirmation(comparison);
    const auto& rows = comparison.benchmarks;
    EXPECT_EQ(rows[0].verdict, Verdict::Slower);
    EXPECT_EQ(rows[0].confirmation, ConfirmationVerdict::Confirmed);
    EXPECT_EQ(rows[1].verdict, Verdict::Unchanged);
    EXPECT_EQ(rows[1].confirmation, ConfirmationVerdict::Dismissed);
    EXPECT_EQ(rows[2].verdict, Verdict::Unchanged);
    EXPECT_EQ(rows[2].confirmation, ConfirmationVerdict::Dismissed);
    EXPECT_EQ(rows[3].verdict, Verdict::Inconclusive);
    EXPECT_EQ(rows[3].confirmation, ConfirmationVerdict::Undecided);
    EXPECT_EQ(rows[4].verdict, Verdict::Unchanged);
    EXPECT_FALSE(rows[4].confirmation);
    EXPECT_FALSE(rows[1].unusual());
    EXPECT_FALSE(rows[2].unusual());

    // The summary counts only the confirmed slowdown; the geometric mean is of the values,
    // which re-measuring does not change: (1.3 × 1.5 × 0.6 × 1.2 × 1.01)^(1/5) − 1 = 0.072353.
    const auto& summary = comparison.summaries[0];
    EXPECT_EQ(summary.slower, 1);
    EXPECT_EQ(summary.faster, 0);
    EXPECT_EQ(summary.compared, 5);
    EXPECT_NEAR(summary.geometric_mean_change, 0.072353, 1e-6);
}

TEST(SettleByConfirmation, SettlingTwiceChangesNothing) {
    auto once = flagged_and_re_measured();
    settle_by_confirmation(once);
    auto twice = once;
    settle_by_confirmation(twice);
    for (std::size_t i = 0; i < once.benchmarks.size(); ++i) {
        EXPECT_EQ(twice.benchmarks[i].verdict, once.benchmarks[i].verdict) << i;
        EXPECT_EQ(twice.benchmarks[i].confirmation, once.benchmarks[i].confirmation) << i;
    }
    EXPECT_EQ(twice.summaries[0].slower, 1);
}

TEST(SettleByConfirmation, WithoutAConfirmationNothingChanges) {
    auto comparison = flagged_and_re_measured();
    comparison.confirmation.reset();
    settle_by_confirmation(comparison);
    EXPECT_EQ(comparison.benchmarks[1].verdict, Verdict::Slower);
    EXPECT_FALSE(comparison.benchmarks[1].confirmation);
    EXPECT_EQ(comparison.summaries[0].slower, 0) << "the summaries are left as they were";
}

TEST(SettleByConfirmation, AFlagIsMatchedByNameAndMetric) {
    auto comparison = flagged_and_re_measured();
    comparison.confirmation->benchmarks[1].metric = "allocations";
    settle_by_confirmation(comparison);
    EXPECT_EQ(comparison.benchmarks[1].verdict, Verdict::Slower)
        << "b's time was not re-measured, only a metric it does not have";
    EXPECT_FALSE(comparison.benchmarks[1].confirmation);
}

}  // namespace
}  // namespace benchwatch::compare
