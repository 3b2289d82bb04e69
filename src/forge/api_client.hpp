#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "forge/http.hpp"

namespace benchwatch::forge {

// What one forge's API client says and sends that another's does not.
struct ApiFlavour {
    std::string forge;         // "GitLab", for messages
    std::string url_variable;  // "CI_API_V4_URL": where the API root came from, for messages
    std::vector<std::pair<std::string, std::string>> headers;  // the token's included
    // Throws the forge's own error with the one-line message; ForgeError is thrown if it returns.
    std::function<void(const std::string&)> raise;
    // The token: redacted from every message, which may quote what the forge answered.
    std::string secret;
};

// Whether a refused answer means "not allowed" rather than a failure (GitHub's 403 to GET /user
// for an Actions token).
using AcceptedRefusal = std::function<bool(const HttpAnswer&)>;

// The one-line message of a refused answer (not 2xx, not retried further, not a refused wait).
using RefusalMessage = std::function<std::string(const HttpAnswer&)>;

// A JSON REST API on one origin, called over an HttpSession. Every failure is one line raised
// through the flavour: no connection, a wait too long, a refusal (worded by the caller), or a
// body that is not the JSON expected.
class ApiClient {
  public:
    ApiClient(ApiAddress address, ApiFlavour flavour, RetryPolicy policy);

    // The JSON body (null when empty) of a 2xx answer to `method` on `path` (below the API root,
    // query included).
    nlohmann::json send(const std::string& method, const std::string& path,
                        const std::optional<nlohmann::json>& body, const RefusalMessage& refusal);

    // The JSON body of a 2xx answer to GET `path`, or nullopt when the answer is a refusal that
    // `accepted` allows; any other failure is raised as send() raises it.
    std::optional<nlohmann::json> get_unless(const std::string& path, const RefusalMessage& refusal,
                                             const AcceptedRefusal& accepted);

    // Every page of a GET answering with a JSON array, concatenated: the next page is Link's
    // rel="next" on the same origin, else X-Next-Page's number added to `path`'s query. A next
    // page already read, or more than max_listing_pages pages, fails with one line.
    std::vector<nlohmann::json> get_all_pages(const std::string& path,
                                              const RefusalMessage& refusal);

  private:
    HttpAnswer exchange(const std::string& method, const std::string& path_and_query,
                        const std::optional<nlohmann::json>& body, const std::string& call,
                        const RefusalMessage& refusal, const AcceptedRefusal& accepted = {});
    nlohmann::json parse_body(const HttpAnswer& answer, const std::string& call) const;
    [[noreturn]] void fail(const std::string& message) const;

    ApiAddress address_;
    ApiFlavour flavour_;
    RetryPolicy policy_;
    HttpSession session_;
};

}  // namespace benchwatch::forge
