#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <type_traits>
#include <vector>

#include "ingest/readers.hpp"
#include "ingest/units.hpp"
#include "model/fnv.hpp"

namespace benchwatch::ingest::detail {

namespace ondemand = simdjson::ondemand;
namespace fs = std::filesystem;

namespace {

// What Criterion.rs writes about a benchmark in new/benchmark.json.
struct Identity {
    std::string full_id;
    std::optional<double> bytes_per_iteration;
    std::optional<double> elements_per_iteration;
};

// The point estimates of new/estimates.json, in ns per iteration.
struct Estimates {
    std::optional<double> mean;
    std::optional<double> median;
    std::optional<double> std_dev;
    std::optional<double> slope;
};

// The bytes of the file at `path`; an InputError naming it when it cannot be read.
std::string read_bytes(const fs::path& path) {
    errno = 0;
    std::ifstream file(path, std::ios::binary);
    if (!file)
        throw InputError(fmt::format("{}: cannot read: {}", path.string(),
                                     std::strerror(errno != 0 ? errno : ENOENT)));
    std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (file.bad())
        throw InputError(fmt::format("{}: cannot read: {}", path.string(), std::strerror(EIO)));
    return bytes;
}

// FNV-1a, fed file by file so that the folder's hash covers every file read, in sorted order.
class FolderHash {
  public:
    void add(std::string_view bytes) {
        hash_ = model::fnv1a(bytes, hash_);
        hash_ = (hash_ ^ bytes.size()) * prime;  // keeps "ab"+"c" apart from "a"+"bc"
    }
    std::uint64_t value() const { return hash_; }

  private:
    static constexpr std::uint64_t prime = 0x100000001b3ULL;
    std::uint64_t hash_ = model::fnv1a_basis;
};

// The "point_estimate" of one statistic of estimates.json; nullopt for null (no slope).
std::optional<double> point_estimate(JsonInput& input, ondemand::value& statistic,
                                     std::string_view name) {
    if (statistic.type().value() == ondemand::json_type::null) return std::nullopt;
    input.expect(statistic, ondemand::json_type::object, fmt::format("\"{}\"", name));
    const char* const start = input.where(statistic);
    for (auto field : statistic.get_object()) {
        if (field.unescaped_key().value() != "point_estimate") continue;
        ondemand::value estimate = field.value();
        return input.number(estimate, fmt::format("\"{}\".\"point_estimate\"", name));
    }
    input.fail_at(start, fmt::format("\"{}\" has no \"point_estimate\"", name));
}

Identity read_identity(JsonInput& input) {
    ondemand::value root = input.document().get_value().value();
    input.expect(root, ondemand::json_type::object, "benchmark.json");
    Identity identity;
    bool named = false;
    for (auto field : root.get_object()) {
        const std::string_view key = field.unescaped_key().value();
        ondemand::value value = field.value();
        if (key == "full_id") {
            identity.full_id = std::string(input.string(value, "\"full_id\""));
            named = true;
        } else if (key == "throughput" && value.type().value() != ondemand::json_type::null) {
            input.expect(value, ondemand::json_type::object, "\"throughput\"");
            for (auto kind : value.get_object()) {
                const std::string_view unit = kind.unescaped_key().value();
                ondemand::value amount = kind.value();
                if (unit == "Bytes" || unit == "BytesDecimal")
                    identity.bytes_per_iteration = input.number(amount, "the throughput");
                else if (unit == "Elements")
                    identity.elements_per_iteration = input.number(amount, "the throughput");
            }
        }
    }
    if (!named) input.fail("expected a \"full_id\" naming the benchmark");
    return identity;
}

Estimates read_estimates(JsonInput& input) {
    ondemand::value root = input.document().get_value().value();
    input.expect(root, ondemand::json_type::object, "estimates.json");
    Estimates estimates;
    for (auto field : root.get_object()) {
        const std::string_view key = field.unescaped_key().value();
        ondemand::value statistic = field.value();
        if (key == "mean")
            estimates.mean = point_estimate(input, statistic, key);
        else if (key == "median")
            estimates.median = point_estimate(input, statistic, key);
        else if (key == "std_dev")
            estimates.std_dev = point_estimate(input, statistic, key);
        else if (key == "slope")
            estimates.slope = point_estimate(input, statistic, key);
    }
    if (!estimates.mean) input.fail("expected a \"mean\" estimate");
    return estimates;
}

std::vector<double> read_numbers(JsonInput& input, ondemand::value& array, std::string_view what) {
    input.expect(array, ondemand::json_type::array, what);
    std::vector<double> numbers;
    for (auto element : array.get_array()) {
        ondemand::value number = element.value();
        numbers.push_back(input.number(number, what));
    }
    return numbers;
}

// The time per iteration of each sample: Criterion stores each sample's total time over its
// iteration count.
std::vector<double> read_sample_times(JsonInput& input) {
    ondemand::value root = input.document().get_value().value();
    input.expect(root, ondemand::json_type::object, "sample.json");
    std::vector<double> iterations;
    std::vector<double> totals;
    for (auto field : root.get_object()) {
        const std::string_view key = field.unescaped_key().value();
        ondemand::value value = field.value();
        if (key == "iters")
            iterations = read_numbers(input, value, "\"iters\"");
        else if (key == "times")
            totals = read_numbers(input, value, "\"times\"");
    }
    if (iterations.size() != totals.size() || iterations.empty())
        input.fail(fmt::format("expected \"iters\" and \"times\" of one length, got {} and {}",
                               iterations.size(), totals.size()));
    std::vector<double> per_iteration;
    for (std::size_t i = 0; i < totals.size(); ++i) {
        if (!(iterations[i] > 0))
            input.fail(fmt::format("\"iters\" must be positive counts, got {}", iterations[i]));
        per_iteration.push_back(totals[i] / iterations[i]);
    }
    return per_iteration;
}

class CriterionReader {
  public:
    explicit CriterionReader(fs::path root) : root_(std::move(root)) {
        parsed_.format = "criterion";
    }

