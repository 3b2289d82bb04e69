// What could break: runs lost when two CI jobs push the history branch at the same moment, runs
// stored twice by repeated pulls, a push that touches the user's work tree or index, a first
// pull (no branch yet) failing the job, a malformed run file half-imported, a symbolic link on
// the branch followed out of it (or into a FIFO that never ends), a huge file read whole, or a
// run stored that `record` would refuse.
#include <gtest/gtest.h>
#include <sys/stat.h>

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

// A file to put on a branch: its path and its bytes.
struct BranchFile {
    std::string path;
    std::string content;
};

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

    // Records one run of "copy" taking `nanoseconds` into the store `store`, on `branch`.
    void record(const GitRepository& clone, const std::string& store, double nanoseconds,
                const std::string& project = "p", const std::string& machine = "m",
                const std::string& branch = "main") {
        const auto file = folder_.path() / ("results-" + std::to_string(++files_) + ".json");
        write_text(file, google_benchmark_file(nanoseconds));
        const auto output = benchwatch(
            clone, {"record", "--store", store_of(store), "--project", project, "--machine",
                    machine, "--commit", commit_, "--branch", branch, file.string()});
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

    // Puts `files` (and symbolic links at the paths of `links`, to their targets) on a new
    // branch `branch` of the remote, made in clone b.
    void push_branch(const std::string& branch, const std::vector<BranchFile>& files,
                     const std::map<std::string, fs::path>& links = {});

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

TEST_F(HistoryBranchTest, PushMovesTheDefaultBranchsRunsUnlessToldOtherwise) {
    record(a_, "a", 100);
    record(a_, "a", 120, "p", "m", "fix-parser");
    record(a_, "a", 130, "p", "m", "fix-parser");
    EXPECT_EQ(history_branch(a_, "push", "a").out,
              "pushed 1 run to origin/benchwatch-data; 0 already there; 2 runs of other branches "
              "than main left out (--all-branches pushes them)\n");
    EXPECT_EQ(history_branch(b_, "pull", "b").out,
              "pulled 1 run from origin/benchwatch-data (0 already stored)\n");
    ASSERT_EQ(runs_of("b").size(), 1u);
    EXPECT_EQ(runs_of("b").front().branch, "main");
    // Another name for the default branch makes the others its runs.
    EXPECT_EQ(history_branch(a_, "push", "a", {"--default-branch", "fix-parser"}).out,
              "pushed 2 runs to origin/benchwatch-data; 0 already there; 1 run of other branches "
              "than fix-parser left out (--all-branches pushes them)\n");
    EXPECT_EQ(history_branch(a_, "push", "a", {"--all-branches"}).out,
              "nothing to push: origin/benchwatch-data has all 3 runs of the store\n");
}

// The text of a run file of project "p", machine "m" at `commit` with one result of benchmark
// `benchmark` taking `value` ns (written as it is), and the path it belongs at.
BranchFile run_file_of(const std::string& commit, const std::string& hash,
                       const std::string& benchmark, const std::string& value) {
    return {"runs/p/m/" + commit + "_" + hash + ".json",
            R"({"format": "benchwatch-run", "version": 1, "project": "p", "machine": "m", )"
            R"("commit": ")" +
                commit +
                R"(", "branch": "main", "recorded_at_ms": 1, )"
                R"("attempt": 1, "input_format": "googlebenchmark", "content_hash": ")" +
                hash + R"(", "environment": {}, "warnings": [], "results": [{"benchmark": )" +
                benchmark + R"(, "metric": "time", "value": )" + value +
                R"(, "unit": "ns", "direction": "smaller"}]})" + "\n"};
}

void HistoryBranchTest::push_branch(const std::string& branch, const std::vector<BranchFile>& files,
                                    const std::map<std::string, fs::path>& links) {
    b_.git({"switch", "--quiet", "--orphan", branch});
    for (const auto& file : files) b_.write_file(file.path, file.content);
    for (const auto& [path, target] : links) {
        fs::create_directories((b_.directory() / path).parent_path());
        fs::create_symlink(target, b_.directory() / path);
        b_.git({"add", "--", path});
    }
    b_.commit("files by hand");
    b_.git({"push", "--quiet", "origin", branch});
}

