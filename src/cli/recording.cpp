#include "cli/recording.hpp"

#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "cli/commands.hpp"
#include "store/store.hpp"

namespace benchwatch::cli {

void add_run_flags(CLI::App& command, RunFlags& flags) {
    add_common_flags(command, flags.common);
    command.add_option("--commit", flags.commit, "Commit the results belong to (default: HEAD)");
    command.add_option("--branch", flags.branch, "Branch of the commit (default: current)");
    command.add_option("--pull-request", flags.pull_request, "Pull-request number");
    command.add_option("--env", flags.environment, "Environment fact KEY=VALUE (repeatable)");
    command.add_option("--format", flags.format, "Input format: auto or a format name");
}

void apply_environment_flags(const std::vector<std::string>& flags,
                             model::Environment& environment) {
    for (const auto& flag : flags) {
        const auto equals = flag.find('=');
        if (equals == std::string::npos || equals == 0)
            throw UsageError(fmt::format("--env '{}': expected KEY=VALUE", flag));
        environment[flag.substr(0, equals)] = flag.substr(equals + 1);
    }
}

int store_run(model::Run run, const RunFlags& flags, const Context& context) {
    run.project = resolve_project(flags.common, context);
    run.machine = resolve_machine(flags.common, context);
    run.commit = resolve_commit(flags.commit, context);
    run.branch = resolve_branch(flags.branch, context);
    run.pull_request = resolve_pull_request(flags.pull_request);
    if (context.repository) {
        if (const auto info = context.repository->commit_info(run.commit))
            run.commit_info = model::CommitInfo{info->message, info->author, info->timestamp, ""};
    }
    run.recorded_at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();

    const auto store = store::open_store(resolve_store(flags.common, context));
    const auto outcome = store->record(run);
    const auto short_commit = run.commit.substr(0, 9);
    if (outcome.inserted)
        std::cout << fmt::format(
            "recorded run {} of {} (project {}, machine {}, branch {}, attempt {}, {} result{})\n",
            outcome.run_id, short_commit, run.project, run.machine, run.branch, outcome.attempt,
            run.results.size(), run.results.size() == 1 ? "" : "s");
    else
        std::cout << fmt::format("already recorded: run {} of {} holds these results\n",
                                 outcome.run_id, short_commit);
    return 0;
}

}  // namespace benchwatch::cli
