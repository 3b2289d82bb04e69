#pragma once

#include <memory>

#include "compare/method.hpp"
#include "model/comparison.hpp"

namespace benchwatch::compare {

// The fewest pairs of consecutive default-branch runs from which the samples method learns a
// benchmark's own run-to-run spread.
inline constexpr int kSamplesHistoryMinimumPairs = 5;

// The samples method (docs/JUDGEMENT.md, "Two runs judged by their samples"): each benchmark's
// move between the medians of its base and head samples, judged against the spread its samples
// explain plus the spread of the suite's moves they do not (the machine's run-to-run noise,
// learned from the suite itself), or, when larger, the spread of its own moves between
// consecutive default-branch runs where a history of at least kSamplesHistoryMinimumPairs pairs
// has them (stats::kMadToSigma × the median |ln ratio| of its last 30 pairs), relative to the
// suite's median move, with Student's t at false_alarms_per_pr ÷ max(the benchmarks judged,
// budget_benchmarks), and never below the category's minimum. With fewer than suite_minimum
// benchmarks judged, the spread between runs is assumed to be assumed_spread_factor × the
// samples' own, with 2 degrees of freedom, and the suite's move is not taken out. Benchmarks
// without samples on both sides are Inconclusive. Its setting is 1 ÷ false_alarms_per_pr, so
// that bigger is stricter.
std::unique_ptr<Method> make_samples_method(const model::SamplesRuleSettings& settings);

}  // namespace benchwatch::compare
