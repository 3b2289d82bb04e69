// What could break: a warning raised on a well-tuned machine or missed on a noisy one, a
// governor read from the wrong CPU folder, or a sentence that no longer tells the user what to do.

#include "run/stability.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>

#include "support/test_support.hpp"

namespace benchwatch::run {
namespace {

using testing::TemporaryDirectory;
using testing::write_text;

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

TEST(Stability, ADebugGoogleBenchmarkBuiltByTheUserIsAWarning) {
    const StabilityWarning debug{StabilityIssue::DebugHarness,
                                 "Google Benchmark's library is a debug build (compiled without "
                                 "NDEBUG); build it and the benchmarks with "
                                 "-DCMAKE_BUILD_TYPE=Release so that the times are "
                                 "representative."};
    TemporaryDirectory folder("benchwatch-stability");
    const auto own_build = folder.path() / "bench_with_its_own_library";
    write_text(own_build, std::string("\x7f"
                                      "ELF...libbenchmark.so.1.8.3...libc.so.6"));
    EXPECT_EQ(harness_warning({{"gbench.library_build_type", "debug"}}, {}), debug);
    EXPECT_EQ(harness_warning({{"gbench.library_build_type", "debug"}}, {own_build}), debug);
    EXPECT_EQ(harness_warning({{"gbench.library_build_type", "release"}}, {}), std::nullopt);
    EXPECT_EQ(harness_warning({}, {}), std::nullopt);
}

TEST(Stability, DebiansGoogleBenchmarkSaysDebugButIsNoWarning) {
    TemporaryDirectory folder("benchwatch-stability");
    const auto linked = folder.path() / "bench";
    write_text(linked, std::string("\x7f"
                                   "ELF...libbenchmark.so.1debian\0libc.so.6"));
    EXPECT_TRUE(links_debian_google_benchmark(linked));
    EXPECT_EQ(harness_warning({{"gbench.library_build_type", "debug"}},
                              {folder.path() / "missing", folder.path(), linked}),
              std::nullopt);
}

TEST(Stability, TheLibrarysNameIsFoundAcrossBlocksAndOnlyInRegularFiles) {
    TemporaryDirectory folder("benchwatch-stability");
    // The name cut by the end of the first 64 KiB block read, then one just past the 8 MiB read.
    const auto across = folder.path() / "across";
    write_text(across, std::string(65536 - 10, 'x') + "libbenchmark.so.1debian");
    EXPECT_TRUE(links_debian_google_benchmark(across));
    const auto too_far = folder.path() / "too_far";
    write_text(too_far, std::string(std::size_t{8} << 20, 'x') + "libbenchmark.so.1debian");
    EXPECT_FALSE(links_debian_google_benchmark(too_far));
    EXPECT_FALSE(links_debian_google_benchmark(folder.path()));
    EXPECT_FALSE(links_debian_google_benchmark(folder.path() / "missing"));
    // A FIFO named as the program is not waited on.
    const auto fifo = folder.path() / "fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_FALSE(links_debian_google_benchmark(fifo));
}

TEST(Stability, HarnessProgramsAreTheReportedOneAndTheCommandsWords) {
    const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
    ::setenv("PATH", "/opt/a:/opt/b", 1);
    struct RestorePath {
        const std::string& old;
        ~RestorePath() { ::setenv("PATH", old.c_str(), 1); }
    } restore{old_path};
    EXPECT_EQ(harness_programs("build/bench", {"chrt", "--fifo", "1", "./bench"}, "/w"),
              (std::vector<std::filesystem::path>{"/w/build/bench", "/w/chrt", "/w/--fifo", "/w/1",
                                                  "/w/./bench", "/opt/a/chrt", "/opt/b/chrt"}));
    EXPECT_EQ(harness_programs("/abs/bench", {"build/bench"}, "/w"),
              (std::vector<std::filesystem::path>{"/abs/bench", "/w/build/bench"}));
    EXPECT_EQ(harness_programs("", {}, "/w"), std::vector<std::filesystem::path>{});
}

TEST(Stability, FewSamplesNameTheBenchmarks) {
    EXPECT_EQ(sample_warning({with_samples("a", 2), with_samples("b", 3)}),
              (StabilityWarning{StabilityIssue::FewSamples,
                                "1 benchmark has fewer than 3 samples (a); run the harness 3 times "
                                "(benchwatch run --repetitions 3) or have it repeat each benchmark "
                                "(Google Benchmark: --benchmark_repetitions=3) so that the minimum "
                                "is meaningful."}));
    const auto many =
        sample_warning({with_samples("a", 1), with_samples("b", 2), with_samples("c", 0),
                        with_samples("d", 1), with_samples("e", 2)});
    ASSERT_TRUE(many);
    EXPECT_EQ(many->message,
              "5 benchmarks have fewer than 3 samples (a, b, c and 2 more); run the harness 3 "
              "times (benchwatch run --repetitions 3) or have it repeat each benchmark (Google "
              "Benchmark: --benchmark_repetitions=3) so that the minimum is meaningful.");
}

TEST(Stability, EnoughOrUnknownSamplesGiveNoWarning) {
    model::Result without_summary;
    without_summary.benchmark = "x";
    EXPECT_EQ(sample_warning({with_samples("a", 3), without_summary}), std::nullopt);
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
