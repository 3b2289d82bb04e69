// What could break: the default branch's history rewritten by a run of uncommitted changes (a
// dirty attempt combined by its best value with the clean one, or drawn as history), a run stored
// under a commit that does not exist, benchmarking for minutes before a missing branch is noticed,
// and history points placed at the time they were recorded instead of the time they were
// committed.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "store/store.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// 2016-03-01, 2020-06-15 and 2024-01-10, 12:00 UTC.
constexpr std::int64_t march_2016 = 1456833600;
constexpr std::int64_t june_2020 = 1592222400;
constexpr std::int64_t january_2024 = 1704888000;

class HistoryIntegrityTest : public ::testing::Test {
  protected:
    HistoryIntegrityTest() {
        repository_.write_file("lib.txt", "v1\n");
        // A harness that notes each run and prints the time in `value` as Google Benchmark JSON.
        write_text(harness_, "#!/bin/sh\necho ran >> " + (directory_.path() / "ran").string() +
                                 "\nprintf '{\"benchmarks\": [{\"name\": \"a\", \"run_type\": "
                                 "\"iteration\", \"real_time\": %s, \"time_unit\": \"ns\"}]}' "
                                 "\"$(cat " +
                                 (directory_.path() / "value").string() + ")\"\n");
        fs::permissions(harness_, fs::perms::owner_all);
    }

    // benchwatch with the test's store, project and machine, run in `where` (the repository).
    vcs::ProcessOutput benchwatch(std::vector<std::string> arguments, fs::path where = {}) {
        // After the subcommand: "import github-action-benchmark" is two words.
        const auto at = arguments.begin() + (arguments.front() == "import" ? 2 : 1);
        arguments.insert(at, {"--store", store_, "--project", "p", "--machine", "m"});
        auto environment = without_ci_variables();
        environment["NO_COLOR"] = "1";
        return run(benchwatch_command(arguments), where.empty() ? repository_.directory() : where,
                   environment);
    }

    // `benchwatch run` of the harness measuring `value` ns, with `extra` flags before "--".
    vcs::ProcessOutput run_harness(double value, std::vector<std::string> extra = {},
                                   fs::path where = {}) {
        write_text(directory_.path() / "value", std::to_string(value));
        std::vector<std::string> arguments = {"run", "--no-progress"};
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        arguments.insert(arguments.end(), {"--", harness_.string()});
        return benchwatch(arguments, where);
    }

    bool harness_ran() const { return fs::exists(directory_.path() / "ran"); }

    std::vector<model::Run> stored_runs() {
        if (!stores_on_postgres() && !fs::exists(store_)) return {};
        return store::open_store(store_)->list_runs({});
    }

    fs::path results_file(double value) {
        const auto file = directory_.path() / "results.json";
        write_text(file, R"({"benchmarks": [{"name": "a", "run_type": "iteration", "real_time": )" +
                             std::to_string(value) + R"(, "time_unit": "ns"}]})");
        return file;
    }

    json history_json() {
        const auto output = benchwatch({"history", "--format", "json"});
        EXPECT_EQ(output.exit_code, 0) << output.err;
        return json::parse(output.out);
    }

    TemporaryDirectory directory_{"benchwatch-integrity"};
    std::string store_ = test_store_url(directory_.path());
    fs::path harness_ = directory_.path() / "harness.sh";
    GitRepository repository_{directory_.path() / "repo"};
};

TEST_F(HistoryIntegrityTest, RunRefusesADirtyDefaultBranchBeforeBenchmarking) {
    const auto commit = repository_.commit("first");
    write_text(repository_.directory() / "lib.txt", "changed\n");

    const auto refused = run_harness(30);
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_EQ(refused.err,
              "error: the work tree " + repository_.directory().string() +
                  " has uncommitted changes to tracked files, so this run of " +
                  commit.substr(0, 9) +
                  " on the default branch 'main' would not measure that commit and would change "
                  "its history; commit or stash them, or pass --allow-dirty to record a dirty run "
                  "that is kept out of the history\n");
    EXPECT_FALSE(harness_ran());
    EXPECT_TRUE(stored_runs().empty());
}

