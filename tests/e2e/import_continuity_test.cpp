// What could break: a project switching from github-action-benchmark losing its history: the
// imported values stored under another metric or name than the runs benchwatch records after the
// switch (two series, "new" and "removed" in compare), the runner or interpreter changes that
// data.js records dropped (a runner change blamed on a commit), or the change of statistic at the
// switch blamed on the first commit benchwatch measured.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Entries of the made history, the runner changing at entry kRunnerChange, and runs recorded by
// benchwatch after the switch.
constexpr int kImported = 24;
constexpr int kRunnerChange = 12;
constexpr int kNewRuns = 6;
// How much faster the suite runs on the new runner.
constexpr double kRunnerSpeedUp = 1.6;

const json old_runner = {
    {"cores", 2}, {"speed", "2.30"}, {"model", "Intel(R) Xeon(R) Platinum 8272CL CPU @ 2.60GHz"}};
// A model no machine running the test has, so that the switch changes the runner's keys too.
const json new_runner = {
    {"cores", 4}, {"speed", "3.07"}, {"model", "Example EPYC 7763 64-Core Processor"}};

// A small deterministic wobble (within ±0.8%) so that the history has a spread.
double wobble(int i) {
    return 1 + 0.004 * ((i * 7) % 5 - 2);
}

// ../shared/data beside the sources, or where scripts/test found it for a clone made elsewhere.
fs::path shared_data() {
    const char* const found = std::getenv("BENCHWATCH_SHARED_DATA");
    return found != nullptr && *found != '\0' ? fs::path(found) : fs::path(BENCHWATCH_SHARED_DATA);
}

// One github-action-benchmark entry as the action writes it into data.js.
json entry(const std::string& commit, int i, const std::string& tool, json benches, json cpu) {
    return {{"commit",
             {{"author", {{"name", "Benchwatch Tests"}, {"username", "tests"}}},
              {"id", commit},
              {"message", fmt::format("Change {}", i + 1)},
              {"timestamp", "2026-10-01T00:00:00Z"},
              {"url", "https://github.com/example/p/commit/" + commit}}},
            {"date", (GitRepository::commit_seconds(i + 1) + 60) * 1000},
            {"tool", tool},
            {"cpu", std::move(cpu)},
            {"benches", std::move(benches)}};
}

void write_history(const fs::path& path, const json& entries) {
    const json history = {{"lastUpdate", 1},
                          {"repoUrl", "https://github.com/example/p"},
                          {"entries", {{"Benchmark", entries}}}};
    write_text(path, "window.BENCHMARK_DATA = " + history.dump(2) + ";\n");
}

class ImportContinuityTest : public ::testing::Test {
  protected:
    // benchwatch in the repository with the test's store, project and machine; `arguments`
    // start with the command's name.
    vcs::ProcessOutput benchwatch(std::vector<std::string> arguments) {
        const std::ptrdiff_t words = arguments.front() == "import" ? 2 : 1;
        arguments.insert(arguments.begin() + words,
                         {"--store", store_, "--project", "p", "--machine", "m"});
        auto environment = without_ci_variables();
        environment["NO_COLOR"] = "1";
        return run(benchwatch_command(arguments), working_directory_, environment);
    }

    // Commits `count` changes to the repository; returns their SHAs in order.
    std::vector<std::string> commit_changes(int count) {
        std::vector<std::string> commits;
        for (int i = 0; i < count; ++i) {
            repository_.write_file("CHANGES", fmt::format("change {}\n", made_));
            commits.push_back(repository_.commit(fmt::format("Change {}", ++made_)));
        }
        return commits;
    }

    // Imports `history` and checks that every entry was stored.
    void import(const fs::path& history) {
        const auto imported = benchwatch({"import", "github-action-benchmark", history.string()});
        ASSERT_EQ(imported.exit_code, 0) << imported.err;
        EXPECT_TRUE(
            imported.out.starts_with(fmt::format("imported {} of {} runs", kImported, kImported)))
            << imported.out;
    }

    // The default branch's history as JSON, every run of it.
    json history() {
        const auto output = benchwatch({"history", "--format", "json", "--limit", "1000"});
        EXPECT_EQ(output.exit_code, 0) << output.err;
        return json::parse(output.out);
    }

    // compare of `head` as JSON.
    json compare(const std::string& head) {
        const auto output = benchwatch({"compare", "--head", head, "--format", "json"});
        EXPECT_TRUE(output.exit_code == 0 || output.exit_code == 1) << output.err;
        return json::parse(output.out);
    }

