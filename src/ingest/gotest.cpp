#include "ingest/gotest.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ingest/ingest.hpp"
#include "ingest/text_input.hpp"
#include "ingest/units.hpp"

namespace benchwatch::ingest::detail {

namespace {

// One "<value> <unit>" pair of a result line.
struct Measurement {
    double value = 0;
    std::string_view unit;
};

// A result line as printed: "BenchmarkName-8  1000  12.5 ns/op  56 B/op …".
struct ResultLine {
    std::string_view name;
    std::string_view package;  // an element of the reader's packages_, shared, not copied
    std::vector<Measurement> measurements;
};

// Go's benchmark names are "Benchmark" followed by anything but a lower-case letter
// (BenchmarkFoo, Benchmark_foo, Benchmark): testing's own rule for benchmark functions.
bool is_benchmark_name(std::string_view field) {
    constexpr std::string_view prefix = "Benchmark";
    if (!field.starts_with(prefix)) return false;
    return field.size() == prefix.size() || field[prefix.size()] < 'a' ||
           field[prefix.size()] > 'z';
}

// The fields of `line` when it is a result line (a benchmark name, then an iteration count),
// else nothing. Checks the first word before splitting, so long lines of other output stay cheap.
std::optional<std::vector<std::string_view>> result_fields(std::string_view line) {
    if (!line.starts_with("Benchmark")) return std::nullopt;
    auto fields = split_fields(line);
    if (fields.size() < 4 || !is_benchmark_name(fields[0]) || !parse_count(fields[1]))
        return std::nullopt;
    return fields;
}

// The GOMAXPROCS suffix ("-8") ending a printed name, or empty; go test leaves it out when
// GOMAXPROCS is 1.
std::string_view procs_suffix(std::string_view name) {
    const std::size_t dash = name.find_last_of('-');
    if (dash == std::string_view::npos || dash + 1 == name.size()) return {};
    const std::string_view digits = name.substr(dash + 1);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return {};
    return name.substr(dash);
}

// Every value one benchmark printed for one unit, one per repetition (-count).
struct Series {
    std::string_view unit;
    std::vector<double> values;
};

// One benchmark's repetitions, by unit in the order the units first appear.
struct Benchmark {
    std::string name;
    std::vector<Series> series;

    std::vector<double>& values_of(std::string_view unit) {
        for (auto& each : series)
            if (each.unit == unit) return each.values;
        return series.emplace_back(Series{unit, {}}).values;
    }
    const std::vector<double>* find(std::string_view unit) const {
        for (const auto& each : series)
            if (each.unit == unit) return &each.values;
        return nullptr;
    }
};

class GoTestReader {
  public:
    GoTestReader(std::string_view source, std::string_view format) : source_(source) {
        parsed_.format = std::string(format);
    }

    ParsedResults read(const NextGoLine& next) {
        GoOutputLine line;
        while (next(line)) {
            file_line_ = line.file_line;
            read_line(line.text);
        }
        for (const Benchmark& benchmark : group_by_name()) add(benchmark);
        return std::move(parsed_);
    }

  private:
    // "source:LINE: message" for the line being read.
    std::string located(std::string_view message) const {
        return fmt::format("{}:{}: {}", source_, file_line_, message);
    }

    [[noreturn]] void fail(std::string_view message) const { throw InputError(located(message)); }

    void read_line(std::string_view line) {
        read_bytes_ += line.size() + 1;
        if (auto fields = result_fields(line)) {
            lines_.push_back(read_result(*fields));
            return;
        }
        const std::string_view trimmed = trim(line);
        if (line.starts_with("pkg: ")) {
            const std::string_view package = trim(line.substr(5));
            NameBudget(0, source_).check_length(package, "package name");
            package_ = *packages_.emplace(package).first;
        } else if (line.starts_with("goos: ")) {
            set_context("go.goos", line.substr(6));
        } else if (line.starts_with("goarch: ")) {
            set_context("go.goarch", line.substr(8));
        } else if (line.starts_with("cpu: ")) {
            set_context("go.cpu", line.substr(5));
        } else if (trimmed.starts_with("--- FAIL: ")) {
            const auto fields = split_fields(trimmed);
            parsed_.warnings.push_back(
                located(fmt::format("benchmark '{}' failed", fields.size() > 2 ? fields[2] : "")));
        } else if (trimmed == "FAIL" || line.starts_with("FAIL\t")) {
            warn_failed_package(line);
        }
    }

    void set_context(const std::string& key, std::string_view value) {
        parsed_.context.emplace(key, std::string(trim(value)));
    }

