#include "github/comment.hpp"

#include <fmt/format.h>

namespace benchwatch::github {

namespace {

constexpr forge::CommentLimit github_limit{
    comment_limit, "GitHub's comment limit",
    "the job's step summary (`benchwatch github summary`) and `benchwatch compare` show all of "
    "it"};

std::string comments_path(const PullRequest& pull_request) {
    return fmt::format("/repos/{}/issues/{}/comments", pull_request.repository,
                       pull_request.number);
}

std::string comment_path(const PullRequest& pull_request, std::int64_t id) {
    return fmt::format("/repos/{}/issues/comments/{}", pull_request.repository, id);
}

}  // namespace

std::size_t report_allowance(std::string_view project) {
    return forge::report_allowance(project, github_limit);
}

std::string sticky_comment_body(std::string_view project, std::string_view report) {
    return forge::sticky_comment_body(project, report, github_limit);
}

StickyCommentOutcome post_sticky_comment(Client& client, const PullRequest& pull_request,
                                         std::string_view project, const std::string& body) {
    const auto subject =
        fmt::format("pull request #{} of {}", pull_request.number, pull_request.repository);
    constexpr const char* permission = "pull-requests: write";
    const auto plan = forge::plan_sticky_comment(
        client.get_all_pages({"GET", comments_path(pull_request) + "?per_page=100", std::nullopt,
                              subject, permission}),
        project);

    StickyCommentOutcome outcome;
    const nlohmann::json payload = {{"body", body}};
    nlohmann::json answer;
    if (!plan.edit) {
        answer = client.send({"POST", comments_path(pull_request), payload, subject, permission});
        outcome.created = true;
    } else {
        answer = client.send({"PATCH", comment_path(pull_request, *plan.edit), payload,
                              fmt::format("comment {} of {}", *plan.edit, subject), permission});
    }
    for (const auto id : plan.remove) {
        client.send({"DELETE", comment_path(pull_request, id), std::nullopt,
                     fmt::format("comment {} of {}", id, subject), permission});
        ++outcome.deleted;
    }
    if (answer.is_object() && answer.contains("id") && answer["id"].is_number_integer())
        outcome.comment_id = answer["id"].get<std::int64_t>();
    if (answer.is_object() && answer.contains("html_url") && answer["html_url"].is_string())
        outcome.url = answer["html_url"].get<std::string>();
    return outcome;
}

}  // namespace benchwatch::github