    // The keys of a list of environment changes.
    static std::set<std::string> keys(const json& changes) {
        std::set<std::string> found;
        for (const auto& change : changes) found.insert(change.at("key").get<std::string>());
        return found;
    }

    // What the acceptance asks of any switch: one series per benchmark of `names`, each with
    // the imported runs and the new ones; compare judging the first new run against the last
    // imported one and the last new run against a history that holds the imported runs; the
    // planted runner change a suite event naming the runner's keys; and nothing at the switch
    // blamed on a commit without the environment change that explains it.
    void expect_one_continuing_series(const std::set<std::string>& names,
                                      const std::vector<std::string>& imported,
                                      const std::vector<std::string>& recorded) {
        const json series = history();
        std::set<std::string> seen;
        for (const auto& benchmark : series.at("benchmarks")) {
            seen.insert(benchmark.at("name").get<std::string>());
            EXPECT_EQ(benchmark.at("metric"), "time") << benchmark.at("name");
            EXPECT_EQ(benchmark.at("values").size(), static_cast<std::size_t>(kImported + kNewRuns))
                << benchmark.at("name");
        }
        EXPECT_EQ(seen, names);

        const json first = compare(recorded.front());
        EXPECT_EQ(first.at("baseline").at("commit"), imported.back());
        EXPECT_EQ(first.at("added"), json::array());
        EXPECT_EQ(first.at("removed"), json::array());
        EXPECT_EQ(first.at("benchmarks").size(), names.size());
        const json last = compare(recorded.back());
        EXPECT_EQ(last.at("added"), json::array());
        EXPECT_EQ(last.at("removed"), json::array());
        EXPECT_EQ(last.at("benchmarks").size(), names.size());
        EXPECT_GE(last.at("history_runs").get<int>(), kImported);

        const auto output =
            benchwatch({"history", "--changes", "--format", "json", "--limit", "1000"});
        ASSERT_EQ(output.exit_code, 0) << output.err;
        const json changes = json::parse(output.out);
        bool runner_event = false;
        for (const auto& event : changes.at("events")) {
            if (event.at("after_commit") != imported[kRunnerChange]) continue;
            runner_event = true;
            EXPECT_EQ(event.at("before_commit"), imported[kRunnerChange - 1]);
            EXPECT_EQ(event.at("benchmarks").get<std::size_t>(), names.size());
            const auto changed = keys(event.at("environment_changes"));
            for (const char* key : {"cores", "cpu", "cpu.speed"})
                EXPECT_TRUE(changed.contains(key)) << key << " " << event.dump();
            EXPECT_FALSE(changed.contains("statistic")) << event.dump();
            EXPECT_NEAR(event.at("median_ratio").get<double>(), 1 / kRunnerSpeedUp, 0.02);
        }
        EXPECT_TRUE(runner_event) << changes.dump(2);
        for (const auto& step : changes.at("steps"))
            EXPECT_NE(step.at("after_commit"), imported[kRunnerChange]) << step.dump();
        // At the switch, a step (if the new runs make one) names what changed there.
        for (const auto* list : {&changes.at("events"), &changes.at("steps")}) {
            for (const auto& change : *list) {
                if (change.at("after_commit") != recorded.front()) continue;
                EXPECT_FALSE(change.at("environment_changes").empty()) << change.dump();
            }
        }
    }

    ScratchRepository repository_;
    TemporaryDirectory outside_{"benchwatch-import"};
    // Where benchwatch runs: the repository, unless a test's commits are not in it.
    fs::path working_directory_ = repository_.directory();
    std::string store_ = test_store_url(outside_.path());
    int made_ = 0;
};

// A pytest-benchmark suite of eleven benchmarks (a suite event needs ten), small enough to run in
// a few seconds.
constexpr std::string_view pytest_suite = R"(import pytest


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


@pytest.mark.parametrize("n", range(2, 12))
def test_fib(benchmark, n):
    benchmark(fib, n)


def test_join(benchmark):
    benchmark(lambda: ",".join(str(i) for i in range(200)))
)";

// Debian's interpreter, where python3-pytest-benchmark puts the plugin (a python3 earlier on
// PATH may be another installation without it).
const std::string python = "/usr/bin/python3";

std::vector<std::string> pytest_command(const fs::path& json_output) {
    return {python,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--benchmark-json=" + json_output.string(),
            "--benchmark-min-rounds=5",
            "--benchmark-max-time=0.05",
            "bench_suite.py"};
}

