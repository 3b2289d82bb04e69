#include "cli/app.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/config.hpp"
#include "cli/defaults.hpp"
#include "cli/version.hpp"
#include "model/error.hpp"
#include "model/printable.hpp"

namespace benchwatch::cli {

namespace {

constexpr int exit_bad_input = 2;

void print_error(std::string_view message) {
    constexpr std::string_view prefix = "error: ";
    if (message.starts_with(prefix)) message.remove_prefix(prefix.size());
    std::cerr << prefix << model::printable_line(message) << '\n';
}

// The exit code of an expected failure of `kind`: 2 for every kind, so that scripts and CI
// tell "benchwatch could not answer" (2) from "a regression was found" (1, with
// --fail-on-regression) and from success (0).
int exit_code_of(model::ErrorKind /*kind*/) {
    return exit_bad_input;
}

// Expected failures (bad input, missing runs, an unusable store…) are one line and exit code 2.
int run_reporting_errors(const Command& command) {
    try {
        return command.run();
    } catch (const model::Error& error) {
        if (error.kind() == model::ErrorKind::MeasurementAborted)
            print_error(std::string(error.what()) + "; nothing was recorded");
        else
            print_error(error.what());
        return exit_code_of(error.kind());
    }
}

}  // namespace

bool stdout_wants_color() {
    return isatty(STDOUT_FILENO) != 0 && !environment_variable("NO_COLOR");
}

int main(int argc, char** argv) {
    CLI::App app{
        "benchwatch: continuous benchmarking. Records benchmark runs by commit and "
        "reports which benchmarks a pull request changed beyond their noise."};
    app.name("benchwatch");
    app.set_version_flag("-v,--version", std::string(version_line()));
    app.require_subcommand(1);
    const std::vector<Command> commands = {
        add_record_command(app),         add_run_command(app),       add_compare_command(app),
        add_history_command(app),        add_import_command(app),    add_serve_command(app),
        add_site_command(app),           add_github_command(app),    add_gitlab_command(app),
        add_history_branch_command(app), add_migrate_command(app),   add_copy_command(app),
        add_confirm_command(app),        add_backfill_command(app),  add_bisect_command(app),
        add_backtest_command(app),       add_buildkite_command(app),
    };
    const auto help_command = add_help_command(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& help) {
        return app.exit(help);
    } catch (const CLI::CallForVersion& version) {
        return app.exit(version);
    } catch (const CLI::ParseError& error) {
        print_error(describe_parse_error(app, error));
        return exit_bad_input;
    }
    if (help_command->app->parsed()) return help_command->run(app);
    for (const auto& command : commands)
        if (command.app->parsed()) return run_reporting_errors(command);
    return exit_bad_input;
}

}  // namespace benchwatch::cli
