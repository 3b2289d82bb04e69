#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/benchmark_rules.hpp"
#include "model/category.hpp"
#include "model/comparison.hpp"
#include "model/confirmation.hpp"
#include "model/error.hpp"
#include "model/result.hpp"
#include "stats/stats.hpp"

namespace benchwatch::run {

// Re-measuring cannot go on: a benchmark to decide is missing from a command's results. what()
// is one line naming the benchmark, the command and the round, and how to fix it.
class ConfirmError : public model::Error {
  public:
    explicit ConfirmError(const std::string& message)
        : Error(model::ErrorKind::Measurement, message) {}
};

// Which of the two commands a measurement runs.
enum class Build { Base, Head };

// "base" or "head".
const char* to_string(Build build);

// How long and how strictly `confirm` measures.
struct ConfirmSettings {
    double alpha = 0.05;   // chance that one benchmark's verdict is wrong, over all its looks
    int max_rounds = 100;  // each round runs both commands once
    double time_budget_seconds = 600;
    // When set, alpha is this ÷ the number of benchmarks decided (at most kLargestAlpha), so
    // that the expected count of wrong verdicts over the whole suite is at most this.
    std::optional<double> false_alarms_per_suite;
    // When set, which build each pair of rounds measures first is drawn at random from this
    // seed, the pair's second round the other way round; otherwise base first in odd rounds.
    std::optional<std::uint64_t> order_seed;
    // Per-benchmark minimums that replace the categories' for benchmarks found in the results.
    model::BenchmarkRules rules;
};

// The largest alpha a suite's false-alarm budget shares out to one benchmark: beyond it a
// verdict would be a coin toss.
inline constexpr double kLargestAlpha = 0.5;

// `settings.alpha`, or the suite's budget shared by `benchmarks` when it has one; never above
// kLargestAlpha. Example: a budget of 1 over 20 benchmarks gives 0.05 each.
double alpha_for(const ConfirmSettings& settings, std::size_t benchmarks);

// The interval for the median of `log_ratios` at settings.alpha: stats::median_confidence_sequence,
// valid however many rounds are looked at.
stats::Interval median_bound(std::span<const double> log_ratios, const ConfirmSettings& settings);

// The first round whose median_bound() can be finite.
int first_deciding_round(const ConfirmSettings& settings);

// One benchmark to decide.
struct ConfirmTarget {
    std::string name;
    std::string metric = "time";
    model::Direction direction = model::Direction::SmallerIsBetter;
    model::Verdict flagged = model::Verdict::Unchanged;  // the report's verdict, if any
    std::optional<double> flagged_change;                // the report's head/base − 1, if any
    double minimum_change = 0.03;  // the category's, used when nothing was flagged
    std::string unit;              // as the results name it, e.g. "ns"; may be empty
};

// The benchmarks a `compare --format json` report flagged Slower or Faster, with their changes,
// sorted by name and metric. Benchmarks flagged only for an allocation change are left out:
// allocation counts do not vary between runs, so measuring them again decides nothing.
std::vector<ConfirmTarget> targets_from_report(const model::Comparison& report);

// Every benchmark and metric present in both `base` and `head`, sorted by name and metric, each
// with the minimum change a rule of `rules` sets, else its category's (the first category's when
// none matches).
std::vector<ConfirmTarget> targets_from_results(std::span<const model::Result> base,
                                                std::span<const model::Result> head,
                                                const std::vector<model::Category>& categories,
                                                const model::BenchmarkRules& rules = {});

// The verdict on `target` from the per-round ln(head/base) values, with median_bound(): against
// half the flagged change when there is one (confirmed beyond it in the flagged direction,
// dismissed short of it), otherwise against ±ln(1 + minimum_change) (confirmed beyond either,
// dismissed when between both). `rounds` is log_ratios.size().
model::ConfirmedBenchmark judge_rounds(const ConfirmTarget& target,
                                       std::span<const double> log_ratios,
                                       const ConfirmSettings& settings);

// Runs one build's benchmarks once and returns their results.
using Measure = std::function<std::vector<model::Result>(Build)>;

// Seconds on a steady clock.
using Clock = std::function<double()>;

// Measures base and head in rounds, alternating which goes first (base-head, head-base, …, or
// each pair of rounds in a random order with settings.order_seed) so that drift cancels, and judges
// every undecided target after each round with judge_rounds(); a verdict, once reached, stays.
// Stops when every target is decided, after settings.max_rounds rounds, or before a round that
// would end past the time budget (judged by the mean round so far); runs none when the budget is 0
// or less. `targets` nullopt: every benchmark in both builds' first results (targets_from_results
// with `categories`). Throws ConfirmError when a target is missing from a round's results, or when
// `targets` is nullopt and the first results share no benchmark; runs nothing when `targets` is
// empty. Each benchmark's base and head medians are over the rounds it was measured in. Only the
// figures are filled in (false_alarms_per_suite: settings' budget, 0 without one); the caller sets
// the commands and the report's name.
model::Confirmation confirm(std::optional<std::vector<ConfirmTarget>> targets,
                            const std::vector<model::Category>& categories, const Measure& measure,
                            const Clock& clock, ConfirmSettings settings);

}  // namespace benchwatch::run
