// What could break: reading `go test -bench` text — repetitions (-count) folded into one
// benchmark, ns/op, B/op, allocs/op, MB/s and custom units each where they belong, the
// GOMAXPROCS suffix and package prefix of names, failures as warnings, values that are not
// finite (or overflow once in B/s) refused with their line, and the detection of
// result lines strict enough to leave other harnesses' text alone. Expected values are read by
// hand from the committed go test output in tests/data/go/.
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

const std::filesystem::path data_dir = std::filesystem::path(BENCHWATCH_TEST_DATA) / "go";

// The values are printed with 4 significant digits and multiplied at most by 1e6; a tolerance of
// a millionth absorbs the rounding of decimal fractions and nothing more.
constexpr double tolerance = 1e-6;

std::string read_fixture(const std::string& name) {
    std::ifstream file(data_dir / name, std::ios::binary);
    std::stringstream bytes;
    bytes << file.rdbuf();
    return bytes.str();
}

std::string parse_error(const std::string& content, std::string_view format = "go") {
    try {
        parse(content, "bench.txt", format);
    } catch (const InputError& error) {
        return error.what();
    }
    return "no error";
}

TEST(GoTest, RepetitionsBecomeSamplesWithTheFastestAsTheValue) {
    const auto parsed = parse(read_fixture("one_package.txt"), "one_package.txt", "auto");
    EXPECT_EQ(parsed.format, "go");
    EXPECT_TRUE(parsed.warnings.empty());
    // Five benchmarks with a time; BenchmarkCopy adds throughput, BenchmarkWidgets widgets/op.
    ASSERT_EQ(parsed.results.size(), 7u);

    const auto& sum = parsed.results[0];
    EXPECT_EQ(sum.benchmark, "BenchmarkSum");
    EXPECT_EQ(sum.metric, "time");
    EXPECT_EQ(sum.unit, "ns");
    EXPECT_EQ(sum.direction, model::Direction::SmallerIsBetter);
    // -count 3: 26.95, 108.7, 79.26 ns/op → min 26.95, median 79.26,
    // mean (26.95 + 108.7 + 79.26) / 3 = 214.91 / 3 = 71.63666…
    EXPECT_NEAR(sum.value, 26.95, tolerance);
    ASSERT_TRUE(sum.samples.has_value());
    EXPECT_EQ(sum.samples->count, 3);
    EXPECT_NEAR(sum.samples->median, 79.26, tolerance);
    EXPECT_NEAR(sum.samples->mean, 214.91 / 3, tolerance);
    // -benchmem prints "0 B/op 0 allocs/op": measured zeros, kept
    EXPECT_EQ(sum.memory, 0.0);
    EXPECT_EQ(sum.allocations, 0.0);

    const auto& append_ten = parsed.results[1];
    EXPECT_EQ(append_ten.benchmark, "BenchmarkAppend/size=10");
    // 935.0, 473.2, 132.8 ns/op → min 132.8, median 473.2; 248 B/op and 5 allocs/op each time
    EXPECT_NEAR(append_ten.value, 132.8, tolerance);
    EXPECT_NEAR(append_ten.samples->median, 473.2, tolerance);
    EXPECT_EQ(append_ten.memory, 248.0);
    EXPECT_EQ(append_ten.allocations, 5.0);

    const auto& append_hundred = parsed.results[2];
    EXPECT_EQ(append_hundred.benchmark, "BenchmarkAppend/size=100");
    // 7324, 707.0, 1118 ns/op → min 707, median 1118; 2040 B/op, 8 allocs/op
    EXPECT_NEAR(append_hundred.value, 707, tolerance);
    EXPECT_NEAR(append_hundred.samples->median, 1118, tolerance);
    EXPECT_EQ(append_hundred.memory, 2040.0);
    EXPECT_EQ(append_hundred.allocations, 8.0);

    const auto& copy_time = parsed.results[3];
    EXPECT_EQ(copy_time.benchmark, "BenchmarkCopy");
    // 33.29, 30.75, 30.89 ns/op → min 30.75
    EXPECT_NEAR(copy_time.value, 30.75, tolerance);

    const auto& copy_throughput = parsed.results[4];
    EXPECT_EQ(copy_throughput.benchmark, "BenchmarkCopy");
    EXPECT_EQ(copy_throughput.metric, "throughput");
    EXPECT_EQ(copy_throughput.unit, "B/s");
    EXPECT_EQ(copy_throughput.direction, model::Direction::BiggerIsBetter);
    // 123028.86, 133211.92, 132603.84 MB/s → the biggest, 133211.92 × 1e6 B/s; median 132603.84e6
    EXPECT_NEAR(copy_throughput.value, 133211.92e6, tolerance * 1e6);
    EXPECT_EQ(copy_throughput.samples->count, 3);
    EXPECT_NEAR(copy_throughput.samples->median, 132603.84e6, tolerance * 1e6);
    EXPECT_FALSE(copy_throughput.memory.has_value());

    const auto& widgets_time = parsed.results[5];
    EXPECT_EQ(widgets_time.benchmark, "BenchmarkWidgets");
    // 1.212, 0.9120, 0.9020 ns/op → min 0.902
    EXPECT_NEAR(widgets_time.value, 0.902, tolerance);

    const auto& widgets = parsed.results[6];
    EXPECT_EQ(widgets.benchmark, "BenchmarkWidgets");
    EXPECT_EQ(widgets.metric, "widgets/op");
    EXPECT_EQ(widgets.unit, "widgets/op");
    EXPECT_EQ(widgets.direction, model::Direction::SmallerIsBetter);
    // b.ReportMetric(3 per op) three times → 3.000
    EXPECT_EQ(widgets.value, 3.0);
    EXPECT_EQ(widgets.samples->count, 3);
    EXPECT_EQ(widgets.samples->stddev, 0.0);
}

