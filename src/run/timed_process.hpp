#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/error.hpp"
#include "vcs/process.hpp"

namespace benchwatch::run {

// Where a timed command's standard output goes (stderr is always captured, its first and last
// MiB kept: vcs::kept_log_head_bytes, vcs::kept_log_tail_bytes).
using OutputMode = vcs::OutputMode;

// A command to time: argv without a shell, in a directory, with extra environment variables.
struct Command {
    std::vector<std::string> argv{};                   // argv[0] is looked up on PATH
    std::filesystem::path directory{};                 // empty: this process's directory
    std::map<std::string, std::string> environment{};  // set on top of the inherited variables
    OutputMode stdout_mode = OutputMode::capture;
    // Past this the command's whole process group is killed; std::nullopt: no limit.
    std::optional<std::chrono::duration<double>> timeout{};
};

// The most of a command's standard output that is read (OutputMode::capture): 256 MiB.
inline constexpr std::size_t max_output_bytes = vcs::max_captured_output_bytes;

// The argv that runs `text` with /bin/sh: {"/bin/sh", "-c", text}.
std::vector<std::string> shell_argv(std::string_view text);

// The command as one readable line for messages: the shell text of a shell_argv(), otherwise the
// arguments joined by spaces. Example: command_text(shell_argv("a | b")) == "a | b".
std::string command_text(const std::vector<std::string>& argv);

// Whether `argv` is shell_argv() of some text: {"/bin/sh", "-c", text}.
bool is_shell_argv(const std::vector<std::string>& argv);

// The words of a command: the text of a shell_argv() split at spaces, empty words left out;
// otherwise `argv` itself. Example: command_words(shell_argv("a  b")) == {"a", "b"}.
std::vector<std::string> command_words(const std::vector<std::string>& argv);

// What one run of a command did and cost.
struct TimedResult {
    std::optional<int> exit_code;  // set when the command exited
    std::optional<int> signal;     // set when a signal ended it
    bool timed_out = false;        // killed because it ran past the timeout
    // Killed because it printed more than max_output_bytes on standard output (capture mode).
    bool output_overflowed = false;
    double wall_seconds = 0;         // from just before spawning to its exit
    double user_seconds = 0;         // CPU time in user mode, from wait4's rusage
    double system_seconds = 0;       // CPU time in the kernel, from wait4's rusage
    std::int64_t max_rss_bytes = 0;  // peak resident memory (ru_maxrss, KiB × 1024)
    std::string out;                 // empty unless stdout_mode is capture or log
    std::string err;

    // True when the command exited with status 0 in time, its output within bounds.
    bool succeeded() const { return !timed_out && !output_overflowed && exit_code == 0; }
};

// The command could not be started at all (no such program or directory). what() is one line:
// "cannot run 'no-such-tool': No such file or directory".
class StartError : public model::Error {
  public:
    explicit StartError(const std::string& message)
        : Error(model::ErrorKind::Measurement, message) {}
};

// Runs `command` as the leader of a new process group, stdin from /dev/null, reading its output
// with poll() while it runs; when it exits (or times out), what it left running is killed: its
// group, and the processes that left the group (vcs::SpawnRequest::own_process_group). Throws
// StartError when it cannot be started.
TimedResult run_timed(const Command& command);

// The first line of a command's standard error (or output) after any leading line breaks, for
// messages: the reason it gives, if any. Example: first_line_of("\nerror: no file\nusage…")
// == "error: no file".
std::string first_line_of(std::string_view text);

// The last lines of a failed command's error output, for messages, where most programs name
// the cause (a Python traceback ends with it): of `err`, or of `out` where `err` is blank, at
// most 3 lines that are not blank, each without its leading blanks, joined by " | ", at most the
// last 300 bytes of that ("…" where cut), made one printable line (model::printable_line()).
// Example: error_tail("Traceback (most recent call last):\n  File \"b.py\", line 1\n    import
// psutil\nModuleNotFoundError: No module named 'psutil'\n", "") == "File \"b.py\", line 1 |
// import psutil | ModuleNotFoundError: No module named 'psutil'".
std::string error_tail(std::string_view err, std::string_view out);

// What ended a run that did not succeed, for messages: "exit 3", "killed by SIGSEGV",
// "timed out after 5 s", "printed more than 256 MiB on standard output, …"; "" for a run that
// succeeded.
std::string describe_failure(const TimedResult& result, const Command& command);

}  // namespace benchwatch::run
