// What could break: `benchwatch history --changes` missing a step, listing a one-run spike,
// naming the wrong commits on either side, or not saying that the environment changed there.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

class HistoryChangesTest : public ::testing::Test {
  protected:
    // Records commits c1…c8 on main, in that order, with benchmarks a and b (ns) and the
    // toolchain 1.0 up to c4 and 1.1 from c5.
    void record_history() {
        // a: 100 ×4 then 120 ×4, a step of 120 / 100 = +20% (slower: worse) between c4 and c5.
        // b: 50 with a one-run spike to 100 at c3, then 40 from c6: one step, 40 / 50 = −20%
        // (faster: better), between c5 and c6; the spike is no step.
        const double a[] = {100, 100, 100, 100, 120, 120, 120, 120};
        const double b[] = {50, 50, 100, 50, 50, 40, 40, 40};
        for (int i = 0; i < 8; ++i) {
            const auto file = directory_.path() / "results.json";
            write_text(file, benchmark_file({{"a", a[i]}, {"b", b[i]}}));
            const auto output =
                benchwatch({"record", "--store", store_, "--project", "p", "--machine", "m",
                            "--commit", "c" + std::to_string(i + 1), "--branch", "main", "--env",
                            i < 4 ? "toolchain=1.0" : "toolchain=1.1", file.string()});
            ASSERT_EQ(output.exit_code, 0) << output.err;
        }
    }

    vcs::ProcessOutput benchwatch(const std::vector<std::string>& arguments) {
        auto environment = without_ci_variables();
        environment["NO_COLOR"] = "1";
        return run(benchwatch_command(arguments), directory_.path(), environment);
    }

    const std::string& store() const { return store_; }

  private:
    // A Google Benchmark file with one row per benchmark, times in ns.
    static std::string benchmark_file(const std::vector<std::pair<std::string, double>>& rows) {
        nlohmann::json benchmarks = nlohmann::json::array();
        for (const auto& [name, time] : rows)
            benchmarks.push_back({{"name", name},
                                  {"run_type", "iteration"},
                                  {"iterations", 10},
                                  {"real_time", time},
                                  {"cpu_time", time},
                                  {"time_unit", "ns"}});
        return nlohmann::json{{"context", {{"library_build_type", "release"}}},
                              {"benchmarks", benchmarks}}
            .dump();
    }

    TemporaryDirectory directory_{"benchwatch-changes"};
    std::string store_ = test_store_url(directory_.path());
};

TEST_F(HistoryChangesTest, TextListsEachStepWithItsCommitsSizeAndEnvironment) {
    record_history();
    const auto output = benchwatch(
        {"history", "--changes", "--store", store(), "--project", "p", "--machine", "m"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out,
              "Steps in the history of p on m: 2 in 8 runs (recorded order)\n"
              "a  c4..c5  +20.0% worse   environment: toolchain 1.0 → 1.1\n"
              "b  c5..c6  -20.0% better\n");
}

TEST_F(HistoryChangesTest, JsonGivesBothCommitsTheRatioAndTheChangedKeys) {
    record_history();
    const auto output = benchwatch({"history", "--changes", "--format", "json", "--store", store(),
                                    "--project", "p", "--machine", "m", "a"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto document = nlohmann::json::parse(output.out);
    EXPECT_EQ(document["runs"], 8);
    EXPECT_EQ(document["order"], "recorded");
    ASSERT_EQ(document["steps"].size(), 1u);
    const auto& step = document["steps"][0];
    EXPECT_EQ(step["benchmark"], "a");
    EXPECT_EQ(step["direction"], "smaller");
    EXPECT_EQ(step["before_commit"], "c4");
    EXPECT_EQ(step["after_commit"], "c5");
    EXPECT_DOUBLE_EQ(step["ratio"].get<double>(), 1.2);  // 120 / 100
    EXPECT_EQ(step["environment_changes"],
              nlohmann::json::parse(R"([{"key": "toolchain", "before": "1.0", "after": "1.1"}])"));
}

TEST_F(HistoryChangesTest, ShortHistoryHasNoSteps) {
    // Five runs cannot hold two levels of three runs each.
    record_history();
    const auto output = benchwatch({"history", "--changes", "--limit", "5", "--store", store(),
                                    "--project", "p", "--machine", "m"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out,
              "Steps in the history of p on m: 0 in 5 runs (recorded order)\nNo steps found.\n");
}

}  // namespace
}  // namespace benchwatch::testing
