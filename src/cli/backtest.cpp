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
#include "cli/known_names.hpp"
#include "compare/changes.hpp"
#include "compare/compare.hpp"
#include "compare/replay.hpp"
#include "report/backtest.hpp"
#include "stats/stats.hpp"
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
    FormatFlag format;
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

// Whether any default-branch run in `history` kept the samples behind a value.
bool carries_samples(const model::History& history) {
    for (const auto& benchmark : history.benchmarks)
        for (const auto& samples : benchmark.samples)
            if (samples) return true;
    return false;
}

// What compare with `choice` (calibrated on the whole history) says a pull request on top of the
// latest run could flag; nullopt when no benchmark has a detectable change.
std::optional<report::LatestDetectable> latest_detectable(
    const model::History& history, const model::MethodChoice& choice,
    const std::vector<model::Category>& categories, const model::BenchmarkRules& rules,
    const std::vector<double>& injection_sizes, std::size_t pull_requests) {
    const auto method = compare::make_method(compare::calibrated_on(history, choice, categories));
    const auto changes = compare::find_changes(
        history, [](const std::string&) { return model::Environment{}; }, *method, categories);
    const auto standings = compare::standings(history, changes, *method, categories);
    std::vector<double> detectable;
    for (std::size_t b = 0; b < history.benchmarks.size(); ++b)
        if (!model::is_ignored(history.benchmarks[b].name, rules) &&
            standings[b].detectable_change && std::isfinite(*standings[b].detectable_change))
            detectable.push_back(*standings[b].detectable_change);
    if (detectable.empty()) return std::nullopt;
    report::LatestDetectable latest;
    latest.benchmarks = detectable.size();
    latest.median = stats::median(detectable);
    for (const double size : injection_sizes)
        latest.within.push_back(
            static_cast<double>(std::count_if(detectable.begin(), detectable.end(),
                                              [&](double change) { return change <= size; })) /
            static_cast<double>(detectable.size()));
    // Replayed pull requests are runs 10 … runs − 6, each with the runs before it as history.
    latest.last_history_runs = history.commits.size() - 6;
    latest.first_history_runs = latest.last_history_runs + 1 - pull_requests;
    return latest;
}

int run_backtest(const BacktestFlags& flags) {
    const bool json = flags.format.chosen(report::Format::Text) == report::Format::Json;
    const std::set<double> distinct_sizes(flags.injection_sizes.begin(),
                                          flags.injection_sizes.end());
    if (distinct_sizes.size() != flags.injection_sizes.size())
        throw UsageError("--inject lists a size twice; give each size once, e.g. --inject 0.1,0.2");
    const auto context = Context::discover(flags.common.repo);
    const auto default_choice = resolve_method("", context, flags.false_alarms_per_pr);
    const std::string default_name = default_choice.name();
    std::vector<std::unique_ptr<compare::Method>> methods;
    std::vector<compare::BacktestCandidate> candidates;
    std::vector<bool> is_default;
    bool replays_samples = false;
    for (const auto& name : chosen_methods(flags, default_name)) {
        methods.push_back(
            compare::make_method(resolve_method(name, context, flags.false_alarms_per_pr)));
        replays_samples = replays_samples || methods.back()->reads_samples();
        candidates.push_back({methods.back().get()});
        is_default.push_back(name == default_name);
    }

    auto source = resolve_history_source(flags.common, flags.default_branch, context);
    const auto store_url = resolve_store(flags.common, context);
    const auto store = store::open_store(store_url, store::Access::ReadOnly);
    require_history_of_named_or_only_machine(*store, store_url, source, flags.common, context,
                                             MachineUse::History);
    const auto* repository = context.repository ? &*context.repository : nullptr;
    const auto history = compare::history(*store, repository, source, "", 0,
                                          context.config.settings, replays_samples);
    if (history.commits.size() < compare::backtest_minimum_runs)
        throw UsageError(fmt::format(
            "backtest needs at least {} default-branch runs of project '{}' on machine '{}' "
            "(branch '{}') and found {}; record more runs with --branch {} first",
            compare::backtest_minimum_runs, source.project, source.machine, source.default_branch,
            history.commits.size(), source.default_branch));

    if (replays_samples && !carries_samples(history))
        throw UsageError(fmt::format(
            "backtest --method samples replays the samples each run kept, and no default-branch "
            "run of project '{}' on machine '{}' kept any; record results that carry repetitions "
            "or samples (Google Benchmark --benchmark_repetitions, hyperfine's times, go test "
            "-count) first",
            source.project, source.machine));

    const compare::BacktestOptions options{flags.injection_sizes, flags.budget, flags.seed};
    const auto backtest = compare::backtest(
        compare::matrix_of(history, context.config.categories, context.config.benchmark_rules),
        candidates, options);
    report::BacktestLayout layout{is_default, flags.injection_sizes, flags.budget, {}};
    layout.latest = latest_detectable(history, default_choice, context.config.categories,
                                      context.config.benchmark_rules, flags.injection_sizes,
                                      static_cast<std::size_t>(backtest.pull_requests));
    if (json)
        report::render_backtest_json(backtest, layout, std::cout);
    else
        report::render_backtest_text(backtest, layout, std::cout);
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
    add_format_flag(*command, flags->format, {report::Format::Text, report::Format::Json},
                    "Output format", "text");
    return {command, [flags] { return run_backtest(*flags); }};
}

}  // namespace benchwatch::cli
