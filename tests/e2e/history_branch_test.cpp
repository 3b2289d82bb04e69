// What could break: runs lost when two CI jobs push the history branch at the same moment, runs
// stored twice by repeated pulls, a push that touches the user's work tree or index, a first
// pull (no branch yet) failing the job, or a malformed run file half-imported.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <thread>

#include "store/store.hpp"
#include "store/store_url.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

// A Google Benchmark file with one benchmark whose time is `nanoseconds`.
std::string google_benchmark_file(double nanoseconds) {
    return R"({"context": {"library_build_type": "release"}, "benchmarks": [{"name": "copy", )"
           R"("run_type": "iteration", "iterations": 10, "real_time": )" +
           std::to_string(nanoseconds) + R"(, "cpu_time": 1, "time_unit": "ns"}]})" + "\n";
}

// A bare repository as the remote, and two clones of it ("a" and "b", as two CI jobs would
// have), each with its own store.
class HistoryBranchTest : public ::testing::Test {
  protected:
    void SetUp() override {
        run_checked({"git", "init", "--quiet", "--bare", remote().string()}, folder_.path());
        for (auto* clone : {&a_, &b_}) {
            clone->git({"remote", "add", "origin", remote().string()});
            clone->write_file("code.txt", "the project's code\n");
            commit_ = clone->commit("code");
        }
    }

    fs::path remote() const { return folder_.path() / "remote.git"; }
    // The store called `name`, made on first use.
    const std::string& store_of(const std::string& name) const {
        auto [at, made] = stores_.try_emplace(name);
        if (made) at->second = test_store_url(folder_.path(), name);
        return at->second;
    }

    // benchwatch run in `clone`, seeing no CI variables and no user or system git configuration.
    static vcs::ProcessOutput benchwatch(const GitRepository& clone,
                                         const std::vector<std::string>& arguments) {
        auto environment = without_ci_variables();
        environment["GIT_CONFIG_GLOBAL"] = "/dev/null";
        environment["GIT_CONFIG_NOSYSTEM"] = "1";
        return run(benchwatch_command(arguments), clone.directory(), environment);
    }

    // Records one run of "copy" taking `nanoseconds` into the store `store`.
    void record(const GitRepository& clone, const std::string& store, double nanoseconds,
                const std::string& project = "p", const std::string& machine = "m") {
        const auto file = folder_.path() / ("results-" + std::to_string(++files_) + ".json");
        write_text(file, google_benchmark_file(nanoseconds));
        const auto output = benchwatch(
            clone, {"record", "--store", store_of(store), "--project", project, "--machine",
                    machine, "--commit", commit_, "--branch", "main", file.string()});
        ASSERT_EQ(output.exit_code, 0) << output.err;
    }

    vcs::ProcessOutput history_branch(const GitRepository& clone, const std::string& action,
                                      const std::string& store,
                                      const std::vector<std::string>& filters = {}) {
        std::vector<std::string> arguments{"history-branch", action, "--store", store_of(store)};
        arguments.insert(arguments.end(), filters.begin(), filters.end());
        return benchwatch(clone, arguments);
    }

    std::vector<model::Run> runs_of(const std::string& store) const {
        auto opened = store::open_store(store_of(store));
        auto runs = opened->list_runs({});
        std::vector<std::int64_t> ids;
        for (const auto& run : runs) ids.push_back(run.id);
        auto results = opened->results(ids);
        for (auto& run : runs) run.results = results[run.id];
        return runs;
    }

    // The content hashes of a store's runs, sorted: which runs it has, whatever their ids.
    std::vector<std::string> hashes_of(const std::string& store) const {
        std::vector<std::string> hashes;
        for (const auto& run : runs_of(store)) hashes.push_back(run.content_hash);
        std::sort(hashes.begin(), hashes.end());
        return hashes;
    }

    TemporaryDirectory folder_{"benchwatch-history-branch"};
    GitRepository a_{folder_.path() / "a"};
    GitRepository b_{folder_.path() / "b"};
    std::string commit_;
    mutable std::map<std::string, std::string> stores_;  // name → URL
    int files_ = 0;
};

// Makes `clone`'s pushes wait, after git has seen the branch's tip and before it sends, until
// both clones have reached that point: the two pushes then race for the same old tip.
void hold_pushes_at_barrier(const GitRepository& clone, const std::string& name,
                            const fs::path& barrier) {
    const auto hook = clone.directory() / ".git" / "hooks" / "pre-push";
    write_text(hook, "#!/bin/sh\ncat >/dev/null\ntouch '" + (barrier / name).string() +
                         "'\ntries=0\n"
                         "while [ ! -e '" +
                         (barrier / "a").string() + "' ] || [ ! -e '" + (barrier / "b").string() +
                         "' ]; do\n"
                         "  tries=$((tries + 1)); [ $tries -gt 600 ] && break; sleep 0.05\n"
                         "done\n");
    fs::permissions(hook, fs::perms::owner_all);
}

