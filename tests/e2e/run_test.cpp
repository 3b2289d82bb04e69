// What could break: `benchwatch run` recording something other than what the harness measured
// (repetitions not reduced to their best, a latency not timed), recording anything at all when
// the harness crashes, hangs or writes garbage, missing a changed dependency version in the
// report, or writing terminal control characters into a log file.
#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <thread>

#include "store/store.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

extern char** environ;

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

class RunTest : public ::testing::Test {
  protected:
    const std::string& store() const { return store_; }

    // An executable shell script in the temporary directory.
    fs::path script(const std::string& name, const std::string& body) {
        const auto path = directory_.path() / name;
        write_text(path, "#!/bin/sh\n" + body);
        fs::permissions(path, fs::perms::owner_all);
        return path;
    }

    vcs::ProcessOutput benchwatch(std::vector<std::string> arguments,
                                  EnvironmentOverrides environment = {}) {
        environment.merge(without_ci_variables());
        return run(benchwatch_command(arguments), directory_.path(), environment);
    }

    std::vector<std::string> run_arguments(const std::string& commit,
                                           std::vector<std::string> extra) {
        std::vector<std::string> arguments = {
            "run",      "--store",           store(),    "--project", "p", "--machine", "m",
            "--commit", fake_commit(commit), "--branch", "main"};
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        return arguments;
    }

    std::vector<model::Result> stored_results() {
        auto opened = store::open_store(store());
        const auto runs = opened->list_runs({});
        if (runs.empty()) return {};
        const std::int64_t ids[] = {runs.back().id};
        return opened->results(ids).at(runs.back().id);
    }

    std::size_t stored_runs() {
        if (!stores_on_postgres() && !fs::exists(store())) return 0;
        return store::open_store(store())->list_runs({}).size();
    }

    TemporaryDirectory directory_{"benchwatch-run"};
    std::string store_ = test_store_url(directory_.path());
};

// A harness printing Google Benchmark JSON whose time for "a" is read from a list, one value per
// invocation (counted in a file), so that repetitions differ in a known way.
std::string harness_body(const std::string& counter, const std::string& times) {
    return "n=$(cat " + counter + " 2>/dev/null || echo 0); n=$((n + 1)); echo $n > " + counter +
           "\nset -- " + times +
           "\nshift $((n - 1))\n"
           "printf '{\"context\": {\"library_build_type\": \"release\"}, \"benchmarks\": ["
           "{\"name\": \"a\", \"run_type\": \"iteration\", \"real_time\": %s, \"time_unit\": "
           "\"ns\"}]}' \"$1\"\n";
}

TEST_F(RunTest, RepetitionsKeepEachBenchmarksMinimumAndWarmupsAreNotRecorded) {
    const auto counter = (directory_.path() / "count").string();
    // Invocation 1 is the warm-up (1 ns would win if it counted), then 30, 20, 25.
    const auto harness = script("harness.sh", harness_body(counter, "1 30 20 25"));
    const auto output = benchwatch(run_arguments(
        "c1", {"--repetitions", "3", "--warmup", "1", "--no-progress", "--", harness.string()}));
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(read_text(counter), "4\n");
    const auto results = stored_results();
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].benchmark, "a");
    EXPECT_DOUBLE_EQ(results[0].value, 20);
    EXPECT_NE(output.out.find("recorded run 1 of 633100000"), std::string::npos) << output.out;
}

TEST_F(RunTest, TheDocumentedRunOfAGoogleBenchmarkSuiteOnDebianGivesNoWarning) {
    // The quick start's `run --repetitions 3` of a suite linked with Debian's own Google Benchmark
    // library, which calls itself a debug build: nothing the user could act on, so no warning,
    // and the three runs are three samples.
    const auto output = benchwatch(
        run_arguments("c1", {"--repetitions", "3", "--no-progress", "--", BENCHWATCH_GBENCH_FIXTURE,
                             "--benchmark_format=json", "--benchmark_min_time=0.01",
                             "--benchmark_filter=BM_Accumulate"}));
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.err.find("debug build"), std::string::npos) << output.err;
    EXPECT_EQ(output.err.find("fewer than"), std::string::npos) << output.err;
    const auto runs = store::open_store(store())->list_runs({});
    ASSERT_EQ(runs.size(), 1u);
    for (const auto& warning : runs[0].warnings)
        EXPECT_TRUE(warning.kind != "debug-harness" && warning.kind != "few-samples")
            << warning.kind << ": " << warning.message;
    const auto results = stored_results();
    ASSERT_FALSE(results.empty());
    for (const auto& result : results) {
        ASSERT_TRUE(result.samples) << result.benchmark;
        EXPECT_EQ(result.samples->count, 3) << result.benchmark;
    }
}

