// What could break: pull requests counted over the wrong runs, flags called persistent or flukes
// against the wrong windows, missing values taken as measured, injections made better instead of
// worse, or a budget search that stops at the wrong setting.
#include "compare/backtest.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "compare/compare.hpp"
#include "compare/method.hpp"
#include "compare/seed_method.hpp"

namespace benchwatch::compare {
namespace {

using Values = std::vector<std::optional<double>>;

BacktestSeries series(std::string name, Values values, bool smaller_is_better = true) {
    return {std::move(name), smaller_is_better, 0.03, std::move(values)};
}

// `count` runs of `value`.
Values flat(std::size_t count, double value) {
    return Values(count, value);
}

// Runs 0…9 alternate 100, 110 (typical change ln 1.1), run 10 is `head`, runs 11…15 go on
// alternating (110, 100, 110, 100, 110).
Values alternating_with_head(double head) {
    Values values;
    for (int run = 0; run < 10; ++run) values.push_back(run % 2 == 0 ? 100.0 : 110.0);
    values.push_back(head);
    for (int run = 11; run < 16; ++run) values.push_back(run % 2 == 0 ? 100.0 : 110.0);
    return values;
}

BacktestMatrix matrix_of(std::vector<BacktestSeries> benchmarks) {
    BacktestMatrix matrix;
    matrix.runs = benchmarks.front().values.size();
    matrix.benchmarks = std::move(benchmarks);
    return matrix;
}

const SeedSettings seed_settings{3.0, 30};

BacktestOptions injecting(std::vector<double> sizes, std::optional<double> budget = std::nullopt) {
    BacktestOptions options;
    options.injection_sizes = std::move(sizes);
    options.budget = budget;
    return options;
}

std::unique_ptr<Method> seed_method(const SeedSettings& settings) {
    return make_seed_method(settings);
}

BacktestReport run_seed(const BacktestMatrix& matrix, const BacktestOptions& options) {
    const auto method = seed_method(seed_settings);
    const BacktestCandidate candidates[] = {{method.get()}};
    return backtest(matrix, candidates, options);
}

Values with_tail(Values values, std::initializer_list<std::optional<double>> tail) {
    values.insert(values.end(), tail);
    return values;
}

TEST(Backtest, SixteenRunsMakeOnePullRequestAndEachSeventeenthOneMore) {
    // Pull requests are runs 10 … runs − 6: 16 runs give run 10 only, 20 runs give 10 … 14.
    EXPECT_EQ(run_seed(matrix_of({series("a", flat(16, 100))}), {}).pull_requests, 1);
    EXPECT_EQ(run_seed(matrix_of({series("a", flat(20, 100))}), {}).pull_requests, 5);
}

TEST(Backtest, FlagThatReturnsIsAFlukeAndOneThatStaysIsPersistent) {
    // All three: history runs 0…9 at 100, typical change 0, threshold ln 1.03 = 0.0296.
    // fluke: head 110 (f = ln 1.1 = 0.0953, flagged); runs 10…14 {110,100,100,100,100} median
    //   100, runs 5…9 median 100, m = 0: a fluke.
    // stays: head 110 and runs 11…15 at 110: median 110 against 100, m = ln 1.1 = f: persistent.
    // partly: head 120 (f = ln 1.2 = 0.1823), runs 11…14 {105,105,100,100}: median of
    //   {120,105,105,100,100} = 105, m = ln 1.05 = 0.0488 < f/2 = 0.0912: a fluke.
    // faster_then_slower: head 90 (f = ln 0.9 < 0, Faster), runs 11…15 at 120: median 120,
    //   m = ln 1.2 > 0, the other way: a fluke.
    // quiet: head 102, ln 1.02 = 0.0198 under the threshold: no flag.
    const auto matrix = matrix_of({
        series("fluke", with_tail(flat(10, 100), {110, 100, 100, 100, 100, 100})),
        series("stays", with_tail(flat(10, 100), {110, 110, 110, 110, 110, 110})),
        series("partly", with_tail(flat(10, 100), {120, 105, 105, 100, 100, 100})),
        series("faster_then_slower", with_tail(flat(10, 100), {90, 120, 120, 120, 120, 120})),
        series("quiet", with_tail(flat(10, 100), {102, 100, 100, 100, 100, 100})),
    });
    const auto report = run_seed(matrix, injecting({}));
    ASSERT_EQ(report.methods.size(), 1U);
    EXPECT_EQ(report.methods[0].name, "seed");
    EXPECT_EQ(report.methods[0].score.setting, 3.0);
    // One pull request: 3 flukes, 1 persistent flag.
    EXPECT_DOUBLE_EQ(report.methods[0].score.flukes_per_pr, 3.0);
    EXPECT_DOUBLE_EQ(report.methods[0].score.persistent_per_pr, 1.0);
    EXPECT_TRUE(report.methods[0].score.caught.empty());
    EXPECT_FALSE(report.methods[0].at_budget);
}

TEST(Backtest, InjectionIsCaughtOnlyBeyondTheThreshold) {
    // flat: history at 100, threshold ln 1.03. +10% gives ln 1.1 > ln 1.03: caught; +2% gives
    //   ln 1.02 < ln 1.03: missed.
    // noisy: alternating history, typical change ln 1.1 = 0.0953, threshold 3 × 0.0953 = 0.286;
    //   base (run 9) 110, head 100. +20%: 120 / 110, ln 1.091 = 0.087: missed; +50%: 150 / 110,
    //   ln 1.364 = 0.310: caught.
    // throughput (bigger is better, flat at 100): +10% worse is 100 / 1.1, ln = −0.0953: Slower,
    //   caught.
    const auto flat_report =
        run_seed(matrix_of({series("flat", flat(16, 100))}), injecting({0.1, 0.02}));
    EXPECT_EQ(flat_report.methods[0].score.caught, (std::vector<double>{1.0, 0.0}));
    EXPECT_DOUBLE_EQ(flat_report.methods[0].score.flukes_per_pr, 0.0);

    const auto noisy_report =
        run_seed(matrix_of({series("noisy", alternating_with_head(100))}), injecting({0.2, 0.5}));
    EXPECT_EQ(noisy_report.methods[0].score.caught, (std::vector<double>{0.0, 1.0}));

    const auto throughput_report =
        run_seed(matrix_of({series("throughput", flat(16, 100), false)}), injecting({0.1}));
    EXPECT_EQ(throughput_report.methods[0].score.caught, std::vector<double>{1.0});
}

TEST(Backtest, MissingValuesAreSkippedNotJudged) {
    // 17 runs: pull requests at runs 10 and 11. Run 9 is missing, so run 10 is not judged (its
    // baseline is missing); run 12 is 0, which counts as missing too.
    // At run 11: history runs 0…10 measured = ten 100s, threshold ln 1.03; head 120 against 100:
    //   flagged, f = ln 1.2 = 0.1823. Runs 11…15 measured: {120, 120, 100, 100}, median 110;
    //   runs 6…10 measured: {100, 100, 100, 100}, median 100; m = ln 1.1 = 0.0953 >= f/2 = 0.0912:
    //   persistent. Per pull request: 1 / 2.
    // Injection: only run 11 has a benchmark to make worse; 120 × 1.1 against 100 is caught: 1/1.
    Values values = flat(9, 100);
    values.insert(values.end(), {std::nullopt, 100, 120, 0.0, 120, 100, 100, 100});
    ASSERT_EQ(values.size(), 17U);
    const auto report = run_seed(matrix_of({series("gaps", values)}), injecting({0.1}));
    EXPECT_EQ(report.pull_requests, 2);
    EXPECT_DOUBLE_EQ(report.methods[0].score.persistent_per_pr, 0.5);
    EXPECT_DOUBLE_EQ(report.methods[0].score.flukes_per_pr, 0.0);
    EXPECT_EQ(report.methods[0].score.caught, std::vector<double>{1.0});
}

// Three flukes on the alternating history (typical change τ = ln 1.1, base 110) with heads
// 110 × 1.1^k, k = 2, 4, 6: each has f = kτ and runs 10…14 have median 110 like runs 5…9, so
// m = 0. The seed rule flags k when kτ > factor × τ, so flukes(factor) are 3 below 2, 2 below 4,
// 1 below 6 and 0 from 6 on.
BacktestMatrix three_flukes(double extra_k = 0) {
    std::vector<BacktestSeries> benchmarks;
    for (const int k : {2, 4, 6})
        benchmarks.push_back(
            series(fmt::format("k{}", k), alternating_with_head(110 * std::pow(1.1, k))));
    if (extra_k > 0)
        benchmarks.push_back(series("extra", alternating_with_head(110 * std::pow(1.1, extra_k))));
    return matrix_of(std::move(benchmarks));
}

TEST(Backtest, BudgetFindsTheMostSensitiveSettingWithinIt) {
    // Budget 1 fluke: factor 4 (at 4, 4τ > 4τ is false). Budget 0: factor 6. Budget 5: the
    // smallest setting, 1, already has only 3.
    // Injection +100% (ln 2 = 0.693 on top of kτ) is caught whichever benchmark is chosen, since
    // even 2τ + ln 2 = 0.884 exceeds 6τ = 0.572.
    const auto at = [](double budget) {
        return *run_seed(three_flukes(), injecting({1.0}, budget)).methods[0].at_budget;
    };
    const auto one = at(1);
    EXPECT_NEAR(one.setting, 4.0, 1e-4);
    EXPECT_DOUBLE_EQ(one.flukes_per_pr, 1.0);
    EXPECT_EQ(one.caught, std::vector<double>{1.0});
    EXPECT_NEAR(at(0).setting, 6.0, 1e-4);
    EXPECT_DOUBLE_EQ(at(0).flukes_per_pr, 0.0);
    EXPECT_EQ(at(5).setting, 1.0);
    EXPECT_DOUBLE_EQ(at(5).flukes_per_pr, 3.0);
}

TEST(Backtest, BudgetOutOfReachReportsTheStrictestSetting) {
    // An extra fluke of 150τ stays flagged up to factor 150, beyond the range's end 100.
    const auto report = run_seed(three_flukes(150), injecting({}, 0.0));
    EXPECT_EQ(report.methods[0].at_budget->setting, 100.0);
    EXPECT_DOUBLE_EQ(report.methods[0].at_budget->flukes_per_pr, 1.0);
}

TEST(Backtest, InjectedBenchmarkDoesNotDependOnTheOrderOfMethods) {
    // 60 runs, 45 pull requests. +10% on "flat" (threshold ln 1.03) is caught; on "noisy"
    // (alternating 100, 110: |ln(head/base)| is 0 or 2 ln 1.1 = 0.191 after injection, under the
    // threshold 3 ln 1.1 = 0.286) it is missed, so the share caught is the share of pull requests
    // whose injection went to "flat". It is the same whether seed runs first or second.
    Values noisy;
    for (int run = 0; run < 60; ++run) noisy.push_back(run % 2 == 0 ? 100.0 : 110.0);
    const auto matrix = matrix_of({series("flat", flat(60, 100)), series("noisy", noisy)});
    const auto seed = seed_method(seed_settings);
    const auto loose = seed_method({1.0, 30});
    const BacktestCandidate seed_first[] = {{seed.get()}, {loose.get()}};
    const BacktestCandidate seed_second[] = {{loose.get()}, {seed.get()}};
    const auto first = backtest(matrix, seed_first, injecting({0.1}));
    const auto second = backtest(matrix, seed_second, injecting({0.1}));
    EXPECT_EQ(first.pull_requests, 45);
    EXPECT_EQ(second.methods[1].score.setting, 3.0);
    EXPECT_EQ(first.methods[0].score.caught, second.methods[1].score.caught);
    EXPECT_GT(first.methods[0].score.caught[0], 0.0);
    EXPECT_LT(first.methods[0].score.caught[0], 1.0);
}

TEST(Backtest, FewerThanSixteenRunsIsAnError) {
    try {
        run_seed(matrix_of({series("a", flat(15, 100))}), {});
        FAIL() << "no error";
    } catch (const CompareError& error) {
        EXPECT_STREQ(error.what(),
                     "backtest needs at least 16 default-branch runs (10 of history before the "
                     "first pull request, 5 after the last) and found 15; record more runs on the "
                     "default branch");
    }
}

TEST(SeedMethod, AssessmentExplainsItsThreshold) {
    // History 100, 110, 100: typical change ln 1.1 over 2 pairs, threshold 3 ln 1.1 = ln 1.331;
    // detectable change 1.1³ − 1 = 0.331. Head 140 against base 100: ln 1.4 > ln 1.331, Slower.
    const double history[] = {100, 110, 100};
    const BenchmarkEvidence evidence{history, 100, 140, true, 0.03, nullptr, nullptr};
    const auto assessments = seed_method(seed_settings)->judge({&evidence, 1}).benchmarks;
    ASSERT_EQ(assessments.size(), 1U);
    EXPECT_EQ(assessments[0].verdict, model::Verdict::Slower);
    EXPECT_DOUBLE_EQ(assessments[0].typical_change, std::log(1.1));
    EXPECT_EQ(assessments[0].history_pairs, 2);
    EXPECT_DOUBLE_EQ(assessments[0].threshold, 3 * std::log(1.1));
    EXPECT_NEAR(assessments[0].detectable_change, 0.331, 1e-12);
    EXPECT_EQ(assessments[0].reference, 100.0);
}

TEST(Methods, UnknownNameListsTheAvailableOnes) {
    const auto names = method_names();
    ASSERT_FALSE(names.empty());
    EXPECT_EQ(names.front(), "seed");
    EXPECT_NE(std::find(names.begin(), names.end(), default_method_name()), names.end());
    EXPECT_EQ(make_method(default_choice(default_method_name()))->name(), default_method_name());
    std::string listed;
    for (const auto& name : names) listed += (listed.empty() ? "" : ", ") + name;
    try {
        default_choice("magic");
        FAIL() << "no error";
    } catch (const CompareError& error) {
        EXPECT_EQ(error.what(), "unknown method 'magic'; available: " + listed);
    }
}

}  // namespace
}  // namespace benchwatch::compare
