#include "cli/recording.hpp"

#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/known_names.hpp"
#include "report/report.hpp"
#include "store/store.hpp"

namespace benchwatch::cli {

void add_run_flags(CLI::App& command, RunFlags& flags) {
    add_common_flags(command, flags.common);
    command.add_option("--commit", flags.commit, "Commit the results belong to (default: HEAD)");
    command.add_option("--branch", flags.branch, "Branch of the commit (default: current)");
    command.add_option("--pull-request", flags.pull_request, "Pull-request number");
    command.add_option("--env", flags.environment, "Environment fact KEY=VALUE (repeatable)");
    command.add_option("--input-format", flags.format,
                       "Format of the results: auto (detected) or a format name (default: auto)");
    add_deprecated_spelling(command, "--format", "--input-format", flags.format);
    command.add_flag("--allow-dirty", flags.allow_dirty,
                     "Record the default branch from a work tree with uncommitted changes, as a "
                     "dirty run kept out of the history");
    add_default_branch_flag(command, flags.default_branch);
}

namespace {

// Whether the results may come from uncommitted changes rather than the commit.
bool measures_changes(const vcs::Repository& repository, const ingest::RunMetadata& metadata,
                      ResultsSource source) {
    if (source == ResultsSource::Files && repository.resolve("HEAD") != metadata.commit)
        return false;
    return repository.dirty();
}

// Refuses a dirty run of the default branch unless --allow-dirty, and warns of any other.
void check_dirty_run(const RunFlags& flags, const ingest::RunMetadata& metadata,
                     const Context& context) {
    const auto& top_level = context.repository->top_level().string();
    const auto short_commit = metadata.commit.substr(0, 9);
    const auto default_branch = resolve_default_branch_name(flags.default_branch, context);
    if (metadata.branch == default_branch && !flags.allow_dirty)
        throw UsageError(fmt::format(
            "the work tree {} has uncommitted changes to tracked files, so this run of {} on the "
            "default branch '{}' would not measure that commit and would change its history; "
            "commit or stash them, or pass --allow-dirty to record a dirty run that is kept out "
            "of the history",
            top_level, short_commit, shown_input(default_branch)));
    std::cerr << fmt::format(
        "warning: the work tree {} has uncommitted changes to tracked files; the run is recorded "
        "as dirty ({}=yes): it never becomes default-branch history, and compare uses it only "
        "while {} has no clean run\n",
        top_level, model::dirty_key, short_commit);
}

}  // namespace

ingest::RunMetadata resolve_run_metadata(const RunFlags& flags, const Context& context,
                                         ResultsSource source) {
    ingest::RunMetadata metadata;
    metadata.project = resolve_project(flags.common, context);
    metadata.machine = resolve_machine(flags.common, context);
    metadata.commit = resolve_commit(flags.commit, context);
    metadata.branch = resolve_branch(flags.branch, context);
    metadata.pull_request = resolve_pull_request(flags.pull_request);
    metadata.environment = flags.environment;
    if (context.repository) {
        const bool dirty = measures_changes(*context.repository, metadata, source);
        if (dirty) check_dirty_run(flags, metadata, context);
        metadata.environment.push_back(
            fmt::format("{}={}", model::dirty_key, dirty ? "yes" : "no"));
        if (const auto info = context.repository->commit_info(metadata.commit))
            metadata.commit_info =
                model::CommitInfo{info->message, info->author, info->timestamp, ""};
    }
    metadata.recorded_at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
    return metadata;
}

void print_record_outcome(const model::Run& run, const store::RecordOutcome& outcome) {
    const auto short_commit = run.commit.substr(0, 9);
    if (outcome.inserted)
        std::cout << fmt::format(
            "recorded run {} of {} (project {}, machine {}, branch {}, attempt {}, {} result{})\n",
            outcome.run_id, short_commit, run.project, run.machine, run.branch, outcome.attempt,
            run.results.size(), run.results.size() == 1 ? "" : "s");
    else
        std::cout << fmt::format("already recorded: run {} of {} holds these results\n",
                                 outcome.run_id, short_commit);
}

namespace {

// What of `given` a run whose results were already stored as a run with `stored` did not keep:
// one line for the terminal, or std::nullopt when nothing was lost.
std::optional<std::string> environment_not_stored(const model::Environment& stored,
                                                  const model::Environment& given) {
    std::vector<std::string> parts;
    for (const auto& [key, value] : given) {
        const auto found = stored.find(key);
        if (found == stored.end())
            parts.push_back(fmt::format("{}={} (not recorded there)", key, value));
        else if (found->second != value)
            parts.push_back(fmt::format("{}={} (stored: {})", key, value, found->second));
    }
    if (parts.empty()) return std::nullopt;
    return report::terminal_text(
        fmt::format("the environment given differs from the stored run's, which is kept as it "
                    "was recorded: {}; results identical to a stored run are not recorded twice",
                    fmt::join(parts, ", ")));
}

}  // namespace

void record_and_report(store::Store& store, const std::string& store_url, const model::Run& run) {
    const auto projects_before = store.projects();
    const auto outcome = store.record(run);
    print_record_outcome(run, outcome);
    if (outcome.inserted) {
        if (const auto note = first_run_note(run.project, projects_before, store_url))
            std::cerr << "note: " << *note << '\n';
        return;
    }
    for (const auto& stored : store.list_runs({run.project, run.machine, "", {run.commit}})) {
        if (stored.id != outcome.run_id) continue;
        if (const auto note = environment_not_stored(stored.environment, run.environment))
            std::cerr << "note: " << *note << '\n';
    }
}

int store_run(model::Run run, const ingest::RunMetadata& metadata, const std::string& store_url) {
    ingest::apply_metadata(metadata, run);
    const auto store = store::open_store(store_url);
    record_and_report(*store, store_url, run);
    return 0;
}

}  // namespace benchwatch::cli
