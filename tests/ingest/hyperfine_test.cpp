// What could break: reading hyperfine --export-json — seconds turned into ns, the minimum run as
// the value, samples from "times", command names (given, scanned or as typed) kept as written.
// Expected values are read by hand from the committed hyperfine output in tests/data/hyperfine/.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ingest/ingest.hpp"
#include "parse_error.hpp"

namespace benchwatch::ingest {
namespace {

const std::filesystem::path data_dir = std::filesystem::path(BENCHWATCH_TEST_DATA) / "hyperfine";

// Run times in seconds become ns; a tolerance of a thousandth of a ns absorbs the rounding of
// the multiplication and nothing more.
constexpr double ns_tolerance = 1e-3;

TEST(Hyperfine, TwoCommandsBecomeTwoBenchmarksInNanoseconds) {
    const auto parsed = parse_file(data_dir / "two_commands.json", "auto");
    EXPECT_EQ(parsed.format, "hyperfine");
    EXPECT_TRUE(parsed.warnings.empty());
    ASSERT_EQ(parsed.results.size(), 2u);

    const auto& sleep = parsed.results[0];
    EXPECT_EQ(sleep.benchmark, "sleep 0.01");
    EXPECT_EQ(sleep.metric, "time");
    EXPECT_EQ(sleep.unit, "ns");
    EXPECT_EQ(sleep.direction, model::Direction::SmallerIsBetter);
    // times 0.017419992, 0.026152771, 0.018556355, 0.018403156, 0.021226808 s → min 17419992 ns
    EXPECT_NEAR(sleep.value, 17419992, ns_tolerance);
    ASSERT_TRUE(sleep.samples.has_value());
    EXPECT_EQ(sleep.samples->count, 5);
    // sorted: 17.419992, 18.403156, 18.556355, 21.226808, 26.152771 ms → median 18556355 ns
    EXPECT_NEAR(sleep.samples->median, 18556355, ns_tolerance);
    // hyperfine's own "mean" 0.0203518164 s and "stddev" 0.003536708847119918 s (sample, n−1)
    EXPECT_NEAR(sleep.samples->mean, 20351816.4, ns_tolerance);
    EXPECT_NEAR(sleep.samples->stddev, 3536708.847119918, ns_tolerance);
    // "user" 0.0037606 s, "system" 0.0014424 s: means per run
    ASSERT_TRUE(sleep.user_time.has_value());
    ASSERT_TRUE(sleep.system_time.has_value());
    EXPECT_NEAR(*sleep.user_time, 3760600, ns_tolerance);
    EXPECT_NEAR(*sleep.system_time, 1442400, ns_tolerance);

    const auto& true_command = parsed.results[1];
    EXPECT_EQ(true_command.benchmark, "true");
    // the minimum is the last of the five times, 0.006145393 s
    EXPECT_NEAR(true_command.value, 6145393, ns_tolerance);
    ASSERT_TRUE(true_command.samples.has_value());
    EXPECT_EQ(true_command.samples->count, 5);
    // sorted: 6.145393, 7.826411, 9.214216, 10.495382, 12.985294 ms → median 9214216 ns
    EXPECT_NEAR(true_command.samples->median, 9214216, ns_tolerance);
}

TEST(Hyperfine, ParameterScanKeepsEachCommandAsRun) {
    const auto parsed = parse_file(data_dir / "parameter_scan.json", "auto");
    ASSERT_EQ(parsed.results.size(), 2u);
    EXPECT_EQ(parsed.results[0].benchmark, "sleep 0.01");
    EXPECT_EQ(parsed.results[1].benchmark, "sleep 0.02");
    // mins of the times: 0.020150889 s and 0.029620979 s
    EXPECT_NEAR(parsed.results[0].value, 20150889, ns_tolerance);
    EXPECT_NEAR(parsed.results[1].value, 29620979, ns_tolerance);
    EXPECT_EQ(parsed.results[0].samples->count, 3);
    EXPECT_EQ(parsed.results[1].samples->count, 3);
    // "user": 0.0 in the second is a measured zero, kept as such
    ASSERT_TRUE(parsed.results[1].user_time.has_value());
    EXPECT_EQ(*parsed.results[1].user_time, 0.0);
}

TEST(Hyperfine, CommandNameReplacesTheCommand) {
    const auto parsed = parse_file(data_dir / "command_name.json", "auto");
    ASSERT_EQ(parsed.results.size(), 1u);
    EXPECT_EQ(parsed.results[0].benchmark, "short-sleep");
    // times 0.010318377, 0.011853712, 0.011520373 s → min 10318377 ns, median 11520373 ns
    EXPECT_NEAR(parsed.results[0].value, 10318377, ns_tolerance);
    EXPECT_EQ(parsed.results[0].samples->count, 3);
    EXPECT_NEAR(parsed.results[0].samples->median, 11520373, ns_tolerance);
}

TEST(Hyperfine, WithoutTimesTheMinimumIsTheValue) {
    const auto parsed =
        parse(R"({"results":[{"command":"make","mean":2.5,"min":2.0}]})", "results.json", "auto");
    ASSERT_EQ(parsed.results.size(), 1u);
    EXPECT_EQ(parsed.results[0].value, 2e9);  // 2.0 s
    EXPECT_FALSE(parsed.results[0].samples.has_value());
}

TEST(Hyperfine, FailedRunsAreAWarning) {
    const auto parsed = parse(
        R"({"results":[{"command":"false","mean":0.001,"times":[0.001,0.002],"exit_codes":[1,0]}]})",
        "results.json", "auto");
    ASSERT_EQ(parsed.warnings.size(), 1u);
    EXPECT_EQ(
        parsed.warnings[0],
        "results.json: benchmark 'false': 1 of its runs exited with a failure (hyperfine -i)");
    EXPECT_EQ(parsed.results[0].value, 1e6);  // 0.001 s
}

TEST(Hyperfine, BadInputIsAOneLineError) {
    EXPECT_EQ(
        parse_error(R"({"results":[{"command":"a","times":[0.1]},{"command":"a","times":[0.2]}]})"),
        "results.json: benchmark 'a' appears twice; give each run its own --command-name");
    EXPECT_EQ(parse_error(R"({"results":[{"command":"a","times":[0.1, -0.2]}]})"),
              "results.json: benchmark 'a': time must be a positive number, got -200000000");
    EXPECT_EQ(parse_error(R"({"results":[{"command":"a","mean":1}]})"),
              "results.json:1:13: command 'a': expected \"times\" or \"min\"");
    EXPECT_EQ(parse_error(R"({"results":[{"mean":1}]})", "hyperfine"),
              "results.json:1:13: expected a \"command\" in each element of \"results\"");
    EXPECT_EQ(parse_error(R"({"results":[{"command":"a","times":"fast"}]})"),
              "results.json:1:36: expected an array for \"times\", got a string");
    EXPECT_EQ(parse_error(R"({"benchmarks":[]})", "hyperfine"),
              "results.json: expected a JSON object with a \"results\" array");
}

}  // namespace
}  // namespace benchwatch::ingest
