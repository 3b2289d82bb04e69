#include "report/backtest.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "report/columns.hpp"

namespace benchwatch::report {

namespace {

// An injection size as JSON keys and table headers show it: the shortest decimal, "0.1".
std::string size_key(double size) {
    return fmt::format("{}", size);
}

nlohmann::ordered_json caught_json(const std::vector<double>& sizes,
                                   const std::vector<double>& caught) {
    auto shares = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < sizes.size(); ++i) shares[size_key(sizes[i])] = caught[i];
    return shares;
}

}  // namespace

void render_backtest_json(const compare::BacktestReport& report, const BacktestLayout& layout,
                          std::ostream& out) {
    nlohmann::ordered_json json;
    json["prs"] = report.pull_requests;
    json["methods"] = nlohmann::ordered_json::array();
    for (std::size_t m = 0; m < report.methods.size(); ++m) {
        const auto& method = report.methods[m];
        nlohmann::ordered_json entry;
        entry["name"] = method.name;
        entry["default"] = static_cast<bool>(layout.is_default[m]);
        entry["false_alarms_per_pr"] = method.calibrated_budget
                                           ? nlohmann::ordered_json(*method.calibrated_budget)
                                           : nlohmann::ordered_json(nullptr);
        entry["setting"] = method.score.setting;
        if (method.calibrated_budget)
            entry["setting_is"] = method.priced ? "price_of_a_fluke" : "factor";
        if (method.priced) {
            entry["prior_weight"] = method.prior_weight;
            entry["replay_weight"] = method.replay_weight;
        }
        if (method.score.setting_range)
            entry["setting_range"] = {method.score.setting_range->first,
                                      method.score.setting_range->second};
        entry["flukes_per_pr"] = method.score.flukes_per_pr;
        entry["flukes_per_pr_interval"] = {method.score.flukes_interval.low,
                                           method.score.flukes_interval.high};
        entry["persistent_per_pr"] = method.score.persistent_per_pr;
        entry["caught"] = caught_json(layout.injection_sizes, method.score.caught);
        auto intervals = nlohmann::ordered_json::object();
        for (std::size_t i = 0; i < layout.injection_sizes.size(); ++i)
            intervals[size_key(layout.injection_sizes[i])] = {
                method.score.caught_intervals[i].low, method.score.caught_intervals[i].high};
        entry["caught_interval"] = std::move(intervals);
        if (method.at_budget) {
            nlohmann::ordered_json at_budget;
            at_budget["budget"] = *layout.budget;
            at_budget["setting"] = method.at_budget->setting;
            at_budget["flukes_per_pr"] = method.at_budget->flukes_per_pr;
            at_budget["caught"] = caught_json(layout.injection_sizes, method.at_budget->caught);
            entry["at_budget"] = std::move(at_budget);
        }
        json["methods"].push_back(std::move(entry));
    }
    if (layout.latest) {
        nlohmann::ordered_json latest;
        latest["benchmarks"] = layout.latest->benchmarks;
        latest["detectable_change_median"] = layout.latest->median;
        latest["would_flag"] = caught_json(layout.injection_sizes, layout.latest->within);
        latest["replayed_history_runs"] = {layout.latest->first_history_runs,
                                           layout.latest->last_history_runs};
        json["latest"] = std::move(latest);
    } else {
        json["latest"] = nullptr;
    }
    out << json.dump(2) << '\n';
}

namespace {

std::string percent(double share) {
    return fmt::format("{:.1f}%", share * 100);
}

// "1.5", or "1.62 (1.34–2.1)" for a calibrated score: the median setting and its range.
std::string setting_text(const compare::BacktestScore& score) {
    if (!score.setting_range || score.setting_range->first == score.setting_range->second)
        return fmt::format("{:.3g}", score.setting);
    return fmt::format("{:.3g} ({:.3g}–{:.3g})", score.setting, score.setting_range->first,
                       score.setting_range->second);
}

}  // namespace