TEST_F(HistoryBranchTest, SymbolicLinksOnTheBranchAreSkippedNotFollowed) {
    // Valid run files outside the branch, and a FIFO that a reader would wait on for ever.
    const auto outside = run_file_of(commit_, "outside", R"("copy")", "100");
    write_text(folder_.path() / "outside.json", outside.content);
    const auto fifo = folder_.path() / "fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const auto kept = run_file_of(commit_, "kept", R"("copy")", "100");
    push_branch("links", {kept},
                {{outside.path, folder_.path() / "outside.json"},
                 {run_file_of(commit_, "fifo", R"("copy")", "100").path, fifo}});

    // Temporary files go to a folder of the test's, to see that none is left behind.
    const auto temporary = folder_.path() / "tmp";
    fs::create_directories(temporary);
    auto environment = without_ci_variables();
    environment["GIT_CONFIG_GLOBAL"] = "/dev/null";
    environment["GIT_CONFIG_NOSYSTEM"] = "1";
    environment["TMPDIR"] = temporary.string();
    const auto pulled =
        run_with_timeout(benchwatch_command({"history-branch", "pull", "--store", store_of("fresh"),
                                             "--branch", "links"}),
                         a_.directory(), environment, std::chrono::seconds(60));
    ASSERT_FALSE(pulled.timed_out) << "the pull waited on the FIFO";
    EXPECT_EQ(pulled.exit_code, 0) << pulled.err;
    EXPECT_EQ(pulled.out, "pulled 1 run from origin/links (0 already stored, 2 skipped)\n");
    const std::string skipped =
        " is a symbolic link, not a run file; only regular files are read from the branch; "
        "skipped\n";
    EXPECT_EQ(pulled.err, "warning: origin/links:runs/p/m/" + commit_ + "_fifo.json" + skipped +
                              "warning: origin/links:" + outside.path + skipped);
    const auto runs = runs_of("fresh");
    ASSERT_EQ(runs.size(), 1U);
    EXPECT_EQ(runs[0].content_hash, "kept");
    EXPECT_TRUE(fs::is_empty(temporary));
}

TEST_F(HistoryBranchTest, AFileOverTheCapIsSkippedBeforeItIsRead) {
    // A valid run file, 64 MiB and 1 byte long once padded with spaces.
    auto big = run_file_of(commit_, "big", R"("copy")", "100");
    big.content.resize(std::size_t{64} << 20 | 1, ' ');
    const auto small = run_file_of(commit_, "small", R"("copy")", "100");
    push_branch("big", {big, small});

    const auto pulled = history_branch(a_, "pull", "fresh", {"--branch", "big"});
    EXPECT_EQ(pulled.exit_code, 0) << pulled.err;
    EXPECT_EQ(pulled.out, "pulled 1 run from origin/big (0 already stored, 1 skipped)\n");
    EXPECT_EQ(pulled.err, "warning: origin/big:" + big.path +
                              " is 64.0 MiB, over the 64 MiB a run file may be; skipped\n");
    const auto runs = runs_of("fresh");
    ASSERT_EQ(runs.size(), 1U);
    EXPECT_EQ(runs[0].content_hash, "small");
}

TEST_F(HistoryBranchTest, ARunThatRecordWouldRefuseIsRefusedWithRecordsWords) {
    struct Case {
        std::string benchmark;  // as JSON
        std::string value;
        std::string problem;  // the error after the file's name
    };
    const std::string long_name(5000, 'x');
    const std::vector<Case> cases{
        {R"("copy")", "0", "benchmark 'copy': time must be a positive number, got 0"},
        {R"("copy")", "-250", "benchmark 'copy': time must be a positive number, got -250"},
        {R"("copy")", "1e-310",
         "benchmark 'copy', metric 'time': the value in ns is 1e-310, too small to compare "
         "(below 2.2250738585072014e-308); results must hold normal numbers"},
        {R"("a\u001b[2Jb")", "100",
         R"(benchmark name "a\x1b[2Jb" holds control character U+001B; names must be )"
         "printable on one line"},
        {"\"" + long_name + "\"", "100",
         "benchmark name of 5000 bytes is longer than the 4096 allowed: \"" + std::string(60, 'x') +
             "…\""},
    };
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto& bad = cases[i];
        SCOPED_TRACE(bad.problem);
        const std::string branch = "bad-" + std::to_string(i);
        const auto file = run_file_of(commit_, "h" + std::to_string(i), bad.benchmark, bad.value);
        push_branch(branch, {file});
        const auto pulled = history_branch(a_, "pull", "fresh", {"--branch", branch});
        EXPECT_EQ(pulled.exit_code, 2);
        EXPECT_EQ(pulled.out, "");
        EXPECT_EQ(pulled.err, "error: origin/" + branch + ":" + file.path + ": " + bad.problem +
                                  "; nothing was pulled: fix or delete the file on origin/" +
                                  branch + "\n");
        EXPECT_TRUE(runs_of("fresh").empty());
    }

    // record says the same of the same results in a Google Benchmark file.
    const auto results = folder_.path() / "zero.json";
    write_text(results,
               R"({"context": {"library_build_type": "release"}, "benchmarks": [{"name": )"
               R"("a\u001b[2Jb", "run_type": "iteration", "iterations": 10, "real_time": 1, )"
               R"("cpu_time": 1, "time_unit": "ns"}]})");
    const auto recorded =
        benchwatch(a_, {"record", "--store", store_of("fresh"), "--project", "p", "--machine", "m",
                        "--commit", commit_, "--branch", "main", results.string()});
    EXPECT_EQ(recorded.exit_code, 2);
    EXPECT_EQ(recorded.err, "error: " + results.string() + ": " + cases[3].problem + "\n");
    write_text(results, google_benchmark_file(0));
    const auto zero =
        benchwatch(a_, {"record", "--store", store_of("fresh"), "--project", "p", "--machine", "m",
                        "--commit", commit_, "--branch", "main", results.string()});
    EXPECT_EQ(zero.exit_code, 2);
    EXPECT_EQ(zero.err, "error: " + results.string() + ": " + cases[0].problem + "\n");
}

}  // namespace
}  // namespace benchwatch::testing