TEST(GoTest, HeaderLinesGoToTheContext) {
    const auto parsed = parse(read_fixture("one_package.txt"), "one_package.txt", "go");
    EXPECT_EQ(parsed.context.at("go.goos"), "linux");
    EXPECT_EQ(parsed.context.at("go.goarch"), "amd64");
    // go test pads the cpu: line with spaces; they are trimmed
    EXPECT_EQ(parsed.context.at("go.cpu"), "Oxide Virtual Turin-like Processor");
    // every name ends in -2, the GOMAXPROCS of the run
    EXPECT_EQ(parsed.context.at("go.gomaxprocs"), "2");
    EXPECT_EQ(parsed.context.count("go.pkg"), 0u);
}

TEST(GoTest, SeveralPackagesPrefixTheirBenchmarks) {
    const auto parsed = parse(read_fixture("two_packages.txt"), "two_packages.txt", "auto");
    EXPECT_EQ(parsed.format, "go");
    // shapes: 5 times + throughput + widgets/op; words: 2 times
    ASSERT_EQ(parsed.results.size(), 9u);
    // Both packages have a BenchmarkSum; the package keeps them apart.
    EXPECT_EQ(parsed.results[0].benchmark, "example.com/benchfixture/shapes/BenchmarkSum");
    EXPECT_NEAR(parsed.results[0].value, 26.74, tolerance);
    // one run each (no -count): a single sample
    EXPECT_EQ(parsed.results[0].samples->count, 1);
    EXPECT_NEAR(parsed.results[0].samples->median, 26.74, tolerance);
    EXPECT_EQ(parsed.results[1].benchmark,
              "example.com/benchfixture/shapes/BenchmarkAppend/size=10");
    EXPECT_EQ(parsed.results[4].metric, "throughput");
    // 45807.33 MB/s
    EXPECT_NEAR(parsed.results[4].value, 45807.33e6, tolerance * 1e6);

    const auto& join = parsed.results[7];
    EXPECT_EQ(join.benchmark, "example.com/benchfixture/words/BenchmarkJoin");
    EXPECT_NEAR(join.value, 155.5, tolerance);
    EXPECT_EQ(join.memory, 8.0);
    EXPECT_EQ(join.allocations, 1.0);
    EXPECT_EQ(parsed.results[8].benchmark, "example.com/benchfixture/words/BenchmarkSum");
    EXPECT_NEAR(parsed.results[8].value, 0.591, tolerance);
}

TEST(GoTest, FailuresAreWarningsAndPassingBenchmarksAreKept) {
    const auto parsed = parse(read_fixture("failing.txt"), "failing.txt", "auto");
    ASSERT_EQ(parsed.results.size(), 1u);
    EXPECT_EQ(parsed.results[0].benchmark, "BenchmarkLogs");
    EXPECT_NEAR(parsed.results[0].value, 24.23, tolerance);
    // Without -benchmem and b.ReportAllocs, no memory is printed.
    EXPECT_FALSE(parsed.results[0].memory.has_value());
    // "--- FAIL: BenchmarkBroken" on line 9; the package's "FAIL" lines (11, 13, 14) warn once.
    ASSERT_EQ(parsed.warnings.size(), 2u);
    EXPECT_EQ(parsed.warnings[0], "failing.txt:9: benchmark 'BenchmarkBroken' failed");
    EXPECT_EQ(parsed.warnings[1],
              "failing.txt:11: package 'example.com/benchfixture/failing' failed (FAIL)");
}

