#include "ingest/googlebenchmark.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <set>
#include <span>
#include <unordered_map>
#include <utility>

#include "ingest/json_pieces.hpp"
#include "ingest/readers.hpp"
#include "model/environment_keys.hpp"

namespace benchwatch::ingest::detail {

namespace ondemand = simdjson::ondemand;

namespace {

// The context keys worth comparing between runs, stored as "gbench.<key>". Left out on purpose:
// date, executable, load_avg and host_name change with every run or machine by design, and
// mhz_per_cpu is measured and moves with frequency scaling.
constexpr std::array<std::string_view, 4> kept_context_keys = {
    "library_build_type", "library_version", "num_cpus", "cpu_scaling_enabled"};

// One element of "benchmarks", with only the fields the reader uses; the texts point into the
// JsonInput.
struct Row {
    std::string_view name;
    std::string_view run_name;
    std::string_view run_type;
    std::string_view aggregate_name;
    std::string_view aggregate_unit;
    std::string_view time_unit = "ns";
    std::optional<double> real_time;
    std::optional<double> allocs_per_iter;
    std::optional<double> max_bytes_used;
    std::optional<std::int64_t> repetitions;
    std::optional<std::int64_t> repetition_index;
    std::int64_t iterations = 0;
    std::int64_t threads = 1;
    bool errored = false;
    bool skipped = false;
    std::string_view message;
};

// Everything the file holds about one benchmark (one run_name). Vectors rather than sets and
// maps: a file of 100,000 benchmarks keeps all of them at once, and each has a few entries.
struct Benchmark {
    std::string name;
    std::vector<double> times;  // ns, one per iteration row
    std::vector<double> allocations;
    std::vector<double> memory;
    std::vector<std::int64_t> repetition_indices;  // as the rows give them, checked at the end
    std::vector<std::pair<std::string, double>> aggregates;  // ns, by aggregate_name
    std::int64_t repetitions = 0;
};

// The benchmark a row belongs to: run_name, or for files older than run_name the name without
// its aggregate suffix ("BM_x_mean" → "BM_x").
std::string_view benchmark_name(const Row& row) {
    if (!row.run_name.empty()) return row.run_name;
    if (row.run_type != "aggregate" || !row.name.ends_with(row.aggregate_name)) return row.name;
    const auto stem = row.name.substr(0, row.name.size() - row.aggregate_name.size());
    return stem.ends_with('_') ? stem.substr(0, stem.size() - 1) : row.name;
}

// Hashes std::string and std::string_view alike, so that lookups need no copy of the name.
struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view name) const {
        return std::hash<std::string_view>{}(name);
    }
};

// Smallest of the values that are not negative; Google Benchmark 1.7 writes an uninitialised
// max_bytes_used into the first repetition, which this keeps out when others are sane.
std::optional<double> smallest_non_negative(const std::vector<double>& values) {
    std::optional<double> smallest;
    for (double value : values)
        if (value >= 0 && (!smallest || value < *smallest)) smallest = value;
    return smallest;
}

class GoogleBenchmarkReader {
  public:
    GoogleBenchmarkReader() { parsed_.format = "googlebenchmark"; }

    // Reads one element of "benchmarks".
    static Row read_row(JsonInput& input, ondemand::value& element) {
        input.expect(element, ondemand::json_type::object, "an element of \"benchmarks\"");
        Row row;
        for (auto field : element.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value value = field.value();
            if (key == "name")
                row.name = input.string(value, "\"name\"");
            else if (key == "run_name")
                row.run_name = input.string(value, "\"run_name\"");
            else if (key == "run_type")
                row.run_type = input.string(value, "\"run_type\"");
            else if (key == "aggregate_name")
                row.aggregate_name = input.string(value, "\"aggregate_name\"");
            else if (key == "aggregate_unit")
                row.aggregate_unit = input.string(value, "\"aggregate_unit\"");
            else if (key == "time_unit")
                row.time_unit = input.string(value, "\"time_unit\"");
            else if (key == "real_time")
                row.real_time = input.number(value, "\"real_time\"");
            else if (key == "allocs_per_iter")
                row.allocs_per_iter = input.number(value, "\"allocs_per_iter\"");
            else if (key == "max_bytes_used")
                row.max_bytes_used = input.number(value, "\"max_bytes_used\"");
            else if (key == "repetitions")
                row.repetitions = static_cast<std::int64_t>(input.number(value, "\"repetitions\""));
            else if (key == "repetition_index")
                row.repetition_index =
                    static_cast<std::int64_t>(input.number(value, "\"repetition_index\""));
            else if (key == "iterations")
                row.iterations = static_cast<std::int64_t>(input.number(value, "\"iterations\""));
            else if (key == "threads")
                row.threads = static_cast<std::int64_t>(input.number(value, "\"threads\""));
            else if (key == "error_occurred")
                row.errored = input.boolean(value, "\"error_occurred\"");
            else if (key == "skipped")
                row.skipped = input.boolean(value, "\"skipped\"");
            else if (key == "error_message")
                row.message = input.string(value, "\"error_message\"");
            else if (key == "skip_message")
                row.message = input.string(value, "\"skip_message\"");
        }
        if (row.name.empty() && row.run_name.empty())
            input.fail("an element of \"benchmarks\" has no \"name\"");
        return row;
    }

