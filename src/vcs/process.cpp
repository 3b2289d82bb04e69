#include "vcs/process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>

#include "vcs/git.hpp"

extern char** environ;

namespace benchwatch::vcs {

namespace {

// Owns one file descriptor and closes it when it goes out of scope.
class FileDescriptor {
  public:
    FileDescriptor() = default;
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    ~FileDescriptor() { reset(); }

    int get() const { return fd_; }
    void reset(int fd = -1) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = fd;
    }

  private:
    int fd_ = -1;
};

// Both ends of a pipe, closed on exec so that no other child inherits them.
struct Pipe {
    FileDescriptor read_end;
    FileDescriptor write_end;
};

// Creates a pipe; false (with errno set) when the system has no descriptors left.
bool open_pipe(Pipe& pipe) {
    std::array<int, 2> ends{};
    if (::pipe2(ends.data(), O_CLOEXEC) != 0) return false;
    pipe.read_end.reset(ends[0]);
    pipe.write_end.reset(ends[1]);
    return true;
}

// posix_spawn_file_actions_t with its destruction tied to scope.
class FileActions {
  public:
    FileActions() { ::posix_spawn_file_actions_init(&actions_); }
    FileActions(const FileActions&) = delete;
    FileActions& operator=(const FileActions&) = delete;
    ~FileActions() { ::posix_spawn_file_actions_destroy(&actions_); }
    posix_spawn_file_actions_t* get() { return &actions_; }

  private:
    posix_spawn_file_actions_t actions_{};
};

// The inherited environment with `overrides` replacing or adding variables, as "KEY=VALUE".
std::vector<std::string> child_environment(const std::map<std::string, std::string>& overrides) {
    std::vector<std::string> variables;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
        const std::string_view variable(*entry);
        const auto key = variable.substr(0, variable.find('='));
        if (!overrides.contains(std::string(key))) variables.emplace_back(variable);
    }
    for (const auto& [key, value] : overrides) variables.push_back(key + "=" + value);
    return variables;
}

// Null-terminated array of pointers into `strings`, as exec wants.
std::vector<char*> c_strings(std::vector<std::string>& strings) {
    std::vector<char*> pointers;
    pointers.reserve(strings.size() + 1);
    for (auto& text : strings) pointers.push_back(text.data());
    pointers.push_back(nullptr);
    return pointers;
}

// posix_spawnattr_t with its destruction tied to scope.
class SpawnAttributes {
  public:
    SpawnAttributes() { ::posix_spawnattr_init(&attributes_); }
    SpawnAttributes(const SpawnAttributes&) = delete;
    SpawnAttributes& operator=(const SpawnAttributes&) = delete;
    ~SpawnAttributes() { ::posix_spawnattr_destroy(&attributes_); }
    posix_spawnattr_t* get() { return &attributes_; }

  private:
    posix_spawnattr_t attributes_{};
};

// A descriptor that poll() sees readable once `pid` exits; -1 where the kernel has none. Called
// through syscall() because glibc 2.36's <sys/pidfd.h> declares pidfd_open without C linkage.
int open_pidfd(pid_t pid) {
    return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
}

using Clock = std::chrono::steady_clock;