    ParsedResults read() {
        const std::vector<fs::path> benchmark_files = find_benchmark_files();
        if (benchmark_files.empty())
            throw InputError(
                fmt::format("{}: no */new/benchmark.json in the folder; expected Criterion.rs's "
                            "target/criterion folder after cargo bench",
                            root_.string()));
        for (const fs::path& file : benchmark_files) read_benchmark(file.parent_path());
        parsed_.content_hash = hash_.value();
        return std::move(parsed_);
    }

  private:
    // Every new/benchmark.json under the root, sorted; the report/, base/ and change/ folders
    // hold HTML and earlier runs, and are not entered.
    std::vector<fs::path> find_benchmark_files() const {
        std::vector<fs::path> found;
        std::error_code error;
        fs::recursive_directory_iterator walk(root_, error);
        if (error) throw cannot_list(root_, error);
        for (; walk != fs::recursive_directory_iterator(); walk.increment(error)) {
            if (error) throw cannot_list(root_, error);
            const fs::path& path = walk->path();
            const std::string name = path.filename().string();
            if (walk->is_directory(error)) {
                if (name == "report" || name == "base" || name == "change")
                    walk.disable_recursion_pending();
                continue;
            }
            if (name == "benchmark.json" && path.parent_path().filename() == "new")
                found.push_back(path);
        }
        if (error) throw cannot_list(root_, error);
        std::sort(found.begin(), found.end());
        return found;
    }

    static InputError cannot_list(const fs::path& path, const std::error_code& error) {
        return InputError(fmt::format("{}: cannot list: {}", path.string(), error.message()));
    }

    // Reads one new/ folder: benchmark.json, estimates.json and, when present, sample.json.
    void read_benchmark(const fs::path& folder) {
        const fs::path identity_file = folder / "benchmark.json";
        const Identity identity =
            parse_file_with(identity_file, [](JsonInput& input) { return read_identity(input); });
        const fs::path estimates_file = folder / "estimates.json";
        const Estimates estimates =
            parse_file_with(estimates_file, [](JsonInput& input) { return read_estimates(input); });
        const fs::path sample_file = folder / "sample.json";
        std::vector<double> times;
        std::error_code error;
        if (fs::exists(sample_file, error))
            times = parse_file_with(sample_file,
                                    [](JsonInput& input) { return read_sample_times(input); });

        const auto [at, added] = sources_.emplace(identity.full_id, identity_file);
        if (!added)
            throw InputError(fmt::format("{}: benchmark '{}' appears twice, also in {}",
                                         identity_file.string(), identity.full_id,
                                         at->second.string()));
        model::Result time;
        time.benchmark = identity.full_id;
        if (!times.empty()) {
            for (double each : times) check_time(sample_file, identity.full_id, each);
            time.value = *std::min_element(times.begin(), times.end());
            time.samples = summarize(times);
        } else {
            time.value = estimates.slope.value_or(*estimates.mean);
            check_time(estimates_file, identity.full_id, time.value);
            time.samples = model::SampleSummary{0,
                                                estimates.median.value_or(*estimates.mean),
                                                *estimates.mean,
                                                estimates.std_dev.value_or(0),
                                                {}};
        }
        parsed_.results.push_back(time);
        const auto add_throughput = [&](double per_iteration, const char* unit) {
            model::Result throughput;
            throughput.benchmark = identity.full_id;
            throughput.metric = "throughput";
            throughput.unit = unit;
            throughput.direction = model::Direction::BiggerIsBetter;
            throughput.value = per_iteration * nanoseconds_per_second / time.value;
            parsed_.results.push_back(std::move(throughput));
        };
        if (identity.bytes_per_iteration) add_throughput(*identity.bytes_per_iteration, "B/s");
        if (identity.elements_per_iteration)
            add_throughput(*identity.elements_per_iteration, "elements/s");
    }

    static void check_time(const fs::path& file, std::string_view benchmark, double time) {
        if (std::isfinite(time) && time > 0) return;
        throw InputError(fmt::format("{}: benchmark '{}': time must be a positive number, got {}",
                                     file.string(), benchmark, time));
    }

    // Reads `file` with `parse`, adding its bytes to the folder's hash.
    template <typename Parse>
    std::invoke_result_t<Parse, JsonInput&> parse_file_with(const fs::path& file, Parse parse) {
        const std::string bytes = read_bytes(file);
        hash_.add(fs::relative(file, root_).generic_string());
        hash_.add(bytes);
        JsonInput input(bytes, bytes.size(), file.string());
        try {
            auto parsed = parse(input);
            input.expect_end();
            return parsed;
        } catch (const simdjson::simdjson_error& error) {
            input.fail_json(error.error());
        }
    }

    fs::path root_;
    ParsedResults parsed_;
    FolderHash hash_;
    std::map<std::string, fs::path> sources_;  // the benchmark.json that named each benchmark
};

// Criterion.rs's results are a folder, never one file; ingest.cpp asks this reader only about
// folders.
Claim detect_criterion(const Probe&) {
    return {};
}

ParsedResults read_criterion(const fs::path& path) {
    return CriterionReader(path).read();
}

}  // namespace

const Reader criterion_reader{
    .name = "criterion", .detect = detect_criterion, .parse_directory = read_criterion};

}  // namespace benchwatch::ingest::detail
