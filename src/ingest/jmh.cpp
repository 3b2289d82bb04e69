#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "ingest/readers.hpp"
#include "ingest/units.hpp"

namespace benchwatch::ingest::detail {

namespace ondemand = simdjson::ondemand;

namespace {

// A JMH unit ("us/op", "ops/ms") as a factor to the base unit (ns per op, ops per second).
struct Scale {
    bool throughput = false;
    double factor = 1;
};

// "ms/op" → time, ×1e6 to ns; "ops/ms" → throughput, ×1e3 to ops/s; nullopt for anything else.
std::optional<Scale> scale_of(std::string_view unit) {
    if (unit.ends_with("/op")) {
        const auto per_op = detail::jmh_nanoseconds_in(unit.substr(0, unit.size() - 3));
        if (per_op) return Scale{false, *per_op};
    } else if (unit.starts_with("ops/")) {
        const auto per = detail::jmh_nanoseconds_in(unit.substr(4));
        if (per) return Scale{true, 1e9 / *per};
    }
    return std::nullopt;
}

// One element of the top-level array, with the fields the reader uses.
struct Run {
    std::string benchmark;
    std::string mode;
    std::vector<std::pair<std::string, std::string>> params;  // in the file's order
    std::optional<double> score;
    std::string unit;
    std::vector<double> raw;                           // rawData, flattened, in `unit`
    std::vector<std::pair<double, double>> histogram;  // sample mode: (value, count)
    std::map<std::string, double, std::less<>> percentiles;
    std::optional<double> allocated_per_op;  // gc.alloc.rate.norm, B/op
    const char* start = nullptr;
};

class JmhReader {
  public:
    explicit JmhReader(JsonInput& input) : input_(input) { parsed_.format = "jmh"; }

    ParsedResults read() {
        ondemand::value root = input_.document().get_value().value();
        input_.expect(root, ondemand::json_type::array, "the document");
        std::vector<Run> runs;
        for (auto element : root.get_array()) {
            ondemand::value run = element.value();
            runs.push_back(read_run(run));
        }
        // A benchmark measured in several modes gets its mode as one more parameter.
        std::map<std::string, std::set<std::string>> modes_of;
        for (const Run& run : runs) modes_of[name_of(run, false)].insert(run.mode);
        for (const Run& run : runs)
            add(run, name_of(run, modes_of[name_of(run, false)].size() > 1));
        return std::move(parsed_);
    }

  private:
    Run read_run(ondemand::value& value) {
        input_.expect(value, ondemand::json_type::object, "an element of the array");
        Run run;
        run.start = input_.where(value);
        bool measured = false;
        for (auto field : value.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value item = field.value();
            if (key == "benchmark") {
                run.benchmark = std::string(input_.string(item, "\"benchmark\""));
            } else if (key == "mode") {
                run.mode = std::string(input_.string(item, "\"mode\""));
            } else if (key == "params") {
                read_params(item, run);
            } else if (key == "primaryMetric") {
                read_primary(item, run);
                measured = true;
            } else if (key == "secondaryMetrics") {
                read_secondary(item, run);
            }
        }
        if (run.benchmark.empty())
            input_.fail_at(run.start, "expected a \"benchmark\" in each element");
        if (!measured)
            input_.fail_at(run.start, fmt::format("benchmark '{}': expected a \"primaryMetric\"",
                                                  run.benchmark));
        return run;
    }

    void read_params(ondemand::value& params, Run& run) {
        if (params.type().value() == ondemand::json_type::null) return;
        input_.expect(params, ondemand::json_type::object, "\"params\"");
        for (auto field : params.get_object()) {
            std::string key(field.unescaped_key().value());
            ondemand::value item = field.value();
            auto text = input_.scalar_text(item);
            if (!text) input_.fail_at(input_.where(item), "expected a text or number parameter");
            run.params.emplace_back(std::move(key), std::move(*text));
        }
    }

