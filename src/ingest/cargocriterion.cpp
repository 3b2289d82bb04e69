#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "ingest/readers.hpp"
#include "ingest/text_input.hpp"
#include "ingest/units.hpp"

namespace benchwatch::ingest::detail {

namespace ondemand = simdjson::ondemand;

namespace {

// One "benchmark-complete" message, with the fields the reader uses.
struct Completed {
    std::string id;
    std::vector<double> iteration_counts;
    std::vector<double> measured_values;
    std::string unit;
    std::optional<double> throughput_per_iteration;
    std::string throughput_unit;  // "bytes" or "elements"
};

bool spaces_only(std::string_view line) {
    return line.find_first_not_of(" \t") == std::string_view::npos;
}

// The "reason" of a message line, or an empty view when the line is no JSON object with one.
std::string_view reason_of(ondemand::parser& parser, const simdjson::padded_string& line,
                           ondemand::document& document) {
    if (parser.iterate(line).get(document) != simdjson::SUCCESS) return {};
    ondemand::object object;
    if (document.get_object().get(object) != simdjson::SUCCESS) return {};
    for (auto field : object) {
        std::string_view key;
        if (field.unescaped_key().get(key) != simdjson::SUCCESS) return {};
        if (key != "reason") continue;
        std::string_view reason;
        if (field.value().get_string().get(reason) != simdjson::SUCCESS) return {};
        return reason;
    }
    return {};
}

class CargoCriterionReader {
  public:
    CargoCriterionReader(std::string_view text, std::string_view source) : lines_(text, source) {
        parsed_.format = "cargo-criterion";
    }

    ParsedResults read() {
        std::string_view line;
        while (lines_.next_line(line)) {
            if (spaces_only(line)) continue;
            try {
                read_line(line);
            } catch (const simdjson::simdjson_error& error) {
                fail(fmt::format("invalid JSON: {}", simdjson::error_message(error.error())));
            }
        }
        return std::move(parsed_);
    }

  private:
    void read_line(std::string_view line) {
        const simdjson::padded_string padded(line);
        ondemand::document document;
        if (auto error = parser_.iterate(padded).get(document))
            fail(fmt::format("invalid JSON: {}", simdjson::error_message(error)));
        if (document.type().value() != ondemand::json_type::object)
            fail(
                "expected one JSON object per line, as cargo-criterion --message-format=json "
                "writes");
        Completed completed;
        std::string_view reason;
        bool named = false;
        for (auto field : document.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value value = field.value();
            if (key == "reason") {
                reason = string(value, "\"reason\"");
            } else if (key == "id") {
                completed.id = std::string(string(value, "\"id\""));
                named = true;
            } else if (key == "iteration_count") {
                completed.iteration_counts = numbers(value, "\"iteration_count\"");
            } else if (key == "measured_values") {
                completed.measured_values = numbers(value, "\"measured_values\"");
            } else if (key == "unit") {
                completed.unit = std::string(string(value, "\"unit\""));
            } else if (key == "throughput") {
                read_throughput(value, completed);
            }
        }
        const char* trailing = nullptr;
        if (document.current_location().get(trailing) == simdjson::SUCCESS)
            fail("unexpected content after the JSON object");
        if (reason.empty()) fail("expected a \"reason\" in each message");
        if (reason != "benchmark-complete") return;  // group-complete and future messages
        if (!named) fail("expected an \"id\" in a benchmark-complete message");
        add(completed);
    }

    // cargo-criterion writes [] or [{"per_iteration": N, "unit": "bytes"|"elements"}]; the first
    // entry is kept.
    void read_throughput(ondemand::value& value, Completed& completed) {
        expect(value, ondemand::json_type::array, "\"throughput\"");
        for (auto element : value.get_array()) {
            ondemand::value entry = element.value();
            expect(entry, ondemand::json_type::object, "an element of \"throughput\"");
            std::optional<double> per_iteration;
            std::string unit;
            for (auto field : entry.get_object()) {
                const std::string_view key = field.unescaped_key().value();
                ondemand::value item = field.value();
                if (key == "per_iteration")
                    per_iteration = number(item, "\"per_iteration\"");
                else if (key == "unit")
                    unit = std::string(string(item, "the throughput's \"unit\""));
            }
            if (!per_iteration || (unit != "bytes" && unit != "elements"))
                fail(
                    "expected a throughput with \"per_iteration\" and a \"unit\" of bytes or "
                    "elements");
            if (completed.throughput_per_iteration) continue;
            completed.throughput_per_iteration = per_iteration;
            completed.throughput_unit = unit;
        }
    }

