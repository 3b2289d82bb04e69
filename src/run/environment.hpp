#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/environment_keys.hpp"
#include "model/error.hpp"
#include "model/run.hpp"

namespace benchwatch::run {

// Where the machine describes itself; tests point these at fixture folders.
struct SystemPaths {
    std::filesystem::path proc = "/proc";
    std::filesystem::path sys = "/sys";
    std::filesystem::path etc = "/etc";
};

// The machine's description: "os" (PRETTY_NAME of etc/os-release), "kernel" (uname -r), "arch",
// "cpu" (the first "model name" of proc/cpuinfo), "cores" (online CPUs), "memory" (MemTotal of
// proc/meminfo as "23.4 GiB"). Keys whose source is missing are left out.
model::Environment machine_environment(const SystemPaths& paths = {});

// The toolchains whose versions a run of `commands` (each an argv) records when the config names
// none: the one each command's program belongs to ("go" for go, "rustc" for cargo, "python3" for
// python, pytest or asv, "julia", "java" for java, mvn or gradle, "dotnet"), and the C and C++
// compilers (gcc, g++, clang, clang++) for any other program, such as a built benchmark binary.
// Sorted, without repeats.
std::vector<std::string> default_compilers(std::span<const std::vector<std::string>> commands);

// The version of each of `compilers` found on PATH, as "compiler.<name>" = the version its
// `--version` output names (model::version_in; `go version` for go, `-version` for java).
// Missing or failing ones, and ones whose output names no version, are left out; each gets at
// most `timeout`.
model::Environment compiler_environment(
    std::span<const std::string> compilers,
    std::chrono::duration<double> timeout = std::chrono::seconds(5));

// "gpu" and "gpu.driver" from nvidia-smi, or "gpu" from rocm-smi, when either is on PATH.
model::Environment gpu_environment(std::chrono::duration<double> timeout = std::chrono::seconds(5));

// "git.dirty" = "yes" or "no" for the repository containing `directory`; empty outside one.
model::Environment git_environment(const std::filesystem::path& directory);

// Everything above, for a run started in `directory` that records `compilers`' versions.
model::Environment capture_environment(const std::filesystem::path& directory,
                                       std::span<const std::string> compilers,
                                       const SystemPaths& paths = {});

// An --env-command that failed or printed a line that is not KEY=VALUE. what() is one line:
// "--env-command output line 3 is not KEY=VALUE: 'hello'", "--env-command 'pkg-versions'
// failed: exit 3: <first line of its stderr>".
class EnvCommandError : public model::Error {
  public:
    explicit EnvCommandError(const std::string& message)
        : Error(model::ErrorKind::MeasurementAborted, message) {}
};

// The KEY=VALUE lines of an --env-command's output (blank lines skipped, spaces around keys and
// values trimmed); throws EnvCommandError at the first other line or empty key.
model::Environment parse_environment_lines(std::string_view output);

// Runs `command_text` with /bin/sh in `directory` (stdin empty, at most `timeout`) and reads
// its output as parse_environment_lines() does; throws EnvCommandError when it fails.
model::Environment environment_from_command(
    std::string_view command_text, const std::filesystem::path& directory,
    std::chrono::duration<double> timeout = std::chrono::seconds(60));

// The keys that identify a machine rather than a toolchain (defined in the model layer, which
// the compare layer and the report read too).
using model::is_machine_key;
using model::machine_keys;

// The value of `key` in an os-release text (quotes removed); std::nullopt when absent.
std::optional<std::string> os_release_value(std::string_view os_release, std::string_view key);

// The value of the first "<field> : value" line of /proc/cpuinfo or /proc/meminfo text.
std::optional<std::string> proc_field(std::string_view text, std::string_view field);

// "23.4 GiB" for a MemTotal value such as "24536780 kB".
std::optional<std::string> memory_in_gib(std::string_view mem_total);

// The number of CPUs in a cpu list such as "0-3,8-11" (sys/devices/system/cpu/online).
std::optional<int> count_cpu_list(std::string_view cpu_list);

}  // namespace benchwatch::run
