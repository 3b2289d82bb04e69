#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "forge/api_client.hpp"
#include "forge/http.hpp"

namespace benchwatch::github {

// A GitHub API call or the pull request's context failed. what() is one line saying what was
// refused and how to fix it; it never contains the token.
class GitHubError : public forge::ForgeError {
  public:
    using forge::ForgeError::ForgeError;
};

// Where the API lives: "https://api.github.com", or GitHub Enterprise's "https://HOST/api/v3".
using forge::ApiAddress;

// Splits GITHUB_API_URL into origin and path. Throws GitHubError unless it is http:// or
// https:// followed by a host.
ApiAddress parse_api_url(std::string_view url);

// How failures that may pass are retried, and the pieces of HTTP both forges share.
using forge::backoff_delay;
using forge::next_page_link;
using forge::RetryPolicy;

// One API call.
struct Request {
    std::string method;  // "GET", "POST", "PATCH" or "DELETE"
    std::string path;    // below the API address, query included: "/repos/o/r/pulls?page=2"
    std::optional<nlohmann::json> body;
    std::string subject;     // what a 404 could not find: "pull request #5 of o/r"
    std::string permission;  // what a 403 lacks: "pull-requests: write"
};

// A non-2xx answer, as failure_message() needs it.
struct FailedAnswer {
    int status = 0;
    std::string github_message;                      // the JSON body's "message" (and errors)
    std::optional<std::string> ratelimit_remaining;  // x-ratelimit-remaining
    std::optional<std::int64_t> ratelimit_reset;     // x-ratelimit-reset, Unix seconds
    int attempts = 1;                                // how many times it was tried
};

// The one-line message for a refused request. `token_name` is where the token came from
// ("GITHUB_TOKEN"). Example (401): "GitHub rejected the token in GITHUB_TOKEN (401 Unauthorized
// on GET /repos/o/r/issues/5/comments): it is invalid or expired; pass a valid token".
std::string failure_message(const Request& request, const FailedAnswer& answer,
                            std::string_view token_name);

// What configures a Client.
struct ClientOptions {
    std::string api_url = "https://api.github.com";
    std::string token;
    std::string token_name = "GITHUB_TOKEN";  // the variable the token came from, for messages
    RetryPolicy retry;
};

// A GitHub REST API client: JSON bodies, a bearer token, API version 2022-11-28.
class Client {
  public:
    // Throws GitHubError when the API URL is malformed.
    explicit Client(ClientOptions options);

    // Sends the request, retrying transient failures and waiting a Retry-After of at most
    // RetryPolicy::longest_wait; the answer's JSON body (null when empty).
    // Throws GitHubError with failure_message() for any other answer.
    nlohmann::json send(const Request& request);

    // The JSON body of a GET, or nullopt when GitHub answers 403 without the rate limit being
    // used up (the token may not read it); every other failure as send().
    std::optional<nlohmann::json> get_if_allowed(const Request& request);

    // Every page of a GET answering with a JSON array, following Link rel="next" on the same
    // origin, concatenated; a next page read before, or more than forge::max_listing_pages
    // pages, throws GitHubError.
    std::vector<nlohmann::json> get_all_pages(const Request& request);

  private:
    forge::RefusalMessage refusal_of(const Request& request) const;

    std::string token_name_;
    forge::ApiClient api_;
};

// Whether a listed comment or issue was written by benchwatch: by a bot (the Actions token writes
// as github-actions[bot], an app's token as its own bot), or by the token's own user. GET /user
// is asked at most once, the first time a person's item is looked at; GitHub refuses it to
// installation tokens (403), and then only bots' items count. The predicate keeps `client`.
std::function<bool(const nlohmann::json& item)> written_by_us(Client& client);

}  // namespace benchwatch::github