TEST_F(HistoryIntegrityTest, AnAllowedDirtyRunIsStoredAsDirtyAndNeverBecomesHistory) {
    repository_.commit("first");
    ASSERT_EQ(run_harness(100).exit_code, 0);
    const auto second = repository_.commit("second");
    ASSERT_EQ(run_harness(100).exit_code, 0);

    write_text(repository_.directory() / "lib.txt", "changed\n");
    const auto dirty = run_harness(30, {"--allow-dirty"});
    ASSERT_EQ(dirty.exit_code, 0) << dirty.err;
    EXPECT_NE(dirty.err.find("the run is recorded as dirty (git.dirty=yes)"), std::string::npos)
        << dirty.err;
    const auto runs = stored_runs();
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_EQ(runs[0].environment.at("git.dirty"), "no");
    EXPECT_EQ(runs[2].commit, second);
    EXPECT_EQ(runs[2].environment.at("git.dirty"), "yes");

    // The clean 100 ns stays second's value: the dirty 30 ns is not combined into it.
    const auto history = history_json();
    EXPECT_EQ(history["runs"], 2);
    EXPECT_EQ(history["benchmarks"][0]["latest"], 100.0);

    // A commit with a dirty run only is no point of the history and never a baseline.
    repository_.git({"checkout", "--quiet", "--", "lib.txt"});
    repository_.commit("third");
    write_text(repository_.directory() / "lib.txt", "changed again\n");
    ASSERT_EQ(run_harness(20, {"--allow-dirty"}).exit_code, 0);
    EXPECT_EQ(history_json()["runs"], 2);

    repository_.git({"checkout", "--quiet", "--", "lib.txt"});
    repository_.git({"checkout", "--quiet", "-b", "pr"});
    const auto head = repository_.commit("pr");
    ASSERT_EQ(run_harness(100).exit_code, 0);
    const auto compared = benchwatch({"compare", "--format", "json"});
    ASSERT_EQ(compared.exit_code, 0) << compared.err;
    const auto report = json::parse(compared.out);
    EXPECT_EQ(report["head"], head);
    EXPECT_EQ(report["baseline"]["commit"], second);
    EXPECT_EQ(report["baseline"]["kind"], "nearest_ancestor");
    EXPECT_NEAR(report["benchmarks"][0]["base"].get<double>(), 100.0, 1e-9);
}

TEST_F(HistoryIntegrityTest, RecordRefusesADirtyDefaultBranchAndStoresGitDirty) {
    const auto first = repository_.commit("first");
    ASSERT_EQ(benchwatch({"record", results_file(100).string()}).exit_code, 0);
    write_text(repository_.directory() / "lib.txt", "changed\n");

    const auto refused = benchwatch({"record", results_file(30).string()});
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_NE(refused.err.find("has uncommitted changes to tracked files"), std::string::npos)
        << refused.err;
    EXPECT_EQ(stored_runs().size(), 1u);

    const auto allowed = benchwatch({"record", "--allow-dirty", results_file(30).string()});
    ASSERT_EQ(allowed.exit_code, 0) << allowed.err;
    const auto second = repository_.commit("second");
    // Results of another commit than HEAD did not come from this work tree.
    write_text(repository_.directory() / "lib.txt", "changed again\n");
    const auto older = benchwatch({"record", "--commit", first, results_file(90).string()});
    ASSERT_EQ(older.exit_code, 0) << older.err;
    EXPECT_EQ(older.err, "");

    const auto runs = stored_runs();
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_EQ(runs[0].environment.at("git.dirty"), "no");
    EXPECT_EQ(runs[1].environment.at("git.dirty"), "yes");
    EXPECT_EQ(runs[2].environment.at("git.dirty"), "no");
    EXPECT_NE(second, first);
    EXPECT_EQ(history_json()["benchmarks"][0]["latest"], 90.0);
}

