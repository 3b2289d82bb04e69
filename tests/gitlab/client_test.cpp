// What could break: GitLab's refusals losing their one-line explanation, the token leaving the
// PRIVATE-TOKEN header or printed from an error body that echoes it, pagination stopping early
// when GitLab sends only X-Next-Page or never stopping (a next page already read, pages without
// end), or a Retry-After ignored.
#include "gitlab/client.hpp"

#include <gtest/gtest.h>

#include "support/fake_gitlab.hpp"

namespace benchwatch::gitlab {
namespace {

using testing::FakeFailure;
using testing::FakeGitLab;
using namespace std::chrono_literals;

const Request list_request{"GET", "/projects/42/merge_requests/7/notes?per_page=100", std::nullopt,
                           "merge request !7 of group/app"};
const Request post_request{"POST", "/projects/42/merge_requests/7/notes",
                           nlohmann::json{{"body", "x"}}, "merge request !7 of group/app"};

FailedAnswer refusal(int status, std::string message = "") {
    return {status, std::move(message), std::nullopt, 1};
}

TEST(ApiUrl, RefusesWhatIsNotHttp) {
    try {
        parse_api_url("gitlab.com/api/v4");
        FAIL() << "expected GitLabError";
    } catch (const GitLabError& error) {
        EXPECT_STREQ(error.what(),
                     "CI_API_V4_URL \"gitlab.com/api/v4\" is not an http:// or https:// "
                     "address; unset it for https://gitlab.com/api/v4 or give the API root, e.g. "
                     "https://HOST/api/v4");
    }
}

TEST(FailureMessage, Unauthorized) {
    EXPECT_EQ(failure_message(list_request, refusal(401, "401 Unauthorized"), "GITLAB_TOKEN"),
              "GitLab rejected the token in GITLAB_TOKEN (401 Unauthorized on GET "
              "/projects/42/merge_requests/7/notes): it is invalid, expired or revoked; pass a "
              "project or personal access token with the api scope");
}

TEST(FailureMessage, ForbiddenNamesTheScope) {
    EXPECT_EQ(failure_message(post_request, refusal(403, "403 Forbidden"), "BENCH_TOKEN"),
              "GitLab refused POST /projects/42/merge_requests/7/notes (403 Forbidden): the "
              "token in BENCH_TOKEN lacks the api scope or may not write on this merge request; "
              "use a project or personal access token with the api scope and at least the "
              "Reporter role");
}

TEST(FailureMessage, NotFoundNamesTheMergeRequest) {
    EXPECT_EQ(failure_message(list_request, refusal(404, "404 Not found"), "GITLAB_TOKEN"),
              "GitLab cannot find merge request !7 of group/app (404 Not Found on GET "
              "/projects/42/merge_requests/7/notes): check the project and merge request IID, "
              "and that the token can see the project");
}

TEST(FailureMessage, BadRequestGivesGitLabsReason) {
    EXPECT_EQ(failure_message(post_request, refusal(400, "note is too long"), "GITLAB_TOKEN"),
              "GitLab rejected POST /projects/42/merge_requests/7/notes (400 Bad Request): note "
              "is too long");
    EXPECT_EQ(failure_message(post_request, refusal(422), "GITLAB_TOKEN"),
              "GitLab rejected POST /projects/42/merge_requests/7/notes (422 Unprocessable "
              "Entity): no reason given");
}

TEST(FailureMessage, RateLimitSaysWhenItResetsInUtc) {
    // 1790000000 s after the epoch is 2026-09-21 14:13:20 UTC.
    EXPECT_EQ(failure_message(list_request, {429, "Retry later", 1790000000, 1}, "GITLAB_TOKEN"),
              "GitLab is rate-limiting this token (429 Too Many Requests on GET "
              "/projects/42/merge_requests/7/notes): the limit resets at 2026-09-21 14:13:20 "
              "UTC; retry after that");
    EXPECT_EQ(failure_message(list_request, refusal(429), "GITLAB_TOKEN"),
              "GitLab is rate-limiting this token (429 Too Many Requests on GET "
              "/projects/42/merge_requests/7/notes): retry in a minute");
}

class ClientTest : public ::testing::Test {
  protected:
    ClientTest() { gitlab_.add_merge_request("42", 7); }

