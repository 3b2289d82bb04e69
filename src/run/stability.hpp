#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"
#include "model/run.hpp"

namespace benchwatch::run {

// What makes a run's figures less trustworthy than they could be.
enum class StabilityIssue { CpuGovernor, HighLoad, DebugHarness, FewSamples };

// "cpu-governor", "high-load", "debug-harness" or "few-samples", for JSON and the store.
const char* to_string(StabilityIssue issue);

// One stability warning: its kind and one sentence saying what to do about it.
struct StabilityWarning {
    StabilityIssue issue;
    std::string message;

    friend bool operator==(const StabilityWarning&, const StabilityWarning&) = default;
};

// A warning when any governor is not "performance" (one per distinct governor, naming how many
// CPUs use it); none when `governors` is empty (no cpufreq on this machine).
std::vector<StabilityWarning> governor_warnings(const std::vector<std::string>& governors);

// The share of a machine's cores that other work may keep busy, on average while the benchmarks
// run, before the run is said to be recorded under load: a quarter, and at least half a core.
inline constexpr double kCompetingShare = 0.25;
inline constexpr double kCompetingCoresFloor = 0.5;

// What the machine's and this process's CPU clocks read at one moment, to tell how busy other
// work kept the machine between two of them (competing_cores()).
struct CpuReading {
    // The CPU time of the whole machine spent on anything but idling, in seconds since boot:
    // /proc/stat's user, nice, system, irq, softirq and steal (a hypervisor running another
    // guest on this one's CPUs); std::nullopt where /proc/stat cannot be read.
    std::optional<double> machine_busy_seconds;
    // The CPU time of this process and of the children it has waited for (getrusage).
    double own_seconds = 0;
    // A steady clock, in seconds.
    double wall_seconds = 0;
    // How far the machine's busy time may be off between two readings: it counts whole clock
    // ticks on every core, so by up to one tick per core and one more.
    double machine_resolution_seconds = 0;
};

// The machine's busy CPU time in seconds from `proc`/stat's first line; std::nullopt when it
// cannot be read or parsed.
std::optional<double> read_machine_busy_seconds(const std::filesystem::path& proc = "/proc");

// Reads the clocks now: read_machine_busy_seconds(`proc`), this process's CPU time and that of
// its waited-for children, and the steady clock.
CpuReading read_cpu(const std::filesystem::path& proc = "/proc");

// How many cores, at least, were busy on average between `before` and `after` with work other
// than this process and the children it waited for: the machine's busy time less this process's
// and less `after`'s resolution, over the wall time, never below 0, so that a run of a few
// milliseconds is never taken for one under load; std::nullopt when either reading has no machine
// clock or no time passed. Example: 3.1 s of the machine's CPU time over 2 s of wall time, 1 s
// of it this process's, a resolution of 0.1 s: (3.1 − 1 − 0.1) / 2 = 1 core.
std::optional<double> competing_cores(const CpuReading& before, const CpuReading& after);

// A warning when other work kept more than kCompetingShare of `cores` (and more than
// kCompetingCoresFloor) busy on average while the benchmarks ran: a measure of the run itself,
// where the load average lags by a minute and counts the benchmarks' own threads.
std::optional<StabilityWarning> competing_work_warning(double busy_cores, int cores);

// competing_work_warning() for the other work since `before` (read_cpu() then) on this machine's
// cores: what `run` and each backfilled commit say of the suite they just ran.
std::optional<StabilityWarning> competing_work_since(const CpuReading& before);

// The shared Google Benchmark library of Debian's libbenchmark1debian package, which Ubuntu's
// package is built from too: the soname that every program linked with it names.
inline constexpr std::string_view debian_google_benchmark_soname = "libbenchmark.so.1debian";

// Whether `path` is a regular file whose first `limit` bytes hold `needle` (not empty); false for
// anything that is not a regular file or cannot be read. Reads in blocks, never the whole file at
// once. Example: file_contains("/usr/bin/true", "GLIBC_", 1 << 20) == true.
bool file_contains(const std::filesystem::path& path, std::string_view needle, std::size_t limit);

// Whether `program` is a regular file that names debian_google_benchmark_soname in its first
// 8 MiB, where an executable's dynamic section keeps the names of the libraries it needs. False
// for anything that is not a regular file or cannot be read; only reads, never runs it.
bool links_debian_google_benchmark(const std::filesystem::path& program);

// The files that may be the program behind a harness's results, for harness_warning():
// `reported`, the program the results file names (Google Benchmark's context "executable";
// skipped when empty), and every word of the command that ran it (`words`: a shell command split
// at spaces, or argv), each taken relative to `directory`, where the command ran; a first word
// without '/' is also looked up on PATH.
std::vector<std::filesystem::path> harness_programs(std::string_view reported,
                                                    const std::vector<std::string>& words,
                                                    const std::filesystem::path& directory);

// A warning when the harness says its Google Benchmark library is a debug build (context
// "gbench.library_build_type" is "debug": built without NDEBUG) and none of `programs` links
// Debian's shared library. Debian builds that library optimised but without NDEBUG, so it always
// says "debug", which says nothing of the benchmarks' own build and cannot be acted on; a library
// built by the user can be rebuilt in Release.
std::optional<StabilityWarning> harness_warning(const model::Environment& context,
                                                const std::vector<std::filesystem::path>& programs);

// A warning naming the results with fewer than minimum_samples samples (the first three, then how
// many more).
std::optional<StabilityWarning> sample_warning(const std::vector<model::Result>& results);

// Every warning stored with a run: `machine` (the machine's, taken before anything ran), then
// harness_warning() of the harness's `context` and `programs` and sample_warning() of its
// `results` when they apply.
std::vector<StabilityWarning> run_warnings(std::vector<StabilityWarning> machine,
                                           const model::Environment& context,
                                           const std::vector<std::filesystem::path>& programs,
                                           const std::vector<model::Result>& results);

// The scaling governor of every CPU with cpufreq under `sys`, in CPU order; empty without cpufreq.
std::vector<std::string> read_governors(const std::filesystem::path& sys = "/sys");

// The governor warnings of the machine described under `sys`: what `run` checks before it starts.
std::vector<StabilityWarning> machine_warnings(const std::filesystem::path& sys = "/sys");

// The fewest samples a result needs before its minimum is worth comparing: with three, one
// disturbed repetition cannot set the minimum, and `run --repetitions 3` of a harness that runs
// each benchmark once gives them.
inline constexpr std::int64_t minimum_samples = 3;

}  // namespace benchwatch::run
