#include <memory>

#include "cli/commands.hpp"

namespace benchwatch::cli {

Command add_history_branch_command(CLI::App& parent) {
    auto* command = parent.add_subcommand(
        "history-branch", "Keep the run history in a git branch between CI jobs (pull, push)");
    command->require_subcommand(1);
    return {command, [] { return 0; }};
}

}  // namespace benchwatch::cli