TEST_F(HistoryBranchTest, TwoJobsPushingAtOnceBothLandEveryTime) {
    const auto barrier = folder_.path() / "barrier";
    hold_pushes_at_barrier(a_, "a", barrier);
    hold_pushes_at_barrier(b_, "b", barrier);
    constexpr int rounds = 3;
    for (int round = 1; round <= rounds; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        fs::remove_all(barrier);
        fs::create_directories(barrier);
        record(a_, "a", 100 + round);
        record(b_, "b", 200 + round);
        vcs::ProcessOutput from_a;
        vcs::ProcessOutput from_b;
        std::thread job_a([&] { from_a = history_branch(a_, "push", "a"); });
        std::thread job_b([&] { from_b = history_branch(b_, "push", "b"); });
        job_a.join();
        job_b.join();
        ASSERT_EQ(from_a.exit_code, 0) << from_a.err;
        ASSERT_EQ(from_b.exit_code, 0) << from_b.err;
        // Both fetched the same tip, so exactly one was overtaken and tried again.
        const auto already = std::to_string(round - 1);
        const std::string first =
            "pushed 1 run to origin/benchwatch-data; " + already + " already there\n";
        const std::string second =
            "pushed 1 run to origin/benchwatch-data on attempt 2 (another "
            "job pushed first); " +
            already + " already there\n";
        EXPECT_TRUE((from_a.out == first && from_b.out == second) ||
                    (from_a.out == second && from_b.out == first))
            << from_a.out << from_b.out;
    }

    const auto pulled = history_branch(a_, "pull", "fresh");
    ASSERT_EQ(pulled.exit_code, 0) << pulled.err;
    EXPECT_EQ(pulled.out, "pulled 6 runs from origin/benchwatch-data (0 already stored)\n");
    auto expected = hashes_of("a");
    const auto of_b = hashes_of("b");
    expected.insert(expected.end(), of_b.begin(), of_b.end());
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(expected.size(), 6U);
    EXPECT_EQ(hashes_of("fresh"), expected);
    // One file per run on the branch.
    const auto listing =
        run_checked({"git", "ls-tree", "-r", "--name-only", "benchwatch-data"}, remote()).out;
    EXPECT_EQ(std::count(listing.begin(), listing.end(), '\n'), 6) << listing;
}

TEST_F(HistoryBranchTest, PullingTwiceStoresEachRunOnceWithEveryField) {
    record(a_, "a", 100);
    record(a_, "a", 150);
    ASSERT_EQ(history_branch(a_, "push", "a").out,
              "pushed 2 runs to origin/benchwatch-data; 0 already there\n");

    const auto first = history_branch(b_, "pull", "b");
    ASSERT_EQ(first.exit_code, 0) << first.err;
    EXPECT_EQ(first.out, "pulled 2 runs from origin/benchwatch-data (0 already stored)\n");
    const auto second = history_branch(b_, "pull", "b");
    EXPECT_EQ(second.out, "pulled 0 runs from origin/benchwatch-data (2 already stored)\n");

    const auto original = runs_of("a");
    const auto pulled = runs_of("b");
    ASSERT_EQ(pulled.size(), 2U);
    for (std::size_t i = 0; i < pulled.size(); ++i) {
        EXPECT_EQ(pulled[i].content_hash, original[i].content_hash);
        EXPECT_EQ(pulled[i].attempt, original[i].attempt);
        EXPECT_EQ(pulled[i].recorded_at_ms, original[i].recorded_at_ms);
        EXPECT_EQ(pulled[i].environment, original[i].environment);
        EXPECT_EQ(pulled[i].results, original[i].results);
    }
    // What b pulled is on the branch already: b has nothing to push.
    EXPECT_EQ(history_branch(b_, "push", "b").out,
              "nothing to push: origin/benchwatch-data has all 2 runs of the store\n");
}

TEST_F(HistoryBranchTest, PushLeavesTheWorkTreeAndIndexAlone) {
    record(a_, "a", 100);
    a_.write_file("code.txt", "staged change\n");
    write_text(a_.directory() / "code.txt", "unstaged change\n");
    const auto state = [this] {
        return a_.git({"status", "--porcelain=v1", "--branch", "--untracked-files=all"}) + "|" +
               a_.git({"diff", "--cached"}) + "|" + a_.git({"diff"}) + "|" +
               a_.git({"rev-parse", "HEAD"}) + "|" + a_.git({"ls-files", "--stage"});
    };
    const auto before = state();
    const auto pushed = history_branch(a_, "push", "a");
    ASSERT_EQ(pushed.exit_code, 0) << pushed.err;
    EXPECT_EQ(state(), before);
}

TEST_F(HistoryBranchTest, TheFirstPullBeforeAnyPushSaysSoAndSucceeds) {
    const auto pulled = history_branch(a_, "pull", "a");
    EXPECT_EQ(pulled.exit_code, 0) << pulled.err;
    EXPECT_EQ(pulled.out,
              "origin/benchwatch-data does not exist yet: nothing to pull (push creates it)\n");
    EXPECT_EQ(pulled.err, "");
}

