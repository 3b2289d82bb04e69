// What could break: `benchwatch run` without a harness not measuring the way backfill does (another
// command, another folder, no BENCHWATCH_COMMIT), a pull request's best of 3 compared with a
// baseline backfilled from one run without the report saying so, [measure] benchmarks not
// narrowing what the suite is asked to run and what is recorded, or a bad value of it failing
// without its line and column.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "model/environment_keys.hpp"
#include "store/store.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

// The tests' seeded noise harness: BM_Real, BM_Faster and BM_Same, every one printed whatever
// {benchmarks} asks for. The suite writes the pattern it was given and its commit to files of
// the test's scratch folder.
constexpr std::string_view suite_script =
    "printf '%s\\n' \"$1\" > \"$NOISE_STATE/pattern\"\n"
    "printf '%s\\n' \"$BENCHWATCH_COMMIT\" > \"$NOISE_STATE/commit\"\n"
    "pwd > \"$NOISE_STATE/folder\"\n"
    "exec \"$NOISY_HARNESS\" \"$NOISE_STATE\" head BM_Real:1000:0 BM_Faster:500:0 "
    "BM_Same:2000:0\n";

class MeasureRecipeTest : public ::testing::Test {
  protected:
    void SetUp() override {
        repository_.write_file("bench.sh", suite_script);
        configure("");
        for (int i = 0; i < 3; ++i) repository_.commit(fmt::format("main {}", i));
    }

    // benchwatch.toml with a [measure] recipe whose table ends with `extra`.
    void configure(const std::string& extra) {
        repository_.write_file(
            "benchwatch.toml",
            fmt::format("project = \"p\"\nmachine = \"m\"\n[measure]\nbuild = \"true\"\n"
                        "run = \"NOISY_HARNESS={} NOISE_STATE={} sh bench.sh {{benchmarks}}\"\n{}",
                        BENCHWATCH_NOISY_HARNESS, scratch_.path().string(), extra));
    }

    vcs::ProcessOutput benchwatch(std::vector<std::string> arguments) {
        arguments.insert(arguments.begin() + 1, {"--store", store_});
        auto environment = without_ci_variables();
        environment["BENCHWATCH_NOISE_SEED"] = "5";
        return run(benchwatch_command(arguments), repository_.directory(), environment);
    }

    // The stored runs, oldest first.
    std::vector<model::Run> runs() { return store::open_store(store_)->list_runs({}); }

    // The benchmarks of the stored run `run`.
    std::set<std::string> benchmarks_of(const model::Run& run) {
        const std::int64_t ids[] = {run.id};
        const auto results = store::open_store(store_)->results(ids);
        std::set<std::string> names;
        for (const auto& result : results.at(run.id)) names.insert(result.benchmark);
        return names;
    }

    std::string scratch(const std::string& name) {
        auto text = read_text(scratch_.path() / name);
        if (!text.empty() && text.back() == '\n') text.pop_back();
        return text;
    }

    TemporaryDirectory scratch_{"benchwatch-measure-recipe"};
    ScratchRepository repository_;
    std::string store_ = test_store_url(scratch_.path());
};

constexpr std::string_view kRepetitionsDiffer =
    "The head was measured as the best of 3 repetitions and the baseline from 1; measure both "
    "the same way (the [measure] recipe's run, or the same --repetitions)";

TEST_F(MeasureRecipeTest, RunWithoutAHarnessRunsTheRecipesRunInTheCheckout) {
    const auto head = repository_.git({"rev-parse", "HEAD"});
    const auto recorded = benchwatch({"run", "--no-progress"});
    ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
    EXPECT_EQ(scratch("commit"), head);
    EXPECT_EQ(fs::canonical(scratch("folder")), fs::canonical(repository_.directory()));
    EXPECT_EQ(scratch("pattern"), ".") << "no [measure] benchmarks: every benchmark";
    const auto stored = runs();
    ASSERT_EQ(stored.size(), 1u);
    EXPECT_EQ(stored[0].commit, head);
    EXPECT_EQ(stored[0].branch, "main");
    EXPECT_EQ(stored[0].environment.at(std::string(model::repetitions_key)), "1");
    EXPECT_EQ(benchmarks_of(stored[0]), (std::set<std::string>{"BM_Faster", "BM_Real", "BM_Same"}));
}

