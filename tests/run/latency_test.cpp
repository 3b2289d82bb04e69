// What could break: the stored value not being the minimum wall time, the summary computed over
// the wrong runs, prepare or warm-up runs counted as samples, or failures that do not say which
// command failed and how.

#include "run/latency.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include "support/test_support.hpp"

namespace benchwatch::run {
namespace {

using namespace std::chrono_literals;

TimedResult sample(double wall_seconds, std::int64_t max_rss_bytes, double user_seconds = 0,
                   double system_seconds = 0) {
    TimedResult result;
    result.exit_code = 0;
    result.wall_seconds = wall_seconds;
    result.max_rss_bytes = max_rss_bytes;
    result.user_seconds = user_seconds;
    result.system_seconds = system_seconds;
    return result;
}

// The message of the LatencyError that measuring `spec` throws.
std::string failure_message(const LatencySpec& spec) {
    try {
        measure_latency(spec);
    } catch (const LatencyError& error) {
        return error.what();
    }
    return "no LatencyError";
}

TEST(Latency, ResultIsTheMinimumWithASummaryOfWallTimes) {
    const auto result =
        latency_result("import", {sample(0.3, 1000), sample(0.1, 3000), sample(0.2, 2000)});
    EXPECT_EQ(result.benchmark, "latency/import");
    EXPECT_EQ(result.metric, "time");
    EXPECT_EQ(result.unit, "ns");
    EXPECT_DOUBLE_EQ(result.value, 1e8);  // 0.1 s
    ASSERT_TRUE(result.samples);
    EXPECT_EQ(result.samples->count, 3);
    EXPECT_DOUBLE_EQ(result.samples->median, 2e8);
    EXPECT_DOUBLE_EQ(result.samples->mean, 2e8);  // (1 + 2 + 3) × 1e8 / 3
    // Deviations −1e8, 0, +1e8: sqrt((1e16 + 0 + 1e16) / (3 − 1)) = 1e8.
    EXPECT_DOUBLE_EQ(result.samples->stddev, 1e8);
    EXPECT_EQ(result.memory, 3000.0);  // the largest peak RSS
}

TEST(Latency, CpuTimesAreTheSmallestOfTheRuns) {
    // User 0.05, 0.02, 0.04 s and system 0.01, 0.03, 0.002 s: each its own minimum, in ns.
    const auto result = latency_result(
        "ttfp",
        {sample(0.3, 1, 0.05, 0.01), sample(0.1, 1, 0.02, 0.03), sample(0.2, 1, 0.04, 0.002)});
    EXPECT_DOUBLE_EQ(*result.user_time, 2e7);
    EXPECT_DOUBLE_EQ(*result.system_time, 2e6);
}

TEST(Latency, PrepareRunsBeforeEveryTimedRunAndWarmUpIsNotASample) {
    testing::TemporaryDirectory folder("benchwatch-latency");
    LatencySpec spec{
        .name = "ttfp",
        .command = Command{.argv = shell_argv("echo run >> log"), .directory = folder.path()},
        .prepare = Command{.argv = shell_argv("echo prepare >> log"), .directory = folder.path()},
        .warmup_runs = 1,
        .timed_runs = 2};
    const auto measurement = measure_latency(spec);
    EXPECT_EQ(testing::read_text(folder.path() / "log"), "run\nprepare\nrun\nprepare\nrun\n");
    ASSERT_EQ(measurement.samples.size(), 2U);
    EXPECT_EQ(measurement.result.benchmark, "latency/ttfp");
    EXPECT_EQ(measurement.result.samples->count, 2);
    EXPECT_DOUBLE_EQ(
        measurement.result.value,
        std::min(measurement.samples[0].wall_seconds, measurement.samples[1].wall_seconds) * 1e9);
}

TEST(Latency, ANonZeroExitNamesTheCommandAndTheCode) {
    LatencySpec spec{.name = "import", .command = Command{.argv = shell_argv("exit 3")}};
    EXPECT_EQ(failure_message(spec),
              "latency benchmark 'import': warm-up command 'exit 3' failed: exit 3");
}

TEST(Latency, ASignalIsNamed) {
    LatencySpec spec{
        .name = "crash", .command = Command{.argv = shell_argv("kill -SEGV $$")}, .warmup_runs = 0};
    EXPECT_EQ(failure_message(spec),
              "latency benchmark 'crash': command 'kill -SEGV $$' failed: killed by SIGSEGV");
}

TEST(Latency, ATimeoutSaysHowLong) {
    LatencySpec spec{.name = "hang",
                     .command = Command{.argv = {"sleep", "30"}, .timeout = 0.2s},
                     .warmup_runs = 0};
    EXPECT_EQ(failure_message(spec),
              "latency benchmark 'hang': command 'sleep 30' failed: timed out after 0.2 s");
}

TEST(Latency, AFailingPrepareCommandIsNamedAsSuch) {
    LatencySpec spec{.name = "cold",
                     .command = Command{.argv = {"true"}},
                     .prepare = Command{.argv = shell_argv("exit 1")},
                     .warmup_runs = 0};
    EXPECT_EQ(failure_message(spec),
              "latency benchmark 'cold': prepare command 'exit 1' failed: exit 1");
}

}  // namespace
}  // namespace benchwatch::run
