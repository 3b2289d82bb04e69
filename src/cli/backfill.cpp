#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.hpp"
#include "cli/recording.hpp"
#include "ingest/assemble.hpp"
#include "model/printable.hpp"
#include "report/progress.hpp"
#include "run/environment.hpp"
#include "run/recipe.hpp"
#include "run/stability.hpp"
#include "store/store.hpp"
#include "vcs/commit_folders.hpp"
#include "vcs/process.hpp"

namespace benchwatch::cli {

namespace {

namespace fs = std::filesystem;

struct BackfillFlags {
    CommonFlags common;
    std::size_t last = 20;
    std::string range;  // "A..B"; empty: the last `last` commits of the default branch
    std::string default_branch;
    bool no_progress = false;
};

constexpr std::string_view recipe_help =
    "add a [measure] table to benchwatch.toml, e.g. build = \"cmake -S . -B build && cmake "
    "--build build\" and run = \"build/bench --benchmark_format=json\" (docs/measure.md)";

run::Recipe recipe_of(const MeasureConfig& measure) {
    run::Recipe recipe;
    recipe.build = measure.build;
    recipe.suite = measure.run;
    recipe.results = measure.results;
    recipe.input_format = measure.input_format;
    if (measure.timeout_seconds)
        recipe.timeout = std::chrono::duration<double>(*measure.timeout_seconds);
    return recipe;
}

// Where the commits are checked out: [measure] worktrees (relative to the config file), else
// the repository's git folder, which no `git status` of the user's checkout lists.
fs::path commit_folders_root(const Context& context) {
    const auto& written = context.config.measure->worktrees;
    if (written.empty()) return context.repository->common_git_dir() / "benchwatch-worktrees";
    const fs::path path(written);
    return path.is_absolute() ? path
                              : context.config.directory_or(context.working_directory) / path;
}

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
    std::size_t already_there = 0;
    std::vector<std::string> failed;  // one line each
};

int run_backfill(const BackfillFlags& flags) {
    const auto context = Context::discover(flags.common.repo);
    if (!context.repository)
        throw UsageError(
            "backfill builds commits of a git repository; run it inside one or pass --repo");
    if (!context.config.measure)
        throw UsageError(fmt::format("backfill needs to know how to build and measure a commit; {}",
                                     recipe_help));
    const auto recipe = recipe_of(*context.config.measure);
    const auto branch = resolve_default_branch_name(flags.default_branch, context);
    const auto revision = resolve_default_branch_revision(branch, context);
    if (revision.empty() && flags.range.empty())
        throw UsageError(fmt::format(
            "the default branch '{}' is not in this repository; pass --default-branch or a range",
            shown_input(branch)));
    const auto project = resolve_project(flags.common, context);
    const auto machine = resolve_machine(flags.common, context);
    const auto store_url = resolve_store(flags.common, context);
    const auto commits = commits_to_consider(flags, context, revision);

    BackfillTally tally;
    std::vector<std::string> missing;
    {
        const auto store = store::open_store(store_url);
        std::set<std::string> measured;
        for (const auto& run : store->list_runs({project, machine, "", commits}))
            measured.insert(run.commit);
        for (const auto& commit : commits) {
            if (measured.contains(commit))
                ++tally.already_there;
            else
                missing.push_back(commit);
        }
    }

    // Ctrl-C or a kill ends the build or benchmark running, not only benchwatch: a rerun then
    // starts from a clean slate and skips what was recorded.
    vcs::end_child_groups_with_this_process();
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const auto machine_warnings = run::machine_warnings(cores);
    for (const auto& warning : machine_warnings)
        std::cerr << "warning: " << warning.message << '\n';

    vcs::CommitFolders folders(*context.repository, commit_folders_root(context),
                               context.config.measure->worktrees_limit_bytes);
    const auto mode = flags.no_progress ? report::ProgressMode::Plain
                                        : report::detect_progress_mode(STDERR_FILENO);
    report::Progress progress(std::cerr, mode, missing.size(), report::steady_seconds,
                              report::terminal_columns(STDERR_FILENO));
    const std::vector<std::vector<std::string>> commands{run::shell_argv(recipe.build),
                                                         run::shell_argv(recipe.suite)};
    const auto compilers = context.config.compilers.value_or(run::default_compilers(commands));
    for (const auto& commit : missing) {
        const auto info = context.repository->commit_info(commit);
        progress.start(
            fmt::format("{} {}", commit.substr(0, 12), info ? info->subject : std::string()));
        const std::map<std::string, std::string> environment{{"BENCHWATCH_COMMIT", commit}};
        model::Run run;
        try {
            const auto folder = folders.checkout(commit);
            run::build_commit(recipe, folder, commit, environment);
            auto parsed = run::run_suite(recipe, folder, commit, environment);
            run.results = std::move(parsed.results);
            run.format = parsed.format;
            run.content_hash = fmt::format("{:016x}", parsed.content_hash);
            run.environment = run::capture_environment(folder, compilers);
            for (auto& [key, value] : parsed.context) run.environment[key] = value;
            // Stored with the run as `run` stores them, so that the dashboard shows them too.
            auto warnings = machine_warnings;
            if (auto warning = run::harness_warning(parsed.context)) warnings.push_back(*warning);
            if (auto warning = run::sample_warning(run.results)) warnings.push_back(*warning);
            for (const auto& warning : warnings)
                run.warnings.push_back({run::to_string(warning.issue), warning.message});
            for (const auto& warning : parsed.warnings)
                std::cerr << "warning: " << commit.substr(0, 12) << ": "
                          << model::printable_line(warning) << '\n';
        } catch (const model::Error& error) {
            // A commit that does not build, or whose suite fails or prints no results, is
            // skipped; a repository or machine that cannot be used stops the backfill.
            if (error.kind() != model::ErrorKind::MeasurementAborted &&
                error.kind() != model::ErrorKind::Input)
                throw;
            progress.complete();
            tally.failed.push_back(error.what());
            std::cerr << "warning: " << model::printable_line(error.what())
                      << "; skipped, nothing recorded\n";
            continue;
        }
        progress.complete();
        ingest::RunMetadata metadata;
        metadata.project = project;
        metadata.machine = machine;
        metadata.commit = commit;
        metadata.branch = branch;
        metadata.environment.push_back(fmt::format("{}=no", model::dirty_key));
        if (info)
            metadata.commit_info =
                model::CommitInfo{info->message, info->author, info->timestamp, ""};
        metadata.recorded_at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count();
        run.environment.erase(std::string(model::dirty_key));
        ingest::apply_environment_facts(metadata.environment, run.environment);
        store_run(std::move(run), metadata, store_url);
        ++tally.recorded;
    }
    progress.finish();
    std::cout << fmt::format(
        "backfill of {} ({} commit{}): {} recorded, {} already had a run, {} "
        "failed\n",
        flags.range.empty() ? branch : flags.range, commits.size(), commits.size() == 1 ? "" : "s",
        tally.recorded, tally.already_there, tally.failed.size());
    // Old commits that no longer build are expected; a recipe that measures nothing is not.
    const bool measured_any = tally.recorded + tally.already_there > 0;
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
    command->add_option("--default-branch", flags->default_branch,
                        "The default branch (default: config, then origin/HEAD, then main)");
    command->add_flag("--no-progress", flags->no_progress, "Plain progress lines only");
    command->add_option("RANGE", flags->range,
                        "OLDER..NEWER: the first-parent commits after OLDER up to NEWER instead");
    return {command, [flags] { return run_backfill(*flags); }};
}

}  // namespace benchwatch::cli
