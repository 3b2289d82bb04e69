#include "github/client.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <httplib.h>

#include <cassert>
#include <charconv>
#include <thread>

namespace benchwatch::github {

namespace {

constexpr const char* user_agent = "benchwatch/0.1.0";

std::string status_name(int status) {
    switch (status) {
        case 401:
            return "401 Unauthorized";
        case 403:
            return "403 Forbidden";
        case 404:
            return "404 Not Found";
        case 422:
            return "422 Unprocessable Entity";
        case 429:
            return "429 Too Many Requests";
        default:
            return std::to_string(status);
    }
}

// Newlines and tabs from GitHub's text become spaces, so that every message stays one line.
std::string one_line(std::string text) {
    for (auto& character : text)
        if (character == '\n' || character == '\r' || character == '\t') character = ' ';
    return text;
}

// "message" of GitHub's error body, followed by each entry of "errors" that has one.
std::string github_message_of(const std::string& body) {
    const auto json = nlohmann::json::parse(body, nullptr, false);
    if (!json.is_object() || !json.contains("message") || !json["message"].is_string()) return "";
    auto message = json["message"].get<std::string>();
    if (json.contains("errors") && json["errors"].is_array())
        for (const auto& error : json["errors"])
            if (error.is_object() && error.contains("message") && error["message"].is_string())
                message += ": " + error["message"].get<std::string>();
    return one_line(message);
}

std::optional<std::int64_t> parse_integer(const std::string& text) {
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
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
    return fmt::format("at {:%Y-%m-%d %H:%M:%S} UTC",
                       fmt::gmtime(static_cast<std::time_t>(*answer.ratelimit_reset)));
}

// "GET /repos/o/r/issues/5/comments": the call without its query, for messages.
std::string method_and_path(const Request& request) {
    return request.method + " " + request.path.substr(0, request.path.find('?'));
}

bool transient(int status) {
    return status >= 500 && status <= 599;
}

httplib::Result perform(httplib::Client& http, const std::string& method, const std::string& path,
                        const httplib::Headers& headers, const std::string& body) {
    constexpr const char* json_type = "application/json";
    if (method == "POST") return http.Post(path, headers, body, json_type);
    if (method == "PATCH") return http.Patch(path, headers, body, json_type);
    if (method == "DELETE") return http.Delete(path, headers);
    return http.Get(path, headers);
}

}  // namespace

ApiAddress parse_api_url(std::string_view url) {
    const auto scheme_end = url.find("://");
    const auto scheme = scheme_end == std::string_view::npos ? "" : url.substr(0, scheme_end);
    const auto host_begin = scheme_end + 3;
    const auto path_begin = scheme.empty() ? std::string_view::npos : url.find('/', host_begin);
    const auto host = scheme.empty() ? "" : url.substr(host_begin, path_begin - host_begin);
    if ((scheme != "http" && scheme != "https") || host.empty())
        throw GitHubError(
            fmt::format("GITHUB_API_URL \"{}\" is not an http:// or https:// address; unset it for "
                        "https://api.github.com or give the API root, e.g. https://HOST/api/v3",
                        url));
    ApiAddress address{std::string(url.substr(0, path_begin)), ""};
    if (path_begin != std::string_view::npos) address.path_prefix = url.substr(path_begin);
    while (address.path_prefix.ends_with('/')) address.path_prefix.pop_back();
    return address;
}

std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int retry) {
    assert(retry >= 1);
    return policy.first_delay * (std::int64_t{1} << (retry - 1));
}

std::optional<std::string> next_page_link(std::string_view link_header) {
    while (!link_header.empty()) {
        const auto open = link_header.find('<');
        const auto close = link_header.find('>', open);
        if (open == std::string_view::npos || close == std::string_view::npos) break;
        const auto url = link_header.substr(open + 1, close - open - 1);
        const auto comma = link_header.find(',', close);
        const auto parameters = link_header.substr(close + 1, comma - close - 1);
        if (parameters.find("rel=\"next\"") != std::string_view::npos) return std::string(url);
        if (comma == std::string_view::npos) break;
        link_header.remove_prefix(comma + 1);
    }
    return std::nullopt;
}

std::string failure_message(const Request& request, const FailedAnswer& answer,
                            std::string_view token_name) {
    const auto call = method_and_path(request);
    const auto status = status_name(answer.status);
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
    if (transient(answer.status))
        return fmt::format(
            "GitHub answered {} to {} {} times; it may be having an outage, "
            "retry later",
            answer.status, call, answer.attempts);
    return fmt::format("GitHub answered {} to {}{}", answer.status, call, says(answer));
}

