// What could break: a benchmark that benchwatch.toml's [[benchmark]] tables ignore still judged
// or counted (in the report's summary, the JSON, the exit code of --fail-on-regression or the two
// files' comparison), or not listed as ignored; a per-benchmark minimum not replacing the
// category's; a bad table accepted.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

const std::string base_sha(40, 'a');
const std::string head_sha(40, 'b');

class BenchmarkRulesTest : public ::testing::Test {
  protected:
    vcs::ProcessOutput benchwatch(const std::vector<std::string>& arguments) {
        auto variables = without_ci_variables();
        variables["NO_COLOR"] = "1";
        return run(benchwatch_command(arguments), directory_.path(), variables);
    }

    void record(const std::string& commit, const std::string& branch,
                const std::vector<std::pair<std::string, double>>& rows) {
        write_text(directory_.path() / "results.json", google_benchmark_json(rows));
        const auto output =
            benchwatch({"record", "--store", store_, "--project", "p", "--machine", "m", "--commit",
                        commit, "--branch", branch, "results.json"});
        ASSERT_EQ(output.exit_code, 0) << output.err;
    }

    // Twelve default-branch runs in which BM_Flaky jumps about and the others hold within 1%,
    // then a head where BM_Flaky doubled, BM_Sort is 10% slower and BM_Join unchanged.
    void record_history() {
        const std::vector<double> flaky = {100, 180, 90, 200, 110, 95, 170, 100, 210, 90, 120, 100};
        for (std::size_t i = 0; i < flaky.size(); ++i) {
            const auto commit =
                i + 1 == flaky.size() ? base_sha : std::string(38, 'c') + std::to_string(10 + i);
            const double wobble = i % 2 == 0 ? 1.0 : 1.005;
            record(commit, "main",
                   {{"BM_Flaky", flaky[i]}, {"BM_Sort", 1000 * wobble}, {"BM_Join", 500 * wobble}});
        }
        record(head_sha, "feature", {{"BM_Flaky", 400}, {"BM_Sort", 1100}, {"BM_Join", 501}});
    }

    vcs::ProcessOutput compare(const std::vector<std::string>& extra = {}) {
        std::vector<std::string> arguments = {"compare", "--store",   store_,  "--project",
                                              "p",       "--machine", "m",     "--base",
                                              base_sha,  "--head",    head_sha};
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        return benchwatch(arguments);
    }

    TemporaryDirectory directory_{"benchwatch-rules"};
    std::string store_ = test_store_url(directory_.path());
};

TEST_F(BenchmarkRulesTest, AnIgnoredBenchmarkIsInNoVerdictAndNoCountAndListedOnce) {
    record_history();
    write_text(directory_.path() / "benchwatch.toml",
               "[[benchmark]]\nmatch = \"BM_Fla*\"\nignore = true\n");
    const auto output = compare({"--format", "json", "--fail-on-regression"});
    EXPECT_EQ(output.exit_code, 1) << "BM_Sort's 10% still fails: " << output.err;
    const auto report = nlohmann::json::parse(output.out);
    EXPECT_EQ(report["ignored"], nlohmann::json::array({"BM_Flaky"}));
    std::vector<std::string> judged;
    for (const auto& benchmark : report["benchmarks"]) judged.push_back(benchmark["name"]);
    EXPECT_EQ(judged, (std::vector<std::string>{"BM_Join", "BM_Sort"}));
    EXPECT_EQ(report["categories"][0]["compared"], 2);
    EXPECT_EQ(report["categories"][0]["slower"], 1);
    EXPECT_TRUE(report["added"].empty());
    EXPECT_TRUE(report["removed"].empty());

    const auto markdown = compare({"--format", "markdown"});
    ASSERT_EQ(markdown.exit_code, 0) << markdown.err;
    EXPECT_EQ(markdown.out.find("BM_Flaky"), markdown.out.rfind("BM_Flaky")) << "named once:\n"
                                                                             << markdown.out;
    EXPECT_NE(markdown.out.find("\nIgnored by benchwatch.toml, not judged: BM_Flaky.\n"),
              std::string::npos)
        << markdown.out;

    // Ignoring BM_Sort as well leaves nothing slower: --fail-on-regression passes.
    write_text(directory_.path() / "benchwatch.toml",
               "[[benchmark]]\nmatch = [\"BM_Flaky\", \"BM_Sort\"]\nignore = true\n");
    const auto both = compare({"--format", "json", "--fail-on-regression"});
    EXPECT_EQ(both.exit_code, 0) << both.err;
    EXPECT_EQ(nlohmann::json::parse(both.out)["ignored"],
              nlohmann::json::array({"BM_Flaky", "BM_Sort"}));
}

