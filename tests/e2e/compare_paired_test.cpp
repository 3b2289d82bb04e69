// What could break: `compare --paired` measuring the wrong commits (the checkout or the default
// branch's tip instead of the merge base), reading or writing the store, judging a benchmark that
// did not change as changed or missing one that did, a report that does not say its figures were
// measured side by side, or a bad setting, a missing recipe or a commit without a merge base
// failing without one clear line.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

// The tests' seeded noise harness (σ = 1%, and a 5–50% slowdown in 5% of draws): BM_Real and
// BM_Faster change by the commit's files `real` and `faster`, BM_Same never changes.
constexpr std::string_view suite_script =
    "exec \"$NOISY_HARNESS\" \"$NOISE_STATE\" head \"BM_Real:1000:$(cat real)\" "
    "\"BM_Faster:500:$(cat faster)\" BM_Same:2000:0\n";

class ComparePairedTest : public ::testing::Test {
  protected:
    void SetUp() override {
        repository_.write_file("bench.sh", suite_script);
        repository_.write_file(
            "benchwatch.toml",
            fmt::format("project = \"p\"\nmachine = \"m\"\n[measure]\nbuild = \"true\"\n"
                        "run = \"NOISY_HARNESS={} NOISE_STATE={} sh bench.sh\"\n",
                        BENCHWATCH_NOISY_HARNESS, scratch_.path().string()));
        commit(0, 0, "main 1");
        base_ = commit(0, 0, "main 2");
        repository_.git({"checkout", "-q", "-b", "pr"});
        head_ = commit(0.15, -0.12, "a real slowdown and speed-up");
        // The default branch moves on after the pull request branched off: its tip is not the
        // baseline, the merge base is.
        repository_.git({"checkout", "-q", "main"});
        commit(0.5, 0.5, "main 3, much slower");
        repository_.git({"checkout", "-q", "pr"});
    }

    std::string commit(double real, double faster, const std::string& subject) {
        repository_.write_file("real", fmt::format("{}\n", real));
        repository_.write_file("faster", fmt::format("{}\n", faster));
        return repository_.commit(subject);
    }

    vcs::ProcessOutput benchwatch(const std::vector<std::string>& arguments) {
        auto environment = without_ci_variables();
        environment["BENCHWATCH_NOISE_SEED"] = "11";
        return run(benchwatch_command(arguments), repository_.directory(), environment);
    }

    TemporaryDirectory scratch_{"benchwatch-compare-paired"};
    ScratchRepository repository_;
    std::string store_ = (scratch_.path() / "never-made.db").string();
    std::string base_;
    std::string head_;
};

// Each benchmark's name and verdict in a JSON report, as "BM_Real slower".
std::vector<std::string> verdicts(const nlohmann::json& report) {
    std::vector<std::string> rows;
    for (const auto& benchmark : report["benchmarks"])
        rows.push_back(benchmark["name"].get<std::string>() + " " +
                       benchmark["verdict"].get<std::string>());
    return rows;
}

TEST_F(ComparePairedTest, JudgesTheHeadAgainstItsMergeBaseMeasuredSideBySideWithoutAStore) {
    const auto compared = benchwatch({"compare", "--paired", "--paired-seed", "3", "--store",
                                      store_, "--format", "json", "--fail-on-regression"});
    EXPECT_EQ(compared.exit_code, 1) << compared.err;  // BM_Real is 15% slower
    const auto report = nlohmann::json::parse(compared.out);
    EXPECT_EQ(verdicts(report),
              (std::vector<std::string>{"BM_Faster faster", "BM_Real slower", "BM_Same unchanged"}))
        << compared.out;
    EXPECT_EQ(report["method"], "paired");
    EXPECT_EQ(report["head"], head_);
    EXPECT_EQ(report["baseline"]["commit"], base_) << "the merge base, not main's tip";
    const auto& rounds = report["confirmation"];
    EXPECT_EQ(rounds["base_command"], "[measure] run at " + base_);
    EXPECT_EQ(rounds["head_command"], "[measure] run at " + head_);
    EXPECT_EQ(rounds["stopped"], "all decided");
    // The budget of 1 false verdict per pull request shared by the 3 benchmarks.
    EXPECT_DOUBLE_EQ(rounds["false_alarms_per_suite"].get<double>(), 1.0);
    EXPECT_DOUBLE_EQ(rounds["alpha"].get<double>(), 1.0 / 3);
    // BM_Real's change is the median of its rounds' ratios, near the true +15%.
    for (const auto& benchmark : report["benchmarks"])
        if (benchmark["name"] == "BM_Real") {
            EXPECT_NEAR(benchmark["change"].get<double>(), 0.15, 0.03) << benchmark;
            EXPECT_NEAR(benchmark["base"].get<double>(), 1000, 30) << benchmark;
        }
    EXPECT_NE(compared.err.find(fmt::format("measuring side by side: building {} (base) and {} "
                                            "(head)",
                                            base_.substr(0, 12), head_.substr(0, 12))),
              std::string::npos)
        << compared.err;
    EXPECT_FALSE(fs::exists(store_)) << "nothing is read from or written to the store";
    EXPECT_EQ(repository_.git({"status", "--porcelain"}), "");
    EXPECT_EQ(repository_.git({"rev-parse", "HEAD"}), head_);
}

