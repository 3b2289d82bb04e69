#include "vcs/process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
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
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>
#include <unordered_map>

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

// What is kept of one output stream: its first `head` bytes and, past them, its last `tail`
// bytes, counting what falls between. The head is held in pieces of 512 KiB, so that memory
// never holds more than the head and one piece: one string growing by doubling would hold the
// old and the new copy at once, up to twice the head. The pieces stay below 1 MiB, from which
// benchwatch's allocator rounds blocks up to whole 2 MiB huge pages.
class KeptOutput {
  public:
    KeptOutput(std::size_t head, std::size_t tail) : head_limit_(head), tail_limit_(tail) {}

    void append(std::string_view data) {
        const auto to_head = std::min(data.size(), head_limit_ - head_size_);
        for (auto part = data.substr(0, to_head); !part.empty();) {
            if (pieces_.empty() || pieces_.back().size() == piece_bytes) {
                // The first piece grows as needed (most output is small); the next ones are
                // made whole, as growing each would leave its smaller copies behind, freed but
                // too small to hold the next piece.
                if (!pieces_.empty()) pieces_.emplace_back().reserve(piece_bytes);
                if (pieces_.empty()) pieces_.emplace_back();
            }
            auto& piece = pieces_.back();
            const auto taken = std::min(part.size(), piece_bytes - piece.size());
            piece.append(part.substr(0, taken));
            part.remove_prefix(taken);
        }
        head_size_ += to_head;
        data.remove_prefix(to_head);
        if (data.empty()) return;
        beyond_head_ += data.size();
        if (tail_limit_ == 0) return;
        if (data.size() >= tail_limit_) {
            tail_.assign(data.substr(data.size() - tail_limit_));
            return;
        }
        tail_.append(data);
        if (tail_.size() >= 2 * tail_limit_) tail_.erase(0, tail_.size() - tail_limit_);
    }

    // Whether more came than the head holds.
    bool past_head() const { return beyond_head_ > 0; }

    // The head, then "… N bytes dropped …" on a line of its own when some were, then the tail.
    std::string take() {
        if (tail_.size() > tail_limit_) tail_.erase(0, tail_.size() - tail_limit_);
        const auto dropped = beyond_head_ - tail_.size();
        const auto note =
            dropped == 0 ? std::string() : fmt::format("\n… {} bytes dropped …\n", dropped);
        if (pieces_.size() == 1 && note.empty() && tail_.empty()) return std::move(pieces_.front());
        std::string text;
        text.reserve(head_size_ + note.size() + tail_.size());
        for (auto& piece : pieces_) {
            text += piece;
            piece = std::string();  // freed at once, so that the copy adds one piece at most
        }
        text += note;
        text += tail_;
        return text;
    }

  private:
    static constexpr std::size_t piece_bytes = std::size_t{512} << 10;
    std::size_t head_limit_;
    std::size_t tail_limit_;
    std::vector<std::string> pieces_;
    std::size_t head_size_ = 0;
    std::string tail_;
    std::uint64_t beyond_head_ = 0;
};

// The signal that interrupted the wait for a child leading a process group; 0 for none.
std::atomic<int> interrupting_signal{0};

// How collect() ended.
struct Collected {
    bool timed_out = false;                      // the deadline passed before the child exited
    bool out_overflowed = false;                 // stdout went past its cap where that is an error
    std::optional<Clock::time_point> exited_at;  // when the pidfd showed the child's exit
};

// Reads the pipes that are open (-1: not open) until they close and the child has exited (seen
// through `child`, a pidfd, or not watched when it is -1), never blocking on one pipe while
// another fills. Stops early at `deadline`, output_grace_after_exit after the child's exit, when
// stdout passes its head with `out_cap_is_error`, or on an interrupting signal.
Collected collect(int out_fd, int err_fd, int child,
                  const std::optional<Clock::time_point>& deadline, KeptOutput& out,
                  KeptOutput& err, bool out_cap_is_error) {
    std::array<pollfd, 3> watched{{{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}, {child, POLLIN, 0}}};
    std::array<KeptOutput*, 2> sinks{&out, &err};
    std::array<char, 65536> buffer{};
    Collected collected;
    std::optional<Clock::time_point> stop_at = deadline;
    const auto still_watching = [&] {
        return std::any_of(watched.begin(), watched.end(),
                           [](const pollfd& p) { return p.fd >= 0; });
    };
    while (still_watching()) {
        const int ready = ::poll(watched.data(), watched.size(), poll_timeout(stop_at));
        if (ready < 0) {
            if (errno == EINTR && interrupting_signal.load() == 0) continue;
            return collected;
        }
        const auto now = Clock::now();
        if (watched[2].fd >= 0 && watched[2].revents != 0) {
            watched[2].fd = -1;  // poll() ignores negative descriptors
            collected.exited_at = now;
            const auto grace_end = now + output_grace_after_exit;
            stop_at = deadline ? std::min(*deadline, grace_end) : grace_end;
        }
        for (std::size_t i = 0; i < sinks.size(); ++i) {
            if (watched[i].fd < 0 || watched[i].revents == 0) continue;
            const auto count = ::read(watched[i].fd, buffer.data(), buffer.size());
            if (count > 0) {
                sinks[i]->append({buffer.data(), static_cast<std::size_t>(count)});
            } else if (count == 0 || errno != EINTR) {
                watched[i].fd = -1;
            }
        }
        if (out_cap_is_error && out.past_head()) {
            collected.out_overflowed = true;
            return collected;
        }
        if (stop_at && now >= *stop_at) {
            collected.timed_out = !collected.exited_at;
            return collected;
        }
    }
    return collected;
}

