// What could break: reading JMH -rf json — units turned into ns or ops/s, thrpt bigger-is-better
// with its best (largest) sample, times with their fastest, params and mode in the name,
// gc.alloc.rate.norm as memory, sample-mode histograms, and not claiming other JSON arrays.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "claim_probe.hpp"
#include "ingest/ingest.hpp"

namespace benchwatch::ingest {
namespace {

namespace fs = std::filesystem;

const fs::path data_dir = fs::path(BENCHWATCH_TEST_DATA) / "jmh";

constexpr double tolerance = 1e-6;

std::string parse_error(const std::string& content, std::string_view format = "auto") {
    try {
        parse(content, "jmh.json", format);
    } catch (const InputError& error) {
        return error.what();
    }
    return "no error";
}

// One JMH element with the given mode, unit and rawData.
std::string element(std::string_view benchmark, std::string_view mode, std::string_view unit,
                    std::string_view raw) {
    return std::string(R"({"benchmark":")") + std::string(benchmark) + R"(","mode":")" +
           std::string(mode) + R"(","primaryMetric":{"score":1,"scoreUnit":")" + std::string(unit) +
           R"(","rawData":)" + std::string(raw) + "}}";
}

TEST(Jmh, TimesPerOperationBecomeNanosecondsWithTheFastestSample) {
    const auto parsed = parse_file(data_dir / "results.json", "auto");
    EXPECT_EQ(parsed.format, "jmh");
    EXPECT_TRUE(parsed.warnings.empty());
    ASSERT_EQ(parsed.results.size(), 5u);

    const auto& small = parsed.results[0];
    EXPECT_EQ(small.benchmark, "org.example.ListBench.add:size=100,kind=array");
    EXPECT_EQ(small.metric, "time");
    EXPECT_EQ(small.unit, "ns");
    EXPECT_EQ(small.direction, model::Direction::SmallerIsBetter);
    // rawData us/op 1.25 1.2 1.21 | 1.22 1.19 1.205 → fastest 1.19 us = 1190 ns
    EXPECT_NEAR(small.value, 1190, tolerance);
    ASSERT_TRUE(small.samples.has_value());
    EXPECT_EQ(small.samples->count, 6);
    EXPECT_NEAR(small.samples->median, 1207.5, tolerance);  // (1205 + 1210) / 2
    EXPECT_NEAR(small.samples->mean, 1212.5, tolerance);    // 7275 / 6
    ASSERT_TRUE(small.memory.has_value());
    EXPECT_EQ(*small.memory, 824);  // ·gc.alloc.rate.norm score, B/op

    const auto& large = parsed.results[1];
    EXPECT_EQ(large.benchmark, "org.example.ListBench.add:size=1000,kind=array");
    EXPECT_NEAR(large.value, 11600, tolerance);  // fastest 11.6 us
    EXPECT_FALSE(large.memory.has_value());
}

TEST(Jmh, ThroughputIsOpsPerSecondBiggerIsBetterAndItsLargestSample) {
    const auto parsed = parse_file(data_dir / "results.json", "jmh");
    const auto& throughput = parsed.results[2];
    EXPECT_EQ(throughput.benchmark, "org.example.MapBench.get:mode=thrpt");
    EXPECT_EQ(throughput.metric, "throughput");
    EXPECT_EQ(throughput.unit, "ops/s");
    EXPECT_EQ(throughput.direction, model::Direction::BiggerIsBetter);
    // rawData ops/ms 5100 5300 | 5250 5150 → largest 5300 ops/ms = 5.3e6 ops/s
    EXPECT_NEAR(throughput.value, 5.3e6, tolerance);
    EXPECT_EQ(throughput.samples->count, 4);
    EXPECT_NEAR(throughput.samples->median, 5.2e6, tolerance);  // (5150 + 5250) / 2 × 1e3
    ASSERT_TRUE(throughput.memory.has_value());
    EXPECT_EQ(*throughput.memory, 16);  // gc.alloc.rate.norm, the newer name

    const auto& single_shot = parsed.results[3];
    EXPECT_EQ(single_shot.benchmark, "org.example.MapBench.get:mode=ss");
    EXPECT_EQ(single_shot.metric, "time");
    EXPECT_NEAR(single_shot.value, 330, tolerance);  // ns/op 380 330 340
}

