// What could break: `benchwatch serve` and `benchwatch site` as a user runs them: the ready line
// missing or wrong, a pull request's comparison differing from `compare`'s, a signal not
// stopping the server cleanly, or bad flags and folders not refused with one line and exit 2.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string_view>

#include "store/store_url.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

extern char** environ;

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// `benchwatch serve ARGUMENTS…` running in the background, stopped with SIGTERM at the end.
class ServeProcess {
  public:
    explicit ServeProcess(const std::vector<std::string>& arguments) {
        std::vector<std::string> argv = benchwatch_command(arguments);
        argv.insert(argv.begin() + 1, "serve");
        std::vector<char*> pointers;
        for (auto& argument : argv) pointers.push_back(argument.data());
        pointers.push_back(nullptr);
        int pipe_ends[2];
        if (pipe(pipe_ends) != 0) throw std::runtime_error("pipe failed");
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDOUT_FILENO);
        posix_spawn_file_actions_addclose(&actions, pipe_ends[0]);
        const int spawned =
            posix_spawn(&pid_, pointers[0], &actions, nullptr, pointers.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        close(pipe_ends[1]);
        output_ = pipe_ends[0];
        if (spawned != 0) throw std::runtime_error("cannot start " + describe(argv));
    }

    ~ServeProcess() {
        if (pid_ > 0) stop();
        close(output_);
    }

