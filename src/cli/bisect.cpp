#include "run/bisect.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/commit_measurer.hpp"
#include "cli/known_names.hpp"
#include "model/category.hpp"
#include "model/printable.hpp"
#include "report/progress.hpp"
#include "report/report.hpp"
#include "store/store.hpp"
#include "vcs/process.hpp"

namespace benchwatch::cli {

namespace {

struct BisectFlags {
    CommonFlags common;
    std::string good;
    std::string bad;
    std::string benchmark;
    std::string metric = "time";
    std::string default_branch;
    int max_rounds = 30;
    double time_budget_seconds = 600;
    RunningFlags running;
};

// "+12.3% (+11.0% to +13.9%, 8 rounds)": a re-measured change and its interval.
std::string evidence_text(const model::ConfirmedBenchmark& evidence) {
    const auto percent = [](double change) { return report::format_change(change); };
    const auto interval =
        evidence.change_low && evidence.change_high
            ? fmt::format("{} to {}", percent(*evidence.change_low), percent(*evidence.change_high))
            : std::string("no interval yet");
    return fmt::format("{} ({}, {} round{})", percent(evidence.change), interval, evidence.rounds,
                       evidence.rounds == 1 ? "" : "s");
}

// "3f2a9c01d4e5 Speed up the parser": a commit as the report names it.
std::string commit_line(const Context& context, const std::string& commit) {
    const auto info = context.repository->commit_info(commit);
    return model::printable_line(
        fmt::format("{} {}", commit.substr(0, 12), info ? info->subject : std::string()));
}

// The history bisect reads and records into: its machine named, else the project's only one
// (history_machine()) where the store holds the project.
compare::HistorySource bisected_history(const BisectFlags& flags, const Context& context) {
    auto source = resolve_history_source(flags.common, flags.default_branch, context);
    const auto store_url = resolve_store(flags.common, context);
    if (!named_machine(flags.common, context) && store::stored_schema_version(store_url) > 0)
        source.machine = history_machine(*store::open_store(store_url, store::Access::ReadOnly),
                                         source, MachineUse::History);
    return source;
}

// The commits either side of the latest step of the benchmark that `history --changes` finds on
// the default branch of `source`, its own or within a suite event. Throws UsageError when it
// finds none.
std::pair<std::string, std::string> latest_step(const BisectFlags& flags,
                                                const compare::HistorySource& source,
                                                const Context& context) {
    const auto store_url = resolve_store(flags.common, context);
    const auto store = store::open_store(store_url, store::Access::ReadCache);
    require_known_history(*store, store_url, source, flags.benchmark);
    const auto changes = default_branch_changes(*store, source, flags.benchmark, 0, context);
    const model::HistoryStep* latest = nullptr;
    const auto consider = [&](const model::HistoryStep& step) {
        if (step.benchmark == flags.benchmark && step.metric == flags.metric &&
            (latest == nullptr || step.position > latest->position))
            latest = &step;
    };
    for (const auto& step : changes.steps) consider(step);
    for (const auto& event : changes.events)
        for (const auto& step : event.steps) consider(step);
    if (latest == nullptr)
        throw UsageError(fmt::format(
            "history --changes finds no step of '{}' ({}) on {}; pass --good and --bad to "
            "bisect a range of your own",
            shown_input(flags.benchmark), shown_input(flags.metric), source.default_branch));
    std::cerr << fmt::format("bisecting the step history --changes found between {} and {}\n",
                             latest->before_commit.substr(0, 12),
                             latest->after_commit.substr(0, 12));
    return {latest->before_commit, latest->after_commit};
}

int run_bisect(const BisectFlags& flags) {
    const auto context = Context::discover(flags.common.repo);
    const auto source = bisected_history(flags, context);
    CommitMeasurer measurer("bisect", context, source.project, source.machine,
                            source.default_branch, resolve_store(flags.common, context),
                            flags.running);
    if (!measurer.in_subset(flags.benchmark))
        throw UsageError(fmt::format(
            "benchmark '{}' lies outside [measure] benchmarks ({}), the only ones the recipe "
            "measures; add a pattern that matches it",
            shown_input(flags.benchmark), fmt::join(measurer.subset(), ", ")));
    if (flags.good.empty() != flags.bad.empty())
        throw UsageError(
            "give both --good and --bad, or neither to bisect the latest step "
            "history --changes finds");
    const auto [good_given, bad_given] =
        flags.good.empty() ? latest_step(flags, source, context) : std::pair{flags.good, flags.bad};
    const auto& repository = *context.repository;
    const auto good = repository.resolve(good_given);
    const auto bad = repository.resolve(bad_given);
    for (const auto& [flag, given, sha] :
         {std::tuple{"--good", good_given, good}, std::tuple{"--bad", bad_given, bad}})
        if (!sha)
            throw UsageError(fmt::format("{} '{}' names no commit of this repository", flag,
                                         shown_input(given)));
    std::vector<std::string> commits{*good};
    for (auto& commit : repository.first_parent_range(*good, *bad))
        commits.push_back(std::move(commit));
    if (commits.size() < 2 || commits.back() != *bad)
        throw UsageError(fmt::format(
            "--bad {} does not follow --good {} on its first-parent history; give the older "
            "commit as --good",
            bad->substr(0, 12), good->substr(0, 12)));

    run::ConfirmTarget target;
    target.name = flags.benchmark;
    target.metric = flags.metric;
    target.minimum_change =
        model::minimum_change_of(flags.benchmark, "time", context.config.categories);

    vcs::end_child_groups_with_this_process();
    // The first measurement of each commit, recorded when it has no run yet, so that
    // `history --changes` and the dashboard then see the commit bisect found.
    std::map<std::string, ingest::ParsedResults> first_measurements;
    const auto had_runs = measurer.with_runs(commits);
    const std::vector<std::string> only_the_benchmark{flags.benchmark};
    bool direction_known = false;
    const auto measure = [&](const std::string& commit) {
        // A measurement to be recorded runs the whole suite, so that the run it records lacks
        // none of the commit's benchmarks; the rounds after it run the one benchmark only.
        const bool recorded = !first_measurements.contains(commit) && !had_runs.contains(commit);
        if (!first_measurements.contains(commit))
            std::cerr << "measuring " << commit_line(context, commit) << '\n';
        auto parsed = measurer.measure(from_git(commit), recorded ? std::span<const std::string>()
                                                                  : std::span(only_the_benchmark));
        const auto found = std::find_if(
            parsed.results.begin(), parsed.results.end(), [&](const model::Result& result) {
                return result.benchmark == flags.benchmark && result.metric == flags.metric;
            });
        if (found == parsed.results.end())
            throw UsageError(fmt::format(
                "benchmark '{}' ({}) is not in the results of {}; check --benchmark and --metric",
                shown_input(flags.benchmark), shown_input(flags.metric), commit.substr(0, 12)));
        if (!direction_known) {
            target.direction = found->direction;
            direction_known = true;
        }
        if (first_measurements.contains(commit)) return std::move(parsed.results);
        auto results = parsed.results;
        first_measurements.emplace(commit, std::move(parsed));
        return results;
    };
    // The direction comes with the results: measured once before the search starts.
    measure(commits.front());

    run::ConfirmSettings settings;
    settings.max_rounds = flags.max_rounds;
    settings.time_budget_seconds = flags.time_budget_seconds;
    const auto outcome = run::bisect(commits, target, context.config.categories, measure,
                                     report::steady_seconds, settings);

    for (auto& [commit, parsed] : first_measurements)
        if (!had_runs.contains(commit)) measurer.record(from_git(commit), std::move(parsed));

    const auto name = model::printable_line(model::with_metric(flags.benchmark, flags.metric));
    std::cout << fmt::format("{} from {} to {}: {}, {}\n", name, good->substr(0, 12),
                             bad->substr(0, 12), evidence_text(outcome.step),
                             model::to_string(outcome.step.verdict));
    if (outcome.step.verdict != model::ConfirmationVerdict::Confirmed) {
        std::cout << fmt::format(
            "No step to bisect: re-measured interleaved, the change is not "
            "beyond {:.0f}% either way.\n",
            target.minimum_change * 100);
        return 1;
    }
    for (const auto& probe : outcome.probes)
        std::cout << fmt::format(
            "  {}  {}: {}\n", commit_line(context, probe.commit), run::to_string(probe.side),
            probe.side == run::Side::Skipped ? model::printable_line(probe.skipped_because)
                                             : evidence_text(probe.evidence));
    if (outcome.culprit.empty()) {
        // The search ends undecided for one of two reasons: a probe's rounds ran out, or every
        // commit left in the range was skipped.
        const bool rounds_ran_out =
            !outcome.probes.empty() && outcome.probes.back().side == run::Side::Unknown;
        std::cout << fmt::format("Undecided: the step is in {}..{}; {}.\n",
                                 outcome.first.substr(0, 12), outcome.last.substr(0, 12),
                                 rounds_ran_out
                                     ? "rerun with more --max-rounds or a quieter machine"
                                     : "the commits between could not be measured (skipped above)");
        return 1;
    }
    std::cout << fmt::format("First commit at the new level: {}\n",
                             commit_line(context, outcome.culprit));
    return 0;
}

}  // namespace

Command add_bisect_command(CLI::App& parent) {
    auto flags = std::make_shared<BisectFlags>();
    auto* command = parent.add_subcommand(
        "bisect", "Find the commit where a benchmark stepped, measuring commits between two");
    add_common_flags(*command, flags->common);
    command->add_option("--good", flags->good,
                        "A commit before the step (default: with --bad, the last commit before "
                        "the latest step history --changes finds)");
    command->add_option("--bad", flags->bad,
                        "A later commit after the step (default: the first after that step)");
    command->add_option("--benchmark", flags->benchmark, "The benchmark that stepped")->required();
    command->add_option("--metric", flags->metric, "Its metric (default: time)");
    add_default_branch_flag(*command, flags->default_branch);
    command
        ->add_option("--max-rounds", flags->max_rounds,
                     "Interleaved rounds at most for each commit measured")
        ->check(CLI::Range(2, 1000));
    command
        ->add_option("--time-budget", flags->time_budget_seconds,
                     "Seconds at most for each commit's rounds")
        ->check(CLI::PositiveNumber);
    add_running_flags(*command, flags->running);
    return {command, [flags] { return run_bisect(*flags); }};
}

}  // namespace benchwatch::cli
