// What could break: reading `go test -json -bench` — result lines that go test prints in two
// events (the name, then the numbers) joined again, packages kept apart, errors naming the
// event's line — and the diagnostics for what a Go user has instead of results: go test output
// without benchmarks (text and -json) and benchstat's summary, each named for what it is and
// not as a JSON value it starts like. Expected values are read by hand from the committed go test
// output in tests/data/go/.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "claim_probe.hpp"
#include "ingest/ingest.hpp"
#include "ingest/readers.hpp"

namespace benchwatch::ingest {
namespace {

const std::filesystem::path data_root = std::filesystem::path(BENCHWATCH_TEST_DATA);
const std::filesystem::path data_dir = data_root / "go-json";
const std::filesystem::path text_dir = data_root / "go";

constexpr double tolerance = 1e-6;

std::string read_fixture(const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    std::stringstream bytes;
    bytes << file.rdbuf();
    return bytes.str();
}

std::string parse_error(const std::string& content, std::string_view source,
                        std::string_view format = "auto") {
    try {
        parse(content, source, format);
    } catch (const InputError& error) {
        return error.what();
    }
    return "no error";
}

// An "output" event of package p at a fixed time, carrying `output` (JSON-escaped already).
std::string output_event(const std::string& output, const std::string& package = "p") {
    return R"({"Time":"2026-12-01T00:00:00Z","Action":"output","Package":")" + package +
           R"(","Output":")" + output + "\"}\n";
}

TEST(GoTestJson, ResultLinesSplitOverTwoEventsAreJoined) {
    const auto parsed = parse(read_fixture(data_dir / "one_package.json"), "one.json", "auto");
    EXPECT_EQ(parsed.format, "go-json");
    EXPECT_TRUE(parsed.warnings.empty());
    ASSERT_EQ(parsed.results.size(), 2u);
    // -count 2 of size=10: "BenchmarkReverse/size=10-2 \t" then "1000\t 48.37 ns/op\t 80 B/op\t
    // 1 allocs/op", twice (48.37, 79.53); the suffix -2 is GOMAXPROCS.
    const auto& small = parsed.results[0];
    EXPECT_EQ(small.benchmark, "BenchmarkReverse/size=10");
    EXPECT_EQ(small.metric, "time");
    EXPECT_NEAR(small.value, 48.37, tolerance);
    ASSERT_TRUE(small.samples.has_value());
    EXPECT_EQ(small.samples->count, 2);
    EXPECT_NEAR(small.samples->mean, (48.37 + 79.53) / 2, tolerance);
    EXPECT_EQ(small.memory, 80);
    EXPECT_EQ(small.allocations, 1);
    // size=1000: once on one line (4927), once split (4736).
    const auto& large = parsed.results[1];
    EXPECT_EQ(large.benchmark, "BenchmarkReverse/size=1000");
    EXPECT_NEAR(large.value, 4736, tolerance);
    EXPECT_EQ(large.samples->count, 2);
    EXPECT_EQ(parsed.context.at("go.goos"), "linux");
    EXPECT_EQ(parsed.context.at("go.gomaxprocs"), "2");
}

TEST(GoTestJson, PackagesAreNamedAsInTheTextOfSeveral) {
    const auto parsed = parse_file(data_dir / "two_packages.json", "auto");
    EXPECT_EQ(parsed.format, "go-json");
    std::vector<std::string> names;
    for (const auto& result : parsed.results)
        names.push_back(result.benchmark + " " + result.metric);
    EXPECT_EQ(names, (std::vector<std::string>{
                         "example.com/benchfixture/mixed/BenchmarkReverse/size=10 time",
                         "example.com/benchfixture/mixed/BenchmarkReverse/size=1000 time",
                         "example.com/benchfixture/words/BenchmarkJoin time",
                         "example.com/benchfixture/words/BenchmarkSum time"}));
}

TEST(GoTestJson, PackagesPrintingAtOnceDoNotMixTheirLines) {
    // q's name event falls between p's name and p's numbers: each package keeps its own lines.
    const std::string events =
        output_event("pkg: p\\n") + output_event("pkg: q\\n", "q") +
        output_event("BenchmarkA-2 \\t") + output_event("BenchmarkB-2 \\t", "q") +
        output_event("  10\\t 5.0 ns/op\\n") + output_event("  10\\t 7.0 ns/op\\n", "q");
    const auto parsed = parse(events, "mixed.json", "auto");
    ASSERT_EQ(parsed.results.size(), 2u);
    EXPECT_EQ(parsed.results[0].benchmark, "p/BenchmarkA");
    EXPECT_EQ(parsed.results[0].value, 5.0);
    EXPECT_EQ(parsed.results[1].benchmark, "q/BenchmarkB");
    EXPECT_EQ(parsed.results[1].value, 7.0);
}

TEST(GoTestJson, ErrorsNameTheEventsLine) {
    const std::string start = output_event("BenchmarkA-2 \\t");
    EXPECT_EQ(parse_error(start + output_event("  10\\t -3 ns/op\\n"), "e.json"),
              "e.json:2: benchmark 'BenchmarkA-2': time must be a positive number, got -3");
    EXPECT_EQ(parse_error(start + "{\"Action\": \"output\", \"Output\": 3}\n", "e.json", "go-json"),
              "e.json:2: expected a string for \"Output\"");
    EXPECT_EQ(parse_error(start + "[1]\n", "e.json", "go-json"),
              "e.json:2: expected one JSON object per line, as go test -json writes");
    EXPECT_EQ(
        parse_error(start + "{\"Action\": \n", "e.json", "go-json"),
        "e.json:2: invalid JSON: JSON document ended early in the middle of an object or array.");
}

TEST(GoTestJson, DetectionNeedsEventsCarryingAResultLine) {
    EXPECT_TRUE(test::claims(detail::gotestjson_reader, data_dir / "one_package.json"));
    EXPECT_FALSE(test::claims(detail::gotestjson_reader, data_dir / "without_bench.json"));
    // The text readers' fixtures, text or JSON, are not events.
    for (const char* name : {"one_package.txt", "two_packages.txt", "failing.txt"})
        EXPECT_FALSE(test::claims(detail::gotestjson_reader, text_dir / name)) << name;
    for (const auto& path : test::other_fixtures(data_root, "go-json"))
        EXPECT_FALSE(test::claims(detail::gotestjson_reader, path)) << path;
}

TEST(GoDiagnostics, GoTestWithoutBenchmarksSaysToAddBench) {
    EXPECT_EQ(parse_error(read_fixture(text_dir / "without_bench.txt"), "go.txt"),
              "go.txt: go test output without benchmark results (go test runs benchmarks only "
              "with -bench); run go test -bench . and record its output");
    EXPECT_EQ(parse_error("?   \texample.com/m\t[no test files]\n", "go.txt"),
              "go.txt: go test output without benchmark results (go test runs benchmarks only "
              "with -bench); run go test -bench . and record its output");
    EXPECT_EQ(parse_error(read_fixture(data_dir / "without_bench.json"), "go.json"),
              "go.json: go test -json output without benchmark results (go test runs benchmarks "
              "only with -bench); run go test -json -bench . and record its output");
}

// benchstat is not packaged in Debian 12: both tables are written here as benchstat prints them,
// the current one (golang.org/x/perf since 2023) and the older "name old time/op" one.
TEST(GoDiagnostics, BenchstatsSummaryIsNamedWithWhatToRecordInstead) {
    const std::string benchstat =
        "goos: linux\n"
        "goarch: amd64\n"
        "pkg: example.com/benchfixture/shapes\n"
        "         │  old.txt   │              new.txt               │\n"
        "         │   sec/op   │   sec/op    vs base                │\n"
        "Sum-2      79.26n ± ∞ ¹   81.00n ± ∞ ¹  ~ (p=1.000 n=3) ²\n"
        "geomean    79.26n         81.00n        +2.20%\n";
    const std::string old_benchstat =
        "name   old time/op  new time/op  delta\n"
        "Sum-2  79.3ns ± 2%  81.0ns ± 3%   ~     (p=0.400 n=3+3)\n";
    const std::string expected =
        ": benchstat's summary of go test -bench runs, not the runs' results; record the go "
        "test -bench output that benchstat read instead";
    EXPECT_EQ(parse_error(benchstat, "stat.txt"), "stat.txt" + expected);
    EXPECT_EQ(parse_error(old_benchstat, "old.txt"), "old.txt" + expected);
}

TEST(GoDiagnostics, TextIsNotDescribedAsTheJsonValueItStartsLike) {
    const std::string unknown = "unknown results format (looked like: ";
    // "null…", "12…", "true…" start like JSON values but are text.
    for (const char* text : {"name of a thing\n", "12 apples\n", "true story\n"})
        EXPECT_EQ(
            parse_error(text, "t.txt"),
            "t.txt: " + unknown +
                "text that is neither JSON nor the output of a harness benchwatch reads); "
                "pass --input-format with one of: " +
                [] {
                    std::string names;
                    for (const auto& name : format_names())
                        names += (names.empty() ? "" : ", ") + name;
                    return names;
                }())
            << text;
    // A whole JSON scalar is still described as one.
    EXPECT_TRUE(parse_error("42\n", "n.json").starts_with("n.json: " + unknown + "a number "))
        << parse_error("42\n", "n.json");
}

}  // namespace
}  // namespace benchwatch::ingest
