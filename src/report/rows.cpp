#include "report/rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cmath>
#include <cstdint>

#include "model/category.hpp"
#include "model/environment_keys.hpp"
#include "model/words.hpp"
#include "report/report.hpp"

namespace benchwatch::report::detail {

std::string allocation_note(const model::BenchmarkComparison& benchmark) {
    switch (benchmark.allocation_change) {
        case model::AllocationChange::Starts:
            return fmt::format("starts allocating ({})",
                               model::whole_or_general(benchmark.head_allocations.value_or(0)));
        case model::AllocationChange::Stops:
            return "stops allocating";
        case model::AllocationChange::None:
            break;
    }
    return "";
}

std::vector<CategoryRows> all_rows(const model::Comparison& comparison) {
    std::vector<CategoryRows> groups;
    for (std::size_t index = 0; index < comparison.categories.size(); ++index) {
        CategoryRows group{&comparison.categories[index], {}};
        for (const auto& benchmark : comparison.benchmarks)
            if (benchmark.category == index) group.rows.push_back(&benchmark);
        if (!group.rows.empty()) groups.push_back(std::move(group));
    }
    CategoryRows uncategorized;
    for (const auto& benchmark : comparison.benchmarks)
        if (benchmark.category >= comparison.categories.size())
            uncategorized.rows.push_back(&benchmark);
    if (!uncategorized.rows.empty()) groups.push_back(std::move(uncategorized));
    return groups;
}

std::vector<CategoryRows> unusual_rows(const model::Comparison& comparison) {
    auto size_of_change = [](const model::BenchmarkComparison* benchmark) {
        return std::abs(std::log(benchmark->head / benchmark->base));
    };
    std::vector<CategoryRows> groups;
    for (auto& group : all_rows(comparison)) {
        std::erase_if(group.rows, [](const auto* benchmark) { return !benchmark->unusual(); });
        std::stable_sort(group.rows.begin(), group.rows.end(), [&](const auto* a, const auto* b) {
            return size_of_change(a) > size_of_change(b);
        });
        if (!group.rows.empty()) groups.push_back(std::move(group));
    }
    return groups;
}

std::vector<HeadGroup> head_rows(const model::Comparison& comparison) {
    const auto& categories = comparison.categories;
    std::vector<HeadGroup> groups(categories.size() + 1);
    for (std::size_t index = 0; index < categories.size(); ++index)
        groups[index].category_name = categories[index].name;
    groups.back().category_name = model::catch_all_category().name;
    for (const auto& result : comparison.head_only_results) {
        const auto index = model::categorize(result.benchmark, categories);
        const auto shown = index < categories.size()
                               ? model::display_name(result.benchmark, categories[index])
                               : std::string_view(result.benchmark);
        groups[index].rows.push_back({model::with_metric(shown, result.metric), &result});
    }
    for (auto& group : groups)
        std::stable_sort(group.rows.begin(), group.rows.end(), [](const auto& a, const auto& b) {
            return model::name_less(a.display_name, b.display_name);
        });
    std::erase_if(groups, [](const HeadGroup& group) { return group.rows.empty(); });
    return groups;
}

std::vector<std::string> sorted_names(const std::vector<model::Result>& results) {
    std::vector<std::string> names;
    for (const auto& result : results)
        names.push_back(model::with_metric(result.benchmark, result.metric));
    std::sort(names.begin(), names.end(), model::name_less);
    return names;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
    std::string joined;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) joined += separator;
        joined += items[i];
    }
    return joined;
}

std::string ignored_line(const std::vector<std::string>& ignored,
                         const std::function<std::string(const std::string&)>& shown) {
    if (ignored.empty()) return {};
    std::vector<std::string> names;
    for (std::size_t i = 0; i < ignored.size() && i < kIgnoredNamesShown; ++i)
        names.push_back(shown(ignored[i]));
    auto line = "Ignored by benchwatch.toml, not judged: " + join(names, ", ");
    if (ignored.size() > names.size())
        line += fmt::format(" and {} more", ignored.size() - names.size());
    return line + ".\n";
}

}  // namespace benchwatch::report::detail