TEST_F(HistoryIntegrityTest, ADirtyPullRequestRunIsRecordedWithAWarningAndCompared) {
    repository_.commit("first");
    ASSERT_EQ(run_harness(100).exit_code, 0);
    repository_.git({"checkout", "--quiet", "-b", "pr"});
    const auto head = repository_.commit("pr");
    write_text(repository_.directory() / "lib.txt", "trying something\n");

    const auto output = run_harness(200);
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_NE(output.err.find("warning: the work tree " + repository_.directory().string() +
                              " has uncommitted changes to tracked files; the run is recorded as "
                              "dirty (git.dirty=yes): it never becomes default-branch history, and "
                              "compare uses it only while " +
                              head.substr(0, 9) + " has no clean run\n"),
              std::string::npos)
        << output.err;
    const auto compared = benchwatch({"compare", "--format", "json"});
    ASSERT_EQ(compared.exit_code, 0) << compared.err;
    const auto report = json::parse(compared.out);
    EXPECT_EQ(report["head"], head);
    EXPECT_EQ(report["benchmarks"][0]["head"], 200.0);
}

TEST_F(HistoryIntegrityTest, UnknownCommitsAreRefused) {
    repository_.commit("first");
    const auto inside = benchwatch({"record", "--commit", "1234567", results_file(1).string()});
    EXPECT_EQ(inside.exit_code, 2);
    EXPECT_EQ(inside.err, "error: --commit '1234567': the repository in " +
                              repository_.directory().string() +
                              " has no such commit; give a commit it has (a SHA, prefix, branch "
                              "or tag), fetch it first, or pass --repo with a clone that has it\n");

    const auto outside_dir = directory_.path() / "outside";
    fs::create_directories(outside_dir);
    for (const std::string commit : {"hello-world", "1234567", "it's\nme"}) {
        const auto outside =
            benchwatch({"record", "--commit", commit, "--branch", "main", results_file(1).string()},
                       outside_dir);
        EXPECT_EQ(outside.exit_code, 2) << commit;
        EXPECT_TRUE(outside.err.ends_with(
            "': outside a git repository a commit must be a full SHA (40 or 64 hex digits); give "
            "the full SHA, or run inside the repository or pass --repo with a clone of it\n"))
            << outside.err;
        EXPECT_EQ(std::count(outside.err.begin(), outside.err.end(), '\n'), 1) << outside.err;
    }
    EXPECT_TRUE(stored_runs().empty());

    const std::string full(40, 'A');
    const auto accepted = benchwatch(
        {"record", "--commit", full, "--branch", "main", results_file(1).string()}, outside_dir);
    ASSERT_EQ(accepted.exit_code, 0) << accepted.err;
    ASSERT_EQ(stored_runs().size(), 1u);
    EXPECT_EQ(stored_runs()[0].commit, std::string(40, 'a'));
}

TEST_F(HistoryIntegrityTest, RunResolvesGitBeforeTheHarness) {
    const auto commit = repository_.commit("first");
    repository_.git({"checkout", "--quiet", "--detach"});
    const auto detached = run_harness(1);
    EXPECT_EQ(detached.exit_code, 2);
    EXPECT_EQ(detached.err,
              "error: no branch given and none is checked out (outside git or on a detached "
              "HEAD); pass --branch NAME, the default branch's name for runs that should become "
              "history\n");
    EXPECT_FALSE(harness_ran());

    const auto outside_dir = directory_.path() / "outside";
    fs::create_directories(outside_dir);
    const auto outside = run_harness(1, {"--branch", "main"}, outside_dir);
    EXPECT_EQ(outside.exit_code, 2);
    EXPECT_TRUE(outside.err.starts_with("error: no commit given and ")) << outside.err;
    const auto unknown = run_harness(1, {"--branch", "main", "--commit", "nosuch"});
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_TRUE(unknown.err.starts_with("error: --commit 'nosuch': the repository in "))
        << unknown.err;
    const auto bad_fact = run_harness(1, {"--branch", "main", "--env", "novalue"});
    EXPECT_EQ(bad_fact.exit_code, 2);
    EXPECT_FALSE(harness_ran());
    EXPECT_TRUE(stored_runs().empty());
    EXPECT_FALSE(commit.empty());
}

