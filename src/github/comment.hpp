#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "forge/sticky.hpp"
#include "github/client.hpp"
#include "github/pull_request.hpp"

namespace benchwatch::github {

// GitHub's limit on a comment's body. benchwatch counts bytes of UTF-8, never fewer than
// GitHub's characters.
inline constexpr std::size_t comment_limit = 65536;

// The hidden marker line of benchwatch's comment, shared with GitLab's notes.
using forge::comment_marker;
using forge::is_sticky_comment;

// How many bytes of report fit in a comment after `project`'s marker line.
std::size_t report_allowance(std::string_view project);

// The comment body: the marker line, then `report`, cut after a whole line with a note when it
// is longer than report_allowance() (see forge::sticky_comment_body()).
std::string sticky_comment_body(std::string_view project, std::string_view report);

// What posting the sticky comment did.
struct StickyCommentOutcome {
    std::int64_t comment_id = 0;
    bool created = false;  // false: an existing comment was edited
    int deleted = 0;       // older duplicates removed
    std::string url;       // the comment's html_url
};

// Posts `body` (from sticky_comment_body()) as the pull request's comment for `project`: lists
// the comments (every page), edits the newest marked one benchwatch wrote in place and deletes
// the older ones it wrote, or creates one when there is none. benchwatch wrote a marked comment
// when its author is a bot (user.type "Bot") or the token's own user (GET /user, asked only when
// a person's comment is marked; a 403, as installation tokens get, leaves only bots). Comments
// without the project's marker, and marked comments by anyone else, are never touched. Throws
// GitHubError when GitHub refuses.
StickyCommentOutcome post_sticky_comment(Client& client, const PullRequest& pull_request,
                                         std::string_view project, const std::string& body);

}  // namespace benchwatch::github
