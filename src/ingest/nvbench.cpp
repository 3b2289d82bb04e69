#include <fmt/core.h>

#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "ingest/readers.hpp"
#include "ingest/units.hpp"

namespace benchwatch::ingest::detail {

namespace ondemand = simdjson::ondemand;

namespace {

// One measurement of a state (cold GPU, cold CPU or batch GPU time): the summary tags that hold
// it and the metric it becomes.
struct Measurement {
    std::string_view metric;
    std::string_view minimum_tag;
    std::string_view mean_tag;
    std::string_view stdev_tag;
    std::string_view relative_stdev_tag;
    std::string_view count_tag;
};

constexpr Measurement measurements[] = {
    {"time", "nv/cold/time/gpu/min", "nv/cold/time/gpu/mean", "nv/cold/time/gpu/stdev/absolute",
     "nv/cold/time/gpu/stdev/relative", "nv/cold/sample_size"},
    {"cpu_time", "nv/cold/time/cpu/min", "nv/cold/time/cpu/mean", "nv/cold/time/cpu/stdev/absolute",
     "nv/cold/time/cpu/stdev/relative", "nv/cold/sample_size"},
    {"batch_time", "", "nv/batch/time/gpu/mean", "", "", "nv/batch/sample_size"},
};

class NvbenchReader {
  public:
    explicit NvbenchReader(JsonInput& input)
        : input_(input), names_budget_(input.size(), input.source()) {
        parsed_.format = "nvbench";
    }

    ParsedResults read() {
        input_.for_each_in_root_array(
            "benchmarks", [&](ondemand::value& benchmark) { read_benchmark(benchmark); },
            [&](std::string_view key, ondemand::value& value) {
                if (key == "devices") read_devices(value);
            });
        if (!gpus_.empty()) {
            std::string names;
            for (const std::string& gpu : gpus_) names += (names.empty() ? "" : ", ") + gpu;
            parsed_.context["nvbench.gpu"] = names;
        }
        return std::move(parsed_);
    }

  private:
    void read_devices(ondemand::value& devices) {
        input_.expect(devices, ondemand::json_type::array, "\"devices\"");
        for (auto element : devices.get_array()) {
            ondemand::value device = element.value();
            input_.expect(device, ondemand::json_type::object, "an element of \"devices\"");
            for (auto field : device.get_object()) {
                if (field.unescaped_key().value() != "name") continue;
                ondemand::value name = field.value();
                gpus_.emplace_back(input_.string(name, "a device's \"name\""));
            }
        }
    }

    void read_benchmark(ondemand::value& benchmark) {
        input_.expect(benchmark, ondemand::json_type::object, "an element of \"benchmarks\"");
        const char* const start = input_.where(benchmark);
        std::string name;
        std::size_t device_count = 0;
        bool named = false;
        for (auto field : benchmark.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value value = field.value();
            if (key == "name") {
                name = std::string(input_.string(value, "\"name\""));
                names_budget_.check_length(name);
                named = true;
            } else if (key == "devices" && value.type().value() == ondemand::json_type::array) {
                device_count = value.count_elements().value();
            } else if (key == "states") {
                if (!named)
                    input_.fail_at(start, "expected a benchmark's \"name\" before its \"states\"");
                input_.expect(value, ondemand::json_type::array, "\"states\"");
                for (auto element : value.get_array()) {
                    ondemand::value state = element.value();
                    read_state(state, name, device_count > 1);
                }
            }
        }
        if (!named) input_.fail_at(start, "expected a \"name\" in each element of \"benchmarks\"");
    }

    void read_state(ondemand::value& state, const std::string& benchmark, bool name_device) {
        input_.expect(state, ondemand::json_type::object, "an element of \"states\"");
        const char* const start = input_.where(state);
        std::string name = benchmark;
        std::map<std::string, double, std::less<>> summaries;
        bool skipped = false;
        std::string skip_reason;
        for (auto field : state.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value value = field.value();
            if (key == "device" && name_device) {
                name += "/Device=" + input_.scalar_text(value).value_or("?");
            } else if (key == "axis_values" && value.type().value() != ondemand::json_type::null) {
                input_.expect(value, ondemand::json_type::array, "\"axis_values\"");
                for (auto element : value.get_array()) {
                    ondemand::value axis = element.value();
                    name += "/" + axis_part(axis);
                }
            } else if (key == "summaries" && value.type().value() != ondemand::json_type::null) {
                read_summaries(value, summaries);
            } else if (key == "is_skipped") {
                skipped = input_.boolean(value, "\"is_skipped\"");
            } else if (key == "skip_reason") {
                skip_reason = input_.scalar_text(value).value_or("");
            }
        }
        names_budget_.take(name);
        if (!names_.insert(name).second)
            input_.fail_at(start, fmt::format("benchmark '{}' appears twice", name));
        if (skipped) {
            parsed_.warnings.push_back(
                fmt::format("{}: benchmark '{}' was skipped and left out: {}", input_.source(),
                            name, skip_reason));
            return;
        }
        bool measured = false;
        for (const Measurement& measurement : measurements)
            measured = add(name, measurement, summaries) || measured;
        if (!measured)
            parsed_.warnings.push_back(
                fmt::format("{}: benchmark '{}' has no GPU, CPU or batch time and was left out",
                            input_.source(), name));
    }