TEST_F(ComparePairedTest, TheReportSaysItWasMeasuredSideBySide) {
    const auto compared =
        benchwatch({"compare", "--paired", "--paired-seed", "3", "--format", "markdown"});
    ASSERT_EQ(compared.exit_code, 0) << compared.err;
    const auto& markdown = compared.out;
    EXPECT_NE(markdown.find("Measured side by side: the baseline and this PR were built once each"),
              std::string::npos)
        << markdown;
    EXPECT_NE(markdown.find("### Side by side\n"), std::string::npos) << markdown;
    EXPECT_NE(markdown.find("| BM_Real | +15."), std::string::npos) << markdown;
    EXPECT_NE(markdown.find("🔴 slower"), std::string::npos) << markdown;
    EXPECT_NE(markdown.find("1 slower, 1 faster, 1 unchanged, 0 undecided."), std::string::npos)
        << markdown;
    EXPECT_EQ(markdown.find("Confirmation"), std::string::npos) << markdown;
}

TEST_F(ComparePairedTest, TheSameSeedMeasuresInTheSameOrder) {
    const auto first =
        benchwatch({"compare", "--paired", "--paired-seed", "5", "--format", "json"});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    fs::remove(scratch_.path() / "invocations");  // the harness draws the same noise again
    const auto second =
        benchwatch({"compare", "--paired", "--paired-seed", "5", "--format", "json"});
    ASSERT_EQ(second.exit_code, 0) << second.err;
    EXPECT_EQ(nlohmann::json::parse(first.out)["confirmation"],
              nlohmann::json::parse(second.out)["confirmation"]);
}

TEST_F(ComparePairedTest, TheConfigCanAskForItAndItsBudget) {
    repository_.write_file("benchwatch.toml",
                           read_text(repository_.directory() / "benchwatch.toml") +
                               "[compare]\npaired = true\npaired_budget = 120\n");
    repository_.commit("compare side by side");
    const auto compared = benchwatch({"compare", "--paired-seed", "3", "--format", "json"});
    ASSERT_EQ(compared.exit_code, 0) << compared.err;
    const auto report = nlohmann::json::parse(compared.out);
    EXPECT_EQ(report["method"], "paired");
    EXPECT_EQ(report["confirmation"]["time_budget_seconds"], 120);
}

TEST_F(ComparePairedTest, BadSettingsAndCommitsFailWithOneLine) {
    const auto config = read_text(repository_.directory() / "benchwatch.toml");
    repository_.write_file("benchwatch.toml", config + "[compare]\npaired = 1\n");
    auto failed = benchwatch({"compare", "--paired"});
    EXPECT_EQ(failed.exit_code, 2);
    EXPECT_NE(failed.err.find("'compare.paired' must be true or false"), std::string::npos)
        << failed.err;
    repository_.write_file("benchwatch.toml", config);

    failed = benchwatch({"compare", "--paired", "--head", "no-such-branch"});
    EXPECT_NE(failed.exit_code, 0);
    EXPECT_NE(failed.err.find("the head 'no-such-branch' is not a commit of"), std::string::npos)
        << failed.err;

    repository_.git({"checkout", "-q", "main"});
    failed = benchwatch({"compare", "--paired"});
    EXPECT_NE(failed.exit_code, 0);
    EXPECT_NE(failed.err.find("is its own merge base, so there is nothing to compare it with"),
              std::string::npos)
        << failed.err;

    failed = benchwatch({"compare", "--paired", "--paired-budget", "0"});
    EXPECT_NE(failed.exit_code, 0);
    EXPECT_NE(failed.err.find("--paired-budget"), std::string::npos) << failed.err;
}

TEST_F(ComparePairedTest, WithoutARecipeSaysWhatToAdd) {
    repository_.write_file("benchwatch.toml", "project = \"p\"\nmachine = \"m\"\n");
    repository_.commit("no recipe");
    const auto failed = benchwatch({"compare", "--paired"});
    EXPECT_EQ(failed.exit_code, 2) << failed.err;
    EXPECT_NE(failed.err.find("compare --paired needs to know how to build and measure a commit; "
                              "add a [measure] table"),
              std::string::npos)
        << failed.err;
}

TEST_F(ComparePairedTest, TwoFilesAreAlreadyBaseAndHead) {
    const auto failed = benchwatch({"compare", "--paired", "a.json", "b.json"});
    EXPECT_EQ(failed.exit_code, 2) << failed.err;
    EXPECT_NE(failed.err.find("--paired does not apply when two result files are compared"),
              std::string::npos)
        << failed.err;
}

}  // namespace
}  // namespace benchwatch::testing
