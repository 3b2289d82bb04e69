#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ingest/ingest.hpp"
#include "model/run.hpp"

namespace benchwatch::ingest {

// One parsed results file and the name messages call it by (its path, or an upload's file name).
struct NamedResults {
    std::string source;
    ParsedResults parsed;
};

// What a run is of, beside its results: everything `benchwatch record` resolves from flags, CI
// variables, the config file and git. Project, machine, commit and branch are never empty.
struct RunMetadata {
    std::string project;
    std::string machine;
    std::string commit;
    std::string branch;
    std::optional<std::int64_t> pull_request;
    std::vector<std::string> environment;  // KEY=VALUE facts, set over the files' own
    std::optional<model::CommitInfo> commit_info;
    std::int64_t recorded_at_ms = 0;
};

// Sets each KEY=VALUE fact in `environment`, over what is there. Throws InputError "--env 'x':
// expected KEY=VALUE" for a fact without '=' or with an empty key.
void apply_environment_facts(std::span<const std::string> facts, model::Environment& environment);

// Sets what `metadata` says of a run (project, machine, commit, branch, pull request, commit
// information, recording time) on `run`; its results, environment and hashes stay.
void apply_metadata(const RunMetadata& metadata, model::Run& run);

// The run that `files` (at least one) make together, as `record` stores it: every file's
// results in order, the files' environment with the metadata's facts set over it, the formats
// joined by '+' in sorted order, the files' content hashes as 16 hex digits each joined by '-',
// and the metadata. Throws InputError for a benchmark and metric in two files ("b.json: benchmark
// 'x' is also in a.json; record files of different suites, or record them as separate runs"),
// for a malformed environment fact, and for a project, machine or branch name that
// model::run_names_problem() refuses ("the run: machine name ..."). Example: one hyperfine file
// with hash 0xab gives format "hyperfine" and content hash "00000000000000ab".
model::Run assemble_run(std::vector<NamedResults> files, const RunMetadata& metadata);

}  // namespace benchwatch::ingest
