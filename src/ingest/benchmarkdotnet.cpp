#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <string>
#include <unordered_set>

#include "ingest/readers.hpp"

namespace benchwatch::ingest::detail {

namespace ondemand = simdjson::ondemand;

namespace {

// The HostEnvironmentInfo keys that name the runtime, the operating system and the processor,
// stored as "dotnet.<key>". Left out: ChronometerFrequency, HardwareTimerKind,
// HasAttachedDebugger and the virtual-machine hints, which describe the run rather than the
// machine or its versions.
constexpr std::array<std::string_view, 10> kept_host_keys = {
    "BenchmarkDotNetVersion", "OsVersion",        "ProcessorName",  "PhysicalProcessorCount",
    "PhysicalCoreCount",      "LogicalCoreCount", "RuntimeVersion", "Architecture",
    "Configuration",          "DotNetCliVersion"};

// What one element of "Benchmarks" says, in ns as BenchmarkDotNet writes its statistics.
struct Entry {
    std::string name;
    bool has_statistics = false;  // null when the benchmark failed to build or run
    std::optional<double> n;
    std::optional<double> min;
    std::optional<double> median;
    std::optional<double> mean;
    std::optional<double> standard_deviation;
    std::optional<double> bytes_allocated;
};

class BenchmarkDotNetReader {
  public:
    explicit BenchmarkDotNetReader(JsonInput& input) : input_(input) {
        parsed_.format = "benchmarkdotnet";
    }

    ParsedResults read() {
        input_.for_each_in_root_array(
            "Benchmarks", [&](ondemand::value& benchmark) { add(read_entry(benchmark)); },
            [&](std::string_view key, ondemand::value& value) {
                if (key == "HostEnvironmentInfo") read_host(value);
            });
        return std::move(parsed_);
    }

  private:
    void read_host(ondemand::value& host) {
        input_.expect(host, ondemand::json_type::object, "\"HostEnvironmentInfo\"");
        for (auto field : host.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            if (std::find(kept_host_keys.begin(), kept_host_keys.end(), key) ==
                kept_host_keys.end())
                continue;
            ondemand::value value = field.value();
            auto text = input_.scalar_text(value);
            if (text && !text->empty()) parsed_.context[fmt::format("dotnet.{}", key)] = *text;
        }
    }

    Entry read_entry(ondemand::value& benchmark) {
        input_.expect(benchmark, ondemand::json_type::object, "an element of \"Benchmarks\"");
        start_ = input_.where(benchmark);
        Entry entry;
        bool named = false;
        for (auto field : benchmark.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value value = field.value();
            if (key == "FullName") {
                entry.name = std::string(input_.string(value, "\"FullName\""));
                named = true;
            } else if (key == "Statistics") {
                if (value.type().value() == ondemand::json_type::null) continue;
                read_statistics(value, entry);
            } else if (key == "Memory") {
                if (value.type().value() == ondemand::json_type::null) continue;
                read_memory(value, entry);
            }
        }
        if (!named)
            input_.fail_at(start_, "expected a \"FullName\" in each element of \"Benchmarks\"");
        return entry;
    }

    void read_statistics(ondemand::value& statistics, Entry& entry) {
        input_.expect(statistics, ondemand::json_type::object, "\"Statistics\"");
        entry.has_statistics = true;
        for (auto field : statistics.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value value = field.value();
            if (key == "N")
                entry.n = input_.number(value, "\"N\"");
            else if (key == "Min")
                entry.min = input_.number(value, "\"Min\"");
            else if (key == "Median")
                entry.median = input_.number(value, "\"Median\"");
            else if (key == "Mean")
                entry.mean = input_.number(value, "\"Mean\"");
            else if (key == "StandardDeviation")
                entry.standard_deviation = input_.number(value, "\"StandardDeviation\"");
        }
    }

    void read_memory(ondemand::value& memory, Entry& entry) {
        input_.expect(memory, ondemand::json_type::object, "\"Memory\"");
        for (auto field : memory.get_object()) {
            if (field.unescaped_key().value() != "BytesAllocatedPerOperation") continue;
            ondemand::value value = field.value();
            entry.bytes_allocated = input_.number(value, "\"BytesAllocatedPerOperation\"");
        }
    }

    // The value is "Min" and the samples BenchmarkDotNet's own statistics, which it computes
    // after removing upper outliers; the raw "Measurements" are not read.
    void add(const Entry& entry) {
        if (!names_.insert(entry.name).second)
            input_.fail(fmt::format(
                "benchmark '{}' appears twice; BenchmarkDotNet writes one entry per job, so "
                "export each job's results to its own file",
                entry.name));
        if (!entry.has_statistics) {
            parsed_.warnings.push_back(
                fmt::format("{}: benchmark '{}' has no statistics (it failed to build or run); "
                            "left out",
                            input_.source(), entry.name));
            return;
        }
        if (!entry.min || !entry.n || !entry.median || !entry.mean || !entry.standard_deviation)
            input_.fail_at(start_, fmt::format("benchmark '{}': expected \"N\", \"Min\", "
                                               "\"Median\", \"Mean\" and \"StandardDeviation\" "
                                               "in \"Statistics\"",
                                               entry.name));
        check_positive_time(input_, entry.name, *entry.min);
        model::Result result;
        result.benchmark = entry.name;
        result.value = *entry.min;
        result.samples = model::SampleSummary{static_cast<std::int64_t>(*entry.n),
                                              *entry.median,
                                              *entry.mean,
                                              *entry.standard_deviation,
                                              {}};
        result.memory = entry.bytes_allocated;
        parsed_.results.push_back(std::move(result));
    }

    JsonInput& input_;
    ParsedResults parsed_;
    std::unordered_set<std::string> names_;
    const char* start_ = nullptr;  // where the entry being read begins, for messages
};

// BenchmarkDotNet's JSON exporters (full, brief, compressed) write {"Title",
// "HostEnvironmentInfo": {…}, "Benchmarks": [{"FullName", "Statistics", …}…]}: the
// "HostEnvironmentInfo" object and a "Benchmarks" array are its own; the capitals are
// BenchmarkDotNet's, no other harness spells them so.
Claim detect_benchmarkdotnet(const Probe& probe) {
    if (probe.json == nullptr || probe.json->type().value() != ondemand::json_type::object)
        return {};
    bool host = false;
    bool benchmarks = false;
    for (auto field : probe.json->get_object()) {
        const std::string_view key = field.unescaped_key().value();
        host = host || key == "HostEnvironmentInfo";
        if (key == "Benchmarks")
            benchmarks = field.value().type().value() == ondemand::json_type::array;
    }
    if (host && benchmarks) return {true, {}};
    if (host || benchmarks)
        return {false, "a JSON object with \"HostEnvironmentInfo\" or \"Benchmarks\" but not both"};
    return {};
}

ParsedResults read_benchmarkdotnet(JsonInput& input) {
    return BenchmarkDotNetReader(input).read();
}

}  // namespace

const Reader benchmarkdotnet_reader{.name = "benchmarkdotnet",
                                    .detect = detect_benchmarkdotnet,
                                    .parse_json = read_benchmarkdotnet};

}  // namespace benchwatch::ingest::detail
