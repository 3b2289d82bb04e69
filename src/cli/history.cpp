#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/known_names.hpp"
#include "compare/changes.hpp"
#include "compare/compare.hpp"
#include "compare/method.hpp"
#include "compare/replay.hpp"
#include "report/report.hpp"
#include "store/store.hpp"

namespace benchwatch::cli {

namespace {

struct HistoryFlags {
    CommonFlags common;
    std::string default_branch;
    std::size_t limit = 30;
    FormatFlag format;
    std::string benchmark;
    bool changes = false;
    bool limit_given = false;
};

std::string no_history_message(const HistoryFlags& flags, const compare::HistorySource& source) {
    return fmt::format(
        "no default-branch history{} for project '{}' on machine '{}' (branch '{}'); record runs "
        "with --branch {} first",
        flags.benchmark.empty() ? "" : " of '" + flags.benchmark + "'", source.project,
        source.machine, source.default_branch, source.default_branch);
}

}  // namespace

model::HistoryChanges default_branch_changes(store::Store& store,
                                             const compare::HistorySource& source,
                                             const std::string& benchmark, std::size_t limit,
                                             const Context& context) {
    const auto* repository = context.repository ? &*context.repository : nullptr;
    const auto whole = compare::history(store, repository, source, "", 0, context.config.settings);
    const auto method = compare::make_method(
        compare::calibrated_on(whole, resolve_method("", context), context.config.categories));
    // The whole history, already read for the calibration, is the one searched without a limit.
    if (limit == 0)
        return compare::history_changes(store, source, whole, benchmark, *method,
                                        context.config.categories);
    return compare::history_changes(store, repository, source, benchmark, limit,
                                    context.config.settings, *method, context.config.categories);
}

namespace {

int run_history(const HistoryFlags& flags) {
    const bool json = flags.format.chosen(report::Format::Text) == report::Format::Json;
    const auto context = Context::discover(flags.common.repo);
    auto source = resolve_history_source(flags.common, flags.default_branch, context);

    const auto store_url = resolve_store(flags.common, context);
    const auto store = store::open_store(store_url, store::Access::ReadOnly);
    require_history_of_named_or_only_machine(*store, store_url, source, flags.common, context,
                                             MachineUse::History, flags.benchmark, true);
    const auto* repository = context.repository ? &*context.repository : nullptr;
    if (flags.changes) {
        // Steps are found in the whole history unless --limit says otherwise.
        const auto changes = default_branch_changes(*store, source, flags.benchmark,
                                                    flags.limit_given ? flags.limit : 0, context);
        if (changes.runs == 0) throw UsageError(no_history_message(flags, source));
        if (json)
            report::render_changes_json(changes, std::cout);
        else
            report::render_changes_text(changes, std::cout);
        return 0;
    }
    const auto history = compare::history(*store, repository, source, flags.benchmark, flags.limit,
                                          context.config.settings);
    if (history.benchmarks.empty()) throw UsageError(no_history_message(flags, source));
    if (json)
        report::render_history_json(history, std::cout);
    else
        report::render_history_text(history, std::cout, stdout_wants_color());
    return 0;
}

}  // namespace

Command add_history_command(CLI::App& parent) {
    auto flags = std::make_shared<HistoryFlags>();
    auto* command = parent.add_subcommand(
        "history", "Show each benchmark's recent values on the default branch");
    add_common_flags(*command, flags->common);
    add_default_branch_flag(*command, flags->default_branch);
    command
        ->add_option("--limit", flags->limit,
                     "Most recent runs to show (0: all; with --changes, all unless given)")
        ->each([flags](const std::string&) { flags->limit_given = true; });
    add_format_flag(*command, flags->format, {report::Format::Text, report::Format::Json},
                    "Output format", "text");
    command->add_flag("--changes", flags->changes,
                      "List the lasting steps in each benchmark's history instead");
    command->add_option("BENCHMARK", flags->benchmark, "A benchmark name, or a prefix like array/");
    return {command, [flags] { return run_history(*flags); }};
}

}  // namespace benchwatch::cli
