// What could break: the benchwatch command as a user runs it: bad input reaching the store or
// exiting with the wrong code, concurrent or killed `record` processes losing or half-writing
// runs, the wrong baseline chosen in a real git repository, or --fail-on-regression not failing.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "store/store.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

extern char** environ;

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

// A Google Benchmark file with one iteration row per benchmark, times in ns.
std::string google_benchmark_file(const std::vector<std::pair<std::string, double>>& rows) {
    std::string json = R"({"context": {"library_build_type": "release"}, "benchmarks": [)";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        json += (i ? ", " : "") + std::string(R"({"name": ")") + rows[i].first +
                R"(", "run_type": "iteration", "iterations": 10, "real_time": )" +
                std::to_string(rows[i].second) + R"(, "cpu_time": 1, "time_unit": "ns"})";
    }
    return json + "]}\n";
}

class CliTest : public ::testing::Test {
  protected:
    const std::string& store() const { return store_; }

    // Runs benchwatch in the temporary directory, without any inherited CI variables.
    vcs::ProcessOutput benchwatch(const std::vector<std::string>& arguments) {
        return run(benchwatch_command(arguments), directory_.path(), clean_environment());
    }

    static EnvironmentOverrides clean_environment() {
        auto environment = without_ci_variables();
        environment["NO_COLOR"] = "1";
        return environment;
    }

    fs::path write(const std::string& name, const std::string& text) {
        write_text(directory_.path() / name, text);
        return directory_.path() / name;
    }

    std::vector<std::string> record_arguments(const fs::path& file, const std::string& commit,
                                              const std::string& branch = "main") {
        return {"record",    "--store",    store(),    "--project",         "p",
                "--machine", "m",          "--commit", fake_commit(commit), "--branch",
                branch,      file.string()};
    }

    std::size_t stored_runs() {
        if (!stores_on_postgres() && !fs::exists(store())) return 0;
        return store::open_store(store())->list_runs({}).size();
    }

    // SQLite's own check of the file; PostgreSQL keeps no file to check, so "ok" there.
    std::string integrity_check() {
        if (stores_on_postgres()) return "ok";
        sqlite3* database = nullptr;
        std::string answer = "cannot open";
        if (sqlite3_open_v2(store().c_str(), &database, SQLITE_OPEN_READONLY, nullptr) ==
            SQLITE_OK) {
            sqlite3_stmt* statement = nullptr;
            sqlite3_prepare_v2(database, "PRAGMA integrity_check", -1, &statement, nullptr);
            if (sqlite3_step(statement) == SQLITE_ROW)
                answer = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
            sqlite3_finalize(statement);
        }
        sqlite3_close(database);
        return answer;
    }

    TemporaryDirectory directory_{"benchwatch-cli"};
    std::string store_ = test_store_url(directory_.path());
};

struct BadInput {
    std::string name;
    std::string content;
    std::vector<std::string> extra_arguments;
    std::string expected_error;  // "{file}" stands for the file's path
};

TEST_F(CliTest, BadInputIsOneLineExitTwoAndLeavesTheStoreUnchanged) {
    ASSERT_EQ(
        benchwatch(record_arguments(write("good.json", google_benchmark_file({{"a", 5}})), "c0"))
            .exit_code,
        0);
    const std::vector<BadInput> cases = {
        {"truncated.json",
         R"({"benchmarks": [{"name": "a", "real_time": 5)",
         {},
         "error: {file}:1:45: truncated JSON: the file ends inside an object or array\n"},
        {"unknown.json",
         R"({"results": []})",
         {},
         "error: {file}: unknown results format (looked like: a JSON object without a "
         "\"benchmarks\" array); pass --input-format with one of: benchmarktools, googlebenchmark, "
         "hyperfine, pytest-benchmark, criterion, cargo-criterion, go, go-json, libtest, catch2, "
         "nanobench, jmh, benchmarkdotnet, nvbench, github-action-benchmark, bencher\n"},
        {"empty.json", "", {}, "error: {file}: empty file; expected benchmark results\n"},
        {"negative.json",
         google_benchmark_file({{"a", -3}}),
         {},
         "error: {file}: benchmark 'a': time must be a positive number, got -3\n"},
        {"nan.json",
         R"({"benchmarks": [{"name": "a", "real_time": NaN, "time_unit": "ns"}]})",
         {},
         "error: {file}:1:44: invalid JSON value\n"},
        {"forced.json",
         google_benchmark_file({{"a", 5}}),
         {"--input-format", "benchmarktools"},
         "error: {file}: expected a JSON array [versions, values], as BenchmarkTools.save "
         "writes\n"},
    };
    for (const auto& bad : cases) {
        const auto file = write(bad.name, bad.content);
        auto arguments = record_arguments(file, "c1");
        arguments.insert(arguments.begin() + 1, bad.extra_arguments.begin(),
                         bad.extra_arguments.end());
        const auto output = benchwatch(arguments);
        auto expected = bad.expected_error;
        expected.replace(expected.find("{file}"), 6, file.string());
        EXPECT_EQ(output.exit_code, 2) << bad.name;
        EXPECT_EQ(output.err, expected) << bad.name;
        EXPECT_EQ(output.out, "") << bad.name;
    }
    EXPECT_EQ(stored_runs(), 1u);
}

