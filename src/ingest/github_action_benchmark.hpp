#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "model/result.hpp"
#include "model/run.hpp"

namespace benchwatch::ingest {

// One entry of a github-action-benchmark history: a commit and what was measured at it.
struct ImportedRun {
    std::string commit;  // as the history gives it, normally the full SHA
    model::CommitInfo commit_info;
    std::int64_t date_ms = 0;  // when the action stored the entry, Unix milliseconds
    std::string tool;          // "julia", "go", "customSmallerIsBetter"…
    // Each value under the benchmark name, metric and unit that benchwatch's own reader of the
    // tool's harness gives it, so runs recorded after the switch continue the same series.
    std::vector<model::Result> results;
    // What the entry says of where it was measured: its "cpu" object, the keys every bench's
    // "extra" agrees on, and model::statistic_key for the tools whose statistic is known.
    // Values are untrusted, bounded and free of control characters.
    model::Environment environment;
    std::uint64_t content_hash = 0;  // of the entry's benches: equal benches, equal hashes
};

// One named benchmark suite of a history (a key of "entries"), oldest entry first.
struct ImportedSuite {
    std::string name;
    std::vector<ImportedRun> runs;
};

// A whole history as github-action-benchmark keeps it on its gh-pages branch.
struct ImportedHistory {
    std::string repository_url;         // "repoUrl", empty when absent
    std::vector<ImportedSuite> suites;  // in the file's order
};

// Reads github-action-benchmark's `data.js` (`window.BENCHMARK_DATA = {…}`) or the same object
// as plain JSON. Throws InputError naming the file, line and column for anything malformed.
ImportedHistory read_github_action_benchmark_history(const std::filesystem::path& path);

}  // namespace benchwatch::ingest
