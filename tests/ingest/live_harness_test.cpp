// What could break: the reader agreeing with committed fixtures but not with what the installed
// Google Benchmark writes today. The fixture suite is built with the tests and run here, with
// repetitions, aggregates only, and a benchmark that skips itself with an error.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ingest/ingest.hpp"
#include "vcs/git.hpp"

namespace benchwatch::ingest {
namespace {

ParsedResults run_fixture(std::vector<std::string> flags) {
    std::vector<std::string> argv = {BENCHWATCH_GBENCH_FIXTURE, "--benchmark_format=json",
                                     "--benchmark_min_time=0.01"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    const auto output = vcs::run_process(argv, ".");
    EXPECT_EQ(output.exit_code, 0) << output.err;
    return parse(output.out, "fixture_bench", "auto");
}

std::vector<std::string> names_of(const ParsedResults& parsed) {
    std::vector<std::string> names;
    for (const auto& result : parsed.results) names.push_back(result.benchmark);
    return names;
}

const std::vector<std::string> timed_benchmarks = {"BM_Accumulate", "BM_FillVector/4096",
                                                   "BM_Sleep/iterations:5"};

TEST(LiveGoogleBenchmark, RepetitionsBecomeOneResultEachWithTheirCount) {
    const auto parsed =
        run_fixture({"--benchmark_filter=-NeedsDevice", "--benchmark_repetitions=3"});
    EXPECT_EQ(parsed.format, "googlebenchmark");
    EXPECT_EQ(names_of(parsed), timed_benchmarks);
    for (const auto& result : parsed.results) {
        ASSERT_TRUE(result.samples) << result.benchmark;
        EXPECT_EQ(result.samples->count, 3) << result.benchmark;
        EXPECT_LE(result.value, result.samples->median) << result.benchmark;
        EXPECT_EQ(result.unit, "ns");
    }
    // BM_Sleep sleeps 1 ms per iteration and reports in ms: the value must arrive in ns.
    EXPECT_GE(parsed.results[2].value, 1e6);
    EXPECT_LT(parsed.results[2].value, 1e8);
    EXPECT_EQ(parsed.context.at("gbench.library_build_type").empty(), false);
}

TEST(LiveGoogleBenchmark, AggregatesOnlyFileGivesTheSameBenchmarks) {
    const auto parsed = run_fixture({"--benchmark_filter=-NeedsDevice", "--benchmark_repetitions=3",
                                     "--benchmark_report_aggregates_only=true"});
    EXPECT_EQ(names_of(parsed), timed_benchmarks);
    for (const auto& result : parsed.results) EXPECT_EQ(result.samples->count, 3);
}

TEST(LiveGoogleBenchmark, SkippedBenchmarkIsLeftOutWithAWarning) {
    const auto parsed = run_fixture({});
    EXPECT_EQ(names_of(parsed), timed_benchmarks);
    ASSERT_EQ(parsed.warnings.size(), 1u);
    EXPECT_EQ(parsed.warnings[0],
              "fixture_bench: benchmark 'BM_NeedsDevice' reported an error and was left out: no "
              "device available");
}

}  // namespace
}  // namespace benchwatch::ingest