// The parent, the state letter and the start time of each process in /proc.
struct ProcessEntry {
    pid_t parent = 0;
    char state = '?';
    // Clock ticks from boot to the process's start.
    unsigned long long started = 0;
};

// /proc/PID/stat's state (field 3), parent (4) and start time (22): "PID (NAME) S PPID …", where
// NAME may hold spaces and ')'.
std::optional<ProcessEntry> read_process_entry(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return std::nullopt;
    const auto name_end = line.rfind(')');
    if (name_end == std::string::npos || name_end + 4 > line.size()) return std::nullopt;
    std::istringstream fields(line.substr(name_end + 2));
    ProcessEntry entry;
    fields >> entry.state >> entry.parent;
    std::string skipped;
    for (int field = 5; field < 22; ++field) fields >> skipped;
    fields >> entry.started;
    if (!fields) return std::nullopt;
    return entry;
}

// Every process this one can see, by id.
std::unordered_map<pid_t, ProcessEntry> process_table() {
    std::unordered_map<pid_t, ProcessEntry> table;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
        const auto name = entry.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        const auto pid = static_cast<pid_t>(std::stol(name));
        if (const auto process = read_process_entry(pid)) table.emplace(pid, *process);
    }
    return table;
}

// The children spawn_and_collect is waiting for, on any thread: the sweep of one step leaves
// them and what descends from them alone.
std::mutex spawned_mutex;
std::set<pid_t> spawned_children;

// Sends SIGKILL to `pid` while it is still the child of `parent`: through a pidfd opened before
// the check, so that a process id reused meanwhile is never hit.
void kill_if_child_of(pid_t pid, pid_t parent) {
    FileDescriptor handle;
    handle.reset(open_pidfd(pid));
    if (handle.get() < 0) return;
    const auto entry = read_process_entry(pid);
    if (!entry || entry->parent != parent) return;
    ::syscall(SYS_pidfd_send_signal, handle.get(), SIGKILL, nullptr, 0);
}