void render_backtest_text(const compare::BacktestReport& report, const BacktestLayout& layout,
                          std::ostream& out) {
    std::vector<std::string> names;
    for (std::size_t m = 0; m < report.methods.size(); ++m)
        names.push_back(report.methods[m].name + (layout.is_default[m] ? " (default)" : ""));
    const bool uncertain = report.pull_requests < compare::backtest_uncertain_below;

    out << fmt::format("{} pull request{} replayed from the default branch\n", report.pull_requests,
                       report.pull_requests == 1 ? "" : "s");
    if (uncertain)
        out << fmt::format(
            "Fewer than {} pull requests: the figures are uncertain; about 95% intervals in "
            "brackets.\n",
            compare::backtest_uncertain_below);
    out << '\n';

    const auto flukes_text = [&](const compare::BacktestScore& score) {
        if (!uncertain) return fmt::format("{:.2f}", score.flukes_per_pr);
        return fmt::format("{:.2f} ({:.2f}–{:.2f})", score.flukes_per_pr, score.flukes_interval.low,
                           score.flukes_interval.high);
    };
    const auto caught_text = [&](const compare::BacktestScore& score, std::size_t i) {
        if (!uncertain) return percent(score.caught[i]);
        return fmt::format("{} ({:.0f}–{:.0f}%)", percent(score.caught[i]),
                           100 * score.caught_intervals[i].low,
                           100 * score.caught_intervals[i].high);
    };
    // Wide enough for the intervals' figures whatever they are, so that tables of one kind line
    // up from one backtest to the next.
    const std::size_t flukes_width = uncertain ? 19 : 9;
    const std::size_t caught_width = uncertain ? 20 : 11;
    // Rows of `left` cells and then one per injected change, the header first, in columns of
    // `left_columns` and then right-aligned ones of caught_width.
    const auto write_table = [&](std::vector<std::string> header,
                                 std::vector<std::vector<std::string>> rows,
                                 std::vector<detail::TextColumn> left_columns) {
        for (const double size : layout.injection_sizes)
            header.push_back(fmt::format("caught +{:g}%", size * 100));
        rows.insert(rows.begin(), std::move(header));
        left_columns.resize(rows.front().size(), {true, caught_width});
        for (const auto& line : detail::text_columns(rows, left_columns)) out << line << '\n';
    };
    const auto caught_cells = [&](std::vector<std::string> row,
                                  const compare::BacktestScore& score) {
        for (std::size_t i = 0; i < score.caught.size(); ++i) row.push_back(caught_text(score, i));
        return row;
    };

    std::vector<std::vector<std::string>> rows;
    for (std::size_t m = 0; m < report.methods.size(); ++m) {
        const auto& method = report.methods[m];
        const auto budget =
            method.calibrated_budget ? fmt::format("{:g}", *method.calibrated_budget) : "-";
        rows.push_back(
            caught_cells({names[m], budget, setting_text(method.score), flukes_text(method.score),
                          fmt::format("{:.2f}", method.score.persistent_per_pr)},
                         method.score));
    }
    write_table({"method", "budget", "setting", "flukes/PR", "persistent/PR"}, std::move(rows),
                {{}, {true, 6}, {}, {true, flukes_width}, {true, 13}});
    if (std::any_of(report.methods.begin(), report.methods.end(),
                    [](const auto& method) { return method.calibrated_budget.has_value(); }))
        out << "A budget calibrates the setting at each pull request from the ones before it; "
               "the setting column gives the median and the range used.\n";
    if (std::any_of(report.methods.begin(), report.methods.end(),
                    [](const auto& method) { return method.priced; }))
        out << "A budget shared by noise sets a price of a fluke in expected catches instead; "
               "its column gives the prices.\n";
    for (std::size_t m = 0; m < report.methods.size(); ++m) {
        const auto& method = report.methods[m];
        if (!method.priced) continue;
        out << fmt::format(
            "{}: the estimate of flukes leaned {:.0f}% on the prior tail and {:.0f}% on the "
            "replayed pull requests' own count (medians; the first pull requests lean on the "
            "prior).\n",
            names[m], 100 * method.prior_weight, 100 * method.replay_weight);
    }
    if (layout.latest) {
        const auto& latest = *layout.latest;
        std::vector<std::string> shares;
        for (std::size_t i = 0; i < latest.within.size(); ++i)
            shares.push_back(fmt::format("+{:g}% in {}", layout.injection_sizes[i] * 100,
                                         percent(latest.within[i])));
        out << fmt::format(
            "\nAt the latest run, compare with the default method would flag changes beyond {} "
            "(median of {} benchmarks): {} of them.\n",
            percent(latest.median), latest.benchmarks, fmt::join(shares, ", "));
        const auto is_default = std::find(layout.is_default.begin(), layout.is_default.end(), true);
        if (is_default != layout.is_default.end()) {
            const auto& caught =
                report.methods[static_cast<std::size_t>(is_default - layout.is_default.begin())]
                    .score.caught;
            bool fewer = false;
            for (std::size_t i = 0; i < caught.size() && i < latest.within.size(); ++i)
                fewer = fewer || caught[i] < latest.within[i] - 0.1;
            if (fewer)
                out << fmt::format(
                    "The replay catches fewer: it judges each pull request with only the runs "
                    "before it ({} to {} here), and a benchmark with few runs behind it is "
                    "judged cautiously; and each replayed head carries its own run's noise, "
                    "which can take an injected change below its threshold, where the line "
                    "above counts every change beyond the threshold as flagged.\n",
                    latest.first_history_runs, latest.last_history_runs);
        }
    }
    if (!layout.budget) return;
    out << fmt::format(
        "\nAt the most sensitive fixed setting with at most {:g} fluke(s) per pull request, known "
        "in hindsight:\n",
        *layout.budget);
    // A setting over the budget is starred; the others get a space, so that the figures line up.
    std::vector<std::vector<std::string>> at_budget;
    bool out_of_reach = false;
    for (std::size_t m = 0; m < report.methods.size(); ++m) {
        const auto& score = *report.methods[m].at_budget;
        const bool over = score.flukes_per_pr > *layout.budget;
        out_of_reach = out_of_reach || over;
        at_budget.push_back(caught_cells({names[m], fmt::format("{:.3g}", score.setting),
                                          flukes_text(score) + (over ? "*" : " ")},
                                         score));
    }
    write_table({"method", "setting", "flukes/PR "}, std::move(at_budget),
                {{}, {true, 7}, {true, flukes_width + 1}});
    if (out_of_reach) out << "* over the budget even at the method's strictest setting\n";
}

}  // namespace benchwatch::report
