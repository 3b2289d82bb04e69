#include "github/alert.hpp"

#include <fmt/format.h>

#include <optional>

#include "forge/sticky.hpp"

namespace benchwatch::github {

namespace {

constexpr const char* write_permission = "issues: write";

std::string issues_path(const std::string& repository) {
    return fmt::format("/repos/{}/issues", repository);
}

std::string issue_subject(const std::string& repository, std::int64_t number) {
    return fmt::format("issue #{} of {}", number, repository);
}

std::string string_of(const nlohmann::json& item, const char* key) {
    return item.contains(key) && item[key].is_string() ? item[key].get<std::string>() : "";
}

}  // namespace

std::vector<forge::AlertIssue> list_alert_issues(Client& client, const std::string& repository,
                                                 const std::string& label,
                                                 std::string_view project) {
    const auto listed = client.get_all_pages(
        {"GET",
         fmt::format("{}?state=all&labels={}&per_page=100", issues_path(repository),
                     forge::query_value(label)),
         std::nullopt, fmt::format("the issues of {}", repository), "issues: read"});
    const auto ours = written_by_us(client);
    std::vector<forge::AlertIssue> issues;
    for (const auto& item : listed) {
        if (!item.is_object() || item.contains("pull_request") || !item.contains("number") ||
            !item["number"].is_number_integer())
            continue;
        const auto body = string_of(item, "body");
        auto marker = forge::parse_alert_marker(body);
        if (!marker || marker->key.project != project || !ours(item)) continue;
        issues.push_back({item["number"].get<std::int64_t>(), string_of(item, "state") == "open",
                          body, std::move(*marker), string_of(item, "html_url")});
    }
    return issues;
}

forge::AlertCalls alert_calls(Client& client, const std::string& repository,
                              const std::string& label) {
    const auto issue_path = [repository](std::int64_t number) {
        return fmt::format("{}/{}", issues_path(repository), number);
    };
    return {
        [&client, repository, label](const std::string& title, const std::string& body) {
            const auto answer =
                client.send({"POST", issues_path(repository),
                             nlohmann::json{{"title", title}, {"body", body}, {"labels", {label}}},
                             "repository " + repository, write_permission});
            forge::OpenedIssue opened;
            if (answer.is_object() && answer.contains("number") &&
                answer["number"].is_number_integer())
                opened.number = answer["number"].get<std::int64_t>();
            if (answer.is_object()) opened.url = string_of(answer, "html_url");
            return opened;
        },
        [&client, repository, issue_path](std::int64_t number, const std::string& body) {
            client.send({"PATCH", issue_path(number), nlohmann::json{{"body", body}},
                         issue_subject(repository, number), write_permission});
        },
        [&client, repository, issue_path](std::int64_t number, const std::string& comment) {
            client.send({"POST", issue_path(number) + "/comments",
                         nlohmann::json{{"body", comment}}, issue_subject(repository, number),
                         write_permission});
        },
        [&client, repository, issue_path](std::int64_t number) {
            client.send({"PATCH", issue_path(number),
                         nlohmann::json{{"state", "closed"}, {"state_reason", "completed"}},
                         issue_subject(repository, number), write_permission});
        },
    };
}

}  // namespace benchwatch::github
