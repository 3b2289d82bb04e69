#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "forge/alert.hpp"
#include "github/client.hpp"

namespace benchwatch::github {

// The alert issues of `project` on `repository` ("o/r"): every issue labelled `label`, open or
// closed (every page), whose body starts with an alert marker for the project and whose author
// is a bot (user.type "Bot") or the token's own user (GET /user, asked only when a person's issue
// is marked). Pull requests, issues without the marker and marked issues by anyone else are left
// out, so a marker pasted by someone else is never acted on. Throws GitHubError when refused.
std::vector<forge::AlertIssue> list_alert_issues(Client& client, const std::string& repository,
                                                 const std::string& label,
                                                 std::string_view project);

// The calls that carry out an alert plan on `repository`: POST .../issues with the title, body
// and `label`; PATCH .../issues/N with the body, or with state "closed"; POST
// .../issues/N/comments. A refusal names the permission the workflow needs, `issues: write`.
forge::AlertCalls alert_calls(Client& client, const std::string& repository,
                              const std::string& label);

}  // namespace benchwatch::github
