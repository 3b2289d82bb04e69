#include "github/comment.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <vector>

namespace benchwatch::github {

namespace {

bool needs_escape(char character, char previous) {
    const auto byte = static_cast<unsigned char>(character);
    return byte < 0x21 || byte == 0x7f || character == '%' || character == '<' ||
           character == '>' || character == '!' || (character == '-' && previous == '-');
}

std::string cut_note(std::size_t kept, std::size_t whole) {
    return fmt::format(
        "\n_benchwatch cut this report after {} of its {} bytes to fit GitHub's comment limit; "
        "the job's step summary (`benchwatch github summary`) and `benchwatch compare` show all "
        "of it._\n",
        kept, whole);
}

std::string comments_path(const PullRequest& pull_request) {
    return fmt::format("/repos/{}/issues/{}/comments", pull_request.repository,
                       pull_request.number);
}

std::string comment_path(const PullRequest& pull_request, std::int64_t id) {
    return fmt::format("/repos/{}/issues/comments/{}", pull_request.repository, id);
}

}  // namespace

std::string comment_marker(std::string_view project) {
    std::string marker = "<!-- benchwatch:";
    char previous = ':';
    for (const char character : project) {
        if (needs_escape(character, previous))
            marker += fmt::format("%{:02X}", static_cast<unsigned char>(character));
        else
            marker += character;
        previous = character;
    }
    return marker + " -->";
}

bool is_sticky_comment(std::string_view body, std::string_view project) {
    const auto marker = comment_marker(project);
    if (!body.starts_with(marker)) return false;
    body.remove_prefix(marker.size());
    return body.empty() || body.starts_with('\n') || body.starts_with("\r\n");
}

std::size_t report_allowance(std::string_view project) {
    return comment_limit - comment_marker(project).size() - 1;
}

std::string sticky_comment_body(std::string_view project, std::string_view report) {
    auto body = comment_marker(project) + "\n";
    const auto allowance = report_allowance(project);
    if (report.size() <= allowance) return body.append(report);
    // The note's numbers have at most as many digits as the report's size.
    const auto note_size = cut_note(report.size(), report.size()).size();
    assert(allowance > note_size);
    const auto last_newline = report.rfind('\n', allowance - note_size - 1);
    const auto kept = last_newline == std::string_view::npos ? 0 : last_newline + 1;
    return body.append(report.substr(0, kept)).append(cut_note(kept, report.size()));
}

StickyCommentOutcome post_sticky_comment(Client& client, const PullRequest& pull_request,
                                         std::string_view project, const std::string& body) {
    const auto subject =
        fmt::format("pull request #{} of {}", pull_request.number, pull_request.repository);
    constexpr const char* permission = "pull-requests: write";
    const auto listed = client.get_all_pages(
        {"GET", comments_path(pull_request) + "?per_page=100", std::nullopt, subject, permission});
    std::vector<std::int64_t> marked;
    for (const auto& comment : listed)
        if (comment.contains("id") && comment["id"].is_number_integer() &&
            comment.contains("body") && comment["body"].is_string() &&
            is_sticky_comment(comment["body"].get<std::string>(), project))
            marked.push_back(comment["id"].get<std::int64_t>());
    std::sort(marked.begin(), marked.end());

    StickyCommentOutcome outcome;
    const nlohmann::json payload = {{"body", body}};
    nlohmann::json answer;
    if (marked.empty()) {
        answer = client.send({"POST", comments_path(pull_request), payload, subject, permission});
        outcome.created = true;
    } else {
        // GitHub's comment ids grow with time: the largest is the newest.
        answer = client.send({"PATCH", comment_path(pull_request, marked.back()), payload,
                              fmt::format("comment {} of {}", marked.back(), subject), permission});
        marked.pop_back();
        for (const auto id : marked) {
            client.send({"DELETE", comment_path(pull_request, id), std::nullopt,
                         fmt::format("comment {} of {}", id, subject), permission});
            ++outcome.deleted;
        }
    }
    if (answer.is_object() && answer.contains("id") && answer["id"].is_number_integer())
        outcome.comment_id = answer["id"].get<std::int64_t>();
    if (answer.is_object() && answer.contains("html_url") && answer["html_url"].is_string())
        outcome.url = answer["html_url"].get<std::string>();
    return outcome;
}

}  // namespace benchwatch::github
