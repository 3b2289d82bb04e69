#include "forge/api_client.hpp"

#include <fmt/format.h>

#include <set>

namespace benchwatch::forge {

ApiClient::ApiClient(ApiAddress address, ApiFlavour flavour, RetryPolicy policy)
    : address_(std::move(address)),
      flavour_(std::move(flavour)),
      policy_(std::move(policy)),
      session_(address_.origin, policy_) {}

void ApiClient::fail(const std::string& message) const {
    // Refusals quote the forge's own words, which may echo what was sent, the token included.
    const auto redacted = redact(message, flavour_.secret);
    if (flavour_.raise) flavour_.raise(redacted);
    throw ForgeError(redacted);
}

HttpAnswer ApiClient::exchange(const std::string& method, const std::string& path_and_query,
                               const std::optional<nlohmann::json>& body, const std::string& call,
                               const RefusalMessage& refusal, const AcceptedRefusal& accepted) {
    auto answer = session_.exchange(
        {method, path_and_query, flavour_.headers, body ? body->dump() : std::string(), {}});
    if (answer.succeeded()) return answer;
    if (answer.status == 0)
        fail(unreachable_message(flavour_.forge, flavour_.url_variable, address_.origin, call,
                                 answer));
    if (answer.refused_wait) fail(wait_refused_message(flavour_.forge, call, answer, policy_));
    if (accepted && accepted(answer)) return answer;
    fail(refusal(answer));
}

nlohmann::json ApiClient::parse_body(const HttpAnswer& answer, const std::string& call) const {
    if (answer.body.empty()) return nullptr;
    auto json = nlohmann::json::parse(answer.body, nullptr, false);
    if (json.is_discarded())
        fail(
            fmt::format("{} answered {} with a body that is not JSON; check that {} is the "
                        "API's address",
                        flavour_.forge, call, flavour_.url_variable));
    return json;
}

nlohmann::json ApiClient::send(const std::string& method, const std::string& path,
                               const std::optional<nlohmann::json>& body,
                               const RefusalMessage& refusal) {
    const auto call = method_and_path(method, path);
    return parse_body(exchange(method, address_.path_prefix + path, body, call, refusal), call);
}

std::optional<nlohmann::json> ApiClient::get_unless(const std::string& path,
                                                    const RefusalMessage& refusal,
                                                    const AcceptedRefusal& accepted) {
    const auto call = method_and_path("GET", path);
    const auto answer =
        exchange("GET", address_.path_prefix + path, std::nullopt, call, refusal, accepted);
    if (!answer.succeeded()) return std::nullopt;
    return parse_body(answer, call);
}

std::vector<nlohmann::json> ApiClient::get_all_pages(const std::string& path,
                                                     const RefusalMessage& refusal) {
    const auto call = method_and_path("GET", path);
    const auto first_page = address_.path_prefix + path;
    std::vector<nlohmann::json> items;
    auto path_and_query = first_page;
    std::set<std::string> read;
    for (int pages = 1;; ++pages) {
        if (pages > max_listing_pages)
            fail(fmt::format(
                "{} answered {} with more than {} pages; stopped there rather than read on "
                "without end; retry later",
                flavour_.forge, call, max_listing_pages));
        if (!read.insert(path_and_query).second)
            fail(fmt::format(
                "{} answered {} with a next page it had sent before ({}); stopped after {} pages "
                "rather than read the same pages forever; retry later",
                flavour_.forge, call, path_and_query, pages - 1));
        const auto answer = exchange("GET", path_and_query, std::nullopt, call, refusal);
        auto page = nlohmann::json::parse(answer.body, nullptr, false);
        if (!page.is_array())
            fail(
                fmt::format("{} answered {} with something other than a JSON list; check that "
                            "{} is the API's address",
                            flavour_.forge, call, flavour_.url_variable));
        for (auto& item : page) items.push_back(std::move(item));
        if (const auto next = next_page_link(answer.header("link").value_or(""))) {
            auto next_path = path_on_origin(address_, *next);
            if (!next_path)
                fail(fmt::format("{}'s next page of {} is on another host ({}); check {}",
                                 flavour_.forge, call, *next, flavour_.url_variable));
            path_and_query = std::move(*next_path);
            continue;
        }
        const auto next_number = parse_integer(answer.header("x-next-page").value_or(""));
        if (!next_number) return items;
        path_and_query =
            fmt::format("{}{}page={}", first_page,
                        first_page.find('?') == std::string::npos ? '?' : '&', *next_number);
    }
}

}  // namespace benchwatch::forge
