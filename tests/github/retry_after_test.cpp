// What could break: GitHub's Retry-After (on a secondary rate limit's 403, a 429 or a 5xx)
// ignored for the computed backoff, a rate limit without it retried blindly, or a long wait
// made silently instead of failing with the time to retry.
#include <gtest/gtest.h>

#include "github/client.hpp"
#include "support/fake_github.hpp"

namespace benchwatch::github {
namespace {

using testing::FakeFailure;
using testing::FakeGitHub;
using namespace std::chrono_literals;

const Request list_request{"GET", "/repos/o/r/issues/5/comments", std::nullopt,
                           "pull request #5 of o/r", "pull-requests: write"};

// 1790000000 s after the epoch: 2026-09-21 14:13:20 UTC.
const auto fixed_now = std::chrono::system_clock::from_time_t(1790000000);

class RetryAfterTest : public ::testing::Test {
  protected:
    Client client() {
        RetryPolicy policy;
        policy.attempts = 4;
        policy.first_delay = 100ms;
        policy.sleep = [this](std::chrono::milliseconds delay) { delays_.push_back(delay); };
        policy.now = [] { return fixed_now; };
        return Client({github_.url(), FakeGitHub::token, "GITHUB_TOKEN", policy});
    }

    FakeGitHub github_;
    std::vector<std::chrono::milliseconds> delays_;
};

TEST_F(RetryAfterTest, SecondaryRateLimitWaitsWhatGitHubAsks) {
    github_.fail_next(1, FakeFailure{403,
                                     {{"Retry-After", "7"}, {"x-ratelimit-remaining", "4000"}},
                                     R"({"message": "You have exceeded a secondary rate limit"})"});
    auto github = client();
    EXPECT_EQ(github.get_all_pages(list_request).size(), 0u);
    EXPECT_EQ(github_.requests().size(), 2u);
    EXPECT_EQ(delays_, (std::vector<std::chrono::milliseconds>{7000ms}));
}

TEST_F(RetryAfterTest, ServerErrorsWaitRetryAfterInsteadOfTheBackoff) {
    github_.fail_next(1, FakeFailure{503, {{"Retry-After", "3"}}, "{}"});
    auto github = client();
    github.get_all_pages(list_request);
    // Without Retry-After the first wait would be the backoff's 100 ms.
    EXPECT_EQ(delays_, (std::vector<std::chrono::milliseconds>{3000ms}));
}

TEST_F(RetryAfterTest, TooManyRequestsWithRetryAfterIsRetriedUntilTheLastAttempt) {
    github_.fail_next(4, FakeFailure{429, {{"Retry-After", "1"}}, R"({"message": "slow down"})"});
    auto github = client();
    try {
        github.get_all_pages(list_request);
        FAIL() << "expected GitHubError";
    } catch (const GitHubError& error) {
        EXPECT_STREQ(error.what(),
                     "GitHub is rate-limiting this token (429 Too Many Requests on GET "
                     "/repos/o/r/issues/5/comments): retry in a few minutes (GitHub says: slow "
                     "down)");
    }
    EXPECT_EQ(github_.requests().size(), 4u);
    EXPECT_EQ(delays_, (std::vector<std::chrono::milliseconds>{1000ms, 1000ms, 1000ms}));
}

TEST_F(RetryAfterTest, APrimaryRateLimitWithoutRetryAfterIsNotRetried) {
    github_.fail_next(
        1, FakeFailure{403,
                       {{"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", "1790000000"}},
                       R"({"message": "API rate limit exceeded"})"});
    auto github = client();
    EXPECT_THROW(github.get_all_pages(list_request), GitHubError);
    EXPECT_EQ(github_.requests().size(), 1u);
    EXPECT_TRUE(delays_.empty());
}

TEST_F(RetryAfterTest, AWaitLongerThanAMinuteFailsWithTheTimeToRetry) {
    github_.fail_next(1, FakeFailure{403, {{"Retry-After", "600"}}, R"({"message": "abuse"})"});
    auto github = client();
    try {
        github.get_all_pages(list_request);
        FAIL() << "expected GitHubError";
    } catch (const GitHubError& error) {
        // 14:13:20 UTC + 600 s = 14:23:20 UTC.
        EXPECT_STREQ(error.what(),
                     "GitHub asks to wait 600 s before retrying GET /repos/o/r/issues/5/comments "
                     "(403 Forbidden), longer than the 60 s benchwatch waits; retry after "
                     "2026-09-21 14:23:20 UTC");
    }
    EXPECT_EQ(github_.requests().size(), 1u);
    EXPECT_TRUE(delays_.empty());
}

TEST_F(RetryAfterTest, AWaitOfExactlyTheCapIsMade) {
    github_.fail_next(1, FakeFailure{429, {{"Retry-After", "60"}}, "{}"});
    auto github = client();
    github.get_all_pages(list_request);
    EXPECT_EQ(delays_, (std::vector<std::chrono::milliseconds>{60000ms}));
}

}  // namespace
}  // namespace benchwatch::github
