#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/comparison.hpp"
#include "model/result.hpp"

namespace benchwatch::model {

// One benchmark's values on the default branch, oldest first.
struct BenchmarkHistory {
    std::string name;
    std::string metric = "time";
    std::string unit = "ns";
    Direction direction = Direction::SmallerIsBetter;
    std::vector<std::string> commits;  // parallel to values
    std::vector<double> values;
    // Parallel to values when the history was read with its samples (for backtest of the
    // samples method), else empty.
    std::vector<std::optional<SampleSummary>> samples = {};
    double typical_change = 0;  // median |ln(x[i+1]/x[i])| of the last pairs (the seed rule's)
    int typical_pairs = 0;      // how many pairs that median was taken over; 0: no history yet
};

// The default branch's history of a project on one machine.
struct History {
    std::string project;
    std::string machine;
    HistoryOrder order = HistoryOrder::Recorded;
    int runs = 0;
    int left_out = 0;  // older default-branch commits beyond the limit, not shown
    std::vector<std::string>
        commits;  // the default branch's benchmarked commits shown, oldest first
    // Parallel to commits: each commit's committer date, or its first run's recording time when
    // no run carries the date, Unix milliseconds.
    std::vector<std::int64_t> times_ms;
    std::vector<BenchmarkHistory> benchmarks;  // sorted with name_less
};

// A step in one benchmark's default-branch history that passed the trust rules: its level moved
// between two commits and stayed moved (`benchwatch history --changes`, docs/JUDGEMENT.md).
struct HistoryStep {
    std::string benchmark;
    std::string metric = "time";
    std::string unit = "ns";
    Direction direction = Direction::SmallerIsBetter;
    std::string before_commit;  // the last commit of the old level
    std::string after_commit;   // the first commit of the new level
    double ratio = 1;           // new level / old level (medians of the two levels)
    std::size_t position = 0;   // of after_commit in HistoryChanges::commits
    int runs_before = 0;        // runs of the old level
    int runs_after = 0;         // runs of the new level
    // The smallest change the configured method would have flagged there, learned from the runs
    // before the step (0.05 is 5%); the step is bigger.
    double detectable_change = 0;
    double p_value = 1;  // the rank test's, the runs either side
    // Keys whose value differs between the two commits' runs (machine keys included), by key.
    std::vector<EnvironmentChange> environment_changes;
};

// A step shared by much of the suite at one commit: a machine, driver or toolchain change far
// likelier than a pull request that moved everything, shown once instead of once per benchmark.
struct SuiteEvent {
    std::string before_commit;  // the last commit before it
    std::string after_commit;   // the first commit after it
    std::size_t position = 0;   // of after_commit in HistoryChanges::commits
    int benchmarks = 0;         // benchmarks that stepped there
    int measured = 0;           // benchmarks with runs on both sides of it
    double median_ratio = 1;    // the median of its steps' ratios
    // Keys whose value differs between the two commits' runs (machine keys included), by key.
    std::vector<EnvironmentChange> environment_changes;
    // The benchmarks' own steps, by benchmark; with a benchmark filter, those it selects.
    std::vector<HistoryStep> steps;
};

// The steps found in the default branch's history of a project on one machine.
struct HistoryChanges {
    std::string project;
    std::string machine;
    HistoryOrder order = HistoryOrder::Recorded;  // as in History
    int runs = 0;                                 // default-branch commits looked at
    std::vector<std::string> commits;             // those commits, oldest first
    std::vector<SuiteEvent> events;               // oldest first
    // The steps that are no part of an event: by benchmark (as History sorts them), then oldest
    // first.
    std::vector<HistoryStep> steps;
};

// Where a benchmark stands on the default branch (the dashboard's badge; docs/dashboard.md).
enum class Trend { Stable, Regressed, Improved };

// "stable", "regressed" or "improved".
const char* to_string(Trend trend);

// What a benchmark's trend was decided by.
enum class TrendReason {
    None,        // stable: neither of the others
    LatestRun,   // the method flagged the latest run against the history before it
    RecentStep,  // a step of its own (no suite event) began in the recent runs
};

// "", "latest run" or "recent step".
const char* to_string(TrendReason reason);

// The dashboard's judgement of one benchmark of a History, as compare reaches it.
struct BenchmarkStanding {
    Trend trend = Trend::Stable;
    TrendReason reason = TrendReason::None;
    // Latest run: its value / the level it was judged against − 1. Recent step: the step's
    // ratio − 1. Stable: the latest run against its level when it was judged, else 0.
    double change = 0;
    // The relative change the latest run had to exceed (0 when it was not judged).
    double threshold = 0;
    // The smallest slowdown a pull request's report would flag now, by the configured method;
    // nullopt when the method cannot judge the benchmark (under two runs).
    std::optional<double> detectable_change;
};

}  // namespace benchwatch::model