    // "FAIL" after a package's output, or "FAIL\tpkg\t0.1s": once per package.
    void warn_failed_package(std::string_view line) {
        const auto fields = split_fields(line);
        const std::string package =
            fields.size() > 1 ? std::string(fields[1]) : std::string(package_);
        if (!failed_packages_.insert(package).second) return;
        parsed_.warnings.push_back(
            located(package.empty() ? std::string("the run failed (FAIL)")
                                    : fmt::format("package '{}' failed (FAIL)", package)));
    }

    ResultLine read_result(const std::vector<std::string_view>& fields) {
        ResultLine result{fields[0], package_, {}};
        for (std::size_t at = 2; at < fields.size(); at += 2) {
            if (at + 1 == fields.size())
                fail(fmt::format("benchmark '{}': expected a unit after '{}'", fields[0],
                                 fields[at]));
            const auto value = parse_number(fields[at]);
            if (!value)
                fail(fmt::format("benchmark '{}': expected a number before '{}', got '{}'",
                                 fields[0], fields[at + 1], fields[at]));
            if (fields[at + 1] == "ns/op" && !(std::isfinite(*value) && *value > 0))
                fail(fmt::format("benchmark '{}': time must be a positive number, got {}",
                                 fields[0], *value));
            if (!std::isfinite(*value))
                fail(fmt::format("benchmark '{}': {} {} is not a finite number", fields[0],
                                 fields[at], fields[at + 1]));
            if (fields[at + 1] == "MB/s" && !std::isfinite(*value * bytes_per_megabyte))
                fail(fmt::format("benchmark '{}': {} MB/s is too large to store in B/s", fields[0],
                                 fields[at]));
            result.measurements.push_back({*value, fields[at + 1]});
        }
        return result;
    }

    // The GOMAXPROCS suffix every result line shares, or empty when they differ (go test
    // -cpu 1,2,4) or there is none, in which case names stay as printed.
    std::string_view shared_procs_suffix() const {
        if (lines_.empty()) return {};
        const std::string_view first = procs_suffix(lines_.front().name);
        for (const ResultLine& line : lines_)
            if (procs_suffix(line.name) != first) return {};
        return first;
    }

    // Result lines with one name are repetitions of one benchmark (-count), in order of first
    // appearance; names lose the shared GOMAXPROCS suffix and gain their package when the file
    // holds more than one.
    std::vector<Benchmark> group_by_name() {
        const std::string_view suffix = shared_procs_suffix();
        if (!suffix.empty())
            parsed_.context.emplace("go.gomaxprocs", std::string(suffix.substr(1)));
        const bool prefix_package = packages_.size() > 1;
        std::vector<Benchmark> benchmarks;
        std::map<std::string, std::size_t, std::less<>> index_of;
        NameBudget names_budget(read_bytes_, source_);
        for (const ResultLine& line : lines_) {
            std::string name(line.name.substr(0, line.name.size() - suffix.size()));
            if (prefix_package && !line.package.empty()) {
                name = fmt::format("{}/{}", line.package, name);
                names_budget.take(name);
            }
            const auto [found, inserted] = index_of.emplace(name, benchmarks.size());
            if (inserted) benchmarks.push_back(Benchmark{name, {}});
            Benchmark& benchmark = benchmarks[found->second];
            for (const Measurement& measurement : line.measurements)
                benchmark.values_of(measurement.unit).push_back(measurement.value);
        }
        return benchmarks;
    }

    void add(const Benchmark& benchmark) {
        const auto* times = benchmark.find("ns/op");
        const auto* bytes = benchmark.find("B/op");
        const auto* allocations = benchmark.find("allocs/op");
        if (times != nullptr) {
            model::Result time =
                summarized(benchmark.name, "time", "ns", *times, model::Direction::SmallerIsBetter);
            if (bytes != nullptr) time.memory = *std::min_element(bytes->begin(), bytes->end());
            if (allocations != nullptr)
                time.allocations = *std::min_element(allocations->begin(), allocations->end());
            parsed_.results.push_back(std::move(time));
        }
        for (const Series& series : benchmark.series) {
            if (series.unit == "ns/op") continue;
            if (times != nullptr && (series.unit == "B/op" || series.unit == "allocs/op")) continue;
            if (series.unit == "MB/s") {
                std::vector<double> bytes_per_second;
                for (double value : series.values)
                    bytes_per_second.push_back(value * bytes_per_megabyte);
                parsed_.results.push_back(summarized(benchmark.name, "throughput", "B/s",
                                                     bytes_per_second,
                                                     model::Direction::BiggerIsBetter));
                continue;
            }
            const auto direction = series.unit.ends_with("/s") ? model::Direction::BiggerIsBetter
                                                               : model::Direction::SmallerIsBetter;
            const std::string unit(series.unit);
            parsed_.results.push_back(
                summarized(benchmark.name, unit, unit, series.values, direction));
        }
    }