    // Reads a whole file: the context and every row of "benchmarks".
    void read_document(JsonInput& input) {
        input_ = &input;
        if (input.document().type().value() != ondemand::json_type::object)
            input.fail("expected a JSON object with a \"benchmarks\" array");
        ondemand::object root = input.document().get_object();
        for (auto field : root) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value value = field.value();
            if (key == "context") {
                read_context(value);
            } else if (key == "benchmarks") {
                input.expect(value, ondemand::json_type::array, "\"benchmarks\"");
                read_rows(value.get_array());
            }
        }
    }

    // Reads the rows of `batch`, a JSON array of them cut from "benchmarks", into `rows` without
    // taking them in, so that batches can be read on several threads at once; when it fails,
    // `rows` holds the rows before the failure.
    static void read_batch_rows(JsonInput& batch, std::vector<Row>& rows) {
        rows.clear();
        for (auto element : batch.document().get_array()) {
            ondemand::value row = element.value();
            rows.push_back(read_row(batch, row));
        }
    }

    // Takes in rows that read_batch_rows() read from `batch`, in the order of the file.
    void add_rows(JsonInput& batch, std::span<const Row> rows) {
        input_ = &batch;
        for (const Row& row : rows) add(row);
    }

    // The results, once every row is read.
    ParsedResults finish() {
        parsed_.results.reserve(benchmarks_.size());
        for (auto& benchmark : benchmarks_) {
            check_repetitions_once(benchmark);
            model::Result& result = parsed_.results.emplace_back(to_result(benchmark));
            result.benchmark = std::move(benchmark.name);
            benchmark = Benchmark{};  // what it held is in the result now
        }
        return std::move(parsed_);
    }

  private:
    void read_rows(ondemand::array rows) {
        for (auto element : rows) {
            ondemand::value row = element.value();
            add(read_row(*input_, row));
        }
    }

    void read_context(ondemand::value& context) {
        input_->expect(context, ondemand::json_type::object, "\"context\"");
        for (auto field : context.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            if (key == "executable") {
                ondemand::value value = field.value();
                if (auto text = input_->scalar_text(value)) parsed_.program = *text;
                continue;
            }
            if (std::find(kept_context_keys.begin(), kept_context_keys.end(), key) ==
                kept_context_keys.end())
                continue;
            const std::string context_key = fmt::format("gbench.{}", key);
            ondemand::value value = field.value();
            if (auto text = input_->scalar_text(value)) parsed_.context[context_key] = *text;
        }
    }

    void add(const Row& row) {
        const std::string_view name = benchmark_name(row);
        if (row.errored || row.skipped) return warn_left_out(name, row);
        const bool aggregate = row.run_type == "aggregate";
        if (aggregate && !row.aggregate_unit.empty() && row.aggregate_unit != "time") return;
        if (!aggregate && !row.run_type.empty() && row.run_type != "iteration") return;
        if (!row.real_time) {
            if (aggregate) return;  // complexity rows (BigO, RMS) carry coefficients instead
            input_->fail(fmt::format("benchmark '{}': a row without \"real_time\"", name));
        }
        const double time = *row.real_time * nanoseconds_per(row.time_unit, name);
        Benchmark& benchmark = find_or_add(name);
        if (row.repetitions) benchmark.repetitions = *row.repetitions;
        if (aggregate) {
            if (find_aggregate(benchmark, row.aggregate_name))
                input_->fail(fmt::format("benchmark '{}': aggregate '{}' appears twice", name,
                                         row.aggregate_name));
            benchmark.aggregates.emplace_back(row.aggregate_name, time);
            return;
        }
        check_positive_time(*input_, name, time);
        if (benchmark.times.empty() && row.repetitions) {
            const auto expected =
                static_cast<std::size_t>(std::clamp<std::int64_t>(*row.repetitions, 1, 64));
            benchmark.times.reserve(expected);
            if (row.repetition_index) benchmark.repetition_indices.reserve(expected);
        }
        if (row.repetition_index) benchmark.repetition_indices.push_back(*row.repetition_index);
        benchmark.times.push_back(time);
        if (row.allocs_per_iter) benchmark.allocations.push_back(*row.allocs_per_iter);
        if (row.max_bytes_used) benchmark.memory.push_back(*row.max_bytes_used);
    }

    void warn_left_out(std::string_view name, const Row& row) {
        if (!warned_.emplace(name).second) return;
        const char* what = row.errored ? "reported an error" : "was skipped";
        parsed_.warnings.push_back(row.message.empty()
                                       ? fmt::format("{}: benchmark '{}' {} and was left out",
                                                     input_->source(), name, what)
                                       : fmt::format("{}: benchmark '{}' {} and was left out: {}",
                                                     input_->source(), name, what, row.message));
    }

    double nanoseconds_per(std::string_view unit, std::string_view benchmark) const {
        if (unit == "ns") return 1;
        if (unit == "us") return 1e3;
        if (unit == "ms") return 1e6;
        if (unit == "s") return 1e9;
        input_->fail(fmt::format("benchmark '{}': unknown time_unit '{}'; expected ns, us, ms or s",
                                 benchmark, unit));
    }

    Benchmark& find_or_add(std::string_view name) {
        if (const auto found = index_.find(name); found != index_.end())
            return benchmarks_[found->second];
        index_.emplace(name, benchmarks_.size());
        auto& added = benchmarks_.emplace_back();
        added.name = name;
        return added;
    }

    // The result of `benchmark`, all but its name. Iteration rows give the minimum over
    // repetitions. Files with only aggregates give the "min" aggregate when the suite computes
    // one, else the median, else the mean, and say which (model::statistic_key).
    model::Result to_result(const Benchmark& benchmark) {
        model::Result result;
        if (!benchmark.times.empty()) {
            result.value = *std::min_element(benchmark.times.begin(), benchmark.times.end());
            result.samples = summarize(benchmark.times);
            result.allocations = smallest_non_negative(benchmark.allocations);
            result.memory = smallest_non_negative(benchmark.memory);
            return result;
        }
        const auto aggregate = [&](std::string_view name) {
            return find_aggregate(benchmark, name);
        };
        std::string_view statistic = "minimum";
        std::optional<double> value = aggregate("min");
        if (!value) {
            value = aggregate("median");
            statistic = "median";
        }
        if (!value) {
            value = aggregate("mean");
            statistic = "mean";
        }
        parsed_.context[std::string(model::statistic_key)] = statistic;
        if (!value)
            input_->fail(fmt::format("benchmark '{}': aggregate rows without a min, median or mean",
                                     benchmark.name));
        check_positive_time(*input_, benchmark.name, *value);
        result.value = *value;
        result.samples = model::SampleSummary{benchmark.repetitions,
                                              aggregate("median").value_or(*value),
                                              aggregate("mean").value_or(*value),
                                              aggregate("stddev").value_or(0),
                                              {}};
        return result;
    }

    // The aggregate row of `benchmark` named `name`; Google Benchmark writes a few (mean, median,
    // stddev, cv and the suite's own), so a search is quicker than a map.
    static std::optional<double> find_aggregate(const Benchmark& benchmark, std::string_view name) {
        for (const auto& [aggregate_name, time] : benchmark.aggregates)
            if (aggregate_name == name) return time;
        return std::nullopt;
    }

    // Fails when a repetition index appears twice for one benchmark: the file repeats it.
    void check_repetitions_once(Benchmark& benchmark) const {
        auto& indices = benchmark.repetition_indices;
        std::sort(indices.begin(), indices.end());
        const auto twice = std::adjacent_find(indices.begin(), indices.end());
        if (twice != indices.end())
            input_->fail(fmt::format("benchmark '{}' appears twice (repetition {})", benchmark.name,
                                     *twice));
    }

    JsonInput* input_ = nullptr;  // the document or batch being read
    ParsedResults parsed_;
    std::vector<Benchmark> benchmarks_;  // in the order the file first names them
    std::unordered_map<std::string, std::size_t, NameHash, std::equal_to<>> index_;
    std::set<std::string> warned_;
};