    Client client(std::string token = FakeGitLab::token) {
        forge::RetryPolicy policy;
        policy.first_delay = 100ms;
        policy.sleep = [this](std::chrono::milliseconds delay) { delays_.push_back(delay); };
        return Client({gitlab_.url(), std::move(token), "GITLAB_TOKEN", policy});
    }

    std::string reason_of(const FakeFailure& failure) {
        gitlab_.fail_next(1, failure);
        auto gitlab = client();
        try {
            gitlab.send(post_request);
        } catch (const GitLabError& error) {
            return error.what();
        }
        return "no error";
    }

    FakeGitLab gitlab_;
    std::vector<std::chrono::milliseconds> delays_;
};

TEST_F(ClientTest, SendsTheTokenOnlyInPrivateToken) {
    auto gitlab = client();
    const auto created = gitlab.send(post_request);
    EXPECT_EQ(created["id"], 501);
    const auto requests = gitlab_.requests();
    ASSERT_EQ(requests.size(), 1u);
    EXPECT_EQ(requests[0].target, "/api/v4/projects/42/merge_requests/7/notes");
    EXPECT_EQ(requests[0].headers.find("PRIVATE-TOKEN")->second, FakeGitLab::token);
    EXPECT_EQ(requests[0].headers.count("Authorization"), 0u);
    for (const auto& [name, value] : requests[0].headers)
        if (name != "PRIVATE-TOKEN") {
            EXPECT_EQ(value.find(FakeGitLab::token), std::string::npos) << name;
        }
}

TEST_F(ClientTest, ReadsEachShapeOfGitLabsReasons) {
    EXPECT_EQ(reason_of({400, {}, R"({"message": {"note": ["is too long", "is bad"]}})"}),
              "GitLab rejected POST /projects/42/merge_requests/7/notes (400 Bad Request): note "
              "is too long; note is bad");
    EXPECT_EQ(reason_of({400, {}, R"({"error": "body is missing"})"}),
              "GitLab rejected POST /projects/42/merge_requests/7/notes (400 Bad Request): body "
              "is missing");
    EXPECT_EQ(reason_of({418, {}, R"({"message": "I'm a\nteapot"})"}),
              "GitLab answered 418 to POST /projects/42/merge_requests/7/notes (GitLab says: I'm "
              "a teapot)");
}

TEST_F(ClientTest, FollowsXNextPageWithoutLinkHeaders) {
    for (int i = 0; i < 5; ++i) gitlab_.add_note("42", 7, "someone", "note " + std::to_string(i));
    gitlab_.send_link_headers(false);
    auto gitlab = client();
    // 5 notes, 2 a page: pages 1, 2 and 3.
    EXPECT_EQ(gitlab.get_all_pages(list_request).size(), 5u);
    std::vector<std::string> targets;
    for (const auto& request : gitlab_.requests()) targets.push_back(request.target);
    EXPECT_EQ(targets, (std::vector<std::string>{
                           "/api/v4/projects/42/merge_requests/7/notes?per_page=100",
                           "/api/v4/projects/42/merge_requests/7/notes?per_page=100&page=2",
                           "/api/v4/projects/42/merge_requests/7/notes?per_page=100&page=3",
                       }));
}

TEST_F(ClientTest, FollowsLinkHeaders) {
    for (int i = 0; i < 3; ++i) gitlab_.add_note("42", 7, "someone", "note " + std::to_string(i));
    auto gitlab = client();
    EXPECT_EQ(gitlab.get_all_pages(list_request).size(), 3u);
    const auto requests = gitlab_.requests();
    ASSERT_EQ(requests.size(), 2u);
    EXPECT_EQ(requests[1].target,
              "/api/v4/projects/42/merge_requests/7/notes?per_page=100&sort=asc&page=2");
}

TEST_F(ClientTest, ANextPageThatIsTheSamePageStopsWithOneLine) {
    for (int i = 0; i < 3; ++i) gitlab_.add_note("42", 7, "someone", "note " + std::to_string(i));
    gitlab_.set_paging(testing::FakePaging::same_page);
    gitlab_.send_link_headers(false);
    auto gitlab = client();
    try {
        gitlab.get_all_pages(list_request);
        FAIL() << "expected GitLabError";
    } catch (const GitLabError& error) {
        EXPECT_STREQ(error.what(),
                     "GitLab answered GET /projects/42/merge_requests/7/notes with a next page it "
                     "had sent before (/api/v4/projects/42/merge_requests/7/notes?per_page=100&"
                     "page=1); stopped after 2 pages rather than read the same pages forever; "
                     "retry later");
    }
    EXPECT_EQ(gitlab_.requests().size(), 2u);
}

TEST_F(ClientTest, PagesWithoutEndStopAtTheCap) {
    gitlab_.set_paging(testing::FakePaging::endless);
    auto gitlab = client();
    try {
        gitlab.get_all_pages(list_request);
        FAIL() << "expected GitLabError";
    } catch (const GitLabError& error) {
        EXPECT_STREQ(error.what(),
                     "GitLab answered GET /projects/42/merge_requests/7/notes with more than 1000 "
                     "pages; stopped there rather than read on without end; retry later");
    }
    EXPECT_EQ(gitlab_.requests().size(), 1000u);
}

TEST_F(ClientTest, AnErrorBodyThatEchoesTheTokenIsPrintedWithoutIt) {
    EXPECT_EQ(reason_of({400,
                         {},
                         std::string(R"({"error": "token )") + FakeGitLab::token +
                             " may not post " + FakeGitLab::token + R"("})"}),
              "GitLab rejected POST /projects/42/merge_requests/7/notes (400 Bad Request): token "
              "[token] may not post [token]");
}

TEST_F(ClientTest, RetriesServerErrorsWithBackoff) {
    gitlab_.fail_next(2, {500, {}, R"({"message": "500 Internal Server Error"})"});
    auto gitlab = client();
    EXPECT_EQ(gitlab.get_all_pages(list_request).size(), 0u);
    EXPECT_EQ(delays_, (std::vector<std::chrono::milliseconds>{100ms, 200ms}));
}

TEST_F(ClientTest, WaitsRetryAfterOfARateLimit) {
    gitlab_.fail_next(
        1, {429, {{"Retry-After", "5"}, {"RateLimit-Reset", "1790000000"}}, "Retry later"});
    auto gitlab = client();
    EXPECT_EQ(gitlab.get_all_pages(list_request).size(), 0u);
    EXPECT_EQ(delays_, (std::vector<std::chrono::milliseconds>{5000ms}));
}

TEST_F(ClientTest, GivesUpOnAnOutageSayingHowOftenItTried) {
    gitlab_.fail_next(10, {502, {}, "<html>Bad Gateway</html>"});
    auto gitlab = client();
    try {
        gitlab.get_all_pages(list_request);
        FAIL() << "expected GitLabError";
    } catch (const GitLabError& error) {
        EXPECT_STREQ(error.what(),
                     "GitLab answered 502 to GET /projects/42/merge_requests/7/notes 4 times; it "
                     "may be having an outage, retry later");
    }
    // 100 ms × 2^0, 2^1, 2^2 between the 4 attempts.
    EXPECT_EQ(delays_, (std::vector<std::chrono::milliseconds>{100ms, 200ms, 400ms}));
}

}  // namespace
}  // namespace benchwatch::gitlab
