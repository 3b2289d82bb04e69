#include "model/run_checks.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace benchwatch::model {

namespace {

// How much of a refused name its message shows, in characters.
constexpr std::size_t kShownNameCharacters = 60;

// The smallest number a ratio can be taken of without overflowing to infinity.
constexpr double kSmallestNormal = std::numeric_limits<double>::min();

// The first `characters` characters of `name` (whole UTF-8 sequences), "…" when cut.
std::string name_start(std::string_view name, std::size_t characters) {
    std::size_t end = 0;
    for (std::size_t seen = 0; end < name.size(); ++end) {
        const bool starts_character = (static_cast<unsigned char>(name[end]) & 0xC0) != 0x80;
        if (starts_character && seen++ == characters) break;
    }
    return end < name.size() ? std::string(name.substr(0, end)) + "…" : std::string(name);
}

// The first C0 or C1 control character or DEL in `name`, as a code point; nullopt for none.
std::optional<unsigned> control_character(std::string_view name) {
    for (std::size_t at = 0; at < name.size(); ++at) {
        const auto byte = static_cast<unsigned char>(name[at]);
        if (byte < 0x20 || byte == 0x7F) return byte;
        if (byte == 0xC2 && at + 1 < name.size()) {
            const auto next = static_cast<unsigned char>(name[at + 1]);
            if (next >= 0x80 && next <= 0x9F) return next;
        }
    }
    return std::nullopt;
}

std::optional<std::string> name_problem(std::string_view name, std::string_view what,
                                        std::string_view source) {
    if (name.size() > kLongestName)
        return fmt::format("{}: {} of {} bytes is longer than the {} allowed: \"{}\"", source, what,
                           name.size(), kLongestName, name_start(name, kShownNameCharacters));
    if (const auto control = control_character(name))
        return fmt::format(
            "{}: {} {:?} holds control character U+{:04X}; names must be printable on one line",
            source, what, name_start(name, kShownNameCharacters), *control);
    return std::nullopt;
}

// Whether a number must be above 0 or may also be 0.
enum class Sign { Positive, PositiveOrZero };

std::optional<std::string> value_problem(const Result& result, std::string_view source) {
    const bool time = result.unit == "ns";
    // Formatted only for a problem: a run of many results is checked without allocating.
    const auto where = [&] {
        return fmt::format("{}: benchmark '{}', metric '{}'", source, result.benchmark,
                           result.metric);
    };
    // `in_unit`: the number is in the result's unit (its value or samples), not a count or bytes.
    const auto check = [&](std::string_view field, double value, bool in_unit,
                           Sign sign) -> std::optional<std::string> {
        const auto named = [&] {
            return fmt::format("the {}{}", field,
                               in_unit ? fmt::format(" in {}", result.unit) : "");
        };
        if (!std::isfinite(value))
            return fmt::format("{}: {} is {}, not a finite number; results must hold finite values",
                               where(), named(), value);
        if (value > 0 && value < kSmallestNormal)
            return fmt::format(
                "{}: {} is {}, too small to compare (below {}); results must hold normal numbers",
                where(), named(), value, kSmallestNormal);
        if (value > 0 || (value == 0 && sign == Sign::PositiveOrZero)) return std::nullopt;
        if (field == "value" && time) {
            // Worded as every reader words a time it refuses, so that each way in says the same.
            if (result.metric == "time")
                return fmt::format("{}: benchmark '{}': time must be a positive number, got {}",
                                   source, result.benchmark, value);
            return fmt::format("{}: time must be a positive number, got {}", where(), value);
        }
        return fmt::format("{}: {} is {}, not a {} number", where(), named(), value,
                           sign == Sign::Positive ? "positive" : "non-negative");
    };
    const Sign sign = time ? Sign::Positive : Sign::PositiveOrZero;
    if (auto problem = check("value", result.value, true, sign)) return problem;
    if (result.samples) {
        const auto& samples = *result.samples;
        if (samples.count < 0)
            return fmt::format("{}: the sample count is {}, not a non-negative number", where(),
                               samples.count);
        if (auto problem = check("median", samples.median, true, sign)) return problem;
        if (auto problem = check("mean", samples.mean, true, sign)) return problem;
        // One sample has no deviation: NaN, as the sample deviation of one value is.
        if (!(samples.count == 1 && std::isnan(samples.stddev)))
            if (auto problem =
                    check("standard deviation", samples.stddev, true, Sign::PositiveOrZero))
                return problem;
        for (const double sample : samples.values)
            if (auto problem = check("sample", sample, true, sign)) return problem;
    }
    const std::pair<const char*, const std::optional<double>*> counts[] = {
        {"allocation count", &result.allocations},
        {"memory in bytes", &result.memory},
        {"user time in ns", &result.user_time},
        {"system time in ns", &result.system_time},
        {"GC time in ns", &result.gc_time}};
    for (const auto& [field, value] : counts)
        if (value->has_value())
            if (auto problem = check(field, **value, false, Sign::PositiveOrZero)) return problem;
    return std::nullopt;
}

}  // namespace

std::optional<std::string> results_problem(std::span<const Result> results,
                                           std::string_view source) {
    for (const Result& result : results) {
        if (auto problem = name_problem(result.benchmark, "benchmark name", source)) return problem;
        if (auto problem = name_problem(result.metric, "metric name", source)) return problem;
        if (auto problem = name_problem(result.unit, "unit", source)) return problem;
    }
    for (const Result& result : results)
        if (auto problem = value_problem(result, source)) return problem;
    return std::nullopt;
}

std::optional<std::string> run_names_problem(std::string_view project, std::string_view machine,
                                             std::string_view branch, std::string_view source) {
    if (auto problem = name_problem(project, "project name", source)) return problem;
    if (auto problem = name_problem(machine, "machine name", source)) return problem;
    return name_problem(branch, "branch name", source);
}

}  // namespace benchwatch::model