// Google Benchmark writes {"context": {…}, "benchmarks": [rows…]}; the array is enough to
// claim the file.
// Whether the object `value` has one of `keys`.
bool has_any_key(ondemand::value value, std::initializer_list<std::string_view> keys) {
    if (value.type().value() != ondemand::json_type::object) return false;
    for (auto field : value.get_object()) {
        const std::string_view key = field.unescaped_key().value();
        if (std::find(keys.begin(), keys.end(), key) != keys.end()) return true;
    }
    return false;
}

// Google Benchmark writes {"context": {"executable", "library_build_type"…}, "benchmarks":
// [{"name", "run_type", "real_time", "time_unit"…}…]}: other harnesses also have a "benchmarks"
// array (pytest-benchmark, nvbench), so the file is ours when the context or the first row is
// Google Benchmark's own.
Claim detect_googlebenchmark(const Probe& probe) {
    if (probe.json == nullptr || probe.json->type().value() != ondemand::json_type::object)
        return {};
    bool benchmarks_array = false;
    for (auto field : probe.json->get_object()) {
        const std::string_view key = field.unescaped_key().value();
        if (key == "context") {
            if (has_any_key(field.value(), {"executable", "library_build_type"})) return {true, {}};
        } else if (key == "benchmarks") {
            ondemand::value benchmarks = field.value();
            if (benchmarks.type().value() != ondemand::json_type::array) break;
            benchmarks_array = true;
            for (auto element : benchmarks.get_array()) {
                if (has_any_key(element.value(), {"run_type", "real_time", "time_unit"}))
                    return {true, {}};
                break;
            }
        }
    }
    if (benchmarks_array)
        return {false, "a JSON object whose \"benchmarks\" are not Google Benchmark's rows"};
    return {false, "a JSON object without a \"benchmarks\" array"};
}

