#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "compare/compare.hpp"
#include "report/report.hpp"
#include "store/store.hpp"

namespace benchwatch::cli {

namespace {

struct HistoryFlags {
    CommonFlags common;
    std::string default_branch;
    std::size_t limit = 30;
    std::string format = "text";
    std::string benchmark;
};

int run_history(const HistoryFlags& flags) {
    const auto context = Context::discover(flags.common.repo);
    compare::HistorySource source;
    source.project = resolve_project(flags.common, context);
    source.machine = resolve_machine(flags.common, context);
    source.default_branch = resolve_default_branch_name(flags.default_branch, context);
    source.default_branch_revision =
        resolve_default_branch_revision(source.default_branch, context);

    const auto store = store::open_store(resolve_store(flags.common, context));
    const auto* repository = context.repository ? &*context.repository : nullptr;
    const auto history = compare::history(*store, repository, source, flags.benchmark, flags.limit,
                                          context.config.settings);
    if (history.benchmarks.empty())
        throw UsageError(fmt::format(
            "no default-branch history{} for project '{}' on machine '{}' (branch '{}'); record "
            "runs with --branch {} first",
            flags.benchmark.empty() ? "" : " of '" + flags.benchmark + "'", source.project,
            source.machine, source.default_branch, source.default_branch));
    if (flags.format == "json")
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
    command->add_option("--default-branch", flags->default_branch, "The default branch");
    command->add_option("--limit", flags->limit, "Most recent runs to show (0: all)");
    command->add_option("--format", flags->format, "Output format")
        ->check(CLI::IsMember({"text", "json"}));
    command->add_option("BENCHMARK", flags->benchmark, "A benchmark name, or a prefix like array/");
    return {command, [flags] { return run_history(*flags); }};
}

}  // namespace benchwatch::cli
