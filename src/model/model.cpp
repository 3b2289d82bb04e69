#include <algorithm>
#include <cctype>

#include "model/category.hpp"
#include "model/comparison.hpp"
#include "model/environment_keys.hpp"
#include "model/history.hpp"
#include "model/result.hpp"

namespace benchwatch::model {

const char* to_string(Direction direction) {
    return direction == Direction::SmallerIsBetter ? "smaller" : "bigger";
}

std::optional<Direction> parse_direction(std::string_view text) {
    if (text == "smaller") return Direction::SmallerIsBetter;
    if (text == "bigger") return Direction::BiggerIsBetter;
    return std::nullopt;
}

const char* to_string(Verdict verdict) {
    switch (verdict) {
        case Verdict::Slower:
            return "slower";
        case Verdict::Faster:
            return "faster";
        case Verdict::Inconclusive:
            return "inconclusive";
        case Verdict::TooNoisy:
            return "too_noisy";
        case Verdict::Unchanged:
            break;
    }
    return "unchanged";
}

const char* to_string(MethodKind kind) {
    return kind == MethodKind::Seed ? "seed" : "level";
}

std::optional<MethodKind> method_kind_named(std::string_view name) {
    if (name == "seed") return MethodKind::Seed;
    if (name == "level") return MethodKind::Level;
    return std::nullopt;
}

const char* to_string(CalibrationSource source) {
    switch (source) {
        case CalibrationSource::Calibrated:
            return "calibrated";
        case CalibrationSource::Conservative:
            return "conservative";
        case CalibrationSource::Fixed:
            break;
    }
    return "fixed";
}

const char* to_string(Trend trend) {
    switch (trend) {
        case Trend::Regressed:
            return "regressed";
        case Trend::Improved:
            return "improved";
        case Trend::Stable:
            break;
    }
    return "stable";
}

const char* to_string(TrendReason reason) {
    switch (reason) {
        case TrendReason::LatestRun:
            return "latest run";
        case TrendReason::RecentStep:
            return "recent step";
        case TrendReason::None:
            break;
    }
    return "";
}

std::vector<Category> default_categories() {
    return {
        {"Performance", {}, 0.03},
        {"Latency", {"latency/"}, 0.05},
        {"Applications", {"integration/", "applications/"}, 0.03},
        {"Other", {"other/"}, 0.03},
    };
}

namespace {
const std::string* matching_prefix(std::string_view benchmark, const Category& category) {
    for (const auto& prefix : category.prefixes)
        if (benchmark.starts_with(prefix)) return &prefix;
    return nullptr;
}
}  // namespace

std::size_t categorize(std::string_view benchmark, const std::vector<Category>& categories) {
    for (std::size_t i = 0; i < categories.size(); ++i)
        if (matching_prefix(benchmark, categories[i])) return i;
    for (std::size_t i = 0; i < categories.size(); ++i)
        if (categories[i].prefixes.empty()) return i;
    return categories.size();
}

double minimum_change_of(std::string_view benchmark, const std::vector<Category>& categories) {
    const auto index = categorize(benchmark, categories);
    return index < categories.size() ? categories[index].minimum_change : Category{}.minimum_change;
}

std::string_view display_name(std::string_view benchmark, const Category& category) {
    if (const auto* prefix = matching_prefix(benchmark, category))
        return benchmark.substr(prefix->size());
    return benchmark;
}

bool name_less(std::string_view a, std::string_view b) {
    auto lower = [](unsigned char c) { return static_cast<char>(std::tolower(c)); };
    const auto folded =
        std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                     [&](char x, char y) { return lower(x) < lower(y); });
    if (folded) return true;
    const auto folded_reverse =
        std::lexicographical_compare(b.begin(), b.end(), a.begin(), a.end(),
                                     [&](char x, char y) { return lower(x) < lower(y); });
    if (folded_reverse) return false;
    return a < b;
}

bool is_machine_key(std::string_view key) {
    return std::find(machine_keys.begin(), machine_keys.end(), key) != machine_keys.end();
}

std::optional<std::string> version_in(std::string_view output) {
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    while (!output.empty()) {
        const auto end = std::min(output.find('\n'), output.size());
        const auto line = output.substr(0, end);
        std::optional<std::string> last;
        for (std::size_t i = 0; i < line.size();) {
            if (!digit(line[i])) {
                ++i;
                continue;
            }
            std::size_t j = i;
            bool dotted = false;
            while (j < line.size() && digit(line[j])) {
                ++j;
                if (j + 1 < line.size() && line[j] == '.' && digit(line[j + 1])) {
                    dotted = true;
                    ++j;
                }
            }
            if (dotted) last = std::string(line.substr(i, j - i));
            i = j;
        }
        if (last) return last;
        output.remove_prefix(std::min(end + 1, output.size()));
    }
    return std::nullopt;
}

std::string with_metric(std::string_view name, std::string_view metric) {
    if (metric == "time") return std::string(name);
    std::string labelled;
    labelled.reserve(name.size() + metric.size() + 3);
    labelled.append(name).append(" (").append(metric).append(")");
    return labelled;
}

}  // namespace benchwatch::model
