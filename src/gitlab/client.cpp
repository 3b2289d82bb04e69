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
    : options_(std::move(options)),
      address_(parse_api_url(options_.api_url)),
      session_(address_.origin, options_.retry) {}

forge::HttpAnswer Client::exchange(const Request& request, const std::string& path_and_query) {
    assert(request.method == "GET" || request.method == "POST" || request.method == "PUT" ||
           request.method == "DELETE");
    auto answer = session_.exchange({request.method,
                                     path_and_query,
                                     {{"PRIVATE-TOKEN", options_.token},
                                      {"Accept", "application/json"},
                                      {"User-Agent", user_agent}},
                                     request.body ? request.body->dump() : std::string()});
    if (answer.succeeded()) return answer;
    const auto call = method_and_path(request);
    if (answer.status == 0)
        throw GitLabError(
            forge::unreachable_message(forge_name, url_variable, address_.origin, call, answer));
    if (answer.refused_wait)
        throw GitLabError(forge::wait_refused_message(forge_name, call, answer, options_.retry));
    const FailedAnswer failure{answer.status, gitlab_message_of(answer.body),
                               forge::parse_integer(answer.header("ratelimit-reset").value_or("")),
                               answer.attempts};
    throw GitLabError(failure_message(request, failure, options_.token_name));
}

nlohmann::json Client::send(const Request& request) {
    const auto answer = exchange(request, address_.path_prefix + request.path);
    if (answer.body.empty()) return nullptr;
    auto json = nlohmann::json::parse(answer.body, nullptr, false);
    if (json.is_discarded())
        throw GitLabError(
            fmt::format("GitLab answered {} with a body that is not JSON; check that "
                        "CI_API_V4_URL is the API's address",
                        method_and_path(request)));
    return json;
}

std::vector<nlohmann::json> Client::get_all_pages(const Request& request) {
    assert(request.method == "GET");
    std::vector<nlohmann::json> items;
    const auto first_page = address_.path_prefix + request.path;
    auto path_and_query = first_page;
    for (;;) {
        const auto answer = exchange(request, path_and_query);
        auto page = nlohmann::json::parse(answer.body, nullptr, false);
        if (!page.is_array())
            throw GitLabError(
                fmt::format("GitLab answered {} with something other than a JSON list; "
                            "check that CI_API_V4_URL is the API's address",
                            method_and_path(request)));
        for (auto& item : page) items.push_back(std::move(item));
        if (const auto next = forge::next_page_link(answer.header("link").value_or(""))) {
            auto next_path = forge::path_on_origin(address_, *next);
            if (!next_path)
                throw GitLabError(
                    fmt::format("GitLab's next page of {} is on another host ({}); check "
                                "CI_API_V4_URL",
                                method_and_path(request), *next));
            path_and_query = std::move(*next_path);
            continue;
        }
        const auto next_number = forge::parse_integer(answer.header("x-next-page").value_or(""));
        if (!next_number) return items;
        path_and_query =
            fmt::format("{}{}page={}", first_page,
                        first_page.find('?') == std::string::npos ? '?' : '&', *next_number);
    }
}

}  // namespace benchwatch::gitlab