TEST_F(HistoryBranchTest, PushingAMissingOrEmptyStoreCreatesNoBranch) {
    const auto missing = history_branch(a_, "push", "a");
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_EQ(missing.err, "error: no store at " + store::without_credentials(store_of("a")) +
                               "; record a run first (benchwatch record) or pass --store\n");
    record(a_, "a", 100);
    // A project the store has no runs of, while it has others, is named as a likely typo.
    const auto other = history_branch(a_, "push", "a", {"--project", "other"});
    EXPECT_EQ(other.exit_code, 2);
    EXPECT_EQ(other.err, "error: no project 'other' in " +
                             store::without_credentials(store_of("a")) + "; projects: p\n");
    EXPECT_EQ(
        run({"git", "rev-parse", "--verify", "--quiet", "benchwatch-data"}, remote()).exit_code, 1);
}

TEST_F(HistoryBranchTest, AMalformedRunFileIsNamedAndNothingIsStored) {
    record(a_, "a", 100);
    ASSERT_EQ(history_branch(a_, "push", "a").exit_code, 0);
    // Someone commits a broken file to the branch by hand.
    b_.git({"fetch", "--quiet", "origin", "benchwatch-data"});
    b_.git({"checkout", "--quiet", "-b", "benchwatch-data", "FETCH_HEAD"});
    b_.write_file("runs/p/m/broken_1.json", "{\"format\": \"benchwatch-run\",\n");
    b_.commit("break it");
    b_.git({"push", "--quiet", "origin", "benchwatch-data"});

    const auto pulled = history_branch(a_, "pull", "fresh");
    EXPECT_EQ(pulled.exit_code, 2);
    EXPECT_EQ(pulled.out, "");
    EXPECT_EQ(pulled.err,
              "error: origin/benchwatch-data:runs/p/m/broken_1.json: not JSON: parse error at "
              "line 2, column 1: syntax error while parsing object key - unexpected end of "
              "input; expected string literal; nothing was pulled: fix or delete the file on "
              "origin/benchwatch-data\n");
    EXPECT_TRUE(runs_of("fresh").empty());
}

TEST_F(HistoryBranchTest, ARunFileAtAnotherRunsPathIsRefused) {
    record(a_, "a", 100);
    ASSERT_EQ(history_branch(a_, "push", "a").exit_code, 0);
    b_.git({"fetch", "--quiet", "origin", "benchwatch-data"});
    b_.git({"checkout", "--quiet", "-b", "benchwatch-data", "FETCH_HEAD"});
    const auto original = b_.git({"ls-files", "runs"});
    b_.git({"mv", original, "runs/p/m/elsewhere.json"});
    b_.commit("move it");
    b_.git({"push", "--quiet", "origin", "benchwatch-data"});

    const auto pulled = history_branch(a_, "pull", "fresh");
    EXPECT_EQ(pulled.exit_code, 2);
    EXPECT_EQ(pulled.err,
              "error: origin/benchwatch-data:runs/p/m/elsewhere.json: holds a run of "
              "project 'p', machine 'm', commit " +
                  commit_ + ", which belongs at " + original +
                  "; nothing was pulled: fix or delete the file on "
                  "origin/benchwatch-data\n");
    EXPECT_TRUE(runs_of("fresh").empty());
}

TEST_F(HistoryBranchTest, ProjectAndMachineLimitWhichRunsMove) {
    record(a_, "a", 100, "p", "m");
    record(a_, "a", 200, "p", "gpu box");
    record(a_, "a", 300, "q/r", "gpu box");
    EXPECT_EQ(history_branch(a_, "push", "a", {"--project", "p", "--machine", "m"}).out,
              "pushed 1 run to origin/benchwatch-data; 0 already there\n");
    EXPECT_EQ(history_branch(a_, "push", "a", {"--machine", "gpu box"}).out,
              "pushed 2 runs to origin/benchwatch-data; 0 already there\n");
    EXPECT_EQ(
        run_checked({"git", "ls-tree", "-r", "-d", "--name-only", "benchwatch-data"}, remote()).out,
        "runs\nruns/p\nruns/p/gpu%20box\nruns/p/m\nruns/q%2Fr\nruns/q%2Fr/gpu%20box\n");

    EXPECT_EQ(history_branch(b_, "pull", "b", {"--project", "q/r"}).out,
              "pulled 1 run from origin/benchwatch-data (0 already stored)\n");
    EXPECT_EQ(history_branch(b_, "pull", "b", {"--machine", "gpu box"}).out,
              "pulled 1 run from origin/benchwatch-data (1 already stored)\n");
    EXPECT_EQ(history_branch(b_, "pull", "b").out,
              "pulled 1 run from origin/benchwatch-data (2 already stored)\n");
}

}  // namespace
}  // namespace benchwatch::testing