TEST_F(CliTest, MissingFileAndMissingCommitOutsideGit) {
    auto output = benchwatch(record_arguments(directory_.path() / "absent.json", "c1"));
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: " + (directory_.path() / "absent.json").string() +
                              ": cannot read: No such file or directory\n");

    const auto file = write("r.json", google_benchmark_file({{"a", 5}}));
    output = benchwatch({"record", "--store", store(), "--branch", "main", file.string()});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: no commit given and " + directory_.path().string() +
                              " is not inside a git repository with commits; pass --commit SHA "
                              "(or --repo DIR)\n");
    if (!stores_on_postgres()) {
        EXPECT_FALSE(fs::exists(store()));
    }
    EXPECT_EQ(stored_runs(), 0u);
}

TEST_F(CliTest, UnwritableStoreIsOneLineAndExitTwo) {
    const auto file = write("r.json", google_benchmark_file({{"a", 5}}));
    const auto blocker = write("not-a-directory", "");
    const auto output =
        benchwatch({"record", "--store", (blocker / "h.db").string(), "--project", "p", "--commit",
                    fake_commit("c1"), "--branch", "main", file.string()});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: store " + (blocker / "h.db").string() + ": creating directory " +
                              blocker.string() +
                              ": Not a directory; check that the directory exists and is "
                              "writable, or pass --store\n");
    EXPECT_EQ(std::count(output.err.begin(), output.err.end(), '\n'), 1);
}

TEST_F(CliTest, SameFileTwiceIsStoredOnceAndARerunIsAnAttempt) {
    const auto file = write("r.json", google_benchmark_file({{"a", 5}, {"b", 7}}));
    auto output = benchwatch(record_arguments(file, "c1"));
    EXPECT_EQ(output.out,
              "recorded run 1 of 633100000 (project p, machine m, branch main, attempt 1, 2 "
              "results)\n");
    output = benchwatch(record_arguments(file, "c1"));
    EXPECT_EQ(output.exit_code, 0);
    EXPECT_EQ(output.out, "already recorded: run 1 of 633100000 holds these results\n");
    const auto rerun = write("rerun.json", google_benchmark_file({{"a", 6}, {"b", 7}}));
    output = benchwatch(record_arguments(rerun, "c1"));
    EXPECT_EQ(output.out,
              "recorded run 2 of 633100000 (project p, machine m, branch main, attempt 2, 2 "
              "results)\n");
    EXPECT_EQ(stored_runs(), 2u);
}

TEST_F(CliTest, RecordingTheSameResultsWithAnotherEnvironmentSaysWhatWasNotStored) {
    const auto file = write("r.json", google_benchmark_file({{"a", 5}}));
    auto arguments = record_arguments(file, "c1");
    arguments.insert(arguments.end(), {"--env", "gpu.driver=535"});
    auto output = benchwatch(arguments);
    EXPECT_EQ(output.exit_code, 0);
    EXPECT_EQ(output.err, "");
    output = benchwatch(arguments);  // the same environment: nothing to say
    EXPECT_EQ(output.err, "");
    arguments = record_arguments(file, "c1");
    arguments.insert(arguments.end(), {"--env", "gpu.driver=550\x1b[2J", "--env", "toolkit=12.2"});
    output = benchwatch(arguments);
    EXPECT_EQ(output.exit_code, 0);
    EXPECT_EQ(output.out, "already recorded: run 1 of 633100000 holds these results\n");
    EXPECT_EQ(output.err,
              "note: the environment given differs from the stored run's, which is kept as it was "
              "recorded: gpu.driver=550 [2J (stored: 535), toolkit=12.2 (not recorded there); "
              "results identical to a stored run are not recorded twice\n");
    EXPECT_EQ(stored_runs(), 1u);
}

