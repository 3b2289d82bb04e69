// What could break: `benchwatch backtest` reading the default branch out of order or with the
// wrong categories, JSON that strays from the shape docs/JUDGEMENT.md gives, figures that disagree
// with the definitions, or error lines that do not say what to fix.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "store/store.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

fs::path shared_data() {
    const char* const found = std::getenv("BENCHWATCH_SHARED_DATA");
    return found != nullptr && *found != '\0' ? fs::path(found) : fs::path(BENCHWATCH_SHARED_DATA);
}

const fs::path metal_history = shared_data() / "metal-gh-pages-data.js";

// A github-action-benchmark history with one entry per run, commits fake_commit("c00"), …;
// `values[b]` holds benchmark b's value in each run.
std::string action_history(const std::vector<std::pair<std::string, std::vector<double>>>& values) {
    nlohmann::json entries = nlohmann::json::array();
    for (std::size_t run = 0; run < values.front().second.size(); ++run) {
        nlohmann::json benches = nlohmann::json::array();
        for (const auto& [name, series] : values)
            benches.push_back({{"name", name}, {"value", series[run]}, {"unit", "ns"}});
        entries.push_back({{"commit", {{"id", fake_commit(fmt::format("c{:02}", run))}}},
                           {"date", 1000 * (run + 1)},
                           {"tool", "julia"},
                           {"benches", benches}});
    }
    return "window.BENCHMARK_DATA = " + nlohmann::json{{"entries", {{"Suite", entries}}}}.dump() +
           "\n";
}

// A Google Benchmark file in which each benchmark of `medians` has 5 repetitions 0.1% apart
// around its median: median × 0.998, 0.999, 1, 1.001, 1.002.
std::string gbench_file(const std::vector<std::pair<std::string, double>>& medians) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& [name, median] : medians)
        for (int repetition = 0; repetition < 5; ++repetition)
            rows.push_back({{"name", name},
                            {"run_name", name},
                            {"run_type", "iteration"},
                            {"repetitions", 5},
                            {"repetition_index", repetition},
                            {"real_time", median * (1 + 0.001 * (repetition - 2))},
                            {"time_unit", "ns"}});
    return nlohmann::json{
        {"context", {{"executable", "./bench"}, {"library_build_type", "release"}}},
        {"benchmarks", rows}}
        .dump();
}

class BacktestTest : public ::testing::Test {
  protected:
    vcs::ProcessOutput benchwatch(std::vector<std::string> arguments) {
        arguments.insert(arguments.end(), {"--store", store_, "--project", "p", "--machine", "m"});
        return run(benchwatch_command(arguments), directory_.path(), without_ci_variables());
    }

    void import(const fs::path& file) {
        const auto output = benchwatch({"import", "github-action-benchmark", file.string()});
        ASSERT_EQ(output.exit_code, 0) << output.err;
    }

    // 16 runs, so one pull request, at run 10:
    // "a" alternates 100, 110 (typical change τ = ln 1.1 = 0.0953), base 110, head 110 × 1.1⁴
    //   = 161.051 (f = 4τ = 0.381 > 3τ: flagged); runs 11…15 go on alternating, so runs 10…14
    //   have median 110 like runs 5…9: m = 0, a fluke. It stays flagged up to factor 4.
    // "b" is 100, then 130 from run 10: τ = 0, threshold ln 1.03, f = m = ln 1.3: persistent.
    // "c" is 100 throughout: never flagged.
    // Injections: +10% or +20% is caught on each of them at factor 3 and at 4: "a" gets
    //   4τ + ln 1.1 = 0.477 > 4τ, "b" and "c" at least ln 1.1 > ln 1.03.
    void import_generated() {
        std::vector<double> a;
        std::vector<double> b;
        for (int run = 0; run < 16; ++run) {
            a.push_back(run == 10 ? 110 * std::pow(1.1, 4) : run % 2 == 0 ? 100.0 : 110.0);
            b.push_back(run < 10 ? 100.0 : 130.0);
        }
        const auto file = directory_.path() / "generated.js";
        write_text(file, action_history({{"a", a}, {"b", b}, {"c", std::vector<double>(16, 100)}}));
        import(file);
    }

