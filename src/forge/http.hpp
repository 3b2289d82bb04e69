#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/error.hpp"

namespace benchwatch::forge {

// A forge's API call or the context of a pull or merge request failed. what() is one line saying
// what was refused and how to fix it; it never contains the token.
class ForgeError : public model::Error {
  public:
    explicit ForgeError(const std::string& message) : Error(model::ErrorKind::Forge, message) {}
};

// Where an API lives: origin "https://gitlab.example.com" and path "/api/v4".
struct ApiAddress {
    std::string origin;       // scheme, host and port
    std::string path_prefix;  // "" or "/api/v4", without a trailing slash
};

// Splits an API root URL into origin and path; nullopt unless it is http:// or https://
// followed by a host.
std::optional<ApiAddress> split_api_url(std::string_view url);

// How failures that may pass are retried: connection errors, 5xx answers, and 403 or 429
// answers carrying Retry-After.
struct RetryPolicy {
    int attempts = 4;  // tries in all, the first included
    std::chrono::milliseconds first_delay{500};
    // Waits between attempts; empty: std::this_thread::sleep_for. Tests record the delays.
    std::function<void(std::chrono::milliseconds)> sleep{};
    // The longest Retry-After waited for; a longer one fails at once, saying when to retry.
    std::chrono::seconds longest_wait{60};
    // The time a refused wait is counted from; empty: std::chrono::system_clock::now.
    std::function<std::chrono::system_clock::time_point()> now{};
};

// The wait before retry number `retry` (1 for the second attempt) when the answer gives no
// Retry-After: first_delay × 2^(retry − 1), so 500 ms, 1 s, 2 s with the defaults.
std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int retry);

// A Retry-After header's delay in whole seconds; nullopt when it is empty, negative or an
// HTTP date (neither GitHub nor GitLab sends dates).
std::optional<std::chrono::seconds> parse_retry_after(std::string_view value);

// The URL of the next page in a Link header (`<URL>; rel="next", <URL>; rel="last"`), or
// nullopt on the last page.
std::optional<std::string> next_page_link(std::string_view link_header);

// The most pages a listing is read to. At 100 items a page that is 100,000 comments, far more
// than any pull or merge request holds, while a forge (or a proxy before it) whose next page
// never ends stops within minutes instead of never.
inline constexpr int max_listing_pages = 1000;

// The path and query of `url` when it is on `address`'s origin, else nullopt: a token goes only
// to the configured origin, wherever a Link header points.
std::optional<std::string> path_on_origin(const ApiAddress& address, std::string_view url);

// "404 Not Found" for the statuses forges refuse with, else the bare number.
std::string status_name(int status);

// `text` with newlines and tabs made spaces and other controls written out
// (model::printable_line), so that a forge's words keep a message on one line and cannot drive a
// terminal.
std::string one_line(std::string text);

// `text` with every occurrence of `secret` (a token) replaced by "[token]", so that a forge's or
// server's answer that echoes the token cannot print it; `text` as it is when `secret` is empty.
std::string redact(std::string text, std::string_view secret);

// A whole decimal number, or nullopt.
std::optional<std::int64_t> parse_integer(std::string_view text);

// "2026-09-21 14:13:20 UTC".
std::string utc_time(std::chrono::system_clock::time_point time);

// "GET /projects/1/merge_requests/2/notes": a call without its query, for messages.
std::string method_and_path(std::string_view method, std::string_view path);

// One part of a multipart/form-data body: a plain field, or a file when `filename` is set.
struct FormPart {
    std::string name;
    std::string content;
    std::string filename;
};

// One HTTP exchange with the API's origin.
struct HttpCall {
    std::string method;  // "GET", "POST", "PUT", "PATCH" or "DELETE"
    std::string target;  // path and query below the origin
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;  // JSON text; empty for none
    // A POST's multipart/form-data parts, sent instead of `body` when not empty.
    std::vector<FormPart> form;
};

// The last answer to a call, after any retries.
struct HttpAnswer {
    int status = 0;  // 0: never answered; connection_error says why
    std::string body;
    std::map<std::string, std::string> headers;  // names in lower case
    int attempts = 0;
    std::string connection_error;
    // Set when the answer asked for a wait longer than RetryPolicy::longest_wait: the wait and
    // when the call may be retried.
    std::optional<std::chrono::seconds> refused_wait;
    std::optional<std::chrono::system_clock::time_point> retry_at;

    // Whether the status is 2xx.
    bool succeeded() const;
    // The header's value (`name` in lower case), or nullopt.
    std::optional<std::string> header(const std::string& name) const;
};

// One connection to an API origin that sends calls, retrying what may pass: connection errors
// and 5xx answers (waiting Retry-After when given, else backoff_delay()), and 403 or 429 answers
// that carry Retry-After (waiting it). A wait longer than the policy's longest_wait is not
// made: the answer comes back with refused_wait and retry_at set.
class HttpSession {
  public:
    HttpSession(const std::string& origin, RetryPolicy policy);
    HttpSession(const HttpSession&) = delete;
    HttpSession& operator=(const HttpSession&) = delete;
    ~HttpSession();

    // The answer to `call`: the first 2xx, the first answer not worth retrying, or the last.
    HttpAnswer exchange(const HttpCall& call);

  private:
    RetryPolicy policy_;
    struct Connection;
    std::unique_ptr<Connection> connection_;
};

// The one-line message of a call no attempt reached the forge with: "cannot reach GitLab at
// ORIGIN for GET /x after 4 attempts (Connection); check CI_API_V4_URL and the network".
std::string unreachable_message(std::string_view forge, std::string_view url_variable,
                                std::string_view origin, std::string_view call,
                                const HttpAnswer& answer);

// The one-line message of a call still answered 5xx after every attempt.
std::string outage_message(std::string_view forge, std::string_view call, int status, int attempts);

// The one-line message of an answer whose Retry-After was longer than benchwatch waits:
// "GitLab asks to wait 120 s before retrying GET /x (429 Too Many Requests), longer than the
// 60 s benchwatch waits; retry after 2026-09-21 14:15:20 UTC".
std::string wait_refused_message(std::string_view forge, std::string_view call,
                                 const HttpAnswer& answer, const RetryPolicy& policy);

}  // namespace benchwatch::forge