TEST_F(CliTest, EightConcurrentRecordsStoreEightRunsOnce) {
    std::vector<fs::path> files;
    for (int i = 0; i < 8; ++i)
        files.push_back(write("r" + std::to_string(i) + ".json",
                              google_benchmark_file({{"a", 5.0 + i}, {"b", 9.0 + i}})));
    std::vector<vcs::ProcessOutput> outputs(8);
    std::vector<std::thread> threads;
    for (int i = 0; i < 8; ++i)
        threads.emplace_back([&, i] {
            outputs[i] = benchwatch(record_arguments(files[i], "commit" + std::to_string(i)));
        });
    for (auto& thread : threads) thread.join();
    for (const auto& output : outputs) EXPECT_EQ(output.exit_code, 0) << output.err;

    const auto runs = store::open_store(store())->list_runs({});
    ASSERT_EQ(runs.size(), 8u);
    std::set<std::string> commits;
    for (const auto& run : runs) commits.insert(run.commit);
    EXPECT_EQ(commits.size(), 8u);
    EXPECT_EQ(integrity_check(), "ok");
}

TEST_F(CliTest, RecordKilledMidWriteLeavesTheWholeRunOrNone) {
    std::vector<std::pair<std::string, double>> rows;
    for (int i = 0; i < 20000; ++i) rows.emplace_back("bench" + std::to_string(i), 100.0 + i);
    const auto file = write("big.json", google_benchmark_file(rows));
    // One complete record tells how long a record takes here; the kills then land at 10%…90% of
    // that, so that some hit the parse, some the transaction, some the commit.
    const auto started = std::chrono::steady_clock::now();
    ASSERT_EQ(benchwatch(record_arguments(file, "complete")).exit_code, 0);
    const auto duration = std::chrono::steady_clock::now() - started;
    for (int attempt = 0; attempt < 9; ++attempt) {
        auto argv = benchwatch_command(record_arguments(file, "c" + std::to_string(attempt)));
        std::vector<char*> pointers;
        for (auto& argument : argv) pointers.push_back(argument.data());
        pointers.push_back(nullptr);
        // In the temporary folder, outside any repository, as benchwatch() runs it.
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addchdir_np(&actions, directory_.path().c_str());
        pid_t pid = 0;
        const int spawned =
            posix_spawn(&pid, pointers[0], &actions, nullptr, pointers.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        ASSERT_EQ(spawned, 0);
        std::this_thread::sleep_for(duration * (attempt + 1) / 10);
        ::kill(pid, SIGKILL);
        int status = 0;
        ::waitpid(pid, &status, 0);
    }
    EXPECT_EQ(integrity_check(), "ok");
    auto opened = store::open_store(store());
    const auto runs = opened->list_runs({});
    std::vector<std::int64_t> ids;
    for (const auto& run : runs) ids.push_back(run.id);
    const auto results = opened->results(ids);
    for (const auto& run : runs) EXPECT_EQ(results.at(run.id).size(), rows.size()) << run.commit;
}

class GitCliTest : public CliTest {
  protected:
    // Records a Google Benchmark file of `rows` for the repository's HEAD.
    void record_head(const std::vector<std::pair<std::string, double>>& rows) {
        const auto file = write("results.json", google_benchmark_file(rows));
        const auto output =
            benchwatch({"record", "--store", store(), "--project", "p", "--machine", "m", "--repo",
                        repository_.directory().string(), file.string()});
        ASSERT_EQ(output.exit_code, 0) << output.err;
    }

    nlohmann::json compare_json(const std::vector<std::string>& extra = {}) {
        std::vector<std::string> arguments = {
            "compare",   "--store", store(),
            "--project", "p",       "--machine",
            "m",         "--repo",  repository_.directory().string(),
            "--format",  "json"};
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        const auto output = benchwatch(arguments);
        EXPECT_EQ(output.exit_code, 0) << output.err;
        return nlohmann::json::parse(output.out);
    }

    GitRepository repository_{directory_.path() / "repo"};
};

TEST_F(GitCliTest, MergeBaseIsTheBaselineNotTheDefaultBranchTip) {
    // main: m1 (a=100) — m2 (a=100) — m3 (a=300, the tip); pr forks at m2 with a=101.
    repository_.commit("m1");
    record_head({{"a", 100}});
    const auto fork_point = repository_.commit("m2");
    record_head({{"a", 100}});
    repository_.commit("m3");
    record_head({{"a", 300}});
    repository_.git({"checkout", "-q", "-b", "pr", fork_point});
    const auto head = repository_.commit("pr change");
    record_head({{"a", 101}});

    const auto report = compare_json();
    EXPECT_EQ(report["head"], head);
    EXPECT_EQ(report["baseline"]["kind"], "merge_base");
    EXPECT_EQ(report["baseline"]["commit"], fork_point);
    EXPECT_EQ(report["history_order"], "git");
    EXPECT_DOUBLE_EQ(report["benchmarks"][0]["base"].get<double>(), 100);
    // Two runs of history: +1% is within the short history's margin (against the tip's 300 it
    // would be 66% faster).
    EXPECT_EQ(report["benchmarks"][0]["verdict"], "inconclusive");
}

TEST_F(GitCliTest, RecordKeepsTheCommitsMessageAuthorAndTime) {
    const auto commit = repository_.commit("m1");
    record_head({{"a", 100}});
    const auto runs = store::open_store(store())->list_runs({});
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].commit, commit);
    // Commit n is dated n hours after 2026-10-01 00:00:00 UTC.
    EXPECT_EQ(runs[0].commit_info,
              (model::CommitInfo{"m1", GitRepository::author, "2026-10-01T01:00:00+00:00", ""}));
}

