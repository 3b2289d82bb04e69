#pragma once

// Private to the report layer: the rows of a report in the order every renderer shows them.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "model/comparison.hpp"

namespace benchwatch::report::detail {

// "starts allocating (3)", "stops allocating" or "".
std::string allocation_note(const model::BenchmarkComparison& benchmark);

// One category's rows, in the order they are shown.
struct CategoryRows {
    const model::Category* category = nullptr;  // nullptr: names no category matched
    std::vector<const model::BenchmarkComparison*> rows;
};

// Every benchmark grouped by category in configured order, keeping their order inside each;
// categories without benchmarks are left out.
std::vector<CategoryRows> all_rows(const model::Comparison& comparison);

// The unusual benchmarks grouped the same way, each group sorted by |ln(head/base)|, largest first.
std::vector<CategoryRows> unusual_rows(const model::Comparison& comparison);

// A head result with the name it is shown under.
struct HeadRow {
    std::string display_name;
    const model::Result* result = nullptr;
};

// One category's head results (BaselineKind::None).
struct HeadGroup {
    std::string category_name;
    std::vector<HeadRow> rows;
};

// Comparison::head_only_results grouped by category in configured order, sorted by display name;
// names no category matches come last under model::catch_all_category()'s name.
std::vector<HeadGroup> head_rows(const model::Comparison& comparison);

// The names of `results` sorted with model::name_less.
std::vector<std::string> sorted_names(const std::vector<model::Result>& results);

// "a, b" from already escaped names.
std::string join(const std::vector<std::string>& items, std::string_view separator);

// How many ignored benchmarks a report names before it says how many more there are.
inline constexpr std::size_t kIgnoredNamesShown = 20;

// "Ignored by benchwatch.toml, not judged: a, b." for Comparison::ignored, each name passed
// through `shown` (the format's escaping), at most kIgnoredNamesShown of them and then "and N
// more"; empty when nothing was ignored.
std::string ignored_line(const std::vector<std::string>& ignored,
                         const std::function<std::string(const std::string&)>& shown);

}  // namespace benchwatch::report::detail
