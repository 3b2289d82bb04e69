#include "ingest/callgrind.hpp"

#include <fmt/format.h>

#include <charconv>
#include <vector>

#include "ingest/ingest.hpp"

namespace benchwatch::ingest {

namespace {

// The words of `text` separated by spaces or tabs.
std::vector<std::string_view> words_of(std::string_view text) {
    std::vector<std::string_view> words;
    std::size_t at = 0;
    while (at < text.size()) {
        const auto start = text.find_first_not_of(" \t", at);
        if (start == std::string_view::npos) break;
        auto end = text.find_first_of(" \t", start);
        if (end == std::string_view::npos) end = text.size();
        words.push_back(text.substr(start, end - start));
        at = end;
    }
    return words;
}

// The value of a header line `line` that starts with `key` ("events:"), without leading spaces.
std::optional<std::string_view> header_value(std::string_view line, std::string_view key) {
    if (!line.starts_with(key)) return std::nullopt;
    auto value = line.substr(key.size());
    const auto start = value.find_first_not_of(" \t");
    return start == std::string_view::npos ? std::string_view() : value.substr(start);
}

}  // namespace

CallgrindPart parse_callgrind(std::string_view text, std::string_view source) {
    CallgrindPart part;
    std::vector<std::string_view> events;
    std::optional<std::vector<std::string_view>> summary;
    std::optional<std::vector<std::string_view>> totals;
    std::size_t summary_line = 0;
    std::size_t totals_line = 0;
    std::size_t number = 0;
    std::size_t at = 0;
    while (at < text.size()) {
        auto end = text.find('\n', at);
        if (end == std::string_view::npos) end = text.size();
        auto line = text.substr(at, end - at);
        at = end + 1;
        ++number;
        if (line.ends_with('\r')) line.remove_suffix(1);
        // Cost lines and position specifications start with a digit, '+', '-', '*' or a
        // lower-case key with '='; only the header keys below matter here.
        if (const auto events_line = header_value(line, "events:")) {
            events = words_of(*events_line);
        } else if (const auto summary_counts = header_value(line, "summary:")) {
            summary = words_of(*summary_counts);
            summary_line = number;
        } else if (const auto totals_counts = header_value(line, "totals:")) {
            totals = words_of(*totals_counts);
            totals_line = number;
        } else if (const auto part_number = header_value(line, "part:")) {
            int parsed = 0;
            const auto [end_of_number, error] = std::from_chars(
                part_number->data(), part_number->data() + part_number->size(), parsed);
            if (error != std::errc() || end_of_number != part_number->data() + part_number->size())
                throw InputError(fmt::format("{}:{}: 'part:' expects a whole number, got '{}'",
                                             source, number, *part_number));
            part.part = parsed;
        } else if (const auto trigger = header_value(line, "desc: Trigger:")) {
            part.trigger = std::string(*trigger);
        }
    }
    if (events.empty())
        throw InputError(fmt::format(
            "{}: no 'events:' line; is this callgrind's output (callgrind.out.<pid>)?", source));
    const auto& counts = summary ? *summary : totals ? *totals : std::vector<std::string_view>();
    const std::size_t line = summary ? summary_line : totals_line;
    if (!summary && !totals)
        throw InputError(
            fmt::format("{}: no 'summary:' or 'totals:' line; the profile was cut short", source));
    // Counts left out at the end are zeros, as in every cost line of the format.
    if (counts.size() > events.size())
        throw InputError(fmt::format("{}:{}: {} counts for {} events ({})", source, line,
                                     counts.size(), events.size(), fmt::join(events, " ")));
    for (std::size_t i = 0; i < events.size(); ++i) {
        std::uint64_t count = 0;
        if (i >= counts.size()) {
            part.totals[std::string(events[i])] = 0;
            continue;
        }
        const auto word = counts[i];
        const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), count);
        if (error != std::errc() || end != word.data() + word.size())
            throw InputError(fmt::format("{}:{}: the count of {} is '{}', not a whole number",
                                         source, line, events[i], word));
        part.totals[std::string(events[i])] = count;
    }
    return part;
}

std::optional<double> estimated_cycles(
    const std::map<std::string, std::uint64_t, std::less<>>& totals) {
    double sum_of[3] = {0, 0, 0};  // accesses, first-level misses, last-level misses
    const std::pair<std::string_view, int> events[] = {{"Ir", 0},   {"Dr", 0},   {"Dw", 0},
                                                       {"I1mr", 1}, {"D1mr", 1}, {"D1mw", 1},
                                                       {"ILmr", 2}, {"DLmr", 2}, {"DLmw", 2}};
    for (const auto& [event, sum] : events) {
        const auto found = totals.find(event);
        if (found == totals.end()) return std::nullopt;
        sum_of[sum] += static_cast<double>(found->second);
    }
    const auto [accesses, first_level_misses, memory] = sum_of;
    return (accesses - first_level_misses) + 5 * (first_level_misses - memory) + 35 * memory;
}

}  // namespace benchwatch::ingest