TEST_F(GitCliTest, NearestBenchmarkedAncestorWhenTheMergeBaseHasNoRun) {
    // main: m0, m1 (runs) — m2 — m3 (no runs); pr forks at m3. Two runs of history are the
    // fewest the default method judges a head by.
    repository_.commit("m0");
    record_head({{"a", 100}, {"b", 50}});
    const auto benchmarked = repository_.commit("m1");
    record_head({{"a", 100}, {"b", 50}});
    repository_.commit("m2");
    const auto fork_point = repository_.commit("m3");
    repository_.git({"checkout", "-q", "-b", "pr"});
    repository_.commit("pr change");
    record_head({{"a", 400}, {"b", 50}});

    const auto report = compare_json();
    EXPECT_EQ(report["baseline"]["kind"], "nearest_ancestor");
    EXPECT_EQ(report["baseline"]["commit"], benchmarked);
    EXPECT_EQ(report["baseline"]["merge_base"], fork_point);
    EXPECT_EQ(report["baseline"]["commits_earlier"], 2);

    const auto markdown = benchwatch({"compare", "--store", store(), "--project", "p", "--machine",
                                      "m", "--repo", repository_.directory().string(), "--format",
                                      "markdown", "--fail-on-regression"});
    EXPECT_EQ(markdown.exit_code, 1) << "a is 4× slower: --fail-on-regression must fail";
    EXPECT_NE(markdown.out.find("Compared with " + benchmarked.substr(0, 9) +
                                ", the nearest benchmarked ancestor of the merge base " +
                                fork_point.substr(0, 9) + " (2 commits earlier)."),
              std::string::npos)
        << markdown.out;
    EXPECT_NE(markdown.out.find("| a | 100 ns | 400 ns | +300.0% 🔴 slower |"), std::string::npos)
        << markdown.out;
}

// At the tip of the default branch the head is its own merge base: the report says so and counts
// the commits back from the head to the run it is compared with.
TEST_F(GitCliTest, HeadOnTheDefaultBranchIsComparedWithTheRunBeforeIt) {
    repository_.commit("m0");
    record_head({{"a", 100}});
    const auto benchmarked = repository_.commit("m1");
    record_head({{"a", 100}});
    repository_.commit("m2");
    const auto head = repository_.commit("m3");
    record_head({{"a", 101}});

    const auto report = compare_json();
    EXPECT_EQ(report["baseline"]["merge_base"], head);
    EXPECT_EQ(report["baseline"]["commit"], benchmarked);
    EXPECT_EQ(report["baseline"]["commits_earlier"], 2);
    const std::string expected =
        "This commit is on the default branch, so it is compared with "
        "the run before it: " +
        benchmarked.substr(0, 9) + ", 2 commits earlier.";
    for (const std::string format : {"markdown", "text"}) {
        const auto output =
            benchwatch({"compare", "--store", store(), "--project", "p", "--machine", "m", "--repo",
                        repository_.directory().string(), "--format", format});
        ASSERT_EQ(output.exit_code, 0) << output.err;
        EXPECT_NE(output.out.find(expected), std::string::npos) << format << ":\n" << output.out;
        EXPECT_EQ(output.out.find("merge base"), std::string::npos) << format << ":\n"
                                                                    << output.out;
    }
}

