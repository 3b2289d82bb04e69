#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "vcs/git.hpp"

// Helpers for tests that need real processes, git repositories and files: the vcs, compare and
// end-to-end tests.
namespace benchwatch::testing {

// A command run by a test failed. what() names the command line, its exit code and its stderr.
class CommandFailed : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Environment variables set in a child on top of (replacing) the inherited ones.
using EnvironmentOverrides = std::map<std::string, std::string>;

// A new, empty folder under the system's temporary directory, named `prefix` + random letters,
// removed with everything in it when the object goes away.
class TemporaryDirectory {
  public:
    explicit TemporaryDirectory(std::string_view prefix = "benchwatch-e2e");
    TemporaryDirectory(const TemporaryDirectory&) = delete;
    TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
    ~TemporaryDirectory();

    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

// The command line as a shell would read it, for messages: describe({"git", "commit", "-m",
// "a b"}) == "git commit -m 'a b'".
std::string describe(const std::vector<std::string>& argv);

// Runs `argv` (argv[0] looked up on PATH) in `directory` without a shell, stdin closed, with
// `environment` added to the inherited variables; returns its exit code, stdout and stderr.
vcs::ProcessOutput run(const std::vector<std::string>& argv, const std::filesystem::path& directory,
                       const EnvironmentOverrides& environment = {});

// run(), but throws CommandFailed unless the exit code is 0.
vcs::ProcessOutput run_checked(const std::vector<std::string>& argv,
                               const std::filesystem::path& directory,
                               const EnvironmentOverrides& environment = {});

// What run_with_timeout() saw: the output, and whether the command had to be killed.
struct BoundedOutput : vcs::ProcessOutput {
    bool timed_out = false;  // still running at the timeout, so killed; exit_code is then -1
    // "CMD was still running after 30 s, so it and its process group were killed"; empty when
    // the command exited in time.
    std::string timeout_message;
};

// run(), for a command that might never exit (`serve` expected to refuse its flags): it leads a
// process group of its own, killed whole with SIGKILL once `timeout` has passed.
BoundedOutput run_with_timeout(const std::vector<std::string>& argv,
                               const std::filesystem::path& directory,
                               const EnvironmentOverrides& environment,
                               std::chrono::seconds timeout);

// A Google Benchmark JSON file (a release build) with one row per (name, nanoseconds): 10
// iterations, real and CPU time both the value.
std::string google_benchmark_json(const std::vector<std::pair<std::string, double>>& rows);

// Overrides that empty the variables of CI systems and of benchwatch itself (GITHUB_SHA,
// BUILDKITE_COMMIT, BENCHWATCH_STORE, CI…), so that a test of the binary sees only what it
// passes.
EnvironmentOverrides without_ci_variables();

// The benchwatch binary under test: the environment variable BENCHWATCH_TEST_BINARY when it is
// set and not empty (an installed or older build), otherwise the one this build made.
std::string benchwatch_binary();

// benchwatch_binary() followed by `arguments`: benchwatch_command({"compare", "--format",
// "json"}).
std::vector<std::string> benchwatch_command(const std::vector<std::string>& arguments);

// `benchwatch serve ARGUMENTS…` running in the background, its stdout and stderr appended to
// serve.out and serve.err in `log_directory` (a second server in the same folder adds to them);
// stopped with SIGTERM when the object goes away, unless stop() or kill_now() ended it before.
class ServerProcess {
  public:
    ServerProcess(const std::vector<std::string>& arguments,
                  const std::filesystem::path& log_directory);
    ServerProcess(const ServerProcess&) = delete;
    ServerProcess& operator=(const ServerProcess&) = delete;
    ~ServerProcess();

    // The port of the first "serving http://127.0.0.1:PORT/ from …" line in serve.out, waiting up
    // to a minute for it; throws std::runtime_error with serve.err when none came.
    int port() const;

    // Ends the server with SIGKILL, as a crash would, and waits for it; nothing when it had
    // ended already.
    void kill_now();

    // Ends the server with SIGTERM and waits for it; returns its exit code, -1 when a signal
    // ended it or it had ended already.
    int stop();

    // serve.out followed by serve.err, as they are now.
    std::string log() const;

  private:
    std::filesystem::path out_;
    std::filesystem::path err_;
    pid_t pid_ = 0;
};

// `count` busy loops (`sh -c 'while :; do :; done'`) keeping the machine's cores busy while the
// object lives: other work, as a busy neighbour would be, for tests of what a run under load
// records. Killed with SIGKILL and waited for when it goes away.
class BusyLoops {
  public:
    explicit BusyLoops(int count);
    BusyLoops(const BusyLoops&) = delete;
    BusyLoops& operator=(const BusyLoops&) = delete;
    ~BusyLoops();

  private:
    std::vector<pid_t> pids_;
};

// A git repository made by a test, the same on every run: fixed author and committer, commit n
// dated 2026-10-01 00:00 UTC + n hours, and no user or system configuration.
class GitRepository {
  public:
    // Creates `directory` if needed and makes it a new repository on `initial_branch`.
    explicit GitRepository(std::filesystem::path directory,
                           const std::string& initial_branch = "main");

    const std::filesystem::path& directory() const { return directory_; }

    // Runs git with `arguments` in the repository; returns stdout without its final newline.
    // Throws CommandFailed when git fails.
    std::string git(const std::vector<std::string>& arguments) const;

    // Commits the staged changes (or none) on the current branch with `subject`; returns the
    // new commit's full SHA.
    std::string commit(const std::string& subject);

    // commit(), but authored and committed at `unix_seconds` (UTC) instead of the next date.
    std::string commit_at(const std::string& subject, std::int64_t unix_seconds);

    // Writes `text` to `name` in the work tree and stages it.
    void write_file(const std::string& name, std::string_view text) const;

    // Unix seconds of the date of commit number `n` (the first commit is number 1).
    static std::int64_t commit_seconds(int n);

    // The name every commit is authored and committed by.
    static constexpr const char* author = "Benchwatch Tests";

  private:
    std::filesystem::path directory_;
    int commits_made_ = 0;
};

// A git repository on "main" in a fresh temporary folder, removed with everything in it.
class ScratchRepository : private TemporaryDirectory, public GitRepository {
  public:
    ScratchRepository() : TemporaryDirectory("benchwatch-git"), GitRepository(path()) {}
};

// A full 40-digit hex commit id standing for `name` (at most 20 bytes), the same on every run,
// for runs recorded outside git: the hex of its bytes, then zeros. fake_commit("c1") ==
// "6331000000000000000000000000000000000000".
std::string fake_commit(std::string_view name);

// The whole content of a file; throws std::runtime_error naming the file when it cannot be read.
std::string read_text(const std::filesystem::path& path);

// Replaces the file's content with `text`, creating missing parent folders; throws
// std::runtime_error naming the file when it cannot be written.
void write_text(const std::filesystem::path& path, std::string_view text);

// The differences between two texts as a unified diff of their lines with 3 lines of context
// ("--- expected", "+++ actual", "@@ -5,7 +5,7 @@" hunks); "" when the texts are equal.
std::string unified_diff(std::string_view expected, std::string_view actual);

// A report of `compare` (Markdown or JSON) without what says that its calibration was read from
// the store's cache, so that a report whose calibration was cached compares with one whose
// calibration was computed.
std::string without_cache_origin(std::string report);

}  // namespace benchwatch::testing
