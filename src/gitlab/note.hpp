#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "forge/sticky.hpp"
#include "gitlab/client.hpp"
#include "gitlab/merge_request.hpp"

namespace benchwatch::gitlab {

// GitLab's limit on a note's body: 1,000,000 characters. benchwatch counts bytes of UTF-8,
// never fewer than GitLab's characters.
inline constexpr std::size_t note_limit = 1000000;

// How many bytes of report fit in a note after `project`'s marker line.
std::size_t report_allowance(std::string_view project);

// The note's body: the marker line (forge::comment_marker()), then `report`, cut after a whole
// line with a note when it is longer than report_allowance().
std::string sticky_note_body(std::string_view project, std::string_view report);

// What posting the sticky note did.
struct StickyNoteOutcome {
    std::int64_t note_id = 0;
    bool created = false;  // false: an existing note was edited
    int deleted = 0;       // older duplicates removed
};

// Posts `body` (from sticky_note_body()) as the merge request's note for `project`: lists the
// notes (every page), edits the newest marked one the token's user wrote (GET /user, asked only
// when a note is marked) in place and deletes the older ones it wrote, or creates one when there
// is none. System notes, notes without the project's marker and marked notes by anyone else are
// never touched. Throws GitLabError when GitLab refuses.
StickyNoteOutcome post_sticky_note(Client& client, const MergeRequest& merge_request,
                                   std::string_view project, const std::string& body);

}  // namespace benchwatch::gitlab