TEST_F(RunTest, ResultsFileIsReadAfterEachRun) {
    const auto file = directory_.path() / "out.json";
    const auto harness = script("harness.sh",
                                "printf '{\"benchmarks\": [{\"name\": \"b\", \"real_time\": 7, "
                                "\"time_unit\": \"us\"}]}' > " +
                                    file.string() + "\necho progress on stdout\n");
    const auto output = benchwatch(
        run_arguments("c1", {"--results", file.string(), "--no-progress", "--", harness.string()}));
    ASSERT_EQ(output.exit_code, 0) << output.err;
    ASSERT_EQ(stored_results().size(), 1u);
    EXPECT_DOUBLE_EQ(stored_results()[0].value, 7000);
}

TEST_F(RunTest, LatencyIsTheMinimumWallTimeOfWholeProcesses) {
    const auto output = benchwatch(run_arguments(
        "c1", {"--latency", "nap=sleep 0.05", "--latency-runs", "3", "--no-progress"}));
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto results = stored_results();
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].benchmark, "latency/nap");
    EXPECT_GE(results[0].value, 50e6);  // at least the 50 ms it sleeps, in ns
    EXPECT_LT(results[0].value, 1e9);
    ASSERT_TRUE(results[0].samples);
    EXPECT_EQ(results[0].samples->count, 3);
    ASSERT_TRUE(results[0].memory);
    EXPECT_GT(*results[0].memory, 0);
    ASSERT_TRUE(results[0].user_time);
    ASSERT_TRUE(results[0].system_time);
    EXPECT_LT(*results[0].user_time + *results[0].system_time, results[0].value);  // it sleeps
}

struct BrokenHarness {
    std::string name;
    std::string body;
    std::vector<std::string> extra;
    std::string expected_error;  // "{h}" stands for the harness's path
};

TEST_F(RunTest, BrokenHarnessIsOneLineExitTwoAndNothingRecorded) {
    const std::vector<BrokenHarness> cases = {
        {"crash.sh",
         "echo 'segfault in kernel' >&2\nkill -SEGV $$\n",
         {},
         "error: harness '{h}' killed by SIGSEGV (segfault in kernel); nothing was recorded\n"},
        {"fails.sh",
         "echo 'no GPU found' >&2\nexit 3\n",
         {},
         "error: harness '{h}' exit 3 (no GPU found); nothing was recorded\n"},
        // A Python traceback names its cause last; a terminal control in it is written out.
        {"traceback.sh",
         "printf 'Traceback (most recent call last):\\n  File \"bench.py\", line 3, in "
         "<module>\\n    import psutil\\nModuleNotFoundError: No module named "
         "\\033[31mpsutil\\n\\n' "
         ">&2\nexit 1\n",
         {},
         "error: harness '{h}' exit 1 (File \"bench.py\", line 3, in <module> | import psutil | "
         "ModuleNotFoundError: No module named \\u{1b}[31mpsutil); nothing was recorded\n"},
        {"hangs.sh",
         "sleep 30\n",
         {"--timeout", "0.3"},
         "error: harness '{h}' timed out after 0.3 s; nothing was recorded\n"},
        // Google Benchmark's console table: --benchmark_format=json was forgotten.
        {"garbage.sh",
         "printf 'Benchmark  Time  CPU\\nBM_a  5 ns  5 ns\\n'\n",
         {},
         "error: output of '{h}': unknown results format (looked like: text that is neither "
         "JSON nor the output of a harness benchwatch reads); if the harness writes its results "
         "to a file (as pytest --benchmark-json FILE does), pass --results FILE, else pass "
         "--input-format with one of: benchmarktools, googlebenchmark, hyperfine, "
         "pytest-benchmark, criterion, "
         "cargo-criterion, go, go-json, libtest, catch2, nanobench, jmh, benchmarkdotnet, nvbench, "
         "github-action-benchmark, bencher\n"},
        {"silent.sh",
         "true\n",
         {},
         "error: output of '{h}': empty file; expected benchmark results; if the harness writes "
         "its results to a file (as pytest --benchmark-json FILE does), pass --results FILE\n"},
    };
    for (const auto& broken : cases) {
        const auto harness = script(broken.name, broken.body);
        auto extra = broken.extra;
        extra.insert(extra.end(), {"--no-progress", "--", harness.string()});
        const auto output = benchwatch(run_arguments("c1", extra));
        auto expected = broken.expected_error;
        expected.replace(expected.find("{h}"), 3, harness.string());
        EXPECT_EQ(output.exit_code, 2) << broken.name;
        EXPECT_TRUE(output.err.ends_with(expected)) << broken.name << ": " << output.err;
    }
    EXPECT_EQ(stored_runs(), 0u);
}

