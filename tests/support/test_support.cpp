#include "test_support.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>
#include <utility>

#include "vcs/process.hpp"

namespace benchwatch::testing {

namespace fs = std::filesystem;

TemporaryDirectory::TemporaryDirectory(std::string_view prefix) {
    std::string pattern = (fs::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr)
        throw std::runtime_error("cannot create a temporary folder " + pattern);
    path_ = fs::canonical(pattern);
}

TemporaryDirectory::~TemporaryDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
}

std::string describe(const std::vector<std::string>& argv) {
    std::string line;
    for (const auto& argument : argv) {
        if (!line.empty()) line += ' ';
        const bool plain =
            !argument.empty() && argument.find_first_not_of(
                                     "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                     "0123456789-_./=:,+@%") == std::string::npos;
        if (plain) {
            line += argument;
            continue;
        }
        line += '\'';
        for (const char c : argument) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
        line += '\'';
    }
    return line;
}

vcs::ProcessOutput run(const std::vector<std::string>& argv, const fs::path& directory,
                       const EnvironmentOverrides& environment) {
    return vcs::run_process(argv, directory, environment);
}

vcs::ProcessOutput run_checked(const std::vector<std::string>& argv, const fs::path& directory,
                               const EnvironmentOverrides& environment) {
    auto output = run(argv, directory, environment);
    if (output.exit_code != 0)
        throw CommandFailed(describe(argv) + " (in " + directory.string() + ") exited with " +
                            std::to_string(output.exit_code) + ": " + output.err);
    return output;
}

BoundedOutput run_with_timeout(const std::vector<std::string>& argv, const fs::path& directory,
                               const EnvironmentOverrides& environment,
                               std::chrono::seconds timeout) {
    auto outcome = vcs::spawn_and_collect({.argv = argv,
                                           .directory = directory,
                                           .environment = environment,
                                           .own_process_group = true,
                                           .timeout = timeout});
    BoundedOutput output;
    if (!outcome.started) {
        output.err = std::move(outcome.start_error);
        return output;
    }
    output.exit_code = WIFEXITED(outcome.wait_status) ? WEXITSTATUS(outcome.wait_status) : -1;
    output.out = std::move(outcome.out);
    output.err = std::move(outcome.err);
    output.timed_out = outcome.timed_out;
    if (outcome.timed_out)
        output.timeout_message = describe(argv) + " was still running after " +
                                 std::to_string(timeout.count()) +
                                 " s, so it and its process group were killed";
    return output;
}

std::string google_benchmark_json(const std::vector<std::pair<std::string, double>>& rows) {
    nlohmann::json benchmarks = nlohmann::json::array();
    for (const auto& [name, nanoseconds] : rows)
        benchmarks.push_back({{"name", name},
                              {"run_type", "iteration"},
                              {"iterations", 10},
                              {"real_time", nanoseconds},
                              {"cpu_time", nanoseconds},
                              {"time_unit", "ns"}});
    return nlohmann::json{{"context", {{"library_build_type", "release"}}},
                          {"benchmarks", benchmarks}}
        .dump();
}

EnvironmentOverrides without_ci_variables() {
    return {{"GITHUB_SHA", ""},
            {"GITHUB_REF", ""},
            {"GITHUB_REF_NAME", ""},
            {"GITHUB_HEAD_REF", ""},
            {"BUILDKITE_COMMIT", ""},
            {"BUILDKITE_BRANCH", ""},
            {"BUILDKITE_PULL_REQUEST", ""},
            {"BUILDKITE_PULL_REQUEST_BASE_BRANCH", ""},
            {"BUILDKITE_PIPELINE_DEFAULT_BRANCH", ""},
            {"BUILDKITE_REPO", ""},
            {"BENCHWATCH_STORE", ""},
            {"BENCHWATCH_PROJECT", ""},
            {"BENCHWATCH_MACHINE", ""},
            {"CI", ""},
            {"GITHUB_EVENT_PATH", ""},
            {"CI_MERGE_REQUEST_LABELS", ""}};
}

std::string benchwatch_binary() {
    const char* chosen = std::getenv("BENCHWATCH_TEST_BINARY");
    return chosen != nullptr && *chosen != '\0' ? chosen : BENCHWATCH_BINARY;
}

std::vector<std::string> benchwatch_command(const std::vector<std::string>& arguments) {
    std::vector<std::string> argv{benchwatch_binary()};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    return argv;
}

ServerProcess::ServerProcess(const std::vector<std::string>& arguments,
                             const fs::path& log_directory)
    : out_(log_directory / "serve.out"), err_(log_directory / "serve.err") {
    std::vector<std::string> serve_arguments{"serve"};
    serve_arguments.insert(serve_arguments.end(), arguments.begin(), arguments.end());
    std::vector<std::string> argv = benchwatch_command(serve_arguments);
    std::vector<char*> pointers;
    for (auto& argument : argv) pointers.push_back(argument.data());
    pointers.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0600);
    const int spawned =
        posix_spawn(&pid_, pointers[0], &actions, nullptr, pointers.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) throw std::runtime_error("cannot start " + describe(argv));
}

