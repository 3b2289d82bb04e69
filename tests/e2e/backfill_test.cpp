// What could break: `benchwatch backfill` measuring a commit twice or skipping one, measuring
// commits in the user's own checkout (changing their files or `git status`), recording a commit
// whose build failed, stopping at the first commit that does not build, or leaving a build or
// benchmark running after it was interrupted, so that a rerun races with it.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <sstream>
#include <thread>

#include "store/store.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

extern char** environ;

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

// The suite prints one Google Benchmark result, "speed", read from the commit's file `speed`,
// and refuses to run unbuilt. The build fails in a commit holding `broken`. In a commit holding
// `hang`, while the test's file `hang-now` exists, the suite writes its process id and sleeps.
constexpr std::string_view build_script =
    "if [ -f broken ]; then echo 'compiling'; echo 'error: broken.cpp:1: expected ;'; exit 2; fi\n"
    "touch built\n";
constexpr std::string_view suite_script =
    "[ -f built ] || { echo 'not built' >&2; exit 3; }\n"
    "if [ -f hang ] && [ -f \"$HANG_NOW\" ]; then echo $$ > \"$HANG_PID\"; exec sleep 120; fi\n"
    "printf '{\"context\": {\"library_build_type\": \"release\"}, \"benchmarks\": [{\"name\": "
    "\"speed\", \"run_type\": \"iteration\", \"real_time\": %s, \"time_unit\": \"ns\"}]}' "
    "\"$(cat speed)\"\n";

class BackfillTest : public ::testing::Test {
  protected:
    void SetUp() override {
        repository_.write_file("build.sh", build_script);
        repository_.write_file("bench.sh", suite_script);
        repository_.write_file(".gitignore", "built\n");
        // HANG_NOW and HANG_PID are set here, not by the test's environment, so that the
        // recipe alone decides where the suite looks. The suites print set values, which other
        // tests running beside these cannot move, so their runs are never taken as under load.
        repository_.write_file(
            "benchwatch.toml",
            fmt::format("project = \"p\"\nmachine = \"m\"\n[run]\ncompeting_work = \"ignore\"\n"
                        "[measure]\nbuild = \"sh build.sh\"\n"
                        "run = \"HANG_NOW={} HANG_PID={} sh bench.sh\"\n",
                        hang_now().string(), hang_pid().string()));
    }

    // Commits a version of the project whose benchmark takes `speed` ns; returns its SHA.
    std::string commit(int speed, const std::vector<std::string>& markers = {}) {
        repository_.write_file("speed", std::to_string(speed) + "\n");
        for (const char* marker : {"broken", "hang"}) {
            const bool wanted = std::find(markers.begin(), markers.end(), marker) != markers.end();
            const auto path = repository_.directory() / marker;
            if (wanted) repository_.write_file(marker, "");
            if (!wanted && fs::exists(path)) repository_.git({"rm", "-q", marker});
        }
        return repository_.commit(fmt::format("speed {}", speed));
    }

    vcs::ProcessOutput backfill(std::vector<std::string> arguments = {}) {
        std::vector<std::string> argv{"backfill", "--store", store_, "--no-progress"};
        argv.insert(argv.end(), arguments.begin(), arguments.end());
        return run(benchwatch_command(argv), repository_.directory(), without_ci_variables());
    }

    // Each stored run's commit and the value of its benchmark, oldest run first.
    std::vector<std::pair<std::string, double>> stored() {
        const auto store = store::open_store(store_);
        std::vector<std::pair<std::string, double>> runs;
        for (const auto& run : store->list_runs({})) {
            const std::int64_t ids[] = {run.id};
            const auto results = store->results(ids).at(run.id);
            runs.emplace_back(run.commit, results.empty() ? -1 : results.front().value);
        }
        return runs;
    }

    fs::path hang_now() const { return scratch_.path() / "hang-now"; }
    fs::path hang_pid() const { return scratch_.path() / "hang-pid"; }

    TemporaryDirectory scratch_{"benchwatch-backfill"};
    ScratchRepository repository_;
    std::string store_ = test_store_url(scratch_.path());
};

