#include <memory>

#include "cli/commands.hpp"

namespace benchwatch::cli {

Command add_github_command(CLI::App& parent) {
    auto* command = parent.add_subcommand(
        "github", "Deliver the report on GitHub: pull-request comment, step summary, commit status");
    command->require_subcommand(1);
    return {command, [] { return 0; }};
}

}  // namespace benchwatch::cli
