#include <fmt/core.h>

#include <cmath>
#include <set>
#include <string>
#include <utility>

#include "ingest/readers.hpp"
#include "ingest/units.hpp"

namespace benchwatch::ingest::detail {

namespace ondemand = simdjson::ondemand;

namespace {

// How one measure slug becomes a metric: Bencher's built-in measures have known units and
// directions; any other slug is its own unitless metric, smaller is better.
struct Measure {
    std::string metric;
    std::string unit;
    double scale = 1;  // from Bencher's unit to the stored one
    model::Direction direction = model::Direction::SmallerIsBetter;
};

Measure measure_for(std::string_view slug) {
    if (slug == "latency") return {"time", "ns"};
    if (slug == "throughput") return {"throughput", "ops/s", 1, model::Direction::BiggerIsBetter};
    if (slug == "file-size") return {"file-size", "B"};
    if (slug == "build-time") return {"build-time", "ns", nanoseconds_per_second};
    // What iai-callgrind and gungraun send Bencher, as benchwatch's instrument names them, so
    // that they are judged with the counted minimum.
    if (slug == "instructions") return {"instructions", "instr"};
    if (slug == "estimated-cycles") return {"estimated_cycles", "cycles"};
    return {std::string(slug), ""};
}

class BencherReader {
  public:
    explicit BencherReader(JsonInput& input)
        : input_(input), names_budget_(input.size(), input.source()) {
        parsed_.format = "bencher";
    }

    ParsedResults read() {
        ondemand::value root = input_.document().get_value().value();
        input_.expect(root, ondemand::json_type::object,
                      "the document (Bencher's metric format is {\"benchmark\": {\"measure\": "
                      "{\"value\": n}}})");
        for (auto field : root.get_object()) {
            const std::string benchmark(field.unescaped_key().value());
            names_budget_.check_length(benchmark);
            ondemand::value measures = field.value();
            read_benchmark(benchmark, measures);
        }
        return std::move(parsed_);
    }

  private:
    void read_benchmark(const std::string& benchmark, ondemand::value& measures) {
        input_.expect(measures, ondemand::json_type::object,
                      fmt::format("benchmark '{}'", benchmark));
        for (auto field : measures.get_object()) {
            const std::string_view slug = field.unescaped_key().value();
            ondemand::value metric = field.value();
            add(benchmark, slug, read_value(benchmark, slug, metric));
        }
    }

    // The "value" of one measure; "lower_value" and "upper_value" are bounds Bencher only draws.
    double read_value(const std::string& benchmark, std::string_view slug,
                      ondemand::value& metric) {
        const std::string what = fmt::format("benchmark '{}' measure '{}'", benchmark, slug);
        input_.expect(metric, ondemand::json_type::object, what);
        const char* const start = input_.where(metric);
        std::optional<double> value;
        for (auto field : metric.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value item = field.value();
            if (key == "value")
                value = input_.number(item, "\"value\"");
            else if (key == "lower_value" || key == "upper_value")
                input_.number(item, fmt::format("\"{}\"", key));
        }
        if (!value) input_.fail_at(start, fmt::format("{}: expected a \"value\"", what));
        return *value;
    }

    void add(const std::string& benchmark, std::string_view slug, double value) {
        const Measure measure = measure_for(slug);
        names_budget_.take(benchmark);
        if (!seen_.emplace(benchmark, measure.metric).second)
            input_.fail(fmt::format("benchmark '{}' has measure '{}' twice", benchmark, slug));
        model::Result result;
        result.benchmark = benchmark;
        result.metric = measure.metric;
        result.unit = measure.unit;
        result.direction = measure.direction;
        result.value = value * measure.scale;
        if (result.unit == "ns")
            check_positive_time(input_, benchmark, result.value);
        else if (!std::isfinite(result.value))
            input_.fail(fmt::format("benchmark '{}' measure '{}': value must be finite, got {}",
                                    benchmark, slug, result.value));
        parsed_.results.push_back(std::move(result));
    }

    JsonInput& input_;
    ParsedResults parsed_;
    NameBudget names_budget_;
    std::set<std::pair<std::string, std::string>> seen_;  // benchmark and metric
};

// The first value of `object`, when it is an object; nullopt otherwise.
std::optional<ondemand::object> first_object_in(ondemand::object object) {
    for (auto field : object) {
        ondemand::value value = field.value();
        if (value.type().value() != ondemand::json_type::object) return std::nullopt;
        return value.get_object().value();
    }
    return std::nullopt;
}

// Bencher's metric format is {"benchmark": {"measure": {"value": n, …}…}…}, with names chosen
// by the user, so the shape decides: the first benchmark's first measure is an object with a
// numeric "value". No other harness nests objects two deep before its first number.
Claim detect_bencher(const Probe& probe) {
    if (probe.json == nullptr || probe.json->type().value() != ondemand::json_type::object)
        return {};
    auto benchmark = first_object_in(probe.json->get_object().value());
    if (!benchmark) return {};
    auto measure = first_object_in(*benchmark);
    if (!measure) return {};
    for (auto field : *measure) {
        if (field.unescaped_key().value() != "value") continue;
        if (field.value().type().value() == ondemand::json_type::number) return {true, {}};
        break;
    }
    return {};
}

ParsedResults read_bencher(JsonInput& input) {
    return BencherReader(input).read();
}

}  // namespace

const Reader bencher_reader{
    .name = "bencher", .detect = detect_bencher, .parse_json = read_bencher};

}  // namespace benchwatch::ingest::detail
