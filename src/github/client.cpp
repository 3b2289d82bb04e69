#include "github/client.hpp"

#include <fmt/format.h>

#include <cassert>
#include <memory>

#include "forge/sticky.hpp"

namespace benchwatch::github {

namespace {

constexpr const char* user_agent = "benchwatch/0.1.0";
constexpr const char* forge_name = "GitHub";
constexpr const char* url_variable = "GITHUB_API_URL";

// "message" of GitHub's error body, followed by each entry of "errors" that has one.
std::string github_message_of(const std::string& body) {
    const auto json = nlohmann::json::parse(body, nullptr, false);
    if (!json.is_object() || !json.contains("message") || !json["message"].is_string()) return "";
    auto message = json["message"].get<std::string>();
    if (json.contains("errors") && json["errors"].is_array())
        for (const auto& error : json["errors"])
            if (error.is_object() && error.contains("message") && error["message"].is_string())
                message += ": " + error["message"].get<std::string>();
    return forge::one_line(message);
}

std::string says(const FailedAnswer& answer) {
    return answer.github_message.empty() ? "" : " (GitHub says: " + answer.github_message + ")";
}

bool rate_limited(const FailedAnswer& answer) {
    return (answer.status == 403 || answer.status == 429) &&
           answer.ratelimit_remaining == std::optional<std::string>("0");
}

std::string reset_time(const FailedAnswer& answer) {
    if (!answer.ratelimit_reset) return "within the hour";
    return "at " + forge::utc_time(std::chrono::system_clock::from_time_t(
                       static_cast<std::time_t>(*answer.ratelimit_reset)));
}

// "GET /repos/o/r/issues/5/comments": the call without its query, for messages.
std::string method_and_path(const Request& request) {
    return forge::method_and_path(request.method, request.path);
}

}  // namespace

ApiAddress parse_api_url(std::string_view url) {
    auto address = forge::split_api_url(url);
    if (!address)
        throw GitHubError(
            fmt::format("GITHUB_API_URL \"{}\" is not an http:// or https:// address; unset it for "
                        "https://api.github.com or give the API root, e.g. https://HOST/api/v3",
                        url));
    return *address;
}

std::string failure_message(const Request& request, const FailedAnswer& answer,
                            std::string_view token_name) {
    const auto call = method_and_path(request);
    const auto status = forge::status_name(answer.status);
    if (rate_limited(answer))
        return fmt::format(
            "GitHub's API rate limit for this token is used up ({} on {}): it resets {}; "
            "retry after that",
            status, call, reset_time(answer));
    switch (answer.status) {
        case 401:
            return fmt::format(
                "GitHub rejected the token in {} ({} on {}): it is invalid or expired; pass a "
                "valid token",
                token_name, status, call);
        case 403:
            if (request.permission.empty())
                return fmt::format("GitHub refused {} ({}): the token lacks permission{}", call,
                                   status, says(answer));
            return fmt::format(
                "GitHub refused {} ({}): the token lacks permission; give the workflow "
                "`permissions: {}`{}",
                call, status, request.permission, says(answer));
        case 404:
            return fmt::format(
                "GitHub cannot find {} ({} on {}): check the repository and number, and that "
                "the token can read the repository",
                request.subject.empty() ? call : request.subject, status, call);
        case 422:
            return fmt::format(
                "GitHub rejected {} ({}): {}", call, status,
                answer.github_message.empty() ? "no reason given" : answer.github_message);
        case 429:
            return fmt::format(
                "GitHub is rate-limiting this token ({} on {}): retry in a few "
                "minutes{}",
                status, call, says(answer));
        default:
            break;
    }
    if (answer.status >= 500 && answer.status <= 599)
        return forge::outage_message(forge_name, call, answer.status, answer.attempts);
    return fmt::format("GitHub answered {} to {}{}", answer.status, call, says(answer));
}

Client::Client(ClientOptions options)
    : token_name_(options.token_name),
      api_(parse_api_url(options.api_url),
           {forge_name,
            url_variable,
            {
                {"Authorization", "Bearer " + options.token},
                {"Accept", "application/vnd.github+json"},
                {"X-GitHub-Api-Version", "2022-11-28"},
                {"User-Agent", user_agent},
            },
            [](const std::string& message) { throw GitHubError(message); },
            options.token},
           options.retry) {}

forge::RefusalMessage Client::refusal_of(const Request& request) const {
    return [this, &request](const forge::HttpAnswer& answer) {
        const FailedAnswer failure{
            answer.status, github_message_of(answer.body), answer.header("x-ratelimit-remaining"),
            forge::parse_integer(answer.header("x-ratelimit-reset").value_or("")), answer.attempts};
        return failure_message(request, failure, token_name_);
    };
}

nlohmann::json Client::send(const Request& request) {
    assert(request.method == "GET" || request.method == "POST" || request.method == "PATCH" ||
           request.method == "DELETE");
    return api_.send(request.method, request.path, request.body, refusal_of(request));
}

std::optional<nlohmann::json> Client::get_if_allowed(const Request& request) {
    assert(request.method == "GET");
    // A 403 that is not the rate limit: the token may not read this (GET /user with the
    // installation token of GitHub Actions: "Resource not accessible by integration").
    const auto not_allowed = [](const forge::HttpAnswer& answer) {
        return answer.status == 403 && answer.header("x-ratelimit-remaining") != "0";
    };
    return api_.get_unless(request.path, refusal_of(request), not_allowed);
}

std::vector<nlohmann::json> Client::get_all_pages(const Request& request) {
    assert(request.method == "GET");
    return api_.get_all_pages(request.path, refusal_of(request));
}

std::function<bool(const nlohmann::json& item)> written_by_us(Client& client) {
    struct Identity {
        bool asked = false;
        std::optional<nlohmann::json> user;
    };
    auto identity = std::make_shared<Identity>();
    return [&client, identity](const nlohmann::json& item) {
        const auto user = item.contains("user") ? item["user"] : nlohmann::json();
        if (user.is_object() && user.contains("type") && user["type"] == "Bot") return true;
        if (!identity->asked) {
            identity->asked = true;
            identity->user = client.get_if_allowed({"GET", "/user", std::nullopt, "", ""});
        }
        return identity->user && forge::same_user(user, *identity->user, "login");
    };
}

}  // namespace benchwatch::github
