// What could break: a commit id that benchwatch did not get from git (a store written by an
// import or a history branch of any origin, an imported file, a run file) used as a folder name
// or a git argument, so that `compare --confirm` deletes a folder outside its checkouts; a folder
// in the checkouts' place that benchwatch did not make deleted; a checkout killed half-way reused
// on every later run; a checkout folder or the folder of checkouts swapped for a link, so that
// a build runs or a removal reaches outside; a build that deletes its own folder stopping a whole
// backfill; a `--remote` or `--branch` that git reads as an option running a command.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include "store/store.hpp"
#include "support/postgres.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view refusal = "is not a full commit SHA (40 or 64 lowercase hex digits)";

// Runs `sql`, which returns no rows, on the store at `url`; "" when it succeeded, else why not.
std::string execute(const std::string& url, const std::string& sql) {
    if (stores_on_postgres()) return postgres_query_text(url, sql);
    sqlite3* database = nullptr;
    std::string problem;
    if (sqlite3_open_v2(url.c_str(), &database, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK ||
        sqlite3_exec(database, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
        problem = sqlite3_errmsg(database);
    sqlite3_close(database);
    return problem;
}

// A github-action-benchmark history of one suite "S": BM_A at about 100 ns at each of `commits`.
std::string history_of(const std::vector<std::string>& commits) {
    nlohmann::json entries = nlohmann::json::array();
    for (std::size_t i = 0; i < commits.size(); ++i)
        entries.push_back(
            {{"commit", {{"id", commits[i]}}},
             {"date", 1000 * (i + 1)},
             {"benches", {{{"name", "BM_A"}, {"value", 99 + i % 3}, {"unit", "ns"}}}}});
    return "window.BENCHMARK_DATA = " + nlohmann::json{{"entries", {{"S", entries}}}}.dump();
}

// A Google Benchmark file of BM_A at `nanoseconds`.
std::string google_benchmark_file(int nanoseconds) {
    return fmt::format(
        "{{\"context\": {{\"library_build_type\": \"release\"}}, \"benchmarks\": [{{\"name\": "
        "\"BM_A\", \"run_type\": \"iteration\", \"real_time\": {}, \"time_unit\": \"ns\"}}]}}\n",
        nanoseconds);
}

class OutsideCommitsTest : public ::testing::Test {
  protected:
    // A project whose suite prints BM_A at the time in its file `value`, built by `build`,
    // its commits checked out under scratch/commits.
    void write_project(const std::string& build = "true") {
        repository_.write_file("value", "200\n");
        repository_.write_file("bench.sh",
                               "printf '{\"context\": {\"library_build_type\": \"release\"}, "
                               "\"benchmarks\": [{\"name\": \"BM_A\", \"run_type\": \"iteration\", "
                               "\"real_time\": %s, \"time_unit\": \"ns\"}]}' \"$(cat value)\"\n");
        repository_.write_file(
            "benchwatch.toml",
            fmt::format("project = \"p\"\nmachine = \"m\"\n[measure]\nbuild = {}\n"
                        "run = \"sh bench.sh\"\nworktrees = {}\n",
                        nlohmann::json(build).dump(), nlohmann::json(commits().string()).dump()));
    }

    vcs::ProcessOutput benchwatch(const std::vector<std::string>& arguments,
                                  EnvironmentOverrides extra = {}) {
        auto environment = without_ci_variables();
        environment["GIT_CONFIG_GLOBAL"] = "/dev/null";
        environment["GIT_CONFIG_NOSYSTEM"] = "1";
        environment.merge(extra);
        return run(benchwatch_command(arguments), repository_.directory(), environment);
    }

    vcs::ProcessOutput backfill(EnvironmentOverrides extra = {}) {
        return benchwatch({"backfill", "--store", store_, "--no-progress"}, std::move(extra));
    }

    fs::path commits() const { return scratch_.path() / "commits"; }

    // The commits of the store's runs, oldest run first.
    std::vector<std::string> stored() const {
        std::vector<std::string> commits;
        for (const auto& run : store::open_store(store_)->list_runs({}))
            commits.push_back(run.commit);
        return commits;
    }

    TemporaryDirectory scratch_{"benchwatch-outside-commits"};
    GitRepository repository_{scratch_.path() / "repo", "pr"};
    std::string store_ = test_store_url(scratch_.path());
};

class StoredCommitTest : public OutsideCommitsTest {
  protected:
    // Imports ten runs of main, makes the latest one's commit `stored_commit` in the store, and
    // runs compare --confirm on a pull request that is twice as slow.
    vcs::ProcessOutput confirm_against(const std::string& stored_commit) {
        write_project();
        repository_.commit("a slowdown");
        std::vector<std::string> commits;
        for (int i = 1; i <= 10; ++i) commits.push_back(fake_commit(fmt::format("main{}", i)));
        const auto data = scratch_.path() / "data.js";
        write_text(data, history_of(commits));
        const auto imported = benchwatch({"import", "github-action-benchmark", data.string(),
                                          "--store", store_, "--branch", "main"});
        EXPECT_EQ(imported.exit_code, 0) << imported.err;
        EXPECT_EQ(execute(store_, fmt::format("UPDATE runs SET commit_id = '{}' WHERE "
                                              "commit_id = '{}'",
                                              stored_commit, commits.back())),
                  "");
        const auto head = scratch_.path() / "head.json";
        write_text(head, google_benchmark_file(200));
        const auto recorded = benchwatch({"record", "--store", store_, head.string()});
        EXPECT_EQ(recorded.exit_code, 0) << recorded.err;
        return benchwatch({"compare", "--store", store_, "--confirm"});
    }

    std::string expected_error(const std::string& stored_commit) const {
        return fmt::format(
            "error: the baseline run of project 'p' on machine 'm' in the store: commit '{}' {}; "
            "record that commit's run again under its full SHA, or pass --base with a commit "
            "whose run has one\n",
            stored_commit, refusal);
    }
};

TEST_F(StoredCommitTest, AStoredBaselineThatIsAPathDeletesNothingAndIsNamed) {
    const auto victim = scratch_.path() / "victim";
    write_text(victim / "marker", "kept\n");
    const auto output = confirm_against(victim.string());
    EXPECT_EQ(output.exit_code, 2) << output.out;
    EXPECT_EQ(output.err, expected_error(victim.string()));
    EXPECT_EQ(read_text(victim / "marker"), "kept\n");
}

TEST_F(StoredCommitTest, AStoredBaselineOfDotDotLeavesTheRepositoryWhole) {
    const auto output = confirm_against("..");
    EXPECT_EQ(output.exit_code, 2) << output.out;
    EXPECT_EQ(output.err, expected_error(".."));
    // The checkouts' folder is .git/benchwatch-worktrees unless configured: ".." would be .git.
    EXPECT_TRUE(fs::exists(repository_.directory() / ".git" / "HEAD"));
    EXPECT_EQ(repository_.git({"status", "--porcelain"}), "");
}

TEST_F(OutsideCommitsTest, ImportRefusesAnEntryWhoseIdIsNotAFullSha) {
    const auto data = scratch_.path() / "data.js";
    write_text(data, history_of({fake_commit("ok"), "../.."}));
    const auto output = benchwatch({"import", "github-action-benchmark", data.string(), "--store",
                                    store_, "--project", "p", "--machine", "m"});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, fmt::format("error: {}:1:234: commit '../..' {}; make the entry's id "
                                      "its commit's full SHA\n",
                                      data.string(), refusal));
    EXPECT_EQ(stored(), std::vector<std::string>{}) << "nothing imported";
}

TEST_F(OutsideCommitsTest, ACheckoutFolderThatBenchwatchDidNotMakeIsLeftAlone) {
    write_project();
    const auto sha = repository_.commit("one");
    repository_.git({"branch", "main"});
    write_text(commits() / sha / "precious.txt", "the user's\n");
    const auto output = backfill();
    EXPECT_EQ(output.exit_code, 2) << output.out;
    const auto expected = fmt::format(
        "error: {} is in the way of a checkout of {} and benchwatch did not make it (git knows no "
        "work tree there and {}.benchwatch is missing); move it away, or set [measure] worktrees "
        "to another folder\n",
        (commits() / sha).string(), sha.substr(0, 12), sha);
    EXPECT_TRUE(output.err.ends_with(expected)) << output.err;
    EXPECT_EQ(read_text(commits() / sha / "precious.txt"), "the user's\n");
}

TEST_F(OutsideCommitsTest, ACheckoutKilledHalfWayIsMadeAgain) {
    write_project();
    const auto sha = repository_.commit("one");
    repository_.git({"branch", "main"});
    // git, except that `worktree add` stops once it has written HEAD, before any file, and
    // SIGKILLs benchwatch: what a CI job cancelled during a checkout leaves.
    const auto real_git = run_checked({"sh", "-c", "command -v git"}, scratch_.path()).out;
    const auto bin = scratch_.path() / "bin";
    write_text(bin / "git",
               fmt::format("#!/bin/sh\n"
                           "if [ \"$3\" = worktree ] && [ \"$4\" = add ]; then\n"
                           "  dir=$2; shift 4\n"
                           "  {0} -C \"$dir\" worktree add --no-checkout \"$@\" >/dev/null 2>&1\n"
                           "  kill -KILL $PPID; exit 137\n"
                           "fi\n"
                           "exec {0} \"$@\"\n",
                           real_git.substr(0, real_git.find('\n'))));
    fs::permissions(bin / "git", fs::perms::owner_all);
    const char* path = std::getenv("PATH");
    const auto killed = backfill({{"PATH", bin.string() + ":" + (path ? path : "/usr/bin:/bin")}});
    ASSERT_EQ(killed.exit_code, -1) << killed.err;  // killed by a signal
    ASSERT_TRUE(fs::exists(commits() / sha / ".git"));
    ASSERT_FALSE(fs::exists(commits() / sha / "bench.sh"));

    for (int rerun = 0; rerun < 2; ++rerun) {
        const auto output = backfill();
        EXPECT_EQ(output.exit_code, 0) << output.err;
        EXPECT_EQ(output.out,
                  rerun == 0 ? fmt::format("recorded run 1 of {} (project p, machine m, branch "
                                           "main, attempt 1, 1 result)\nbackfill of main (1 "
                                           "commit): 1 recorded, 0 already had a run, 0 failed\n",
                                           sha.substr(0, 9))
                             : "backfill of main (1 commit): 0 recorded, 1 already had a run, 0 "
                               "failed\n");
    }
    EXPECT_EQ(stored(), std::vector<std::string>{sha});
    EXPECT_TRUE(fs::exists(commits() / sha / "bench.sh"));
}

TEST_F(OutsideCommitsTest, ABuildThatDeletesItsFolderSkipsThatCommitOnly) {
    write_project("if [ -f selfdestruct ]; then rm -rf \"$PWD\"; fi");
    repository_.git({"checkout", "--quiet", "-b", "main"});
    const auto one = repository_.commit("one");
    repository_.write_file("selfdestruct", "");
    const auto two = repository_.commit("two");
    repository_.git({"rm", "--quiet", "selfdestruct"});
    const auto three = repository_.commit("three");

    const auto output = backfill();
    EXPECT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out,
              fmt::format("recorded run 1 of {} (project p, machine m, branch main, attempt 1, 1 "
                          "result)\nrecorded run 2 of {} (project p, machine m, branch main, "
                          "attempt 1, 1 result)\nbackfill of main (3 commits): 2 recorded, 0 "
                          "already had a run, 1 failed\n",
                          one.substr(0, 9), three.substr(0, 9)));
    EXPECT_NE(output.err.find(fmt::format(
                  "warning: the checkout of {} in {} is gone: a step of the [measure] recipe "
                  "removed it; change the recipe so that it leaves the folder it runs in; "
                  "skipped, nothing recorded\n",
                  two.substr(0, 12), (commits() / two).string())),
              std::string::npos)
        << output.err;
    EXPECT_EQ(stored(), (std::vector<std::string>{one, three}));

    // Run again, the commit whose folder went is checked out anew (and skipped again).
    const auto again = backfill();
    EXPECT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(again.out,
              "backfill of main (3 commits): 0 recorded, 2 already had a run, 1 failed\n");
}

// A kept checkout swapped for a link to another work tree of its commit (here the repository
// itself) is neither built in nor removed through: one line, and the link's target untouched.
TEST_F(OutsideCommitsTest, ACheckoutFolderSwappedForALinkIsNeitherUsedNorFollowed) {
    write_project("touch built-here; test -f ../go-ahead");
    const auto sha = repository_.commit("one");
    repository_.git({"branch", "main"});
    const auto failed = backfill();
    ASSERT_EQ(failed.exit_code, 1) << failed.err;  // its build failed, its checkout kept
    ASSERT_TRUE(fs::exists(commits() / sha / "built-here")) << failed.err;
    fs::rename(commits() / sha, scratch_.path() / "moved");
    fs::create_directory_symlink(repository_.directory(), commits() / sha);

    const auto output = backfill();
    EXPECT_EQ(output.exit_code, 2) << output.out;
    const auto expected = fmt::format(
        "error: refusing to check a commit out at {}: it is not a folder directly inside {}\n",
        (commits() / sha).string(), commits().string());
    EXPECT_TRUE(output.err.ends_with(expected)) << output.err;
    EXPECT_FALSE(fs::exists(repository_.directory() / "built-here"));
    EXPECT_EQ(repository_.git({"status", "--porcelain"}), "");
    EXPECT_TRUE(fs::is_symlink(commits() / sha));
}

// The checkouts' folder swapped for a link while git runs (here by a git that does so when asked
// to remove a work tree) makes benchwatch remove only what it made in the folder it checked,
// and write nothing through the link: the folder the link points to, made to look like
// benchwatch's, keeps everything.
TEST_F(OutsideCommitsTest, ACheckoutsFolderSwappedForALinkMidWayIsNotFollowed) {
    write_project();
    const auto sha = repository_.commit("one");
    repository_.git({"branch", "main"});
    const std::string started = fmt::format("benchwatch checkout started {}\n", sha);
    write_text(commits() / sha / "half-made.txt", "benchwatch's\n");
    write_text(commits() / (sha + ".benchwatch"), started);
    const auto victim = scratch_.path() / "victim";
    write_text(victim / sha / "precious.txt", "the user's\n");
    write_text(victim / (sha + ".benchwatch"), started);

    const auto real_git = run_checked({"sh", "-c", "command -v git"}, scratch_.path()).out;
    const auto bin = scratch_.path() / "bin";
    write_text(bin / "git", fmt::format("#!/bin/sh\n"
                                        "if [ \"$3\" = worktree ] && [ \"$4\" = remove ]; then\n"
                                        "  mv {1} {1}.real && ln -s {2} {1}; exit 1\n"
                                        "fi\n"
                                        "exec {0} \"$@\"\n",
                                        real_git.substr(0, real_git.find('\n')), commits().string(),
                                        victim.string()));
    fs::permissions(bin / "git", fs::perms::owner_all);
    const char* path = std::getenv("PATH");
    const auto output = backfill({{"PATH", bin.string() + ":" + (path ? path : "/usr/bin:/bin")}});

    EXPECT_EQ(output.exit_code, 2) << output.out;
    const auto expected = fmt::format(
        "error: the folder for checked-out commits {} was replaced while benchwatch used it (by "
        "a link or another folder); nothing was written or removed there; put the folder back, "
        "or set [measure] worktrees to another folder\n",
        commits().string());
    EXPECT_TRUE(output.err.ends_with(expected)) << output.err;
    EXPECT_EQ(read_text(victim / sha / "precious.txt"), "the user's\n");
    EXPECT_EQ(read_text(victim / (sha + ".benchwatch")), started);
    EXPECT_FALSE(fs::exists(fs::path(commits().string() + ".real") / sha));
}

// A clone of a bare repository, "origin", with one commit.
class RemoteTest : public OutsideCommitsTest {
  protected:
    void SetUp() override {
        run_checked({"git", "init", "--quiet", "--bare", remote().string()}, scratch_.path());
        repository_.git({"remote", "add", "origin", remote().string()});
        repository_.write_file("code.txt", "code\n");
        commit_ = repository_.commit("code");
    }

    fs::path remote() const { return scratch_.path() / "remote.git"; }

    std::string commit_;
};

TEST_F(RemoteTest, ARemoteOrBranchThatGitWouldReadAsAnOptionIsRefused) {
    const std::string command = "--upload-pack=touch ran;";
    for (const std::string action : {"pull", "push"}) {
        const auto output =
            benchwatch({"history-branch", action, "--store", store_, "--remote=" + command});
        EXPECT_EQ(output.exit_code, 2) << action;
        EXPECT_EQ(output.err,
                  "error: --remote '--upload-pack=touch ran;' is not the name of a git remote; "
                  "pass --remote with the name of one, such as origin (git remote lists them)\n")
            << action;
        const auto branch =
            benchwatch({"history-branch", action, "--store", store_, "--branch=" + command});
        EXPECT_EQ(branch.exit_code, 2) << action;
        EXPECT_EQ(branch.err,
                  "error: --branch '--upload-pack=touch ran;' is not a valid branch name; pass "
                  "--branch with one that git check-ref-format --branch accepts, such as "
                  "benchwatch-data\n")
            << action;
    }
    EXPECT_FALSE(fs::exists(repository_.directory() / "ran"));
    for (const std::string remote : {"/tmp", "ext::sh -c touch% ran", "a..b"}) {
        const auto output =
            benchwatch({"history-branch", "pull", "--store", store_, "--remote", remote});
        EXPECT_EQ(output.exit_code, 2) << remote;
        EXPECT_TRUE(output.err.starts_with("error: --remote '" + remote + "' is not the name"))
            << output.err;
    }
    EXPECT_FALSE(fs::exists(repository_.directory() / "ran"));
}

TEST_F(RemoteTest, APulledRunFileWhoseCommitIsNotAFullShaIsRefused) {
    const auto results = scratch_.path() / "results.json";
    write_text(results, google_benchmark_file(100));
    ASSERT_EQ(benchwatch({"record", "--store", store_, "--project", "p", "--machine", "m",
                          "--branch", "main", results.string()})
                  .exit_code,
              0);
    ASSERT_EQ(benchwatch({"history-branch", "push", "--store", store_}).exit_code, 0);
    // Someone rewrites the run file's commit on the branch by hand.
    repository_.git({"fetch", "--quiet", "origin", "benchwatch-data"});
    repository_.git({"checkout", "--quiet", "-b", "benchwatch-data", "FETCH_HEAD"});
    const auto file = repository_.git({"ls-files", "runs"});
    auto run = nlohmann::json::parse(read_text(repository_.directory() / file));
    run["commit"] = "../..";
    repository_.write_file(file, run.dump(2));
    repository_.commit("point elsewhere");
    repository_.git({"push", "--quiet", "origin", "benchwatch-data"});
    repository_.git({"checkout", "--quiet", "pr"});

    const auto fresh = test_store_url(scratch_.path(), "fresh");
    const auto output = benchwatch({"history-branch", "pull", "--store", fresh});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_TRUE(output.err.starts_with(fmt::format(
        "error: origin/benchwatch-data:{}: commit '../..' {}; a run file names its commit by the "
        "full SHA",
        file, refusal)))
        << output.err;
    EXPECT_EQ(output.err.find('\n'), output.err.size() - 1) << output.err;
}

}  // namespace
}  // namespace benchwatch::testing
