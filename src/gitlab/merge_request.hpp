#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/comparison.hpp"

namespace benchwatch::gitlab {

// The merge request a command acts on.
struct MergeRequest {
    std::string project_id;  // the API's :id: "42", or a path percent-encoded, "group%2Fapp"
    std::string project;     // for messages: the path when known ("group/app"), else the id
    std::int64_t iid = 0;    // the merge request's number within the project (!7)
};

// What flags and GitLab CI's variables give, each nullopt when absent.
struct MergeRequestSources {
    std::optional<std::string> project_flag;      // --gitlab-project, an id or a path
    std::optional<std::int64_t> iid_flag;         // --merge-request
    std::optional<std::string> project_id_env;    // CI_PROJECT_ID
    std::optional<std::string> project_path_env;  // CI_PROJECT_PATH
    std::optional<std::string> iid_env;           // CI_MERGE_REQUEST_IID
};

// `project` as the API's :id: a number stays as it is, a path is percent-encoded.
std::string project_api_id(std::string_view project);

// The project alone (iid 0), from --gitlab-project, else CI_PROJECT_ID (else CI_PROJECT_PATH).
// Throws GitLabError naming the flag when none gives one.
MergeRequest resolve_project(const MergeRequestSources& sources);

// Flags first, then CI_PROJECT_ID (else CI_PROJECT_PATH) and CI_MERGE_REQUEST_IID. Throws
// GitLabError saying which of project and IID is missing, why, and the flag that gives it; and
// when an IID is not a positive whole number.
MergeRequest resolve_merge_request(const MergeRequestSources& sources);

class Client;

// The acceptance that `label` on the merge request gives as GitLab has its labels now (GET
// .../merge_requests/:iid), with the username that last added it (its resource label events;
// empty when they do not say), or nullopt when `label` is empty or not on the merge request.
// Throws GitLabError when GitLab refuses.
std::optional<model::Acceptance> acceptance_by_label(Client& client,
                                                     const MergeRequest& merge_request,
                                                     const std::string& label);

}  // namespace benchwatch::gitlab