TEST_F(BackfillTest, RecordsEachDefaultBranchCommitOnceOldestFirstOutsideTheCheckout) {
    std::vector<std::string> shas;
    for (int speed : {101, 102, 103}) shas.push_back(commit(speed));

    const auto first = backfill({"--last", "2"});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    EXPECT_EQ(stored(),
              (std::vector<std::pair<std::string, double>>{{shas[1], 102}, {shas[2], 103}}));
    EXPECT_NE(first.out.find("backfill of main (2 commits): 2 recorded, 0 already had a run, 0 "
                             "failed\n"),
              std::string::npos)
        << first.out;

    const auto second = backfill({"--last", "3"});
    ASSERT_EQ(second.exit_code, 0) << second.err;
    EXPECT_EQ(stored().size(), 3U);
    EXPECT_EQ(stored().back(), (std::pair<std::string, double>{shas[0], 101}));
    EXPECT_NE(second.out.find("(3 commits): 1 recorded, 2 already had a run, 0 failed"),
              std::string::npos)
        << second.out;

    // Recorded as `run` records: the environment, and the stability warnings (one result of one
    // repetition is few samples).
    const auto runs = store::open_store(store_)->list_runs({});
    EXPECT_TRUE(runs.back().environment.contains("os")) << runs.back().environment.size();
    EXPECT_EQ(runs.back().environment.at("git.dirty"), "no");
    std::vector<std::string> kinds;
    for (const auto& warning : runs.back().warnings) kinds.push_back(warning.kind);
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), "few-samples"), kinds.end());

    // The builds ran in folders of their own, so the user's checkout was never built in.
    EXPECT_FALSE(fs::exists(repository_.directory() / "built"));
    EXPECT_EQ(repository_.git({"status", "--porcelain", "--untracked-files=all"}), "");
    EXPECT_TRUE(
        fs::exists(repository_.directory() / ".git" / "benchwatch-worktrees" / shas[0] / "built"));
}

TEST_F(BackfillTest, ACommitsRunSaysThatOtherWorkCompetedWithItsSuite) {
    // A suite that takes a second, with a busy loop on every core started by this test: the
    // commit's run is stored with a high-load warning measured while its suite ran, and the
    // warning is printed with the commit's name.
    const auto sha = commit(101);
    repository_.write_file("benchwatch.toml",
                           "project = \"p\"\nmachine = \"m\"\n[measure]\nbuild = \"sh build.sh\"\n"
                           "run = \"sleep 1 && sh bench.sh\"\n");
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    vcs::ProcessOutput output;
    {
        BusyLoops neighbour(cores);
        output = backfill({"--last", "1"});
    }
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_NE(output.err.find(fmt::format("warning: {}: Other work kept ", sha.substr(0, 12))),
              std::string::npos)
        << output.err;
    const auto runs = store::open_store(store_)->list_runs({});
    ASSERT_EQ(runs.size(), 1U);
    EXPECT_TRUE(std::any_of(runs[0].warnings.begin(), runs[0].warnings.end(),
                            [](const auto& warning) { return warning.kind == "high-load"; }))
        << output.err;
}

// A suite of four benchmarks around 1, 2, 3 and 4 µs, which runs 50% slower in a commit
// numbered (its file `n`) like a file in SLOW_DIR: a slow spell of the machine during the backfill
// that a test can end.
constexpr std::string_view four_benchmarks_script =
    "[ -f built ] || { echo 'not built' >&2; exit 3; }\n"
    "n=$(cat n); f=10; [ -f \"$SLOW_DIR/$n\" ] && f=15\n"
    "printf '{\"benchmarks\": ['\n"
    "for b in 1 2 3 4; do\n"
    "  [ $b = 1 ] || printf ', '\n"
    "  printf '{\"name\": \"BM_%s\", \"run_type\": \"iteration\", \"real_time\": %s, "
    "\"time_unit\": \"ns\"}' $b $(( (b * 1000 + (n * 7 + b) % 5) * f / 10 ))\n"
    "done\n"
    "printf ']}'\n";