TEST(GoTest, NamesKeepTheirSuffixWhenGomaxprocsVaries) {
    // go test -cpu 1,2 prints no suffix for GOMAXPROCS 1 and -2 for 2: two benchmarks.
    const auto parsed = parse("BenchmarkX \t 100\t 5.0 ns/op\nBenchmarkX-2 \t 100\t 4.0 ns/op\n",
                              "bench.txt", "auto");
    ASSERT_EQ(parsed.results.size(), 2u);
    EXPECT_EQ(parsed.results[0].benchmark, "BenchmarkX");
    EXPECT_EQ(parsed.results[1].benchmark, "BenchmarkX-2");
    EXPECT_EQ(parsed.context.count("go.gomaxprocs"), 0u);
}

TEST(GoTest, RatesOfCustomUnitsAreBiggerIsBetter) {
    const auto parsed =
        parse("BenchmarkQueue-8 \t 10\t 50 ns/op\t 7.5 items/s\t 2 ns/item\n", "bench.txt", "auto");
    ASSERT_EQ(parsed.results.size(), 3u);
    EXPECT_EQ(parsed.results[0].benchmark, "BenchmarkQueue");
    EXPECT_EQ(parsed.results[1].metric, "items/s");
    EXPECT_EQ(parsed.results[1].unit, "items/s");
    EXPECT_EQ(parsed.results[1].direction, model::Direction::BiggerIsBetter);
    EXPECT_EQ(parsed.results[1].value, 7.5);
    EXPECT_EQ(parsed.results[2].metric, "ns/item");
    EXPECT_EQ(parsed.results[2].direction, model::Direction::SmallerIsBetter);
}

TEST(GoTest, BadResultLinesAreOneLineErrors) {
    EXPECT_EQ(parse_error("goos: linux\nBenchmarkX-8 \t 1000\t abc ns/op\n"),
              "bench.txt:2: benchmark 'BenchmarkX-8': expected a number before 'ns/op', got 'abc'");
    EXPECT_EQ(parse_error("goos: linux\nBenchmarkX-8 \t 1000\t 12 ns/op\t 5\n"),
              "bench.txt:2: benchmark 'BenchmarkX-8': expected a unit after '5'");
    EXPECT_EQ(parse_error("PASS\n\nBenchmarkX-8 \t 1000\t -3 ns/op\n", "auto"),
              "bench.txt:3: benchmark 'BenchmarkX-8': time must be a positive number, got -3");
    EXPECT_EQ(parse_error("goos: linux\nPASS\nok  \tpkg\t0.1s\n"),
              "bench.txt: no benchmark results in the file");
}

TEST(GoTest, ValuesThatAreNotFiniteOrOverflowTheirUnitAreRefusedWithTheirLine) {
    EXPECT_EQ(parse_error("goos: linux\nBenchmarkX-8 \t 1000\t 12 ns/op\t 1e308 MB/s\n"),
              "bench.txt:2: benchmark 'BenchmarkX-8': 1e308 MB/s is too large to store in B/s");
    EXPECT_EQ(parse_error("goos: linux\nBenchmarkX-8 \t 1000\t 12 ns/op\t inf MB/s\n"),
              "bench.txt:2: benchmark 'BenchmarkX-8': inf MB/s is not a finite number");
    EXPECT_EQ(parse_error("goos: linux\nBenchmarkX-8 \t 1000\t 12 ns/op\t nan widgets\n"),
              "bench.txt:2: benchmark 'BenchmarkX-8': nan widgets is not a finite number");
    // The largest rate that fits is kept.
    EXPECT_EQ(parse_error("goos: linux\nBenchmarkX-8 \t 1000\t 12 ns/op\t 1e302 MB/s\n"),
              "no error");
}

TEST(GoTest, DetectionNeedsAResultLineWithATimePerOperation) {
    // A name and a count without ns/op, a lower-case "Benchmarks", libtest's line: none claimed.
    EXPECT_FALSE(detail::gotest_reader.detect({"BenchmarkX-8 \t 1000\t 3 widgets/op\n"}).matches);
    EXPECT_FALSE(detail::gotest_reader.detect({"Benchmarks 1000 3 ns/op\n"}).matches);
    EXPECT_FALSE(
        detail::gotest_reader.detect({"test a ... bench: 1,234 ns/iter (+/- 5)\n"}).matches);
    EXPECT_TRUE(detail::gotest_reader.detect({"=== RUN x\nBenchmark_x 1 3 ns/op\n"}).matches);
}

TEST(GoTest, EveryFixtureIsDetectedAndNoOtherIsClaimed) {
    for (const char* name : {"one_package.txt", "two_packages.txt", "failing.txt"})
        EXPECT_EQ(parse_file(data_dir / name, "auto").format, "go") << name;
    for (const auto& path : test::other_fixtures(std::filesystem::path(BENCHWATCH_TEST_DATA), "go"))
        EXPECT_FALSE(test::claims(detail::gotest_reader, path)) << path;
}

}  // namespace
}  // namespace benchwatch::ingest