TEST_F(RunTest, NothingToRunIsAUsageError) {
    const auto output = benchwatch(run_arguments("c1", {}));
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_TRUE(output.err.starts_with("error: nothing to run; give a harness after '--'"))
        << output.err;
}

TEST_F(RunTest, ProgressInALogFileHasNoControlCharacters) {
    const auto harness =
        script("harness.sh", harness_body((directory_.path() / "n").string(), "5 5 5"));
    const auto output =
        benchwatch(run_arguments("c1", {"--repetitions", "2", "--", harness.string()}));
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_NE(output.err.find("[1/2] repetition 1/2"), std::string::npos) << output.err;
    for (const char c : output.err + output.out)
        EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20)
            << "control character " << int(c) << " in: " << output.err;
}

TEST_F(RunTest, ProgressOnATerminalRedrawsOneLine) {
    const auto harness =
        script("harness.sh", harness_body((directory_.path() / "n").string(), "5 5 5"));
    const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
    ASSERT_GE(master, 0);
    ASSERT_EQ(::grantpt(master), 0);
    ASSERT_EQ(::unlockpt(master), 0);
    const int terminal = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
    ASSERT_GE(terminal, 0);

    auto argv =
        benchwatch_command(run_arguments("c1", {"--repetitions", "2", "--", harness.string()}));
    std::vector<char*> pointers;
    for (auto& argument : argv) pointers.push_back(argument.data());
    pointers.push_back(nullptr);
    std::vector<std::string> variables = {"TERM=xterm", "PATH=" + std::string(std::getenv("PATH"))};
    std::vector<char*> environment;
    for (auto& variable : variables) environment.push_back(variable.data());
    environment.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, terminal, STDERR_FILENO);
    posix_spawn_file_actions_addchdir_np(&actions, directory_.path().c_str());
    pid_t pid = 0;
    ASSERT_EQ(
        ::posix_spawn(&pid, pointers[0], &actions, nullptr, pointers.data(), environment.data()),
        0);
    posix_spawn_file_actions_destroy(&actions);
    ::close(terminal);
    std::string screen;
    char buffer[4096];
    for (ssize_t got; (got = ::read(master, buffer, sizeof buffer)) > 0;)
        screen.append(buffer, got);
    ::close(master);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << screen;
    EXPECT_NE(screen.find("\r"), std::string::npos) << screen;
    EXPECT_NE(screen.find("\x1b[K"), std::string::npos) << screen;
    EXPECT_NE(screen.find("█"), std::string::npos) << screen;
    EXPECT_NE(screen.find("2/2"), std::string::npos) << screen;
}