    // 16 runs recorded from Google Benchmark files with repetitions, so each keeps its samples:
    // "b" is 100 up to run 9 and 130 from run 10 on; the other seven hold still, so that the
    // suite's median move stays 0 when an injection moves one of them as well.
    void record_runs_with_samples() {
        for (int run = 0; run < 16; ++run) {
            const auto file = directory_.path() / fmt::format("run{:02}.json", run);
            write_text(file, gbench_file({{"a", 50},
                                          {"b", run < 10 ? 100 : 130},
                                          {"c", 200},
                                          {"d", 400},
                                          {"e", 800},
                                          {"f", 1600},
                                          {"g", 3200},
                                          {"h", 6400}}));
            const auto output =
                benchwatch({"record", "--commit", fake_commit(fmt::format("c{:02}", run)),
                            "--branch", "main", file.string()});
            ASSERT_EQ(output.exit_code, 0) << output.err;
        }
    }

    TemporaryDirectory directory_;
    std::string store_ = test_store_url(directory_.path());
};

TEST_F(BacktestTest, SamplesMethodReplaysTheSamplesEachRunKept) {
    record_runs_with_samples();
    const auto output = benchwatch(
        {"backtest", "--method", "samples", "--format", "json", "--inject", "0.10,0.20"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto json = nlohmann::ordered_json::parse(output.out);
    EXPECT_EQ(json.at("prs"), 1);
    ASSERT_EQ(json.at("methods").size(), 1u);
    // At run 10 the samples of the seven still ones are those of run 9: no move, and the suite's
    // spread between runs is 0. "b" moves by ln 1.3, far beyond its samples' 0.1% spread and
    // the 3% minimum, and stays at 130: a persistent flag, no fluke. An injected +10% or +20%,
    // which scales the head's samples too, is beyond the 3% minimum wherever it lands.
    const auto& samples = json.at("methods").at(0);
    EXPECT_EQ(samples.at("name"), "samples");
    EXPECT_EQ(samples.at("flukes_per_pr"), 0.0);
    EXPECT_EQ(samples.at("persistent_per_pr"), 1.0);
    EXPECT_EQ(samples.at("caught"), (nlohmann::ordered_json{{"0.1", 1.0}, {"0.2", 1.0}}));
}

TEST_F(BacktestTest, GeneratedHistoryGivesTheHandComputedFigures) {
    import_generated();
    const auto output =
        benchwatch({"backtest", "--format", "json", "--inject", "0.10,0.20", "--budget", "0"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto json = nlohmann::ordered_json::parse(output.out);
    EXPECT_EQ(json.at("prs"), 1);
    ASSERT_EQ(json.at("methods").size(), 2u);
    const auto& seed = json.at("methods").at(0);
    EXPECT_EQ(seed.at("name"), "seed");
    EXPECT_EQ(seed.at("default"), false);
    EXPECT_EQ(seed.at("flukes_per_pr"), 1.0);
    EXPECT_EQ(seed.at("persistent_per_pr"), 1.0);
    EXPECT_EQ(seed.at("caught"), (nlohmann::ordered_json{{"0.1", 1.0}, {"0.2", 1.0}}));
    // Budget 0: "a" stops being flagged at factor 4.
    const auto& at_budget = seed.at("at_budget");
    EXPECT_EQ(at_budget.at("budget"), 0.0);
    EXPECT_NEAR(at_budget.at("setting").get<double>(), 4.0, 1e-4);
    EXPECT_EQ(at_budget.at("flukes_per_pr"), 0.0);
    EXPECT_EQ(at_budget.at("caught"), (nlohmann::ordered_json{{"0.1", 1.0}, {"0.2", 1.0}}));
    // The keys in the documented order; seed is never calibrated, so its budget is null.
    std::vector<std::string> keys;
    for (const auto& item : seed.items()) keys.push_back(item.key());
    EXPECT_EQ(keys, (std::vector<std::string>{"name", "default", "false_alarms_per_pr", "setting",
                                              "flukes_per_pr", "flukes_per_pr_interval",
                                              "persistent_per_pr", "caught", "caught_interval",
                                              "at_budget"}));
    EXPECT_TRUE(seed.at("false_alarms_per_pr").is_null());
    // One pull request, one fluke: 1 ± 1.96 × √(1/1), no lower than 0. Caught 1 of 1: Wilson's
    // [0.2065, 1].
    EXPECT_EQ(seed.at("flukes_per_pr_interval"), (nlohmann::ordered_json{0.0, 2.96}));
    EXPECT_NEAR(seed.at("caught_interval").at("0.1").at(0).get<double>(), 0.206544, 1e-6);

    // level, the default: "a" keeps 4 deviations (positions 6…9; the one at 5 lasted, as the
    // alternation makes runs 5…9 a median of 110), too few to learn noise from, so it is judged
    // by twice its largest consecutive change, 2 ln 1.1 = 0.191, against its level 110:
    // ln(161.051 / 110) = 4 ln 1.1 = 0.381 is flagged and did not last (fluke). "b": five zero
    // deviations, threshold ln 1.03, ln 1.3 flagged and lasting. Every injection is caught.
    // "a"'s short-history margin does not follow the sensitivity, so even the strictest
    // setting keeps its fluke.
    // Its budget of 1 fluke per pull request is shared by noise, but the one pull request has
    // none before it and its only benchmark judged by noise, "b", has a noise of 0, which the
    // estimate of flukes leaves out: no price makes any expected, so the cheapest, 0.001, is
    // used, with the prior tail alone (weight 1) and no replay (weight 0).
    const auto& level = json.at("methods").at(1);
    EXPECT_EQ(level.at("name"), "level");
    EXPECT_EQ(level.at("default"), true);
    EXPECT_EQ(level.at("false_alarms_per_pr"), 1.0);
    EXPECT_EQ(level.at("setting"), 0.001);
    EXPECT_EQ(level.at("setting_is"), "price_of_a_fluke");
    EXPECT_EQ(level.at("prior_weight"), 1.0);
    EXPECT_EQ(level.at("replay_weight"), 0.0);
    EXPECT_EQ(level.at("setting_range"), (nlohmann::ordered_json{0.001, 0.001}));
    EXPECT_EQ(level.at("flukes_per_pr"), 1.0);
    EXPECT_EQ(level.at("persistent_per_pr"), 1.0);
    EXPECT_EQ(level.at("caught"), (nlohmann::ordered_json{{"0.1", 1.0}, {"0.2", 1.0}}));
    EXPECT_EQ(level.at("at_budget").at("setting"), 20.0);
    EXPECT_EQ(level.at("at_budget").at("flukes_per_pr"), 1.0);
}

TEST_F(BacktestTest, TextIsATable) {
    import_generated();
    const auto output = benchwatch({"backtest", "--budget", "0"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out,
              "1 pull request replayed from the default branch\n"
              "Fewer than 30 pull requests: the figures are uncertain; about 95% intervals in "
              "brackets.\n"
              "\n"
              "method           budget  setting            flukes/PR  persistent/PR           "
              "caught +10%           caught +20%\n"
              "seed                  -  3           1.00 (0.00–2.96)           1.00      100.0% "
              "(21–100%)      100.0% (21–100%)\n"
              "level (default)       1  0.001       1.00 (0.00–2.96)           1.00      100.0% "
              "(21–100%)      100.0% (21–100%)\n"
              "A budget calibrates the setting at each pull request from the ones before it; the "
              "setting column gives the median and the range used.\n"
              "A budget shared by noise sets a price of a fluke in expected catches instead; its "
              "column gives the prices.\n"
              "level (default): the estimate of flukes leaned 100% on the prior tail and 0% on "
              "the replayed pull requests' own count (medians; the first pull requests lean on "
              "the prior).\n"
              "\n"
              "At the latest run, compare with the default method would flag changes beyond 5.2% "
              "(median of 3 benchmarks): +10% in 66.7%, +20% in 100.0% of them.\n"
              "\n"
              "At the most sensitive fixed setting with at most 0 fluke(s) per pull request, known "
              "in hindsight:\n"
              "method           setting            flukes/PR            caught +10%           "
              "caught +20%\n"
              "seed                   4     0.00 (0.00–0.00)       100.0% (21–100%)      100.0% "
              "(21–100%)\n"
              "level (default)       20     1.00 (0.00–2.96)*      100.0% (21–100%)      100.0% "
              "(21–100%)\n"
              "* over the budget even at the method's strictest setting\n");
}

TEST_F(BacktestTest, ErrorsAreOneLine) {
    const auto file = directory_.path() / "short.js";
    write_text(file, action_history({{"a", std::vector<double>(15, 100)}}));
    import(file);
    const auto short_history = benchwatch({"backtest"});
    EXPECT_EQ(short_history.exit_code, 2);
    EXPECT_EQ(short_history.err,
              "error: backtest needs at least 16 default-branch runs of project 'p' on machine 'm' "
              "(branch 'main') and found 15; record more runs with --branch main first\n");

    const auto unknown = benchwatch({"backtest", "--method", "magic"});
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_TRUE(unknown.err.starts_with("error: unknown method 'magic'; available: seed, "))
        << unknown.err;

    const auto twice = benchwatch({"backtest", "--inject", "0.1,0.10"});
    EXPECT_EQ(twice.exit_code, 2);
    EXPECT_EQ(twice.err,
              "error: --inject lists a size twice; give each size once, e.g. --inject 0.1,0.2\n");

    const auto not_a_number = benchwatch({"backtest", "--inject", "0.1,x"});
    EXPECT_EQ(not_a_number.exit_code, 2);
    EXPECT_EQ(not_a_number.err,
              "error: --inject: 'x' is not a regression size; give positive fractions separated by "
              "commas, e.g. 0.1,0.2 for +10% and +20%; run benchwatch backtest --help for usage\n");

    const auto no_budget = benchwatch({"backtest", "--false-alarms-per-pr", "0"});
    EXPECT_EQ(no_budget.exit_code, 2);
    EXPECT_EQ(no_budget.err,
              "error: --false-alarms-per-pr: '0' is not a false-alarm budget; give the flukes per "
              "pull request allowed, a number above 0 and at most 1000, e.g. 1; run benchwatch "
              "backtest --help for usage\n");
}

// Seed on the Metal.jl history, checked against an independent computation of docs/JUDGEMENT.md's
// definitions (tests/data/backtest/seed_backtest.py, which reads the file without benchwatch): 201
// pull requests (runs 10…210 of 216), 1427 flukes and 643 persistent flags at factor 3; at factor
// 20, the end of seed's range, still 402 flukes (2 per pull request), so budget 2 is met within it.
TEST_F(BacktestTest, SamplesMethodNeedsRunsThatKeptSamples) {
    // An imported github-action-benchmark history holds one value per benchmark and run.
    import_generated();
    const auto samples = benchwatch({"backtest", "--method", "samples"});
    EXPECT_EQ(samples.exit_code, 2);
    EXPECT_EQ(samples.err,
              "error: backtest --method samples replays the samples each run kept, and no "
              "default-branch run of project 'p' on machine 'm' kept any; record results that "
              "carry repetitions or samples (Google Benchmark --benchmark_repetitions, "
              "hyperfine's times, go test -count) first\n");
}

TEST_F(BacktestTest, MetalHistoryMatchesAnIndependentComputation) {
    if (!fs::exists(metal_history))
        GTEST_SKIP() << metal_history << " is absent (it lives outside the project)";
    import(metal_history);
    const auto output =
        benchwatch({"backtest", "--format", "json", "--method", "seed", "--budget", "2"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto json = nlohmann::json::parse(output.out);
    EXPECT_EQ(json.at("prs"), 201);
    const auto& seed = json.at("methods").at(0);
    EXPECT_EQ(seed.at("name"), "seed");
    EXPECT_DOUBLE_EQ(seed.at("flukes_per_pr").get<double>(), 1427.0 / 201);
    EXPECT_DOUBLE_EQ(seed.at("persistent_per_pr").get<double>(), 643.0 / 201);
    for (const auto& share : seed.at("caught")) {
        EXPECT_GE(share.get<double>(), 0.0);
        EXPECT_LE(share.get<double>(), 1.0);
    }
    const auto& at_budget = seed.at("at_budget");
    EXPECT_LE(at_budget.at("flukes_per_pr").get<double>(), 2.0);
    EXPECT_GT(at_budget.at("setting").get<double>(), 3.0);
    EXPECT_LE(at_budget.at("setting").get<double>(), 20.0);
}

// The percentage in "beyond X%" of `sentence_start` in `text`, "" when absent.
std::string detectable_in(const std::string& text, const std::string& sentence_start) {
    const auto at = text.find(sentence_start);
    if (at == std::string::npos) return "";
    const auto begin = at + sentence_start.size();
    return text.substr(begin, text.find('%', begin) - begin + 1);
}

TEST_F(BacktestTest, SaysWhatCompareSaysTheLatestRunCanDetect) {
    // A short history (Metal.jl's last 41 runs) where the replay, judging its early pull requests
    // on 10 or so runs, catches far fewer than compare says a pull request could be caught on
    // the latest run: backtest gives compare's figure beside its own, and says why they differ.
    if (!fs::exists(metal_history))
        GTEST_SKIP() << metal_history << " is absent (it lives outside the project)";
    const std::string whole = read_text(metal_history);
    auto history = nlohmann::json::parse(whole.substr(whole.find('{')));
    for (auto& [suite, entries] : history.at("entries").items())
        if (entries.size() > 41) entries.erase(entries.begin(), entries.end() - 41);
    const auto short_history = directory_.path() / "short.js";
    write_text(short_history, "window.BENCHMARK_DATA = " + history.dump() + "\n");
    import(short_history);
    const auto opened = store::open_store(store_);
    const auto runs = opened->list_runs({});
    ASSERT_EQ(runs.size(), 41u);
    const auto latest = runs.back();
    const std::int64_t latest_id[] = {latest.id};
    std::vector<std::pair<std::string, double>> values;
    const auto latest_results = opened->results(latest_id);
    for (const auto& result : latest_results.at(latest.id))
        if (result.metric == "time") values.emplace_back(result.benchmark, result.value);
    const auto head_file = directory_.path() / "head.json";
    write_text(head_file, gbench_file(values));
    const auto recorded = benchwatch(
        {"record", "--commit", fake_commit("head"), "--branch", "topic", head_file.string()});
    ASSERT_EQ(recorded.exit_code, 0) << recorded.err;

    const auto compared = benchwatch({"compare", "--base", latest.commit, "--head",
                                      fake_commit("head"), "--default-branch", "main"});
    const auto backtest = benchwatch({"backtest", "--default-branch", "main"});
    ASSERT_EQ(backtest.exit_code, 0) << backtest.err;
    const auto said = detectable_in(compared.out, "Changes beyond ");
    ASSERT_FALSE(said.empty()) << compared.out << compared.err;
    EXPECT_EQ(detectable_in(backtest.out, "would flag changes beyond "), said) << backtest.out;
    EXPECT_NE(backtest.out.find("The replay catches fewer: it judges each pull request with only "
                                "the runs before it (10 to 35 here)"),
              std::string::npos)
        << backtest.out;
}

}  // namespace
}  // namespace benchwatch::testing
