// What could break: reading nanobench's json() template — seconds per iteration turned into ns,
// the fastest epoch as the value, title and name joined, a batch turned into a rate, and
// hyperfine's "results" files left alone.
// Expected values are read by hand from tests/data/nanobench/.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ingest/ingest.hpp"
#include "parse_error.hpp"

namespace benchwatch::ingest {
namespace {

const std::filesystem::path data_dir = std::filesystem::path(BENCHWATCH_TEST_DATA) / "nanobench";

// Seconds become ns by one multiplication; a thousandth of a ns absorbs its rounding.
constexpr double ns_tolerance = 1e-3;

TEST(Nanobench, EpochsBecomeSamplesOfOneTimePerIteration) {
    const auto parsed = parse_file(data_dir / "titled.json", "auto");
    EXPECT_EQ(parsed.format, "nanobench");
    EXPECT_TRUE(parsed.warnings.empty());
    EXPECT_TRUE(parsed.context.empty());
    ASSERT_EQ(parsed.results.size(), 2u);

    const auto& reserved = parsed.results[0];
    EXPECT_EQ(reserved.benchmark, "vector/push_back reserved");
    EXPECT_EQ(reserved.metric, "time");
    EXPECT_EQ(reserved.unit, "ns");
    EXPECT_EQ(reserved.direction, model::Direction::SmallerIsBetter);
    // elapsed 2.15e-08, 2.09e-08, 2.31e-08 s → min 20.9 ns, median 21.5 ns,
    // mean (21.5 + 20.9 + 23.1) / 3 = 21.8333 ns, sample stddev 1.137248 ns
    EXPECT_NEAR(reserved.value, 20.9, ns_tolerance);
    ASSERT_TRUE(reserved.samples.has_value());
    EXPECT_EQ(reserved.samples->count, 3);
    EXPECT_NEAR(reserved.samples->median, 21.5, ns_tolerance);
    EXPECT_NEAR(reserved.samples->mean, 21.833333, ns_tolerance);
    EXPECT_NEAR(reserved.samples->stddev, 1.137248, ns_tolerance);

    const auto& unreserved = parsed.results[1];
    EXPECT_EQ(unreserved.benchmark, "vector/push_back");
    // elapsed 5e-08, 4.6e-08 s → min 46 ns, median (50 + 46) / 2 = 48 ns
    EXPECT_NEAR(unreserved.value, 46, ns_tolerance);
    EXPECT_EQ(unreserved.samples->count, 2);
    EXPECT_NEAR(unreserved.samples->median, 48, ns_tolerance);
}

TEST(Nanobench, BatchAddsThroughputInUnitsPerSecond) {
    const auto parsed = parse_file(data_dir / "batch_untitled.json", "auto");
    EXPECT_EQ(parsed.format, "nanobench");
    ASSERT_EQ(parsed.results.size(), 2u);
    const auto& time = parsed.results[0];
    EXPECT_EQ(time.benchmark, "memcpy 4 KiB");  // no title, no "/"
    EXPECT_EQ(time.metric, "time");
    // elapsed 1.15e-07 and 1.024e-07 s per iteration (4096 bytes each) → min 102.4 ns
    EXPECT_NEAR(time.value, 102.4, ns_tolerance);
    EXPECT_EQ(time.samples->count, 2);

    const auto& rate = parsed.results[1];
    EXPECT_EQ(rate.benchmark, "memcpy 4 KiB");
    EXPECT_EQ(rate.metric, "throughput");
    EXPECT_EQ(rate.unit, "B/s");
    EXPECT_EQ(rate.direction, model::Direction::BiggerIsBetter);
    // 4096 bytes / 1.024e-07 s = 4e10 B/s
    EXPECT_NEAR(rate.value, 4e10, 1);
    EXPECT_FALSE(rate.samples.has_value());
}

TEST(Nanobench, WithoutMeasurementsTheMedianIsTheValue) {
    const auto parsed =
        parse(R"j({"results":[{"name":"x","median(elapsed)":2e-9}]})j", "results.json", "auto");
    EXPECT_EQ(parsed.format, "nanobench");
    ASSERT_EQ(parsed.results.size(), 1u);
    EXPECT_NEAR(parsed.results[0].value, 2, ns_tolerance);  // 2e-9 s
    EXPECT_FALSE(parsed.results[0].samples.has_value());
}

TEST(Nanobench, HyperfineResultsAreNotClaimed) {
    const auto parsed = parse(R"j({"results":[{"command":"true","mean":0.001,"times":[0.001]}]})j",
                              "results.json", "auto");
    EXPECT_EQ(parsed.format, "hyperfine");
}

TEST(Nanobench, BadInputIsAOneLineError) {
    EXPECT_EQ(parse_error(R"j({"results":[{"title":"t","name":"a","median(elapsed)":1e-9},)j"
                          R"j({"title":"t","name":"a","median(elapsed)":2e-9}]})j"),
              "results.json: benchmark 't/a' appears twice; give each run() its own name or title");
    EXPECT_EQ(parse_error(R"j({"results":[{"name":"a","measurements":[{"elapsed":-1e-9}]}]})j"),
              "results.json: benchmark 'a': time must be a positive number, got -1");
    EXPECT_EQ(parse_error(R"j({"results":[{"title":"t","median(elapsed)":1e-9}]})j", "nanobench"),
              "results.json:1:13: expected a \"name\" in each element of \"results\"");
    EXPECT_EQ(parse_error(R"j({"results":[{"name":"a","measurements":[{"iterations":3}]}]})j"),
              "results.json:1:41: expected an \"elapsed\" in each element of \"measurements\"");
    EXPECT_EQ(parse_error(R"j({"results":[{"name":"a","unit":"op"}]})j", "nanobench"),
              "results.json:1:13: benchmark 'a': expected \"measurements\" or \"median(elapsed)\"");
    EXPECT_EQ(parse_error(R"j({"results":[{"name":"a","median(elapsed)":"1ns"}]})j"),
              "results.json:1:43: expected a number for \"median(elapsed)\", got a string");
    EXPECT_EQ(parse_error(R"j({"results":[{"name":"a","batch":0,"median(elapsed)":1e-9}]})j"),
              "results.json:1:13: benchmark 'a': \"batch\" must be a positive number, got 0");
    EXPECT_EQ(parse_error(R"j({"benchmarks":[]})j", "nanobench"),
              "results.json: expected a JSON object with a \"results\" array");
}

}  // namespace
}  // namespace benchwatch::ingest
