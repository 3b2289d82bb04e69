#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "forge/api_client.hpp"
#include "forge/http.hpp"

namespace benchwatch::gitlab {

// A GitLab API call or the merge request's context failed. what() is one line saying what was
// refused and how to fix it; it never contains the token.
class GitLabError : public forge::ForgeError {
  public:
    using forge::ForgeError::ForgeError;
};

// Splits CI_API_V4_URL ("https://gitlab.example.com/api/v4") into origin and path. Throws
// GitLabError unless it is http:// or https:// followed by a host.
forge::ApiAddress parse_api_url(std::string_view url);

// One API call.
struct Request {
    std::string method;  // "GET", "POST", "PUT" or "DELETE"
    std::string path;  // below the API root, query included: "/projects/42/merge_requests/7/notes"
    std::optional<nlohmann::json> body;
    std::string subject;  // what a 404 could not find: "merge request !7 of group/app"
};

// A refused call, as failure_message() needs it.
struct FailedAnswer {
    int status = 0;
    std::string gitlab_message;                   // the body's "message" or "error", on one line
    std::optional<std::int64_t> ratelimit_reset;  // RateLimit-Reset, Unix seconds
    int attempts = 1;                             // how many times it was tried
};

// The one-line message for a refused call. `token_name` is where the token came from
// ("GITLAB_TOKEN"). Example (401): "GitLab rejected the token in GITLAB_TOKEN (401 Unauthorized
// on GET /projects/42/merge_requests/7/notes): it is invalid, expired or revoked; pass a project
// or personal access token with the api scope".
std::string failure_message(const Request& request, const FailedAnswer& answer,
                            std::string_view token_name);

// What configures a Client.
struct ClientOptions {
    std::string api_url = "https://gitlab.com/api/v4";
    std::string token;
    std::string token_name = "GITLAB_TOKEN";  // the variable the token came from, for messages
    forge::RetryPolicy retry;
};

// A GitLab REST API v4 client: JSON bodies, the token in the PRIVATE-TOKEN header.
class Client {
  public:
    // Throws GitLabError when the API URL is malformed.
    explicit Client(ClientOptions options);

    // Sends the request, retrying connection errors and 5xx answers with backoff and waiting a
    // Retry-After of at most RetryPolicy::longest_wait; the answer's JSON body (null when
    // empty). Throws GitLabError with failure_message() for any other answer.
    nlohmann::json send(const Request& request);

    // Every page of a GET answering with a JSON array, following Link rel="next" on the same
    // origin, else X-Next-Page, concatenated; a next page read before, or more than
    // forge::max_listing_pages pages, throws GitLabError.
    std::vector<nlohmann::json> get_all_pages(const Request& request);

  private:
    forge::RefusalMessage refusal_of(const Request& request) const;

    std::string token_name_;
    forge::ApiClient api_;
};

}  // namespace benchwatch::gitlab