    void add(const Completed& completed) {
        const std::string& name = completed.id;
        if (const auto [first, added] = first_line_.emplace(name, lines_.line_number()); !added)
            fail(fmt::format("benchmark '{}' appears twice (first on line {})", name,
                             first->second));
        if (completed.unit != "ns")
            fail(fmt::format("benchmark '{}': unit '{}' is not wall time; expected \"ns\"", name,
                             completed.unit));
        if (completed.measured_values.empty() ||
            completed.measured_values.size() != completed.iteration_counts.size())
            fail(fmt::format(
                "benchmark '{}': expected \"measured_values\" and "
                "\"iteration_count\" of one length, got {} and {}",
                name, completed.measured_values.size(), completed.iteration_counts.size()));
        std::vector<double> per_iteration;
        for (std::size_t i = 0; i < completed.measured_values.size(); ++i) {
            const double iterations = completed.iteration_counts[i];
            if (!(iterations > 0))
                fail(fmt::format("benchmark '{}': iteration counts must be positive, got {}", name,
                                 iterations));
            const double time = completed.measured_values[i] / iterations;
            if (!std::isfinite(time) || time <= 0)
                fail(fmt::format("benchmark '{}': time must be a positive number, got {}", name,
                                 time));
            per_iteration.push_back(time);
        }
        model::Result time;
        time.benchmark = name;
        time.value = *std::min_element(per_iteration.begin(), per_iteration.end());
        time.samples = summarize(per_iteration);
        parsed_.results.push_back(time);
        if (!completed.throughput_per_iteration) return;
        model::Result throughput;
        throughput.benchmark = name;
        throughput.metric = "throughput";
        throughput.unit = completed.throughput_unit == "bytes" ? "B/s" : "elements/s";
        throughput.direction = model::Direction::BiggerIsBetter;
        throughput.value =
            *completed.throughput_per_iteration * nanoseconds_per_second / time.value;
        parsed_.results.push_back(std::move(throughput));
    }

    void expect(ondemand::value& value, ondemand::json_type expected, std::string_view what) {
        const auto actual = value.type().value();
        if (actual != expected)
            fail(fmt::format("expected {} for {}, got {}", describe_type(expected), what,
                             describe_type(actual)));
    }

    std::string_view string(ondemand::value& value, std::string_view what) {
        expect(value, ondemand::json_type::string, what);
        return value.get_string().value();
    }

    double number(ondemand::value& value, std::string_view what) {
        expect(value, ondemand::json_type::number, what);
        return value.get_double().value();
    }

    std::vector<double> numbers(ondemand::value& value, std::string_view what) {
        expect(value, ondemand::json_type::array, what);
        std::vector<double> result;
        for (auto element : value.get_array()) {
            ondemand::value item = element.value();
            result.push_back(number(item, what));
        }
        return result;
    }

    // Throws "source:LINE: message" for the current line.
    [[noreturn]] void fail(std::string_view message) const { lines_.fail(message); }

    TextInput lines_;
    ondemand::parser parser_;
    ParsedResults parsed_;
    std::map<std::string, std::size_t, std::less<>>
        first_line_;  // line of each benchmark's message
};

// cargo-criterion --message-format=json writes one JSON object per line, each with a "reason":
// the file is ours when its first non-blank line is a benchmark-complete or group-complete one.
Claim detect_cargocriterion(const Probe& probe) {
    TextInput lines(probe.text, {});
    std::string_view line;
    while (lines.next_line(line)) {
        if (spaces_only(line)) continue;
        if (line.find("\"reason\"") == std::string_view::npos) return {};
        ondemand::parser parser;
        const simdjson::padded_string padded(line);
        ondemand::document document;
        const std::string_view reason = reason_of(parser, padded, document);
        if (reason == "benchmark-complete" || reason == "group-complete") return {true, {}};
        if (reason.empty()) return {};
        return {false, fmt::format("JSON lines whose first \"reason\" is \"{}\", not "
                                   "cargo-criterion's benchmark-complete or group-complete",
                                   reason)};
    }
    return {};
}

ParsedResults read_cargocriterion(std::string_view text, std::string_view source) {
    return CargoCriterionReader(text, source).read();
}

}  // namespace

const Reader cargocriterion_reader{
    .name = "cargo-criterion", .detect = detect_cargocriterion, .parse_text = read_cargocriterion};

}  // namespace benchwatch::ingest::detail