TEST_F(HistoryIntegrityTest, HistoryPointsAreAtTheirCommitTimes) {
    // Commits of eight years, all benchmarked in one afternoon.
    const std::string commits[] = {repository_.commit_at("old", march_2016),
                                   repository_.commit_at("middle", june_2020),
                                   repository_.commit_at("new", january_2024)};
    for (const auto& commit : commits) {
        repository_.git({"checkout", "--quiet", commit});
        ASSERT_EQ(benchwatch({"record", "--branch", "main", results_file(100).string()}).exit_code,
                  0);
    }
    repository_.git({"checkout", "--quiet", "main"});

    const auto text = benchwatch({"history"});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_TRUE(text.out.starts_with(
        "History of p on m: 3 runs from 2016-03-01 to 2024-01-10 (git order)\n"))
        << text.out;
    const auto history = history_json();
    const auto& points = history["benchmarks"][0]["values"];
    ASSERT_EQ(points.size(), 3u);
    EXPECT_EQ(points[0]["commit"], commits[0]);
    EXPECT_EQ(points[0]["time"], "2016-03-01T12:00:00Z");
    EXPECT_EQ(points[1]["time"], "2020-06-15T12:00:00Z");
    EXPECT_EQ(points[2]["time"], "2024-01-10T12:00:00Z");

    const auto site = directory_.path() / "public";
    ASSERT_EQ(benchwatch({"site", site.string()}).exit_code, 0);
    const auto projects = json::parse(read_text(site / "data" / "projects.json"));
    EXPECT_EQ(projects["projects"][0]["machines"][0]["first_time"], march_2016 * 1000);
    EXPECT_EQ(projects["projects"][0]["machines"][0]["last_time"], january_2024 * 1000);
}

TEST_F(HistoryIntegrityTest, WithoutGitImportedPointsSitAtTheirCommitTimes) {
    // Entries stored by the action long after their commits, within three seconds.
    const auto entry = [](char digit, const std::string& timestamp, double value,
                          std::int64_t date_ms) {
        return R"({"commit": {"id": ")" + std::string(40, digit) +
               R"(", "message": "m", "timestamp": ")" + timestamp + R"(", "url": ""}, "date": )" +
               std::to_string(date_ms) + R"(, "tool": "go", "benches": [{"name": "BenchmarkA", )" +
               R"("value": )" + std::to_string(value) + R"(, "unit": "ns/op"}]})";
    };
    const auto file = directory_.path() / "data.js";
    write_text(file,
               "window.BENCHMARK_DATA = {\"lastUpdate\": 1, \"repoUrl\": \"\", "
               "\"entries\": {\"Go\": [" +
                   entry('1', "2016-03-01T12:00:00Z", 10, 1800000000000) + ", " +
                   entry('2', "2020-06-15T12:00:00Z", 20, 1800000001000) + ", " +
                   entry('3', "2024-01-10T13:00:00+01:00", 30, 1800000002000) + "]}}\n");
    const auto outside_dir = directory_.path() / "outside";
    fs::create_directories(outside_dir);
    const auto imported =
        benchwatch({"import", "github-action-benchmark", file.string()}, outside_dir);
    ASSERT_EQ(imported.exit_code, 0) << imported.err;

    const auto output = benchwatch({"history", "--format", "json"}, outside_dir);
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto history = json::parse(output.out);
    EXPECT_EQ(history["order"], "recorded");
    const auto& points = history["benchmarks"][0]["values"];
    ASSERT_EQ(points.size(), 3u);
    EXPECT_EQ(points[0]["value"], 10.0);
    EXPECT_EQ(points[1]["value"], 20.0);
    EXPECT_EQ(points[2]["value"], 30.0);
    EXPECT_EQ(points[0]["time"], "2016-03-01T12:00:00Z");
    EXPECT_EQ(points[2]["time"], "2024-01-10T12:00:00Z");
    const auto text = benchwatch({"history"}, outside_dir);
    EXPECT_TRUE(text.out.starts_with(
        "History of p on m: 3 runs from 2016-03-01 to 2024-01-10 (recorded order)\n"))
        << text.out;
}

}  // namespace
}  // namespace benchwatch::testing
