#include "gitlab/note.hpp"

#include <fmt/format.h>

namespace benchwatch::gitlab {

namespace {

constexpr forge::CommentLimit gitlab_limit{note_limit, "GitLab's note limit",
                                           "`benchwatch compare` shows all of it"};

std::string notes_path(const MergeRequest& merge_request) {
    return fmt::format("/projects/{}/merge_requests/{}/notes", merge_request.project_id,
                       merge_request.iid);
}

std::string note_path(const MergeRequest& merge_request, std::int64_t id) {
    return fmt::format("{}/{}", notes_path(merge_request), id);
}

}  // namespace

std::size_t report_allowance(std::string_view project) {
    return forge::report_allowance(project, gitlab_limit);
}

std::string sticky_note_body(std::string_view project, std::string_view report) {
    return forge::sticky_comment_body(project, report, gitlab_limit);
}

StickyNoteOutcome post_sticky_note(Client& client, const MergeRequest& merge_request,
                                   std::string_view project, const std::string& body) {
    const auto subject =
        fmt::format("merge request !{} of {}", merge_request.iid, merge_request.project);
    const auto note_subject = [&](std::int64_t id) {
        return fmt::format("note {} of {}", id, subject);
    };
    // Written by benchwatch: by the token's own user (GET /user, asked once, only when a marked
    // note is listed). GitLab's notes carry no bot flag; project and group access tokens post as
    // their own bot user, which GET /user names.
    std::optional<nlohmann::json> identity;
    const auto ours = [&](const nlohmann::json& item) {
        if (!identity) identity = client.send({"GET", "/user", std::nullopt, "the token's user"});
        return forge::same_user(item.contains("author") ? item["author"] : nlohmann::json(),
                                *identity, "username");
    };
    const auto posted = forge::post_sticky_comment(
        {[&] {
             return client.get_all_pages({"GET",
                                          notes_path(merge_request) + "?per_page=100&sort=asc",
                                          std::nullopt, subject});
         },
         [&](const nlohmann::json& payload) {
             return client.send({"POST", notes_path(merge_request), payload, subject});
         },
         [&](std::int64_t id, const nlohmann::json& payload) {
             return client.send({"PUT", note_path(merge_request, id), payload, note_subject(id)});
         },
         [&](std::int64_t id) {
             client.send({"DELETE", note_path(merge_request, id), std::nullopt, note_subject(id)});
         },
         ours},
        project, body);
    return {posted.id, posted.created, posted.deleted};
}

}  // namespace benchwatch::gitlab
