#include "model/benchmark_rules.hpp"

#include <algorithm>

namespace benchwatch::model {

bool glob_matches(std::string_view pattern, std::string_view name) {
    // Greedy with backtracking to the last '*': on a mismatch that '*' takes one more character.
    std::size_t p = 0;
    std::size_t n = 0;
    std::optional<std::size_t> star;
    std::size_t star_name = 0;
    while (n < name.size()) {
        if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            star_name = n;
        } else if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
            ++p;
            ++n;
        } else if (star) {
            p = *star + 1;
            n = ++star_name;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

namespace {

bool rule_matches(const BenchmarkRule& rule, std::string_view benchmark) {
    return std::any_of(rule.patterns.begin(), rule.patterns.end(), [&](const std::string& pattern) {
        return glob_matches(pattern, benchmark);
    });
}

// The value of `setting` of the last rule matching `benchmark` that sets it.
template <typename Setting>
auto last_set(std::string_view benchmark, const BenchmarkRules& rules, Setting setting)
    -> std::decay_t<decltype(setting(rules.front()))> {
    for (auto rule = rules.rbegin(); rule != rules.rend(); ++rule)
        if (const auto value = setting(*rule); value && rule_matches(*rule, benchmark))
            return value;
    return std::nullopt;
}

}  // namespace

bool is_ignored(std::string_view benchmark, const BenchmarkRules& rules) {
    return std::any_of(rules.begin(), rules.end(), [&](const BenchmarkRule& rule) {
        return rule.ignore && rule_matches(rule, benchmark);
    });
}

std::optional<double> rule_minimum_change(std::string_view benchmark, std::string_view metric,
                                          const BenchmarkRules& rules) {
    const bool counted = is_counted_metric(metric);
    return last_set(benchmark, rules, [counted](const BenchmarkRule& rule) {
        return counted ? rule.counted_minimum_change : rule.minimum_change;
    });
}

double minimum_change_of(std::string_view benchmark, std::string_view metric,
                         const std::vector<Category>& categories, const BenchmarkRules& rules) {
    return rule_minimum_change(benchmark, metric, rules)
        .value_or(minimum_change_of(benchmark, metric, categories));
}

double budget_weight_of(std::string_view benchmark, const BenchmarkRules& rules) {
    return last_set(benchmark, rules, [](const BenchmarkRule& rule) { return rule.budget_weight; })
        .value_or(1.0);
}

}  // namespace benchwatch::model
