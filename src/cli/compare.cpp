#include "compare/compare.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <random>
#include <set>
#include <sstream>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/commit_measurer.hpp"
#include "cli/known_names.hpp"
#include "compare/samples_method.hpp"
#include "ingest/ingest.hpp"
#include "model/commit_id.hpp"
#include "model/printable.hpp"
#include "report/progress.hpp"
#include "report/report.hpp"
#include "run/confirm.hpp"
#include "store/store.hpp"
#include "vcs/process.hpp"

namespace benchwatch::cli {

namespace {

// The most rounds --paired runs: its time budget, not this, is meant to end it.
constexpr int kPairedMostRounds = 10000;

struct CompareFlags {
    ComparisonFlags comparison;
    std::vector<std::string> files;  // BASE_FILE HEAD_FILE: compare them without a store
    std::string head;
    FormatFlag format;
    std::string output;
    bool fail_on_regression = false;
    std::string statistic;  // two files: min, median or mean; empty: the harness's default
};

std::string resolve_head(const std::string& flag, const Context& context) {
    if (!flag.empty()) return flag;
    if (auto sha = default_commit(context)) return *sha;
    throw UsageError("no head commit given and " + context.working_directory.string() +
                     " is not inside a git repository; pass --head SHA (or --repo DIR)");
}

std::string render(const model::Comparison& comparison, report::Format format, bool color) {
    std::ostringstream out;
    switch (format) {
        case report::Format::Markdown:
            report::render_markdown(comparison, out);
            break;
        case report::Format::Text:
            report::render_text(comparison, out, color);
            break;
        case report::Format::Json:
            report::render_json(comparison, out);
            break;
    }
    return out.str();
}

// Re-measures what `comparison` flagged within the [measure] benchmarks, its baseline's commit
// and its head each built in a folder of its own, and stores the verdicts in
// comparison.confirmation. Nothing flagged there, nothing measured.
void re_measure_flagged(model::Comparison& comparison,
                        const std::vector<run::ConfirmTarget>& flagged,
                        const ComparisonFlags& flags, const Context& context) {
    // Both commits become folder names and git arguments. Without git's history the baseline,
    // and a head matched by its recorded prefix, are what the store holds, which an import or a
    // history branch of any origin may have written.
    const auto stored = [&](const std::string& commit, std::string_view side) {
        return model::CommitId::check(
            commit,
            fmt::format("the {} of project '{}' on machine '{}' in the store", side,
                        comparison.project, comparison.machine),
            "record that commit's run again under its full SHA, or pass --base with a commit "
            "whose run has one");
    };
    const auto base = stored(comparison.baseline.commit, "baseline run");
    const auto head = stored(comparison.head_commit, "head's run");
    // Ctrl-C or a kill ends the build or suite being run too, which has a group of its own.
    vcs::end_child_groups_with_this_process();
    const double start = report::steady_seconds();
    CommitMeasurer measurer("compare --confirm", context, comparison.project, comparison.machine,
                            "", resolve_store(flags.common, context), flags.running);
    // Only what the recipe measures can be re-measured: the flags outside [measure] benchmarks
    // keep the verdicts the history gave them.
    std::vector<run::ConfirmTarget> targets;
    for (const auto& target : flagged)
        if (measurer.in_subset(target.name)) targets.push_back(target);
    if (targets.size() < flagged.size())
        std::cerr << model::printable_line(fmt::format(
                         "note: {} of the {} flagged benchmarks {} outside [measure] benchmarks "
                         "({}) and {} not re-measured",
                         flagged.size() - targets.size(), flagged.size(),
                         flagged.size() - targets.size() == 1 ? "lies" : "lie",
                         fmt::join(measurer.subset(), ", "),
                         flagged.size() - targets.size() == 1 ? "is" : "are"))
                  << '\n';
    if (targets.empty()) return;
    std::cerr << fmt::format("confirming {} flagged benchmark{}: building {} and {}\n",
                             targets.size(), targets.size() == 1 ? "" : "s",
                             base.str().substr(0, 12), head.str().substr(0, 12));
    measurer.prepare(base);
    measurer.prepare(head);

    run::ConfirmSettings settings;
    settings.rules = context.config.benchmark_rules;
    settings.time_budget_seconds =
        std::max(0.0, flags.confirm_budget_seconds - (report::steady_seconds() - start));
    std::vector<std::string> names;
    for (const auto& target : targets)
        if (names.empty() || names.back() != target.name) names.push_back(target.name);
    auto confirmation = run::confirm(
        targets, comparison.categories,
        [&](run::Build build) {
            return measurer.measure(build == run::Build::Base ? base : head, names).results;
        },
        report::steady_seconds, settings);
    confirmation.time_budget_seconds = flags.confirm_budget_seconds;
    confirmation.base_command = "[measure] run at " + base.str();
    confirmation.head_command = "[measure] run at " + head.str();
    confirmation.report = "the comparison above";
    comparison.confirmation = std::move(confirmation);
}

// re_measure_flagged(), or when a commit cannot be checked out, built or measured, a warning
// and the report as it was: a CI job still gets its report, judged on one run of each side.
void confirm_flagged(model::Comparison& comparison, const ComparisonFlags& flags,
                     const Context& context) {
    const auto targets = run::targets_from_report(comparison);
    if (targets.empty()) return;
    const auto unconfirmed = [](const model::Error& error) {
        std::cerr << "warning: the flagged changes could not be re-measured, so the report is not "
                     "confirmed: "
                  << model::printable_line(error.what()) << '\n';
    };
    try {
        re_measure_flagged(comparison, targets, flags, context);
    } catch (const run::RecipeError& error) {
        unconfirmed(error);
    } catch (const run::ConfirmError& error) {
        unconfirmed(error);
    } catch (const ingest::InputError& error) {
        unconfirmed(error);
    } catch (const vcs::GitError& error) {
        unconfirmed(error);
    }
}

// The suite's false verdicts a side-by-side measurement may make: the flag's budget, else the
// config's, else 1 per pull request, as the history's methods spend it.
double paired_false_alarms(const ComparisonFlags& flags, const Context& context) {
    return flags.false_alarms_per_pr.value_or(context.config.false_alarms_per_pr.value_or(1.0));
}

// `revision` as the full SHA git knows it by; throws UsageError naming `what` otherwise.
model::CommitId commit_of(const vcs::Repository& repository, const std::string& revision,
                          std::string_view what) {
    const auto sha = repository.resolve(revision);
    if (!sha)
        throw UsageError(
            fmt::format("compare --paired: {} '{}' is not a commit of {}; fetch it "
                        "(actions/checkout with fetch-depth: 0) or name another",
                        what, shown_input(revision), repository.top_level().string()));
    return from_git(*sha);
}

// The pull request's head and its merge base measured side by side, each built once with the
// [measure] recipe and run in interleaved rounds until every benchmark is decided or the budget
// ends; nothing is read from the store or written to it.
model::Comparison compare_paired(const ComparisonFlags& flags, const std::string& head_revision,
                                 const Context& context) {
    if (!context.repository)
        throw UsageError(
            "compare --paired builds the pull request's head and its merge base; run it inside "
            "their git repository or pass --repo");
    const auto& repository = *context.repository;
    const auto head = commit_of(repository, head_revision, "the head");
    std::optional<model::CommitId> base;
    if (!flags.base.empty()) {
        base = commit_of(repository, flags.base, "--base");
    } else {
        const auto name = resolve_default_branch_name(flags.default_branch, context);
        const auto revision = resolve_merge_target_revision(
            flags.default_branch, resolve_default_branch_revision(name, context), context);
        if (revision.empty())
            throw UsageError(fmt::format(
                "compare --paired: the default branch '{}' is not in {}; fetch it, or pass "
                "--default-branch NAME or --base COMMIT",
                shown_input(name), repository.top_level().string()));
        const auto merge_base = repository.merge_base(head.str(), revision);
        if (!merge_base)
            throw UsageError(fmt::format(
                "compare --paired: {} shares no history with '{}'; fetch the whole history "
                "(fetch-depth: 0) or pass --base COMMIT",
                head.str().substr(0, 12), shown_input(revision)));
        base = from_git(*merge_base);
    }
    if (*base == head)
        throw UsageError(fmt::format(
            "compare --paired: the head {} is its own merge base, so there is nothing to compare "
            "it with; run it on a pull request's head or pass --base COMMIT",
            head.str().substr(0, 12)));

    const auto project = resolve_project(flags.common, context);
    const auto machine = resolve_machine(flags.common, context);
    const double budget =
        flags.paired_budget_seconds.value_or(context.config.paired_budget_seconds.value_or(600));
    // Ctrl-C or a kill ends the build or suite being run too, which has a group of its own.
    vcs::end_child_groups_with_this_process();
    const double start = report::steady_seconds();
    CommitMeasurer measurer("compare --paired", context, project, machine, "", "", flags.running);
    std::cerr << fmt::format("measuring side by side: building {} (base) and {} (head)\n",
                             base->str().substr(0, 12), head.str().substr(0, 12));
    measurer.prepare(*base);
    measurer.prepare(head);

    run::ConfirmSettings settings;
    settings.time_budget_seconds = std::max(0.0, budget - (report::steady_seconds() - start));
    settings.max_rounds = kPairedMostRounds;
    settings.false_alarms_per_suite = paired_false_alarms(flags, context);
    settings.order_seed = flags.paired_seed.value_or(std::random_device{}());
    settings.rules = context.config.benchmark_rules;
    std::set<std::string> ignored;
    auto rounds = run::confirm(
        std::nullopt, context.config.categories,
        [&](run::Build build) {
            auto results = measurer.measure(build == run::Build::Base ? *base : head).results;
            std::erase_if(results, [&](const model::Result& result) {
                const bool ignore = model::is_ignored(result.benchmark, settings.rules);
                if (ignore) ignored.insert(result.benchmark);
                return ignore;
            });
            return results;
        },
        report::steady_seconds, settings);
    if (rounds.rounds == 0)
        throw UsageError(fmt::format(
            "compare --paired: building both commits took {:.0f} s of the {:g} s budget, leaving "
            "no time for a round; raise --paired-budget",
            report::steady_seconds() - start, budget));
    rounds.time_budget_seconds = budget;
    rounds.base_command = "[measure] run at " + base->str();
    rounds.head_command = "[measure] run at " + head.str();
    auto comparison =
        compare::paired_comparison(std::move(rounds), {project, machine, base->str(), head.str()},
                                   context.config.categories, context.config.benchmark_rules);
    comparison.ignored.assign(ignored.begin(), ignored.end());
    comparison.history_url = resolve_history_url(flags.history_url, project, context);
    return comparison;
}

// The flags that choose a commit or a history, which two files have neither of.
void reject_history_flags(const CompareFlags& flags) {
    const auto& comparison = flags.comparison;
    const std::pair<bool, const char*> given[] = {
        {!flags.head.empty(), "--head"},
        {!comparison.base.empty(), "--base"},
        {!comparison.default_branch.empty(), "--default-branch"},
        {comparison.confirm, "--confirm"},
        {comparison.paired, "--paired"},
        {!comparison.common.store.empty(), "--store"},
    };
    for (const auto& [set, name] : given)
        if (set)
            throw UsageError(fmt::format(
                "{} does not apply when two result files are compared (they are the base and "
                "the head, and no store or history is read); leave it out, or record the files "
                "and compare commits",
                name));
}

// BASE_FILE HEAD_FILE read as `record` reads them, judged without history by the samples method
// unless --method names another.
model::Comparison compare_two_files(const CompareFlags& flags) {
    if (flags.files.size() != 2)
        throw UsageError(fmt::format(
            "compare takes two result files, BASE_FILE HEAD_FILE, or none (then it compares "
            "commits of the store); got {}",
            flags.files.size()));
    reject_history_flags(flags);
    std::vector<ingest::ParsedResults> parsed;
    for (const auto& file : flags.files) {
        parsed.push_back(ingest::parse_file(file, "auto"));
        for (const auto& warning : parsed.back().warnings) print_warning(warning);
    }
    if (parsed[0].format != parsed[1].format)
        throw UsageError(fmt::format(
            "{} holds {} results and {} holds {} results; compare two runs of one harness",
            model::printable_line(flags.files[0]), parsed[0].format,
            model::printable_line(flags.files[1]), parsed[1].format));
    const auto context = Context::discover(flags.comparison.common.repo);
    auto method = resolve_method(
        flags.comparison.method.empty() ? std::string("samples") : flags.comparison.method, context,
        flags.comparison.false_alarms_per_pr);
    if (auto* samples = method.settings_if<compare::SamplesSettings>()) {
        samples->harness = parsed[0].format;
        samples->statistic = flags.statistic.empty()
                                 ? compare::statistic_for_harness(parsed[0].format)
                                 : *compare::statistic_named(flags.statistic);
    } else if (!flags.statistic.empty()) {
        throw UsageError(fmt::format(
            "--statistic chooses what the samples method compares; the {} method compares no "
            "statistic of the samples, so leave it out or pass --method samples",
            method.name()));
    }
    return compare::compare_files(
        {flags.files[0], std::move(parsed[0].results), std::move(parsed[0].context)},
        {flags.files[1], std::move(parsed[1].results), std::move(parsed[1].context)}, method,
        context.config.categories, context.config.benchmark_rules);
}

int run_compare(const CompareFlags& flags) {
    const bool to_stdout = flags.output.empty();
    const bool to_terminal = to_stdout && isatty(STDOUT_FILENO) != 0;
    const auto format =
        flags.format.chosen(to_terminal ? report::Format::Text : report::Format::Markdown);
    model::Comparison comparison;
    if (!flags.files.empty()) {
        comparison = compare_two_files(flags);
    } else {
        if (!flags.statistic.empty())
            throw UsageError(
                "--statistic applies when two result files are compared (compare BASE_FILE "
                "HEAD_FILE); leave it out when comparing stored runs");
        const auto context = Context::discover(flags.comparison.common.repo);
        comparison = compare_head(flags.comparison, resolve_head(flags.head, context), context);
        comparison.accepted = acceptance_from_ci(
            comparison, resolve_accept_label(flags.comparison.accept_label, context));
    }

    const auto text = render(comparison, format, to_stdout && stdout_wants_color());
    if (to_stdout)
        std::cout << text << std::flush;
    else
        write_file_atomically(flags.output, text);
    return flags.fail_on_regression && anything_slower(comparison) && !comparison.accepted ? 1 : 0;
}

}  // namespace

bool anything_slower(const model::Comparison& comparison) {
    return std::any_of(comparison.benchmarks.begin(), comparison.benchmarks.end(),
                       [](const model::BenchmarkComparison& benchmark) {
                           return benchmark.verdict == model::Verdict::Slower;
                       });
}

const CLI::Validator false_alarm_budget(
    [](std::string& text) {
        double budget = 0;
        if (CLI::detail::lexical_cast(text, budget) && std::isfinite(budget) && budget > 0 &&
            budget <= 1000)
            return std::string();
        return "'" + text +
               "' is not a false-alarm budget; give the flukes per pull request allowed, a "
               "number above 0 and at most 1000, e.g. 1";
    },
    "F");

void add_comparison_flags(CLI::App& command, ComparisonFlags& flags) {
    add_common_flags(command, flags.common);
    command.add_option("--base", flags.base, "Compare with this commit, not the merge base");
    add_default_branch_flag(command, flags.default_branch);
    command.add_option("--history-url", flags.history_url, "Link to the history dashboard");
    command.add_option(
        "--method", flags.method,
        "Comparison method: seed (docs/comparison-rule.md), level (docs/JUDGEMENT.md) or "
        "samples (docs/two-files.md) (default: " +
            compare::default_method_name() + "; samples for two files)");
    command
        .add_option("--false-alarms-per-pr", flags.false_alarms_per_pr,
                    "Flukes per pull request the level method may make on the default branch's "
                    "history, its thresholds calibrated to it; for the samples method, the "
                    "flukes allowed over the suite (default: config, 1)")
        ->check(false_alarm_budget);
    command.add_flag("--confirm", flags.confirm,
                     "Re-measure what the report flags, base and head interleaved, with "
                     "benchwatch.toml's [measure] recipe (docs/confirm.md); "
                     "--fail-on-regression then counts confirmed slowdowns only");
    command
        .add_option("--confirm-budget", flags.confirm_budget_seconds,
                    "Seconds --confirm may spend, building both commits included (default: 600)")
        ->check(CLI::PositiveNumber);
    command.add_flag("--paired", flags.paired,
                     "Build the head and its merge base with benchwatch.toml's [measure] recipe "
                     "and measure them side by side in interleaved rounds, instead of comparing "
                     "stored runs (docs/paired.md; also [compare] paired = true)");
    command
        .add_option("--paired-budget", flags.paired_budget_seconds,
                    "Seconds --paired may spend, building both commits included (default: "
                    "config, 600)")
        ->check(CLI::Range(1.0, 86400.0));
    command.add_option("--paired-seed", flags.paired_seed,
                       "Seed of the order --paired measures base and head in, to repeat a "
                       "measurement's order (default: random)");
    command.add_option("--accept-label", flags.accept_label,
                       "The pull-request label with which a maintainer accepts its slowdowns: "
                       "they no longer fail --fail-on-regression or the status (default: "
                       "config, performance-accepted; \"\" turns it off)");
    add_running_flags(command, flags.running);
}

namespace {

// A budget weight changes only a budget shared out by noise; says so once when the method
// judging has none, so that a weight set in benchwatch.toml is not believed to act.
void warn_of_unused_budget_weights(const model::BenchmarkRules& rules,
                                   const model::MethodChoice& choice) {
    const bool weighted = std::any_of(rules.begin(), rules.end(), [](const auto& rule) {
        return rule.budget_weight.has_value();
    });
    if (!weighted) return;
    const auto method = compare::make_method(choice);
    if (method->calibration_budget() && method->shares_budget_by_noise()) return;
    std::cerr << fmt::format(
        "warning: benchwatch.toml's budget_weight acts only where the level method shares a "
        "false-alarm budget out by noise (its default); the {} method judging here ignores it\n",
        choice.name());
}

}  // namespace

model::Comparison compare_head(const ComparisonFlags& flags, const std::string& head,
                               const Context& context) {
    if (flags.paired || context.config.paired) return compare_paired(flags, head, context);
    compare::CompareOptions options;
    options.source = resolve_history_source(flags.common, flags.default_branch, context);
    options.source.default_branch_revision = resolve_merge_target_revision(
        flags.default_branch, options.source.default_branch_revision, context);
    options.head = head;
    if (!flags.base.empty()) options.base = flags.base;
    options.method = resolve_method(flags.method, context, flags.false_alarms_per_pr);
    options.categories = context.config.categories;
    options.rules = context.config.benchmark_rules;
    warn_of_unused_budget_weights(options.rules, options.method);
    options.history_url = resolve_history_url(flags.history_url, options.source.project, context);

    const auto store_url = resolve_store(flags.common, context);
    const auto store = store::open_store(store_url, store::Access::ReadCache);
    require_history_of_named_or_only_machine(*store, store_url, options.source, flags.common,
                                             context, MachineUse::HeadRun);
    const auto* repository = context.repository ? &*context.repository : nullptr;
    auto comparison = compare::compare(*store, repository, options);
    if (flags.confirm) {
        confirm_flagged(comparison, flags, context);
        compare::settle_by_confirmation(comparison);
    }
    return comparison;
}

Command add_compare_command(CLI::App& parent) {
    auto flags = std::make_shared<CompareFlags>();
    auto* command = parent.add_subcommand(
        "compare",
        "Compare a pull request's run with its baseline, or two result files (BASE_FILE "
        "HEAD_FILE) by their samples");
    add_comparison_flags(*command, flags->comparison);
    command->add_option("files", flags->files,
                        "Two result files, base then head, to compare without a store or "
                        "history (docs/two-files.md)");
    command->add_option(
        "--head", flags->head,
        "Head commit (default: GITHUB_SHA or BUILDKITE_COMMIT, as record, else HEAD)");
    add_format_flag(*command, flags->format,
                    {report::Format::Markdown, report::Format::Text, report::Format::Json},
                    "Report format", "text on a terminal, markdown to a file or pipe");
    command->add_option("-o,--output", flags->output,
                        "Write the report to this file (default: standard output)");
    command
        ->add_option("--statistic", flags->statistic,
                     "With two result files: the statistic of each benchmark's samples compared, "
                     "min, median or mean (default: min for pytest-benchmark and BenchmarkTools.jl "
                     "files, as they recommend; else median)")
        ->check(CLI::IsMember({"min", "median", "mean"}));
    command->add_flag("--fail-on-regression", flags->fail_on_regression,
                      "Exit 1 when a benchmark is unusually slower (with --confirm: when a "
                      "slower change is confirmed)");
    return {command, [flags] { return run_compare(*flags); }};
}

}  // namespace benchwatch::cli
