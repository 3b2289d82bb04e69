// What could break: the sticky note duplicated instead of edited, another user's (one carrying
// the marker included), another project's or a system note touched, the token's own notes not
// recognised, or a report over GitLab's 1,000,000-character limit refused instead of cut.
#include "gitlab/note.hpp"

#include <gtest/gtest.h>

#include "support/fake_gitlab.hpp"

namespace benchwatch::gitlab {
namespace {

using testing::FakeGitLab;
using namespace std::chrono_literals;

class StickyNoteTest : public ::testing::Test {
  protected:
    StickyNoteTest() {
        gitlab_.add_merge_request("group/app", 7);
        forge::RetryPolicy policy;
        policy.sleep = [](std::chrono::milliseconds) {};
        client_ = std::make_unique<Client>(
            ClientOptions{gitlab_.url(), FakeGitLab::token, "GITLAB_TOKEN", policy});
    }

    StickyNoteOutcome post(const std::string& report) {
        return post_sticky_note(*client_, merge_request_, "p", sticky_note_body("p", report));
    }

    std::vector<std::string> calls() const {
        std::vector<std::string> made;
        for (const auto& request : gitlab_.requests())
            made.push_back(request.method + " " + request.target);
        return made;
    }

    FakeGitLab gitlab_;
    std::unique_ptr<Client> client_;
    const MergeRequest merge_request_{"group%2Fapp", "group/app", 7};
};

TEST_F(StickyNoteTest, CreatesThenEditsTheSameNote) {
    const auto created = post("first\n");
    EXPECT_TRUE(created.created);
    EXPECT_EQ(created.note_id, 501);
    const auto edited = post("second\n");
    EXPECT_FALSE(edited.created);
    EXPECT_EQ(edited.note_id, 501);
    const auto notes = gitlab_.notes("group/app", 7);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0].body, "<!-- benchwatch:p -->\nsecond\n");
    EXPECT_EQ(calls(),
              (std::vector<std::string>{
                  "GET /api/v4/projects/group%2Fapp/merge_requests/7/notes?per_page=100&sort=asc",
                  "POST /api/v4/projects/group%2Fapp/merge_requests/7/notes",
                  "GET /api/v4/projects/group%2Fapp/merge_requests/7/notes?per_page=100&sort=asc",
                  "GET /api/v4/user",
                  "PUT /api/v4/projects/group%2Fapp/merge_requests/7/notes/501",
              }));
}

TEST_F(StickyNoteTest, KeepsTheNewestMarkedNoteAndTouchesNothingElse) {
    const std::string bot = FakeGitLab::token_user;
    const auto person = gitlab_.add_note("group/app", 7, "alice", "looks good");
    const auto older = gitlab_.add_note("group/app", 7, bot, "<!-- benchwatch:p -->\nold");
    const auto system = gitlab_.add_note("group/app", 7, "alice",
                                         "<!-- benchwatch:p -->\nmentioned in commit", true);
    const auto other = gitlab_.add_note("group/app", 7, bot, "<!-- benchwatch:q -->\nq's");
    const auto newer = gitlab_.add_note("group/app", 7, bot, "<!-- benchwatch:p -->\nnew");
    const auto outcome = post("latest\n");
    EXPECT_EQ(outcome.note_id, newer);
    EXPECT_EQ(outcome.deleted, 1);
    const auto notes = gitlab_.notes("group/app", 7);
    ASSERT_EQ(notes.size(), 4u);
    EXPECT_EQ(notes[0].id, person);
    EXPECT_EQ(notes[0].body, "looks good");
    EXPECT_EQ(notes[1].id, system);
    EXPECT_EQ(notes[2].id, other);
    EXPECT_EQ(notes[2].body, "<!-- benchwatch:q -->\nq's");
    EXPECT_EQ(notes[3].body, "<!-- benchwatch:p -->\nlatest\n");
    EXPECT_EQ(calls().back(), "DELETE /api/v4/projects/group%2Fapp/merge_requests/7/notes/" +
                                  std::to_string(older));
}

TEST_F(StickyNoteTest, AnotherUsersMarkedNoteIsNeverEditedOrDeleted) {
    const auto ours =
        gitlab_.add_note("group/app", 7, FakeGitLab::token_user, "<!-- benchwatch:p -->\nold");
    const auto theirs =
        gitlab_.add_note("group/app", 7, "mallory", "<!-- benchwatch:p -->\nI wrote this");
    const auto outcome = post("latest\n");
    EXPECT_FALSE(outcome.created);
    EXPECT_EQ(outcome.note_id, ours);
    EXPECT_EQ(outcome.deleted, 0);
    const auto notes = gitlab_.notes("group/app", 7);
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_EQ(notes[0].body, "<!-- benchwatch:p -->\nlatest\n");
    EXPECT_EQ(notes[1].id, theirs);
    EXPECT_EQ(notes[1].body, "<!-- benchwatch:p -->\nI wrote this");
}

TEST_F(StickyNoteTest, OnlyAnotherUsersMarkedNoteMeansANewNote) {
    const auto theirs = gitlab_.add_note("group/app", 7, "mallory", "<!-- benchwatch:p -->\nmine");
    EXPECT_TRUE(post("latest\n").created);
    const auto notes = gitlab_.notes("group/app", 7);
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_EQ(notes[0].id, theirs);
    EXPECT_EQ(notes[0].body, "<!-- benchwatch:p -->\nmine");
    EXPECT_EQ(notes[1].author, FakeGitLab::token_user);
}

TEST_F(StickyNoteTest, AReportOverTheLimitIsCutAndAccepted) {
    // 12,000 lines of 99 characters and a newline: 1,200,000 bytes.
    std::string report;
    for (int i = 0; i < 12000; ++i) report += std::string(99, 'a' + i % 26) + "\n";
    const auto body = sticky_note_body("p", report);
    EXPECT_LE(body.size(), note_limit);
    EXPECT_TRUE(
        body.ends_with(" of its 1200000 bytes to fit GitLab's note limit; `benchwatch "
                       "compare` shows all of it._\n"));
    EXPECT_TRUE(post(report).created);
    EXPECT_EQ(gitlab_.notes("group/app", 7).at(0).body, body);
}

TEST_F(StickyNoteTest, AnUnknownMergeRequestIsNamed) {
    const MergeRequest missing{"group%2Fapp", "group/app", 8};
    try {
        post_sticky_note(*client_, missing, "p", "x");
        FAIL() << "expected GitLabError";
    } catch (const GitLabError& error) {
        EXPECT_STREQ(error.what(),
                     "GitLab cannot find merge request !8 of group/app (404 Not Found on GET "
                     "/projects/group%2Fapp/merge_requests/8/notes): check the project and merge "
                     "request IID, and that the token can see the project");
    }
}

}  // namespace
}  // namespace benchwatch::gitlab
