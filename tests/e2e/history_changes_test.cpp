// What could break: `benchwatch history --changes` missing a step, listing a one-run spike,
// naming the wrong commits on either side, not saying that the environment changed there, or
// listing a step of the whole suite once per benchmark instead of once.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

class HistoryChangesTest : public ::testing::Test {
  protected:
    // Records commits c1…c20 on main, in that order, with `values(i)` (i from 0) as the
    // benchmarks' ns, and the toolchain 1.0 up to c10 and 1.1 from c11.
    void record(const std::function<std::vector<std::pair<std::string, double>>(int)>& values) {
        for (int i = 0; i < 20; ++i) {
            const auto file = directory_.path() / "results.json";
            write_text(file, benchmark_file(values(i)));
            const auto output = benchwatch(
                {"record", "--store", store_, "--project", "p", "--machine", "m", "--commit",
                 fake_commit("c" + std::to_string(i + 1)), "--branch", "main", "--env",
                 i < 10 ? "toolchain=1.0" : "toolchain=1.1", file.string()});
            ASSERT_EQ(output.exit_code, 0) << output.err;
        }
    }

    // a: 100 ×10 then 120 ×10, a step of 120 / 100 = +20% (slower: worse) between c10 and c11.
    // b: 50 with a one-run spike to 100 at c3, then 40 from c13: one step, 40 / 50 = −20%
    // (faster: better), between c12 and c13; the spike is no step.
    // Both steps are trusted: each level lasts at least 8 runs; the runs before each hold five
    // deviations or more from their level, all 0 (b's spike at c3 comes before the first one, at
    // c6), so the level method's detectable change there is the category minimum, 3%; and the
    // runs either side never overlap, so the rank test rejects.
    void record_history() {
        record([](int i) -> std::vector<std::pair<std::string, double>> {
            return {{"a", i < 10 ? 100 : 120}, {"b", i == 2 ? 100 : i < 12 ? 50 : 40}};
        });
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
              "Steps in the history of p on m: 2 in 20 runs (recorded order)\n"
              "a  633130000..633131000  +20.0% worse   environment: toolchain 1.0 → 1.1\n"
              "b  633132000..633133000  -20.0% better\n");
}

