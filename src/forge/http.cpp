#include "forge/http.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <cassert>
#include <cctype>
#include <charconv>
#include <thread>

#include "model/printable.hpp"

namespace benchwatch::forge {

namespace {

bool transient(int status) {
    return status >= 500 && status <= 599;
}

std::string lower_case(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char character) { return std::tolower(character); });
    return text;
}

httplib::Result perform(httplib::Client& http, const HttpCall& call) {
    httplib::Headers headers;
    for (const auto& [name, value] : call.headers) headers.emplace(name, value);
    constexpr const char* json_type = "application/json";
    if (!call.form.empty()) {
        assert(call.method == "POST");
        httplib::MultipartFormDataItems items;
        for (const auto& part : call.form)
            items.push_back({part.name, part.content, part.filename,
                             part.filename.empty() ? "" : "application/octet-stream"});
        return http.Post(call.target, headers, items);
    }
    if (call.method == "POST") return http.Post(call.target, headers, call.body, json_type);
    if (call.method == "PUT") return http.Put(call.target, headers, call.body, json_type);
    if (call.method == "PATCH") return http.Patch(call.target, headers, call.body, json_type);
    if (call.method == "DELETE") return http.Delete(call.target, headers);
    assert(call.method == "GET");
    return http.Get(call.target, headers);
}

}  // namespace

std::optional<ApiAddress> split_api_url(std::string_view url) {
    const auto scheme_end = url.find("://");
    const auto scheme = scheme_end == std::string_view::npos ? "" : url.substr(0, scheme_end);
    const auto host_begin = scheme_end + 3;
    const auto path_begin = scheme.empty() ? std::string_view::npos : url.find('/', host_begin);
    const auto host = scheme.empty() ? "" : url.substr(host_begin, path_begin - host_begin);
    if ((scheme != "http" && scheme != "https") || host.empty()) return std::nullopt;
    ApiAddress address{std::string(url.substr(0, path_begin)), ""};
    if (path_begin != std::string_view::npos) address.path_prefix = url.substr(path_begin);
    while (address.path_prefix.ends_with('/')) address.path_prefix.pop_back();
    return address;
}

std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int retry) {
    assert(retry >= 1);
    return policy.first_delay * (std::int64_t{1} << (retry - 1));
}

std::optional<std::chrono::seconds> parse_retry_after(std::string_view value) {
    while (value.starts_with(' ')) value.remove_prefix(1);
    while (value.ends_with(' ')) value.remove_suffix(1);
    const auto seconds = parse_integer(value);
    if (!seconds || *seconds < 0) return std::nullopt;
    return std::chrono::seconds(*seconds);
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

std::optional<std::string> path_on_origin(const ApiAddress& address, std::string_view url) {
    if (!url.starts_with(address.origin + "/")) return std::nullopt;
    return std::string(url.substr(address.origin.size()));
}

std::string status_name(int status) {
    switch (status) {
        case 400:
            return "400 Bad Request";
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

std::string one_line(std::string text) {
    for (auto& character : text)
        if (character == '\n' || character == '\r' || character == '\t') character = ' ';
    return model::printable_line(text);
}

std::string redact(std::string text, std::string_view secret) {
    if (secret.empty()) return text;
    constexpr std::string_view shown = "[token]";
    for (auto at = text.find(secret); at != std::string::npos;
         at = text.find(secret, at + shown.size()))
        text.replace(at, secret.size(), shown);
    return text;
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc{} || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

std::string utc_time(std::chrono::system_clock::time_point time) {
    return fmt::format("{:%Y-%m-%d %H:%M:%S} UTC",
                       fmt::gmtime(std::chrono::system_clock::to_time_t(time)));
}

std::string method_and_path(std::string_view method, std::string_view path) {
    return fmt::format("{} {}", method, path.substr(0, path.find('?')));
}

bool HttpAnswer::succeeded() const {
    return status >= 200 && status <= 299;
}

std::optional<std::string> HttpAnswer::header(const std::string& name) const {
    const auto found = headers.find(name);
    if (found == headers.end()) return std::nullopt;
    return found->second;
}

struct HttpSession::Connection {
    explicit Connection(const std::string& origin) : http(origin) {}
    httplib::Client http;
};

HttpSession::HttpSession(const std::string& origin, RetryPolicy policy)
    : policy_(std::move(policy)), connection_(std::make_unique<Connection>(origin)) {
    connection_->http.set_connection_timeout(std::chrono::seconds(10));
    connection_->http.set_read_timeout(std::chrono::seconds(30));
    connection_->http.set_write_timeout(std::chrono::seconds(30));
}

HttpSession::~HttpSession() = default;

HttpAnswer HttpSession::exchange(const HttpCall& call) {
    HttpAnswer answer;
    std::chrono::milliseconds wait{0};
    for (int attempt = 1; attempt <= policy_.attempts; ++attempt) {
        if (attempt > 1) {
            if (policy_.sleep)
                policy_.sleep(wait);
            else
                std::this_thread::sleep_for(wait);
        }
        answer = HttpAnswer{};
        answer.attempts = attempt;
        auto result = perform(connection_->http, call);
        if (!result) {
            answer.connection_error = httplib::to_string(result.error());
            wait = backoff_delay(policy_, attempt);
            continue;
        }
        answer.status = result->status;
        answer.body = std::move(result->body);
        for (const auto& [name, value] : result->headers)
            answer.headers.emplace(lower_case(name), value);
        if (answer.succeeded()) return answer;
        const auto retry_after = parse_retry_after(answer.header("retry-after").value_or(""));
        const bool rate_limited = (answer.status == 403 || answer.status == 429) && retry_after;
        if (!transient(answer.status) && !rate_limited) return answer;
        if (retry_after && *retry_after > policy_.longest_wait) {
            answer.refused_wait = *retry_after;
            answer.retry_at =
                (policy_.now ? policy_.now() : std::chrono::system_clock::now()) + *retry_after;
            return answer;
        }
        wait =
            retry_after ? std::chrono::milliseconds(*retry_after) : backoff_delay(policy_, attempt);
    }
    return answer;
}

std::string unreachable_message(std::string_view forge, std::string_view url_variable,
                                std::string_view origin, std::string_view call,
                                const HttpAnswer& answer) {
    return fmt::format(
        "cannot reach {} at {} for {} after {} attempts ({}); check {} and the network", forge,
        origin, call, answer.attempts, answer.connection_error, url_variable);
}

std::string outage_message(std::string_view forge, std::string_view call, int status,
                           int attempts) {
    return fmt::format("{} answered {} to {} {} times; it may be having an outage, retry later",
                       forge, status, call, attempts);
}

std::string wait_refused_message(std::string_view forge, std::string_view call,
                                 const HttpAnswer& answer, const RetryPolicy& policy) {
    assert(answer.refused_wait && answer.retry_at);
    return fmt::format(
        "{} asks to wait {} s before retrying {} ({}), longer than the {} s benchwatch waits; "
        "retry after {}",
        forge, answer.refused_wait->count(), call, status_name(answer.status),
        policy.longest_wait.count(), utc_time(*answer.retry_at));
}

}  // namespace benchwatch::forge
