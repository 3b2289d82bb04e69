#include <fmt/core.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ingest/readers.hpp"
#include "ingest/text_input.hpp"
#include "ingest/units.hpp"

namespace benchwatch::ingest::detail {

namespace {

constexpr std::string_view test_prefix = "test ";
constexpr std::string_view outcome_separator = " ... ";
constexpr std::string_view bench_marker = "bench:";

// A line "test NAME ... OUTCOME" split in two; nullopt for any other line.
struct TestLine {
    std::string_view name;
    std::string_view outcome;  // "bench: 1,234 ns/iter (+/- 56)", "ignored", "FAILED", "ok"
};

std::optional<TestLine> test_line(std::string_view line) {
    if (!line.starts_with(test_prefix)) return std::nullopt;
    const std::size_t separator = line.find(outcome_separator);
    if (separator == std::string_view::npos) return std::nullopt;
    const std::string_view name =
        trim(line.substr(test_prefix.size(), separator - test_prefix.size()));
    if (name.empty()) return std::nullopt;
    return TestLine{name, trim(line.substr(separator + outcome_separator.size()))};
}

// "1,234" or "1,234.56": libtest separates thousands with commas.
std::optional<double> parse_grouped_number(std::string_view text) {
    std::string digits(text);
    digits.erase(std::remove(digits.begin(), digits.end(), ','), digits.end());
    return parse_number(digits);
}

class LibtestReader {
  public:
    LibtestReader(std::string_view text, std::string_view source) : input_(text, source) {}

    ParsedResults read() {
        parsed_.format = "libtest";
        std::string_view line;
        while (input_.next_line(line)) {
            const auto test = test_line(line);
            if (!test) continue;
            if (test->outcome.starts_with(bench_marker))
                read_bench(test->name, test->outcome.substr(bench_marker.size()));
            else if (test->outcome == "FAILED")
                parsed_.warnings.push_back(
                    input_.located(fmt::format("benchmark '{}' failed", test->name)));
        }
        return std::move(parsed_);
    }

  private:
    // "1,234 ns/iter (+/- 56)" with " = 12 MB/s" after it when the benchmark set b.bytes.
    void read_bench(std::string_view name, std::string_view measurement) {
        if (!names_.insert(std::string(name)).second)
            input_.fail(fmt::format("benchmark '{}' appears twice", name));
        const auto fields = split_fields(measurement);
        if (fields.size() < 2 || fields[1] != "ns/iter")
            input_.fail(
                fmt::format("benchmark '{}': expected '<number> ns/iter' after 'bench:'", name));
        const auto nanoseconds = parse_grouped_number(fields[0]);
        if (!nanoseconds)
            input_.fail(fmt::format("benchmark '{}': expected a number of ns/iter, got '{}'", name,
                                    fields[0]));
        if (*nanoseconds == 0) {
            parsed_.warnings.push_back(input_.located(fmt::format(
                "benchmark '{}': 0 ns/iter, too fast for libtest to show; left out", name)));
            return;
        }
        check_positive_time(input_, name, *nanoseconds);
        model::Result time;
        time.benchmark = std::string(name);
        time.value = *nanoseconds;
        parsed_.results.push_back(std::move(time));

        const auto equals = std::find(fields.begin(), fields.end(), "=");
        if (equals == fields.end()) return;
        if (fields.end() - equals != 3 || equals[2] != "MB/s")
            input_.fail(
                fmt::format("benchmark '{}': expected '= <number> MB/s' after the time", name));
        const auto megabytes_per_second = parse_grouped_number(equals[1]);
        if (!megabytes_per_second)
            input_.fail(fmt::format("benchmark '{}': expected a number of MB/s, got '{}'", name,
                                    equals[1]));
        model::Result throughput;
        throughput.benchmark = std::string(name);
        throughput.metric = "throughput";
        throughput.unit = "B/s";
        throughput.direction = model::Direction::BiggerIsBetter;
        throughput.value = *megabytes_per_second * bytes_per_megabyte;
        parsed_.results.push_back(std::move(throughput));
    }

    TextInput input_;
    ParsedResults parsed_;
    std::set<std::string, std::less<>> names_;
};

// libtest prints "test NAME ... bench: 1,234 ns/iter (+/- 56)": the file is ours when one line
// is such a line.
Claim detect_libtest(const Probe& probe) {
    if (probe.json != nullptr) return {};
    TextInput input(probe.text, "");
    std::string_view line;
    while (input.next_line(line)) {
        const auto test = test_line(line);
        if (!test || !test->outcome.starts_with(bench_marker)) continue;
        const auto fields = split_fields(test->outcome.substr(bench_marker.size()));
        if (fields.size() >= 2 && fields[1] == "ns/iter" && parse_grouped_number(fields[0]))
            return {true, {}};
    }
    return {};
}

ParsedResults read_libtest(std::string_view text, std::string_view source) {
    return LibtestReader(text, source).read();
}

}  // namespace

const Reader libtest_reader{
    .name = "libtest", .detect = detect_libtest, .parse_text = read_libtest};

}  // namespace benchwatch::ingest::detail
