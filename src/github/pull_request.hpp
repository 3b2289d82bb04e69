#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/comparison.hpp"

namespace benchwatch::github {

// What a GitHub Actions event file (GITHUB_EVENT_PATH) says about its pull request. Fields the
// event does not carry are nullopt.
struct EventFacts {
    std::optional<std::string> repository;  // "owner/name"
    std::optional<std::int64_t> number;
    std::optional<std::string> head_sha;
    std::optional<std::string> base_sha;
    std::string kind;  // "pull_request", "workflow_run", "repository_dispatch" or "other"
};

// Reads `pull_request` events (pull_request.number, .head.sha, .base.sha, repository.full_name),
// `workflow_run` events (workflow_run.pull_requests[0], else only workflow_run.head_sha) and
// `repository_dispatch` events (client_payload.pull_request, a number or a string of digits, and
// client_payload.commit as the head).
// Throws GitHubError naming the file and `origin` (where its path came from) when it cannot be
// read or is not JSON.
EventFacts read_event(const std::filesystem::path& path,
                      std::string_view origin = "GITHUB_EVENT_PATH");

// The pull request a command acts on.
struct PullRequest {
    std::string repository;  // "owner/name"
    std::int64_t number = 0;
    std::string head_sha;  // empty when neither flag nor event gives it
    std::string base_sha;  // empty when the event does not give it
};

// What flags and environment give, each nullopt when absent.
struct PullRequestSources {
    std::optional<std::string> repository_flag;  // --repository
    std::optional<std::int64_t> number_flag;     // --pull-request
    std::optional<std::string> head_flag;        // --head
    std::optional<std::string> event_path;       // GITHUB_EVENT_PATH
    std::optional<std::string> repository_env;   // GITHUB_REPOSITORY
};

// Flags first, then the event, then GITHUB_REPOSITORY. Throws GitHubError saying which of
// repository and number is missing, why (e.g. a workflow_run event of a fork's pull request
// lists none) and the flag that gives it; and when --repository is not "owner/name".
PullRequest resolve_pull_request(const PullRequestSources& sources);

class Client;

// Checks an event file that a pull request's own workflow saved and a trusted `workflow_run`
// workflow downloaded (`--event`), before anything is posted for it. `artifact` is that file,
// `trusted` the workflow_run event GitHub gave the posting workflow (nullopt outside one). A
// fork's workflow writes the artifact and could name any pull request, so it must be a
// pull_request event with a number and head, of the trusted repository, and its head must be
// the commit the triggering run ran on (workflow_run.head_sha). Throws GitHubError naming the
// mismatch.
void check_artifact_event(const EventFacts& artifact, const std::optional<EventFacts>& trusted,
                          std::string_view artifact_path);

// The pull request as GitHub has it now.
struct PullRequestNow {
    std::string head_sha;
    std::vector<std::string> labels;  // names
};

// The pull request's current head commit and labels (GET /repos/OWNER/NAME/pulls/N). Throws
// GitHubError when GitHub refuses or the answer has no head.sha.
PullRequestNow fetch_pull_request(Client& client, const PullRequest& pull_request);

// The pull request's current head commit: fetch_pull_request()'s.
std::string current_head(Client& client, const PullRequest& pull_request);

// The acceptance that `label` on the pull request gives, with the login that last added it
// (its issue events; empty when they do not say), or nullopt when `label` is empty or not in
// `labels`.
std::optional<model::Acceptance> acceptance_by_label(Client& client,
                                                     const PullRequest& pull_request,
                                                     const std::vector<std::string>& labels,
                                                     const std::string& label);

}  // namespace benchwatch::github
