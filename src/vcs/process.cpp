#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cassert>
#include <cerrno>
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

// Reads both pipes until the child closes them, never blocking on one while the other fills.
void drain(Pipe& out_pipe, Pipe& err_pipe, ProcessOutput& output) {
    std::array<pollfd, 2> watched{
        {{out_pipe.read_end.get(), POLLIN, 0}, {err_pipe.read_end.get(), POLLIN, 0}}};
    std::array<std::string*, 2> sinks{&output.out, &output.err};
    std::array<char, 65536> buffer{};
    int open_streams = 2;
    while (open_streams > 0) {
        if (::poll(watched.data(), watched.size(), -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (std::size_t i = 0; i < watched.size(); ++i) {
            if (watched[i].fd < 0 || watched[i].revents == 0) continue;
            const auto count = ::read(watched[i].fd, buffer.data(), buffer.size());
            if (count > 0) {
                sinks[i]->append(buffer.data(), static_cast<std::size_t>(count));
            } else if (count == 0 || errno != EINTR) {
                watched[i].fd = -1;  // poll() ignores negative descriptors
                --open_streams;
            }
        }
    }
}

// Waits for `pid` and turns its status into an exit code (-1 when a signal ended it).
int wait_for(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

ProcessOutput run_process(const std::vector<std::string>& argv,
                          const std::filesystem::path& directory,
                          const std::map<std::string, std::string>& environment) {
    assert(!argv.empty());
    ProcessOutput output;
    std::error_code ignored;
    if (!directory.empty() && !std::filesystem::is_directory(directory, ignored)) {
        output.err = fmt::format("cannot run '{}' in {}: no such directory", argv.front(),
                                 directory.string());
        return output;
    }
    Pipe out_pipe;
    Pipe err_pipe;
    if (!open_pipe(out_pipe) || !open_pipe(err_pipe)) {
        output.err = fmt::format("cannot run '{}': {}", argv.front(), std::strerror(errno));
        return output;
    }

    FileActions actions;
    ::posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    ::posix_spawn_file_actions_adddup2(actions.get(), out_pipe.write_end.get(), STDOUT_FILENO);
    ::posix_spawn_file_actions_adddup2(actions.get(), err_pipe.write_end.get(), STDERR_FILENO);
    if (!directory.empty())
        ::posix_spawn_file_actions_addchdir_np(actions.get(), directory.c_str());

    auto arguments = argv;
    auto argument_pointers = c_strings(arguments);
    auto variables = child_environment(environment);
    auto variable_pointers = c_strings(variables);

    pid_t pid = 0;
    const int spawn_error = ::posix_spawnp(&pid, argv.front().c_str(), actions.get(), nullptr,
                                           argument_pointers.data(), variable_pointers.data());
    out_pipe.write_end.reset();
    err_pipe.write_end.reset();
    if (spawn_error != 0) {
        output.err = fmt::format("cannot run '{}': {}", argv.front(), std::strerror(spawn_error));
        return output;
    }
    drain(out_pipe, err_pipe, output);
    output.exit_code = wait_for(pid);
    return output;
}

ProcessOutput run_process(const std::vector<std::string>& argv,
                          const std::filesystem::path& directory) {
    return run_process(argv, directory, {});
}

}  // namespace benchwatch::vcs
