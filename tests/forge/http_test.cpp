// What could break: an API root split wrongly (requests to the wrong path), a Retry-After read
// wrongly (waiting the wrong time), a next page on another host receiving the token, or the
// shared messages losing what they name or quoting a forge's words with terminal controls.
#include "forge/http.hpp"

#include <gtest/gtest.h>

namespace benchwatch::forge {
namespace {

using namespace std::chrono_literals;

TEST(ApiUrl, SplitsGitLabsRoot) {
    const auto address = split_api_url("https://gitlab.example.com/api/v4/");
    ASSERT_TRUE(address);
    EXPECT_EQ(address->origin, "https://gitlab.example.com");
    EXPECT_EQ(address->path_prefix, "/api/v4");
    EXPECT_EQ(split_api_url("gitlab.com/api/v4"), std::nullopt);
    EXPECT_EQ(split_api_url("https:///api/v4"), std::nullopt);
}

TEST(RetryAfter, ReadsWholeSecondsOnly) {
    EXPECT_EQ(parse_retry_after("7"), 7s);
    EXPECT_EQ(parse_retry_after(" 0 "), 0s);
    EXPECT_EQ(parse_retry_after(""), std::nullopt);
    EXPECT_EQ(parse_retry_after("-3"), std::nullopt);
    EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), std::nullopt);
}

TEST(NextPage, StaysOnTheConfiguredOrigin) {
    const ApiAddress address{"https://gitlab.example.com", "/api/v4"};
    EXPECT_EQ(path_on_origin(address, "https://gitlab.example.com/api/v4/x?page=2"),
              "/api/v4/x?page=2");
    EXPECT_EQ(path_on_origin(address, "https://gitlab.example.com.evil.net/api/v4/x"),
              std::nullopt);
    EXPECT_EQ(path_on_origin(address, "http://gitlab.example.com/api/v4/x"), std::nullopt);
}

TEST(Messages, NameTheForgeTheCallAndWhatToDo) {
    HttpAnswer unreachable;
    unreachable.attempts = 4;
    unreachable.connection_error = "Could not establish connection";
    EXPECT_EQ(unreachable_message("GitLab", "CI_API_V4_URL", "http://127.0.0.1:1",
                                  method_and_path("GET", "/api/v4/x?page=2"), unreachable),
              "cannot reach GitLab at http://127.0.0.1:1 for GET /api/v4/x after 4 attempts "
              "(Could not establish connection); check CI_API_V4_URL and the network");
    EXPECT_EQ(outage_message("GitHub", "GET /x", 503, 4),
              "GitHub answered 503 to GET /x 4 times; it may be having an outage, retry later");
}

TEST(Messages, ARefusedWaitSaysWhenToRetryInUtc) {
    RetryPolicy policy;
    HttpAnswer answer;
    answer.status = 429;
    answer.refused_wait = 120s;
    // 1790000000 s after the epoch is 2026-09-21 14:13:20 UTC; 120 s later is 14:15:20.
    answer.retry_at = std::chrono::system_clock::from_time_t(1790000000) + 120s;
    EXPECT_EQ(wait_refused_message("GitLab", "GET /x", answer, policy),
              "GitLab asks to wait 120 s before retrying GET /x (429 Too Many Requests), longer "
              "than the 60 s benchwatch waits; retry after 2026-09-21 14:15:20 UTC");
}

TEST(Messages, AForgesWordsStayOnOneLineAndCannotDriveTheTerminal) {
    EXPECT_EQ(one_line("Bad\ncredentials\t\x1b]0;t\x07 ##[error]x"),
              "Bad credentials \\u{1b}]0;t\\u{7} ##\\u{5b}error]x");
}

TEST(Backoff, DoublesFromTheFirstDelay) {
    const RetryPolicy policy{4, 200ms, {}};
    // 200 ms × 2^0, × 2^1, × 2^2.
    EXPECT_EQ(backoff_delay(policy, 1), 200ms);
    EXPECT_EQ(backoff_delay(policy, 2), 400ms);
    EXPECT_EQ(backoff_delay(policy, 3), 800ms);
}

}  // namespace
}  // namespace benchwatch::forge
