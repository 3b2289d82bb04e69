#include <fmt/core.h>

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "ingest/readers.hpp"
#include "model/environment_keys.hpp"

namespace benchwatch::ingest::detail {

namespace ondemand = simdjson::ondemand;

namespace {

// Groups nested deeper than this are refused before they are followed (no suite is this deep):
// the reader descends one call per level.
constexpr int max_group_depth = 256;

std::string_view without_module(std::string_view type_name) {
    constexpr std::string_view module_prefix = "BenchmarkTools.";
    if (type_name.starts_with(module_prefix)) type_name.remove_prefix(module_prefix.size());
    return type_name;
}

// Walks `[versions, [values…]]`, where each value is `[type name, fields]`. The path of the group
// being read is one string, extended by a key before descending and cut back after, so that
// memory grows with the file, not with the nesting times the names' length.
class BenchmarkToolsReader {
  public:
    explicit BenchmarkToolsReader(JsonInput& input)
        : input_(input), names_budget_(input.size(), input.source()) {
        parsed_.format = "benchmarktools";
    }

    ParsedResults read() {
        if (input_.document().type().value() != ondemand::json_type::array)
            input_.fail("expected a JSON array [versions, values], as BenchmarkTools.save writes");
        ondemand::array root = input_.document().get_array();
        int position = 0;
        for (auto element : root) {
            ondemand::value value = element.value();
            if (position == 0) {
                read_versions(value);
            } else if (position == 1) {
                read_values(value);
            } else {
                input_.fail_at(input_.where(value),
                               "expected [versions, values]; found a third element");
            }
            ++position;
        }
        if (position < 2) input_.fail("expected [versions, values]; the values array is missing");
        return std::move(parsed_);
    }

  private:
    void read_versions(ondemand::value& versions) {
        input_.expect(versions, ondemand::json_type::object, "the versions");
        for (auto field : versions.get_object()) {
            std::string key(field.unescaped_key().value());
            ondemand::value version = field.value();
            if (auto text = input_.scalar_text(version)) parsed_.context[key] = std::move(*text);
        }
    }

    void read_values(ondemand::value& values) {
        input_.expect(values, ondemand::json_type::array, "the saved values");
        for (auto element : values.get_array()) {
            ++top_level_position_;
            ondemand::value value = element.value();
            path_.clear();
            read_object(value, 0);
        }
    }

    // path_ is the benchmark path of this object; "" for the values saved at the top level.
    void read_object(ondemand::value& object, int depth) {
        const char* start = input_.where(object);
        input_.expect(object, ondemand::json_type::array, "a saved BenchmarkTools value");
        std::string type_name;
        int position = 0;
        for (auto element : object.get_array()) {
            ondemand::value part = element.value();
            if (position == 0) {
                type_name = input_.string(part, "a type name");
            } else if (position == 1) {
                read_fields(without_module(type_name), part, depth);
            } else {
                input_.fail_at(input_.where(part), "expected [type name, fields]; found more");
            }
            ++position;
        }
        if (position != 2) input_.fail_at(start, "expected [type name, fields]");
    }

    void read_fields(std::string_view type_name, ondemand::value& fields, int depth) {
        if (type_name == "BenchmarkGroup") return read_group(fields, depth);
        if (type_name == "Parameters" || type_name == "TagFilter") return;
        const std::string benchmark =
            path_.empty() ? std::to_string(top_level_position_) : std::string(path_);
        names_budget_.take(benchmark);
        if (type_name == "Trial") return read_trial(fields, benchmark);
        if (type_name == "TrialEstimate") return read_estimate(fields, benchmark);
        parsed_.warnings.push_back(
            fmt::format("{}: benchmark '{}' left out: a {} is not a measurement", input_.source(),
                        benchmark, type_name));
    }

    void read_group(ondemand::value& fields, int depth) {
        if (depth >= max_group_depth)
            input_.fail_at(
                input_.where(fields),
                fmt::format("benchmark groups nested deeper than {} levels", max_group_depth));
        input_.expect(fields, ondemand::json_type::object, "the fields of a BenchmarkGroup");
        for (auto field : fields.get_object()) {
            if (field.unescaped_key().value() != "data") continue;
            ondemand::value data = field.value();
            input_.expect(data, ondemand::json_type::object, "\"data\" of a BenchmarkGroup");
            for (auto entry : data.get_object()) {
                const std::size_t parent = path_.size();
                const std::string_view key = entry.unescaped_key().value();
                if (parent > 0) path_ += '/';
                path_ += key;
                names_budget_.check_length(path_);
                ondemand::value child = entry.value();
                read_object(child, depth + 1);
                path_.resize(parent);
            }
        }
    }

