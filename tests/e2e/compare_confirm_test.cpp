// What could break: `compare --confirm` re-measuring the wrong commits (the checkout instead of
// the report's baseline and head), confirming a flagged fluke or dismissing a real change,
// --fail-on-regression still failing on a dismissed fluke, or a report that loses the verdicts
// between `compare --format json` and the comment rendered from it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

// The suite is the tests' seeded noise harness: BM_Real and BM_Faster change by the commit's
// files `real` and `faster`, BM_Fluke never changes.
constexpr std::string_view suite_script =
    "exec \"$NOISY_HARNESS\" \"$NOISE_STATE\" head \"BM_Real:1000:$(cat real)\" "
    "\"BM_Faster:500:$(cat faster)\" BM_Fluke:2000:0\n";

class CompareConfirmTest : public ::testing::Test {
  protected:
    void SetUp() override {
        repository_.write_file("bench.sh", suite_script);
        repository_.write_file(
            "benchwatch.toml",
            fmt::format("project = \"p\"\nmachine = \"m\"\n[run]\ncompeting_work = \"ignore\"\n"
                        "[measure]\nbuild = \"true\"\n"
                        "run = \"NOISY_HARNESS={} NOISE_STATE={} sh bench.sh\"\n",
                        BENCHWATCH_NOISY_HARNESS, scratch_.path().string()));
        for (int i = 0; i < 12; ++i) commit(0, 0, fmt::format("main {}", i));
        const auto filled = benchwatch({"backfill", "--store", store_, "--no-progress"});
        if (filled.exit_code != 0) throw std::runtime_error("backfill failed: " + filled.err);
        repository_.git({"checkout", "-q", "-b", "pr"});
        head_ = commit(0.15, -0.12, "a real slowdown and speed-up");
    }

    std::string commit(double real, double faster, const std::string& subject) {
        repository_.write_file("real", fmt::format("{}\n", real));
        repository_.write_file("faster", fmt::format("{}\n", faster));
        return repository_.commit(subject);
    }

    // Records the head's run as measured once, with BM_Fluke made 60% slower by a one-off (a CPU
    // hog can double a time).
    void record_head_with_a_fluke() {
        const auto results = scratch_.path() / "head.json";
        write_text(results,
                   "{\"context\": {\"library_build_type\": \"release\"}, \"benchmarks\": ["
                   "{\"name\": \"BM_Real\", \"run_type\": \"iteration\", \"real_time\": 1150, "
                   "\"time_unit\": \"ns\"},"
                   "{\"name\": \"BM_Faster\", \"run_type\": \"iteration\", \"real_time\": 440, "
                   "\"time_unit\": \"ns\"},"
                   "{\"name\": \"BM_Fluke\", \"run_type\": \"iteration\", \"real_time\": 3200, "
                   "\"time_unit\": \"ns\"}]}");
        const auto recorded = benchwatch({"record", "--store", store_, results.string()});
        ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
    }

    vcs::ProcessOutput benchwatch(const std::vector<std::string>& arguments,
                                  std::map<std::string, std::string> extra_environment = {}) {
        auto environment = without_ci_variables();
        environment.merge(extra_environment);
        environment["BENCHWATCH_NOISE_SEED"] = "7";
        return run(benchwatch_command(arguments), repository_.directory(), environment);
    }

    TemporaryDirectory scratch_{"benchwatch-compare-confirm"};
    ScratchRepository repository_;
    std::string store_ = test_store_url(scratch_.path());
    std::string head_;
};

// Each flagged benchmark's name and verdict, as "BM_Real confirmed slower".
std::vector<std::string> verdicts(const nlohmann::json& confirmation) {
    std::vector<std::string> rows;
    for (const auto& benchmark : confirmation["benchmarks"])
        rows.push_back(benchmark["name"].get<std::string>() + " " +
                       benchmark["verdict"].get<std::string>() + " " +
                       benchmark["measured"].get<std::string>());
    return rows;
}