TEST_F(HistoryChangesTest, JsonGivesBothCommitsTheRatioTheEvidenceAndTheChangedKeys) {
    record_history();
    const auto output = benchwatch({"history", "--changes", "--format", "json", "--store", store(),
                                    "--project", "p", "--machine", "m", "a"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto document = nlohmann::json::parse(output.out);
    EXPECT_EQ(document["runs"], 20);
    EXPECT_EQ(document["order"], "recorded");
    EXPECT_EQ(document["events"], nlohmann::json::array());
    ASSERT_EQ(document["steps"].size(), 1u);
    const auto& step = document["steps"][0];
    EXPECT_EQ(step["benchmark"], "a");
    EXPECT_EQ(step["direction"], "smaller");
    EXPECT_EQ(step["before_commit"], fake_commit("c10"));
    EXPECT_EQ(step["after_commit"], fake_commit("c11"));
    EXPECT_DOUBLE_EQ(step["ratio"].get<double>(), 1.2);  // 120 / 100
    EXPECT_EQ(step["runs_before"], 10);
    EXPECT_EQ(step["runs_after"], 10);
    EXPECT_NEAR(step["detectable_change"].get<double>(), 0.03, 1e-12);
    // Ten against ten, each side all tied: of the C(20, 10) = 184756 choices of ten, only the
    // ten 100s and the ten 120s are as extreme, p = 2 / 184756 = 1.0825e-5.
    EXPECT_NEAR(step["p_value"].get<double>(), 1.0825e-5, 0.0001e-5);
    EXPECT_EQ(step["environment_changes"],
              nlohmann::json::parse(R"([{"key": "toolchain", "before": "1.0", "after": "1.1"}])"));
}

TEST_F(HistoryChangesTest, ShortHistoryHasNoSteps) {
    // Nine runs cannot hold two levels of five runs each.
    record_history();
    const auto output = benchwatch({"history", "--changes", "--limit", "9", "--store", store(),
                                    "--project", "p", "--machine", "m"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out,
              "Steps in the history of p on m: 0 in 9 runs (recorded order)\nNo steps found.\n");
}

TEST_F(HistoryChangesTest, StepWithThreeRunsAfterItAtTheEndIsListedWithItsCommits) {
    // a: 100 up to c17, then 120 at c18, c19 and c20. The latest level has had three runs to
    // last, which is enough for it; the runs before are all 100, so the detectable change is the
    // category minimum, 3%; the three 120s lie above the last ten 100s: p = 1 / C(13, 3).
    record([](int i) -> std::vector<std::pair<std::string, double>> {
        return {{"a", i < 17 ? 100 : 120}};
    });
    const auto output = benchwatch(
        {"history", "--changes", "--store", store(), "--project", "p", "--machine", "m"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out,
              "Steps in the history of p on m: 1 in 20 runs (recorded order)\n"
              "a  633137000..633138000  +20.0% worse\n");
    const auto json = benchwatch({"history", "--changes", "--format", "json", "--store", store(),
                                  "--project", "p", "--machine", "m"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const auto document = nlohmann::json::parse(json.out);
    ASSERT_EQ(document["steps"].size(), 1u);
    const auto& step = document["steps"][0];
    EXPECT_EQ(step["before_commit"], fake_commit("c17"));
    EXPECT_EQ(step["after_commit"], fake_commit("c18"));
    EXPECT_EQ(step["runs_before"], 17);
    EXPECT_EQ(step["runs_after"], 3);
    EXPECT_NEAR(step["p_value"].get<double>(), 1.0 / 286, 1e-12);
}

TEST_F(HistoryChangesTest, StepOfTheWholeSuiteIsOneEventWithTheKeysThatChanged) {
    // Twelve benchmarks, each 100 up to c10 and 100 × (1.2 + 0.02 k) from c11 (k = 0…11): each
    // step is trusted as a's is above, and all twelve of the twelve measured stepped at c11, at
    // least half and at least ten: one event, median (1.30 + 1.32) / 2 = 1.31. "lone" steps
    // from c16 on its own (5 runs after, 15 before): a step of its own, not part of the event.
    record([](int i) {
        std::vector<std::pair<std::string, double>> values;
        for (int k = 0; k < 12; ++k)
            values.emplace_back(fmt::format("s{:02}", k), i < 10 ? 100 : 100 * (1.2 + 0.02 * k));
        values.emplace_back("lone", i < 15 ? 10 : 15);
        return values;
    });
    const auto output = benchwatch(
        {"history", "--changes", "--store", store(), "--project", "p", "--machine", "m"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out,
              "Steps in the history of p on m: 1 in 20 runs (recorded order), and 1 suite event\n"
              "Suite events, where much of the suite stepped at once (a machine, driver or "
              "toolchain change is likelier than a pull request):\n"
              "  633130000..633131000  12 of 13 benchmarks stepped, median +31.0%  environment: "
              "toolchain "
              "1.0 → 1.1\n"
              "Steps of single benchmarks:\n"
              "lone  633135000..633136000  +50.0% worse\n");

    const auto json = benchwatch({"history", "--changes", "--format", "json", "--store", store(),
                                  "--project", "p", "--machine", "m", "s00"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const auto document = nlohmann::json::parse(json.out);
    ASSERT_EQ(document["events"].size(), 1u);
    const auto& event = document["events"][0];
    EXPECT_EQ(event["before_commit"], fake_commit("c10"));
    EXPECT_EQ(event["after_commit"], fake_commit("c11"));
    EXPECT_EQ(event["benchmarks"], 12);
    EXPECT_EQ(event["measured"], 13);
    EXPECT_NEAR(event["median_ratio"].get<double>(), 1.31, 1e-12);
    // With a filter the event keeps its counts but lists only the steps selected.
    ASSERT_EQ(event["steps"].size(), 1u);
    EXPECT_EQ(event["steps"][0]["benchmark"], "s00");
    EXPECT_NEAR(event["steps"][0]["ratio"].get<double>(), 1.2, 1e-12);
    EXPECT_EQ(document["steps"], nlohmann::json::array());
}

}  // namespace
}  // namespace benchwatch::testing
