// What could break: a project name ending the hidden marker early, another project's or another
// bot's comment being edited or deleted, a person's comment carrying the marker taken for
// benchwatch's (edited, or the bot's deleted for it), the token's own comments not recognised
// with a personal token, GET /user's 403 for the Actions token failing the post, duplicates
// surviving, or a long report exceeding GitHub's comment limit or being cut mid-line.
#include "github/comment.hpp"

#include <gtest/gtest.h>

#include "support/fake_github.hpp"

namespace benchwatch::github {
namespace {

using testing::FakeGitHub;
using namespace std::chrono_literals;

TEST(Marker, IsAnHtmlCommentNamingTheProject) {
    EXPECT_EQ(comment_marker("perf"), "<!-- benchwatch:perf -->");
    EXPECT_EQ(comment_marker("cuda/kernels-v2"), "<!-- benchwatch:cuda/kernels-v2 -->");
}

TEST(Marker, EscapesWhatCouldEndTheComment) {
    // '-' after '-' is %2D, '>' is %3E, ' ' is %20, '%' itself is %25.
    EXPECT_EQ(comment_marker("a-->b"), "<!-- benchwatch:a-%2D%3Eb -->");
    EXPECT_EQ(comment_marker("x y%"), "<!-- benchwatch:x%20y%25 -->");
    EXPECT_EQ(comment_marker("--!"), "<!-- benchwatch:-%2D%21 -->");
}

TEST(Marker, MatchesOnlyTheWholeFirstLine) {
    EXPECT_TRUE(is_sticky_comment("<!-- benchwatch:p -->\n## Benchmark results", "p"));
    EXPECT_TRUE(is_sticky_comment("<!-- benchwatch:p -->\r\nreport", "p"));
    EXPECT_TRUE(is_sticky_comment("<!-- benchwatch:p -->", "p"));
    EXPECT_FALSE(is_sticky_comment("<!-- benchwatch:p -->\n", "pq"));
    EXPECT_FALSE(is_sticky_comment("<!-- benchwatch:pq -->\n", "p"));
    EXPECT_FALSE(is_sticky_comment("> <!-- benchwatch:p -->\nquoted", "p"));
    EXPECT_FALSE(is_sticky_comment("<!-- benchwatch:p -->trailing", "p"));
}

TEST(Body, IsTheMarkerLineThenTheReport) {
    EXPECT_EQ(sticky_comment_body("p", "## Benchmark results\n"),
              "<!-- benchwatch:p -->\n## Benchmark results\n");
    // 65,536 − 21 bytes of marker − 1 newline.
    EXPECT_EQ(report_allowance("p"), 65514u);
}

TEST(Body, CutsALongReportAfterAWholeLineWithANote) {
    // 4,000 lines of 99 characters and a newline: 400,000 bytes.
    std::string report;
    for (int i = 0; i < 4000; ++i) report += std::string(99, 'a' + i % 26) + "\n";
    const auto body = sticky_comment_body("p", report);
    EXPECT_LE(body.size(), comment_limit);
    const auto note_start = body.find("\n_benchwatch cut this report after ");
    ASSERT_NE(note_start, std::string::npos);
    const auto kept = note_start - comment_marker("p").size() - 1;
    EXPECT_EQ(kept % 100, 0u);  // whole lines only
    EXPECT_EQ(body.substr(note_start),
              "\n_benchwatch cut this report after " + std::to_string(kept) +
                  " of its 400000 bytes to fit GitHub's comment limit; the job's step summary "
                  "(`benchwatch github summary`) and `benchwatch compare` show all of it._\n");
    EXPECT_GT(kept, 65000u);
}

class StickyCommentTest : public ::testing::Test {
  protected:
    StickyCommentOutcome post(const std::string& project, const std::string& report) {
        Client client({github_.url(), FakeGitHub::token, "GITHUB_TOKEN", {2, 1ms, [](auto) {}}});
        return post_sticky_comment(client, pull_request_, project,
                                   sticky_comment_body(project, report));
    }

