#include "gitlab/merge_request.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "forge/http.hpp"
#include "gitlab/client.hpp"

namespace benchwatch::gitlab {

namespace {

bool unreserved(char character) {
    return std::isalnum(static_cast<unsigned char>(character)) != 0 || character == '-' ||
           character == '.' || character == '_' || character == '~';
}

std::int64_t merge_request_iid(const MergeRequestSources& sources) {
    if (sources.iid_flag) {
        if (*sources.iid_flag > 0) return *sources.iid_flag;
        throw GitLabError(fmt::format(
            "--merge-request {} is not a merge request IID; give the number after the ! in the "
            "merge request's title",
            *sources.iid_flag));
    }
    if (!sources.iid_env)
        throw GitLabError(
            "no merge request: CI_MERGE_REQUEST_IID is unset, so this is not a merge request "
            "pipeline; run the job with `rules: - if: $CI_PIPELINE_SOURCE == "
            "\"merge_request_event\"` or pass --merge-request IID");
    const auto iid = forge::parse_integer(*sources.iid_env);
    if (!iid || *iid <= 0)
        throw GitLabError(fmt::format(
            "CI_MERGE_REQUEST_IID \"{}\" is not a merge request IID; pass --merge-request IID",
            *sources.iid_env));
    return *iid;
}

}  // namespace

std::string project_api_id(std::string_view project) {
    std::string encoded;
    for (const char character : project) {
        if (unreserved(character))
            encoded += character;
        else
            encoded += fmt::format("%{:02X}", static_cast<unsigned char>(character));
    }
    return encoded;
}

MergeRequest resolve_project(const MergeRequestSources& sources) {
    MergeRequest merge_request;
    if (sources.project_flag) {
        merge_request.project = *sources.project_flag;
        merge_request.project_id = project_api_id(*sources.project_flag);
    } else if (sources.project_id_env || sources.project_path_env) {
        merge_request.project_id = project_api_id(
            sources.project_id_env ? *sources.project_id_env : *sources.project_path_env);
        merge_request.project =
            sources.project_path_env ? *sources.project_path_env : *sources.project_id_env;
    } else {
        throw GitLabError(
            "no GitLab project: CI_PROJECT_ID and CI_PROJECT_PATH are unset (not a GitLab CI "
            "job); pass --gitlab-project ID_OR_PATH");
    }
    return merge_request;
}

MergeRequest resolve_merge_request(const MergeRequestSources& sources) {
    auto merge_request = resolve_project(sources);
    merge_request.iid = merge_request_iid(sources);
    return merge_request;
}

std::optional<model::Acceptance> acceptance_by_label(Client& client,
                                                     const MergeRequest& merge_request,
                                                     const std::string& label) {
    if (label.empty()) return std::nullopt;
    const auto subject =
        fmt::format("merge request !{} of {}", merge_request.iid, merge_request.project);
    const auto path =
        fmt::format("/projects/{}/merge_requests/{}", merge_request.project_id, merge_request.iid);
    const auto answer = client.send({"GET", path, std::nullopt, subject});
    const auto labels = answer.is_object() ? answer.find("labels") : answer.end();
    if (labels == answer.end() || !labels->is_array() ||
        std::find(labels->begin(), labels->end(), nlohmann::json(label)) == labels->end())
        return std::nullopt;
    model::Acceptance acceptance{label, ""};
    const auto events = client.get_all_pages({"GET", path + "/resource_label_events?per_page=100",
                                              std::nullopt, "the label events of " + subject});
    // Oldest first: the last "add" of the label is the one that holds now.
    const nlohmann::json::json_pointer name("/label/name");
    const nlohmann::json::json_pointer username("/user/username");
    for (const auto& event : events)
        if (event.is_object() && event.value("action", "") == "add" && event.contains(name) &&
            event[name] == label && event.contains(username) && event[username].is_string())
            acceptance.by = event[username].get<std::string>();
    return acceptance;
}

}  // namespace benchwatch::gitlab
