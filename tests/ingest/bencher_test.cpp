// What could break: reading Bencher Metric Format — latency as the time in ns, throughput as a
// bigger-is-better rate, Bencher's other built-in measures with their units, a user's own measure
// slug as its own metric, and detection by shape alone.
// Expected values are read by hand from tests/data/bencher/ and the inline documents.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ingest/ingest.hpp"
#include "parse_error.hpp"

namespace benchwatch::ingest {
namespace {

const std::filesystem::path data_dir = std::filesystem::path(BENCHWATCH_TEST_DATA) / "bencher";

TEST(Bencher, LatencyIsTheTimeAndThroughputARate) {
    const auto parsed = parse_file(data_dir / "latency_throughput.json", "auto");
    EXPECT_EQ(parsed.format, "bencher");
    EXPECT_TRUE(parsed.warnings.empty());
    EXPECT_TRUE(parsed.context.empty());
    ASSERT_EQ(parsed.results.size(), 4u);

    const auto& large = parsed.results[0];
    EXPECT_EQ(large.benchmark, "sort::quicksort/1000");
    EXPECT_EQ(large.metric, "time");
    EXPECT_EQ(large.unit, "ns");
    EXPECT_EQ(large.direction, model::Direction::SmallerIsBetter);
    EXPECT_EQ(large.value, 88231.5);  // "value"; the bounds are not samples
    EXPECT_FALSE(large.samples.has_value());

    EXPECT_EQ(parsed.results[1].benchmark, "sort::quicksort/10");
    EXPECT_EQ(parsed.results[1].value, 412.0);

    EXPECT_EQ(parsed.results[2].benchmark, "parser::parse_json");
    EXPECT_EQ(parsed.results[2].metric, "time");
    EXPECT_EQ(parsed.results[2].value, 15602.0);
    const auto& rate = parsed.results[3];
    EXPECT_EQ(rate.benchmark, "parser::parse_json");
    EXPECT_EQ(rate.metric, "throughput");
    EXPECT_EQ(rate.unit, "ops/s");
    EXPECT_EQ(rate.direction, model::Direction::BiggerIsBetter);
    EXPECT_EQ(rate.value, 64093.06);
}

TEST(Bencher, OtherMeasuresKeepTheirSlugAsMetric) {
    const auto parsed = parse_file(data_dir / "custom_measures.json", "auto");
    EXPECT_EQ(parsed.format, "bencher");
    ASSERT_EQ(parsed.results.size(), 3u);

    const auto& size = parsed.results[0];
    EXPECT_EQ(size.benchmark, "app::binary");
    EXPECT_EQ(size.metric, "file-size");
    EXPECT_EQ(size.unit, "B");
    EXPECT_EQ(size.direction, model::Direction::SmallerIsBetter);
    EXPECT_EQ(size.value, 1834200);

    const auto& build = parsed.results[1];
    EXPECT_EQ(build.metric, "build-time");
    EXPECT_EQ(build.unit, "ns");
    EXPECT_EQ(build.value, 12.75e9);  // 12.75 s
    EXPECT_EQ(build.direction, model::Direction::SmallerIsBetter);

    const auto& misses = parsed.results[2];
    EXPECT_EQ(misses.benchmark, "cache::lookup");
    EXPECT_EQ(misses.metric, "cache-misses");
    EXPECT_EQ(misses.unit, "");
    EXPECT_EQ(misses.direction, model::Direction::SmallerIsBetter);
    EXPECT_EQ(misses.value, 1520);
}

TEST(Bencher, CallgrindMeasuresAreTheInstrumentsCountedMetrics) {
    const auto parsed = parse(
        R"({"parse": {"instructions": {"value": 2013}, "estimated-cycles": {"value": 2410.5},
            "l1-hits": {"value": 2600}}})",
        "iai.json", "bencher");
    ASSERT_EQ(parsed.results.size(), 3u);
    EXPECT_EQ(parsed.results[0].metric, "instructions");
    EXPECT_EQ(parsed.results[0].unit, "instr");
    EXPECT_EQ(parsed.results[0].value, 2013);
    EXPECT_EQ(parsed.results[1].metric, "estimated_cycles");
    EXPECT_EQ(parsed.results[1].unit, "cycles");
    EXPECT_EQ(parsed.results[1].value, 2410.5);
    EXPECT_EQ(parsed.results[2].metric, "l1-hits");
    EXPECT_EQ(parsed.results[2].unit, "");
}

TEST(Bencher, BadInputIsAOneLineError) {
    EXPECT_EQ(parse_error(R"({"a":{"latency":{"value":1}},"a":{"latency":{"value":2}}})"),
              "results.json: benchmark 'a' has measure 'latency' twice");
    EXPECT_EQ(parse_error(R"({"a":{"latency":{"value":-3}}})"),
              "results.json: benchmark 'a': time must be a positive number, got -3");
    EXPECT_EQ(parse_error(R"({"a":{"latency":{"lower_value":1}}})", "bencher"),
              "results.json:1:17: benchmark 'a' measure 'latency': expected a \"value\"");
    EXPECT_EQ(parse_error(R"({"a":{"latency":{"value":"fast"}}})", "bencher"),
              "results.json:1:26: expected a number for \"value\", got a string");
    EXPECT_EQ(parse_error(R"({"a":{"latency":5}})", "bencher"),
              "results.json:1:17: expected an object for benchmark 'a' measure 'latency', got a "
              "number");
    EXPECT_EQ(parse_error(R"({"a":5})", "bencher"),
              "results.json:1:6: expected an object for benchmark 'a', got a number");
    EXPECT_EQ(parse_error("[]", "bencher"),
              "results.json:1:1: expected an object for the document (Bencher's metric format is "
              "{\"benchmark\": {\"measure\": {\"value\": n}}}), got an array");
}

}  // namespace
}  // namespace benchwatch::ingest
