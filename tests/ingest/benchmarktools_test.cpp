// What could break: reading BenchmarkTools.save files — group paths, Trial minimum and spread,
// TrialEstimate times, the "BenchmarkTools." prefix, null for non-finite numbers, versions.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "ingest/ingest.hpp"

namespace benchwatch::ingest {
namespace {

const std::filesystem::path data_dir =
    std::filesystem::path(BENCHWATCH_TEST_DATA) / "benchmarktools";

// A one-line BenchmarkTools file holding one top-level group with these entries in "data".
std::string group_file(const std::string& data) {
    return R"([{"Julia":"1.10.0","BenchmarkTools":"1.4.0"},[["BenchmarkGroup",{"tags":[],"data":{)" +
           data + "}}]]]";
}

std::string parse_error(const std::string& content) {
    try {
        parse(content, "results.json", "auto");
    } catch (const InputError& error) {
        return error.what();
    }
    return "no error";
}

TEST(BenchmarkTools, NestedGroupsJoinKeysWithSlashes) {
    const auto parsed = parse_file(data_dir / "nested_trials.json", "auto");
    EXPECT_EQ(parsed.format, "benchmarktools");
    ASSERT_EQ(parsed.results.size(), 3u);
    EXPECT_EQ(parsed.results[0].benchmark, "array/copy/Float32");
    // A key written from a tuple is kept as the string BenchmarkTools wrote.
    EXPECT_EQ(parsed.results[1].benchmark, R"(array/reductions/("sum", 2))");
    EXPECT_EQ(parsed.results[2].benchmark, "latency/ttfp");
    EXPECT_TRUE(parsed.warnings.empty());
}

TEST(BenchmarkTools, TrialIsTheMinimumTimeWithItsSpread) {
    const auto parsed = parse_file(data_dir / "nested_trials.json", "auto");
    const auto& copy = parsed.results[0];
    // times 1200, 1000, 1100, 1500 ns
    EXPECT_EQ(copy.metric, "time");
    EXPECT_EQ(copy.unit, "ns");
    EXPECT_EQ(copy.direction, model::Direction::SmallerIsBetter);
    EXPECT_DOUBLE_EQ(copy.value, 1000);
    EXPECT_EQ(copy.allocations, 2);
    EXPECT_EQ(copy.memory, 4096);
    ASSERT_TRUE(copy.samples);
    EXPECT_EQ(copy.samples->count, 4);
    EXPECT_DOUBLE_EQ(copy.samples->median, 1150);  // (1100 + 1200) / 2
    EXPECT_DOUBLE_EQ(copy.samples->mean, 1200);    // 4800 / 4
    // deviations 0, −200, −100, 300: (0 + 40000 + 10000 + 90000) / 3 = 46666.67
    EXPECT_DOUBLE_EQ(copy.samples->stddev, std::sqrt(140000.0 / 3));

    const auto& ttfp = parsed.results[2];  // 2.5e9, 2.0e9, 3.0e9 ns
    EXPECT_DOUBLE_EQ(ttfp.value, 2e9);
    EXPECT_EQ(ttfp.allocations, 0);
    EXPECT_DOUBLE_EQ(ttfp.samples->stddev, 0.5e9);  // sqrt((0.25e18 + 0.25e18) / 2)
}

TEST(BenchmarkTools, PrefixedTypeNamesReadAsUnprefixed) {
    const auto parsed = parse_file(data_dir / "nested_trials.json", "auto");
    // "BenchmarkTools.BenchmarkGroup" holding a "BenchmarkTools.Trial" of one time, 50.5 ns
    const auto& sum = parsed.results[1];
    EXPECT_DOUBLE_EQ(sum.value, 50.5);
    EXPECT_EQ(sum.samples, (model::SampleSummary{1, 50.5, 50.5, 0, {50.5}}));
}

TEST(BenchmarkTools, VersionsBecomeTheContext) {
    const auto parsed = parse_file(data_dir / "nested_trials.json", "auto");
    EXPECT_EQ(parsed.context,
              (model::Environment{
                  {"BenchmarkTools", "1.4.0"}, {"Julia", "1.10.0"}, {"statistic", "minimum"}}));
}

TEST(BenchmarkTools, TrialEstimatesFromSeveralTopLevelGroups) {
    const auto parsed = parse_file(data_dir / "estimates.json", "auto");
    ASSERT_EQ(parsed.results.size(), 2u);
    EXPECT_EQ(parsed.results[0].benchmark, "sum");
    EXPECT_DOUBLE_EQ(parsed.results[0].value, 1234.5);
    EXPECT_EQ(parsed.results[0].allocations, 3);
    EXPECT_EQ(parsed.results[0].memory, 96);
    EXPECT_FALSE(parsed.results[0].samples);
    // Whichever estimate the suite saved: the statistic is the file's, not the minimum.
    EXPECT_EQ(parsed.context.at("statistic"), "estimate");
    EXPECT_EQ(parsed.results[1].benchmark, "sort");
    EXPECT_DOUBLE_EQ(parsed.results[1].value, 87.25);
    EXPECT_EQ(parsed.context.at("Julia"), "1.6.7");
}

TEST(BenchmarkTools, NullTimesInATrialAreLeftOutWithAWarning) {
    const auto path = data_dir / "null_sample.json";
    const auto parsed = parse_file(path, "auto");
    ASSERT_EQ(parsed.results.size(), 1u);
    const auto& flaky = parsed.results[0];  // times null, 40, 60
    EXPECT_DOUBLE_EQ(flaky.value, 40);
    // two finite samples: median = mean = 50, stddev = sqrt((100 + 100) / 1)
    EXPECT_EQ(flaky.samples, (model::SampleSummary{2, 50, 50, std::sqrt(200.0), {40, 60}}));
    ASSERT_EQ(parsed.warnings.size(), 1u);
    EXPECT_EQ(
        parsed.warnings[0],
        path.string() + ": benchmark 'flaky': 1 of 3 times were not finite and were left out");
}

TEST(BenchmarkTools, TopLevelTrialIsNamedByItsPosition) {
    const auto parsed =
        parse(R"([{"Julia":"1.10.0"},[["Trial",{"allocs":0,"memory":0,"times":[7.0]}]]])", "t.json",
              "auto");
    ASSERT_EQ(parsed.results.size(), 1u);
    EXPECT_EQ(parsed.results[0].benchmark, "1");
}

TEST(BenchmarkTools, JudgementsAreLeftOutWithAWarning) {
    const auto parsed = parse(group_file(R"("a":["Trial",{"times":[5.0]}],)"
                                         R"("b":["TrialJudgement",{"ratio":[]}])"),
                              "results.json", "auto");
    ASSERT_EQ(parsed.results.size(), 1u);
    EXPECT_EQ(parsed.warnings,
              std::vector<std::string>{
                  "results.json: benchmark 'b' left out: a TrialJudgement is not a measurement"});
}

TEST(BenchmarkTools, ParameterGroupsHoldNoResults) {
    EXPECT_EQ(parse_error(group_file(R"("a":["Parameters",{"samples":100}])")),
              "results.json: no benchmark results in the file");
}

TEST(BenchmarkTools, NullEstimateTimeIsAnError) {
    EXPECT_EQ(
        parse_error(group_file(
            R"("g":["BenchmarkGroup",{"data":{"x":["TrialEstimate",{"time":null,"allocs":0}]}}])")),
        "results.json: benchmark 'g/x': time must be a positive number, got null");
}

TEST(BenchmarkTools, TrialWithoutFiniteTimesIsAnError) {
    EXPECT_EQ(parse_error(group_file(
                  R"("g":["BenchmarkGroup",{"data":{"x":["Trial",{"times":[null,null]}]}}])")),
              "results.json: benchmark 'g/x': the Trial has no finite times");
    EXPECT_EQ(parse_error(group_file(R"("x":["Trial",{"times":[]}])")),
              "results.json: benchmark 'x': the Trial has no finite times");
}

TEST(BenchmarkTools, NegativeTimeIsAnError) {
    EXPECT_EQ(parse_error(group_file(
                  R"("x":["BenchmarkGroup",{"data":{"y":["Trial",{"times":[10.0,-3]}]}}])")),
              "results.json: benchmark 'x/y': time must be a positive number, got -3");
}

TEST(BenchmarkTools, ZeroTimeIsAnError) {
    EXPECT_EQ(parse_error(group_file(R"("x":["TrialEstimate",{"time":0}])")),
              "results.json: benchmark 'x': time must be a positive number, got 0");
}

TEST(BenchmarkTools, EstimateWithoutTimeIsAnError) {
    EXPECT_EQ(parse_error(group_file(R"("x":["TrialEstimate",{"allocs":0}])")),
              "results.json: benchmark 'x': the TrialEstimate has no \"time\"");
}

TEST(BenchmarkTools, DuplicateNamesAcrossTopLevelGroupsAreAnError) {
    const std::string group = R"(["BenchmarkGroup",{"data":{"a":["TrialEstimate",{"time":1.0}]}}])";
    EXPECT_EQ(parse_error(R"([{"Julia":"1.10.0"},[)" + group + "," + group + "]]"),
              "results.json: benchmark 'a' appears twice");
}

TEST(BenchmarkTools, WrongFieldTypeNamesLineAndColumn) {
    const std::string content = "[{\"Julia\":\"1.10.0\"},\n[[\"Trial\",{\"times\":\"fast\"}]]]";
    // line 2: [["Trial",{"times":"fast"}]] — the string starts at column 20
    EXPECT_EQ(parse_error(content),
              "results.json:2:20: expected an array for \"times\", got a string");
}

TEST(BenchmarkTools, GroupsNestedTooDeeplyAreRefused) {
    const std::string versions = R"([{"Julia":"1.10.0"},[)";
    const std::string level_open = R"(["BenchmarkGroup",{"data":{"g":)";
    std::string content = versions;
    for (int level = 0; level < 300; ++level) content += level_open;
    for (int level = 0; level < 300; ++level) content += "}}]";
    content += "]]";
    // The 257th group (depth 256) is refused where its fields start:
    // after the versions, 256 whole level openings and `["BenchmarkGroup",`.
    const auto column =
        versions.size() + 256 * level_open.size() + std::string(R"(["BenchmarkGroup",)").size() + 1;
    EXPECT_EQ(parse_error(content), "results.json:1:" + std::to_string(column) +
                                        ": benchmark groups nested deeper than 256 levels");
}

TEST(BenchmarkTools, HugeNamesAreRefusedWithTheirStart) {
    const std::string name(1 << 20, 'n');
    try {
        parse(group_file("\"" + name + R"(":["TrialEstimate",{"time":2.0}])"), "results.json",
              "benchmarktools");
        FAIL() << "no error";
    } catch (const InputError& error) {
        // 1 << 20 = 1048576 bytes, shown by its first 60 characters.
        EXPECT_EQ(std::string(error.what()),
                  "results.json: benchmark name of 1048576 bytes is longer than the 4096 "
                  "allowed: \"" +
                      std::string(60, 'n') + "…\"");
    }
}

}  // namespace
}  // namespace benchwatch::ingest