TEST_F(BenchmarkRulesTest, ARulesMinimumReplacesTheCategorys) {
    record_history();
    write_text(directory_.path() / "benchwatch.toml",
               "[[benchmark]]\nmatch = \"BM_Flaky\"\nignore = true\n\n"
               "[[benchmark]]\nmatch = \"BM_So?t\"\nminimum = 0.2\n");
    const auto output = compare({"--format", "json", "--fail-on-regression"});
    const auto report = nlohmann::json::parse(output.out);
    for (const auto& benchmark : report["benchmarks"])
        if (benchmark["name"] == "BM_Sort") {
            EXPECT_NE(benchmark["verdict"], "slower") << benchmark.dump();
            EXPECT_NEAR(benchmark["detectable_change"].get<double>(), 0.2, 1e-9)
                << benchmark.dump();
        }
    EXPECT_EQ(output.exit_code, 0) << "BM_Sort's 10% is within its 20%: " << output.out;
}

TEST_F(BenchmarkRulesTest, ABudgetWeightThatCannotActIsSaidToBeIgnored) {
    record_history();
    write_text(directory_.path() / "benchwatch.toml",
               "[[benchmark]]\nmatch = \"BM_Sort\"\nbudget_weight = 2\n");
    const auto level = compare({"--format", "json"});
    EXPECT_EQ(level.err, "") << "the default method shares its budget by noise";
    const auto seed = compare({"--format", "json", "--method", "seed"});
    EXPECT_EQ(seed.err,
              "warning: benchwatch.toml's budget_weight acts only where the level method shares a "
              "false-alarm budget out by noise (its default); the seed method judging here "
              "ignores it\n");
}

TEST_F(BenchmarkRulesTest, TwoFilesLeaveIgnoredBenchmarksOut) {
    write_text(directory_.path() / "base.json",
               google_benchmark_json({{"BM_Flaky", 100}, {"BM_Sort", 1000}}));
    write_text(directory_.path() / "head.json",
               google_benchmark_json({{"BM_Flaky", 400}, {"BM_Sort", 1000}}));
    write_text(directory_.path() / "benchwatch.toml",
               "[[benchmark]]\nmatch = \"BM_Flaky\"\nignore = true\n");
    const auto output = benchwatch({"compare", "base.json", "head.json", "--format", "json"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto report = nlohmann::json::parse(output.out);
    EXPECT_EQ(report["ignored"], nlohmann::json::array({"BM_Flaky"}));
    ASSERT_EQ(report["benchmarks"].size(), 1u);
    EXPECT_EQ(report["benchmarks"][0]["name"], "BM_Sort");
}

TEST_F(BenchmarkRulesTest, ABadPatternIsOneLineWithItsPlace) {
    write_text(directory_.path() / "benchwatch.toml",
               "[[benchmark]]\nmatch = \"BM_[ab]\"\nignore = true\n");
    const auto output = compare();
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: " + (directory_.path() / "benchwatch.toml").string() +
                              ":2:9: 'benchmark.match' pattern \"BM_[ab]\": '[' is no character "
                              "class here; match with '*' and '?' only, e.g. \"BM_Sort*\"\n");
}

}  // namespace
}  // namespace benchwatch::testing