TEST(Jmh, SampleModeUsesPercentilesAndTheHistogram) {
    const auto parsed = parse_file(data_dir / "results.json", "jmh");
    const auto& sample = parsed.results[4];
    EXPECT_EQ(sample.benchmark, "org.example.ParseBench.parse");
    EXPECT_NEAR(sample.value, 2000, tolerance);  // the 0.0 percentile, 2.0e-3 ms
    ASSERT_TRUE(sample.samples.has_value());
    EXPECT_EQ(sample.samples->count, 10);                  // 2 + 5 + 3
    EXPECT_NEAR(sample.samples->median, 2400, tolerance);  // the 50.0 percentile
    EXPECT_NEAR(sample.samples->mean, 2650, tolerance);    // the score, 2.65e-3 ms
    // around 2650 ns: 2 × 650² + 5 × 250² + 3 × 850² = 3325000; / 9
    EXPECT_NEAR(sample.samples->stddev, std::sqrt(3325000.0 / 9), 1e-6);
}

TEST(Jmh, WithoutRawDataTheScoreIsTheValue) {
    const auto parsed = parse(
        R"([{"benchmark":"b.m","mode":"avgt","primaryMetric":{"score":2.5,"scoreUnit":"ms/op"}}])",
        "jmh.json", "auto");
    ASSERT_EQ(parsed.results.size(), 1u);
    EXPECT_NEAR(parsed.results[0].value, 2.5e6, tolerance);
    EXPECT_FALSE(parsed.results[0].samples.has_value());
}

TEST(Jmh, BadInputIsAOneLineError) {
    EXPECT_EQ(parse_error("[" + element("b.m", "avgt", "ns/op", "[[1]]") + "," +
                          element("b.m", "avgt", "ns/op", "[[2]]") + "]"),
              "jmh.json:1:100: benchmark 'b.m' appears twice");
    EXPECT_EQ(parse_error("[" + element("b.m", "avgt", "furlongs/op", "[[1]]") + "]"),
              "jmh.json:1:2: benchmark 'b.m': unknown scoreUnit 'furlongs/op'; expected a time "
              "per op (ns/op, us/op, ms/op, s/op) or ops per time (ops/s, ops/ms…)");
    EXPECT_EQ(parse_error("[" + element("b.m", "avgt", "ns/op", "[[1, -2]]") + "]"),
              "jmh.json: benchmark 'b.m': time must be a positive number, got -2");
    EXPECT_EQ(parse_error("[" + element("b.m", "thrpt", "ops/s", "[[0]]") + "]"),
              "jmh.json: benchmark 'b.m': throughput must be a positive number, got 0");
    EXPECT_EQ(parse_error("[" + element("b.m", "avgt", "ns/op", "[1]") + "]"),
              "jmh.json:1:93: expected an array for \"rawData\", got a number");
    EXPECT_EQ(parse_error(R"([{"benchmark":"b.m","primaryMetric":{"scoreUnit":"ns/op"}}])"),
              "jmh.json:1:2: benchmark 'b.m': expected a \"score\"");
    EXPECT_EQ(parse_error(R"([{"mode":"avgt","primaryMetric":{"score":1}}])", "jmh"),
              "jmh.json:1:2: expected a \"benchmark\" in each element");
}

TEST(Jmh, DetectsItsFixtureAndNoOtherArray) {
    EXPECT_TRUE(test::claims(detail::jmh_reader, data_dir / "results.json"));
    for (const auto& file : test::other_fixtures(BENCHWATCH_TEST_DATA, "jmh"))
        EXPECT_FALSE(test::claims(detail::jmh_reader, file)) << file;
    // github-action-benchmark's custom format is an array too
    EXPECT_FALSE(test::claims_text(detail::jmh_reader, R"([{"name":"a","unit":"ns","value":1}])"));
}

}  // namespace
}  // namespace benchwatch::ingest
