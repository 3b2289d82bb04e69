// What could break: `run --instrument callgrind` counting the set-up outside a benchmark's loop, a
// warm-up's first-call costs, or the wrong benchmark's loop; a count that moves between runs of
// one binary; a 1% change in instructions judged by the 3% minimum of times, or flagged with its
// neighbours; a harness it cannot count, or a machine without valgrind, failing without saying
// what to do.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "store/store.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

class InstrumentTest : public ::testing::Test {
  protected:
    void SetUp() override {
        repository_.write_file("README", "spin\n");
        repository_.commit("spin");
    }

    vcs::ProcessOutput benchwatch(std::vector<std::string> arguments,
                                  std::map<std::string, std::string> extra = {}) {
        arguments.insert(arguments.begin() + 1, {"--store", store_});
        auto environment = without_ci_variables();
        for (auto& [key, value] : extra) environment[key] = value;
        return run(benchwatch_command(arguments), repository_.directory(), environment);
    }

    // Runs the fixture under the instrument as a run of `branch`.
    vcs::ProcessOutput counted(const std::string& branch) {
        return benchwatch({"run", "--project", "p", "--machine", "m", "--branch", branch,
                           "--instrument", "callgrind", "--no-progress", "--",
                           BENCHWATCH_INSTRUMENT_FIXTURE});
    }

    // The newest run's values of `metric`, by benchmark.
    std::map<std::string, double> newest(const std::string& metric) {
        const auto store = store::open_store(store_);
        const auto runs = store->list_runs({});
        const std::int64_t ids[] = {runs.back().id};
        std::map<std::string, double> values;
        const auto results = store->results(ids);
        for (const auto& result : results.at(runs.back().id))
            if (result.metric == metric) values[result.benchmark] = result.value;
        return values;
    }

    TemporaryDirectory scratch_{"benchwatch-instrument"};
    ScratchRepository repository_;
    std::string store_ = test_store_url(scratch_.path());
};

TEST_F(InstrumentTest, CountsEachLoopWithoutItsSetUpAndWithinOnePercentOfTheHandCount) {
    const auto output = counted("main");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto instructions = newest("instructions");
    ASSERT_EQ(instructions.size(), 3u) << output.err;  // BM_Spin/1000, /2000, BM_SortStrings
    // 2n + 1 instructions in the spin, and a few for the call and the loop around it; the set-up
    // (50n values written) would add hundreds of thousands.
    const double small = instructions.at("BM_Spin/1000");
    const double large = instructions.at("BM_Spin/2000");
    EXPECT_NEAR(small, 2001, 20.01) << small;
    EXPECT_NEAR(large - small, 2000, 20) << large;
    const auto cycles = newest("estimated_cycles");
    ASSERT_TRUE(cycles.contains("BM_Spin/1000")) << ::testing::PrintToString(cycles);
    EXPECT_GE(cycles.at("BM_Spin/1000"), small);
    EXPECT_NE(output.err.find("warning: BM_Pair/threads:2 runs on 2 threads, and the instrument "
                              "counts single-threaded benchmarks only; not counted\n"),
              std::string::npos)
        << output.err;
    EXPECT_NE(output.err.find("warning: BM_Skipped failed or was skipped under the instrument; "
                              "not counted\n"),
              std::string::npos)
        << output.err;
    // No word of the machine's load: a count does not depend on it.
    EXPECT_EQ(output.err.find("load average"), std::string::npos) << output.err;
    const auto runs = store::open_store(store_)->list_runs({});
    ASSERT_TRUE(runs.back().environment.contains("valgrind"))
        << ::testing::PrintToString(runs.back().environment);
    EXPECT_FALSE(runs.back().environment.at("valgrind").empty());

    // The same binary counted again gives the same counts.
    ASSERT_EQ(counted("main").exit_code, 0);
    EXPECT_EQ(newest("instructions"), instructions);
}

