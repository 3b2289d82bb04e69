#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
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

// A warning when the 1-minute load average at start exceeds half the core count.
std::optional<StabilityWarning> load_warning(double load_average, int cores);

// A warning when the harness says it is a debug build (context "gbench.library_build_type").
std::optional<StabilityWarning> harness_warning(const model::Environment& context);

// A warning naming the results with a sample count below 5 (the first three, then how many more).
std::optional<StabilityWarning> sample_warning(const std::vector<model::Result>& results);

// Every warning stored with a run: `machine` (the machine's, taken before anything ran), then
// harness_warning() of the harness's `context` and sample_warning() of its `results` when they
// apply.
std::vector<StabilityWarning> run_warnings(std::vector<StabilityWarning> machine,
                                           const model::Environment& context,
                                           const std::vector<model::Result>& results);

// The scaling governor of every CPU with cpufreq under `sys`, in CPU order; empty without cpufreq.
std::vector<std::string> read_governors(const std::filesystem::path& sys = "/sys");

// The 1-minute load average of `proc`/loadavg; std::nullopt when it cannot be read.
std::optional<double> read_load_average(const std::filesystem::path& proc = "/proc");

// The governor warnings, then the load warning, of the machine described under `sys` and `proc`
// with `cores` CPUs online: what `run` checks before it starts.
std::vector<StabilityWarning> machine_warnings(int cores, const std::filesystem::path& sys = "/sys",
                                               const std::filesystem::path& proc = "/proc");

// The fewest samples a result needs before its minimum is worth comparing.
inline constexpr std::int64_t minimum_samples = 5;

}  // namespace benchwatch::run
