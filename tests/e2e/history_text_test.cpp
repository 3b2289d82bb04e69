// What could break: the terminal text of `benchwatch history` for a store made with `record`:
// a benchmark with a single run shown with a typical change ("typical ±0.0%") it cannot have,
// and the sparkline of a benchmark added later drawn from the first column, so that its points
// sit under commits it was never measured at instead of under its own; and the runs older than
// the limit left out without a word.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

class HistoryTextTest : public ::testing::Test {
  protected:
    // benchwatch with the test's store, project and machine, in the repository.
    vcs::ProcessOutput benchwatch(std::vector<std::string> arguments) {
        arguments.insert(arguments.begin() + 1,
                         {"--store", store_, "--project", "p", "--machine", "m"});
        auto environment = without_ci_variables();
        environment["NO_COLOR"] = "1";
        return run(benchwatch_command(arguments), repository_.directory(), environment);
    }

    // Commits the next commit on main and records a Google Benchmark file of `rows` (name, ns)
    // for it.
    void commit_and_record(const std::vector<std::pair<std::string, double>>& rows) {
        repository_.commit("commit " + std::to_string(++commits_));
        nlohmann::json benchmarks = nlohmann::json::array();
        for (const auto& [name, time] : rows)
            benchmarks.push_back({{"name", name},
                                  {"run_type", "iteration"},
                                  {"iterations", 10},
                                  {"real_time", time},
                                  {"cpu_time", time},
                                  {"time_unit", "ns"}});
        const auto file = directory_.path() / "results.json";
        write_text(file, nlohmann::json{{"benchmarks", benchmarks}}.dump());
        const auto output = benchwatch({"record", file.string()});
        ASSERT_EQ(output.exit_code, 0) << output.err;
    }

    TemporaryDirectory directory_{"benchwatch-history-text"};
    std::string store_ = test_store_url(directory_.path());
    GitRepository repository_{directory_.path() / "repo"};
    int commits_ = 0;
};

TEST_F(HistoryTextTest, OneRunHasNoHistoryYetAndLaterBenchmarksStartUnderTheirCommits) {
    // a at all five commits; b from the third; c at the fifth only.
    commit_and_record({{"a", 10}});
    commit_and_record({{"a", 20}});
    commit_and_record({{"a", 30}, {"b", 10}});
    commit_and_record({{"a", 40}, {"b", 20}});
    commit_and_record({{"a", 50}, {"b", 30}, {"c", 7}});

    const auto output = benchwatch({"history"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto header_end = output.out.find('\n') + 1;
    EXPECT_EQ(output.out.substr(0, header_end),
              "History of p on m: 5 runs on 2026-10-01 (git order)\n");
    // One column per commit: b's first point is under the third commit, c's under the fifth.
    // The typical change is the median |ln ratio| of consecutive runs: a's ratios 2, 1.5, 1.33
    // and 1.25 give exp((ln 1.5 + ln 1.33) / 2) = 1.414, b's 2 and 1.5 give √3 = 1.732.
    EXPECT_EQ(output.out.substr(header_end),
              "a  ▁▃▅▆█  typical ±41.4%  latest 50.0 ns\n"
              "b    ▁▅█  typical ±73.2%  latest 30.0 ns\n"
              "c      ▄  no history yet  latest 7.00 ns\n");
}

TEST_F(HistoryTextTest, TheRunsLeftOutAreCountedWithTheFlagThatShowsThem) {
    for (const double time : {10, 11, 12, 13, 14}) commit_and_record({{"a", time}});
    const auto limited = benchwatch({"history", "--limit", "2"});
    ASSERT_EQ(limited.exit_code, 0) << limited.err;
    EXPECT_TRUE(limited.out.starts_with("History of p on m: 2 runs")) << limited.out;
    EXPECT_TRUE(limited.out.ends_with("\n3 older runs left out; --limit 0 shows all 5.\n"))
        << limited.out;
    const auto json = benchwatch({"history", "--limit", "4", "--format", "json"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    EXPECT_EQ(nlohmann::json::parse(json.out)["left_out"], 1);
    // All shown: nothing to say.
    const auto all = benchwatch({"history"});
    EXPECT_EQ(all.out.find("left out"), std::string::npos) << all.out;
}

}  // namespace
}  // namespace benchwatch::testing