TEST_F(InstrumentTest, ALatencyCommandIsCountedWholeWithItsChildren) {
    const auto output =
        benchwatch({"run", "--project", "p", "--machine", "m", "--branch", "main", "--instrument",
                    "callgrind", "--no-progress", "--latency", "shell=sh -c 'true; true'"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto instructions = newest("instructions");
    ASSERT_TRUE(instructions.contains("latency/shell")) << output.err;
    EXPECT_GT(instructions.at("latency/shell"), 10000) << "a process starts in no fewer";
}

TEST_F(InstrumentTest, AOnePercentChangeIsFlaggedInEveryPullRequestAndNothingElseIs) {
    for (int i = 0; i < 16; ++i) {
        repository_.write_file("README", fmt::format("main {}\n", i));
        repository_.commit(fmt::format("main {}", i));
        const auto output = counted("main");
        ASSERT_EQ(output.exit_code, 0) << output.err;
    }
    std::vector<std::string> wrong;
    for (int pr = 0; pr < 20; ++pr) {
        const auto branch = fmt::format("pr{}", pr);
        repository_.git({"checkout", "-q", "-b", branch, "main"});
        // 10 more turns of the 2-instruction loop: +20 of about 2,010, about 1%.
        repository_.write_file("spin-extra", "10\n");
        repository_.commit("one percent more instructions");
        ASSERT_EQ(counted(branch).exit_code, 0);
        const auto compared =
            benchwatch({"compare", "--project", "p", "--machine", "m", "--format", "json"});
        ASSERT_EQ(compared.exit_code, 0) << compared.err;
        const auto report = nlohmann::json::parse(compared.out);
        for (const auto& benchmark : report["benchmarks"]) {
            const std::string key = benchmark["name"].get<std::string>() + " (" +
                                    benchmark["metric"].get<std::string>() + ")";
            const bool changed =
                key == "BM_Spin/1000 (instructions)" || key == "BM_Spin/1000 (estimated_cycles)";
            const std::string verdict = benchmark["verdict"];
            if (changed != (verdict == "slower"))
                wrong.push_back(fmt::format("{}: {} {} ({:+.3f}%) {}", branch, key, verdict,
                                            100 * benchmark["change"].get<double>(),
                                            benchmark.dump()));
        }
        repository_.git({"checkout", "-q", "main"});
    }
    EXPECT_TRUE(wrong.empty()) << ::testing::PrintToString(wrong);

    const auto backtest =
        benchwatch({"backtest", "--project", "p", "--machine", "m", "--format", "json"});
    ASSERT_EQ(backtest.exit_code, 0) << backtest.err;
    const auto scores = nlohmann::json::parse(backtest.out);
    for (const auto& method : scores["methods"]) {
        if (!method["default"].get<bool>()) continue;
        EXPECT_LE(method["flukes_per_pr"].get<double>(), 0.1) << method;
    }
}

TEST_F(InstrumentTest, TheMeasureRecipeCountsForBackfillAndForRunWithoutAHarness) {
    repository_.write_file(
        "benchwatch.toml",
        fmt::format("project = \"p\"\nmachine = \"m\"\n[measure]\nbuild = \"true\"\n"
                    "run = \"{}\"\ninstrument = \"callgrind\"\n",
                    BENCHWATCH_INSTRUMENT_FIXTURE));
    for (int i = 0; i < 3; ++i) {
        repository_.write_file("README", fmt::format("main {}\n", i));
        repository_.commit(fmt::format("main {}", i));
    }
    const auto filled = benchwatch({"backfill", "--last", "3", "--no-progress"});
    ASSERT_EQ(filled.exit_code, 0) << filled.err;
    EXPECT_NE(filled.out.find("3 recorded"), std::string::npos) << filled.out;
    EXPECT_NEAR(newest("instructions").at("BM_Spin/1000"), 2010, 20);
    const auto runs = store::open_store(store_)->list_runs({});
    EXPECT_TRUE(runs.back().environment.contains("valgrind"));
    EXPECT_FALSE(runs.back().environment.contains("benchwatch.repetitions"));

    repository_.git({"checkout", "-q", "-b", "pr"});
    repository_.write_file("spin-extra", "10\n");
    repository_.commit("one percent more instructions");
    const auto recorded = benchwatch({"run", "--no-progress"});
    ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
    const auto compared = benchwatch({"compare", "--format", "json"});
    ASSERT_EQ(compared.exit_code, 0) << compared.err;
    std::vector<std::string> flagged;
    const auto report = nlohmann::json::parse(compared.out);
    for (const auto& benchmark : report["benchmarks"])
        if (benchmark["verdict"] == "slower" || benchmark["verdict"] == "faster")
            flagged.push_back(benchmark["name"].get<std::string>() + " " +
                              benchmark["metric"].get<std::string>() + " " +
                              benchmark["verdict"].get<std::string>());
    EXPECT_EQ(flagged, (std::vector<std::string>{"BM_Spin/1000 estimated_cycles slower",
                                                 "BM_Spin/1000 instructions slower"}))
        << compared.out;
}

TEST_F(InstrumentTest, PairedRoundsOfCountsDecideAOnePercentChangeAndNothingElse) {
    // Base and head counted side by side: every round gives the same ratios, so the rounds decide
    // BM_Spin/1000's 1% in both metrics, and BM_Spin/2000 unchanged, without any history.
    repository_.write_file(
        "benchwatch.toml",
        fmt::format("project = \"p\"\nmachine = \"m\"\n[measure]\nbuild = \"true\"\n"
                    "run = \"{}\"\ninstrument = \"callgrind\"\n",
                    BENCHWATCH_INSTRUMENT_FIXTURE));
    repository_.commit("measure with the instrument");
    repository_.git({"checkout", "-q", "-b", "pr"});
    repository_.write_file("spin-extra", "10\n");
    repository_.commit("one percent more instructions");
    const auto compared =
        benchwatch({"compare", "--paired", "--paired-seed", "7", "--paired-budget", "600",
                    "--no-progress", "--format", "json"});
    ASSERT_EQ(compared.exit_code, 0) << compared.err;
    const auto report = nlohmann::json::parse(compared.out);
    std::map<std::string, std::string> verdicts;
    for (const auto& benchmark : report["benchmarks"])
        verdicts[benchmark["name"].get<std::string>() + " " +
                 benchmark["metric"].get<std::string>()] = benchmark["verdict"].get<std::string>();
    EXPECT_EQ(verdicts,
              (std::map<std::string, std::string>{{"BM_Spin/1000 estimated_cycles", "slower"},
                                                  {"BM_Spin/1000 instructions", "slower"},
                                                  {"BM_Spin/2000 estimated_cycles", "unchanged"},
                                                  {"BM_Spin/2000 instructions", "unchanged"},
                                                  {"BM_SortStrings estimated_cycles", "unchanged"},
                                                  {"BM_SortStrings instructions", "unchanged"}}))
        << compared.out;
}

TEST_F(InstrumentTest, CountsAreTheSameFromWorkingDirectoriesOfAnyLength) {
    // BM_SortStrings's count follows where the heap's blocks start, which the strings the
    // harness starts with move (by up to 0.1% here): counted from working directories of five
    // lengths (a pull request's checkout, backfill's commit folder), its counts must be the same.
    std::set<double> counts;
    std::string name = "w";
    for (const std::size_t length : {1, 9, 24, 40, 64}) {
        name.resize(length, 'w');
        const auto folder = scratch_.path() / name;
        fs::create_directories(folder);
        const auto output =
            run(benchwatch_command({"run", "--store", store_, "--project", "p", "--machine", "m",
                                    "--commit", repository_.git({"rev-parse", "HEAD"}), "--repo",
                                    repository_.directory().string(), "--branch",
                                    "w" + std::to_string(length), "--instrument", "callgrind",
                                    "--no-progress", "--", BENCHWATCH_INSTRUMENT_FIXTURE,
                                    "--benchmark_filter=BM_SortStrings"}),
                folder, without_ci_variables());
        ASSERT_EQ(output.exit_code, 0) << output.err;
        const auto instructions = newest("instructions");
        ASSERT_TRUE(instructions.contains("BM_SortStrings")) << output.err;
        counts.insert(instructions.at("BM_SortStrings"));
    }
    EXPECT_EQ(counts.size(), 1u) << ::testing::PrintToString(counts);
}

// The Go fixture's test binary, built with `go test -c` in the scratch folder; empty when go is not
// installed.
fs::path build_go_fixture(const fs::path& scratch) {
    const auto module = scratch / "go-spin";
    fs::copy(BENCHWATCH_GO_INSTRUMENT_FIXTURE, module, fs::copy_options::recursive);
    const EnvironmentOverrides go_environment = {{"HOME", scratch.string()},
                                                 {"GOCACHE", (scratch / "go-cache").string()},
                                                 {"GOPATH", (scratch / "go-path").string()},
                                                 {"GOPROXY", "off"},
                                                 {"GOTOOLCHAIN", "local"}};
    if (run({"go", "version"}, module, go_environment).exit_code != 0) return {};
    const auto built = run({"go", "test", "-c", "-o", "spin.test", "."}, module, go_environment);
    if (built.exit_code != 0) throw std::runtime_error("go test -c failed: " + built.err);
    return module / "spin.test";
}

TEST_F(InstrumentTest, CountsAGoTestBinarysIterationsWithoutItsSetUp) {
    const auto binary = build_go_fixture(scratch_.path());
    if (binary.empty())
        GTEST_SKIP() << "go is not installed (apt-get install golang-go; scripts/test installs "
                        "it): the Go instrument test is skipped";
    const auto output =
        benchwatch({"run", "--project", "p", "--machine", "m", "--branch", "main", "--instrument",
                    "callgrind", "--no-progress", "--", binary.string(), "-test.bench=."});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto instructions = newest("instructions");
    ASSERT_EQ(instructions.size(), 2u) << output.err;
    // spin(n) is 2n + 2 instructions of assembly; the loop around it and the call from Go add a
    // few. Each iteration's set-up of a million writes, before ResetTimer, would add some 30 per
    // iteration if it did not cancel between the two runs.
    const double small = instructions.at("BenchmarkSpin/1000");
    const double large = instructions.at("BenchmarkSpin/2000");
    EXPECT_NEAR(small, 2002, 20.02) << small;
    EXPECT_NEAR(large - small, 2000, 20) << large;
    const auto cycles = newest("estimated_cycles");
    ASSERT_TRUE(cycles.contains("BenchmarkSpin/1000")) << ::testing::PrintToString(cycles);
    // The spin touches no memory: its estimated cycles are its instructions, give or take what
    // the two runs' difference leaves.
    EXPECT_NEAR(cycles.at("BenchmarkSpin/1000"), small, 0.01 * small);
}

TEST_F(InstrumentTest, CountsACatch2BinarysBenchmarkCallsWithoutItsSizingOrClock) {
    if (std::string_view(BENCHWATCH_CATCH2_INSTRUMENT_FIXTURE).empty())
        GTEST_SKIP() << "Catch2 is not installed (apt-get install catch2; scripts/test installs "
                        "it): the Catch2 instrument test is skipped";
    const auto output =
        benchwatch({"run", "--project", "p", "--machine", "m", "--branch", "main", "--instrument",
                    "callgrind", "--no-progress", "--", BENCHWATCH_CATCH2_INSTRUMENT_FIXTURE});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto instructions = newest("instructions");
    ASSERT_EQ(instructions.size(), 2u) << output.err;
    // 2n + 1 instructions of assembly, and a few for the call and the loop around it.
    const double small = instructions.at("spin/spin 1000");
    const double large = instructions.at("spin/spin 2000");
    EXPECT_NEAR(small, 2001, 20.01) << small;
    EXPECT_NEAR(large - small, 2000, 20) << large;
    // Counted twice, the same to the instruction.
    const auto again =
        benchwatch({"run", "--project", "p", "--machine", "m", "--branch", "main", "--instrument",
                    "callgrind", "--no-progress", "--", BENCHWATCH_CATCH2_INSTRUMENT_FIXTURE});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(newest("instructions"), instructions);
}

TEST_F(InstrumentTest, GoTestItselfIsRefusedWithHowToBuildTheBinary) {
    const auto output =
        benchwatch({"run", "--project", "p", "--machine", "m", "--branch", "main", "--instrument",
                    "callgrind", "--no-progress", "--", "go", "test", "-bench", "."});
    EXPECT_EQ(output.exit_code, 2);
    const auto error = output.err.substr(std::min(output.err.find("error: "), output.err.size()));
    EXPECT_EQ(error,
              "error: 'go test -bench .' builds its test binary and runs it as a child, which the "
              "instrument does not count; build the binary first (go test -c -o pkg.test ./pkg) "
              "and give it with its flags (./pkg.test -test.bench=.)\n")
        << output.err;
}

TEST_F(InstrumentTest, AHarnessItCannotCountGetsOneLine) {
    const auto output =
        benchwatch({"run", "--project", "p", "--machine", "m", "--branch", "main", "--instrument",
                    "callgrind", "--no-progress", "--", "sh", "-c", "echo not a benchmark"});
    EXPECT_EQ(output.exit_code, 2);
    // After the progress lines, one line.
    const auto error = output.err.substr(std::min(output.err.find("error: "), output.err.size()));
    EXPECT_TRUE(
        error.starts_with("error: 'sh -c echo not a benchmark' printed no Google "
                          "Benchmark output under the instrument"))
        << output.err;
    EXPECT_TRUE(
        error.ends_with("; the instrument counts Google Benchmark harnesses, Catch2 and Go test "
                        "binaries (go test -c) and --latency commands\n"))
        << output.err;
    EXPECT_EQ(std::count(error.begin(), error.end(), '\n'), 1) << output.err;
}

TEST_F(InstrumentTest, WithoutValgrindItSaysHowToInstallIt) {
    // A PATH with git alone.
    const auto bin = scratch_.path() / "bin";
    fs::create_directories(bin);
    fs::create_symlink("/usr/bin/git", bin / "git");
    const auto output =
        benchwatch({"run", "--project", "p", "--machine", "m", "--branch", "main", "--instrument",
                    "callgrind", "--no-progress", "--", BENCHWATCH_INSTRUMENT_FIXTURE},
                   {{"PATH", bin.string()}});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: the instrument runs the benchmarks under valgrind's callgrind, and valgrind "
              "is not on PATH; install it (Debian and Ubuntu: apt-get install valgrind) and run "
              "again\n");
}

}  // namespace
}  // namespace benchwatch::testing