    // "Name=value" with the value as nvbench wrote it.
    std::string axis_part(ondemand::value& axis) {
        input_.expect(axis, ondemand::json_type::object, "an element of \"axis_values\"");
        std::string name;
        std::string value;
        for (auto field : axis.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value item = field.value();
            if (key == "name")
                name = std::string(input_.string(item, "an axis \"name\""));
            else if (key == "value")
                value = input_.scalar_text(item).value_or("");
        }
        return name + "=" + value;
    }

    void read_summaries(ondemand::value& summaries,
                        std::map<std::string, double, std::less<>>& out) {
        input_.expect(summaries, ondemand::json_type::array, "\"summaries\"");
        for (auto element : summaries.get_array()) {
            ondemand::value summary = element.value();
            input_.expect(summary, ondemand::json_type::object, "an element of \"summaries\"");
            std::string tag;
            std::optional<double> number;
            for (auto field : summary.get_object()) {
                const std::string_view key = field.unescaped_key().value();
                ondemand::value item = field.value();
                if (key == "tag")
                    tag = std::string(input_.string(item, "\"tag\""));
                else if (key == "data")
                    number = data_value(item, tag);
            }
            if (number) out[tag] = *number;
        }
    }

    // The "value" entry of a summary's data, a number written as a string (or, in older files,
    // as a number); nullopt for data without a numeric value (sidecar file names).
    std::optional<double> data_value(ondemand::value& data, std::string_view tag) {
        input_.expect(data, ondemand::json_type::array, "\"data\"");
        std::optional<double> result;
        for (auto element : data.get_array()) {
            ondemand::value entry = element.value();
            input_.expect(entry, ondemand::json_type::object, "an element of \"data\"");
            bool is_value = false;
            std::optional<std::string> text;
            for (auto field : entry.get_object()) {
                const std::string_view key = field.unescaped_key().value();
                ondemand::value item = field.value();
                if (key == "name")
                    is_value = input_.string(item, "a data \"name\"") == "value";
                else if (key == "value")
                    text = input_.scalar_text(item);
            }
            if (!is_value || !text) continue;
            double number = 0;
            const char* const end = text->data() + text->size();
            const auto [stop, error] = std::from_chars(text->data(), end, number);
            if (error != std::errc() || stop != end)
                input_.fail(fmt::format("summary '{}': expected a number, got '{}'", tag, *text));
            result = number;
        }
        return result;
    }

    // Adds the result of `measurement` when the state has it; false when it has not.
    bool add(const std::string& name, const Measurement& measurement,
             const std::map<std::string, double, std::less<>>& summaries) {
        const auto find = [&](std::string_view tag) -> std::optional<double> {
            if (tag.empty()) return std::nullopt;
            const auto found = summaries.find(tag);
            if (found == summaries.end()) return std::nullopt;
            return found->second;
        };
        const auto mean = find(measurement.mean_tag);
        if (!mean) return false;
        const double mean_ns = *mean * nanoseconds_per_second;
        model::Result result;
        result.benchmark = name;
        result.metric = measurement.metric;
        result.value = find(measurement.minimum_tag).value_or(*mean) * nanoseconds_per_second;
        check_positive_time(input_, name, result.value);
        double stddev = 0;
        if (const auto absolute = find(measurement.stdev_tag))
            stddev = *absolute * nanoseconds_per_second;
        else if (const auto relative = find(measurement.relative_stdev_tag))
            stddev = *relative * mean_ns;
        result.samples =
            model::SampleSummary{static_cast<std::int64_t>(find(measurement.count_tag).value_or(0)),
                                 mean_ns,
                                 mean_ns,
                                 stddev,
                                 {}};
        parsed_.results.push_back(std::move(result));
        return true;
    }

    JsonInput& input_;
    ParsedResults parsed_;
    NameBudget names_budget_;
    std::vector<std::string> gpus_;
    std::set<std::string> names_;
};

// nvbench writes {"meta", "devices", "benchmarks": [{"name", "axes", "states": […]}…]}: the file
// is ours when the first benchmark has "states" (Google Benchmark's rows and pytest-benchmark's
// entries have none).
Claim detect_nvbench(const Probe& probe) {
    if (probe.json == nullptr || probe.json->type().value() != ondemand::json_type::object)
        return {};
    for (auto field : probe.json->get_object()) {
        if (field.unescaped_key().value() != "benchmarks") continue;
        ondemand::value benchmarks = field.value();
        if (benchmarks.type().value() != ondemand::json_type::array) return {};
        for (auto element : benchmarks.get_array()) {
            ondemand::value first = element.value();
            if (first.type().value() != ondemand::json_type::object) return {};
            for (auto benchmark_field : first.get_object())
                if (benchmark_field.unescaped_key().value() == "states") return {true, {}};
            return {};
        }
        return {};
    }
    return {};
}

ParsedResults read_nvbench(JsonInput& input) {
    return NvbenchReader(input).read();
}

}  // namespace

const Reader nvbench_reader{
    .name = "nvbench", .detect = detect_nvbench, .parse_json = read_nvbench};

}  // namespace benchwatch::ingest::detail