TEST_F(ImportContinuityTest, PytestBenchmarkHistoryContinuesUnderBenchwatchRun) {
    if (run({python, "-c", "import pytest_benchmark"}, outside_.path()).exit_code != 0)
        GTEST_SKIP() << "pytest-benchmark is not installed (apt-get install "
                        "python3-pytest-benchmark; scripts/test installs it)";
    repository_.write_file("bench_suite.py", pytest_suite);
    const auto imported = commit_changes(kImported);

    // Real output of the suite, which the history's entries are made from as the action makes
    // them: iterations per second under the node id, with the mean and rounds in "extra".
    const fs::path sample = outside_.path() / "sample.json";
    const auto measured = run(pytest_command(sample), repository_.directory());
    ASSERT_EQ(measured.exit_code, 0) << measured.out << measured.err;
    const json output = json::parse(read_text(sample));
    std::set<std::string> names;
    json entries = json::array();
    for (int i = 0; i < kImported; ++i) {
        const bool moved = i >= kRunnerChange;
        json benches = json::array();
        for (const auto& benchmark : output.at("benchmarks")) {
            const auto& stats = benchmark.at("stats");
            const double ops =
                stats.at("ops").get<double>() * wobble(i) * (moved ? kRunnerSpeedUp : 1);
            names.insert(benchmark.at("fullname").get<std::string>());
            benches.push_back(
                {{"name", benchmark.at("fullname")},
                 {"value", ops},
                 {"unit", "iter/sec"},
                 {"range", fmt::format("stddev: {}", stats.at("stddev").get<double>())},
                 {"extra", fmt::format("mean: {} usec\nrounds: {}\npython: {}", 1e6 / ops,
                                       stats.at("rounds").get<int>(), moved ? "3.10" : "3.9")}});
        }
        entries.push_back(
            entry(imported[i], i, "pytest", benches, moved ? new_runner : old_runner));
    }
    ASSERT_EQ(names.size(), 11u);
    const fs::path data = outside_.path() / "data.js";
    write_history(data, entries);
    import(data);

    std::vector<std::string> recorded;
    const fs::path results = outside_.path() / "results.json";
    for (int i = 0; i < kNewRuns; ++i) {
        recorded.push_back(commit_changes(1).front());
        std::vector<std::string> arguments = {"run", "--results", results.string(), "--"};
        for (auto& word : pytest_command(results)) arguments.push_back(word);
        const auto ran = benchwatch(arguments);
        ASSERT_EQ(ran.exit_code, 0) << ran.out << ran.err;
    }
    expect_one_continuing_series(names, imported, recorded);

    // The switch is a change of statistic (the action kept the mean, benchwatch the minimum),
    // and the interpreter's change is there with the runner's.
    const json first = compare(recorded.front());
    EXPECT_TRUE(keys(first.at("environment_changes")).contains("statistic"))
        << first.at("environment_changes");
    const auto text = benchwatch({"history", "--changes", "--limit", "1000"});
    EXPECT_NE(text.out.find("extra.python 3.9 → 3.10"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("cores 2 → 4"), std::string::npos) << text.out;
}

TEST_F(ImportContinuityTest, GoogleBenchmarkHistoryContinuesUnderBenchwatchRun) {
    // Twelve benchmarks: a suite event needs ten.
    const std::vector<std::string> suite = {BENCHWATCH_IMPORT_FIXTURE, "--benchmark_format=json",
                                            "--benchmark_min_time=0.01",
                                            "--benchmark_repetitions=3"};
    const auto imported = commit_changes(kImported);

    // Real output with its repetitions and aggregate rows, every row an entry's bench as the
    // action stores it: real_time in the row's unit per iteration.
    const auto measured = run(suite, outside_.path());
    ASSERT_EQ(measured.exit_code, 0) << measured.err;
    const json output = json::parse(measured.out);
    std::set<std::string> names;
    json entries = json::array();
    for (int i = 0; i < kImported; ++i) {
        const bool moved = i >= kRunnerChange;
        json benches = json::array();
        for (const auto& row : output.at("benchmarks")) {
            if (row.value("run_type", "") == "iteration") names.insert(row.at("name"));
            const double time =
                row.at("real_time").get<double>() * wobble(i) / (moved ? kRunnerSpeedUp : 1);
            benches.push_back({{"name", row.at("name")},
                               {"value", time},
                               {"unit", row.at("time_unit").get<std::string>() + "/iter"},
                               {"extra", fmt::format("iterations: {}\ncpu: {} {}\nthreads: {}",
                                                     row.at("iterations").get<long>(),
                                                     row.at("cpu_time").get<double>(),
                                                     row.at("time_unit").get<std::string>(),
                                                     row.at("threads").get<int>())}});
        }
        entries.push_back(
            entry(imported[i], i, "googlecpp", benches, moved ? new_runner : old_runner));
    }
    ASSERT_EQ(names.size(), 12u);
    const fs::path data = outside_.path() / "data.js";
    write_history(data, entries);
    import(data);

    std::vector<std::string> recorded;
    for (int i = 0; i < kNewRuns; ++i) {
        recorded.push_back(commit_changes(1).front());
        std::vector<std::string> arguments = {"run", "--"};
        arguments.insert(arguments.end(), suite.begin(), suite.end());
        const auto ran = benchwatch(arguments);
        ASSERT_EQ(ran.exit_code, 0) << ran.out << ran.err;
    }
    expect_one_continuing_series(names, imported, recorded);
}

// BenchmarkTools.jl's own file of TrialEstimates with `times` as the benchmarks' ns, groups
// nested by the names' '/' as the suite's groups are.
std::string benchmarktools_file(const std::vector<std::pair<std::string, double>>& times) {
    json root = {{"tags", json::array()}, {"data", json::object()}};
    const json parameters =
        json::array({"Parameters", {{"samples", 10000}, {"evals", 1}, {"seconds", 5.0}}});
    for (const auto& [name, time] : times) {
        json* group = &root;
        std::string_view rest = name;
        for (std::size_t slash; (slash = rest.find('/')) != std::string_view::npos;
             rest.remove_prefix(slash + 1)) {
            json& data = (*group)["data"];
            const std::string key(rest.substr(0, slash));
            if (!data.contains(key))
                data[key] = json::array(
                    {"BenchmarkGroup", {{"tags", json::array()}, {"data", json::object()}}});
            group = &data[key][1];
        }
        (*group)["data"][std::string(rest)] = json::array({"TrialEstimate",
                                                           {{"allocs", 0},
                                                            {"time", time},
                                                            {"memory", 0},
                                                            {"gctime", 0},
                                                            {"params", parameters}}});
    }
    const json file = json::array({{{"Julia", "1.11.5"}, {"BenchmarkTools", "1.6.0"}},
                                   json::array({json::array({"BenchmarkGroup", root})})});
    return file.dump();
}

TEST_F(ImportContinuityTest, MetalJlHistoryContinuesWithBenchmarkToolsResults) {
    const fs::path metal = shared_data() / "metal-gh-pages-data.js";
    if (std::getenv("BENCHWATCH_SHARED_DATA") == nullptr || !fs::exists(metal))
        GTEST_SKIP() << metal << " is absent (it lives outside the project)";
    // The history's commits are Metal.jl's, in no repository here: runs in recorded order.
    working_directory_ = outside_.path();
    const auto imported = benchwatch({"import", "github-action-benchmark", metal.string()});
    ASSERT_EQ(imported.exit_code, 0) << imported.err;

    // The last entry's benches, and so the names and values the next runs continue.
    std::string text = read_text(metal);
    text.erase(0, text.find('{'));
    while (!text.empty() && text.back() != '}') text.pop_back();
    const json entries = json::parse(text).at("entries").at("Metal Benchmarks");
    std::vector<std::pair<std::string, double>> last;
    for (const auto& bench : entries.back().at("benches"))
        last.emplace_back(bench.at("name"), bench.at("value").get<double>());

    // Each new run compared as it is recorded: in recorded order the baseline is the run before.
    const std::vector<std::string> recorded = {fake_commit("next1"), fake_commit("next2")};
    for (std::size_t i = 0; i < recorded.size(); ++i) {
        auto times = last;
        for (auto& [name, time] : times) time *= 1 + 0.01 * static_cast<double>(i);
        const fs::path file = outside_.path() / "results.json";
        write_text(file, benchmarktools_file(times));
        const auto ran = benchwatch({"record", "--commit", recorded[i], "--branch", "main",
                                     "--input-format", "benchmarktools", file.string()});
        ASSERT_EQ(ran.exit_code, 0) << ran.err;

        const json report = compare(recorded[i]);
        EXPECT_EQ(report.at("baseline").at("commit"),
                  i == 0 ? entries.back().at("commit").at("id") : json(recorded[i - 1]));
        EXPECT_EQ(report.at("added"), json::array());
        EXPECT_EQ(report.at("removed"), json::array());
        EXPECT_EQ(report.at("benchmarks").size(), last.size());
        // Both the action and BenchmarkTools.jl's file hold the suite's estimates.
        EXPECT_FALSE(keys(report.at("environment_changes")).contains("statistic"));
    }

    const json series = history();
    EXPECT_EQ(series.at("benchmarks").size(), last.size());
    for (const auto& benchmark : series.at("benchmarks")) EXPECT_EQ(benchmark.at("metric"), "time");
}

}  // namespace
}  // namespace benchwatch::testing