ParsedResults read_googlebenchmark(JsonInput& input) {
    GoogleBenchmarkReader reader;
    reader.read_document(input);
    return reader.finish();
}

}  // namespace

ParsedResults read_googlebenchmark_in_pieces(RootArrayPieces& pieces, bool second_thread) {
    GoogleBenchmarkReader reader;
    std::array<std::vector<Row>, 2> rows;
    read_batches_on_two_threads(
        pieces, second_thread,
        [&rows](JsonInput& batch, int lane) {
            try {
                GoogleBenchmarkReader::read_batch_rows(batch, rows[lane]);
            } catch (const simdjson::simdjson_error& error) {
                batch.fail_json(error.error());
            }
        },
        [&rows, &reader](JsonInput& batch, int lane) { reader.add_rows(batch, rows[lane]); });
    JsonInput& rest = pieces.rest();
    try {
        reader.read_document(rest);
    } catch (const simdjson::simdjson_error& error) {
        rest.fail_json(error.error());
    }
    return reader.finish();
}

const Reader googlebenchmark_reader{.name = "googlebenchmark",
                                    .detect = detect_googlebenchmark,
                                    .parse_json = read_googlebenchmark};

}  // namespace benchwatch::ingest::detail

namespace benchwatch::ingest {

std::vector<GoogleBenchmarkRow> google_benchmark_rows(std::string_view json,
                                                      std::string_view source) {
    detail::JsonInput input(json, json.size(), source);
    std::vector<GoogleBenchmarkRow> rows;
    try {
        if (input.document().type().value() != detail::ondemand::json_type::object)
            input.fail("expected a JSON object with a \"benchmarks\" array");
        for (auto field : input.document().get_object()) {
            if (field.unescaped_key().value() != "benchmarks") continue;
            detail::ondemand::value benchmarks = field.value();
            input.expect(benchmarks, detail::ondemand::json_type::array, "\"benchmarks\"");
            for (auto element : benchmarks.get_array()) {
                detail::ondemand::value value = element.value();
                const auto row = detail::GoogleBenchmarkReader::read_row(input, value);
                if (!row.run_type.empty() && row.run_type != "iteration") continue;
                rows.push_back({std::string(detail::benchmark_name(row)), row.iterations,
                                row.threads, row.errored || row.skipped});
            }
        }
    } catch (const simdjson::simdjson_error& error) {
        input.fail_json(error.error());
    }
    return rows;
}

}  // namespace benchwatch::ingest
