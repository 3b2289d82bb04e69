#include "gitlab/alert.hpp"

#include <fmt/format.h>

#include <optional>

#include "forge/sticky.hpp"

namespace benchwatch::gitlab {

namespace {

std::string issues_path(const MergeRequest& where) {
    return fmt::format("/projects/{}/issues", where.project_id);
}

std::string issue_subject(const MergeRequest& where, std::int64_t iid) {
    return fmt::format("issue #{} of {}", iid, where.project);
}

std::string text_of(const nlohmann::json& item, const char* key) {
    return item.contains(key) && item[key].is_string() ? item[key].get<std::string>() : "";
}

}  // namespace

std::vector<forge::AlertIssue> list_alert_issues(Client& client, const MergeRequest& where,
                                                 const std::string& label,
                                                 std::string_view project) {
    const auto listed = client.get_all_pages(
        {"GET",
         fmt::format("{}?labels={}&per_page=100", issues_path(where), forge::query_value(label)),
         std::nullopt, fmt::format("the issues of {}", where.project)});
    // GitLab's issues carry no bot flag; project and group access tokens write as their own bot
    // user, which GET /user names.
    std::optional<nlohmann::json> identity;
    const auto ours = [&](const nlohmann::json& item) {
        if (!identity) identity = client.send({"GET", "/user", std::nullopt, "the token's user"});
        return forge::same_user(item.contains("author") ? item["author"] : nlohmann::json(),
                                *identity, "username");
    };
    std::vector<forge::AlertIssue> issues;
    for (const auto& item : listed) {
        if (!item.is_object() || !item.contains("iid") || !item["iid"].is_number_integer())
            continue;
        const auto body = text_of(item, "description");
        auto marker = forge::parse_alert_marker(body);
        if (!marker || marker->key.project != project || !ours(item)) continue;
        issues.push_back({item["iid"].get<std::int64_t>(), text_of(item, "state") == "opened", body,
                          std::move(*marker), text_of(item, "web_url")});
    }
    return issues;
}

forge::AlertCalls alert_calls(Client& client, const MergeRequest& where, const std::string& label) {
    const auto issue_path = [where](std::int64_t iid) {
        return fmt::format("{}/{}", issues_path(where), iid);
    };
    return {
        [&client, where, label](const std::string& title, const std::string& body) {
            const auto answer = client.send(
                {"POST", issues_path(where),
                 nlohmann::json{{"title", title}, {"description", body}, {"labels", label}},
                 "project " + where.project});
            forge::OpenedIssue opened;
            if (answer.is_object() && answer.contains("iid") && answer["iid"].is_number_integer())
                opened.number = answer["iid"].get<std::int64_t>();
            if (answer.is_object()) opened.url = text_of(answer, "web_url");
            return opened;
        },
        [&client, where, issue_path](std::int64_t iid, const std::string& body) {
            client.send({"PUT", issue_path(iid), nlohmann::json{{"description", body}},
                         issue_subject(where, iid)});
        },
        [&client, where, issue_path](std::int64_t iid, const std::string& comment) {
            client.send({"POST", issue_path(iid) + "/notes", nlohmann::json{{"body", comment}},
                         issue_subject(where, iid)});
        },
        [&client, where, issue_path](std::int64_t iid) {
            client.send({"PUT", issue_path(iid), nlohmann::json{{"state_event", "close"}},
                         issue_subject(where, iid)});
        },
    };
}

}  // namespace benchwatch::gitlab
