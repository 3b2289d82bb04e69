// What could break: a reader that copies a name shared by many results (a BenchmarkTools group's
// path, a go package, a Bencher benchmark's key) into each of them without bounds, so that a
// short file of many small results under one 4,000-byte name takes hundreds of times its size;
// or one that copies a name before checking its length; or one that descends a call per level
// of nesting without a limit, until the stack overflows. Such files are refused with one line.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "ingest/readers.hpp"
#include "parse_error.hpp"

namespace benchwatch::ingest {
namespace {

// The budget message for a file of `bytes` bytes: 8 bytes of names per byte, and 64 KiB more.
std::string over_budget(std::size_t bytes) {
    const double limit = 8.0 * static_cast<double>(bytes) + 65536;
    return fmt::format(
        "results.json: the benchmark names add up to more than {:.1f} KiB (8 times the file's "
        "size plus 64 KiB): a long group, package or benchmark name is repeated in each of many "
        "results; shorten it",
        limit / 1024);
}

TEST(SharedNames, BenchmarkToolsGroupNameRepeatedInManyResultsIsRefused) {
    std::string text = R"([{"Julia":"1.10.0"},[["BenchmarkGroup",{"data":{")" +
                       std::string(4000, 'g') + R"(":["BenchmarkGroup",{"data":{)";
    for (int leaf = 0; leaf < 200; ++leaf)
        text += fmt::format(R"({}"k{:04}":["TrialEstimate",{{"time":1}}])", leaf ? "," : "", leaf);
    text += "}}]}}]]]";
    EXPECT_EQ(parse_error(text, "benchmarktools"), over_budget(text.size()));
}

TEST(SharedNames, BenchmarkToolsFewResultsUnderALongGroupNameAreKept) {
    std::string text = R"([{"Julia":"1.10.0"},[["BenchmarkGroup",{"data":{")" +
                       std::string(4000, 'g') + R"(":["BenchmarkGroup",{"data":{)";
    for (int leaf = 0; leaf < 10; ++leaf)
        text += fmt::format(R"({}"k{:04}":["TrialEstimate",{{"time":1}}])", leaf ? "," : "", leaf);
    text += "}}]}}]]]";
    const auto parsed = parse(text, "results.json", "benchmarktools");
    ASSERT_EQ(parsed.results.size(), 10U);
    EXPECT_EQ(parsed.results[9].benchmark, std::string(4000, 'g') + "/k0009");
}

TEST(SharedNames, BenchmarkToolsGroupNameIsCheckedBeforeDescending) {
    // Before, the name was checked only as a result's, 20 levels of 300 bytes down.
    std::string text = R"([{"Julia":"1.10.0"},[)";
    for (int level = 0; level < 20; ++level)
        text += R"(["BenchmarkGroup",{"data":{")" + std::string(300, 'g') + R"(":)";
    text += R"(["TrialEstimate",{"time":2.0}])";
    for (int level = 0; level < 20; ++level) text += "}}]";
    text += "]]";
    // The 14th level makes 14 × 300 + 13 slashes = 4213 bytes.
    EXPECT_EQ(parse_error(text, "benchmarktools"),
              "results.json: benchmark name of 4213 bytes is longer than the 4096 allowed: \"" +
                  std::string(60, 'g') + "…\"");
}

TEST(SharedNames, BencherBenchmarkRepeatedForManyMeasuresIsRefused) {
    std::string text = "{\"" + std::string(4000, 'b') + "\":{";
    for (int measure = 0; measure < 200; ++measure)
        text += fmt::format(R"({}"m{:04}":{{"value":1}})", measure ? "," : "", measure);
    text += "}}";
    EXPECT_EQ(parse_error(text, "bencher"), over_budget(text.size()));
}

TEST(SharedNames, GoPackageRepeatedForManyBenchmarksIsRefused) {
    std::string text = "pkg: example.com/" + std::string(4000, 'p') + "\n";
    for (int benchmark = 0; benchmark < 200; ++benchmark)
        text += fmt::format("BenchmarkB{:04} 1 1 ns/op\n", benchmark);
    text += "PASS\npkg: example.com/other\nBenchmarkOther 1 1 ns/op\nPASS\n";
    EXPECT_EQ(parse_error(text, "go"), over_budget(text.size()));
}

TEST(ReaderNesting, Catch2GroupsNestedTooDeeplyAreRefused) {
    std::string text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Catch name=\"t\">\n";
    for (int level = 0; level < 300; ++level) text += "<Group name=\"g\">";
    for (int level = 0; level < 300; ++level) text += "</Group>";
    text += "\n</Catch>\n";
    EXPECT_EQ(parse_error(text, "catch2"), "results.json:3: groups nest deeper than 256 levels");
}

}  // namespace
}  // namespace benchwatch::ingest
