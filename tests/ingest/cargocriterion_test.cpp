// What could break: reading cargo-criterion --message-format=json line by line — per-iteration
// times from measured_values / iteration_count, group-complete lines ignored, throughput as its own
// result, "file:LINE:" errors, and detection by the first line's "reason" only.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "claim_probe.hpp"
#include "ingest/ingest.hpp"

namespace benchwatch::ingest {
namespace {

namespace fs = std::filesystem;

const fs::path data_dir = fs::path(BENCHWATCH_TEST_DATA) / "cargo-criterion";

constexpr double tolerance = 1e-6;

std::string parse_error(const std::string& content, std::string_view format = "auto") {
    try {
        parse(content, "bench.jsonl", format);
    } catch (const InputError& error) {
        return error.what();
    }
    return "no error";
}

// A benchmark-complete line with the given id, counts, values and throughput.
std::string complete(std::string_view id, std::string_view counts, std::string_view values,
                     std::string_view throughput = "[]", std::string_view unit = "ns") {
    return std::string(R"({"reason":"benchmark-complete","id":")") + std::string(id) +
           R"(","iteration_count":)" + std::string(counts) + R"(,"measured_values":)" +
           std::string(values) + R"(,"unit":")" + std::string(unit) + R"(","throughput":)" +
           std::string(throughput) + "}";
}

TEST(CargoCriterion, EachBenchmarkCompleteLineIsOneBenchmark) {
    const auto parsed = parse_file(data_dir / "messages.jsonl", "auto");
    EXPECT_EQ(parsed.format, "cargo-criterion");
    EXPECT_TRUE(parsed.warnings.empty());
    ASSERT_EQ(parsed.results.size(), 4u);

    const auto& iterative = parsed.results[0];
    EXPECT_EQ(iterative.benchmark, "fib/iterative/20");
    EXPECT_EQ(iterative.metric, "time");
    EXPECT_EQ(iterative.unit, "ns");
    EXPECT_EQ(iterative.direction, model::Direction::SmallerIsBetter);
    // 1250/10 = 125, 2420/20 = 121, 3690/30 = 123, 4880/40 = 122 → fastest 121 ns
    EXPECT_NEAR(iterative.value, 121, tolerance);
    ASSERT_TRUE(iterative.samples.has_value());
    EXPECT_EQ(iterative.samples->count, 4);
    EXPECT_NEAR(iterative.samples->median, 122.5, tolerance);  // (122 + 123) / 2
    EXPECT_NEAR(iterative.samples->mean, 122.75, tolerance);   // 491 / 4
    // squared deviations 5.0625 + 3.0625 + 0.0625 + 0.5625 = 8.75; / 3
    EXPECT_NEAR(iterative.samples->stddev, std::sqrt(8.75 / 3), tolerance);

    const auto& recursive = parsed.results[1];
    EXPECT_EQ(recursive.benchmark, "fib/recursive/20");
    // 52400/2 = 26200, 104000/4 = 26000, 156600/6 = 26100
    EXPECT_NEAR(recursive.value, 26000, tolerance);
    EXPECT_EQ(recursive.samples->count, 3);
    EXPECT_NEAR(recursive.samples->median, 26100, tolerance);

    const auto& crc = parsed.results[2];
    EXPECT_EQ(crc.benchmark, "checksum/crc32");
    EXPECT_NEAR(crc.value, 500, tolerance);  // 51000/100 = 510, 100000/200 = 500
    const auto& crc_bytes = parsed.results[3];
    EXPECT_EQ(crc_bytes.benchmark, "checksum/crc32");
    EXPECT_EQ(crc_bytes.metric, "throughput");
    EXPECT_EQ(crc_bytes.unit, "B/s");
    EXPECT_EQ(crc_bytes.direction, model::Direction::BiggerIsBetter);
    EXPECT_NEAR(crc_bytes.value, 8.192e9, 1e-3);  // 4096 B per 500 ns
}

TEST(CargoCriterion, ElementsThroughputAndBlankLines) {
    const std::string text = "\n" +
                             complete("sort", "[1,2]", "[3000.0,5000.0]",
                                      R"([{"per_iteration":1000,"unit":"elements"}])") +
                             "\r\n\n";
    const auto parsed = parse(text, "bench.jsonl", "auto");
    ASSERT_EQ(parsed.results.size(), 2u);
    EXPECT_NEAR(parsed.results[0].value, 2500, tolerance);  // 3000/1, 5000/2
    EXPECT_EQ(parsed.results[1].unit, "elements/s");
    EXPECT_NEAR(parsed.results[1].value, 4e8, 1e-3);  // 1000 elements per 2500 ns
}

TEST(CargoCriterion, BadLinesNameTheLine) {
    const std::string good = complete("a", "[1]", "[10.0]");
    EXPECT_EQ(parse_error(good + "\n" + complete("a", "[1]", "[12.0]")),
              "bench.jsonl:2: benchmark 'a' appears twice (first on line 1)");
    // Named, since other readers' detection stops at such a line when the text is read as JSON.
    EXPECT_EQ(parse_error(good + "\nnot json", "cargo-criterion"),
              "bench.jsonl:2: expected one JSON object per line, as cargo-criterion "
              "--message-format=json writes");
    EXPECT_EQ(parse_error(good + "\n[1]", "cargo-criterion"),
              "bench.jsonl:2: expected one JSON object per line, as cargo-criterion "
              "--message-format=json writes");
    EXPECT_EQ(parse_error(good + "\n{\"id\":\"b\"}"),
              "bench.jsonl:2: expected a \"reason\" in each message");
    EXPECT_EQ(parse_error(complete("a", "[1,2]", "[10.0]")),
              "bench.jsonl:1: benchmark 'a': expected \"measured_values\" and "
              "\"iteration_count\" of one length, got 1 and 2");
    EXPECT_EQ(parse_error(complete("a", "[0]", "[10.0]")),
              "bench.jsonl:1: benchmark 'a': iteration counts must be positive, got 0");
    EXPECT_EQ(parse_error(complete("a", "[1]", "[-10.0]")),
              "bench.jsonl:1: benchmark 'a': time must be a positive number, got -10");
    EXPECT_EQ(parse_error(complete("a", "[1]", "[10.0]", "[]", "cycles")),
              "bench.jsonl:1: benchmark 'a': unit 'cycles' is not wall time; expected \"ns\"");
    EXPECT_EQ(parse_error(complete("a", "[1]", "[\"10\"]")),
              "bench.jsonl:1: expected a number for \"measured_values\", got a string");
    EXPECT_EQ(parse_error(complete("a", "[1]", "[10.0]", R"([{"per_iteration":8,"unit":"bits"}])")),
              "bench.jsonl:1: expected a throughput with \"per_iteration\" and a \"unit\" of bytes "
              "or elements");
    EXPECT_EQ(parse_error(R"({"reason":"benchmark-complete","iteration_count":[1]})"),
              "bench.jsonl:1: expected an \"id\" in a benchmark-complete message");
    EXPECT_EQ(parse_error(R"({"reason":"group-complete","group_name":"g"})"),
              "bench.jsonl: no benchmark results in the file");
}

TEST(CargoCriterion, DetectsOnlyItsOwnMessages) {
    EXPECT_TRUE(test::claims(detail::cargocriterion_reader, data_dir / "messages.jsonl"));
    for (const auto& file : test::other_fixtures(BENCHWATCH_TEST_DATA, "cargo-criterion"))
        EXPECT_FALSE(test::claims(detail::cargocriterion_reader, file)) << file;
    // cargo's own --message-format=json lines have a "reason" too
    EXPECT_EQ(parse_error(R"({"reason":"compiler-artifact","package_id":"x"})", "auto")
                  .find("bench.jsonl: unknown results format"),
              0u);
}

}  // namespace
}  // namespace benchwatch::ingest
