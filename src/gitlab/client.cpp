#include "gitlab/client.hpp"

#include <fmt/format.h>

#include <cassert>

namespace benchwatch::gitlab {

namespace {

constexpr const char* user_agent = "benchwatch/0.1.0";
constexpr const char* forge_name = "GitLab";
constexpr const char* url_variable = "CI_API_V4_URL";

// GitLab's reasons: {"message": "404 Project Not Found"}, {"error": "body is missing"}, or
// validation errors {"message": {"note": ["is too long"]}} as "note is too long".
std::string gitlab_message_of(const std::string& body) {
    const auto json = nlohmann::json::parse(body, nullptr, false);
    if (!json.is_object()) return "";
    if (json.contains("error") && json["error"].is_string())
        return forge::one_line(json["error"].get<std::string>());
    if (!json.contains("message")) return "";
    const auto& message = json["message"];
    if (message.is_string()) return forge::one_line(message.get<std::string>());
    std::string joined;
    if (message.is_object())
        for (const auto& [field, reasons] : message.items())
            for (const auto& reason :
                 reasons.is_array() ? reasons : nlohmann::json::array({reasons}))
                if (reason.is_string())
                    joined +=
                        (joined.empty() ? "" : "; ") + field + " " + reason.get<std::string>();
    return forge::one_line(joined);
}

std::string says(const FailedAnswer& answer) {
    return answer.gitlab_message.empty() ? "" : " (GitLab says: " + answer.gitlab_message + ")";
}

std::string method_and_path(const Request& request) {
    return forge::method_and_path(request.method, request.path);
}

}  // namespace

forge::ApiAddress parse_api_url(std::string_view url) {
    auto address = forge::split_api_url(url);
    if (!address)
        throw GitLabError(
            fmt::format("CI_API_V4_URL \"{}\" is not an http:// or https:// address; unset it for "
                        "https://gitlab.com/api/v4 or give the API root, e.g. https://HOST/api/v4",
                        url));
    return *address;
}

std::string failure_message(const Request& request, const FailedAnswer& answer,
                            std::string_view token_name) {
    const auto call = method_and_path(request);
    const auto status = forge::status_name(answer.status);
    switch (answer.status) {
        case 400:
        case 422:
            return fmt::format(
                "GitLab rejected {} ({}): {}", call, status,
                answer.gitlab_message.empty() ? "no reason given" : answer.gitlab_message);
        case 401:
            return fmt::format(
                "GitLab rejected the token in {} ({} on {}): it is invalid, expired or revoked; "
                "pass a project or personal access token with the api scope",
                token_name, status, call);
        case 403:
            return fmt::format(
                "GitLab refused {} ({}): the token in {} lacks the api scope or may not write "
                "on this merge request; use a project or personal access token with the api "
                "scope and at least the Reporter role",
                call, status, token_name);
        case 404:
            return fmt::format(
                "GitLab cannot find {} ({} on {}): check the project and merge request IID, and "
                "that the token can see the project",
                request.subject.empty() ? call : request.subject, status, call);
        case 429:
            if (answer.ratelimit_reset)
                return fmt::format(
                    "GitLab is rate-limiting this token ({} on {}): the limit resets at {}; "
                    "retry after that",
                    status, call,
                    forge::utc_time(std::chrono::system_clock::from_time_t(
                        static_cast<std::time_t>(*answer.ratelimit_reset))));
            return fmt::format("GitLab is rate-limiting this token ({} on {}): retry in a minute",
                               status, call);
        default:
            break;
    }
    if (answer.status >= 500 && answer.status <= 599)
        return forge::outage_message(forge_name, call, answer.status, answer.attempts);
    return fmt::format("GitLab answered {} to {}{}", answer.status, call, says(answer));
}

Client::Client(ClientOptions options)
    : token_name_(options.token_name),
      api_(parse_api_url(options.api_url),
           {forge_name,
            url_variable,
            {{"PRIVATE-TOKEN", options.token},
             {"Accept", "application/json"},
             {"User-Agent", user_agent}},
            [](const std::string& message) { throw GitLabError(message); },
            options.token},
           options.retry) {}

forge::RefusalMessage Client::refusal_of(const Request& request) const {
    return [this, &request](const forge::HttpAnswer& answer) {
        const FailedAnswer failure{
            answer.status, gitlab_message_of(answer.body),
            forge::parse_integer(answer.header("ratelimit-reset").value_or("")), answer.attempts};
        return failure_message(request, failure, token_name_);
    };
}

nlohmann::json Client::send(const Request& request) {
    assert(request.method == "GET" || request.method == "POST" || request.method == "PUT" ||
           request.method == "DELETE");
    return api_.send(request.method, request.path, request.body, refusal_of(request));
}

std::vector<nlohmann::json> Client::get_all_pages(const Request& request) {
    assert(request.method == "GET");
    return api_.get_all_pages(request.path, refusal_of(request));
}

}  // namespace benchwatch::gitlab
