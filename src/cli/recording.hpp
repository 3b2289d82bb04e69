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
    bool allow_dirty = false;    // record a dirty work tree on the default branch
    std::string default_branch;  // the branch whose runs must be clean
};

// Adds the common flags and --commit, --branch, --pull-request, --env, --input-format,
// --allow-dirty and --default-branch.
void add_run_flags(CLI::App& command, RunFlags& flags);

// Where a run's results come from, which says whether the work tree's changes matter.
enum class ResultsSource {
    WorkTree,  // `run`: the harness measures the work tree as it is
    Files,     // `record`: files measured at the recorded commit, the work tree's if it is HEAD
};

// What the run is of: project, machine, commit, branch, pull request and --env facts from the
// flags, CI variables, config and git, the commit's message, author and committer date from the
// repository when it has the commit, and the time now. Inside a repository the facts end with
// "git.dirty=yes" when the results may come from uncommitted changes (the work tree differs
// from HEAD, and for Files the commit is HEAD), else "git.dirty=no". A dirty run of the default
// branch is refused without --allow-dirty; any other dirty run gets a warning on standard error.
// Throws UsageError when something is missing or refused (resolve_commit()'s rules).
ingest::RunMetadata resolve_run_metadata(const RunFlags& flags, const Context& context,
                                         ResultsSource source);

// Prints what recording `run` did: "recorded run N of <commit> (project P, machine M, branch B,
// attempt A, K results)" or "already recorded: run N of <commit> holds these results".
void print_record_outcome(const model::Run& run, const store::RecordOutcome& outcome);

// Records `run` in `store` (at `store_url`) and prints print_record_outcome()'s line; when it is
// the first run of its project in a store that holds others, also first_run_note() on stderr,
// and when the same results were already stored, a "note:" line on stderr naming the
// environment values given that the stored run does not have, since they are not stored.
void record_and_report(store::Store& store, const std::string& store_url, const model::Run& run);

// Completes `run` (its results, environment, format and content hash already set) with
// `metadata` but its environment facts, stores it in the store at `store_url`, and prints
// print_record_outcome()'s line. Returns the exit code.
int store_run(model::Run run, const ingest::RunMetadata& metadata, const std::string& store_url);

}  // namespace benchwatch::cli
