#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "compare/method.hpp"
#include "stats/sample_test.hpp"

namespace benchwatch::compare {

// The settings of the samples method, which judges two runs by the samples each carries.
struct SamplesSettings {
    static constexpr std::string_view method_name = "samples";

    // Flukes allowed per comparison: each of the suite's m judged benchmarks is tested at
    // false_alarms_per_pr / max(m, budget_benchmarks), so the expected count of false flags is
    // at most this.
    double false_alarms_per_pr = 1.0;
    // The fewest benchmarks the budget is shared among: one benchmark judged alone with a budget
    // of 1 would otherwise be tested at p = 1 and flagged at the first sign of a move.
    std::size_t budget_benchmarks = 5;
    // With fewer benchmarks carrying samples the run-to-run spread cannot be learned from the
    // suite: each move is then assumed to spread assumed_spread_factor times as far as its own
    // samples explain, and the suite's move is not taken out.
    std::size_t suite_minimum = 3;
    // Between two runs on a quiet machine a median moved by a median 1.8 times the spread its
    // samples explain (680 moves of Google Benchmark and hyperfine files, docs/two-files.md).
    double assumed_spread_factor = 2.0;
    // The statistic of each run's samples a smaller-is-better metric moves between; a
    // bigger-is-better one moves between medians.
    stats::SampleStatistic statistic = stats::SampleStatistic::Median;
    // The format of the two files compared, whose default statistic the report names; empty for
    // runs of a store.
    std::string harness = {};
};

// "min", "median" or "mean": a statistic as --statistic names it.
std::string_view statistic_name(stats::SampleStatistic statistic);

// The statistic --statistic `name` names; std::nullopt for another word.
std::optional<stats::SampleStatistic> statistic_named(std::string_view name);

// The statistic two files of the harness whose reader is `format` are compared by: the minimum
// where the harness's own documentation recommends it (pytest-benchmark, BenchmarkTools.jl),
// else the median. Example: statistic_for_harness("pytest-benchmark") == Minimum.
stats::SampleStatistic statistic_for_harness(std::string_view format);

// The fewest pairs of consecutive default-branch runs from which the samples method learns a
// benchmark's own run-to-run spread.
inline constexpr int kSamplesHistoryMinimumPairs = 5;

// The samples method (docs/JUDGEMENT.md, "Two runs judged by their samples"): each benchmark's
// move between the medians of its base and head samples, judged against the spread its samples
// explain plus the spread of the suite's moves they do not (the machine's run-to-run noise,
// learned from the suite itself), or, when larger, the spread of its own moves between
// consecutive default-branch runs where a history of at least kSamplesHistoryMinimumPairs pairs
// has them (stats::kMadToSigma × the median |ln ratio| of its last 30 pairs), relative to the
// suite's move (stats::suite_spread(): the median, or that of the largest group of benchmarks
// whose moves agree where fewer than two thirds do, which also gives the spread between runs),
// with Student's t at false_alarms_per_pr ÷ max(the benchmarks judged, budget_benchmarks), and
// never below the category's minimum. With fewer than suite_minimum benchmarks judged, the
// spread between runs is assumed to be assumed_spread_factor × the samples' own, with 2 degrees
// of freedom, and the suite's move is not taken out. Benchmarks without samples on both sides
// are Inconclusive. Its setting is 1 ÷ false_alarms_per_pr, so that bigger is stricter.
std::unique_ptr<Method> make_samples_method(const SamplesSettings& settings);

// The samples method as a unit: its report paragraph and its JSON members "samples_settings",
// "run_to_run_spread", "run_to_run_assumed" and "suite_move".
const MethodUnit& samples_unit();

}  // namespace benchwatch::compare
