#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <string>
#include <unordered_set>
#include <vector>

#include "ingest/readers.hpp"
#include "ingest/units.hpp"

namespace benchwatch::ingest::detail {

namespace ondemand = simdjson::ondemand;

namespace {

// The machine_info keys that name the interpreter, the operating system and the CPU, stored as
// "pytest.<key>". Left out: "node" (the host name) and "python_build" (a build date), and of
// "cpu" everything measured, such as the current clock rate.
constexpr std::array<std::string_view, 7> kept_machine_keys = {"python_implementation",
                                                               "python_implementation_version",
                                                               "python_version",
                                                               "python_compiler",
                                                               "machine",
                                                               "system",
                                                               "release"};
constexpr std::array<std::string_view, 6> kept_cpu_keys = {
    "brand", "brand_raw", "vendor_id", "vendor_id_raw", "arch", "count"};

bool is_one_of(std::string_view key, std::span<const std::string_view> keys) {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// The "stats" of one benchmark, in seconds as pytest-benchmark writes them.
struct Stats {
    std::optional<double> min;
    std::optional<double> median;
    std::optional<double> mean;
    std::optional<double> stddev;
    std::optional<double> rounds;
    std::vector<double> data;  // per-round times per iteration, when the file keeps them
    bool has_data = false;
};

class PytestBenchmarkReader {
  public:
    explicit PytestBenchmarkReader(JsonInput& input) : input_(input) {
        parsed_.format = "pytest-benchmark";
    }

    ParsedResults read() {
        input_.for_each_in_root_array(
            "benchmarks", [&](ondemand::value& benchmark) { read_benchmark(benchmark); },
            [&](std::string_view key, ondemand::value& value) {
                if (key == "machine_info") {
                    read_machine_info(value);
                } else if (key == "version") {
                    if (auto text = input_.scalar_text(value))
                        parsed_.context["pytest.benchmark_version"] = *text;
                }
            });
        return std::move(parsed_);
    }

  private:
    void read_machine_info(ondemand::value& machine) {
        input_.expect(machine, ondemand::json_type::object, "\"machine_info\"");
        for (auto field : machine.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value value = field.value();
            if (key == "cpu" && value.type().value() == ondemand::json_type::object) {
                for (auto cpu_field : value.get_object()) {
                    const std::string_view cpu_key = cpu_field.unescaped_key().value();
                    if (!is_one_of(cpu_key, kept_cpu_keys)) continue;
                    ondemand::value cpu_value = cpu_field.value();
                    keep_context(fmt::format("pytest.cpu.{}", cpu_key), cpu_value);
                }
            } else if (is_one_of(key, kept_machine_keys)) {
                keep_context(fmt::format("pytest.{}", key), value);
            }
        }
    }

    void keep_context(const std::string& key, ondemand::value& value) {
        auto text = input_.scalar_text(value);
        if (text && !text->empty()) parsed_.context[key] = *text;
    }

    void read_benchmark(ondemand::value& benchmark) {
        input_.expect(benchmark, ondemand::json_type::object, "an element of \"benchmarks\"");
        const char* const start = input_.where(benchmark);
        std::optional<std::string> name;
        std::optional<Stats> stats;
        for (auto field : benchmark.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value value = field.value();
            if (key == "fullname")
                name = std::string(input_.string(value, "\"fullname\""));
            else if (key == "stats")
                stats = read_stats(value);
        }
        if (!name)
            input_.fail_at(start, "expected a \"fullname\" in each element of \"benchmarks\"");
        if (!stats) input_.fail_at(start, fmt::format("benchmark '{}': expected \"stats\"", *name));
        add(*name, *stats, start);
    }

    Stats read_stats(ondemand::value& value) {
        input_.expect(value, ondemand::json_type::object, "\"stats\"");
        Stats stats;
        for (auto field : value.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value item = field.value();
            if (key == "min") {
                stats.min = input_.number(item, "\"min\"");
            } else if (key == "median") {
                stats.median = input_.number(item, "\"median\"");
            } else if (key == "mean") {
                stats.mean = input_.number(item, "\"mean\"");
            } else if (key == "stddev") {
                stats.stddev = input_.number(item, "\"stddev\"");
            } else if (key == "rounds") {
                stats.rounds = input_.number(item, "\"rounds\"");
            } else if (key == "data") {
                input_.expect(item, ondemand::json_type::array, "\"data\"");
                for (auto round : item.get_array()) {
                    ondemand::value seconds = round.value();
                    stats.data.push_back(input_.number(seconds, "a round time in \"data\""));
                }
                stats.has_data = true;
            }
        }
        return stats;
    }

    // With per-round "data": the minimum round and a summary of all rounds. Without it: "min",
    // and the rounds, median, mean and stddev pytest-benchmark computed from the same rounds.
    void add(const std::string& name, const Stats& stats, const char* start) {
        if (!names_.insert(name).second)
            input_.fail(fmt::format(
                "benchmark '{}' appears twice; pytest node ids are unique within one session, so "
                "give each session's results their own file",
                name));
        model::Result result;
        result.benchmark = name;
        if (stats.has_data && !stats.data.empty()) {
            std::vector<double> nanoseconds;
            for (double seconds : stats.data) {
                nanoseconds.push_back(seconds * nanoseconds_per_second);
                check_positive_time(input_, name, nanoseconds.back());
            }
            result.value = *std::min_element(nanoseconds.begin(), nanoseconds.end());
            result.samples = summarize(nanoseconds);
        } else {
            if (!stats.min || !stats.rounds || !stats.median || !stats.mean || !stats.stddev)
                input_.fail_at(start,
                               fmt::format("benchmark '{}': expected \"min\", \"rounds\", "
                                           "\"median\", \"mean\" and \"stddev\" in \"stats\"",
                                           name));
            result.value = *stats.min * nanoseconds_per_second;
            check_positive_time(input_, name, result.value);
            result.samples = model::SampleSummary{static_cast<std::int64_t>(*stats.rounds),
                                                  *stats.median * nanoseconds_per_second,
                                                  *stats.mean * nanoseconds_per_second,
                                                  *stats.stddev * nanoseconds_per_second,
                                                  {}};
        }
        parsed_.results.push_back(std::move(result));
    }

    JsonInput& input_;
    ParsedResults parsed_;
    std::unordered_set<std::string> names_;
};

// Whether the object `value` has a key "stats".
bool has_stats(ondemand::value value) {
    if (value.type().value() != ondemand::json_type::object) return false;
    for (auto field : value.get_object())
        if (field.unescaped_key().value() == "stats") return true;
    return false;
}

// pytest-benchmark writes {"machine_info": {…}, "commit_info": {…}, "benchmarks": [{"name",
// "fullname", "stats": {…}}…], "datetime", "version"}: the file is ours when it has
// "machine_info" and the first benchmark has "stats".
Claim detect_pytestbenchmark(const Probe& probe) {
    if (probe.json == nullptr || probe.json->type().value() != ondemand::json_type::object)
        return {};
    bool machine_info = false;
    std::optional<bool> first_has_stats;
    for (auto field : probe.json->get_object()) {
        const std::string_view key = field.unescaped_key().value();
        if (key == "machine_info") {
            machine_info = true;
        } else if (key == "benchmarks") {
            ondemand::value benchmarks = field.value();
            if (benchmarks.type().value() != ondemand::json_type::array) break;
            first_has_stats = false;
            for (auto element : benchmarks.get_array()) {
                first_has_stats = has_stats(element.value());
                break;
            }
        }
    }
    if (machine_info && first_has_stats.value_or(false)) return {true, {}};
    if (machine_info && first_has_stats)
        return {false,
                "a JSON object with \"machine_info\" whose \"benchmarks\" have no \"stats\""};
    return {};
}

ParsedResults read_pytestbenchmark(JsonInput& input) {
    return PytestBenchmarkReader(input).read();
}

}  // namespace

const Reader pytestbenchmark_reader{.name = "pytest-benchmark",
                                    .detect = detect_pytestbenchmark,
                                    .parse_json = read_pytestbenchmark};

}  // namespace benchwatch::ingest::detail