    void read_primary(ondemand::value& metric, Run& run) {
        input_.expect(metric, ondemand::json_type::object, "\"primaryMetric\"");
        for (auto field : metric.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value item = field.value();
            if (key == "score") {
                run.score = input_.number(item, "\"score\"");
            } else if (key == "scoreUnit") {
                run.unit = std::string(input_.string(item, "\"scoreUnit\""));
            } else if (key == "scorePercentiles") {
                input_.expect(item, ondemand::json_type::object, "\"scorePercentiles\"");
                for (auto percentile : item.get_object()) {
                    std::string name(percentile.unescaped_key().value());
                    ondemand::value number = percentile.value();
                    run.percentiles[name] = input_.number(number, "a percentile");
                }
            } else if (key == "rawData") {
                for_each_nested(item, "\"rawData\"", [&](ondemand::value& number) {
                    run.raw.push_back(input_.number(number, "a \"rawData\" value"));
                });
            } else if (key == "rawDataHistogram") {
                read_histogram(item, run);
            }
        }
        if (!run.score)
            input_.fail_at(run.start,
                           fmt::format("benchmark '{}': expected a \"score\"", run.benchmark));
    }

    // rawDataHistogram: per fork, per iteration, [value, count] pairs.
    void read_histogram(ondemand::value& forks, Run& run) {
        for_each_nested(forks, "\"rawDataHistogram\"", [&](ondemand::value& iteration) {
            input_.expect(iteration, ondemand::json_type::array, "\"rawDataHistogram\"");
            for (auto element : iteration.get_array()) {
                ondemand::value pair = element.value();
                input_.expect(pair, ondemand::json_type::array, "a [value, count] pair");
                std::vector<double> numbers;
                for (auto number : pair.get_array()) {
                    ondemand::value item = number.value();
                    numbers.push_back(input_.number(item, "a [value, count] pair"));
                }
                if (numbers.size() != 2)
                    input_.fail(fmt::format(
                        "benchmark '{}': expected [value, count] pairs in \"rawDataHistogram\"",
                        run.benchmark));
                run.histogram.emplace_back(numbers[0], numbers[1]);
            }
        });
    }

    // Calls `visit` with each element of each array in the array `outer`.
    template <typename Visit>
    void for_each_nested(ondemand::value& outer, std::string_view what, Visit visit) {
        input_.expect(outer, ondemand::json_type::array, what);
        for (auto element : outer.get_array()) {
            ondemand::value inner = element.value();
            input_.expect(inner, ondemand::json_type::array, what);
            for (auto item : inner.get_array()) {
                ondemand::value value = item.value();
                visit(value);
            }
        }
    }

    // Only the allocation per operation is kept; JMH writes older names with a leading "·".
    void read_secondary(ondemand::value& metrics, Run& run) {
        input_.expect(metrics, ondemand::json_type::object, "\"secondaryMetrics\"");
        for (auto field : metrics.get_object()) {
            std::string_view key = field.unescaped_key().value();
            if (key.starts_with("\u00b7")) key.remove_prefix(std::string_view("\u00b7").size());
            if (key != "gc.alloc.rate.norm") continue;
            ondemand::value metric = field.value();
            input_.expect(metric, ondemand::json_type::object, "\"gc.alloc.rate.norm\"");
            for (auto item : metric.get_object()) {
                if (item.unescaped_key().value() != "score") continue;
                ondemand::value score = item.value();
                run.allocated_per_op = input_.number(score, "the allocation score");
            }
        }
    }

    // "benchmark:key=value,key=value", the parameters in the file's order, plus mode=M when
    // `with_mode`.
    static std::string name_of(const Run& run, bool with_mode) {
        std::vector<std::string> parts;
        for (const auto& [key, value] : run.params) parts.push_back(key + "=" + value);
        if (with_mode) parts.push_back("mode=" + run.mode);
        if (parts.empty()) return run.benchmark;
        std::string name = run.benchmark + ":";
        for (std::size_t i = 0; i < parts.size(); ++i) name += (i == 0 ? "" : ",") + parts[i];
        return name;
    }