TEST_F(GitCliTest, OutputFileAndHistory) {
    for (const double value : {100.0, 110.0, 100.0}) {
        repository_.commit("m");
        record_head({{"a", value}});
    }
    repository_.git({"checkout", "-q", "-b", "pr"});
    repository_.commit("pr change");
    record_head({{"a", 100}});

    const auto report = directory_.path() / "report.md";
    auto output = benchwatch({"compare", "--store", store(), "--project", "p", "--machine", "m",
                              "--repo", repository_.directory().string(), "--output",
                              report.string(), "--fail-on-regression"});
    EXPECT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "");
    EXPECT_TRUE(read_text(report).starts_with("## Benchmark results\n"));

    output = benchwatch({"history", "--store", store(), "--project", "p", "--machine", "m",
                         "--repo", repository_.directory().string(), "--format", "json"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto history = nlohmann::json::parse(output.out);
    ASSERT_EQ(history["benchmarks"].size(), 1u);
    // Values 100, 110, 100 on main: both pairs have |ln| = ln 1.1, a typical change of 10%.
    EXPECT_NEAR(history["benchmarks"][0]["typical_change"].get<double>(), 0.1, 1e-12);
    EXPECT_EQ(history["benchmarks"][0]["values"].size(), 3u);
}

TEST_F(GitCliTest, OutputNeverReplacesADeviceAFifoOrALink) {
    repository_.commit("m");
    record_head({{"a", 100}});
    repository_.git({"checkout", "-q", "-b", "pr"});
    repository_.commit("pr change");
    record_head({{"a", 100}});
    const auto compare_to = [&](const fs::path& output) {
        return benchwatch({"compare", "--store", store(), "--project", "p", "--machine", "m",
                           "--repo", repository_.directory().string(), "--output",
                           output.string()});
    };
    const std::string heading = "## Benchmark results\n";

    // A link to a regular file stays a link; the file gets the report and keeps its mode.
    const auto report = write("report.md", "old");
    fs::permissions(report, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    const auto link = directory_.path() / "link.md";
    fs::create_symlink(report, link);
    auto output = compare_to(link);
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_TRUE(read_text(report).starts_with(heading));
    EXPECT_EQ(fs::status(report).permissions(),
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);

    // A FIFO is written through: its reader gets the report, and it is still a FIFO.
    const auto fifo = directory_.path() / "fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string received;
    std::thread reader([&] { received = read_text(fifo); });
    output = compare_to(fifo);
    reader.join();
    EXPECT_EQ(output.exit_code, 0) << output.err;
    EXPECT_TRUE(received.starts_with(heading)) << received;
    EXPECT_TRUE(fs::is_fifo(fifo));

    // A character device like /dev/null, made here (only root may), and a link to it.
    const auto device = directory_.path() / "null";
    if (::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
        const auto device_link = directory_.path() / "null-link";
        fs::create_symlink(device, device_link);
        for (const auto& path : {device, device_link}) {
            output = compare_to(path);
            EXPECT_EQ(output.exit_code, 0) << output.err;
            EXPECT_TRUE(fs::is_character_file(device)) << path;
        }
        EXPECT_TRUE(fs::is_symlink(device_link));
    }

    // A folder is refused with the reason.
    output = compare_to(directory_.path());
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: cannot write " + directory_.path().string() +
                              ": it is a folder; pass a file's path to --output\n");

    // A folder that does not exist: the reason and the fix.
    const auto nowhere = directory_.path() / "missing" / "report.md";
    output = compare_to(nowhere);
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: cannot write " + nowhere.string() +
                              ": No such file or directory; check that its directory exists and "
                              "is writable, or pass another --output\n");
}

TEST_F(CliTest, UnknownSubcommandAndFlagAreUsageErrors) {
    auto output = benchwatch({"frobnicate"});
    EXPECT_EQ(output.exit_code, 2);
    output = benchwatch({"compare", "--format", "pdf"});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: unknown --format 'pdf' for benchwatch compare; the formats are markdown, "
              "text, json\n");
}

}  // namespace
}  // namespace benchwatch::testing
