#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/category.hpp"

namespace benchwatch::model {

// True when `name` matches the glob `pattern` whole: '*' stands for any run of characters ('/'
// included), '?' for one, every other character for itself.
// Example: glob_matches("BM_Checksum*", "BM_Checksum/65536") == true.
bool glob_matches(std::string_view pattern, std::string_view name);

// Settings of the benchmarks whose names match one of `patterns` (benchwatch.toml's
// [[benchmark]] tables). A setting left unset leaves the benchmark's own (its category's).
struct BenchmarkRule {
    std::vector<std::string> patterns;  // globs, as glob_matches() reads them
    bool ignore = false;                // kept in the store, left out of every judgement and count
    std::optional<double> minimum_change;          // replaces the category's minimum
    std::optional<double> counted_minimum_change;  // the same for counted metrics
    // The weight of the benchmarks' catches against their false alarms where the budget is
    // shared out by noise (1 for every other benchmark; 0.01 to 100): their thresholds are bought
    // at the price of a fluke ÷ this, so 2 buys lower ones with more of the budget and 0.5 gives
    // part of their share up.
    std::optional<double> budget_weight;

    friend bool operator==(const BenchmarkRule&, const BenchmarkRule&) = default;
};

// The rules in file order; where several match a benchmark, the last that sets a setting wins.
using BenchmarkRules = std::vector<BenchmarkRule>;

// True when a rule matching `benchmark` says to ignore it.
bool is_ignored(std::string_view benchmark, const BenchmarkRules& rules);

// The minimum change a rule matching `benchmark` sets for `metric` (counted or timed), if any.
std::optional<double> rule_minimum_change(std::string_view benchmark, std::string_view metric,
                                          const BenchmarkRules& rules);

// The smallest change that counts for `metric` of `benchmark`: the one a matching rule sets,
// else model::minimum_change_of() of its category.
double minimum_change_of(std::string_view benchmark, std::string_view metric,
                         const std::vector<Category>& categories, const BenchmarkRules& rules);

// The budget weight a rule matching `benchmark` sets, else 1.
double budget_weight_of(std::string_view benchmark, const BenchmarkRules& rules);

}  // namespace benchwatch::model
