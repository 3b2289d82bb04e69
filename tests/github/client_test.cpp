// What could break: GitHub's refusals losing their one-line explanation, retries waiting the
// wrong time or retrying what cannot succeed, pagination stopping early or never (a next page
// that is the same page, or pages without end), the token leaking beyond the Authorization
// header or through an error body that echoes it, or GET /user's 403 for an Actions token
// taken for a failure.
#include "github/client.hpp"

#include <gtest/gtest.h>

#include "support/fake_github.hpp"

namespace benchwatch::github {
namespace {

using testing::FakeFailure;
using testing::FakeGitHub;
using namespace std::chrono_literals;

const Request list_request{"GET", "/repos/o/r/issues/5/comments", std::nullopt,
                           "pull request #5 of o/r", "pull-requests: write"};

TEST(ApiUrl, SplitsOriginAndPathPrefix) {
    const auto enterprise = parse_api_url("https://ghe.example.com/api/v3/");
    EXPECT_EQ(enterprise.origin, "https://ghe.example.com");
    EXPECT_EQ(enterprise.path_prefix, "/api/v3");
    const auto local = parse_api_url("http://127.0.0.1:8080");
    EXPECT_EQ(local.origin, "http://127.0.0.1:8080");
    EXPECT_EQ(local.path_prefix, "");
}

TEST(ApiUrl, RefusesWhatIsNotHttp) {
    try {
        parse_api_url("ftp://example.com");
        FAIL() << "expected GitHubError";
    } catch (const GitHubError& error) {
        EXPECT_STREQ(error.what(),
                     "GITHUB_API_URL \"ftp://example.com\" is not an http:// or https:// "
                     "address; unset it for https://api.github.com or give the API root, e.g. "
                     "https://HOST/api/v3");
    }
    EXPECT_THROW(parse_api_url("https://"), GitHubError);
    EXPECT_THROW(parse_api_url("api.github.com"), GitHubError);
}

TEST(Backoff, DoublesFromTheFirstDelay) {
    const RetryPolicy policy{4, 500ms, {}};
    EXPECT_EQ(backoff_delay(policy, 1), 500ms);
    EXPECT_EQ(backoff_delay(policy, 2), 1000ms);
    EXPECT_EQ(backoff_delay(policy, 3), 2000ms);
}

TEST(Pagination, FindsTheNextLinkWhereverItIs) {
    EXPECT_EQ(next_page_link(R"(<https://api.github.com/x?page=2>; rel="next", )"
                             R"(<https://api.github.com/x?page=5>; rel="last")"),
              "https://api.github.com/x?page=2");
    EXPECT_EQ(
        next_page_link(R"(<https://a/x?page=1>; rel="prev", <https://a/x?page=3>; rel="next")"),
        "https://a/x?page=3");
    EXPECT_EQ(
        next_page_link(R"(<https://a/x?page=1>; rel="first", <https://a/x?page=2>; rel="prev")"),
        std::nullopt);
    EXPECT_EQ(next_page_link(""), std::nullopt);
}

TEST(FailureMessage, Unauthorized) {
    EXPECT_EQ(failure_message(list_request, {401, "Bad credentials", {}, {}, 1}, "GITHUB_TOKEN"),
              "GitHub rejected the token in GITHUB_TOKEN (401 Unauthorized on GET "
              "/repos/o/r/issues/5/comments): it is invalid or expired; pass a valid token");
}

TEST(FailureMessage, ForbiddenNamesThePermission) {
    EXPECT_EQ(failure_message(list_request,
                              {403, "Resource not accessible by integration", "4999", {}, 1},
                              "GITHUB_TOKEN"),
              "GitHub refused GET /repos/o/r/issues/5/comments (403 Forbidden): the token lacks "
              "permission; give the workflow `permissions: pull-requests: write` (GitHub says: "
              "Resource not accessible by integration)");
}

TEST(FailureMessage, RateLimitSaysWhenItResetsInUtc) {
    // 1790000000 s after the epoch is 2026-09-21 14:13:20 UTC.
    const auto expected =
        "GitHub's API rate limit for this token is used up (403 Forbidden on GET "
        "/repos/o/r/issues/5/comments): it resets at 2026-09-21 14:13:20 UTC; retry after that";
    EXPECT_EQ(failure_message(list_request, {403, "API rate limit exceeded", "0", 1790000000, 1},
                              "GITHUB_TOKEN"),
              expected);
    EXPECT_EQ(failure_message(list_request, {429, "", "0", {}, 1}, "GITHUB_TOKEN"),
              "GitHub's API rate limit for this token is used up (429 Too Many Requests on GET "
              "/repos/o/r/issues/5/comments): it resets within the hour; retry after that");
}

TEST(FailureMessage, NotFoundNamesTheSubject) {
    EXPECT_EQ(failure_message(list_request, {404, "Not Found", {}, {}, 1}, "GITHUB_TOKEN"),
              "GitHub cannot find pull request #5 of o/r (404 Not Found on GET "
              "/repos/o/r/issues/5/comments): check the repository and number, and that the "
              "token can read the repository");
}

TEST(FailureMessage, UnprocessableGivesGitHubsReason) {
    const Request post{"POST", "/repos/o/r/issues/5/comments", nlohmann::json::object(), "", ""};
    EXPECT_EQ(failure_message(post, {422, "Validation Failed: body is too long", {}, {}, 1},
                              "GITHUB_TOKEN"),
              "GitHub rejected POST /repos/o/r/issues/5/comments (422 Unprocessable Entity): "
              "Validation Failed: body is too long");
}

TEST(FailureMessage, ServerErrorsSayHowOftenTheyWereTried) {
    EXPECT_EQ(failure_message(list_request, {502, "", {}, {}, 4}, "GITHUB_TOKEN"),
              "GitHub answered 502 to GET /repos/o/r/issues/5/comments 4 times; it may be having "
              "an outage, retry later");
}

class ClientTest : public ::testing::Test {
  protected:
    Client client(std::string token = FakeGitHub::token) {
        return Client(
            {github_.url(),
             std::move(token),
             "BENCH_TOKEN",
             {4, 100ms, [this](std::chrono::milliseconds delay) { delays_.push_back(delay); }}});
    }

