// What could break: the backtest's tables misaligned, a figure in the wrong column or rounded
// differently, the intervals missing when too few pull requests were replayed (or shown when
// there were enough), the table at the budget or its footnote left out, or the JSON losing a key
// that scripts read (setting_is, at_budget, the caught shares by size).
#include "report/backtest.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "report/golden.hpp"

namespace benchwatch::report {
namespace {

compare::BacktestScore score(double setting, double flukes, double persistent,
                             std::vector<double> caught) {
    compare::BacktestScore made;
    made.setting = setting;
    made.flukes_per_pr = flukes;
    made.persistent_per_pr = persistent;
    made.flukes_interval = {flukes * 0.5, flukes * 1.5};
    for (const double share : caught)
        made.caught_intervals.push_back({share * 0.8, std::min(1.0, share * 1.1)});
    made.caught = std::move(caught);
    return made;
}

// Two methods as `benchwatch backtest --budget 1` measures them: the seed rule at its factor 3,
// and the level method calibrated at each pull request to a budget of 1, its prices ranging
// from 0.214 to 8.12, its estimates of flukes leaning a median 11.8% on the prior tail and
// 87.5% on the replay; at the budget the seed rule is over it even at its strictest setting.
compare::BacktestReport two_methods(int pull_requests) {
    compare::BacktestReport report;
    report.pull_requests = pull_requests;
    compare::MethodBacktest seed;
    seed.name = "seed";
    seed.score = score(3, 7.1, 3.2, {0.716, 0.861});
    seed.at_budget = score(9, 1.25, 0.5, {0.102, 0.3});
    compare::MethodBacktest level;
    level.name = "level";
    level.calibrated_budget = 1;
    level.priced = true;
    level.prior_weight = 0.118;
    level.replay_weight = 0.875;
    level.score = score(2.4, 0.94, 2.61, {0.547, 0.751});
    level.score.setting_range = std::pair{0.214, 8.12};
    level.at_budget = score(1.62, 0.99, 2.5, {0.61, 0.79});
    report.methods = {seed, level};
    return report;
}

const BacktestLayout layout{{false, true}, {0.1, 0.2}, 1.0, std::nullopt};

// A latest run at which 79 benchmarks could flag a median change of 7.8%, 70% of them +10% and
// 81% +20%: more than the level method's 54.7% and 75.1%, by over 10 points for +10% only.
const LatestDetectable latest{79, 0.078, {0.70, 0.81}, 10, 35};

std::string text_of(const compare::BacktestReport& report, const BacktestLayout& with) {
    std::ostringstream out;
    render_backtest_text(report, with, out);
    return out.str();
}

TEST(BacktestReport, TextWithABudget) {
    testing::expect_golden(text_of(two_methods(201), layout), "backtest_budget.txt");
}

TEST(BacktestReport, TextOfFewPullRequestsShowsIntervals) {
    auto report = two_methods(12);
    BacktestLayout without_budget = layout;
    without_budget.budget.reset();
    for (auto& method : report.methods) method.at_budget.reset();
    testing::expect_golden(text_of(report, without_budget), "backtest_uncertain.txt");
}

TEST(BacktestReport, Json) {
    std::ostringstream out;
    render_backtest_json(two_methods(201), layout, out);
    testing::expect_golden(out.str(), "backtest.json");
}

TEST(BacktestReport, TextSaysWhatCompareWouldFlagNowAndWhyTheReplayCatchesFewer) {
    BacktestLayout with_latest = layout;
    with_latest.latest = latest;
    testing::expect_golden(text_of(two_methods(201), with_latest), "backtest_latest.txt");
}

TEST(BacktestReport, TextGivesNoReasonWhenTheReplayCatchesAsMuch) {
    BacktestLayout with_latest = layout;
    with_latest.latest = LatestDetectable{79, 0.078, {0.6, 0.8}, 10, 35};
    const auto text = text_of(two_methods(201), with_latest);
    EXPECT_NE(text.find("At the latest run, compare with the default method would flag changes "
                        "beyond 7.8% (median of 79 benchmarks): +10% in 60.0%, +20% in 80.0% "
                        "of them."),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("The replay catches fewer"), std::string::npos) << text;
}

TEST(BacktestReport, JsonWithTheLatestRun) {
    BacktestLayout with_latest = layout;
    with_latest.latest = latest;
    std::ostringstream out;
    render_backtest_json(two_methods(201), with_latest, out);
    const auto json = nlohmann::json::parse(out.str());
    EXPECT_EQ(json["latest"]["benchmarks"], 79);
    EXPECT_DOUBLE_EQ(json["latest"]["detectable_change_median"].get<double>(), 0.078);
    EXPECT_DOUBLE_EQ(json["latest"]["would_flag"]["0.1"].get<double>(), 0.70);
    EXPECT_DOUBLE_EQ(json["latest"]["would_flag"]["0.2"].get<double>(), 0.81);
    EXPECT_EQ(json["latest"]["replayed_history_runs"], nlohmann::json::array({10, 35}));
}

}  // namespace
}  // namespace benchwatch::report
