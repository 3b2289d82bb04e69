#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.hpp"

namespace benchwatch::model {

// Key → value facts about where a run happened (toolchain and dependency versions, CPU…).
using Environment = std::map<std::string, std::string>;

// Something that makes a run's figures less trustworthy, recorded with the run.
struct Warning {
    std::string kind;  // stable name: "cpu-governor", "high-load", "debug-harness", "few-samples"
    std::string message;  // one sentence saying what is wrong and what to do about it

    friend bool operator==(const Warning&, const Warning&) = default;
};

// What is known of a run's commit beyond its id, for history and the dashboard. Empty fields
// are unknown.
struct CommitInfo {
    std::string message;    // the full commit message
    std::string author;     // the author's name
    std::string timestamp;  // when committed, ISO 8601 with its offset, as git or the forge gave it
    std::string url;        // the commit's page on the forge

    friend bool operator==(const CommitInfo&, const CommitInfo&) = default;
};

// True when `id` is a full commit id: 40 (SHA-1) or 64 (SHA-256) hex digits, in either case.
bool is_full_commit_id(std::string_view id);

// The Unix time in milliseconds of an ISO 8601 timestamp with a date, a time to the second and
// an offset: "2016-03-01T12:00:00+01:00", "2016-03-01 11:00:00Z", fractions of a second allowed;
// std::nullopt for anything else.
std::optional<std::int64_t> timestamp_ms(std::string_view timestamp);

// The environment key saying whether the tracked files differed from the commit: "yes" or "no".
inline constexpr std::string_view dirty_key = "git.dirty";

// One recorded benchmark run of a project at a commit on a machine.
struct Run {
    std::int64_t id = 0;  // assigned by the store; 0 before it is stored
    std::string project;
    std::string machine;
    // The full SHA in lowercase hex: record, import, run files and uploads check it (CommitId).
    // A store written by an older benchwatch, or copied from one, may hold another id, so a
    // reader checks it again before using it as a folder name or a git argument.
    std::string commit;
    std::string branch;
    std::optional<std::int64_t> pull_request;
    std::int64_t recorded_at_ms = 0;  // Unix time in milliseconds
    int attempt = 1;                  // 1 for the first run of this commit, then 2, 3…
    Environment environment;
    std::string format;        // source format, e.g. "benchmarktools", "googlebenchmark"
    std::string content_hash;  // identifies the recorded input; equal hashes are one run
    std::vector<Result> results;
    std::vector<Warning> warnings;  // in the order they were found
    // Kept once per project and commit: the first run that brings it stores it.
    std::optional<CommitInfo> commit_info;
};

// True when `run` was measured on a work tree whose tracked files differed from its commit.
bool is_dirty(const Run& run);

// When `run`'s commit was committed (its committer date) in Unix milliseconds, std::nullopt when
// the run carries no readable commit time.
std::optional<std::int64_t> commit_time_ms(const Run& run);

}  // namespace benchwatch::model