    // The best repetition as the value (the smallest, or the biggest for a rate), and the
    // spread of all of them.
    static model::Result summarized(const std::string& name, const std::string& metric,
                                    const std::string& unit, const std::vector<double>& values,
                                    model::Direction direction) {
        model::Result result;
        result.benchmark = name;
        result.metric = metric;
        result.unit = unit;
        result.direction = direction;
        result.value = direction == model::Direction::SmallerIsBetter
                           ? *std::min_element(values.begin(), values.end())
                           : *std::max_element(values.begin(), values.end());
        result.samples = summarize(values);
        return result;
    }

    std::string source_;
    std::size_t file_line_ = 0;
    ParsedResults parsed_;
    std::vector<ResultLine> lines_;
    std::string_view package_;  // an element of packages_
    std::set<std::string, std::less<>> packages_;
    std::uintmax_t read_bytes_ = 0;  // the length of the lines read
    std::set<std::string> failed_packages_;
};

// Whether `line` is a result line with a "<number> ns/op" pair.
bool is_time_line(std::string_view line) {
    const auto fields = result_fields(line);
    if (!fields) return false;
    for (std::size_t at = 3; at < fields->size(); at += 2)
        if ((*fields)[at] == "ns/op" && parse_number((*fields)[at - 1])) return true;
    return false;
}

// Lines go test prints for every package, benchmarks run or not: a package's verdict ("PASS",
// "ok  \tpkg\t0.1s", "?   \tpkg\t[no test files]", "FAIL") and -v's test lines.
bool is_go_test_line(std::string_view line) {
    return line == "PASS" || line == "FAIL" || line.starts_with("ok  \t") ||
           line.starts_with("?   \t") || line.starts_with("FAIL\t") ||
           line.starts_with("=== RUN ") || line.starts_with("--- PASS: ") ||
           line.starts_with("--- FAIL: ") || line.starts_with("--- SKIP: ");
}

// benchstat's tables: a header of "│" columns (since 2023: "│ old.txt │" over "│ sec/op │"),
// or the older "name  old time/op  new time/op  delta" header.
bool is_benchstat_line(std::string_view line) {
    const auto fields = split_fields(line);
    if (!fields.empty() && fields.front() == "│" && fields.back() == "│") return true;
    return fields.size() >= 2 && fields[0] == "name" &&
           (fields[1] == "old" || fields[1] == "speed" || fields[1].ends_with("/op"));
}

}  // namespace

ParsedResults read_go_output(const NextGoLine& next, std::string_view source,
                             std::string_view format) {
    return GoTestReader(source, format).read(next);
}

Claim claim_go_output(const NextGoLine& next, std::string_view command) {
    bool go_test = false;
    bool benchstat = false;
    GoOutputLine line;
    while (next(line)) {
        if (is_time_line(line.text)) return {true, {}, {}};
        go_test = go_test || is_go_test_line(line.text);
        benchstat = benchstat || is_benchstat_line(line.text);
    }
    if (benchstat)
        return {false,
                {},
                "benchstat's summary of go test -bench runs, not the runs' results; record the "
                "go test -bench output that benchstat read instead"};
    if (go_test)
        return {false,
                {},
                fmt::format("{} output without benchmark results (go test runs benchmarks only "
                            "with -bench); run {} -bench . and record its output",
                            command, command)};
    return {};
}

namespace {

// Each line of `text`, numbered from 1.
NextGoLine text_lines(TextInput& input) {
    return [&input](GoOutputLine& line) {
        if (!input.next_line(line.text)) return false;
        line.file_line = input.line_number();
        return true;
    };
}

// go test -bench prints result lines "BenchmarkName-8  1000  12.5 ns/op …": the file is ours
// when one line is a benchmark name, an iteration count and a time per operation.
Claim detect_gotest(const Probe& probe) {
    if (probe.json != nullptr) return {};
    TextInput input(probe.text, "");
    return claim_go_output(text_lines(input), "go test");
}

ParsedResults read_gotest(std::string_view text, std::string_view source) {
    TextInput input(text, source);
    return read_go_output(text_lines(input), source, "go");
}

}  // namespace

const Reader gotest_reader{.name = "go", .detect = detect_gotest, .parse_text = read_gotest};

}  // namespace benchwatch::ingest::detail
