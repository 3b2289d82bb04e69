// What could break: reading BenchmarkDotNet's JSON exporters — FullName with its parameters as the
// name, Min (ns) as the value with BenchmarkDotNet's own statistics as samples, allocated bytes
// per operation as memory, failed benchmarks left out, and the host's versions kept.
// Expected values are read by hand from tests/data/benchmarkdotnet/.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ingest/ingest.hpp"
#include "parse_error.hpp"

namespace benchwatch::ingest {
namespace {

const std::filesystem::path data_dir =
    std::filesystem::path(BENCHWATCH_TEST_DATA) / "benchmarkdotnet";

TEST(BenchmarkDotNet, FullReportGivesMinStatisticsAndMemory) {
    const auto parsed = parse_file(data_dir / "report_full.json", "auto");
    EXPECT_EQ(parsed.format, "benchmarkdotnet");
    EXPECT_TRUE(parsed.warnings.empty());
    ASSERT_EQ(parsed.results.size(), 2u);

    const auto& small = parsed.results[0];
    EXPECT_EQ(small.benchmark, "Sample.Benchmarks.StringJoin.Join(Count: 10)");
    EXPECT_EQ(small.metric, "time");
    EXPECT_EQ(small.unit, "ns");
    EXPECT_EQ(small.direction, model::Direction::SmallerIsBetter);
    // Statistics: N 5, Min 41.2, Median 42.0, Mean 42.3, StandardDeviation 0.8803408430829492 ns
    EXPECT_EQ(small.value, 41.2);
    ASSERT_TRUE(small.samples.has_value());
    EXPECT_EQ(small.samples->count, 5);
    EXPECT_EQ(small.samples->median, 42.0);
    EXPECT_EQ(small.samples->mean, 42.3);
    EXPECT_EQ(small.samples->stddev, 0.8803408430829492);
    // Memory.BytesAllocatedPerOperation 136
    ASSERT_TRUE(small.memory.has_value());
    EXPECT_EQ(*small.memory, 136);
    EXPECT_FALSE(small.allocations.has_value());

    const auto& large = parsed.results[1];
    EXPECT_EQ(large.benchmark, "Sample.Benchmarks.StringJoin.Join(Count: 1000)");
    // six OriginalValues, the upper outlier 4410.2 removed: N 5, Min 3790.1 ns
    EXPECT_EQ(large.value, 3790.1);
    EXPECT_EQ(large.samples->count, 5);
    EXPECT_EQ(large.samples->median, 3805.7);
    EXPECT_EQ(*large.memory, 8056);
}

TEST(BenchmarkDotNet, ContextKeepsRuntimeOsAndProcessor) {
    const auto parsed = parse_file(data_dir / "report_full.json", "auto");
    EXPECT_EQ(parsed.context,
              (model::Environment{
                  {"dotnet.Architecture", "X64"},
                  {"dotnet.BenchmarkDotNetVersion", "0.13.12"},
                  {"dotnet.Configuration", "RELEASE"},
                  {"dotnet.DotNetCliVersion", "8.0.201"},
                  {"dotnet.LogicalCoreCount", "4"},
                  {"dotnet.OsVersion", "Debian GNU/Linux 12 (bookworm)"},
                  {"dotnet.PhysicalCoreCount", "2"},
                  {"dotnet.PhysicalProcessorCount", "1"},
                  {"dotnet.ProcessorName", "AMD EPYC 7763, 1 CPU, 4 logical and 2 physical cores"},
                  {"dotnet.RuntimeVersion", ".NET 8.0.2 (8.0.224.6711)"},
                  {"statistic", "minimum"},
              }));
}

TEST(BenchmarkDotNet, BriefReportLeavesOutAFailedBenchmarkWithAWarning) {
    const auto path = data_dir / "report_brief.json";
    const auto parsed = parse_file(path, "auto");
    EXPECT_EQ(parsed.format, "benchmarkdotnet");
    ASSERT_EQ(parsed.results.size(), 1u);
    EXPECT_EQ(parsed.results[0].benchmark, "Sample.Benchmarks.Parsing.Parse(Count: 10)");
    // Statistics: N 3, Min 12.25, Median 12.5, Mean 12.5, StandardDeviation 0.25 ns
    EXPECT_EQ(parsed.results[0].value, 12.25);
    EXPECT_EQ(parsed.results[0].samples,
              (model::SampleSummary{
                  .count = 3, .median = 12.5, .mean = 12.5, .stddev = 0.25, .values = {}}));
    EXPECT_EQ(*parsed.results[0].memory, 0);
    ASSERT_EQ(parsed.warnings.size(), 1u);
    EXPECT_EQ(parsed.warnings[0],
              path.string() +
                  ": benchmark 'Sample.Benchmarks.Parsing.Broken(Count: 10)' has no statistics (it "
                  "failed to build or run); left out");
}

// A file of one benchmark entry, with its fields given.
std::string file_with(const std::string& entries) {
    return R"({"HostEnvironmentInfo":{},"Benchmarks":[)" + entries + "]}";
}

const std::string statistics =
    R"("Statistics":{"N":1,"Min":5,"Median":5,"Mean":5,"StandardDeviation":0})";

TEST(BenchmarkDotNet, BadInputIsAOneLineError) {
    EXPECT_EQ(parse_error(file_with(R"({"FullName":"A.B",)" + statistics +
                                    R"(},{"FullName":"A.B",)" + statistics + "}")),
              "results.json: benchmark 'A.B' appears twice; BenchmarkDotNet writes one entry per "
              "job, so export each job's results to its own file");
    EXPECT_EQ(
        parse_error(file_with(
            R"({"FullName":"A.B","Statistics":{"N":1,"Min":-5,"Median":5,"Mean":5,"StandardDeviation":0}})")),
        "results.json: benchmark 'A.B': time must be a positive number, got -5");
    EXPECT_EQ(parse_error(file_with("{" + statistics + "}")),
              "results.json:1:41: expected a \"FullName\" in each element of \"Benchmarks\"");
    EXPECT_EQ(parse_error(file_with(R"({"FullName":"A.B","Statistics":{"Mean":5}})")),
              "results.json:1:41: benchmark 'A.B': expected \"N\", \"Min\", \"Median\", \"Mean\" "
              "and \"StandardDeviation\" in \"Statistics\"");
    EXPECT_EQ(parse_error(file_with(R"({"FullName":"A.B","Statistics":{"Min":"5 ns"}})")),
              "results.json:1:79: expected a number for \"Min\", got a string");
    EXPECT_EQ(parse_error(R"({"HostEnvironmentInfo":{},"Benchmarks":{}})", "benchmarkdotnet"),
              "results.json:1:40: expected an array for \"Benchmarks\", got an object");
    EXPECT_EQ(parse_error(R"({"HostEnvironmentInfo":{}})", "benchmarkdotnet"),
              "results.json: expected a JSON object with a \"Benchmarks\" array");
}

}  // namespace
}  // namespace benchwatch::ingest