// Milliseconds poll() may sleep before `deadline`, rounded up so that it never wakes early;
// -1 (forever) without a deadline.
int poll_timeout(const std::optional<Clock::time_point>& deadline) {
    if (!deadline) return -1;
    const auto left = *deadline - Clock::now();
    if (left <= Clock::duration::zero()) return 0;
    const auto milliseconds = std::chrono::ceil<std::chrono::milliseconds>(left).count();
    return static_cast<int>(std::min<std::int64_t>(milliseconds, 60'000));
}

// Reads the pipes that are open until they close and the child has exited (seen through
// `child`, a pidfd, or not watched when it is -1), never blocking on one pipe while another
// fills. Returns false when `deadline` passed first.
bool collect(int out_fd, int err_fd, int child, const std::optional<Clock::time_point>& deadline,
             SpawnOutcome& outcome) {
    std::array<pollfd, 3> watched{{{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}, {child, POLLIN, 0}}};
    std::array<std::string*, 2> sinks{&outcome.out, &outcome.err};
    std::array<char, 65536> buffer{};
    const auto still_watching = [&] {
        return std::any_of(watched.begin(), watched.end(),
                           [](const pollfd& p) { return p.fd >= 0; });
    };
    while (still_watching()) {
        const int ready = ::poll(watched.data(), watched.size(), poll_timeout(deadline));
        if (ready < 0) {
            if (errno == EINTR) continue;
            return true;
        }
        if (deadline && Clock::now() >= *deadline) return false;
        for (std::size_t i = 0; i < sinks.size(); ++i) {
            if (watched[i].fd < 0 || watched[i].revents == 0) continue;
            const auto count = ::read(watched[i].fd, buffer.data(), buffer.size());
            if (count > 0) {
                sinks[i]->append(buffer.data(), static_cast<std::size_t>(count));
            } else if (count == 0 || errno != EINTR) {
                watched[i].fd = -1;  // poll() ignores negative descriptors
            }
        }
        if (watched[2].fd >= 0 && watched[2].revents != 0) watched[2].fd = -1;
    }
    return true;
}

// The process group being waited for, for the signal handler; 0 when there is none.
std::atomic<pid_t> waited_group{0};
static_assert(std::atomic<pid_t>::is_always_lock_free);

extern "C" void end_waited_group_then_die(int signal) {
    if (const pid_t group = waited_group.load(); group > 0) ::kill(-group, SIGKILL);
    ::signal(signal, SIG_DFL);
    ::raise(signal);
}

}  // namespace

void end_child_groups_with_this_process() {
    struct sigaction action {};
    action.sa_handler = end_waited_group_then_die;
    ::sigemptyset(&action.sa_mask);
    for (const int signal : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(signal, &action, nullptr);
}

SpawnOutcome spawn_and_collect(const SpawnRequest& request) {
    assert(!request.argv.empty());
    const auto& program = request.argv.front();
    SpawnOutcome outcome;
    std::error_code ignored;
    if (!request.directory.empty() && !std::filesystem::is_directory(request.directory, ignored)) {
        outcome.start_error = fmt::format("cannot run '{}' in {}: no such directory", program,
                                          request.directory.string());
        return outcome;
    }
    const bool capture_out = request.stdout_mode == OutputMode::capture;
    Pipe out_pipe;
    Pipe err_pipe;
    if ((capture_out && !open_pipe(out_pipe)) || !open_pipe(err_pipe)) {
        outcome.start_error = fmt::format("cannot run '{}': {}", program, std::strerror(errno));
        return outcome;
    }

    FileActions actions;
    ::posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    if (capture_out) {
        ::posix_spawn_file_actions_adddup2(actions.get(), out_pipe.write_end.get(), STDOUT_FILENO);
    } else if (request.stdout_mode == OutputMode::discard) {
        ::posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    }
    ::posix_spawn_file_actions_adddup2(actions.get(), err_pipe.write_end.get(), STDERR_FILENO);
    if (!request.directory.empty())
        ::posix_spawn_file_actions_addchdir_np(actions.get(), request.directory.c_str());
    SpawnAttributes attributes;
    if (request.own_process_group) {
        ::posix_spawnattr_setflags(attributes.get(), POSIX_SPAWN_SETPGROUP);
        ::posix_spawnattr_setpgroup(attributes.get(), 0);
    }

    auto arguments = request.argv;
    auto argument_pointers = c_strings(arguments);
    auto variables = child_environment(request.environment);
    auto variable_pointers = c_strings(variables);

    pid_t pid = 0;
    const auto started_at = Clock::now();
    const int spawn_error = ::posix_spawnp(&pid, program.c_str(), actions.get(), attributes.get(),
                                           argument_pointers.data(), variable_pointers.data());
    out_pipe.write_end.reset();
    err_pipe.write_end.reset();
    if (spawn_error != 0) {
        outcome.start_error =
            fmt::format("cannot run '{}': {}", program, std::strerror(spawn_error));
        return outcome;
    }
    outcome.started = true;
    if (request.own_process_group) waited_group.store(pid);

    std::optional<Clock::time_point> deadline;
    if (request.timeout) deadline = started_at + *request.timeout;
    // Without a pidfd (old kernels) the exit is not watched: wait4 below blocks instead.
    FileDescriptor child;
    if (deadline) child.reset(open_pidfd(pid));
    if (!collect(out_pipe.read_end.get(), err_pipe.read_end.get(), child.get(), deadline,
                 outcome)) {
        outcome.timed_out = true;
        ::kill(request.own_process_group ? -pid : pid, SIGKILL);
    }
    while (::wait4(pid, &outcome.wait_status, 0, &outcome.usage) < 0) {
        if (errno != EINTR) break;
    }
    if (request.own_process_group) waited_group.store(0);
    outcome.wall = Clock::now() - started_at;
    return outcome;
}

ProcessOutput run_process(const std::vector<std::string>& argv,
                          const std::filesystem::path& directory,
                          const std::map<std::string, std::string>& environment) {
    SpawnRequest request{.argv = argv, .directory = directory, .environment = environment};
    auto outcome = spawn_and_collect(request);
    ProcessOutput output;
    if (!outcome.started) {
        output.err = std::move(outcome.start_error);
        return output;
    }
    output.exit_code = WIFEXITED(outcome.wait_status) ? WEXITSTATUS(outcome.wait_status) : -1;
    output.out = std::move(outcome.out);
    output.err = std::move(outcome.err);
    return output;
}

ProcessOutput run_process(const std::vector<std::string>& argv,
                          const std::filesystem::path& directory) {
    return run_process(argv, directory, {});
}

}  // namespace benchwatch::vcs
