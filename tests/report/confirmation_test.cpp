// What could break: confirm's report losing a column, mislabelling a verdict, printing an
// interval for a benchmark too few rounds bound, or a name breaking the Markdown table.
#include "report/confirmation.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "golden.hpp"

namespace benchwatch::report {
namespace {

model::ConfirmedBenchmark row(std::string name, model::Verdict flagged,
                              std::optional<double> flagged_change, double change,
                              std::optional<double> low, std::optional<double> high, int rounds,
                              model::ConfirmationVerdict verdict, model::Verdict measured) {
    model::ConfirmedBenchmark benchmark;
    benchmark.name = std::move(name);
    benchmark.flagged = flagged;
    benchmark.flagged_change = flagged_change;
    benchmark.boundary = flagged_change ? *flagged_change / 2 : 0.03;
    benchmark.change = change;
    benchmark.change_low = low;
    benchmark.change_high = high;
    benchmark.rounds = rounds;
    benchmark.verdict = verdict;
    benchmark.measured = measured;
    return benchmark;
}

// Three flagged benchmarks: a real slowdown, a fluke, and one the rounds ran out on.
model::Confirmation flagged_confirmation() {
    model::Confirmation confirmation;
    confirmation.base_command = "./bench --base";
    confirmation.head_command = "./bench --head";
    confirmation.report = "report.json";
    confirmation.max_rounds = 30;
    confirmation.time_budget_seconds = 600;
    confirmation.rounds = 30;
    confirmation.first_deciding_round = 11;
    confirmation.stop = model::ConfirmationStop::MaxRounds;
    using V = model::ConfirmationVerdict;
    confirmation.benchmarks = {
        row("array/copy", model::Verdict::Slower, 0.15, 0.148, 0.131, 0.162, 11, V::Confirmed,
            model::Verdict::Slower),
        row("array|fill <b>", model::Verdict::Slower, 0.12, -0.002, -0.028, 0.023, 11, V::Dismissed,
            model::Verdict::Unchanged),
        row("latency/ttfp", model::Verdict::Faster, -0.08, -0.041, -0.09, 0.01, 30, V::Undecided,
            model::Verdict::Unchanged),
    };
    return confirmation;
}

// Without a report, and stopped before any interval was finite.
model::Confirmation early_confirmation() {
    model::Confirmation confirmation;
    confirmation.base_command = "make bench-base";
    confirmation.head_command = "make bench-head";
    confirmation.max_rounds = 30;
    confirmation.time_budget_seconds = 60;
    confirmation.rounds = 4;
    confirmation.first_deciding_round = 11;
    confirmation.stop = model::ConfirmationStop::TimeBudget;
    confirmation.benchmarks = {
        row("sort", model::Verdict::Unchanged, std::nullopt, 0.011, std::nullopt, std::nullopt, 4,
            model::ConfirmationVerdict::Undecided, model::Verdict::Unchanged)};
    return confirmation;
}

TEST(ConfirmationReport, TextMatchesTheApprovedFile) {
    std::ostringstream out;
    render_confirmation_text(flagged_confirmation(), out);
    render_confirmation_text(early_confirmation(), out);
    testing::expect_golden(out.str(), "confirmation.txt");
}

TEST(ConfirmationReport, MarkdownMatchesTheApprovedFile) {
    std::ostringstream out;
    render_confirmation_markdown(flagged_confirmation(), out);
    render_confirmation_markdown(early_confirmation(), out);
    testing::expect_golden(out.str(), "confirmation.md");
}

TEST(ConfirmationReport, JsonMatchesTheApprovedFile) {
    std::ostringstream out;
    render_confirmation_json(flagged_confirmation(), out);
    render_confirmation_json(early_confirmation(), out);
    testing::expect_golden(out.str(), "confirmation.json");
}

}  // namespace
}  // namespace benchwatch::report