// Kills every process descended from `step` (a zombie not yet waited for) and every child of
// this process that started no earlier than the step and is not another child being waited
// for, with what descends from them; reaps those that became this process's children; until
// none is left alive or two seconds have passed (a process stuck in the kernel). With this
// process a child subreaper while a step runs, a process that left the step's group (setsid, a
// double fork) was adopted by this one when its parent ended, so it is found here. A child this
// process started before the step by other means (a server a caller runs alongside) is left
// alone.
void end_descendants(pid_t step) {
    const pid_t self = ::getpid();
    const auto step_entry = read_process_entry(step);
    if (!step_entry) return;
    const auto give_up_at = Clock::now() + std::chrono::seconds(2);
    for (;;) {
        std::set<pid_t> others;
        {
            const std::lock_guard lock(spawned_mutex);
            others = spawned_children;
        }
        others.erase(step);
        const auto table = process_table();
        std::unordered_multimap<pid_t, pid_t> children;
        for (const auto& [pid, entry] : table) children.emplace(entry.parent, pid);
        bool alive = false;
        std::vector<pid_t> parents{self};
        while (!parents.empty()) {
            const pid_t parent = parents.back();
            parents.pop_back();
            const auto [first, last] = children.equal_range(parent);
            for (auto it = first; it != last; ++it) {
                const pid_t pid = it->second;
                if (others.contains(pid)) continue;
                if (parent == self && table.at(pid).started < step_entry->started) continue;
                parents.push_back(pid);
                if (pid == step) continue;
                if (table.at(pid).state == 'Z' || table.at(pid).state == 'X') {
                    if (parent == self) ::waitpid(pid, nullptr, WNOHANG);
                    continue;
                }
                alive = true;
                kill_if_child_of(pid, parent);
            }
        }
        if (!alive || Clock::now() >= give_up_at) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

// Makes this process the child subreaper while at least one step (a child leading a process
// group) runs, so that what a step's processes leave behind is adopted by this process, not by
// init, and can be ended with the step.
class StepReaper {
  public:
    StepReaper() {
        const std::lock_guard lock(spawned_mutex);
        if (steps_++ == 0) ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
    StepReaper(const StepReaper&) = delete;
    StepReaper& operator=(const StepReaper&) = delete;
    ~StepReaper() {
        const std::lock_guard lock(spawned_mutex);
        if (--steps_ == 0) ::prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
    }

  private:
    static inline int steps_ = 0;
};

// The process group being waited for, for the signal handler; 0 when there is none.
std::atomic<pid_t> waited_group{0};
static_assert(std::atomic<pid_t>::is_always_lock_free);

// Kills the group being waited for; spawn_and_collect then ends what left the group and ends
// this process with the signal. With no group being waited for, ends this process at once.
extern "C" void end_waited_group_then_die(int signal) {
    if (const pid_t group = waited_group.load(); group > 0) {
        ::kill(-group, SIGKILL);
        interrupting_signal.store(signal);
        return;
    }
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
    const bool capture_out =
        request.stdout_mode == OutputMode::capture || request.stdout_mode == OutputMode::log;
    Pipe out_pipe;
    Pipe err_pipe;
    if ((capture_out && !open_pipe(out_pipe)) || !open_pipe(err_pipe)) {
        outcome.start_error = fmt::format("cannot run '{}': {}", program, std::strerror(errno));
        return outcome;
    }

    FileActions actions;
    ::posix_spawn_file_actions_addopen(
        actions.get(), STDIN_FILENO,
        request.stdin_file.empty() ? "/dev/null" : request.stdin_file.c_str(), O_RDONLY, 0);
    if (capture_out) {
        ::posix_spawn_file_actions_adddup2(actions.get(), out_pipe.write_end.get(), STDOUT_FILENO);
    } else if (request.stdout_mode == OutputMode::discard) {
        ::posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    }
    ::posix_spawn_file_actions_adddup2(actions.get(), err_pipe.write_end.get(), STDERR_FILENO);
    if (!request.directory.empty())
        ::posix_spawn_file_actions_addchdir_np(actions.get(), request.directory.c_str());
    SpawnAttributes attributes;
    std::optional<StepReaper> reaper;
    if (request.own_process_group) {
        ::posix_spawnattr_setflags(attributes.get(), POSIX_SPAWN_SETPGROUP);
        ::posix_spawnattr_setpgroup(attributes.get(), 0);
        reaper.emplace();
    }

    auto arguments = request.argv;
    auto argument_pointers = c_strings(arguments);
    auto variables = child_environment(request.environment);
    auto variable_pointers = c_strings(variables);

    pid_t pid = 0;
    const auto started_at = Clock::now();
    int spawn_error = 0;
    {
        // Registered before a sweep on another thread can see it, as a child being waited for.
        const std::lock_guard lock(spawned_mutex);
        spawn_error = ::posix_spawnp(&pid, program.c_str(), actions.get(), attributes.get(),
                                     argument_pointers.data(), variable_pointers.data());
        if (spawn_error == 0) spawned_children.insert(pid);
    }
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
    // Without a pidfd (kernels before 5.3) the exit is not watched: the reading goes on until
    // the pipes close, and wait4 below blocks.
    FileDescriptor child;
    child.reset(open_pidfd(pid));
    const bool read_whole = request.stdout_mode == OutputMode::capture;
    KeptOutput out(read_whole ? max_captured_output_bytes : kept_log_head_bytes,
                   read_whole ? 0 : kept_log_tail_bytes);
    KeptOutput err(kept_log_head_bytes, kept_log_tail_bytes);
    const auto collected = collect(out_pipe.read_end.get(), err_pipe.read_end.get(), child.get(),
                                   deadline, out, err, read_whole);
    out_pipe.read_end.reset();
    err_pipe.read_end.reset();
    auto exited_at = collected.exited_at;
    if (!exited_at && !collected.timed_out && !collected.out_overflowed &&
        interrupting_signal.load() == 0) {
        // The pipes closed without a pidfd to show the exit: wait for it, leaving the child a
        // zombie that still holds its group's id.
        siginfo_t info{};
        while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) < 0) {
            if (errno != EINTR || interrupting_signal.load() != 0) break;
        }
        exited_at = Clock::now();
    }
    outcome.timed_out = collected.timed_out;
    outcome.out_overflowed = collected.out_overflowed;
    // The group is ended while its leader, a zombie at worst, still holds the group's id.
    if (request.own_process_group) {
        ::kill(-pid, SIGKILL);
        end_descendants(pid);
    } else if (collected.timed_out || collected.out_overflowed) {
        ::kill(pid, SIGKILL);
    }
    while (::wait4(pid, &outcome.wait_status, 0, &outcome.usage) < 0) {
        if (errno != EINTR) break;
    }
    const auto ended_at = exited_at.value_or(Clock::now());
    {
        const std::lock_guard lock(spawned_mutex);
        spawned_children.erase(pid);
    }
    outcome.wall = ended_at - started_at;
    if (!outcome.out_overflowed) outcome.out = out.take();
    outcome.err = err.take();
    if (request.own_process_group) {
        waited_group.store(0);
        if (const int signal = interrupting_signal.exchange(0); signal != 0) {
            ::signal(signal, SIG_DFL);
            ::raise(signal);
        }
    }
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
    if (outcome.out_overflowed) {
        output.exit_code = 1;
        output.err = fmt::format(
            "'{}' printed more than {} MiB on standard output, the most benchwatch reads from a "
            "command\n",
            request.argv.front(), max_captured_output_bytes >> 20);
    }
    return output;
}

ProcessOutput run_process(const std::vector<std::string>& argv,
                          const std::filesystem::path& directory) {
    return run_process(argv, directory, {});
}

}  // namespace benchwatch::vcs