TEST_F(CompareConfirmTest, ConfirmsTheRealChangesAndDismissesTheFlukeOfTheRecordedRun) {
    record_head_with_a_fluke();
    const auto plain = benchwatch({"compare", "--store", store_, "--format", "json"});
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    std::vector<std::string> flagged;
    const auto compared = nlohmann::json::parse(plain.out);
    for (const auto& benchmark : compared["benchmarks"])
        if (benchmark["verdict"] == "slower" || benchmark["verdict"] == "faster")
            flagged.push_back(benchmark["name"].get<std::string>());
    ASSERT_EQ(flagged, (std::vector<std::string>{"BM_Faster", "BM_Fluke", "BM_Real"})) << plain.out;

    const auto report = scratch_.path() / "report.json";
    const auto confirmed =
        benchwatch({"compare", "--store", store_, "--confirm", "--format", "json", "--output",
                    report.string(), "--fail-on-regression"});
    EXPECT_EQ(confirmed.exit_code, 1) << confirmed.err;  // BM_Real's slowdown is confirmed
    const auto json = nlohmann::json::parse(read_text(report));
    EXPECT_EQ(
        verdicts(json["confirmation"]),
        (std::vector<std::string>{"BM_Faster confirmed faster", "BM_Fluke dismissed unchanged",
                                  "BM_Real confirmed slower"}));
    // The verdicts are the settled ones: the dismissed fluke counts as unchanged everywhere.
    std::vector<std::string> settled;
    for (const auto& benchmark : json["benchmarks"])
        if (!benchmark["confirmation"].is_null())
            settled.push_back(fmt::format("{} {} {}", benchmark["name"].get<std::string>(),
                                          benchmark["verdict"].get<std::string>(),
                                          benchmark["confirmation"].get<std::string>()));
    EXPECT_EQ(settled, (std::vector<std::string>{"BM_Faster faster confirmed",
                                                 "BM_Fluke unchanged dismissed",
                                                 "BM_Real slower confirmed"}));
    int slower = 0;
    int faster = 0;
    for (const auto& category : json["categories"]) {
        slower += category["slower"].get<int>();
        faster += category["faster"].get<int>();
    }
    EXPECT_EQ(slower, 1) << json["categories"];
    EXPECT_EQ(faster, 1) << json["categories"];
    const auto base = repository_.git({"rev-parse", "main"});
    EXPECT_EQ(json["confirmation"]["base_command"], "[measure] run at " + base);
    EXPECT_EQ(json["confirmation"]["head_command"], "[measure] run at " + head_);
    EXPECT_NE(confirmed.err.find(fmt::format("confirming 3 flagged benchmarks: building {} and {}",
                                             base.substr(0, 12), head_.substr(0, 12))),
              std::string::npos)
        << confirmed.err;
    // The user's checkout is left as it was.
    EXPECT_EQ(repository_.git({"status", "--porcelain"}), "");
    EXPECT_EQ(repository_.git({"rev-parse", "HEAD"}), head_);

    // The comment rendered from the JSON report carries the verdicts.
    const auto summary = scratch_.path() / "summary.md";
    const auto posted = benchwatch({"github", "summary", "--report", report.string()},
                                   {{"GITHUB_STEP_SUMMARY", summary.string()}});
    ASSERT_EQ(posted.exit_code, 0) << posted.err;
    const auto markdown = read_text(summary);
    EXPECT_NE(markdown.find("### Confirmation\n"), std::string::npos) << markdown;
    EXPECT_NE(markdown.find("| BM_Fluke | slower +6"), std::string::npos) << markdown;
    EXPECT_NE(markdown.find("| ❎ dismissed |"), std::string::npos) << markdown;
    EXPECT_NE(markdown.find("| ✅ confirmed slower |"), std::string::npos) << markdown;
}

TEST_F(CompareConfirmTest, ReMeasuresOnlyTheFlagsWithinTheRecipesSubset) {
    record_head_with_a_fluke();
    // The subset is set after the history was recorded whole, so all three are flagged.
    repository_.write_file(
        "benchwatch.toml",
        fmt::format("project = \"p\"\nmachine = \"m\"\n[measure]\nbuild = \"true\"\n"
                    "run = \"NOISY_HARNESS={} NOISE_STATE={} sh bench.sh\"\n"
                    "benchmarks = [\"BM_Real\", \"BM_Fl*\"]\n",
                    BENCHWATCH_NOISY_HARNESS, scratch_.path().string()));
    const auto confirmed =
        benchwatch({"compare", "--store", store_, "--confirm", "--format", "json"});
    ASSERT_EQ(confirmed.exit_code, 0) << confirmed.err;
    EXPECT_NE(confirmed.err.find("note: 1 of the 3 flagged benchmarks lies outside [measure] "
                                 "benchmarks (BM_Real, BM_Fl*) and is not re-measured\n"),
              std::string::npos)
        << confirmed.err;
    EXPECT_NE(confirmed.err.find("confirming 2 flagged benchmarks"), std::string::npos)
        << confirmed.err;
    const auto json = nlohmann::json::parse(confirmed.out);
    EXPECT_EQ(
        verdicts(json["confirmation"]),
        (std::vector<std::string>{"BM_Fluke dismissed unchanged", "BM_Real confirmed slower"}));
    // The flag outside keeps the verdict the history gave it.
    for (const auto& benchmark : json["benchmarks"])
        if (benchmark["name"] == "BM_Faster") {
            EXPECT_EQ(benchmark["verdict"], "faster");
            EXPECT_TRUE(benchmark["confirmation"].is_null()) << benchmark;
        }
}