TEST_F(BackfillTest, MeasuresAgainTheCommitsWhoseRunsWereMadeInASlowSpell) {
    const auto slow = scratch_.path() / "slow";
    fs::create_directories(slow);
    repository_.write_file("bench.sh", four_benchmarks_script);
    // Only the planted spell: a run that the machine's real load (other tests at once) marks as
    // made under load would be measured again too, and the counts below would not hold.
    repository_.write_file(
        "benchwatch.toml",
        fmt::format("project = \"p\"\nmachine = \"m\"\n[run]\ncompeting_work = \"ignore\"\n"
                    "[measure]\nbuild = \"sh build.sh\"\nrun = \"SLOW_DIR={} sh bench.sh\"\n",
                    slow.string()));
    std::vector<std::string> shas;
    for (int n = 1; n <= 12; ++n) {
        repository_.write_file("n", std::to_string(n) + "\n");
        shas.push_back(repository_.commit(fmt::format("change {}", n)));
    }
    for (int n = 5; n <= 8; ++n) write_text(slow / std::to_string(n), "");

    const auto first = backfill({"--last", "12"});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    EXPECT_NE(first.out.find("(12 commits): 12 recorded, 0 already had a run, 0 failed"),
              std::string::npos)
        << first.out;
    // The spell ran during this backfill; a later one says what it finds.
    const auto look = backfill({"--last", "12"});
    ASSERT_EQ(look.exit_code, 0) << look.err;
    EXPECT_NE(look.err.find("note: 4 of these commits' runs were made in a slow spell of the "
                            "machine or under load, and comparisons leave them out; "
                            "--remeasure-disturbed measures them again\n"),
              std::string::npos)
        << look.err;
    EXPECT_EQ(stored().size(), 12u);

    fs::remove_all(slow);
    const auto again = backfill({"--last", "12", "--remeasure-disturbed"});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_NE(again.out.find("(12 commits): 0 recorded, 4 measured again, 8 already had a run, 0 "
                             "failed"),
              std::string::npos)
        << again.out;
    const auto runs = stored();
    ASSERT_EQ(runs.size(), 16u);
    // The old runs are kept; the new ones, of the 5th to the 8th commit, oldest first, are at the
    // machine's usual speed (BM_1 is 1000 plus (7n + 1) mod 5 ns).
    for (int n = 5; n <= 8; ++n) {
        const auto& run = runs[static_cast<std::size_t>(12 + n - 5)];
        EXPECT_EQ(run.first, shas[static_cast<std::size_t>(n - 1)]);
        EXPECT_EQ(run.second, 1000 + (n * 7 + 1) % 5) << n;
    }
    // Each commit's runs are combined by their best values, so nothing looks disturbed now.
    const auto settled = backfill({"--last", "12", "--remeasure-disturbed"});
    ASSERT_EQ(settled.exit_code, 0) << settled.err;
    EXPECT_NE(settled.out.find("(12 commits): 0 recorded, 0 measured again, 12 already had a run"),
              std::string::npos)
        << settled.out;
}

TEST_F(BackfillTest, ProgressLinesShowHostileCommitSubjectsAsBisectDoes) {
    // A subject that a CI log would read as a workflow command, with a right-to-left override
    // and a terminal's clear-screen sequence.
    repository_.write_file("speed", "101\n");
    const std::string commit =
        repository_.commit("##[error]fake alarm \xe2\x80\xae\x1b[2J reversed");

    const auto output = backfill();
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_NE(output.err.find("[1/1] " + commit.substr(0, 12) +
                              " ##\\u{5b}error]fake alarm \\u{202e}\\u{1b}[2J reversed (0:00)\n"),
              std::string::npos)
        << output.err;
    for (const std::string_view forbidden : {"##[", "\xe2\x80\xae", "\x1b"})
        EXPECT_EQ(output.err.find(forbidden), std::string::npos) << forbidden << output.err;
}

TEST_F(BackfillTest, ACommitThatDoesNotBuildIsReportedAndSkipped) {
    const auto good = commit(101);
    const auto broken = commit(102, {"broken"});
    const auto fixed = commit(103);

    const auto output = backfill();
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(stored(), (std::vector<std::pair<std::string, double>>{{good, 101}, {fixed, 103}}));
    const auto log =
        repository_.directory() / ".git" / "benchwatch-worktrees" / broken / "benchwatch-build.log";
    EXPECT_NE(output.err.find(fmt::format(
                  "warning: build of {} failed: exit 2 (compiling | error: broken.cpp:1: expected ;); its "
                  "output is in {}; skipped, nothing recorded\n",
                  broken.substr(0, 12), log.string())),
              std::string::npos)
        << output.err;
    EXPECT_EQ(read_text(log), "compiling\nerror: broken.cpp:1: expected ;\n");
    EXPECT_NE(output.out.find("(3 commits): 2 recorded, 0 already had a run, 1 failed"),
              std::string::npos)
        << output.out;
}

