// What could break: the pull request's number, head or repository read from the wrong place of
// GitHub's event file, flags not overriding it, or a missing value failing without saying which.
#include "github/pull_request.hpp"

#include <gtest/gtest.h>

#include "github/client.hpp"
#include "support/test_support.hpp"

namespace benchwatch::github {
namespace {

using testing::TemporaryDirectory;
using testing::write_text;

class PullRequestTest : public ::testing::Test {
  protected:
    std::string event(const std::string& json) {
        const auto path = directory_.path() / "event.json";
        write_text(path, json);
        return path.string();
    }

    std::string resolve_error(const PullRequestSources& sources) {
        try {
            resolve_pull_request(sources);
        } catch (const GitHubError& error) {
            return error.what();
        }
        return "no error";
    }

    TemporaryDirectory directory_{"benchwatch-github"};
};

const char* pull_request_event = R"({
  "action": "synchronize",
  "pull_request": {"number": 42, "head": {"sha": "abc123"}, "base": {"sha": "def456"}},
  "repository": {"full_name": "octo/widgets"}
})";

TEST_F(PullRequestTest, ReadsAPullRequestEvent) {
    const auto pull_request = resolve_pull_request(
        {std::nullopt, std::nullopt, std::nullopt, event(pull_request_event), "other/repo"});
    EXPECT_EQ(pull_request.repository, "octo/widgets");
    EXPECT_EQ(pull_request.number, 42);
    EXPECT_EQ(pull_request.head_sha, "abc123");
    EXPECT_EQ(pull_request.base_sha, "def456");
}

TEST_F(PullRequestTest, FlagsOverrideTheEvent) {
    const auto pull_request =
        resolve_pull_request({"me/fork", 43, "fff000", event(pull_request_event), std::nullopt});
    EXPECT_EQ(pull_request.repository, "me/fork");
    EXPECT_EQ(pull_request.number, 43);
    EXPECT_EQ(pull_request.head_sha, "fff000");
    EXPECT_EQ(pull_request.base_sha, "");  // the event's base is of #42, not #43
}

TEST_F(PullRequestTest, ReadsAWorkflowRunEvent) {
    const auto path = event(R"({
      "workflow_run": {"head_sha": "aaa111",
                       "pull_requests": [{"number": 9, "base": {"sha": "bbb222"}}]},
      "repository": {"full_name": "octo/widgets"}})");
    const auto pull_request =
        resolve_pull_request({std::nullopt, std::nullopt, std::nullopt, path, std::nullopt});
    EXPECT_EQ(pull_request.number, 9);
    EXPECT_EQ(pull_request.head_sha, "aaa111");
    EXPECT_EQ(pull_request.base_sha, "bbb222");
}

TEST_F(PullRequestTest, AForksWorkflowRunNeedsTheNumber) {
    const auto path = event(R"({"workflow_run": {"head_sha": "aaa111", "pull_requests": []},
                                "repository": {"full_name": "octo/widgets"}})");
    EXPECT_EQ(resolve_error({std::nullopt, std::nullopt, std::nullopt, path, std::nullopt}),
              "no pull request: the workflow_run event in " + path +
                  " lists none (GitHub leaves the list empty for pull requests from forks); pass "
                  "--pull-request N, e.g. from the event file the pull_request workflow uploaded");
    const auto pull_request =
        resolve_pull_request({std::nullopt, 12, std::nullopt, path, std::nullopt});
    EXPECT_EQ(pull_request.number, 12);
    EXPECT_EQ(pull_request.head_sha, "aaa111");
}

TEST_F(PullRequestTest, SaysWhatIsMissing) {
    EXPECT_EQ(resolve_error({std::nullopt, 1, std::nullopt, std::nullopt, std::nullopt}),
              "no repository: GITHUB_REPOSITORY is unset and there is no event file "
              "(GITHUB_EVENT_PATH); pass --repository OWNER/NAME");
    EXPECT_EQ(resolve_error({std::nullopt, std::nullopt, std::nullopt, std::nullopt, "o/r"}),
              "no pull request: there is no event file (GITHUB_EVENT_PATH); pass "
              "--pull-request N");
    EXPECT_EQ(resolve_error({"o/r/x", 1, std::nullopt, std::nullopt, std::nullopt}),
              "\"o/r/x\" is not a repository name; pass --repository OWNER/NAME");
    const auto push = event(R"({"ref": "refs/heads/main", "repository": {"full_name": "o/r"}})");
    EXPECT_EQ(resolve_error({std::nullopt, std::nullopt, std::nullopt, push, std::nullopt}),
              "no pull request: the event in " + push +
                  " is not a pull_request event; run on pull_request or pass --pull-request N");
    const auto broken = event("{not json");
    EXPECT_EQ(resolve_error({std::nullopt, std::nullopt, std::nullopt, broken, std::nullopt}),
              "the event file " + broken +
                  " (GITHUB_EVENT_PATH) is not a JSON object; give GitHub's event file or pass "
                  "--repository and --pull-request");
}

}  // namespace
}  // namespace benchwatch::github
