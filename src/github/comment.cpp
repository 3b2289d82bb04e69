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
    const auto comment_subject = [&](std::int64_t id) {
        return fmt::format("comment {} of {}", id, subject);
    };
    const auto ours = written_by_us(client);
    const auto posted = forge::post_sticky_comment(
        {[&] {
             return client.get_all_pages({"GET", comments_path(pull_request) + "?per_page=100",
                                          std::nullopt, subject, permission});
         },
         [&](const nlohmann::json& payload) {
             return client.send(
                 {"POST", comments_path(pull_request), payload, subject, permission});
         },
         [&](std::int64_t id, const nlohmann::json& payload) {
             return client.send({"PATCH", comment_path(pull_request, id), payload,
                                 comment_subject(id), permission});
         },
         [&](std::int64_t id) {
             client.send({"DELETE", comment_path(pull_request, id), std::nullopt,
                          comment_subject(id), permission});
         },
         ours},
        project, body);
    StickyCommentOutcome outcome{posted.id, posted.created, posted.deleted, ""};
    if (posted.answer.is_object() && posted.answer.contains("html_url") &&
        posted.answer["html_url"].is_string())
        outcome.url = posted.answer["html_url"].get<std::string>();
    return outcome;
}

}  // namespace benchwatch::github