TEST_F(BackfillTest, PastTheLimitOnlyCommitFoldersAreFreedOldestFirst) {
    const auto folders = scratch_.path() / "commits";
    repository_.write_file(
        "benchwatch.toml",
        fmt::format("project = \"p\"\nmachine = \"m\"\n[measure]\nbuild = \"sh build.sh\"\n"
                    "run = \"sh bench.sh\"\nworktrees = \"{}\"\nworktrees_limit_gb = 0\n",
                    folders.string()));
    const auto first = commit(101);
    const auto second = commit(102);
    write_text(folders / "notes" / "mine.txt", "not benchwatch's");

    const auto output = backfill();
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(stored().size(), 2U);
    // With no room kept, each checkout frees the commit folders before it; the user's folder
    // in the same place is left alone.
    EXPECT_FALSE(fs::exists(folders / first));
    EXPECT_TRUE(fs::exists(folders / second / "built"));
    EXPECT_EQ(read_text(folders / "notes" / "mine.txt"), "not benchwatch's");
    EXPECT_EQ(repository_.git({"worktree", "list", "--porcelain"}).find(first), std::string::npos);
}

TEST_F(BackfillTest, ARangeNamesTheCommitsAfterItsStartUpToItsEnd) {
    std::vector<std::string> shas;
    for (int speed : {101, 102, 103, 104}) shas.push_back(commit(speed));
    const auto output = backfill({shas[0] + ".." + shas[2]});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(stored(),
              (std::vector<std::pair<std::string, double>>{{shas[1], 102}, {shas[2], 103}}));
}

TEST_F(BackfillTest, WithoutARecipeItSaysWhatToAdd) {
    commit(101);
    repository_.write_file("benchwatch.toml", "project = \"p\"\n");
    const auto output = backfill();
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: backfill needs to know how to build and measure a commit; add a [measure] "
              "table to benchwatch.toml, e.g. build = \"cmake -S . -B build && cmake --build "
              "build\" and run = \"build/bench --benchmark_format=json\" (docs/measure.md)\n");
}

TEST_F(BackfillTest, AMalformedRangeIsRefused) {
    commit(101);
    const auto output = backfill({"main"});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: range 'main': expected OLDER..NEWER, e.g. v1.2..main (the commits after "
              "OLDER up to NEWER)\n");
}

TEST_F(BackfillTest, BisectFindsThePlantedStepAmongSixteenUnbenchmarkedCommits) {
    // Two benchmarked commits with 16 between them; commit 11 makes the benchmark 20% slower.
    std::vector<std::string> shas;
    for (int i = 0; i < 18; ++i) shas.push_back(commit(i >= 11 ? 120 : 100));
    const auto output = run(benchwatch_command({"bisect", "--store", store_, "--good", shas.front(),
                                                "--bad", shas.back(), "--benchmark", "speed"}),
                            repository_.directory(), without_ci_variables());
    ASSERT_EQ(output.exit_code, 0) << output.err << output.out;
    EXPECT_NE(output.out.find(fmt::format("First commit at the new level: {} speed 120\n",
                                          shas[11].substr(0, 12))),
              std::string::npos)
        << output.out;
    // At most ⌈log₂ 17⌉ + 2 commits measured: the two ends and one per halving.
    std::set<std::string> measured;
    for (const auto& [sha, value] : stored()) measured.insert(sha);
    EXPECT_LE(measured.size(), 7U) << output.err;
    EXPECT_TRUE(measured.contains(shas[11]));
    EXPECT_TRUE(measured.contains(shas[10]));
}

