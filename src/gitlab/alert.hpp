#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "forge/alert.hpp"
#include "gitlab/client.hpp"
#include "gitlab/merge_request.hpp"

namespace benchwatch::gitlab {

// The alert issues of `project` in the GitLab project `where` (its project_id and name): every
// issue labelled `label`, opened or closed (every page), whose description starts with an alert
// marker for the project and whose author is the token's user (GET /user, asked once, only when
// an issue is marked). Marked issues by anyone else are left out, so a marker pasted by someone
// else is never acted on. Throws GitLabError when refused.
std::vector<forge::AlertIssue> list_alert_issues(Client& client, const MergeRequest& where,
                                                 const std::string& label,
                                                 std::string_view project);

// The calls that carry out an alert plan in `where`: POST /projects/:id/issues with the title,
// description and `label`; PUT /projects/:id/issues/:iid with the description, or with
// state_event "close"; POST /projects/:id/issues/:iid/notes.
forge::AlertCalls alert_calls(Client& client, const MergeRequest& where, const std::string& label);

}  // namespace benchwatch::gitlab
