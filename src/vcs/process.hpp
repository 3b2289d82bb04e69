#pragma once

#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace benchwatch::vcs {

// Where a child's standard output goes: into SpawnOutcome::out, to this process's stdout, or
// to /dev/null.
enum class OutputMode { capture, inherit, discard };

// One program to start without a shell, with stdin from /dev/null and stderr captured.
struct SpawnRequest {
    std::vector<std::string> argv{};                   // argv[0] is looked up on PATH
    std::filesystem::path directory{};                 // empty: this process's directory
    std::map<std::string, std::string> environment{};  // set on top of the inherited variables
    OutputMode stdout_mode = OutputMode::capture;
    bool own_process_group = false;  // the child leads a new process group
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
    std::chrono::nanoseconds wall{};  // from just before spawning to wait4's return
    std::string out;                  // empty unless stdout_mode is capture
    std::string err;
};

// Starts `request.argv` and reads its stdout and stderr with poll() until both close and the
// child exits (or the timeout passes), so that no pipe can fill up and stall it. A program that
// cannot be started gives started == false and start_error "cannot run 'tool': No such file or
// directory" (or "… in DIR: no such directory").
SpawnOutcome spawn_and_collect(const SpawnRequest& request);

// From now on, SIGINT, SIGTERM and SIGHUP first kill the process group of the child that
// spawn_and_collect is waiting for, when it leads one, and then end this process as the signal
// would have. A child in a group of its own gets no Ctrl-C from the terminal, so without this it
// would outlive an interrupted benchwatch and go on building or measuring.
void end_child_groups_with_this_process();

}  // namespace benchwatch::vcs
