#pragma once

#include <sys/resource.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace benchwatch::vcs {

// Where a child's standard output goes: whole into SpawnOutcome::out (for output that is read, up
// to max_captured_output_bytes), into SpawnOutcome::out cut as standard error is (for output that
// is only shown or logged), to this process's stdout, or to /dev/null.
enum class OutputMode { capture, log, inherit, discard };

// The most of a child's standard output kept in OutputMode::capture: 256 MiB, the size of the
// largest results file benchwatch reads. A child that prints more is killed (its process group
// when it leads one) and SpawnOutcome::out_overflowed is set.
inline constexpr std::size_t max_captured_output_bytes = std::size_t{256} << 20;

// What is kept of a child's standard error, and of its standard output in OutputMode::log: the
// first and the last 1 MiB, joined by a line "… N bytes dropped …" when it printed more.
inline constexpr std::size_t kept_log_head_bytes = std::size_t{1} << 20;
inline constexpr std::size_t kept_log_tail_bytes = std::size_t{1} << 20;

// How long a child's output is still read after it has exited, while processes it started keep
// the pipes open; then the reading stops (and, for a child leading a process group, those
// processes are ended).
inline constexpr std::chrono::milliseconds output_grace_after_exit{500};

// One program to start without a shell, with stdin from /dev/null (or a file) and stderr
// captured.
struct SpawnRequest {
    std::vector<std::string> argv{};                   // argv[0] is looked up on PATH
    std::filesystem::path directory{};                 // empty: this process's directory
    std::filesystem::path stdin_file{};                // read as stdin; empty: /dev/null
    std::map<std::string, std::string> environment{};  // set on top of the inherited variables
    OutputMode stdout_mode = OutputMode::capture;
    // The child leads a new process group, ended with it: when it exits (or times out) every
    // process left in the group, and every process descended from it that left the group
    // (setsid, double fork), is killed with SIGKILL before spawn_and_collect returns.
    bool own_process_group = false;
    // Past this, the child (its whole group when it leads one) is killed with SIGKILL.
    std::optional<std::chrono::nanoseconds> timeout{};
};

// How a spawned program ended, with what it wrote and what it cost.
struct SpawnOutcome {
    bool started = false;  // false: `start_error` says why, nothing else is meaningful
    std::string start_error;
    int wait_status = 0;  // the status wait4 returned, for WIFEXITED and friends
    bool timed_out = false;
    rusage usage{};                   // from wait4: the child and the children it waited for
    std::chrono::nanoseconds wall{};  // from just before spawning to the child's exit
    // Standard output, in OutputMode::capture and log only; empty when out_overflowed.
    std::string out;
    std::string err;  // standard error: its first and last kept_log_*_bytes
    // In OutputMode::capture, the child printed more than max_captured_output_bytes and was
    // killed for it.
    bool out_overflowed = false;
};

// Starts `request.argv` and reads its stdout and stderr with poll() until both close and the
// child exits (or the timeout passes, or output_grace_after_exit after its exit), so that no pipe
// can fill up and stall it. A program that cannot be started gives started == false and
// start_error "cannot run 'tool': No such file or directory" (or "… in DIR: no such directory").
SpawnOutcome spawn_and_collect(const SpawnRequest& request);

// From now on, SIGINT, SIGTERM and SIGHUP first kill the process group of the child that
// spawn_and_collect is waiting for, when it leads one, and the processes that left it, and then
// end this process as the signal would have. A child in a group of its own gets no Ctrl-C from
// the terminal, so without this it would outlive an interrupted benchwatch and go on building or
// measuring.
void end_child_groups_with_this_process();

}  // namespace benchwatch::vcs
