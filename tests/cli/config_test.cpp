// What could break: benchwatch.toml read wrongly (a category minimum, the catch-all category), a
// bad file accepted silently, or defaults taken in the wrong order.
#include "cli/config.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "cli/defaults.hpp"
#include "compare/level_method.hpp"

namespace benchwatch::cli {
namespace {

class ConfigTest : public ::testing::Test {
  protected:
    void SetUp() override {
        directory_ = std::filesystem::temp_directory_path() /
                     ("benchwatch-config-" + std::to_string(::getpid()) + "-" +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(directory_);
        std::filesystem::create_directories(directory_ / "sub" / "deeper");
    }
    void TearDown() override { std::filesystem::remove_all(directory_); }

    std::filesystem::path write(const std::string& text) {
        const auto path = directory_ / "benchwatch.toml";
        std::ofstream(path) << text;
        return path;
    }

    std::string error_of(const std::string& text) {
        const auto path = write(text);
        try {
            load_config(path);
        } catch (const ConfigError& error) {
            const std::string message = error.what();
            return message.substr(path.string().size());
        }
        return "no error";
    }

    std::filesystem::path directory_;
};

TEST_F(ConfigTest, EmptyFileGivesTheSeedDefaults) {
    const auto config = load_config(write(""));
    EXPECT_EQ(config.categories, model::default_categories());
    EXPECT_EQ(config.settings.factor, 3.0);
    EXPECT_EQ(config.settings.pairs, 30);
    EXPECT_FALSE(config.project);
}

TEST_F(ConfigTest, ReadsEveryKey) {
    const auto config = load_config(write(R"(
project = "cuda"
machine = "gpu1"
store = "data/h.db"
default_branch = "master"
history_url = "https://example.org/perf/?pkg={project}"
[compare]
method = "seed"
factor = 2.5
pairs = 10
[[category]]
name = "Everything"
minimum = 0.02
[[category]]
name = "Latency"
prefixes = ["latency/", "startup/"]
minimum = 0.05
)"));
    EXPECT_EQ(config.project, "cuda");
    EXPECT_EQ(config.machine, "gpu1");
    EXPECT_EQ(config.store, "data/h.db");
    EXPECT_EQ(config.default_branch, "master");
    EXPECT_EQ(config.method, "seed");
    EXPECT_EQ(config.settings.factor, 2.5);
    EXPECT_EQ(config.settings.pairs, 10);
    const std::vector<model::Category> expected = {
        {"Everything", {}, 0.02},
        {"Latency", {"latency/", "startup/"}, 0.05},
    };
    EXPECT_EQ(config.categories, expected);
}

TEST_F(ConfigTest, CategoriesWithoutACatchAllGetPerformanceFirst) {
    const auto config =
        load_config(write("[[category]]\nname = \"Latency\"\n"
                          "prefixes = [\"latency/\"]\nminimum = 0.05\n"));
    ASSERT_EQ(config.categories.size(), 2u);
    EXPECT_EQ(config.categories[0], (model::Category{"Performance", {}, 0.03}));
    EXPECT_EQ(config.categories[1].name, "Latency");
}

TEST_F(ConfigTest, LevelMethodSettingsUnderCompare) {
    const auto config =
        load_config(write("[compare]\nmethod = \"level\"\nsensitivity = 2\n"
                          "noise_quantile = 0.8\nlevel_runs = 7\nnoise_runs = 60\n"));
    EXPECT_EQ(config.method, "level");
    EXPECT_EQ(config.level_settings.sensitivity, 2.0);
    EXPECT_EQ(config.level_settings.noise_quantile, 0.8);
    EXPECT_EQ(config.level_settings.level_runs, 7u);
    EXPECT_EQ(config.level_settings.noise_runs, 60u);
    // A sensitivity set by hand is used as set: no budget calibrates it.
    EXPECT_EQ(config.level_settings.false_alarms_per_pr, std::nullopt);
    const auto defaults = load_config(write("[compare]\nfactor = 4\n"));
    EXPECT_EQ(defaults.level_settings.sensitivity, compare::LevelSettings{}.sensitivity);
    EXPECT_EQ(defaults.level_settings.level_runs, 5u);
    EXPECT_EQ(defaults.level_settings.false_alarms_per_pr, 1.0);
}

TEST_F(ConfigTest, FalseAlarmBudgetUnderCompare) {
    const auto config = load_config(write("[compare]\nfalse_alarms_per_pr = 0.5\n"));
    EXPECT_EQ(config.level_settings.false_alarms_per_pr, 0.5);
    EXPECT_EQ(error_of("[compare]\nfalse_alarms_per_pr = 0\n"),
              ":2:23: 'compare.false_alarms_per_pr' must be above 0 and at most 1000, e.g. 1");
    EXPECT_EQ(error_of("[compare]\nfalse_alarms_per_pr = 1\nsensitivity = 2\n"),
              ":3:15: 'compare.sensitivity' fixes what 'compare.false_alarms_per_pr' calibrates; "
              "set only one of them");
}

TEST_F(ConfigTest, LevelMethodSettingsOutOfRangeNameTheLine) {
    EXPECT_EQ(error_of("[compare]\nsensitivity = 0\n"),
              ":2:15: 'compare.sensitivity' must be positive");
    EXPECT_EQ(error_of("[compare]\nnoise_quantile = 1.5\n"),
              ":2:18: 'compare.noise_quantile' must be above 0 and at most 1, e.g. 0.9");
    EXPECT_EQ(error_of("[compare]\nlevel_runs = 0\n"),
              ":2:14: 'compare.level_runs' must be a whole number from 1 to 10000");
    EXPECT_EQ(error_of("[compare]\nnoise_runs = 2.5\n"),
              ":2:14: 'compare.noise_runs' must be a whole number from 1 to 10000");
}

TEST_F(ConfigTest, ErrorsNameTheLineAndWhatWasExpected) {
    EXPECT_EQ(error_of("project = 3\n"), ":1:11: 'project' must be a string");
    EXPECT_EQ(
        error_of("projcet = \"x\"\n"),
        ":1:1: unknown key 'projcet'; known keys here: benchmark, category, compare, "
        "dashboard_url, "
        "default_branch, history_url, latency, machine, measure, project, repository_url, run, "
        "store");
    EXPECT_EQ(error_of("[compare]\npairs = 0\n"),
              ":2:9: 'compare.pairs' must be a whole number >= 1");
    EXPECT_EQ(error_of("[[category]]\nname = \"A\"\nminimum = 5\n"),
              ":1:1: category 'A': 'minimum' must be a fraction in [0, 1), e.g. 0.05 for 5%");
    EXPECT_EQ(error_of("[[category]]\nminimum = 0.1\n"),
              ":1:1: a [[category]] needs a non-empty 'name'");
    EXPECT_NE(error_of("project = \"unterminated\n").find(":1:"), std::string::npos);
}

TEST_F(ConfigTest, LatencyTables) {
    const auto config = load_config(write(R"(
[[latency]]
name = "import"
command = "julia -e 'using X'"
runs = 7
warmup = 0
prepare = "sync"
[[latency]]
name = "ttfp"
command = "./ttfp"
)"));
    const std::vector<LatencyConfig> expected = {
        {"import", "julia -e 'using X'", 7, 0, "sync"},
        {"ttfp", "./ttfp", std::nullopt, std::nullopt, std::nullopt},
    };
    EXPECT_EQ(config.latency, expected);
    EXPECT_EQ(error_of("[[latency]]\nname = \"x\"\n"),
              ":1:1: a [[latency]] needs a non-empty 'name' and 'command'");
    EXPECT_EQ(error_of("[[latency]]\nname = \"x\"\ncommand = \"y\"\nruns = 0\n"),
              ":4:8: 'latency.runs' must be a whole number >= 1");
}

TEST_F(ConfigTest, CompilersUnderRun) {
    EXPECT_EQ(load_config(write("")).compilers, std::nullopt);
    EXPECT_EQ(load_config(write("[run]\ncompilers = [\"go\", \"nvcc\"]\n")).compilers,
              (std::vector<std::string>{"go", "nvcc"}));
    EXPECT_EQ(load_config(write("[run]\ncompilers = []\n")).compilers,
              std::vector<std::string>{});  // none recorded
    EXPECT_EQ(error_of("[run]\ncompilers = \"go\"\n"),
              ":2:13: 'run.compilers' must be an array of program names, e.g. [\"go\"]");
    EXPECT_EQ(error_of("[run]\ncompilers = [\"/usr/bin/go\"]\n"),
              ":2:14: 'run.compilers' must hold program names found on PATH, e.g. \"g++\"");
    EXPECT_EQ(error_of("[run]\ncompiler = [\"go\"]\n"),
              ":2:1: unknown key 'run.compiler'; known keys here: competing_work, compilers, "
              "instrument");
}

TEST_F(ConfigTest, CompetingWorkIsWarnedOfUnlessIgnored) {
    EXPECT_TRUE(load_config(write("")).warn_on_competing_work);
    EXPECT_TRUE(load_config(write("[run]\ncompeting_work = \"warn\"\n")).warn_on_competing_work);
    EXPECT_FALSE(load_config(write("[run]\ncompeting_work = \"ignore\"\n")).warn_on_competing_work);
    EXPECT_EQ(error_of("[run]\ncompeting_work = \"off\"\n"),
              ":2:18: 'run.competing_work' must be \"warn\" (record a run made while other work "
              "kept the cores busy as under load) or \"ignore\"");
}

TEST_F(ConfigTest, InstrumentUnderRunAndCountedMinimumsOfCategories) {
    EXPECT_EQ(load_config(write("")).instrument, std::nullopt);
    EXPECT_EQ(load_config(write("[run]\ninstrument = \"callgrind\"\n")).instrument, "callgrind");
    EXPECT_EQ(error_of("[run]\ninstrument = \"perf\"\n"),
              ":2:14: 'run.instrument' must be \"callgrind\" (count instructions under valgrind) "
              "or \"none\"");
    EXPECT_EQ(load_config(write("[measure]\nrun = \"b\"\ninstrument = \"callgrind\"\n"))
                  .measure->instrument,
              "callgrind");
    EXPECT_EQ(error_of("[measure]\nrun = \"b\"\ninstrument = \"yes\"\n"),
              ":3:14: 'measure.instrument' must be \"callgrind\" (count instructions under "
              "valgrind) or \"none\"");
    const auto config =
        load_config(write("[[category]]\nname = \"All\"\ncounted_minimum = 0.001\n"));
    ASSERT_EQ(config.categories.size(), 1u);
    EXPECT_EQ(config.categories[0].counted_minimum_change, 0.001);
    EXPECT_EQ(config.categories[0].minimum_change, 0.03);
    EXPECT_EQ(error_of("[[category]]\nname = \"All\"\ncounted_minimum = 2\n"),
              ":3:19: category 'All': 'counted_minimum' must be a fraction in [0, 1), e.g. 0.002 "
              "for 0.2% of the instructions");
}

TEST_F(ConfigTest, MeasureTable) {
    EXPECT_EQ(load_config(write("")).measure, std::nullopt);
    const auto config = load_config(write(R"(
[measure]
build = "make bench"
run = "./bench --json"
results = "out.json"
input_format = "googlebenchmark"
timeout = 90.5
worktrees = "../commits"
worktrees_limit_gb = 2.5
benchmarks = ["BM_Checksum*", "BM_Join/64"]
)"));
    MeasureConfig expected;
    expected.build = "make bench";
    expected.run = "./bench --json";
    expected.results = "out.json";
    expected.input_format = "googlebenchmark";
    expected.benchmarks = {"BM_Checksum*", "BM_Join/64"};
    expected.timeout_seconds = 90.5;
    expected.worktrees = "../commits";
    expected.worktrees_limit_bytes = 2'500'000'000;
    EXPECT_EQ(config.measure, expected);
    // Unset keys: nothing to build, stdout, detection, no timeout, 10 GB in .git.
    MeasureConfig defaults;
    defaults.run = "./bench";
    EXPECT_EQ(load_config(write("[measure]\nrun = \"./bench\"\n")).measure, defaults);
    EXPECT_EQ(defaults.worktrees_limit_bytes, 10'000'000'000U);

    EXPECT_EQ(error_of("[measure]\nbuild = \"make\"\n"),
              ":1:1: [measure] needs a non-empty 'run', the command that prints the suite's "
              "results, e.g. run = \"build/bench --benchmark_format=json\"");
    EXPECT_EQ(error_of("[measure]\nrun = \"x\"\ntimeout = 0\n"),
              ":3:11: 'measure.timeout' must be a positive number of seconds");
    EXPECT_EQ(error_of("[measure]\nrun = \"x\"\nworktrees_limit_gb = -1\n"),
              ":3:22: 'measure.worktrees_limit_gb' must be a number of GB >= 0, e.g. 10");
    EXPECT_EQ(error_of("measure = 3\n"), ":1:11: 'measure' must be a table ([measure])");
    EXPECT_EQ(error_of("[measure]\nrun = \"x\"\nbiuld = \"y\"\n"),
              ":3:1: unknown key 'measure.biuld'; known keys here: benchmarks, build, "
              "input_format, instrument, results, run, timeout, worktrees, worktrees_limit_gb");
    EXPECT_EQ(error_of("[measure]\nrun = \"x\"\nbenchmarks = \"BM_*\"\n"),
              ":3:14: 'measure.benchmarks' must be an array of benchmark names or glob patterns, "
              "e.g. [\"BM_Checksum*\", \"BM_Join/64\"]");
    EXPECT_EQ(error_of("[measure]\nrun = \"x\"\nbenchmarks = []\n"),
              ":3:14: 'measure.benchmarks' names no benchmark; leave it out to measure every one");
    const std::string bad_pattern =
        ": 'measure.benchmarks' must hold benchmark names or glob patterns ('*' for any "
        "characters, '?' for one), e.g. \"BM_Checksum*\"";
    EXPECT_EQ(error_of("[measure]\nrun = \"x\"\nbenchmarks = [\"BM_A\", 3]\n"),
              ":3:23" + bad_pattern);
    EXPECT_EQ(error_of("[measure]\nrun = \"x\"\nbenchmarks = [\"BM_A\", \"\"]\n"),
              ":3:23" + bad_pattern);
}

TEST_F(ConfigTest, BenchmarkTablesSetIgnoredBenchmarksMinimumsAndBudgetWeights) {
    const auto config = load_config(write(R"(
[[benchmark]]
match = "BM_Flaky*"
ignore = true

[[benchmark]]
match = ["net/*", "BM_Sort?"]
minimum = 0.1
counted_minimum = 0.01
budget_weight = 0.5
)"));
    ASSERT_EQ(config.benchmark_rules.size(), 2u);
    const auto& ignore = config.benchmark_rules[0];
    EXPECT_EQ(ignore.patterns, std::vector<std::string>{"BM_Flaky*"});
    EXPECT_TRUE(ignore.ignore);
    EXPECT_FALSE(ignore.minimum_change);
    const auto& minimum = config.benchmark_rules[1];
    EXPECT_EQ(minimum.patterns, (std::vector<std::string>{"net/*", "BM_Sort?"}));
    EXPECT_FALSE(minimum.ignore);
    EXPECT_DOUBLE_EQ(*minimum.minimum_change, 0.1);
    EXPECT_DOUBLE_EQ(*minimum.counted_minimum_change, 0.01);
    EXPECT_DOUBLE_EQ(*minimum.budget_weight, 0.5);
}

TEST_F(ConfigTest, BadBenchmarkTablesAreOneLineWithTheirPlace) {
    EXPECT_EQ(error_of("[[benchmark]]\nmatch = \"BM_[ab]*\"\nignore = true\n"),
              ":2:9: 'benchmark.match' pattern \"BM_[ab]*\": '[' is no character class here; "
              "match with '*' and '?' only, e.g. \"BM_Sort*\"");
    EXPECT_EQ(error_of("[[benchmark]]\nmatch = [\"a\", \"\"]\nignore = true\n"),
              ":2:15: 'benchmark.match' must hold benchmark names or glob patterns ('*' for any "
              "characters, '?' for one), e.g. \"BM_Checksum*\"");
    EXPECT_EQ(error_of("[[benchmark]]\nmatch = []\nignore = true\n"),
              ":2:9: 'benchmark.match' names no benchmark");
    EXPECT_EQ(error_of("[[benchmark]]\nignore = true\n"),
              ":1:1: a [[benchmark]] needs 'match', the benchmark names or glob patterns it "
              "sets, e.g. match = \"BM_Flaky*\"");
    EXPECT_EQ(error_of("[[benchmark]]\nmatch = \"a\"\n"),
              ":1:1: this [[benchmark]] sets nothing; give it ignore = true, 'minimum', "
              "'counted_minimum' or 'budget_weight'");
    EXPECT_EQ(error_of("[[benchmark]]\nmatch = \"a\"\nignore = true\nminimum = 0.1\n"),
              ":1:1: a [[benchmark]] with ignore = true is never judged; its 'minimum', "
              "'counted_minimum' and 'budget_weight' would do nothing, so leave them out");
    EXPECT_EQ(error_of("[[benchmark]]\nmatch = \"a\"\nminimum = 5\n"),
              ":3:11: 'benchmark.minimum' must be a fraction in [0, 1), e.g. 0.05 for 5%");
    EXPECT_EQ(error_of("[[benchmark]]\nmatch = \"a\"\nbudget_weight = -1\n"),
              ":3:17: 'benchmark.budget_weight' must be a number from 0.01 to 100; 1 is every "
              "other benchmark's, and ignore = true leaves a benchmark out");
    EXPECT_EQ(error_of("[[benchmark]]\nmatch = \"a\"\nignore = 1\n"),
              ":3:10: 'benchmark.ignore' must be true or false");
    EXPECT_EQ(error_of("[[benchmark]]\nmatch = \"a\"\nignored = true\n").substr(0, 40),
              ":3:1: unknown key 'benchmark.ignored'; k");
    EXPECT_EQ(error_of("benchmark = \"a\"\n"),
              ":1:13: 'benchmark' must be an array of tables ([[benchmark]])");
}

TEST_F(ConfigTest, FoundUpwardFromTheWorkingDirectory) {
    const auto path = write("project = \"p\"\n");
    EXPECT_EQ(find_config(directory_ / "sub" / "deeper"), path);
    EXPECT_EQ(load_config_from(directory_ / "sub").project, "p");
}

TEST_F(ConfigTest, HistoryUrlPlaceholderAndStoreBesideTheConfig) {
    write(
        "history_url = \"https://x.org/perf/?pkg={project}&again={project}\"\n"
        "store = \"data/h.db\"\n");
    Context context;
    context.working_directory = directory_ / "sub";
    context.config = load_config_from(context.working_directory);
    EXPECT_EQ(resolve_history_url("", "cuda", context), "https://x.org/perf/?pkg=cuda&again=cuda");
    EXPECT_EQ(resolve_history_url("https://flag", "cuda", context), "https://flag");
    ::unsetenv("BENCHWATCH_STORE");
    EXPECT_EQ(resolve_store({}, context), (directory_ / "data" / "h.db").string());
    EXPECT_EQ(resolve_project({}, context), directory_.filename().string());
}

TEST_F(ConfigTest, DashboardUrlIsTheDefaultHistoryLinkWithTheProjectInIt) {
    write("dashboard_url = \"https://x.org/perf/\"\n");
    Context context;
    context.working_directory = directory_;
    context.config = load_config_from(directory_);
    EXPECT_EQ(resolve_history_url("", "cuda", context), "https://x.org/perf/?pkg=cuda");
    // The project is percent-encoded as a query value; an existing query gets "&pkg=".
    EXPECT_EQ(resolve_history_url("", "my lib/ü&x", context),
              "https://x.org/perf/?pkg=my%20lib%2F%C3%BC%26x");
    context.config.dashboard_url = "https://x.org/perf/?theme=dark";
    EXPECT_EQ(resolve_history_url("", "cuda", context), "https://x.org/perf/?theme=dark&pkg=cuda");
    // history_url, when given, wins.
    context.config.history_url = "https://h.org/{project}";
    EXPECT_EQ(resolve_history_url("", "cuda", context), "https://h.org/cuda");
}

TEST_F(ConfigTest, RepositoryUrlFromTheConfigElseFromGitHubActions) {
    Context context;
    context.working_directory = directory_;
    ::setenv("GITHUB_SERVER_URL", "https://github.example", 1);
    ::setenv("GITHUB_REPOSITORY", "o/r", 1);
    EXPECT_EQ(resolve_repository_url(context), "https://github.example/o/r");
    context.config.repository_url = "https://forge.example/o/r/";
    EXPECT_EQ(resolve_repository_url(context), "https://forge.example/o/r");  // no trailing slash
    ::unsetenv("GITHUB_SERVER_URL");
    ::unsetenv("GITHUB_REPOSITORY");
    context.config.repository_url.reset();
    EXPECT_EQ(resolve_repository_url(context), "");
}

TEST(DefaultsTest, StoreDefaultsToDotBenchwatchInTheWorkingDirectory) {
    ::unsetenv("BENCHWATCH_STORE");
    Context context;
    context.working_directory = "/work/dir";
    EXPECT_EQ(resolve_store({}, context), "/work/dir/.benchwatch/history.db");
    ::setenv("BENCHWATCH_STORE", "/env/h.db", 1);
    EXPECT_EQ(resolve_store({}, context), "/env/h.db");
    CommonFlags flags;
    flags.store = "/flag.db";
    EXPECT_EQ(resolve_store(flags, context), "/flag.db");
    ::unsetenv("BENCHWATCH_STORE");
}

TEST(DefaultsTest, PullRequestNumberFromGithubRef) {
    ::setenv("GITHUB_REF", "refs/pull/3502/merge", 1);
    EXPECT_EQ(resolve_pull_request(std::nullopt), 3502);
    EXPECT_EQ(resolve_pull_request(7), 7);
    ::setenv("GITHUB_REF", "refs/heads/main", 1);
    EXPECT_EQ(resolve_pull_request(std::nullopt), std::nullopt);
    ::unsetenv("GITHUB_REF");
}

TEST(DefaultsTest, MissingCommitOutsideGitSaysWhichFlagToPass) {
    ::unsetenv("GITHUB_SHA");
    Context context;
    context.working_directory = "/nowhere";
    try {
        resolve_commit("", context);
        FAIL() << "expected a UsageError";
    } catch (const UsageError& error) {
        EXPECT_STREQ(error.what(),
                     "no commit given and /nowhere is not inside a git repository with commits; "
                     "pass --commit SHA (or --repo DIR)");
    }
}

}  // namespace
}  // namespace benchwatch::cli