struct Client::Connection {
    explicit Connection(const std::string& origin) : http(origin) {}
    httplib::Client http;
};

struct Client::Answer {
    int status = 0;
    std::string body;
    std::string link;
};

Client::Client(ClientOptions options)
    : options_(std::move(options)),
      address_(parse_api_url(options_.api_url)),
      connection_(std::make_unique<Connection>(address_.origin)) {
    connection_->http.set_connection_timeout(std::chrono::seconds(10));
    connection_->http.set_read_timeout(std::chrono::seconds(30));
    connection_->http.set_write_timeout(std::chrono::seconds(30));
}

Client::~Client() = default;

Client::Answer Client::exchange(const Request& request, const std::string& path_and_query) {
    const httplib::Headers headers = {
        {"Authorization", "Bearer " + options_.token},
        {"Accept", "application/vnd.github+json"},
        {"X-GitHub-Api-Version", "2022-11-28"},
        {"User-Agent", user_agent},
    };
    const auto body = request.body ? request.body->dump() : std::string();
    assert(request.method == "GET" || request.method == "POST" || request.method == "PATCH" ||
           request.method == "DELETE");
    auto& http = connection_->http;
    FailedAnswer failure;
    std::string connection_error;
    for (int attempt = 1; attempt <= options_.retry.attempts; ++attempt) {
        if (attempt > 1) {
            const auto delay = backoff_delay(options_.retry, attempt - 1);
            if (options_.retry.sleep)
                options_.retry.sleep(delay);
            else
                std::this_thread::sleep_for(delay);
        }
        auto result = perform(http, request.method, path_and_query, headers, body);
        failure.attempts = attempt;
        if (!result) {
            connection_error = httplib::to_string(result.error());
            continue;
        }
        connection_error.clear();
        const auto& response = result.value();
        if (response.status >= 200 && response.status <= 299)
            return {response.status, response.body, response.get_header_value("Link")};
        failure.status = response.status;
        if (transient(response.status)) continue;
        failure.github_message = github_message_of(response.body);
        if (response.has_header("x-ratelimit-remaining"))
            failure.ratelimit_remaining = response.get_header_value("x-ratelimit-remaining");
        failure.ratelimit_reset = parse_integer(response.get_header_value("x-ratelimit-reset"));
        break;
    }
    if (!connection_error.empty())
        throw GitHubError(fmt::format(
            "cannot reach GitHub at {} for {} after {} attempts ({}); check GITHUB_API_URL "
            "and the network",
            address_.origin, method_and_path(request), failure.attempts, connection_error));
    throw GitHubError(failure_message(request, failure, options_.token_name));
}

nlohmann::json Client::send(const Request& request) {
    const auto answer = exchange(request, address_.path_prefix + request.path);
    if (answer.body.empty()) return nullptr;
    auto json = nlohmann::json::parse(answer.body, nullptr, false);
    if (json.is_discarded())
        throw GitHubError(
            fmt::format("GitHub answered {} with a body that is not JSON; check that "
                        "GITHUB_API_URL is the API's address",
                        method_and_path(request)));
    return json;
}

std::vector<nlohmann::json> Client::get_all_pages(const Request& request) {
    assert(request.method == "GET");
    std::vector<nlohmann::json> items;
    auto path_and_query = address_.path_prefix + request.path;
    for (;;) {
        const auto answer = exchange(request, path_and_query);
        auto page = nlohmann::json::parse(answer.body, nullptr, false);
        if (!page.is_array())
            throw GitHubError(
                fmt::format("GitHub answered {} with something other than a JSON list; "
                            "check that GITHUB_API_URL is the API's address",
                            method_and_path(request)));
        for (auto& item : page) items.push_back(std::move(item));
        const auto next = next_page_link(answer.link);
        if (!next) return items;
        // The token goes only to the configured origin, wherever a Link header points.
        if (!next->starts_with(address_.origin + "/"))
            throw GitHubError(
                fmt::format("GitHub's next page of {} is on another host ({}); "
                            "check GITHUB_API_URL",
                            method_and_path(request), *next));
        path_and_query = next->substr(address_.origin.size());
    }
}

}  // namespace benchwatch::github
