// What could break: what a Go user records — `go test -json -bench` output read as results, and
// go test output without benchmarks, benchstat's summary or a rate too large to store refused
// with the reason and what to record instead, nothing stored — as `record` and `run` meet them.
#include <gtest/gtest.h>

#include "store/store.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

const fs::path go_data = fs::path(BENCHWATCH_TEST_DATA) / "go";
const fs::path go_json_data = fs::path(BENCHWATCH_TEST_DATA) / "go-json";

class GoResultsTest : public ::testing::Test {
  protected:
    vcs::ProcessOutput benchwatch(std::vector<std::string> arguments) {
        const std::vector<std::string> where = {"--store",   store_, "--project", "p",
                                                "--machine", "m",    "--commit",  fake_commit("c1"),
                                                "--branch",  "main"};
        arguments.insert(arguments.begin() + 1, where.begin(), where.end());
        return run(benchwatch_command(arguments), directory_.path(), without_ci_variables());
    }

    std::size_t stored_runs() {
        if (!stores_on_postgres() && !fs::exists(store_)) return 0;
        return store::open_store(store_)->list_runs({}).size();
    }

    TemporaryDirectory directory_{"benchwatch-go-results"};
    std::string store_ = test_store_url(directory_.path());
};

TEST_F(GoResultsTest, GoTestWithoutBenchmarksIsRefusedWithTheFlagToAdd) {
    const auto text = go_data / "without_bench.txt";
    auto output = benchwatch({"record", text.string()});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: " + text.string() +
                              ": go test output without benchmark results (go test runs "
                              "benchmarks only with -bench); run go test -bench . and record its "
                              "output\n");
    const auto events = go_json_data / "without_bench.json";
    output = benchwatch({"record", events.string()});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: " + events.string() +
                              ": go test -json output without benchmark results (go test runs "
                              "benchmarks only with -bench); run go test -json -bench . and "
                              "record its output\n");
    // `run -- go test` without -bench gets the same line about the harness's output.
    output = benchwatch({"run", "--no-progress", "--", "cat", text.string()});
    EXPECT_EQ(output.exit_code, 2);
    const std::string last_line =
        output.err.substr(output.err.rfind('\n', output.err.size() - 2) + 1);
    EXPECT_EQ(last_line, "error: output of 'cat " + text.string() +
                             "': go test output without benchmark results (go test runs "
                             "benchmarks only with -bench); run go test -bench . and record its "
                             "output\n");
    EXPECT_EQ(stored_runs(), 0u);
}

TEST_F(GoResultsTest, BenchstatsSummaryIsRefusedAsWhatItIs) {
    const auto summary = directory_.path() / "benchstat.txt";
    write_text(summary,
               "name   old time/op  new time/op  delta\n"
               "Sum-2  79.3ns ± 2%  81.0ns ± 3%   ~     (p=0.400 n=3+3)\n");
    const auto output = benchwatch({"record", summary.string()});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: " + summary.string() +
                              ": benchstat's summary of go test -bench runs, not the runs' "
                              "results; record the go test -bench output that benchstat read "
                              "instead\n");
    EXPECT_EQ(stored_runs(), 0u);
}

TEST_F(GoResultsTest, ARateThatOverflowsItsStoredUnitIsRefusedAndNothingStored) {
    const auto text = directory_.path() / "bench.txt";
    write_text(text,
               "goos: linux\n"
               "BenchmarkCopy-8  1000  12.5 ns/op  1e308 MB/s\n"
               "PASS\n");
    const auto output = benchwatch({"record", text.string()});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: " + text.string() +
                              ":2: benchmark 'BenchmarkCopy-8': 1e308 MB/s is too large to store "
                              "in B/s\n");
    EXPECT_EQ(stored_runs(), 0u);
}

TEST_F(GoResultsTest, GoTestJsonBenchIsRecorded) {
    const auto output = benchwatch({"record", (go_json_data / "two_packages.json").string()});
    EXPECT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out,
              "recorded run 1 of 633100000 (project p, machine m, branch main, attempt 1, 4 "
              "results)\n");
    const auto runs = store::open_store(store_)->list_runs({});
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].format, "go-json");
}

}  // namespace
}  // namespace benchwatch::testing
