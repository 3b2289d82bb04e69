#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_set>
#include <vector>

#include "ingest/readers.hpp"
#include "ingest/units.hpp"

namespace benchwatch::ingest::detail {

namespace ondemand = simdjson::ondemand;

namespace {

// One element of "results". nanobench's "elapsed" is seconds per iteration (one call of the
// benchmarked code), which does `batch` of the benchmark's `unit`.
struct Row {
    std::string title;
    std::string name;
    std::string unit = "op";
    double batch = 1;
    std::optional<double> median_elapsed;
    std::vector<double> elapsed;  // one per measurement (epoch)
    bool named = false;
};

class NanobenchReader {
  public:
    explicit NanobenchReader(JsonInput& input) : input_(input) { parsed_.format = "nanobench"; }

    ParsedResults read() {
        input_.for_each_in_root_array("results", [&](ondemand::value& row) { add(read_row(row)); });
        return std::move(parsed_);
    }

  private:
    Row read_row(ondemand::value& value) {
        input_.expect(value, ondemand::json_type::object, "an element of \"results\"");
        start_ = input_.where(value);
        Row row;
        for (auto field : value.get_object()) {
            const std::string_view key = field.unescaped_key().value();
            ondemand::value item = field.value();
            if (key == "title") {
                row.title = std::string(input_.string(item, "\"title\""));
            } else if (key == "name") {
                row.name = std::string(input_.string(item, "\"name\""));
                row.named = true;
            } else if (key == "unit") {
                row.unit = std::string(input_.string(item, "\"unit\""));
            } else if (key == "batch") {
                row.batch = input_.number(item, "\"batch\"");
            } else if (key == "median(elapsed)") {
                row.median_elapsed = input_.number(item, "\"median(elapsed)\"");
            } else if (key == "measurements") {
                input_.expect(item, ondemand::json_type::array, "\"measurements\"");
                for (auto element : item.get_array()) {
                    ondemand::value measurement = element.value();
                    row.elapsed.push_back(read_elapsed(measurement));
                }
            }
        }
        if (!row.named)
            input_.fail_at(start_, "expected a \"name\" in each element of \"results\"");
        return row;
    }

    double read_elapsed(ondemand::value& measurement) {
        input_.expect(measurement, ondemand::json_type::object, "an element of \"measurements\"");
        const char* const start = input_.where(measurement);
        for (auto field : measurement.get_object()) {
            if (field.unescaped_key().value() != "elapsed") continue;
            ondemand::value elapsed = field.value();
            return input_.number(elapsed, "\"elapsed\"");
        }
        input_.fail_at(start, "expected an \"elapsed\" in each element of \"measurements\"");
    }

    // The time is the fastest measurement, per iteration; without measurements (a trimmed
    // template) nanobench's median. A batch other than 1 adds the rate in units per second.
    void add(const Row& row) {
        const std::string name = row.title.empty() ? row.name : row.title + "/" + row.name;
        if (!names_.insert(name).second)
            input_.fail(fmt::format(
                "benchmark '{}' appears twice; give each run() its own name or title", name));
        if (!std::isfinite(row.batch) || row.batch <= 0)
            input_.fail_at(start_, fmt::format("benchmark '{}': \"batch\" must be a positive "
                                               "number, got {}",
                                               name, row.batch));
        model::Result time;
        time.benchmark = name;
        if (!row.elapsed.empty()) {
            std::vector<double> nanoseconds;
            for (double seconds : row.elapsed) {
                nanoseconds.push_back(seconds * nanoseconds_per_second);
                check_positive_time(input_, name, nanoseconds.back());
            }
            time.value = *std::min_element(nanoseconds.begin(), nanoseconds.end());
            time.samples = summarize(nanoseconds);
        } else if (row.median_elapsed) {
            time.value = *row.median_elapsed * nanoseconds_per_second;
            check_positive_time(input_, name, time.value);
        } else {
            input_.fail_at(start_, fmt::format("benchmark '{}': expected \"measurements\" or "
                                               "\"median(elapsed)\"",
                                               name));
        }
        const double best_seconds = time.value / nanoseconds_per_second;
        parsed_.results.push_back(std::move(time));
        if (row.batch == 1) return;
        model::Result rate;
        rate.benchmark = name;
        rate.metric = "throughput";
        rate.unit = fmt::format("{}/s", row.unit == "byte" ? "B" : row.unit);
        rate.direction = model::Direction::BiggerIsBetter;
        rate.value = row.batch / best_seconds;
        parsed_.results.push_back(std::move(rate));
    }

    JsonInput& input_;
    ParsedResults parsed_;
    std::unordered_set<std::string> names_;
    const char* start_ = nullptr;  // where the row being read begins, for messages
};

// nanobench's json() template writes {"results": [{"title", "name", "unit", "batch", …,
// "median(elapsed)", …, "measurements": […]}…]}; hyperfine also writes a "results" array, of
// objects with a "command". The file is ours when the first result has "median(elapsed)" or
// "measurements".
Claim detect_nanobench(const Probe& probe) {
    const auto keys = first_element_keys(probe, "results");
    if (!keys) return {};
    for (const std::string& key : *keys) {
        if (key == "command") break;
        if (key == "median(elapsed)" || key == "measurements") return {true, {}};
    }
    return {false, "a JSON object whose \"results\" are not nanobench's"};
}

ParsedResults read_nanobench(JsonInput& input) {
    return NanobenchReader(input).read();
}

}  // namespace

const Reader nanobench_reader{
    .name = "nanobench", .detect = detect_nanobench, .parse_json = read_nanobench};

}  // namespace benchwatch::ingest::detail
