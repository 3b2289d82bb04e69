#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/defaults.hpp"
#include "ingest/assemble.hpp"
#include "model/run.hpp"
#include "store/store.hpp"

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

// Adds the common flags and --commit, --branch, --pull-request, --env and --input-format.
void add_run_flags(CLI::App& command, RunFlags& flags);

// What the run is of: project, machine, commit, branch, pull request and --env facts from the
// flags, CI variables, config and git, the commit's message, author and time from the
// repository when it has the commit, and the time now. Throws UsageError when one is missing.
ingest::RunMetadata resolve_run_metadata(const RunFlags& flags, const Context& context);

// Prints what recording `run` did: "recorded run N of <commit> (project P, machine M, branch B,
// attempt A, K results)" or "already recorded: run N of <commit> holds these results".
void print_record_outcome(const model::Run& run, const store::RecordOutcome& outcome);

// Records `run` in `store` and prints print_record_outcome()'s line; when the same results were
// already stored, also a "note:" line on stderr naming the environment values given that the
// stored run does not have, since they are not stored.
void record_and_report(store::Store& store, const model::Run& run);

// Completes `run` (its results, environment, format and content hash already set) with the
// metadata of resolve_run_metadata() but its --env facts, stores it in the store the flags name,
// and prints print_record_outcome()'s line. Returns the exit code.
int store_run(model::Run run, const RunFlags& flags, const Context& context);

}  // namespace benchwatch::cli
