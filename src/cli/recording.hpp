#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/defaults.hpp"
#include "model/run.hpp"

namespace benchwatch::cli {

// What `record` and `run` both take: where a run goes and what it is a run of.
struct RunFlags {
    CommonFlags common;
    std::string commit;
    std::string branch;
    std::optional<std::int64_t> pull_request;
    std::vector<std::string> environment;  // KEY=VALUE
    std::string format = "auto";
};

// Adds the common flags and --commit, --branch, --pull-request, --env and --format.
void add_run_flags(CLI::App& command, RunFlags& flags);

// Sets each --env KEY=VALUE in `environment`, over what is there. Throws UsageError for a flag
// without '=' or with an empty key.
void apply_environment_flags(const std::vector<std::string>& flags,
                             model::Environment& environment);

// Completes `run` (its results, environment, format and content hash already set) with project,
// machine, commit, branch, pull request and time from the flags and context, stores it, and
// prints "recorded run N of <commit> (…)" or "already recorded: …". Returns the exit code.
int store_run(model::Run run, const RunFlags& flags, const Context& context);

}  // namespace benchwatch::cli