TEST_F(BackfillTest, BisectRunsTheWholeSuiteForTheRunsItRecordsAndTheBenchmarkOtherwise) {
    // A suite with a filter, as Google Benchmark's --benchmark_filter: "other" runs only when
    // the pattern is '.', and every pattern it was given is logged.
    const auto log = scratch_.path() / "patterns";
    repository_.write_file(
        "bench.sh",
        fmt::format("echo \"$1\" >> {}\n"
                    "other=''\n"
                    "if [ \"$1\" = . ]; then other=', {{\"name\": \"other\", \"run_type\": "
                    "\"iteration\", \"real_time\": 5, \"time_unit\": \"ns\"}}'; fi\n"
                    "printf '{{\"benchmarks\": [{{\"name\": \"speed\", \"run_type\": "
                    "\"iteration\", \"real_time\": %s, \"time_unit\": \"ns\"}}%s]}}' "
                    "\"$(cat speed)\" \"$other\"\n",
                    log.string()));
    repository_.write_file("benchwatch.toml",
                           "project = \"p\"\nmachine = \"m\"\n[measure]\nbuild = \"true\"\n"
                           "run = \"sh bench.sh {benchmarks}\"\n");
    std::vector<std::string> shas;
    for (int i = 0; i < 6; ++i) shas.push_back(commit(i >= 3 ? 120 : 100));
    const auto output = run(benchwatch_command({"bisect", "--store", store_, "--good", shas.front(),
                                                "--bad", shas.back(), "--benchmark", "speed"}),
                            repository_.directory(), without_ci_variables());
    ASSERT_EQ(output.exit_code, 0) << output.err << output.out;
    EXPECT_NE(output.out.find("First commit at the new level: " + shas[3].substr(0, 12)),
              std::string::npos)
        << output.out;

    const auto store = store::open_store(store_);
    const auto runs = store->list_runs({});
    ASSERT_GE(runs.size(), 3U);
    std::size_t whole = 0;
    std::size_t narrowed = 0;
    std::istringstream patterns(read_text(log));
    for (std::string line; std::getline(patterns, line);) {
        if (line == ".")
            ++whole;
        else if (line == "^(speed)$")
            ++narrowed;
        else
            ADD_FAILURE() << "the suite was given " << line;
    }
    EXPECT_EQ(whole, runs.size());  // one whole run per recorded commit
    EXPECT_GT(narrowed, 8U);        // every other round
    for (const auto& run : runs) {
        const std::int64_t ids[] = {run.id};
        EXPECT_EQ(store->results(ids).at(run.id).size(), 2U) << run.commit;
    }
}

TEST_F(BackfillTest, BisectWithoutARangeTakesTheLatestStepHistoryChangesFinds) {
    // Eight measured commits at 100, nine unmeasured (the fifth makes it 120), six measured at
    // 120: history --changes sees a step between the eighth and the eighteenth commit.
    std::vector<std::string> shas;
    for (int i = 0; i < 8; ++i) shas.push_back(commit(100));
    ASSERT_EQ(backfill({"--last", "8"}).exit_code, 0);
    for (int i = 0; i < 9; ++i) shas.push_back(commit(i >= 4 ? 120 : 100));
    for (int i = 0; i < 6; ++i) shas.push_back(commit(120));
    ASSERT_EQ(backfill({shas[16] + "..main"}).exit_code, 0);

    const auto output =
        run(benchwatch_command({"bisect", "--store", store_, "--benchmark", "speed"}),
            repository_.directory(), without_ci_variables());
    ASSERT_EQ(output.exit_code, 0) << output.err << output.out;
    EXPECT_NE(output.err.find(
                  fmt::format("bisecting the step history --changes found between {} and {}\n",
                              shas[7].substr(0, 12), shas[17].substr(0, 12))),
              std::string::npos)
        << output.err;
    EXPECT_NE(output.out.find(fmt::format("First commit at the new level: {} speed 120\n",
                                          shas[12].substr(0, 12))),
              std::string::npos)
        << output.out;
}

TEST_F(BackfillTest, BisectWithoutARangeOrAStepSaysWhatToGive) {
    commit(100);
    commit(100);
    ASSERT_EQ(backfill().exit_code, 0);
    const auto none = run(benchwatch_command({"bisect", "--store", store_, "--benchmark", "speed"}),
                          repository_.directory(), without_ci_variables());
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_EQ(none.err,
              "error: history --changes finds no step of 'speed' (time) on main; pass --good and "
              "--bad to bisect a range of your own\n");
    const auto half = run(
        benchwatch_command({"bisect", "--store", store_, "--good", "main", "--benchmark", "speed"}),
        repository_.directory(), without_ci_variables());
    EXPECT_EQ(half.exit_code, 2);
    EXPECT_EQ(half.err,
              "error: give both --good and --bad, or neither to bisect the latest step history "
              "--changes finds\n");
}