    FakeGitHub github_;
    std::vector<std::chrono::milliseconds> delays_;
};

TEST_F(ClientTest, SendsJsonWithTheTokenOnlyInAuthorization) {
    auto github = client();
    const auto created = github.send(
        {"POST", "/repos/o/r/issues/5/comments", nlohmann::json{{"body", "hello"}}, "", ""});
    EXPECT_EQ(created["id"], 1001);
    const auto requests = github_.requests();
    ASSERT_EQ(requests.size(), 1u);
    const auto& headers = requests[0].headers;
    EXPECT_EQ(headers.find("Authorization")->second, std::string("Bearer ") + FakeGitHub::token);
    EXPECT_EQ(headers.find("Accept")->second, "application/vnd.github+json");
    EXPECT_EQ(headers.find("X-GitHub-Api-Version")->second, "2022-11-28");
    EXPECT_EQ(headers.find("User-Agent")->second, "benchwatch/0.1.0");
    EXPECT_EQ(nlohmann::json::parse(requests[0].body), (nlohmann::json{{"body", "hello"}}));
    for (const auto& [name, value] : headers)
        if (name != "Authorization") {
            EXPECT_EQ(value.find(FakeGitHub::token), std::string::npos) << name;
        }
}

TEST_F(ClientTest, RetriesServerErrorsWithBackoffThenSucceeds) {
    github_.fail_next(2, FakeFailure{502, {}, "bad gateway"});
    auto github = client();
    EXPECT_EQ(github.get_all_pages(list_request).size(), 0u);
    EXPECT_EQ(github_.requests().size(), 3u);
    EXPECT_EQ(delays_, (std::vector<std::chrono::milliseconds>{100ms, 200ms}));
}

TEST_F(ClientTest, GivesUpOnServerErrorsAfterTheLastAttempt) {
    github_.fail_next(10, FakeFailure{503, {}, "{}"});
    auto github = client();
    try {
        github.get_all_pages(list_request);
        FAIL() << "expected GitHubError";
    } catch (const GitHubError& error) {
        EXPECT_STREQ(error.what(),
                     "GitHub answered 503 to GET /repos/o/r/issues/5/comments 4 times; it may be "
                     "having an outage, retry later");
    }
    EXPECT_EQ(delays_, (std::vector<std::chrono::milliseconds>{100ms, 200ms, 400ms}));
}

TEST_F(ClientTest, DoesNotRetryRefusalsAndReadsGitHubsMessage) {
    github_.fail_next(1, FakeFailure{422,
                                     {},
                                     R"({"message": "Validation Failed", "errors": )"
                                     R"([{"message": "body is too long"}]})"});
    auto github = client();
    try {
        github.send(
            {"POST", "/repos/o/r/issues/5/comments", nlohmann::json{{"body", "x"}}, "", ""});
        FAIL() << "expected GitHubError";
    } catch (const GitHubError& error) {
        EXPECT_STREQ(error.what(),
                     "GitHub rejected POST /repos/o/r/issues/5/comments (422 Unprocessable "
                     "Entity): Validation Failed: body is too long");
    }
    EXPECT_TRUE(delays_.empty());
}

TEST_F(ClientTest, ReadsTheRateLimitHeaders) {
    github_.fail_next(
        1, FakeFailure{403,
                       {{"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", "1790000000"}},
                       R"({"message": "API rate limit exceeded"})"});
    auto github = client();
    try {
        github.get_all_pages(list_request);
        FAIL() << "expected GitHubError";
    } catch (const GitHubError& error) {
        EXPECT_STREQ(error.what(),
                     "GitHub's API rate limit for this token is used up (403 Forbidden on GET "
                     "/repos/o/r/issues/5/comments): it resets at 2026-09-21 14:13:20 UTC; retry "
                     "after that");
    }
}

TEST_F(ClientTest, WrongTokenNamesItsVariableButNeverItsValue) {
    auto github = client("ghp_wrongTOKEN");
    try {
        github.get_all_pages(list_request);
        FAIL() << "expected GitHubError";
    } catch (const GitHubError& error) {
        EXPECT_STREQ(error.what(),
                     "GitHub rejected the token in BENCH_TOKEN (401 Unauthorized on GET "
                     "/repos/o/r/issues/5/comments): it is invalid or expired; pass a valid token");
    }
}

TEST_F(ClientTest, FollowsEveryPage) {
    // 5 comments at 2 a page: pages 1, 2 and 3.
    for (int i = 0; i < 5; ++i) github_.add_comment("o/r", 5, "someone", "c" + std::to_string(i));
    auto github = client();
    const auto comments = github.get_all_pages(list_request);
    ASSERT_EQ(comments.size(), 5u);
    EXPECT_EQ(comments[4]["body"], "c4");
    const auto requests = github_.requests();
    ASSERT_EQ(requests.size(), 3u);
    EXPECT_EQ(requests[2].target, "/repos/o/r/issues/5/comments?per_page=100&page=3");
}

TEST_F(ClientTest, ANextPageThatIsTheSamePageStopsWithOneLine) {
    for (int i = 0; i < 3; ++i) github_.add_comment("o/r", 5, "someone", "c" + std::to_string(i));
    github_.set_paging(testing::FakePaging::same_page);
    auto github = client();
    try {
        github.get_all_pages(list_request);
        FAIL() << "expected GitHubError";
    } catch (const GitHubError& error) {
        EXPECT_STREQ(error.what(),
                     "GitHub answered GET /repos/o/r/issues/5/comments with a next page it had "
                     "sent before (/repos/o/r/issues/5/comments?per_page=100&page=1); stopped "
                     "after 2 pages rather than read the same pages forever; retry later");
    }
    // The first page, then its link to itself once.
    EXPECT_EQ(github_.requests().size(), 2u);
}

TEST_F(ClientTest, PagesWithoutEndStopAtTheCap) {
    github_.set_paging(testing::FakePaging::endless);
    auto github = client();
    try {
        github.get_all_pages(list_request);
        FAIL() << "expected GitHubError";
    } catch (const GitHubError& error) {
        EXPECT_STREQ(error.what(),
                     "GitHub answered GET /repos/o/r/issues/5/comments with more than 1000 pages; "
                     "stopped there rather than read on without end; retry later");
    }
    EXPECT_EQ(github_.requests().size(), 1000u);
}

TEST_F(ClientTest, AnErrorBodyThatEchoesTheTokenIsPrintedWithoutIt) {
    github_.fail_next(1, FakeFailure{418,
                                     {},
                                     std::string(R"({"message": "no teapot for Bearer )") +
                                         FakeGitHub::token + R"("})"});
    auto github = client();
    try {
        github.get_all_pages(list_request);
        FAIL() << "expected GitHubError";
    } catch (const GitHubError& error) {
        EXPECT_STREQ(error.what(),
                     "GitHub answered 418 to GET /repos/o/r/issues/5/comments (GitHub says: no "
                     "teapot for Bearer [token])");
    }
}

TEST_F(ClientTest, UserRefusedToAnActionsTokenIsNoIdentityNotAFailure) {
    auto github = client();
    const Request user{"GET", "/user", std::nullopt, "", ""};
    EXPECT_EQ(github.get_if_allowed(user), std::nullopt);
    github_.set_token_user("octocat");
    const auto identity = github.get_if_allowed(user);
    ASSERT_TRUE(identity);
    EXPECT_EQ((*identity)["login"], "octocat");
    // The rate limit used up is a failure still.
    github_.fail_next(
        1, FakeFailure{
               403, {{"x-ratelimit-remaining", "0"}}, R"({"message": "API rate limit exceeded"})"});
    EXPECT_THROW(github.get_if_allowed(user), GitHubError);
}

TEST(ClientConnection, SaysWhereItCouldNotConnect) {
    std::string url;
    {
        FakeGitHub closed;  // a port that was just free
        url = closed.url();
    }
    std::vector<std::chrono::milliseconds> delays;
    Client github(
        {url, FakeGitHub::token, "GITHUB_TOKEN", {2, 1ms, [&](std::chrono::milliseconds delay) {
                                                      delays.push_back(delay);
                                                  }}});
    try {
        github.get_all_pages(list_request);
        FAIL() << "expected GitHubError";
    } catch (const GitHubError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "cannot reach GitHub at " + url +
                      " for GET /repos/o/r/issues/5/comments after 2 attempts (Connection); "
                      "check GITHUB_API_URL and the network");
    }
    EXPECT_EQ(delays.size(), 1u);
}

}  // namespace
}  // namespace benchwatch::github