    void read_trial(ondemand::value& fields, const std::string& benchmark) {
        input_.expect(fields, ondemand::json_type::object, "the fields of a Trial");
        model::Result result;
        result.benchmark = benchmark;
        std::vector<double> times;
        std::size_t non_finite_times = 0;
        for (auto field : fields.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value value = field.value();
            if (key == "times") {
                input_.expect(value, ondemand::json_type::array, "\"times\"");
                for (auto element : value.get_array()) {
                    ondemand::value time = element.value();
                    if (auto finite = input_.number_or_null(time, "an element of \"times\""))
                        times.push_back(*finite);
                    else
                        ++non_finite_times;
                }
            } else if (key == "allocs") {
                result.allocations = input_.number_or_null(value, "\"allocs\"");
            } else if (key == "memory") {
                result.memory = input_.number_or_null(value, "\"memory\"");
            }
        }
        if (times.empty())
            input_.fail(fmt::format("benchmark '{}': the Trial has no finite times", benchmark));
        for (double time : times) check_positive_time(input_, benchmark, time);
        if (non_finite_times > 0)
            parsed_.warnings.push_back(fmt::format(
                "{}: benchmark '{}': {} of {} times were not finite and were left out",
                input_.source(), benchmark, non_finite_times, non_finite_times + times.size()));
        result.value = *std::min_element(times.begin(), times.end());
        result.samples = summarize(times);
        add(std::move(result));
    }

    void read_estimate(ondemand::value& fields, const std::string& benchmark) {
        input_.expect(fields, ondemand::json_type::object, "the fields of a TrialEstimate");
        model::Result result;
        result.benchmark = benchmark;
        bool has_time = false;
        for (auto field : fields.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value value = field.value();
            if (key == "time") {
                has_time = true;
                const auto time = input_.number_or_null(value, "\"time\"");
                if (!time)
                    input_.fail(fmt::format(
                        "benchmark '{}': time must be a positive number, got null", benchmark));
                result.value = *time;
            } else if (key == "allocs") {
                result.allocations = input_.number_or_null(value, "\"allocs\"");
            } else if (key == "memory") {
                result.memory = input_.number_or_null(value, "\"memory\"");
            }
        }
        if (!has_time)
            input_.fail(
                fmt::format("benchmark '{}': the TrialEstimate has no \"time\"", benchmark));
        check_positive_time(input_, benchmark, result.value);
        parsed_.context[std::string(model::statistic_key)] = "estimate";
        add(std::move(result));
    }

    void add(model::Result result) {
        if (!names_.insert(result.benchmark).second)
            input_.fail(fmt::format("benchmark '{}' appears twice", result.benchmark));
        parsed_.results.push_back(std::move(result));
    }

    JsonInput& input_;
    ParsedResults parsed_;
    std::unordered_set<std::string> names_;
    int top_level_position_ = 0;
    std::string path_;  // the benchmark path of the value being read, "" at the top level
    NameBudget names_budget_;
};

// BenchmarkTools.save writes [versions, [values…]]: the file is ours when the versions object
// names BenchmarkTools, or when an array follows it.
Claim detect_benchmarktools(const Probe& probe) {
    if (probe.json == nullptr || probe.json->type().value() != ondemand::json_type::array)
        return {};
    int position = 0;
    for (auto element : probe.json->get_array()) {
        ondemand::value value = element.value();
        const auto type = value.type().value();
        if (position == 0 && type == ondemand::json_type::object) {
            for (auto field : value.get_object())
                if (field.unescaped_key().value() == "BenchmarkTools") return {true, {}};
        } else if (position == 1 && type == ondemand::json_type::array) {
            return {true, {}};
        }
        if (position == 1 || type != ondemand::json_type::object) break;
        ++position;
    }
    return {false,
            "a JSON array that is not a versions object followed by an array of saved values"};
}

ParsedResults read_benchmarktools(JsonInput& input) {
    return BenchmarkToolsReader(input).read();
}

}  // namespace

const Reader benchmarktools_reader{
    .name = "benchmarktools", .detect = detect_benchmarktools, .parse_json = read_benchmarktools};

}  // namespace benchwatch::ingest::detail
