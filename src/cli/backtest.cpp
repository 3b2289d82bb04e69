#include "compare/backtest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "compare/compare.hpp"
#include "store/store.hpp"

namespace benchwatch::cli {

namespace {

struct BacktestFlags {
    CommonFlags common;
    std::string default_branch;
    std::vector<std::string> methods;
    std::vector<double> injection_sizes = {0.1, 0.2};
    std::optional<double> budget;
    std::optional<double> false_alarms_per_pr;
    std::uint64_t seed = 1;
    std::string format = "text";
};

// Checks one --inject entry: a positive number such as 0.1 for +10%.
const CLI::Validator regression_size(
    [](std::string& text) {
        double size = 0;
        if (CLI::detail::lexical_cast(text, size) && std::isfinite(size) && size > 0)
            return std::string();
        return "'" + text +
               "' is not a regression size; give positive fractions separated by commas, "
               "e.g. 0.1,0.2 for +10% and +20%";
    },
    "SIZE,...");

// An injection size as JSON keys and table headers show it: the shortest decimal, "0.1".
std::string size_key(double size) {
    return fmt::format("{}", size);
}

// --method's names in the order given, each once; without any, seed and the default method.
std::vector<std::string> chosen_methods(const BacktestFlags& flags,
                                        const std::string& default_name) {
    std::vector<std::string> names;
    const auto wanted =
        flags.methods.empty() ? std::vector<std::string>{"seed", default_name} : flags.methods;
    for (const auto& name : wanted)
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    return names;
}

nlohmann::ordered_json caught_json(const std::vector<double>& sizes,
                                   const std::vector<double>& caught) {
    auto shares = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < sizes.size(); ++i) shares[size_key(sizes[i])] = caught[i];
    return shares;
}

void render_json(const compare::BacktestReport& report, const std::vector<bool>& is_default,
                 const BacktestFlags& flags, std::ostream& out) {
    nlohmann::ordered_json json;
    json["prs"] = report.pull_requests;
    json["methods"] = nlohmann::ordered_json::array();
    for (std::size_t m = 0; m < report.methods.size(); ++m) {
        const auto& method = report.methods[m];
        nlohmann::ordered_json entry;
        entry["name"] = method.name;
        entry["default"] = static_cast<bool>(is_default[m]);
        entry["false_alarms_per_pr"] = method.calibrated_budget
                                           ? nlohmann::ordered_json(*method.calibrated_budget)
                                           : nlohmann::ordered_json(nullptr);
        entry["setting"] = method.score.setting;
        if (method.calibrated_budget)
            entry["setting_is"] = method.priced ? "price_of_a_fluke" : "factor";
        if (method.score.setting_range)
            entry["setting_range"] = {method.score.setting_range->first,
                                      method.score.setting_range->second};
        entry["flukes_per_pr"] = method.score.flukes_per_pr;
        entry["flukes_per_pr_interval"] = {method.score.flukes_interval.low,
                                           method.score.flukes_interval.high};
        entry["persistent_per_pr"] = method.score.persistent_per_pr;
        entry["caught"] = caught_json(flags.injection_sizes, method.score.caught);
        auto intervals = nlohmann::ordered_json::object();
        for (std::size_t i = 0; i < flags.injection_sizes.size(); ++i)
            intervals[size_key(flags.injection_sizes[i])] = {method.score.caught_intervals[i].low,
                                                             method.score.caught_intervals[i].high};
        entry["caught_interval"] = std::move(intervals);
        if (method.at_budget) {
            nlohmann::ordered_json at_budget;
            at_budget["budget"] = *flags.budget;
            at_budget["setting"] = method.at_budget->setting;
            at_budget["flukes_per_pr"] = method.at_budget->flukes_per_pr;
            at_budget["caught"] = caught_json(flags.injection_sizes, method.at_budget->caught);
            entry["at_budget"] = std::move(at_budget);
        }
        json["methods"].push_back(std::move(entry));
    }
    out << json.dump(2) << '\n';
}

// Characters of `text` as a terminal shows them: UTF-8 continuation bytes take no column.
std::size_t display_width(std::string_view text) {
    return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

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

void render_text(const compare::BacktestReport& report, const std::vector<bool>& is_default,
                 const BacktestFlags& flags, std::ostream& out) {
    std::vector<std::string> names;
    for (std::size_t m = 0; m < report.methods.size(); ++m)
        names.push_back(report.methods[m].name + (is_default[m] ? " (default)" : ""));
    std::size_t name_width = std::string_view("method").size();
    for (const auto& name : names) name_width = std::max(name_width, name.size());
    const bool uncertain = report.pull_requests < compare::backtest_uncertain_below;

    out << fmt::format("{} pull request{} replayed from the default branch\n", report.pull_requests,
                       report.pull_requests == 1 ? "" : "s");
    if (uncertain)
        out << fmt::format(
            "Fewer than {} pull requests: the figures are uncertain; about 95% intervals in "
            "brackets.\n",
            compare::backtest_uncertain_below);
    out << '\n';

    std::vector<std::string> settings;
    std::size_t setting_width = std::string_view("setting").size();
    for (const auto& method : report.methods) {
        settings.push_back(setting_text(method.score));
        setting_width = std::max(setting_width, display_width(settings.back()));
    }
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
    const std::size_t flukes_width = uncertain ? 19 : 9;
    const std::size_t caught_width = uncertain ? 20 : 11;
    const auto header = [&](std::string_view middle) {
        out << fmt::format("{:<{}}  {}", "method", name_width, middle);
        for (const double size : flags.injection_sizes)
            out << fmt::format("  {:>{}}", fmt::format("caught +{:g}%", size * 100), caught_width);
        out << '\n';
    };
    const auto caught = [&](const compare::BacktestScore& score) {
        for (std::size_t i = 0; i < score.caught.size(); ++i)
            out << fmt::format("  {:>{}}", caught_text(score, i), caught_width);
        out << '\n';
    };
    header(fmt::format("{:>6}  {:<{}}  {:>{}}  {:>13}", "budget", "setting", setting_width,
                       "flukes/PR", flukes_width, "persistent/PR"));
    for (std::size_t m = 0; m < report.methods.size(); ++m) {
        const auto& method = report.methods[m];
        const auto budget =
            method.calibrated_budget ? fmt::format("{:g}", *method.calibrated_budget) : "-";
        out << fmt::format("{:<{}}  {:>6}  {:<{}}  {:>{}}  {:>13.2f}", names[m], name_width, budget,
                           settings[m], setting_width, flukes_text(method.score), flukes_width,
                           method.score.persistent_per_pr);
        caught(method.score);
    }
    if (std::any_of(report.methods.begin(), report.methods.end(),
                    [](const auto& method) { return method.calibrated_budget.has_value(); }))
        out << "A budget calibrates the setting at each pull request from the ones before it; "
               "the setting column gives the median and the range used.\n";
    if (std::any_of(report.methods.begin(), report.methods.end(),
                    [](const auto& method) { return method.priced; }))
        out << "A budget shared by noise sets a price of a fluke in expected catches instead; "
               "its column gives the prices of the pull requests with enough history for it.\n";
    if (!flags.budget) return;
    out << fmt::format(
        "\nAt the most sensitive fixed setting with at most {:g} fluke(s) per pull request, known "
        "in hindsight:\n",
        *flags.budget);
    header(fmt::format("{:<7}  {:>{}}", "setting", "flukes/PR", flukes_width));
    bool out_of_reach = false;
    for (std::size_t m = 0; m < report.methods.size(); ++m) {
        const auto& score = *report.methods[m].at_budget;
        const bool over = score.flukes_per_pr > *flags.budget;
        out_of_reach = out_of_reach || over;
        out << fmt::format("{:<{}}  {:>7.3g}  {:>{}}{}", names[m], name_width, score.setting,
                           flukes_text(score), flukes_width, over ? "*" : " ");
        caught(score);
    }
    if (out_of_reach) out << "* over the budget even at the method's strictest setting\n";
}

int run_backtest(const BacktestFlags& flags) {
    const std::set<double> distinct_sizes(flags.injection_sizes.begin(),
                                          flags.injection_sizes.end());
    if (distinct_sizes.size() != flags.injection_sizes.size())
        throw UsageError("--inject lists a size twice; give each size once, e.g. --inject 0.1,0.2");
    const auto context = Context::discover(flags.common.repo);
    const auto default_choice = resolve_method("", context, flags.false_alarms_per_pr);
    const std::string default_name = model::to_string(default_choice.kind);
    std::vector<std::unique_ptr<compare::Method>> methods;
    std::vector<compare::BacktestCandidate> candidates;
    std::vector<bool> is_default;
    for (const auto& name : chosen_methods(flags, default_name)) {
        const auto choice = compare::with_method_named(default_choice, name);
        methods.push_back(compare::make_method(choice));
        candidates.push_back({methods.back().get(), choice.kind == model::MethodKind::Level
                                                        ? compare::calibration_rule_of(choice.level)
                                                        : std::nullopt});
        is_default.push_back(name == default_name);
    }

    const auto source = resolve_history_source(flags.common, flags.default_branch, context);
    const auto store =
        store::open_store(resolve_store(flags.common, context), store::Access::ReadOnly);
    const auto* repository = context.repository ? &*context.repository : nullptr;
    const auto history =
        compare::history(*store, repository, source, "", 0, context.config.settings);
    if (history.commits.size() < compare::backtest_minimum_runs)
        throw UsageError(fmt::format(
            "backtest needs at least {} default-branch runs of project '{}' on machine '{}' "
            "(branch '{}') and found {}; record more runs with --branch {} first",
            compare::backtest_minimum_runs, source.project, source.machine, source.default_branch,
            history.commits.size(), source.default_branch));

    const compare::BacktestOptions options{flags.injection_sizes, flags.budget, flags.seed};
    const auto report = compare::backtest(compare::matrix_of(history, context.config.categories),
                                          candidates, options);
    if (flags.format == "json")
        render_json(report, is_default, flags, std::cout);
    else
        render_text(report, is_default, flags, std::cout);
    return 0;
}

}  // namespace

Command add_backtest_command(CLI::App& parent) {
    auto flags = std::make_shared<BacktestFlags>();
    auto* command = parent.add_subcommand(
        "backtest",
        "Replay the default branch's runs as pull requests: flukes per pull request and the "
        "share of injected regressions each method catches");
    add_common_flags(*command, flags->common);
    add_default_branch_flag(*command, flags->default_branch);
    command->add_option("--method", flags->methods,
                        "A method to measure, repeatable (default: seed and the default method)");
    command
        ->add_option("--inject", flags->injection_sizes,
                     "Regression sizes to inject, comma-separated (default: 0.1,0.2)")
        ->delimiter(',')
        ->check(regression_size);
    command
        ->add_option("--budget", flags->budget,
                     "Also find each method's most sensitive setting with at most this many "
                     "flukes per pull request")
        ->check(CLI::NonNegativeNumber);
    command
        ->add_option("--false-alarms-per-pr", flags->false_alarms_per_pr,
                     "The level method's budget of flukes per pull request, to which each "
                     "replayed pull request calibrates its thresholds (default: config, 1)")
        ->check(false_alarm_budget);
    command->add_option("--seed", flags->seed,
                        "Seed of the injected benchmarks' choice (default: 1)");
    command->add_option("--format", flags->format, "Output format (default: text)")
        ->check(CLI::IsMember({"text", "json"}));
    return {command, [flags] { return run_backtest(*flags); }};
}

}  // namespace benchwatch::cli
