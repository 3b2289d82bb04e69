#pragma once

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
    double typical_change = 0;
};

// The default branch's history of a project on one machine.
struct History {
    std::string project;
    std::string machine;
    std::string order;  // "git" or "recorded", as in Comparison::history_order
    int runs = 0;
    std::vector<std::string> commits;  // the default branch's benchmarked commits shown, oldest first
    std::vector<BenchmarkHistory> benchmarks;  // sorted with name_less
};

// A step in one benchmark's default-branch history: its level moved between two commits and
// stayed moved (`benchwatch history --changes`).
struct HistoryStep {
    std::string benchmark;
    std::string metric = "time";
    std::string unit = "ns";
    Direction direction = Direction::SmallerIsBetter;
    std::string before_commit;  // the last commit of the old level
    std::string after_commit;   // the first commit of the new level
    double ratio = 1;           // new level / old level (medians of the two levels)
    // Keys whose value differs between the two commits' runs (machine keys included), by key.
    std::vector<EnvironmentChange> environment_changes;
};

// The steps found in the default branch's history of a project on one machine.
struct HistoryChanges {
    std::string project;
    std::string machine;
    std::string order;               // "git" or "recorded", as in History
    int runs = 0;                    // default-branch commits looked at
    std::vector<HistoryStep> steps;  // by benchmark (as History sorts them), then oldest first
};

}  // namespace benchwatch::model
