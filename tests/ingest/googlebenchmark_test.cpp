// What could break: reading Google Benchmark JSON — repetitions reduced to their minimum in ns,
// aggregate-only files, errored and skipped benchmarks kept out, memory-manager fields, context.
// Expected values come from the committed harness output in tests/data/googlebenchmark/.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ingest/ingest.hpp"

namespace benchwatch::ingest {
namespace {

const std::filesystem::path data_dir =
    std::filesystem::path(BENCHWATCH_TEST_DATA) / "googlebenchmark";

std::string rows_file(const std::string& rows) {
    return R"({"context":{"library_build_type":"release"},"benchmarks":[)" + rows + "]}";
}

std::string parse_error(const std::string& content) {
    try {
        parse(content, "results.json", "auto");
    } catch (const InputError& error) {
        return error.what();
    }
    return "no error";
}

TEST(GoogleBenchmark, RepetitionsReduceToTheirMinimumInNanoseconds) {
    const auto parsed = parse_file(data_dir / "repetitions.json", "auto");
    EXPECT_EQ(parsed.format, "googlebenchmark");
    EXPECT_TRUE(parsed.warnings.empty());
    ASSERT_EQ(parsed.results.size(), 3u);

    const auto& accumulate = parsed.results[0];
    EXPECT_EQ(accumulate.benchmark, "BM_Accumulate");
    EXPECT_EQ(accumulate.unit, "ns");
    // real_time 5.508272237495183, 5.216836454052588, 5.210668349465844 ns
    EXPECT_DOUBLE_EQ(accumulate.value, 5.210668349465844);
    ASSERT_TRUE(accumulate.samples);
    EXPECT_EQ(accumulate.samples->count, 3);
    EXPECT_DOUBLE_EQ(accumulate.samples->median, 5.216836454052588);
    // The harness's own aggregate rows for these three: mean 5.311925680337872,
    // stddev 0.17006907202426255.
    EXPECT_NEAR(accumulate.samples->mean, 5.311925680337872, 1e-12);
    EXPECT_NEAR(accumulate.samples->stddev, 0.17006907202426255, 1e-12);

    const auto& fill = parsed.results[1];  // microseconds: 1.2371928315430172 us is the least
    EXPECT_EQ(fill.benchmark, "BM_FillVector/4096");
    EXPECT_DOUBLE_EQ(fill.value, 1237.1928315430172);
    EXPECT_NEAR(fill.samples->stddev, 6.816648836656953, 1e-9);  // 0.006816648836656953 us

    const auto& sleep = parsed.results[2];  // milliseconds: 1.1148371999979645 ms is the least
    EXPECT_EQ(sleep.benchmark, "BM_Sleep/iterations:5");
    EXPECT_DOUBLE_EQ(sleep.value, 1114837.1999979645);
}

TEST(GoogleBenchmark, MemoryManagerFieldsIgnoreTheUninitialisedFirstRepetition) {
    const auto parsed = parse_file(data_dir / "repetitions.json", "auto");
    // max_bytes_used per repetition: -8999260007639316905 (Google Benchmark 1.7), 656, 656
    EXPECT_EQ(parsed.results[0].allocations, 0.125);
    EXPECT_EQ(parsed.results[0].memory, 656);
    EXPECT_EQ(parsed.results[1].allocations, 1.125);
    EXPECT_EQ(parsed.results[1].memory, 524696);
    EXPECT_EQ(parsed.results[2].allocations, 0.2);
    EXPECT_EQ(parsed.results[2].memory, 400);
}

TEST(GoogleBenchmark, ContextKeepsTheStableKeys) {
    const auto parsed = parse_file(data_dir / "repetitions.json", "auto");
    EXPECT_EQ(parsed.context, (model::Environment{{"gbench.cpu_scaling_enabled", "false"},
                                                  {"gbench.library_build_type", "debug"},
                                                  {"gbench.num_cpus", "2"},
                                                  {"statistic", "minimum"}}));
}

TEST(GoogleBenchmark, AggregateOnlyFilesUseTheMedian) {
    const auto parsed = parse_file(data_dir / "aggregates_only.json", "auto");
    ASSERT_EQ(parsed.results.size(), 3u);
    const auto& accumulate = parsed.results[0];
    EXPECT_EQ(accumulate.benchmark, "BM_Accumulate");
    EXPECT_DOUBLE_EQ(accumulate.value, 5.319053784023905);
    EXPECT_EQ(
        accumulate.samples,
        (model::SampleSummary{3, 5.319053784023905, 5.299979740505043, 0.03383441997495173, {}}));
    EXPECT_FALSE(accumulate.allocations);
    EXPECT_DOUBLE_EQ(parsed.results[1].value, 1241.492752367414);   // 1.241492752367414 us
    EXPECT_DOUBLE_EQ(parsed.results[2].value, 1125262.7999965625);  // 1.1252627999965625 ms
    // Said in the run's environment, where an imported history's statistic meets it.
    EXPECT_EQ(parsed.context.at("statistic"), "median");
}

TEST(GoogleBenchmark, ErroredBenchmarkIsLeftOutWithAWarning) {
    const auto path = data_dir / "with_error.json";
    const auto parsed = parse_file(path, "auto");
    ASSERT_EQ(parsed.results.size(), 3u);
    for (const auto& result : parsed.results) EXPECT_NE(result.benchmark, "BM_NeedsDevice");
    EXPECT_EQ(
        parsed.results[0].samples,
        (model::SampleSummary{1, 5.175127575209779, 5.175127575209779, 0, {5.175127575209779}}));
    EXPECT_EQ(parsed.warnings,
              std::vector<std::string>{path.string() +
                                       ": benchmark 'BM_NeedsDevice' reported an error and was "
                                       "left out: no device available"});
}

TEST(GoogleBenchmark, SkippedBenchmarkOfNewerVersionsIsLeftOut) {
    const auto parsed = parse(
        rows_file(
            R"({"name":"a","run_name":"a","run_type":"iteration","real_time":3,"time_unit":"ns"},)"
            R"({"name":"b","run_name":"b","run_type":"iteration","skipped":true,)"
            R"("skip_message":"needs AVX-512","real_time":0,"time_unit":"ns"})"),
        "results.json", "auto");
    ASSERT_EQ(parsed.results.size(), 1u);
    EXPECT_EQ(parsed.warnings, std::vector<std::string>{"results.json: benchmark 'b' was skipped "
                                                        "and was left out: needs AVX-512"});
}

TEST(GoogleBenchmark, MinAggregateIsPreferredOverMedian) {
    const auto parsed = parse(
        rows_file(
            R"({"name":"a_median","run_name":"a","run_type":"aggregate","repetitions":5,)"
            R"("aggregate_name":"median","aggregate_unit":"time","real_time":4,"time_unit":"s"},)"
            R"({"name":"a_min","run_name":"a","run_type":"aggregate","repetitions":5,)"
            R"("aggregate_name":"min","aggregate_unit":"time","real_time":3,"time_unit":"s"})"),
        "results.json", "auto");
    // 3 s = 3e9 ns; no mean or stddev row: mean falls back to the value, stddev to 0
    EXPECT_DOUBLE_EQ(parsed.results.at(0).value, 3e9);
    EXPECT_EQ(parsed.results.at(0).samples, (model::SampleSummary{5, 4e9, 3e9, 0, {}}));
}

TEST(GoogleBenchmark, OldRowsWithoutRunTypeOrRunNameAreIterations) {
    const auto parsed =
        parse(rows_file(R"({"name":"BM_old","iterations":10,"real_time":20,"time_unit":"us"},)"
                        R"({"name":"BM_old","iterations":10,"real_time":10,"time_unit":"us"})"),
              "results.json", "auto");
    ASSERT_EQ(parsed.results.size(), 1u);
    EXPECT_DOUBLE_EQ(parsed.results[0].value, 10000);  // 10 us
    EXPECT_EQ(parsed.results[0].samples->count, 2);
}

TEST(GoogleBenchmark, RepeatedRepetitionIsADuplicate) {
    const std::string row =
        R"({"name":"a","run_name":"a","run_type":"iteration","repetition_index":0,"real_time":1})";
    EXPECT_EQ(parse_error(rows_file(row + "," + row)),
              "results.json: benchmark 'a' appears twice (repetition 0)");
}

TEST(GoogleBenchmark, UnknownTimeUnitIsAnError) {
    EXPECT_EQ(parse_error(rows_file(R"({"name":"a","real_time":1,"time_unit":"fs"})")),
              "results.json: benchmark 'a': unknown time_unit 'fs'; expected ns, us, ms or s");
}

TEST(GoogleBenchmark, NegativeTimeIsAnError) {
    EXPECT_EQ(parse_error(rows_file(R"({"name":"x/y","real_time":-3,"time_unit":"ns"})")),
              "results.json: benchmark 'x/y': time must be a positive number, got -3");
}

TEST(GoogleBenchmark, ZeroTimeIsAnError) {
    EXPECT_EQ(parse_error(rows_file(R"({"name":"x","real_time":0,"time_unit":"ms"})")),
              "results.json: benchmark 'x': time must be a positive number, got 0");
}

TEST(GoogleBenchmark, NaNTimeIsAnError) {
    // Google Benchmark prints a NaN double unquoted, which is not JSON; it starts at column 83.
    EXPECT_EQ(parse_error(rows_file(R"({"name":"x","real_time":NaN})")),
              "results.json:1:83: invalid JSON value");
}

TEST(GoogleBenchmark, RowWithoutRealTimeIsAnError) {
    EXPECT_EQ(parse_error(rows_file(R"({"name":"x","run_type":"iteration"})")),
              "results.json: benchmark 'x': a row without \"real_time\"");
}

TEST(GoogleBenchmark, NoRowsIsAnError) {
    EXPECT_EQ(parse_error(rows_file("")), "results.json: no benchmark results in the file");
}

TEST(GoogleBenchmark, OnlyErroredRowsIsAnError) {
    EXPECT_EQ(parse_error(rows_file(
                  R"({"name":"a","error_occurred":true,"error_message":"boom","real_time":0})")),
              "results.json: no benchmark results; all were left out, e.g. benchmark 'a' "
              "reported an error and was left out: boom");
}

TEST(GoogleBenchmark, DeeplyNestedUnusedFieldsAreSkipped) {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    const auto parsed = parse(rows_file(R"({"name":"a","real_time":2,"label":)" + deep + "}"),
                              "results.json", "auto");
    EXPECT_DOUBLE_EQ(parsed.results.at(0).value, 2);
}

}  // namespace
}  // namespace benchwatch::ingest