TEST_F(BackfillTest, BisectSkipsACommitThatDoesNotBuildAndSaysWhatItLeaves) {
    // The benchmark creeps up 1% a commit, and the middle commit does not build: its neighbours
    // place the step after the first and at or before the second, so the range is the broken
    // commit and the one after it.
    const auto good = commit(101);
    commit(102);
    const auto broken = commit(103, {"broken"});
    const auto after = commit(104);
    const auto bad = commit(105);
    const auto output = run(benchwatch_command({"bisect", "--store", store_, "--good", good,
                                                "--bad", bad, "--benchmark", "speed"}),
                            repository_.directory(), without_ci_variables());
    EXPECT_EQ(output.exit_code, 1) << output.err;
    EXPECT_NE(output.out.find(fmt::format("  {} speed 103  skipped: build of {} failed: exit 2",
                                          broken.substr(0, 12), broken.substr(0, 12))),
              std::string::npos)
        << output.out;
    EXPECT_NE(output.out.find(fmt::format("Undecided: the step is in {}..{}; the commits between "
                                          "could not be measured (skipped above).\n",
                                          broken.substr(0, 12), after.substr(0, 12))),
              std::string::npos)
        << output.out;
}

TEST_F(BackfillTest, BisectWithoutAStepSaysSo) {
    const auto good = commit(100);
    commit(100);
    const auto bad = commit(100);
    const auto output = run(benchwatch_command({"bisect", "--store", store_, "--good", good,
                                                "--bad", bad, "--benchmark", "speed"}),
                            repository_.directory(), without_ci_variables());
    EXPECT_EQ(output.exit_code, 1) << output.err;
    EXPECT_NE(output.out.find("No step to bisect: re-measured interleaved, the change is not "
                              "beyond 3% either way.\n"),
              std::string::npos)
        << output.out;
}

// The text of `path`, or "" when it does not exist (yet).
std::string read_text_or_empty(const fs::path& path) {
    std::error_code error;
    return fs::exists(path, error) ? read_text(path) : std::string();
}

// Whether process `pid` has ended (gone, or a zombie nobody has reaped yet).
bool ended(pid_t pid) {
    if (::kill(pid, 0) != 0) return true;
    const auto stat = fs::path("/proc") / std::to_string(pid) / "stat";
    std::error_code error;
    if (!fs::exists(stat, error)) return true;
    const auto text = read_text(stat);
    const auto state = text.find(") ");
    return state != std::string::npos && text[state + 2] == 'Z';
}

class InterruptedBackfillTest : public BackfillTest, public ::testing::WithParamInterface<int> {};

TEST_P(InterruptedBackfillTest, ARerunRecordsEveryCommitOnce) {
    std::vector<std::string> shas{commit(101), commit(102), commit(103, {"hang"}), commit(104)};
    write_text(hang_now(), "");

    auto argv = benchwatch_command({"backfill", "--store", store_, "--no-progress"});
    std::vector<char*> pointers;
    for (auto& argument : argv) pointers.push_back(argument.data());
    pointers.push_back(nullptr);
    const auto log = scratch_.path() / "interrupted.log";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    posix_spawn_file_actions_addchdir_np(&actions, repository_.directory().c_str());
    pid_t pid = 0;
    ASSERT_EQ(::posix_spawn(&pid, pointers[0], &actions, nullptr, pointers.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);

    // Interrupted while it measures the third commit, after recording the first two.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (read_text_or_empty(hang_pid()).empty() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const auto suite_text = read_text_or_empty(hang_pid());
    ASSERT_FALSE(suite_text.empty()) << read_text(log);
    const pid_t suite = std::stoi(suite_text);
    ASSERT_EQ(::kill(pid, GetParam()), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == GetParam()) << read_text(log);
    EXPECT_EQ(stored().size(), 2U) << read_text(log);
    if (GetParam() == SIGINT) {
        // The benchmark it was running ended with it.
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!ended(suite) && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        EXPECT_TRUE(ended(suite)) << "the suite, process " << suite << ", outlived benchwatch";
    } else {
        ::kill(suite, SIGKILL);  // nothing can forward SIGKILL; the test cleans up instead
    }

    fs::remove(hang_now());
    const auto rerun = backfill();
    ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
    EXPECT_EQ(stored(), (std::vector<std::pair<std::string, double>>{
                            {shas[0], 101}, {shas[1], 102}, {shas[2], 103}, {shas[3], 104}}));
    EXPECT_NE(rerun.out.find("(4 commits): 2 recorded, 2 already had a run, 0 failed"),
              std::string::npos)
        << rerun.out;
}

INSTANTIATE_TEST_SUITE_P(Signals, InterruptedBackfillTest, ::testing::Values(SIGINT, SIGKILL),
                         [](const auto& signal) {
                             return signal.param == SIGINT ? "SIGINT" : "SIGKILL";
                         });

}  // namespace
}  // namespace benchwatch::testing