ServerProcess::~ServerProcess() {
    if (pid_ > 0) stop();
}

int ServerProcess::port() const {
    const std::regex ready(R"(serving http://127\.0\.0\.1:(\d+)/ from )");
    for (int waited_ms = 0; waited_ms < 60'000; waited_ms += 20) {
        std::ifstream out(out_);
        std::string line;
        std::smatch match;
        while (std::getline(out, line))
            if (std::regex_search(line, match, ready)) return std::stoi(match[1]);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw std::runtime_error("benchwatch serve printed no ready line: " + read_text(err_));
}

void ServerProcess::kill_now() {
    // kill(0, …) would signal the test's own process group.
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = 0;
}

int ServerProcess::stop() {
    if (pid_ <= 0) return -1;
    ::kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string ServerProcess::log() const {
    return read_text(out_) + read_text(err_);
}

BusyLoops::BusyLoops(int count) {
    std::string shell = "/bin/sh";
    std::string flag = "-c";
    std::string loop = "while :; do :; done";
    char* argv[] = {shell.data(), flag.data(), loop.data(), nullptr};
    for (int i = 0; i < count; ++i) {
        pid_t pid = 0;
        if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv, environ) != 0)
            throw std::runtime_error("cannot start a busy loop");
        pids_.push_back(pid);
    }
}

BusyLoops::~BusyLoops() {
    for (const pid_t pid : pids_) ::kill(pid, SIGKILL);
    for (const pid_t pid : pids_) waitpid(pid, nullptr, 0);
}

namespace {

// 2026-10-01 00:00:00 UTC.
constexpr std::int64_t first_commit_seconds = 1790812800;

EnvironmentOverrides git_environment(int commit_number) {
    const auto date = "@" + std::to_string(GitRepository::commit_seconds(commit_number)) + " +0000";
    return {
        {"GIT_AUTHOR_NAME", GitRepository::author},
        {"GIT_AUTHOR_EMAIL", "tests@benchwatch.invalid"},
        {"GIT_AUTHOR_DATE", date},
        {"GIT_COMMITTER_NAME", GitRepository::author},
        {"GIT_COMMITTER_EMAIL", "tests@benchwatch.invalid"},
        {"GIT_COMMITTER_DATE", date},
        {"GIT_CONFIG_GLOBAL", "/dev/null"},
        {"GIT_CONFIG_NOSYSTEM", "1"},
    };
}

std::string without_final_newline(std::string text) {
    if (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
}

}  // namespace

GitRepository::GitRepository(fs::path directory, const std::string& initial_branch)
    : directory_(std::move(directory)) {
    fs::create_directories(directory_);
    git({"init", "--quiet", "-b", initial_branch});
}

std::string GitRepository::git(const std::vector<std::string>& arguments) const {
    std::vector<std::string> argv{"git"};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    return without_final_newline(run_checked(argv, directory_, git_environment(commits_made_)).out);
}

std::string GitRepository::commit(const std::string& subject) {
    ++commits_made_;
    git({"commit", "--quiet", "--allow-empty", "-m", subject});
    return git({"rev-parse", "HEAD"});
}

std::string GitRepository::commit_at(const std::string& subject, std::int64_t unix_seconds) {
    ++commits_made_;
    auto environment = git_environment(commits_made_);
    const auto date = "@" + std::to_string(unix_seconds) + " +0000";
    environment["GIT_AUTHOR_DATE"] = date;
    environment["GIT_COMMITTER_DATE"] = date;
    run_checked({"git", "commit", "--quiet", "--allow-empty", "-m", subject}, directory_,
                environment);
    return git({"rev-parse", "HEAD"});
}

void GitRepository::write_file(const std::string& name, std::string_view text) const {
    write_text(directory_ / name, text);
    git({"add", name});
}

std::int64_t GitRepository::commit_seconds(int n) {
    return first_commit_seconds + 3600 * n;
}

std::string read_text(const fs::path& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw std::runtime_error("cannot read " + path.string());
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

void write_text(const fs::path& path, std::string_view text) {
    if (path.has_parent_path()) fs::create_directories(path.parent_path());
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!file) throw std::runtime_error("cannot write " + path.string());
}

namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        const auto end = text.find('\n');
        if (end == std::string_view::npos) {
            lines.push_back(text);
            break;
        }
        lines.push_back(text.substr(0, end));
        text.remove_prefix(end + 1);
    }
    return lines;
}