    FakeGitHub github_;
    const PullRequest pull_request_{"o/r", 7, "", ""};
};

TEST_F(StickyCommentTest, CreatesThenEditsTheSameComment) {
    const auto first = post("p", "first\n");
    EXPECT_TRUE(first.created);
    const auto second = post("p", "second\n");
    EXPECT_FALSE(second.created);
    EXPECT_EQ(second.comment_id, first.comment_id);
    const auto comments = github_.comments("o/r", 7);
    ASSERT_EQ(comments.size(), 1u);
    EXPECT_EQ(comments[0].body, "<!-- benchwatch:p -->\nsecond\n");
    EXPECT_EQ(second.url, github_.url() + "/comments/" + std::to_string(first.comment_id));
}

TEST_F(StickyCommentTest, KeepsTheNewestDuplicateAndLeavesOthersAlone) {
    // Five comments, so the listing takes three pages of two.
    const auto other_bot = github_.add_comment("o/r", 7, "codecov[bot]", "Coverage 91%");
    const auto oldest =
        github_.add_comment("o/r", 7, "github-actions[bot]", "<!-- benchwatch:p -->\nold");
    const auto other_project =
        github_.add_comment("o/r", 7, "github-actions[bot]", "<!-- benchwatch:q -->\nq's report");
    const auto newest =
        github_.add_comment("o/r", 7, "github-actions[bot]", "<!-- benchwatch:p -->\nnewer");
    const auto quoting =
        github_.add_comment("o/r", 7, "reviewer", "> <!-- benchwatch:p -->\n> newer\nWhy?");
    const auto outcome = post("p", "current\n");
    EXPECT_FALSE(outcome.created);
    EXPECT_EQ(outcome.comment_id, newest);
    EXPECT_EQ(outcome.deleted, 1);
    const auto comments = github_.comments("o/r", 7);
    ASSERT_EQ(comments.size(), 4u);
    EXPECT_EQ(comments[0].id, other_bot);
    EXPECT_EQ(comments[0].body, "Coverage 91%");
    EXPECT_EQ(comments[1].id, other_project);
    EXPECT_EQ(comments[1].body, "<!-- benchwatch:q -->\nq's report");
    EXPECT_EQ(comments[2].id, newest);
    EXPECT_EQ(comments[2].body, "<!-- benchwatch:p -->\ncurrent\n");
    EXPECT_EQ(comments[3].id, quoting);
    for (const auto& request : github_.requests())
        if (request.method == "DELETE") {
            EXPECT_EQ(request.target, "/repos/o/r/issues/comments/" + std::to_string(oldest));
        }
}

TEST_F(StickyCommentTest, APersonsMarkedCommentIsNeverEditedOrDeleted) {
    const auto bots =
        github_.add_comment("o/r", 7, "github-actions[bot]", "<!-- benchwatch:p -->\nold");
    const auto persons =
        github_.add_comment("o/r", 7, "mallory", "<!-- benchwatch:p -->\nI wrote this");
    const auto outcome = post("p", "current\n");
    EXPECT_FALSE(outcome.created);
    EXPECT_EQ(outcome.comment_id, bots);
    EXPECT_EQ(outcome.deleted, 0);
    const auto comments = github_.comments("o/r", 7);
    ASSERT_EQ(comments.size(), 2u);
    EXPECT_EQ(comments[0].body, "<!-- benchwatch:p -->\ncurrent\n");
    EXPECT_EQ(comments[1].id, persons);
    EXPECT_EQ(comments[1].body, "<!-- benchwatch:p -->\nI wrote this");
    // The Actions token may not read GET /user (403): only bots' comments count, and the post
    // goes on.
    std::vector<std::string> calls;
    for (const auto& request : github_.requests())
        calls.push_back(request.method + " " + request.target);
    EXPECT_EQ(calls, (std::vector<std::string>{
                         "GET /repos/o/r/issues/7/comments?per_page=100",
                         "GET /user",
                         "PATCH /repos/o/r/issues/comments/" + std::to_string(bots),
                     }));
}

TEST_F(StickyCommentTest, OnlyAPersonsMarkedCommentMeansANewComment) {
    const auto persons = github_.add_comment("o/r", 7, "mallory", "<!-- benchwatch:p -->\nmine");
    const auto outcome = post("p", "current\n");
    EXPECT_TRUE(outcome.created);
    const auto comments = github_.comments("o/r", 7);
    ASSERT_EQ(comments.size(), 2u);
    EXPECT_EQ(comments[0].id, persons);
    EXPECT_EQ(comments[0].body, "<!-- benchwatch:p -->\nmine");
    EXPECT_EQ(comments[1].author, "github-actions[bot]");
}

TEST_F(StickyCommentTest, WithAPersonalTokenItsOwnCommentIsKeptAndOthersLeftAlone) {
    github_.set_token_user("octocat");
    const auto own = github_.add_comment("o/r", 7, "octocat", "<!-- benchwatch:p -->\nold");
    const auto persons =
        github_.add_comment("o/r", 7, "mallory", "<!-- benchwatch:p -->\nnewer, not ours");
    const auto outcome = post("p", "current\n");
    EXPECT_FALSE(outcome.created);
    EXPECT_EQ(outcome.comment_id, own);
    EXPECT_EQ(outcome.deleted, 0);
    const auto comments = github_.comments("o/r", 7);
    ASSERT_EQ(comments.size(), 2u);
    EXPECT_EQ(comments[0].body, "<!-- benchwatch:p -->\ncurrent\n");
    EXPECT_EQ(comments[1].id, persons);
    EXPECT_EQ(comments[1].body, "<!-- benchwatch:p -->\nnewer, not ours");
}

TEST_F(StickyCommentTest, GetUserIsNotAskedWhenOnlyBotsCommentsAreMarked) {
    github_.add_comment("o/r", 7, "github-actions[bot]", "<!-- benchwatch:p -->\nold");
    post("p", "current\n");
    for (const auto& request : github_.requests()) EXPECT_NE(request.target, "/user");
}

}  // namespace
}  // namespace benchwatch::github