TEST_F(CompareConfirmTest, FailOnRegressionCountsConfirmedSlowdownsOnly) {
    // Only the fluke is slower: a real speed-up and BM_Real unchanged.
    repository_.git({"checkout", "-q", "main"});
    repository_.git({"checkout", "-q", "-b", "only-a-fluke"});
    head_ = commit(0, -0.12, "a speed-up");
    record_head_with_a_fluke();
    const auto plain = benchwatch({"compare", "--store", store_, "--fail-on-regression"});
    EXPECT_EQ(plain.exit_code, 1) << plain.out;  // the fluke and BM_Real's recorded +15%
    const auto confirmed = benchwatch({"compare", "--store", store_, "--confirm",
                                       "--fail-on-regression", "--format", "markdown"});
    EXPECT_EQ(confirmed.exit_code, 0) << confirmed.out << confirmed.err;
    // BM_Real's recorded +15% is not in this commit either: dismissed with the fluke.
    EXPECT_NE(confirmed.out.find("1 confirmed (0 slower, 1 faster), 2 dismissed, 0 undecided."),
              std::string::npos)
        << confirmed.out;
}

TEST_F(CompareConfirmTest, ACommitThatDoesNotBuildLeavesTheReportUnconfirmedWithAWarning) {
    repository_.write_file(
        "benchwatch.toml",
        fmt::format("project = \"p\"\nmachine = \"m\"\n[measure]\nbuild = \"test ! -f broken\"\n"
                    "run = \"NOISY_HARNESS={} NOISE_STATE={} sh bench.sh\"\n",
                    BENCHWATCH_NOISY_HARNESS, scratch_.path().string()));
    repository_.write_file("broken", "");
    const auto broken = repository_.commit("break the build");
    record_head_with_a_fluke();
    const auto output = benchwatch(
        {"compare", "--store", store_, "--confirm", "--fail-on-regression", "--format", "json"});
    EXPECT_EQ(output.exit_code, 1)
        << output.err;  // the flagged slowdowns, unconfirmed, still count
    const auto report = nlohmann::json::parse(output.out);
    EXPECT_FALSE(report.contains("confirmation"));
    EXPECT_NE(output.err.find("warning: the flagged changes could not be re-measured, so the "
                              "report is not confirmed: build of " +
                              broken.substr(0, 12) + " failed: exit 1"),
              std::string::npos)
        << output.err;
}

TEST_F(CompareConfirmTest, WithoutARecipeSaysWhatToAdd) {
    record_head_with_a_fluke();
    repository_.write_file("benchwatch.toml", "project = \"p\"\nmachine = \"m\"\n");
    repository_.commit("no recipe");
    const auto output = benchwatch({"compare", "--store", store_, "--head", head_, "--confirm"});
    EXPECT_EQ(output.exit_code, 2) << output.err;
    EXPECT_NE(output.err.find("compare --confirm needs to know how to build and measure a "
                              "commit; add a [measure] table to benchwatch.toml"),
              std::string::npos)
        << output.err;
}

TEST_F(CompareConfirmTest, ATimeBudgetSpentOnBuildingLeavesTheChangesUndecided) {
    record_head_with_a_fluke();
    repository_.write_file(
        "benchwatch.toml",
        fmt::format("project = \"p\"\nmachine = \"m\"\n[measure]\nbuild = \"sleep 1\"\n"
                    "run = \"NOISY_HARNESS={} NOISE_STATE={} sh bench.sh\"\n",
                    BENCHWATCH_NOISY_HARNESS, scratch_.path().string()));
    repository_.commit("slow build");
    const auto output = benchwatch({"compare", "--store", store_, "--head", head_, "--confirm",
                                    "--confirm-budget", "1.5", "--format", "json"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto confirmation = nlohmann::json::parse(output.out)["confirmation"];
    EXPECT_EQ(confirmation["stopped"], "time budget");
    EXPECT_EQ(confirmation["time_budget_seconds"], 1.5);
    for (const auto& benchmark : confirmation["benchmarks"])
        EXPECT_EQ(benchmark["verdict"], "undecided") << benchmark;
}

}  // namespace
}  // namespace benchwatch::testing