    // The first line the server printed, waiting up to a minute for it.
    std::string first_line() {
        std::string line;
        char byte = 0;
        pollfd ready{output_, POLLIN, 0};
        while (poll(&ready, 1, 60'000) == 1 && read(output_, &byte, 1) == 1 && byte != '\n')
            line += byte;
        return line;
    }

    // Sends SIGTERM and returns the exit status (-1 when it did not exit normally).
    int stop() {
        kill(pid_, SIGTERM);
        int status = 0;
        waitpid(pid_, &status, 0);
        pid_ = 0;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

  private:
    pid_t pid_ = 0;
    int output_ = -1;
};

// The port of a ready line "serving http://127.0.0.1:PORT/ from STORE"; 0 when it is not one.
int port_of(const std::string& line) {
    constexpr std::string_view prefix = "serving http://127.0.0.1:";
    if (!line.starts_with(prefix)) return 0;
    const auto slash = line.find("/ from ", prefix.size());
    if (slash == std::string::npos || slash == prefix.size()) return 0;
    const std::string digits = line.substr(prefix.size(), slash - prefix.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos) return 0;
    return std::stoi(digits);
}

std::string hyperfine_file(double seconds) {
    return json({{"results",
                  {{{"command", "sort"},
                    {"mean", seconds},
                    {"stddev", 0.0},
                    {"median", seconds},
                    {"user", seconds},
                    {"system", 0.0},
                    {"min", seconds},
                    {"max", seconds},
                    {"times", {seconds, seconds, seconds}}}}}})
        .dump();
}

class ServeTest : public ::testing::Test {
  protected:
    void SetUp() override { ::setenv("NO_COLOR", "1", 1); }

    const std::string& store() const { return store_; }

    vcs::ProcessOutput benchwatch(const std::vector<std::string>& arguments) {
        return run(benchwatch_command(arguments), directory_.path(), without_ci_variables());
    }

    // `benchwatch serve ARGUMENTS…` where it must refuse them and exit; one that serves instead
    // is killed after 30 s, and timed_out says so.
    BoundedOutput serve_expecting_exit(const std::vector<std::string>& arguments) {
        auto argv = benchwatch_command(arguments);
        argv.insert(argv.begin() + 1, "serve");
        return run_with_timeout(argv, directory_.path(), without_ci_variables(),
                                std::chrono::seconds(30));
    }

    void record(const std::string& commit, const std::string& branch, double seconds,
                const std::vector<std::string>& extra = {}) {
        const fs::path file = directory_.path() / (commit + ".json");
        write_text(file, hyperfine_file(seconds));
        std::vector<std::string> arguments = {
            "record",   "--store",           store(),    "--project", "p", "--machine", "m",
            "--commit", fake_commit(commit), "--branch", branch};
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        arguments.push_back(file.string());
        const auto output = benchwatch(arguments);
        ASSERT_EQ(output.exit_code, 0) << output.err;
    }

    TemporaryDirectory directory_{"benchwatch-serve-e2e"};
    std::string store_ = test_store_url(directory_.path());
};

TEST_F(ServeTest, PullRequestComparisonIsCompareJsonAndSigtermStopsCleanly) {
    record("c1", "main", 1.0);
    record("c2", "main", 1.01);
    record("f1", "feature", 1.5, {"--pull-request", "12"});

    ServeProcess server(
        {"--store", store(), "--project", "p", "--machine", "m", "--listen", "127.0.0.1:0"});
    const std::string line = server.first_line();
    const int port = port_of(line);
    ASSERT_NE(port, 0) << line;
    EXPECT_EQ(line, "serving http://127.0.0.1:" + std::to_string(port) + "/ from " +
                        store::without_credentials(store()));

    httplib::Client client("127.0.0.1", port);
    const auto pulls = client.Get("/api/v1/projects/p/pulls");
    ASSERT_TRUE(pulls);
    ASSERT_EQ(pulls->status, 200) << pulls->body;
    const json listed = json::parse(pulls->body)["pulls"];
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0]["head"], fake_commit("f1"));
    EXPECT_EQ(listed[0]["branch"], "feature");
    EXPECT_EQ(listed[0]["pull_request"], 12);

    const auto served = client.Get("/api/v1/projects/p/pulls/" + fake_commit("f1"));
    ASSERT_TRUE(served);
    ASSERT_EQ(served->status, 200) << served->body;
    const auto compared = benchwatch({"compare", "--store", store(), "--project", "p", "--machine",
                                      "m", "--head", fake_commit("f1"), "--format", "json"});
    ASSERT_EQ(compared.exit_code, 0) << compared.err;
    EXPECT_EQ(json::parse(served->body), json::parse(compared.out));
    EXPECT_EQ(json::parse(served->body)["benchmarks"][0]["verdict"], "slower");  // 1.01 s → 1.5 s

    const auto unknown = client.Get("/api/v1/projects/p/pulls/0000000");
    ASSERT_TRUE(unknown);
    EXPECT_EQ(unknown->status, 404);

    EXPECT_EQ(server.stop(), 0);
}

TEST_F(ServeTest, MalformedListenAddressAndPortInUseAreOneLineAndExitTwo) {
    record("c1", "main", 1.0);
    const auto malformed = serve_expecting_exit({"--store", store(), "--listen", "localhost"});
    ASSERT_FALSE(malformed.timed_out) << malformed.timeout_message;
    EXPECT_EQ(malformed.exit_code, 2);
    EXPECT_EQ(malformed.err,
              "error: --listen 'localhost' is not HOST:PORT with a port from 0 to 65535; for "
              "example --listen 127.0.0.1:8080\n");

    ServeProcess first({"--store", store(), "--listen", "127.0.0.1:0"});
    const int port = port_of(first.first_line());
    ASSERT_NE(port, 0);
    const auto second =
        serve_expecting_exit({"--store", store(), "--listen", "127.0.0.1:" + std::to_string(port)});
    ASSERT_FALSE(second.timed_out) << second.timeout_message;
    EXPECT_EQ(second.exit_code, 2);
    EXPECT_EQ(second.err, "error: cannot listen on 127.0.0.1:" + std::to_string(port) +
                              " (in use, or not an address of this machine); pass --listen with "
                              "another host or port\n");
    EXPECT_EQ(first.stop(), 0);
}

TEST_F(ServeTest, SiteWritesTheDashboardAndRefusesAForeignFolder) {
    record("c1", "main", 1.0);
    record("c2", "main", 1.2);
    const fs::path out = directory_.path() / "public";
    const auto written = benchwatch({"site", "--store", store(), out.string()});
    ASSERT_EQ(written.exit_code, 0) << written.err;
    // A static index.html, projects.json, one benchmarks.json, one commits.json, one series,
    // and the page's other files.
    EXPECT_TRUE(written.out.starts_with("wrote ")) << written.out;
    EXPECT_TRUE(
        written.out.ends_with(" MB) for 1 project, 1 benchmark series into " + out.string() + "\n"))
        << written.out;
    EXPECT_NE(read_text(out / "index.html").find(R"(content="static")"), std::string::npos);
    const json projects = json::parse(read_text(out / "data" / "projects.json"));
    EXPECT_EQ(projects["projects"][0]["name"], "p");
    EXPECT_EQ(projects["projects"][0]["runs"], 2);

    const fs::path mine = directory_.path() / "mine";
    write_text(mine / "notes.txt", "keep");
    const auto refused = benchwatch({"site", "--store", store(), mine.string()});
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_EQ(refused.err, "error: " + mine.string() +
                               " is not empty and holds no benchwatch site (index.html and "
                               "data/projects.json); pass a new or empty folder\n");
    EXPECT_EQ(read_text(mine / "notes.txt"), "keep");
}

TEST_F(ServeTest, SiteOfAStoreWithoutDefaultBranchRunsSaysWhatToDo) {
    record("f1", "feature", 1.0);
    const auto output =
        benchwatch({"site", "--store", store(), (directory_.path() / "public").string()});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: the store has no default-branch runs (branch 'main') to show; record runs "
              "with --branch main first\n");
    EXPECT_FALSE(fs::exists(directory_.path() / "public"));
}

}  // namespace
}  // namespace benchwatch::testing
