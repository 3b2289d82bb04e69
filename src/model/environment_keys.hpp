#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace benchwatch::model {

// The environment keys that identify a machine rather than a toolchain, in the order a report
// describes the machine: shown once, not diffed every run.
inline constexpr std::array<std::string_view, 8> machine_keys = {
    "os", "kernel", "arch", "cpu", "cores", "memory", "gpu", "gpu.driver"};

// True when `key` is one of machine_keys.
bool is_machine_key(std::string_view key);

// Where benchwatch keeps what it knows of how a run was measured, as environment keys under
// "benchwatch.": compare checks them itself instead of listing them as environment changes.
inline constexpr std::string_view measurement_key_prefix = "benchwatch.";

// How many runs of the harness a run's results are the best of: "1" for a run of the [measure]
// recipe (backfill, bisect) or `run` without --repetitions, "3" for `run --repetitions 3`.
inline constexpr std::string_view repetitions_key = "benchwatch.repetitions";

// True when `key` is one of benchwatch's own keys about how a run was measured.
constexpr bool is_measurement_key(std::string_view key) {
    return key.starts_with(measurement_key_prefix);
}

// Which statistic of the harness's samples a run's values are: "minimum", "median", "mean", or
// "estimate" (whichever BenchmarkTools.jl estimate the suite saved). Set by the readers whose
// statistic is known and by the import of another tool's history, so a change of statistic is
// an environment change rather than a step blamed on a commit.
inline constexpr std::string_view statistic_key = "statistic";

// Where a toolchain's version is kept: "compiler.<name>".
inline constexpr std::string_view compiler_key_prefix = "compiler.";

// The version a tool's `--version` output names: the last run of digits with dots ("12.2.0",
// "1.99") on the first line that holds one; std::nullopt when no line does. Banner lines such as
// "nvcc: NVIDIA (R) Cuda compiler driver" are skipped, so nvcc's "release 12.2, V12.2.140" gives
// "12.2.140". Example: version_in("g++ (Debian 12.2.0-14) 12.2.0") == "12.2.0".
std::optional<std::string> version_in(std::string_view output);

}  // namespace benchwatch::model
