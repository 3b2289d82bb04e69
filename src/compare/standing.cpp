#include <cassert>
#include <cmath>
#include <map>
#include <set>
#include <string_view>

#include "compare/changes.hpp"
#include "stats/slow_spells.hpp"

namespace benchwatch::compare {

namespace {

// One benchmark's positive values, oldest first, and whether the last two are the history's
// latest two commits (so that `compare` of the latest commit would judge it).
struct Values {
    std::vector<double> positive;
    bool at_latest_two = false;
};

Values values_of(const model::BenchmarkHistory& series, const model::History& history) {
    Values values;
    std::vector<std::string_view> commits;
    for (std::size_t i = 0; i < series.values.size(); ++i) {
        if (!(series.values[i] > 0)) continue;
        values.positive.push_back(series.values[i]);
        commits.push_back(series.commits[i]);
    }
    const auto count = history.commits.size();
    values.at_latest_two = count >= 2 && commits.size() >= 2 &&
                           commits.back() == history.commits[count - 1] &&
                           commits[commits.size() - 2] == history.commits[count - 2];
    return values;
}

// The commits among the `window` runs of `history` that end with its run `last` (an index into
// history.commits) in which the whole suite moved together away from the runs around them, as
// compare leaves them out of a head's levels (stats::find_slow_spells, moves beyond the smallest
// category minimum).
std::set<std::string_view> spell_commits(const model::History& history, std::size_t last,
                                         std::size_t window,
                                         const std::vector<model::Category>& categories) {
    const std::size_t first = last + 1 > window ? last + 1 - window : 0;
    std::map<std::string_view, std::size_t> row_of;
    for (std::size_t i = first; i <= last; ++i) row_of.emplace(history.commits[i], i - first);
    std::vector<std::vector<double>> logs(last + 1 - first,
                                          std::vector<double>(history.benchmarks.size(), NAN));
    for (std::size_t b = 0; b < history.benchmarks.size(); ++b) {
        const auto& series = history.benchmarks[b];
        for (std::size_t i = 0; i < series.values.size(); ++i) {
            const auto found = row_of.find(series.commits[i]);
            if (found != row_of.end() && series.values[i] > 0)
                logs[found->second][b] = std::log(series.values[i]);
        }
    }
    const auto spells = stats::find_slow_spells(logs, smallest_spell_move(categories));
    std::set<std::string_view> moved;
    for (std::size_t row = 0; row < logs.size(); ++row)
        if (spells.moved[row]) moved.insert(history.commits[first + row]);
    return moved;
}

// `series`'s positive values up to the commit `last` (inclusive; all when it has no such value),
// without those at `left_out`.
std::vector<double> values_without(const model::BenchmarkHistory& series,
                                   const std::set<std::string_view>& left_out,
                                   std::string_view last) {
    std::vector<double> kept;
    for (std::size_t i = 0; i < series.values.size(); ++i) {
        if (series.values[i] > 0 && !left_out.contains(series.commits[i]))
            kept.push_back(series.values[i]);
        if (series.commits[i] == last) break;
    }
    return kept;
}

model::Trend trend_of(model::Verdict verdict) {
    if (verdict == model::Verdict::Slower) return model::Trend::Regressed;
    if (verdict == model::Verdict::Faster) return model::Trend::Improved;
    return model::Trend::Stable;
}

}  // namespace

double smallest_spell_move(const std::vector<model::Category>& categories) {
    double smallest = 1;
    for (const auto& category : categories) smallest = std::min(smallest, category.minimum_change);
    return std::log1p(smallest);
}

std::vector<model::BenchmarkStanding> standings(const model::History& history,
                                                const model::HistoryChanges& changes,
                                                const Method& method,
                                                const std::vector<model::Category>& categories,
                                                std::size_t recent_runs) {
    const auto& benchmarks = history.benchmarks;
    std::vector<model::BenchmarkStanding> result(benchmarks.size());
    std::vector<Values> values;
    values.reserve(benchmarks.size());
    for (const auto& series : benchmarks) values.push_back(values_of(series, history));

    // The runs compare would leave out of the levels: of a head judged against the whole history,
    // and of the latest run judged against the runs before it.
    const auto count = history.commits.size();
    const auto window = method.history_wanted() + kSpellReserve;
    const auto left_out_now = count > 0 ? spell_commits(history, count - 1, window, categories)
                                        : std::set<std::string_view>{};
    const auto left_out_before = count > 1 ? spell_commits(history, count - 2, window, categories)
                                           : std::set<std::string_view>{};
    std::vector<std::vector<double>> now_histories(benchmarks.size());
    std::vector<std::vector<double>> before_histories(benchmarks.size());

    // The latest run of the whole suite as a head, the runs before it as its history.
    std::vector<BenchmarkEvidence> latest_suite;
    std::vector<std::size_t> latest_judged;
    // A head at the latest value against everything: what a pull request would be judged by.
    std::vector<BenchmarkEvidence> now_suite;
    std::vector<std::size_t> now_judged;
    for (std::size_t i = 0; i < benchmarks.size(); ++i) {
        const auto& positive = values[i].positive;
        if (positive.empty()) continue;
        BenchmarkEvidence evidence;
        evidence.smaller_is_better = benchmarks[i].direction == model::Direction::SmallerIsBetter;
        evidence.minimum_change =
            model::minimum_change_of(benchmarks[i].name, benchmarks[i].metric, categories);
        now_histories[i] = values_without(benchmarks[i], left_out_now, history.commits[count - 1]);
        if (now_histories[i].empty()) now_histories[i] = positive;
        evidence.history = now_histories[i];
        evidence.base = evidence.head = positive.back();
        now_suite.push_back(evidence);
        now_judged.push_back(i);
        if (!values[i].at_latest_two) continue;
        before_histories[i] =
            values_without(benchmarks[i], left_out_before, history.commits[count - 2]);
        if (before_histories[i].empty())
            before_histories[i].assign(positive.begin(), positive.end() - 1);
        evidence.history = before_histories[i];
        evidence.base = positive[positive.size() - 2];
        evidence.head = positive.back();
        latest_suite.push_back(evidence);
        latest_judged.push_back(i);
    }
    const auto now = method.judge(now_suite).benchmarks;
    for (std::size_t j = 0; j < now_judged.size(); ++j)
        if (now[j].threshold > 0)
            result[now_judged[j]].detectable_change = now[j].detectable_change;
    const auto latest = method.judge(latest_suite).benchmarks;
    for (std::size_t j = 0; j < latest_judged.size(); ++j) {
        auto& standing = result[latest_judged[j]];
        const auto& assessment = latest[j];
        if (assessment.reference > 0)
            standing.change = latest_suite[j].head / assessment.reference - 1;
        standing.threshold = std::expm1(assessment.threshold);
        standing.trend = trend_of(assessment.verdict);
        if (standing.trend != model::Trend::Stable) standing.reason = model::TrendReason::LatestRun;
    }

    // The latest step of each benchmark, when it began in the recent runs.
    const std::size_t recent_from = count > recent_runs ? count - recent_runs : 0;
    std::map<std::pair<std::string_view, std::string_view>, const model::HistoryStep*> recent;
    for (const auto& step : changes.steps)
        if (step.position >= recent_from) recent[{step.benchmark, step.metric}] = &step;
    for (std::size_t i = 0; i < benchmarks.size(); ++i) {
        auto& standing = result[i];
        if (standing.reason != model::TrendReason::None) continue;
        const auto found = recent.find({benchmarks[i].name, benchmarks[i].metric});
        if (found == recent.end()) continue;
        const auto& step = *found->second;
        standing.trend = model::worse(step.direction, step.ratio) ? model::Trend::Regressed
                                                                  : model::Trend::Improved;
        standing.reason = model::TrendReason::RecentStep;
        standing.change = step.ratio - 1;
    }
    return result;
}

}  // namespace benchwatch::compare
