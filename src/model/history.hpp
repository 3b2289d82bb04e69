#pragma once

#include <string>
#include <vector>

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

}  // namespace benchwatch::model
