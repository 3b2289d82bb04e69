// What could break: a warning raised on a well-tuned machine or missed on a noisy one, a
// governor read from the wrong CPU folder, or a sentence that no longer tells the user what to do.

#include "run/stability.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "run/timed_process.hpp"
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

TEST(Stability, MachineBusyTimeIsEverythingButIdlingAndWaiting) {
    // user 300 + nice 20 + system 80 + irq 10 + softirq 15 + steal 25 ticks; idle 1000, iowait
    // 5 and guest 7 (already in user) are not busy time.
    const auto busy = read_machine_busy_seconds(fixtures / "machine/proc");
    ASSERT_TRUE(busy.has_value());
    EXPECT_DOUBLE_EQ(*busy, 450.0 / static_cast<double>(::sysconf(_SC_CLK_TCK)));
    EXPECT_EQ(read_machine_busy_seconds(fixtures / "nowhere"), std::nullopt);
    EXPECT_EQ(read_cpu(fixtures / "nowhere").machine_busy_seconds, std::nullopt);
}

TEST(Stability, CompetingCoresLeaveOutThisProcessAndItsChildren) {
    // 3 s of the machine's CPU over 2 s, 1 s of it ours: (3 − 1) / 2 = 1 core.
    EXPECT_EQ(competing_cores({100.0, 4.0, 50.0}, {103.0, 5.0, 52.0}), 1.0);
    // Less the machine clock's resolution: (3.1 − 1 − 0.1) / 2 = 1 core.
    EXPECT_NEAR(*competing_cores({100.0, 4.0, 50.0}, {103.1, 5.0, 52.0, 0.1}), 1.0, 1e-12);
    // A run of 5 ms in which the machine's clock moved one tick of 10 ms on each of 2 cores: within
    // its resolution of 3 ticks, so not 4 cores of other work.
    EXPECT_EQ(competing_cores({100.0, 4.0, 50.0}, {100.02, 4.0, 50.005, 0.03}), 0.0);
    // The machine's ticks are coarser than our own clock: never below 0.
    EXPECT_EQ(competing_cores({100.0, 4.0, 50.0}, {100.5, 5.0, 52.0}), 0.0);
    EXPECT_EQ(competing_cores({std::nullopt, 4.0, 50.0}, {103.0, 5.0, 52.0}), std::nullopt);
    EXPECT_EQ(competing_cores({100.0, 4.0, 50.0}, {103.0, 5.0, 50.0}), std::nullopt);
}

TEST(Stability, OtherWorkOnAQuarterOfTheCoresIsAWarning) {
    EXPECT_EQ(competing_work_warning(1.34, 4),
              (StabilityWarning{StabilityIssue::HighLoad,
                                "Other work kept 1.3 of 4 cores busy while the benchmarks ran; "
                                "stop it, or measure base and head side by side (benchwatch "
                                "compare --paired), so that it does not compete with the "
                                "benchmarks."}));
    EXPECT_EQ(competing_work_warning(1.0, 4), std::nullopt);  // exactly a quarter is still fine
    EXPECT_EQ(competing_work_warning(0.5, 2), std::nullopt);  // at least half a core: 0.5
    EXPECT_NE(competing_work_warning(0.51, 2), std::nullopt);
    EXPECT_EQ(competing_work_warning(0.4, 1), std::nullopt);    // half a core, not a quarter
    EXPECT_EQ(competing_work_warning(15.9, 64), std::nullopt);  // 16 of 64 would be a quarter
}

TEST(Stability, AMeasuredRunCountsOtherWorkButNotItsOwnChildren) {
    // This test's own child counts to 400,000 in the shell, some 0.4 s of CPU however busy the
    // machine: waited for, it is ours, so it does not compete. What it used is at least the CPU
    // time its own rusage says.
    const auto before = read_cpu();
    ASSERT_TRUE(before.machine_busy_seconds.has_value());
    const auto spin =
        run_timed({{"/bin/sh", "-c", "i=0; while [ $i -lt 400000 ]; do i=$((i + 1)); done"}});
    ASSERT_TRUE(spin.succeeded());
    const auto after = read_cpu();
    EXPECT_GT(spin.user_seconds + spin.system_seconds, 0.1);
    EXPECT_GE(after.own_seconds - before.own_seconds,
              0.99 * (spin.user_seconds + spin.system_seconds));
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

TEST(Stability, MachineWarningsAreTheGovernors) {
    const auto warnings = machine_warnings(fixtures / "machine/sys");
    ASSERT_EQ(warnings.size(), 2U);  // powersave, schedutil
    EXPECT_EQ(warnings[0].issue, StabilityIssue::CpuGovernor);
    EXPECT_EQ(warnings[1].issue, StabilityIssue::CpuGovernor);
    EXPECT_TRUE(machine_warnings(fixtures / "performance/sys").empty());
}

TEST(Stability, IssuesHaveStableNames) {
    EXPECT_STREQ(to_string(StabilityIssue::CpuGovernor), "cpu-governor");
    EXPECT_STREQ(to_string(StabilityIssue::HighLoad), "high-load");
    EXPECT_STREQ(to_string(StabilityIssue::DebugHarness), "debug-harness");
    EXPECT_STREQ(to_string(StabilityIssue::FewSamples), "few-samples");
}

}  // namespace
}  // namespace benchwatch::run
