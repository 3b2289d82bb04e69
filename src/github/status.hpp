#pragma once

#include <string>

#include "github/client.hpp"
#include "model/comparison.hpp"

namespace benchwatch::github {

// A commit status as GitHub shows it beside the pull request's checks.
struct CommitStatus {
    std::string state;        // "success" or "failure"
    std::string description;  // at most 140 bytes
    std::string context;      // "benchwatch/PROJECT"
    std::string target_url;   // empty: none
};

// The status of a comparison: "failure" when `fail_on_regression` and a benchmark is unusually
// slower, else "success"; description "2 slower, 1 faster of 79 benchmarks", with the too noisy
// and inconclusive ones counted when there are any ("0 slower, 0 faster, 9 too noisy,
// 3 inconclusive of 12 benchmarks") and, when its flags were re-measured, "; re-measured: 1
// confirmed, 2 dismissed, 0 undecided" (the verdicts are then the settled ones, so a dismissed
// slowdown does not fail), or "no baseline run to compare 79 benchmarks with"; an accepted
// comparison succeeds and its description starts "accepted by label NAME (by login): ";
// context "benchwatch/" + project.
CommitStatus comparison_status(const model::Comparison& comparison, bool fail_on_regression);

// Sets `status` on commit `sha` of `repository` ("owner/name"). Throws GitHubError when GitHub
// refuses (403 says the workflow needs `statuses: write`).
void set_commit_status(Client& client, const std::string& repository, const std::string& sha,
                       const CommitStatus& status);

}  // namespace benchwatch::github