TEST_F(MeasureRecipeTest, WithoutARecipeOrAHarnessRunSaysWhatToGive) {
    repository_.write_file("benchwatch.toml", "project = \"p\"\nmachine = \"m\"\n");
    const auto failed = benchwatch({"run", "--no-progress"});
    EXPECT_EQ(failed.exit_code, 2);
    EXPECT_EQ(failed.err,
              "error: nothing to run; give a harness after '--' (benchwatch run -- ./bench "
              "--benchmark_format=json), or a [measure] table with run = \"...\" in "
              "benchwatch.toml (docs/measure.md), or --latency NAME=COMMAND, or [[latency]] in "
              "benchwatch.toml\n");
}

TEST_F(MeasureRecipeTest, TheReportSaysWhenTheHeadIsTheBestOfMoreRepetitions) {
    ASSERT_EQ(benchwatch({"backfill", "--no-progress"}).exit_code, 0);
    repository_.git({"checkout", "-q", "-b", "pr"});
    repository_.write_file("change", "1\n");
    repository_.commit("a change");
    const auto recorded = benchwatch({"run", "--repetitions", "3", "--no-progress"});
    ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
    EXPECT_EQ(runs().back().environment.at(std::string(model::repetitions_key)), "3");

    const auto compared = benchwatch({"compare", "--format", "text"});
    ASSERT_EQ(compared.exit_code, 0) << compared.err;
    // Among the head's warnings, after any of the machine's (a busy machine's load).
    const auto at = compared.out.find(fmt::format(" {}.\n", kRepetitionsDiffer));
    ASSERT_NE(at, std::string::npos) << compared.out;
    const auto line = compared.out.rfind('\n', at) + 1;
    EXPECT_EQ(compared.out.substr(line, at - line).find("Measurement warnings for this PR's run:"),
              0u)
        << compared.out;
    EXPECT_EQ(compared.out.find("benchwatch.repetitions"), std::string::npos) << compared.out;
}

TEST_F(MeasureRecipeTest, TheReportSaysNothingWhenBothSidesRanTheRecipeOnce) {
    ASSERT_EQ(benchwatch({"backfill", "--no-progress"}).exit_code, 0);
    repository_.git({"checkout", "-q", "-b", "pr"});
    repository_.write_file("change", "1\n");
    repository_.commit("a change");
    ASSERT_EQ(benchwatch({"run", "--no-progress"}).exit_code, 0);

    const auto compared = benchwatch({"compare", "--format", "text"});
    ASSERT_EQ(compared.exit_code, 0) << compared.err;
    EXPECT_EQ(compared.out.find("The head was measured"), std::string::npos) << compared.out;
    EXPECT_EQ(compared.out.find("benchwatch.repetitions"), std::string::npos) << compared.out;
}

TEST_F(MeasureRecipeTest, TheSubsetNarrowsWhatBackfillAsksForAndRecords) {
    configure("benchmarks = [\"BM_R*\", \"BM_Same\"]\n");
    repository_.commit("measure a subset");
    const auto filled = benchwatch({"backfill", "--last", "2", "--no-progress"});
    ASSERT_EQ(filled.exit_code, 0) << filled.err;
    EXPECT_EQ(scratch("pattern"), "^(BM_R.*|BM_Same)$");
    const auto stored = runs();
    ASSERT_EQ(stored.size(), 2u);
    for (const auto& run : stored) {
        EXPECT_EQ(benchmarks_of(run), (std::set<std::string>{"BM_Real", "BM_Same"}));
        EXPECT_EQ(run.environment.at(std::string(model::repetitions_key)), "1");
    }
    // Said once, not for every commit.
    const auto note = fmt::format(
        "note: the suite of {} printed 1 benchmark outside [measure] benchmarks (BM_R*, "
        "BM_Same); it is dropped, not recorded\n",
        repository_.git({"rev-parse", "HEAD~1"}).substr(0, 12));
    const auto at = filled.err.find(note);
    EXPECT_NE(at, std::string::npos) << filled.err;
    EXPECT_EQ(filled.err.find("outside [measure] benchmarks", at + note.size()), std::string::npos)
        << filled.err;

    // `run` through the recipe measures the same subset.
    ASSERT_EQ(benchwatch({"run", "--no-progress"}).exit_code, 0);
    EXPECT_EQ(benchmarks_of(runs().back()), (std::set<std::string>{"BM_Real", "BM_Same"}));
}

