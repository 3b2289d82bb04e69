#include "github/pull_request.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "github/client.hpp"

namespace benchwatch::github {

namespace {

// The string at `pointer` in `json`, or nullopt when it is missing or not a string.
std::optional<std::string> string_at(const nlohmann::json& json, const char* pointer) {
    const nlohmann::json::json_pointer where(pointer);
    if (!json.contains(where) || !json[where].is_string()) return std::nullopt;
    return json[where].get<std::string>();
}

std::optional<std::int64_t> integer_at(const nlohmann::json& json, const char* pointer) {
    const nlohmann::json::json_pointer where(pointer);
    if (!json.contains(where) || !json[where].is_number_integer()) return std::nullopt;
    return json[where].get<std::int64_t>();
}

// The pull request number at `pointer`: a JSON integer or a string of decimal digits (a
// repository_dispatch payload is whatever its sender wrote); nullopt otherwise.
std::optional<std::int64_t> number_at(const nlohmann::json& json, const char* pointer) {
    if (auto number = integer_at(json, pointer)) return number;
    const auto text = string_at(json, pointer);
    if (!text || text->empty() || text->size() > 18 ||
        text->find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    return std::stoll(*text);
}

bool valid_repository(const std::string& repository) {
    const auto slash = repository.find('/');
    return slash != std::string::npos && slash > 0 && slash + 1 < repository.size() &&
           repository.find('/', slash + 1) == std::string::npos &&
           repository.find_first_of(" ?#%") == std::string::npos;
}

}  // namespace

EventFacts read_event(const std::filesystem::path& path, std::string_view origin) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    if (!file)
        throw GitHubError(fmt::format("cannot read the event file {} ({}); check that it exists",
                                      path.string(), origin));
    const auto event = nlohmann::json::parse(text.str(), nullptr, false);
    if (!event.is_object())
        throw GitHubError(
            fmt::format("the event file {} ({}) is not a JSON object; give GitHub's event "
                        "file or pass --repository and --pull-request",
                        path.string(), origin));
    EventFacts facts;
    facts.repository = string_at(event, "/repository/full_name");
    if (event.contains("pull_request")) {
        facts.kind = "pull_request";
        facts.number = integer_at(event, "/pull_request/number");
        facts.head_sha = string_at(event, "/pull_request/head/sha");
        facts.base_sha = string_at(event, "/pull_request/base/sha");
    } else if (event.contains("client_payload")) {
        facts.kind = "repository_dispatch";
        facts.number = number_at(event, "/client_payload/pull_request");
        facts.head_sha = string_at(event, "/client_payload/commit");
    } else if (event.contains("workflow_run")) {
        facts.kind = "workflow_run";
        facts.number = integer_at(event, "/workflow_run/pull_requests/0/number");
        facts.head_sha = string_at(event, "/workflow_run/head_sha");
        facts.base_sha = string_at(event, "/workflow_run/pull_requests/0/base/sha");
    } else {
        facts.kind = "other";
    }
    return facts;
}

PullRequest resolve_pull_request(const PullRequestSources& sources) {
    const auto facts = sources.event_path ? read_event(*sources.event_path) : EventFacts{};
    PullRequest pull_request;
    if (sources.repository_flag)
        pull_request.repository = *sources.repository_flag;
    else if (facts.repository)
        pull_request.repository = *facts.repository;
    else if (sources.repository_env)
        pull_request.repository = *sources.repository_env;
    else
        throw GitHubError(
            "no repository: GITHUB_REPOSITORY is unset and there is no event "
            "file (GITHUB_EVENT_PATH); pass --repository OWNER/NAME");
    if (!valid_repository(pull_request.repository))
        throw GitHubError(
            fmt::format("\"{}\" is not a repository name; pass --repository "
                        "OWNER/NAME",
                        pull_request.repository));

    if (sources.number_flag) {
        pull_request.number = *sources.number_flag;
    } else if (facts.number) {
        pull_request.number = *facts.number;
    } else if (!sources.event_path) {
        throw GitHubError(
            "no pull request: there is no event file (GITHUB_EVENT_PATH); pass "
            "--pull-request N");
    } else if (facts.kind == "repository_dispatch") {
        throw GitHubError(fmt::format(
            "no pull request: the repository_dispatch event in {} has no client_payload."
            "pull_request number; send the pull request's number in the dispatch's "
            "client_payload (docs/buildkite.md), or pass --pull-request N",
            *sources.event_path));
    } else if (facts.kind == "workflow_run") {
        throw GitHubError(fmt::format(
            "no pull request: the workflow_run event in {} lists none (GitHub leaves the list "
            "empty for pull requests from forks); pass --pull-request N, e.g. from the event "
            "file the pull_request workflow uploaded",
            *sources.event_path));
    } else {
        throw GitHubError(
            fmt::format("no pull request: the event in {} is not a pull_request "
                        "event; run on pull_request or pass --pull-request N",
                        *sources.event_path));
    }
    if (pull_request.number <= 0)
        throw GitHubError(
            fmt::format("pull request number {} is not positive; pass "
                        "--pull-request N",
                        pull_request.number));

    // The event's head belongs to its own pull request; another --pull-request needs --head.
    const bool event_is_for_this_pull_request =
        !sources.number_flag || !facts.number || facts.number == sources.number_flag;
    if (sources.head_flag)
        pull_request.head_sha = *sources.head_flag;
    else if (facts.head_sha && event_is_for_this_pull_request)
        pull_request.head_sha = *facts.head_sha;
    if (facts.base_sha && event_is_for_this_pull_request) pull_request.base_sha = *facts.base_sha;
    return pull_request;
}

void check_artifact_event(const EventFacts& artifact, const std::optional<EventFacts>& trusted,
                          std::string_view artifact_path) {
    if (artifact.kind != "pull_request" || !artifact.number || !artifact.head_sha)
        throw GitHubError(
            fmt::format("{} (--event) is not a pull_request event with a number and a head; save "
                        "$GITHUB_EVENT_PATH of the pull_request workflow into the artifact",
                        artifact_path));
    if (!trusted) return;
    if (trusted->repository && artifact.repository != trusted->repository)
        throw GitHubError(fmt::format(
            "{} (--event) is an event of {}, but this workflow runs in {}; not posting",
            artifact_path, artifact.repository.value_or("no repository"), *trusted->repository));
    if (!trusted->head_sha || *trusted->head_sha != *artifact.head_sha)
        throw GitHubError(fmt::format(
            "{} (--event) is for head {}, but the workflow run that triggered this one ran on "
            "{}; not posting: download the artifact of that run (run-id: "
            "github.event.workflow_run.id)",
            artifact_path, *artifact.head_sha, trusted->head_sha.value_or("no commit")));
}

PullRequestNow fetch_pull_request(Client& client, const PullRequest& pull_request) {
    const auto subject =
        fmt::format("pull request #{} of {}", pull_request.number, pull_request.repository);
    const auto answer = client.send(
        {"GET", fmt::format("/repos/{}/pulls/{}", pull_request.repository, pull_request.number),
         std::nullopt, subject, "pull-requests: read"});
    const nlohmann::json::json_pointer head_sha("/head/sha");
    if (!answer.contains(head_sha) || !answer[head_sha].is_string())
        throw GitHubError(fmt::format("GitHub's answer about {} has no head.sha", subject));
    PullRequestNow now;
    now.head_sha = answer[head_sha].get<std::string>();
    if (const auto labels = answer.find("labels"); labels != answer.end() && labels->is_array())
        for (const auto& label : *labels)
            if (label.is_object() && label.contains("name") && label["name"].is_string())
                now.labels.push_back(label["name"].get<std::string>());
    return now;
}

std::string current_head(Client& client, const PullRequest& pull_request) {
    return fetch_pull_request(client, pull_request).head_sha;
}

std::optional<model::Acceptance> acceptance_by_label(Client& client,
                                                     const PullRequest& pull_request,
                                                     const std::vector<std::string>& labels,
                                                     const std::string& label) {
    if (label.empty() || std::find(labels.begin(), labels.end(), label) == labels.end())
        return std::nullopt;
    model::Acceptance acceptance{label, ""};
    const auto events =
        client.get_all_pages({"GET",
                              fmt::format("/repos/{}/issues/{}/events?per_page=100",
                                          pull_request.repository, pull_request.number),
                              std::nullopt,
                              fmt::format("the events of pull request #{} of {}",
                                          pull_request.number, pull_request.repository),
                              "issues: read"});
    // Oldest first: the last "labeled" event of the label is the one that holds now.
    for (const auto& event : events) {
        if (!event.is_object() || event.value("event", "") != "labeled") continue;
        const nlohmann::json::json_pointer name("/label/name");
        const nlohmann::json::json_pointer login("/actor/login");
        if (!event.contains(name) || event[name] != label) continue;
        if (event.contains(login) && event[login].is_string())
            acceptance.by = event[login].get<std::string>();
    }
    return acceptance;
}

}  // namespace benchwatch::github
