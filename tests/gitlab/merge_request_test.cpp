// What could break: the merge request taken from the wrong place (flags must win over GitLab
// CI's variables), a project path sent unencoded, or a missing IID failing without saying which
// flag or variable gives it.
#include "gitlab/merge_request.hpp"

#include <gtest/gtest.h>

#include "gitlab/client.hpp"

namespace benchwatch::gitlab {
namespace {

std::string refusal(const MergeRequestSources& sources) {
    try {
        resolve_merge_request(sources);
    } catch (const GitLabError& error) {
        return error.what();
    }
    return "no error";
}

TEST(ProjectApiId, EncodesPathsAndKeepsIds) {
    EXPECT_EQ(project_api_id("42"), "42");
    EXPECT_EQ(project_api_id("group/sub group/app.x"), "group%2Fsub%20group%2Fapp.x");
}

TEST(Resolve, TakesGitLabCiVariables) {
    const auto merge_request = resolve_merge_request({{}, {}, "42", "group/app", "7"});
    EXPECT_EQ(merge_request.project_id, "42");
    EXPECT_EQ(merge_request.project, "group/app");
    EXPECT_EQ(merge_request.iid, 7);
}

TEST(Resolve, FlagsWin) {
    const auto merge_request = resolve_merge_request({"other/app", 9, "42", "group/app", "7"});
    EXPECT_EQ(merge_request.project_id, "other%2Fapp");
    EXPECT_EQ(merge_request.project, "other/app");
    EXPECT_EQ(merge_request.iid, 9);
}

TEST(Resolve, APathAloneIsEncoded) {
    const auto merge_request = resolve_merge_request({{}, {}, {}, "group/app", "7"});
    EXPECT_EQ(merge_request.project_id, "group%2Fapp");
}

TEST(Resolve, SaysWhatIsMissingAndWhichFlagGivesIt) {
    EXPECT_EQ(refusal({{}, 7, {}, {}, {}}),
              "no GitLab project: CI_PROJECT_ID and CI_PROJECT_PATH are unset (not a GitLab CI "
              "job); pass --gitlab-project ID_OR_PATH");
    EXPECT_EQ(refusal({{}, {}, "42", "group/app", {}}),
              "no merge request: CI_MERGE_REQUEST_IID is unset, so this is not a merge request "
              "pipeline; run the job with `rules: - if: $CI_PIPELINE_SOURCE == "
              "\"merge_request_event\"` or pass --merge-request IID");
    EXPECT_EQ(refusal({{}, {}, "42", {}, "seven"}),
              "CI_MERGE_REQUEST_IID \"seven\" is not a merge request IID; pass --merge-request "
              "IID");
    EXPECT_EQ(refusal({"42", 0, {}, {}, {}}),
              "--merge-request 0 is not a merge request IID; give the number after the ! in the "
              "merge request's title");
}

}  // namespace
}  // namespace benchwatch::gitlab