    void add(const Run& run, const std::string& name) {
        if (!names_.insert(name).second)
            input_.fail_at(run.start, fmt::format("benchmark '{}' appears twice", name));
        const auto scale = scale_of(run.unit);
        if (!scale)
            input_.fail_at(run.start,
                           fmt::format("benchmark '{}': unknown scoreUnit '{}'; expected a time "
                                       "per op (ns/op, us/op, ms/op, s/op) or ops per time "
                                       "(ops/s, ops/ms…)",
                                       name, run.unit));
        model::Result result;
        result.benchmark = name;
        std::vector<double> values;
        for (double raw : run.raw) values.push_back(raw * scale->factor);
        for (double value : values) check_positive(name, value, scale->throughput);
        if (scale->throughput) {
            result.metric = "throughput";
            result.unit = "ops/s";
            result.direction = model::Direction::BiggerIsBetter;
            result.value = values.empty() ? *run.score * scale->factor
                                          : *std::max_element(values.begin(), values.end());
        } else {
            const auto fastest = run.percentiles.find("0.0");
            result.value = !values.empty() ? *std::min_element(values.begin(), values.end())
                           : fastest != run.percentiles.end() && !run.histogram.empty()
                               ? fastest->second * scale->factor
                               : *run.score * scale->factor;
        }
        check_positive(name, result.value, scale->throughput);
        if (!values.empty())
            result.samples = summarize(values);
        else if (!run.histogram.empty())
            result.samples = histogram_summary(run, scale->factor);
        result.memory = run.allocated_per_op;
        parsed_.results.push_back(std::move(result));
    }

    // Count and standard deviation from the histogram, median from the 50th percentile, mean
    // from the score (JMH's own mean of the same samples).
    static model::SampleSummary histogram_summary(const Run& run, double factor) {
        const double mean = *run.score * factor;
        double count = 0;
        double squares = 0;
        for (const auto& [value, times] : run.histogram) {
            count += times;
            squares += times * (value * factor - mean) * (value * factor - mean);
        }
        const auto median = run.percentiles.find("50.0");
        return {static_cast<std::int64_t>(count),
                median != run.percentiles.end() ? median->second * factor : mean,
                mean,
                count > 1 ? std::sqrt(squares / (count - 1)) : 0,
                {}};
    }

    void check_positive(std::string_view name, double value, bool throughput) const {
        if (!throughput) return check_positive_time(input_, name, value);
        if (std::isfinite(value) && value > 0) return;
        input_.fail(fmt::format("benchmark '{}': throughput must be a positive number, got {}",
                                name, value));
    }

    JsonInput& input_;
    ParsedResults parsed_;
    std::set<std::string> names_;
};

// JMH writes [{"jmhVersion", "benchmark", "mode", …, "primaryMetric": {…}}…]: the file is ours when
// the first element has "benchmark" and "primaryMetric". github-action-benchmark's custom format
// is also an array, of {"name", "unit", "value"}, and is not claimed.
Claim detect_jmh(const Probe& probe) {
    if (probe.json == nullptr || probe.json->type().value() != ondemand::json_type::array)
        return {};
    for (auto element : probe.json->get_array()) {
        ondemand::value first = element.value();
        if (first.type().value() != ondemand::json_type::object) return {};
        bool benchmark = false;
        bool primary_metric = false;
        for (auto field : first.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            benchmark = benchmark || key == "benchmark";
            primary_metric = primary_metric || key == "primaryMetric";
        }
        if (benchmark && primary_metric) return {true, {}};
        if (benchmark) return {false, "a JSON array of benchmarks without JMH's \"primaryMetric\""};
        return {};
    }
    return {};
}

ParsedResults read_jmh(JsonInput& input) {
    return JmhReader(input).read();
}

}  // namespace

const Reader jmh_reader{.name = "jmh", .detect = detect_jmh, .parse_json = read_jmh};

}  // namespace benchwatch::ingest::detail
