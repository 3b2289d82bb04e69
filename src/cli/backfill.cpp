#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/commit_measurer.hpp"
#include "compare/compare.hpp"
#include "report/progress.hpp"
#include "vcs/process.hpp"

namespace benchwatch::cli {

namespace {

namespace fs = std::filesystem;

struct BackfillFlags {
    CommonFlags common;
    std::size_t last = 20;
    std::string range;  // "A..B"; empty: the last `last` commits of the default branch
    std::string default_branch;
    bool remeasure_disturbed = false;
    RunningFlags running;
};

// The default-branch commits to measure, oldest first.
std::vector<std::string> commits_to_consider(const BackfillFlags& flags, const Context& context,
                                             const std::string& branch_revision) {
    const auto& repository = *context.repository;
    if (!flags.range.empty()) {
        const auto dots = flags.range.find("..");
        if (dots == std::string::npos || dots == 0 || dots + 2 >= flags.range.size() ||
            flags.range.find("..", dots + 2) != std::string::npos)
            throw UsageError(fmt::format(
                "range '{}': expected OLDER..NEWER, e.g. v1.2..main (the commits after OLDER up "
                "to NEWER)",
                shown_input(flags.range)));
        return repository.first_parent_range(flags.range.substr(0, dots),
                                             flags.range.substr(dots + 2));
    }
    auto chain = repository.first_parent_chain(branch_revision, flags.last);
    std::reverse(chain.begin(), chain.end());
    return chain;
}

// What a backfill did, for its last line.
struct BackfillTally {
    std::size_t recorded = 0;
    std::size_t measured_again = 0;
    std::size_t already_there = 0;
    std::vector<std::string> failed;  // one line each
};

int run_backfill(const BackfillFlags& flags) {
    const auto context = Context::discover(flags.common.repo);
    const auto branch = resolve_default_branch_name(flags.default_branch, context);
    const auto project = resolve_project(flags.common, context);
    const auto machine = resolve_machine(flags.common, context);
    const auto store_url = resolve_store(flags.common, context);
    CommitMeasurer measurer("backfill", context, project, machine, branch, store_url,
                            flags.running);
    const auto revision = resolve_default_branch_revision(branch, context);
    if (revision.empty() && flags.range.empty())
        throw UsageError(fmt::format(
            "the default branch '{}' is not in this repository; pass --default-branch or a range",
            shown_input(branch)));
    const auto commits = commits_to_consider(flags, context, revision);

    BackfillTally tally;
    const auto measured = measurer.with_runs(commits);
    // Runs made in a slow spell of the machine or under load are left out of every comparison's
    // history; measuring those commits again gives them a run that counts (a commit's runs are
    // combined by each benchmark's best value).
    std::set<std::string> disturbed;
    {
        const auto store = store::open_store(store_url);
        for (auto& commit : compare::disturbed_commits(*store, project, machine, commits,
                                                       context.config.categories))
            disturbed.insert(std::move(commit));
    }
    std::vector<std::string> missing;
    for (const auto& commit : commits) {
        if (!measured.contains(commit))
            missing.push_back(commit);
        else if (flags.remeasure_disturbed && disturbed.contains(commit))
            missing.push_back(commit);
        else
            ++tally.already_there;
    }
    if (!flags.remeasure_disturbed && !disturbed.empty())
        std::cerr << fmt::format(
            "note: {} of these commits' runs were made in a slow spell of the machine or under "
            "load, and comparisons leave them out; --remeasure-disturbed measures them again\n",
            disturbed.size());

    // Ctrl-C or a kill ends the build or benchmark running, not only benchwatch: a rerun then
    // starts from a clean slate and skips what was recorded.
    vcs::end_child_groups_with_this_process();
    const auto mode = flags.running.no_progress ? report::ProgressMode::Plain
                                                : report::detect_progress_mode(STDERR_FILENO);
    report::Progress progress(std::cerr, mode, missing.size(), report::steady_seconds,
                              report::terminal_columns(STDERR_FILENO));
    for (const auto& commit : missing) {
        const auto info = context.repository->commit_info(commit);
        progress.start(
            fmt::format("{} {}", commit.substr(0, 12), info ? info->subject : std::string()));
        ingest::ParsedResults parsed;
        try {
            parsed = measurer.measure(from_git(commit));
        } catch (const model::Error& error) {
            // A commit that does not build, or whose suite fails or prints no results, is
            // skipped; a repository or machine that cannot be used stops the backfill.
            if (error.kind() != model::ErrorKind::MeasurementAborted &&
                error.kind() != model::ErrorKind::Input)
                throw;
            progress.complete();
            tally.failed.push_back(error.what());
            print_warning(std::string(error.what()) + "; skipped, nothing recorded");
            continue;
        }
        progress.complete();
        measurer.record(from_git(commit), std::move(parsed));
        ++(measured.contains(commit) ? tally.measured_again : tally.recorded);
    }
    progress.finish();
    std::cout << fmt::format(
        "backfill of {} ({} commit{}): {} recorded, {}{} already had a run, {} failed\n",
        terminal_safe(flags.range.empty() ? branch : flags.range), commits.size(),
        commits.size() == 1 ? "" : "s", tally.recorded,
        flags.remeasure_disturbed ? fmt::format("{} measured again, ", tally.measured_again) : "",
        tally.already_there, tally.failed.size());
    // Old commits that no longer build are expected; a recipe that measures nothing is not.
    const bool measured_any = tally.recorded + tally.measured_again + tally.already_there > 0;
    return !measured_any && !tally.failed.empty() ? 1 : 0;
}

}  // namespace

Command add_backfill_command(CLI::App& parent) {
    auto flags = std::make_shared<BackfillFlags>();
    auto* command = parent.add_subcommand(
        "backfill",
        "Build and benchmark default-branch commits that have no run yet, oldest first");
    add_common_flags(*command, flags->common);
    command
        ->add_option("--last", flags->last,
                     "How many of the default branch's latest commits to consider")
        ->check(CLI::Range(1, 100000));
    add_default_branch_flag(*command, flags->default_branch);
    command->add_flag("--remeasure-disturbed", flags->remeasure_disturbed,
                      "Also measure again the commits whose runs were made in a slow spell of "
                      "the machine or under load (comparisons leave those runs out)");
    add_running_flags(*command, flags->running);
    command->add_option("RANGE", flags->range,
                        "OLDER..NEWER: the first-parent commits after OLDER up to NEWER instead");
    return {command, [flags] { return run_backfill(*flags); }};
}

}  // namespace benchwatch::cli
