#include "cli/recording.hpp"

#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
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
}

ingest::RunMetadata resolve_run_metadata(const RunFlags& flags, const Context& context) {
    ingest::RunMetadata metadata;
    metadata.project = resolve_project(flags.common, context);
    metadata.machine = resolve_machine(flags.common, context);
    metadata.commit = resolve_commit(flags.commit, context);
    metadata.branch = resolve_branch(flags.branch, context);
    metadata.pull_request = resolve_pull_request(flags.pull_request);
    metadata.environment = flags.environment;
    if (context.repository) {
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

void record_and_report(store::Store& store, const model::Run& run) {
    const auto outcome = store.record(run);
    print_record_outcome(run, outcome);
    if (outcome.inserted) return;
    for (const auto& stored : store.list_runs({run.project, run.machine, "", {run.commit}})) {
        if (stored.id != outcome.run_id) continue;
        if (const auto note = environment_not_stored(stored.environment, run.environment))
            std::cerr << "note: " << *note << '\n';
    }
}

int store_run(model::Run run, const RunFlags& flags, const Context& context) {
    ingest::apply_metadata(resolve_run_metadata(flags, context), run);
    const auto store = store::open_store(resolve_store(flags.common, context));
    record_and_report(*store, run);
    return 0;
}

}  // namespace benchwatch::cli
