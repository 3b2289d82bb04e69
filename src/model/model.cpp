#include <algorithm>
#include <cctype>

#include "model/category.hpp"
#include "model/comparison.hpp"
#include "model/environment_keys.hpp"
#include "model/history.hpp"
#include "model/result.hpp"
#include "model/run.hpp"

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

std::string_view to_string(HistoryOrder order) {
    switch (order) {
        case HistoryOrder::None:
            return "none";
        case HistoryOrder::Git:
            return "git";
        case HistoryOrder::Recorded:
            return "recorded";
    }
    return "";
}

std::optional<HistoryOrder> parse_history_order(std::string_view text) {
    for (const auto order : {HistoryOrder::None, HistoryOrder::Git, HistoryOrder::Recorded})
        if (text == to_string(order)) return order;
    return std::nullopt;
}

Category catch_all_category() {
    return {"Performance", {}, Category{}.minimum_change};
}

std::vector<Category> default_categories() {
    return {
        catch_all_category(),
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

bool is_counted_metric(std::string_view metric) {
    return metric == "instructions" || metric == "estimated_cycles";
}

double minimum_change_of(std::string_view benchmark, std::string_view metric,
                         const std::vector<Category>& categories) {
    const auto index = categorize(benchmark, categories);
    const auto& category = index < categories.size() ? categories[index] : catch_all_category();
    return is_counted_metric(metric) ? category.counted_minimum_change : category.minimum_change;
}

std::string_view display_name(std::string_view benchmark, const Category& category) {
    if (const auto* prefix = matching_prefix(benchmark, category))
        return benchmark.substr(prefix->size());
    return benchmark;
}

bool name_less(std::string_view a, std::string_view b) {
    // ASCII case folding, as std::tolower does in the C locale benchwatch runs in, in one pass:
    // reports sort tens of thousands of names with this.
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    const auto common = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < common; ++i) {
        // Compared as char, as the folded comparison always has: bytes from 0x80 (UTF-8) first.
        const char x = lower(a[i]);
        const char y = lower(b[i]);
        if (x != y) return x < y;
    }
    if (a.size() != b.size()) return a.size() < b.size();
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

bool is_full_commit_id(std::string_view id) {
    if (id.size() != 40 && id.size() != 64) return false;
    return std::all_of(id.begin(), id.end(),
                       [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

namespace {

// The unsigned number of exactly `digits` decimal digits at `at`, advancing `at`.
std::optional<int> fixed_digits(std::string_view text, std::size_t& at, std::size_t digits) {
    if (text.size() < at + digits) return std::nullopt;
    int value = 0;
    for (std::size_t i = at; i < at + digits; ++i) {
        if (text[i] < '0' || text[i] > '9') return std::nullopt;
        value = value * 10 + (text[i] - '0');
    }
    at += digits;
    return value;
}

bool expect(std::string_view text, std::size_t& at, std::string_view choices) {
    if (at >= text.size() || choices.find(text[at]) == std::string_view::npos) return false;
    ++at;
    return true;
}

// Days from 1970-01-01 to the given civil date (proleptic Gregorian).
std::int64_t days_from_civil(int year, int month, int day) {
    year -= month <= 2 ? 1 : 0;
    const int era = (year >= 0 ? year : year - 399) / 400;
    const int year_of_era = year - era * 400;
    const int day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    const int day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return static_cast<std::int64_t>(era) * 146097 + day_of_era - 719468;
}

}  // namespace

std::optional<std::int64_t> timestamp_ms(std::string_view text) {
    std::size_t at = 0;
    const auto year = fixed_digits(text, at, 4);
    if (!year || !expect(text, at, "-")) return std::nullopt;
    const auto month = fixed_digits(text, at, 2);
    if (!month || !expect(text, at, "-")) return std::nullopt;
    const auto day = fixed_digits(text, at, 2);
    if (!day || !expect(text, at, "T ")) return std::nullopt;
    const auto hour = fixed_digits(text, at, 2);
    if (!hour || !expect(text, at, ":")) return std::nullopt;
    const auto minute = fixed_digits(text, at, 2);
    if (!minute || !expect(text, at, ":")) return std::nullopt;
    const auto second = fixed_digits(text, at, 2);
    if (!second) return std::nullopt;
    int millisecond = 0;
    if (at < text.size() && text[at] == '.') {
        ++at;
        const auto start = at;
        for (int scale = 100; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at) {
            millisecond += (text[at] - '0') * scale;
            scale /= 10;
        }
        if (at == start) return std::nullopt;
    }
    static constexpr int month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (*month < 1 || *month > 12 || *day < 1 || *day > month_days[*month - 1] || *hour > 23 ||
        *minute > 59 || *second > 60)
        return std::nullopt;
    int offset_minutes = 0;
    if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
        ++at;
    } else {
        if (at >= text.size() || (text[at] != '+' && text[at] != '-')) return std::nullopt;
        const int sign = text[at++] == '-' ? -1 : 1;
        const auto offset_hours = fixed_digits(text, at, 2);
        if (!offset_hours) return std::nullopt;
        if (at < text.size() && text[at] == ':') ++at;
        const auto offset_rest = fixed_digits(text, at, 2);
        if (!offset_rest || *offset_hours > 23 || *offset_rest > 59) return std::nullopt;
        offset_minutes = sign * (*offset_hours * 60 + *offset_rest);
    }
    if (at != text.size()) return std::nullopt;
    const std::int64_t seconds = days_from_civil(*year, *month, *day) * 86400 + *hour * 3600 +
                                 *minute * 60 + *second - offset_minutes * 60;
    return seconds * 1000 + millisecond;
}

bool is_dirty(const Run& run) {
    const auto found = run.environment.find(std::string(dirty_key));
    return found != run.environment.end() && found->second == "yes";
}

std::optional<std::int64_t> commit_time_ms(const Run& run) {
    if (!run.commit_info) return std::nullopt;
    return timestamp_ms(run.commit_info->timestamp);
}

}  // namespace benchwatch::model
