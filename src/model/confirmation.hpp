#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/result.hpp"
#include "model/verdict.hpp"

namespace benchwatch::model {

// What re-measuring decided about one benchmark.
enum class ConfirmationVerdict {
    Confirmed,  // the change is real: at least half the flagged size (or the category minimum)
    Dismissed,  // the change is smaller than that, or absent, or the other way
    Undecided,  // the rounds ran out first
};

// "confirmed", "dismissed", "undecided".
inline const char* to_string(ConfirmationVerdict verdict) {
    switch (verdict) {
        case ConfirmationVerdict::Confirmed:
            return "confirmed";
        case ConfirmationVerdict::Dismissed:
            return "dismissed";
        case ConfirmationVerdict::Undecided:
            break;
    }
    return "undecided";
}

// One benchmark re-measured by `benchwatch confirm`. Changes are head/base − 1.
struct ConfirmedBenchmark {
    std::string name;
    std::string metric = "time";
    Direction direction = Direction::SmallerIsBetter;
    // From the report given with --only-unusual: its verdict (Slower or Faster) and change.
    // Without a report: Unchanged and nullopt.
    Verdict flagged = Verdict::Unchanged;
    std::optional<double> flagged_change;
    double boundary = 0;  // the change the interval must clear: half the flagged one, or ±minimum
    int rounds = 0;       // paired rounds measured
    double change = 0;    // exp(median of the per-round ln(head/base)) − 1
    std::string unit;     // of the values, e.g. "ns"; may be empty
    // The medians of the base's and of the head's values over those rounds; 0 before any.
    double base_median = 0;
    double head_median = 0;
    // The confidence interval of that change; nullopt while too few rounds bound it.
    std::optional<double> change_low;
    std::optional<double> change_high;
    ConfirmationVerdict verdict = ConfirmationVerdict::Undecided;
    // Confirmed: Slower or Faster by the metric's direction; otherwise Unchanged.
    Verdict measured = Verdict::Unchanged;
};

// Why the rounds stopped.
enum class ConfirmationStop { AllDecided, MaxRounds, TimeBudget };

// "all decided", "max rounds", "time budget".
inline const char* to_string(ConfirmationStop stop) {
    switch (stop) {
        case ConfirmationStop::AllDecided:
            return "all decided";
        case ConfirmationStop::MaxRounds:
            return "max rounds";
        case ConfirmationStop::TimeBudget:
            break;
    }
    return "time budget";
}

// Everything `benchwatch confirm` reports.
struct Confirmation {
    std::string base_command;
    std::string head_command;
    std::string report;   // the --only-unusual file; empty: every benchmark was considered
    double alpha = 0.05;  // the chance that a benchmark's verdict is wrong, over all its looks
    // The false verdicts allowed over the whole suite, shared out as alpha; 0 when alpha was
    // given as it is.
    double false_alarms_per_suite = 0;
    int max_rounds = 0;
    double time_budget_seconds = 0;
    int rounds = 0;                // paired rounds run (each runs both commands once)
    int first_deciding_round = 0;  // the first round whose interval can be finite
    ConfirmationStop stop = ConfirmationStop::AllDecided;
    std::vector<ConfirmedBenchmark> benchmarks;  // sorted by name, then metric
};

// How many of the confirmation's benchmarks were confirmed as slower.
inline std::size_t confirmed_slower(const Confirmation& confirmation) {
    std::size_t count = 0;
    for (const auto& benchmark : confirmation.benchmarks)
        if (benchmark.verdict == ConfirmationVerdict::Confirmed &&
            benchmark.measured == Verdict::Slower)
            ++count;
    return count;
}

}  // namespace benchwatch::model
