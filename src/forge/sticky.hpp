#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchwatch::forge {

// The hidden first line that marks benchwatch's comment for `project`: "<!-- benchwatch:perf -->".
// '%', '<', '>', '!', spaces and control characters in the project become %XX, and so does a '-'
// after a '-', so no project can end the HTML comment early.
std::string comment_marker(std::string_view project);

// Whether `body` is benchwatch's comment for `project`: its first line is the project's marker.
bool is_sticky_comment(std::string_view body, std::string_view project);

// A forge's limit on a comment's body, and the words of the note on a report cut to fit it.
struct CommentLimit {
    std::size_t bytes = 0;         // UTF-8 bytes, never fewer than the forge's characters
    std::string_view limit_name;   // "GitHub's comment limit"
    std::string_view full_report;  // "`benchwatch compare` shows all of it"
};

// How many bytes of report fit in a comment after `project`'s marker line.
std::size_t report_allowance(std::string_view project, const CommentLimit& limit);

// The comment body: the marker line, then `report`. A report longer than report_allowance() is
// cut after its last whole line that fits, followed by a note saying so (reports rendered by
// report::render_markdown_limited() never are).
std::string sticky_comment_body(std::string_view project, std::string_view report,
                                const CommentLimit& limit);

// What to do with the comments a listing found marked for the project.
struct StickyPlan {
    std::optional<std::int64_t> edit;  // the newest marked comment; nullopt: create one
    std::vector<std::int64_t> remove;  // older marked comments, oldest first
};

// Whether a listed comment is one benchwatch wrote, from its author; asked only of comments
// that carry the project's marker.
using WrittenByBenchwatch = std::function<bool(const nlohmann::json& item)>;

// Plans the sticky comment from a listing's items (JSON objects with an integer "id" and a
// string "body"): ids grow with time on both forges, so the largest marked id is kept. Items
// with "system": true (GitLab's notes of events), items without the marker and marked items
// `ours` does not claim (anyone may paste the marker) are left out, never edited or deleted.
StickyPlan plan_sticky_comment(const std::vector<nlohmann::json>& listed, std::string_view project,
                               const WrittenByBenchwatch& ours);

// Whether `author` (a comment's user, GitHub's "user" or GitLab's "author") is `identity` (the
// token's user from GET /user): the same integer "id" when both have one, else the same
// non-empty string under `name_key` ("login" on GitHub, "username" on GitLab).
bool same_user(const nlohmann::json& author, const nlohmann::json& identity,
               std::string_view name_key);

// The forge's calls that post a sticky comment; each throws the forge's error when refused.
struct StickyCalls {
    std::function<std::vector<nlohmann::json>()> list_all;  // every comment, all pages
    std::function<nlohmann::json(const nlohmann::json& payload)> create;
    std::function<nlohmann::json(std::int64_t id, const nlohmann::json& payload)> edit;
    std::function<void(std::int64_t id)> remove;
    WrittenByBenchwatch ours;  // may call the forge (GET /user), only when a marked comment exists
};

// What posting the sticky comment did.
struct StickyOutcome {
    std::int64_t id = 0;    // the comment created or edited; 0 when the answer has no id
    bool created = false;   // false: an existing comment was edited
    int deleted = 0;        // older duplicates removed
    nlohmann::json answer;  // the forge's answer to the creation or edit
};

// Posts `body` as the comment for `project`: lists the comments, edits the newest marked one
// benchwatch wrote (plan_sticky_comment()) with {"body": body} or creates one, then deletes the
// older ones it wrote.
StickyOutcome post_sticky_comment(const StickyCalls& calls, std::string_view project,
                                  const std::string& body);

}  // namespace benchwatch::forge