TEST_F(RunTest, StabilityWarningsAreStoredWithTheRun) {
    // One repetition of a debug build of the harness: a debug-harness and a few-samples warning.
    const auto harness = script("harness.sh",
                                "printf '{\"context\": {\"library_build_type\": \"debug\"}, "
                                "\"benchmarks\": [{\"name\": \"a\", \"run_type\": \"iteration\", "
                                "\"real_time\": 5, \"time_unit\": \"ns\"}]}'\n");
    const auto output = benchwatch(run_arguments("c1", {"--no-progress", "--", harness.string()}));
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto runs = store::open_store(store())->list_runs({});
    ASSERT_EQ(runs.size(), 1u);
    std::vector<std::string> kinds;
    for (const auto& warning : runs[0].warnings) {
        kinds.push_back(warning.kind);
        EXPECT_NE(output.err.find("warning: " + warning.message), std::string::npos) << output.err;
    }
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), "debug-harness"), kinds.end());
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), "few-samples"), kinds.end());
}

TEST_F(RunTest, OtherWorkWhileTheHarnessRunsIsStoredAsAHighLoadWarning) {
    // A busy loop on every core, started by this test and not by benchwatch, while a harness that
    // takes a second runs: the run measures other work on about all the cores, far beyond a
    // quarter of them, and says so with the run. The load average, which lags by a minute, would
    // not have seen loops started a moment before.
    const auto counter = (directory_.path() / "count").string();
    const auto harness = script("harness.sh", "sleep 1\n" + harness_body(counter, "5"));
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    vcs::ProcessOutput output;
    {
        BusyLoops neighbour(cores);
        output = benchwatch(run_arguments("c1", {"--no-progress", "--", harness.string()}));
    }
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto runs = store::open_store(store())->list_runs({});
    ASSERT_EQ(runs.size(), 1u);
    const auto loaded =
        std::find_if(runs[0].warnings.begin(), runs[0].warnings.end(),
                     [](const auto& warning) { return warning.kind == "high-load"; });
    ASSERT_NE(loaded, runs[0].warnings.end()) << output.err;
    EXPECT_TRUE(loaded->message.starts_with("Other work kept ")) << loaded->message;
    EXPECT_NE(
        loaded->message.find(fmt::format(" of {} cores busy while the benchmarks ran; ", cores)),
        std::string::npos)
        << loaded->message;
    EXPECT_NE(output.err.find("warning: " + loaded->message), std::string::npos) << output.err;
}

TEST_F(RunTest, ChangedDependencyVersionIsTheReportsEnvironmentLine) {
    // A stand-in compiler on PATH reports 12.2.0 on main and 13.1.0 on the pull request.
    GitRepository repository(directory_.path() / "repo");
    const auto shims = directory_.path() / "shims";
    fs::create_directories(shims);
    const auto gcc = shims / "gcc";
    const auto use_gcc = [&](const std::string& version) {
        write_text(gcc, "#!/bin/sh\necho 'gcc (Shim) " + version + "'\n");
        fs::permissions(gcc, fs::perms::owner_all);
    };
    const EnvironmentOverrides path = {{"PATH", shims.string() + ":" + std::getenv("PATH")}};
    const auto harness =
        script("harness.sh", harness_body((directory_.path() / "n").string(), "100 100 100 100"));
    const auto record_head = [&] {
        const auto output =
            benchwatch({"run", "--store", store(), "--project", "p", "--machine", "m", "--repo",
                        repository.directory().string(), "--no-progress", "--", harness.string()},
                       path);
        ASSERT_EQ(output.exit_code, 0) << output.err;
    };
    use_gcc("12.2.0");
    repository.commit("m1");
    record_head();
    repository.commit("m2");
    record_head();
    repository.git({"checkout", "-q", "-b", "pr"});
    repository.commit("pr");
    use_gcc("13.1.0");
    record_head();

    const auto output =
        benchwatch({"compare", "--store", store(), "--project", "p", "--machine", "m", "--repo",
                    repository.directory().string(), "--format", "markdown"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_NE(output.out.find("\nThe environment differs from the baseline's: compiler.gcc 12.2.0 "
                              "→ 13.1.0.\n"),
              std::string::npos)
        << output.out;
}

}  // namespace
}  // namespace benchwatch::testing
