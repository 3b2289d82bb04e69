// What could break: a warning raised on a well-tuned machine or missed on a noisy one, a
// governor read from the wrong CPU folder, or a sentence that no longer tells the user what to do.

#include "run/stability.hpp"

#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace benchwatch::run {
namespace {

const std::filesystem::path fixtures = std::filesystem::path(BENCHWATCH_TEST_DATA) / "run";

model::Result with_samples(const std::string& name, std::int64_t count) {
    model::Result result;
    result.benchmark = name;
    result.samples = model::SampleSummary{.count = count};
    return result;
}

TEST(Stability, GovernorsAreReadInCpuOrder) {
    // cpu10 sorts after cpu3 numerically; the "cpufreq" folder is not a CPU.
    EXPECT_EQ(read_governors(fixtures / "machine/sys"),
              (std::vector<std::string>{"powersave", "powersave", "performance", "powersave",
                                        "schedutil"}));
    EXPECT_EQ(read_governors(fixtures / "nowhere"), std::vector<std::string>{});
}

TEST(Stability, EachGovernorOtherThanPerformanceIsOneWarning) {
    const auto warnings = governor_warnings(read_governors(fixtures / "machine/sys"));
    ASSERT_EQ(warnings.size(), 2U);
    EXPECT_EQ(warnings[0], (StabilityWarning{
                               StabilityIssue::CpuGovernor,
                               "3 of 5 CPUs use the 'powersave' frequency governor, which lets the "
                               "clock speed change during a run; switch to 'performance' with "
                               "`sudo cpupower frequency-set -g performance`."}));
    EXPECT_EQ(warnings[1].message,
              "1 of 5 CPUs uses the 'schedutil' frequency governor, which lets the clock speed "
              "change during a run; switch to 'performance' with "
              "`sudo cpupower frequency-set -g performance`.");
}

TEST(Stability, PerformanceOrNoCpufreqGivesNoGovernorWarning) {
    EXPECT_TRUE(governor_warnings(read_governors(fixtures / "performance/sys")).empty());
    EXPECT_TRUE(governor_warnings({}).empty());
}

TEST(Stability, LoadAboveHalfTheCoresIsAWarning) {
    const auto load = read_load_average(fixtures / "machine/proc");
    ASSERT_EQ(load, 3.20);
    // 3.20 > 0.5 × 4 = 2.0
    EXPECT_EQ(load_warning(*load, 4),
              (StabilityWarning{StabilityIssue::HighLoad,
                                "The load average was 3.20 at start on 4 cores; stop other work "
                                "on the machine so that it does not compete with the "
                                "benchmarks."}));
    EXPECT_EQ(load_warning(*load, 8), std::nullopt);  // 3.20 ≤ 0.5 × 8 = 4.0
    EXPECT_EQ(load_warning(2.0, 4), std::nullopt);    // exactly half is still fine
    EXPECT_EQ(read_load_average(fixtures / "nowhere"), std::nullopt);
}

TEST(Stability, ADebugGoogleBenchmarkIsAWarning) {
    EXPECT_EQ(harness_warning({{"gbench.library_build_type", "debug"}}),
              (StabilityWarning{StabilityIssue::DebugHarness,
                                "Google Benchmark is a debug build; build it and the benchmarks "
                                "with -DCMAKE_BUILD_TYPE=Release so that the times are "
                                "representative."}));
    EXPECT_EQ(harness_warning({{"gbench.library_build_type", "release"}}), std::nullopt);
    EXPECT_EQ(harness_warning({}), std::nullopt);
}

TEST(Stability, FewSamplesNameTheBenchmarks) {
    EXPECT_EQ(sample_warning({with_samples("a", 4), with_samples("b", 5)}),
              (StabilityWarning{StabilityIssue::FewSamples,
                                "1 benchmark has fewer than 5 samples (a); give it more time or "
                                "repetitions so that the minimum is meaningful."}));
    const auto many =
        sample_warning({with_samples("a", 1), with_samples("b", 2), with_samples("c", 3),
                        with_samples("d", 4), with_samples("e", 0)});
    ASSERT_TRUE(many);
    EXPECT_EQ(many->message,
              "5 benchmarks have fewer than 5 samples (a, b, c and 2 more); give them more time "
              "or repetitions so that the minimum is meaningful.");
}

TEST(Stability, EnoughOrUnknownSamplesGiveNoWarning) {
    model::Result without_summary;
    without_summary.benchmark = "x";
    EXPECT_EQ(sample_warning({with_samples("a", 5), without_summary}), std::nullopt);
}

TEST(Stability, MachineWarningsAreGovernorsThenLoad) {
    const auto warnings = machine_warnings(4, fixtures / "machine/sys", fixtures / "machine/proc");
    ASSERT_EQ(warnings.size(), 3U);  // powersave, schedutil, then load 3.20 > 0.5 × 4
    EXPECT_EQ(warnings[0].issue, StabilityIssue::CpuGovernor);
    EXPECT_EQ(warnings[1].issue, StabilityIssue::CpuGovernor);
    EXPECT_EQ(warnings[2].issue, StabilityIssue::HighLoad);
    // A quiet machine with performance governors and no loadavg file: nothing to say.
    EXPECT_TRUE(
        machine_warnings(4, fixtures / "performance/sys", fixtures / "performance/proc").empty());
}

TEST(Stability, IssuesHaveStableNames) {
    EXPECT_STREQ(to_string(StabilityIssue::CpuGovernor), "cpu-governor");
    EXPECT_STREQ(to_string(StabilityIssue::HighLoad), "high-load");
    EXPECT_STREQ(to_string(StabilityIssue::DebugHarness), "debug-harness");
    EXPECT_STREQ(to_string(StabilityIssue::FewSamples), "few-samples");
}

}  // namespace
}  // namespace benchwatch::run