TEST_F(MeasureRecipeTest, ASubsetThatMatchesNothingTheSuitePrintsRecordsNothing) {
    configure("benchmarks = [\"BM_Nope*\"]\n");
    repository_.commit("measure a subset");
    const auto filled = benchwatch({"backfill", "--last", "1", "--no-progress"});
    EXPECT_EQ(filled.exit_code, 1) << filled.err;
    EXPECT_NE(filled.err.find(fmt::format(
                  "warning: the suite of {} printed 3 benchmarks, none of them in [measure] "
                  "benchmarks (BM_Nope*); check the patterns against the names it prints; "
                  "skipped, nothing recorded\n",
                  repository_.git({"rev-parse", "HEAD"}).substr(0, 12))),
              std::string::npos)
        << filled.err;
    EXPECT_TRUE(runs().empty());
}

TEST_F(MeasureRecipeTest, ComparePairedJudgesOnlyTheSubset) {
    configure("benchmarks = [\"BM_R*\"]\n");
    repository_.commit("measure a subset");
    repository_.git({"checkout", "-q", "-b", "pr"});
    repository_.write_file("change", "1\n");
    repository_.commit("a change");
    const auto compared =
        benchwatch({"compare", "--paired", "--paired-seed", "3", "--format", "json"});
    ASSERT_EQ(compared.exit_code, 0) << compared.err;
    EXPECT_EQ(scratch("pattern"), "^(BM_R.*)$");
    const auto report = nlohmann::json::parse(compared.out);
    std::vector<std::string> names;
    for (const auto& benchmark : report["benchmarks"]) names.push_back(benchmark["name"]);
    EXPECT_EQ(names, std::vector<std::string>{"BM_Real"}) << compared.out;
}

TEST_F(MeasureRecipeTest, BisectFollowsOnlyABenchmarkOfTheSubset) {
    configure("benchmarks = [\"BM_R*\"]\n");
    repository_.commit("measure a subset");
    const auto failed =
        benchwatch({"bisect", "--good", "HEAD~2", "--bad", "HEAD", "--benchmark", "BM_Faster"});
    EXPECT_EQ(failed.exit_code, 2);
    EXPECT_EQ(failed.err,
              "error: benchmark 'BM_Faster' lies outside [measure] benchmarks (BM_R*), the only "
              "ones the recipe measures; add a pattern that matches it\n");
}

TEST_F(MeasureRecipeTest, ABadSubsetFailsWithItsLineAndColumn) {
    configure("benchmarks = [\"BM_R*\", 64]\n");
    const auto failed = benchwatch({"backfill", "--no-progress"});
    EXPECT_EQ(failed.exit_code, 2);
    EXPECT_TRUE(failed.err.starts_with("error: /")) << failed.err;
    EXPECT_TRUE(failed.err.ends_with(
        "/benchwatch.toml:6:24: 'measure.benchmarks' must hold benchmark names or glob patterns "
        "('*' for any characters, '?' for one), e.g. \"BM_Checksum*\"\n"))
        << failed.err;
    EXPECT_EQ(std::count(failed.err.begin(), failed.err.end(), '\n'), 1) << failed.err;
}

}  // namespace
}  // namespace benchwatch::testing