// One line of the edit that turns the expected lines into the actual ones.
struct Edit {
    char kind;  // ' ' kept, '-' only expected, '+' only actual
    std::string_view line;
};

// The shortest edit, from the longest common subsequence of the two line lists.
std::vector<Edit> line_edits(const std::vector<std::string_view>& expected,
                             const std::vector<std::string_view>& actual) {
    const auto rows = expected.size();
    const auto columns = actual.size();
    // common[i][j]: length of the longest common subsequence of expected[i..] and actual[j..].
    std::vector<std::vector<std::size_t>> common(rows + 1, std::vector<std::size_t>(columns + 1));
    for (auto i = rows; i-- > 0;)
        for (auto j = columns; j-- > 0;)
            common[i][j] = expected[i] == actual[j] ? common[i + 1][j + 1] + 1
                                                    : std::max(common[i + 1][j], common[i][j + 1]);
    std::vector<Edit> edits;
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < rows || j < columns) {
        if (i < rows && j < columns && expected[i] == actual[j]) {
            edits.push_back({' ', expected[i]});
            ++i;
            ++j;
        } else if (j == columns || (i < rows && common[i + 1][j] >= common[i][j + 1])) {
            edits.push_back({'-', expected[i++]});
        } else {
            edits.push_back({'+', actual[j++]});
        }
    }
    return edits;
}

}  // namespace

std::string without_cache_origin(std::string report) {
    for (const std::string_view said :
         {" It was read from the store's cache, where an earlier compare of the same runs and "
          "settings kept it.",
          ",\n    \"from_cache\": true"})
        for (auto at = report.find(said); at != std::string::npos; at = report.find(said))
            report.erase(at, said.size());
    return report;
}

std::string unified_diff(std::string_view expected, std::string_view actual) {
    if (expected == actual) return "";
    constexpr std::size_t context = 3;
    const auto edits = line_edits(split_lines(expected), split_lines(actual));
    std::string diff = "--- expected\n+++ actual\n";
    if (edits.empty() ||
        std::all_of(edits.begin(), edits.end(), [](const Edit& edit) { return edit.kind == ' '; }))
        return diff + "(the texts differ only in their final newline)\n";

    std::size_t expected_line = 1;  // line numbers of edits[position]
    std::size_t actual_line = 1;
    std::size_t position = 0;
    while (position < edits.size()) {
        auto change = position;
        while (change < edits.size() && edits[change].kind == ' ') ++change;
        if (change == edits.size()) break;
        // The hunk starts `context` kept lines before the change and ends where more than
        // 2 × context kept lines follow the last change.
        const auto start = change - std::min(context, change - position);
        expected_line += start - position;
        actual_line += start - position;
        auto end = change;
        while (end < edits.size()) {
            auto kept = end;
            while (kept < edits.size() && edits[kept].kind == ' ') ++kept;
            if (kept == edits.size() || kept - end > 2 * context) {
                end = std::min(kept, end + context);
                break;
            }
            end = kept;
            while (end < edits.size() && edits[end].kind != ' ') ++end;
        }
        std::size_t expected_count = 0;
        std::size_t actual_count = 0;
        std::string body;
        for (auto k = start; k < end; ++k) {
            if (edits[k].kind != '+') ++expected_count;
            if (edits[k].kind != '-') ++actual_count;
            body += edits[k].kind;
            body += edits[k].line;
            body += '\n';
        }
        diff += "@@ -" + std::to_string(expected_line) + "," + std::to_string(expected_count) +
                " +" + std::to_string(actual_line) + "," + std::to_string(actual_count) + " @@\n" +
                body;
        expected_line += expected_count;
        actual_line += actual_count;
        position = end;
    }
    return diff;
}

std::string fake_commit(std::string_view name) {
    if (name.size() > 20) throw std::invalid_argument("fake_commit: name longer than 20 bytes");
    std::string id;
    constexpr char digits[] = "0123456789abcdef";
    for (const char c : name) {
        const auto byte = static_cast<unsigned char>(c);
        id += digits[byte >> 4];
        id += digits[byte & 0xf];
    }
    id.resize(40, '0');
    return id;
}

}  // namespace benchwatch::testing
