#include "support/fake_github.hpp"

#include <httplib.h>

#include <algorithm>
#include <cassert>
#include <mutex>

namespace benchwatch::testing {

namespace {

std::string pull_request_key(const std::string& repository, std::int64_t number) {
    return repository + "#" + std::to_string(number);
}

void reply_json(httplib::Response& response, int status, const nlohmann::json& json) {
    response.status = status;
    response.set_content(json.dump(), "application/json");
}

}  // namespace

struct FakeGitHub::Server {
    FakeForgeServer forge{"Authorization", std::string("Bearer ") + token,
                          R"({"message": "Bad credentials"})"};

    mutable std::mutex mutex;
    std::int64_t next_id = 1001;
    std::map<std::string, std::vector<FakeComment>> comments;     // by pull_request_key()
    std::map<std::string, std::vector<nlohmann::json>> statuses;  // by repository + "@" + sha
    std::map<std::string, std::string> pull_request_heads;        // by pull_request_key()
    std::map<std::string, std::vector<std::string>> pull_request_labels;  // by pull_request_key()
    std::map<std::string, std::vector<nlohmann::json>> issue_events;      // by pull_request_key()
    std::string token_user;                                               // empty: an Actions token
    std::map<std::string, std::int64_t> user_ids;                         // by login, in order seen
    FakePaging paging = FakePaging::normal;
    std::map<std::string, std::vector<FakeIssue>> issues;  // by repository
    std::int64_t next_issue_number = 1;

    std::string url() const { return forge.origin(); }

    std::int64_t user_id(const std::string& login) {
        return user_ids.emplace(login, static_cast<std::int64_t>(user_ids.size()) + 1)
            .first->second;
    }

    nlohmann::json user_json(const std::string& login) {
        return {{"login", login},
                {"id", user_id(login)},
                {"type", login.ends_with("[bot]") ? "Bot" : "User"}};
    }

    nlohmann::json comment_json(const FakeComment& comment) {
        return {{"id", comment.id},
                {"body", comment.body},
                {"user", user_json(comment.author)},
                {"html_url", url() + "/comments/" + std::to_string(comment.id)}};
    }

    void get_user(const httplib::Request&, httplib::Response& response) {
        const std::lock_guard lock(mutex);
        if (token_user.empty())
            return reply_json(
                response, 403,
                {{"message", "Resource not accessible by integration"},
                 {"documentation_url",
                  "https://docs.github.com/rest/users/users#get-the-authenticated-user"}});
        reply_json(response, 200, user_json(token_user));
    }

    // The comment with `id` and the list holding it, or nullptr.
    std::vector<FakeComment>* list_holding(std::int64_t id) {
        for (auto& [key, list] : comments)
            for (const auto& comment : list)
                if (comment.id == id) return &list;
        return nullptr;
    }

    void list_comments(const httplib::Request& request, httplib::Response& response) {
        const std::lock_guard lock(mutex);
        std::vector<nlohmann::json> all;
        for (const auto& comment :
             comments[pull_request_key(request.matches[1].str() + "/" + request.matches[2].str(),
                                       std::stoll(request.matches[3]))])
            all.push_back(comment_json(comment));
        reply_page(request, response, all);
    }

    void list_issue_events(const httplib::Request& request, httplib::Response& response) {
        const std::lock_guard lock(mutex);
        reply_page(
            request, response,
            issue_events[pull_request_key(request.matches[1].str() + "/" + request.matches[2].str(),
                                          std::stoll(request.matches[3]))]);
    }

    // The page `request` asks for of `all`, page_size items a page, linked to the next as
    // `paging` says.
    void reply_page(const httplib::Request& request, httplib::Response& response,
                    const std::vector<nlohmann::json>& all) {
        const int page = request.has_param("page") ? std::stoi(request.get_param_value("page")) : 1;
        const int pages =
            std::max<int>(1, static_cast<int>((all.size() + page_size - 1) / page_size));
        auto listed = nlohmann::json::array();
        for (std::size_t i = static_cast<std::size_t>((page - 1) * page_size);
             i < all.size() && i < static_cast<std::size_t>(page * page_size); ++i)
            listed.push_back(all[i]);
        const auto page_url = [&](int number) {
            return "<" + url() + request.path + "?per_page=100&page=" + std::to_string(number) +
                   ">";
        };
        if (paging == FakePaging::same_page)
            response.set_header("Link", page_url(page) + "; rel=\"next\"");
        else if (paging == FakePaging::endless)
            response.set_header("Link", page_url(page + 1) + "; rel=\"next\"");
        else if (page < pages)
            response.set_header("Link", page_url(page + 1) + "; rel=\"next\", " + page_url(pages) +
                                            "; rel=\"last\"");
        reply_json(response, 200, listed);
    }

    void create_comment(const httplib::Request& request, httplib::Response& response) {
        const auto body = nlohmann::json::parse(request.body, nullptr, false);
        if (!body.is_object() || !body.contains("body") || !body["body"].is_string())
            return reply_json(response, 422, {{"message", "Invalid request."}});
        const std::lock_guard lock(mutex);
        const FakeComment comment{next_id++,
                                  token_user.empty() ? "github-actions[bot]" : token_user,
                                  body["body"].get<std::string>()};
        comments[pull_request_key(request.matches[1].str() + "/" + request.matches[2].str(),
                                  std::stoll(request.matches[3]))]
            .push_back(comment);
        reply_json(response, 201, comment_json(comment));
    }

    void edit_comment(const httplib::Request& request, httplib::Response& response) {
        const auto body = nlohmann::json::parse(request.body, nullptr, false);
        if (!body.is_object() || !body.contains("body") || !body["body"].is_string())
            return reply_json(response, 422, {{"message", "Invalid request."}});
        const std::lock_guard lock(mutex);
        const auto id = std::stoll(request.matches[3]);
        auto* list = list_holding(id);
        if (list == nullptr) return reply_json(response, 404, {{"message", "Not Found"}});
        auto comment = std::find_if(list->begin(), list->end(),
                                    [id](const FakeComment& each) { return each.id == id; });
        comment->body = body["body"].get<std::string>();
        reply_json(response, 200, comment_json(*comment));
    }

    void delete_comment(const httplib::Request& request, httplib::Response& response) {
        const std::lock_guard lock(mutex);
        const auto id = std::stoll(request.matches[3]);
        auto* list = list_holding(id);
        if (list == nullptr) return reply_json(response, 404, {{"message", "Not Found"}});
        std::erase_if(*list, [id](const FakeComment& each) { return each.id == id; });
        response.status = 204;
    }

    void get_pull_request(const httplib::Request& request, httplib::Response& response) {
        const std::lock_guard lock(mutex);
        const auto number = std::stoll(request.matches[3]);
        const auto found = pull_request_heads.find(
            pull_request_key(request.matches[1].str() + "/" + request.matches[2].str(), number));
        if (found == pull_request_heads.end())
            return reply_json(response, 404, {{"message", "Not Found"}});
        auto names = nlohmann::json::array();
        for (const auto& label : pull_request_labels[found->first])
            names.push_back({{"name", label}});
        reply_json(response, 200,
                   {{"number", number},
                    {"state", "open"},
                    {"head", {{"sha", found->second}}},
                    {"labels", names}});
    }

    // Issues, as GitHub's REST API has them: a listing filtered by state (default open) and by
    // labels (every one named), paged; creation with title, body and labels; an edit of the
    // body, title or state; comments go through the pull request's routes above.
    nlohmann::json issue_json(const std::string& repository, const FakeIssue& issue) {
        auto labels = nlohmann::json::array();
        for (const auto& label : issue.labels) labels.push_back({{"name", label}});
        return {{"number", issue.number},
                {"title", issue.title},
                {"body", issue.body},
                {"state", issue.open ? "open" : "closed"},
                {"labels", labels},
                {"user", user_json(issue.author)},
                {"html_url", url() + "/" + repository + "/issues/" + std::to_string(issue.number)}};
    }

    static std::vector<std::string> split_labels(const std::string& text) {
        std::vector<std::string> labels;
        std::size_t start = 0;
        while (start <= text.size()) {
            const auto end = std::min(text.find(',', start), text.size());
            if (end > start) labels.push_back(text.substr(start, end - start));
            start = end + 1;
        }
        return labels;
    }

    void list_issues(const httplib::Request& request, httplib::Response& response) {
        const std::lock_guard lock(mutex);
        const auto repository = request.matches[1].str() + "/" + request.matches[2].str();
        const auto state = request.has_param("state") ? request.get_param_value("state") : "open";
        const auto wanted = split_labels(
            request.has_param("labels") ? request.get_param_value("labels") : std::string());
        std::vector<const FakeIssue*> selected;
        for (const auto& issue : issues[repository]) {
            if (state != "all" && (state == "open") != issue.open) continue;
            if (std::all_of(wanted.begin(), wanted.end(), [&](const std::string& label) {
                    return std::find(issue.labels.begin(), issue.labels.end(), label) !=
                           issue.labels.end();
                }))
                selected.push_back(&issue);
        }
        const int page = request.has_param("page") ? std::stoi(request.get_param_value("page")) : 1;
        const int pages =
            std::max<int>(1, static_cast<int>((selected.size() + page_size - 1) / page_size));
        auto listed = nlohmann::json::array();
        for (std::size_t i = static_cast<std::size_t>((page - 1) * page_size);
             i < selected.size() && i < static_cast<std::size_t>(page * page_size); ++i)
            listed.push_back(issue_json(repository, *selected[i]));
        if (page < pages) {
            const auto mark = request.target.find('?');
            auto query = mark == std::string::npos ? "?" : request.target.substr(mark);
            query = query.substr(0, query.find("&page="));
            response.set_header("Link", "<" + url() + request.path + query + "&page=" +
                                            std::to_string(page + 1) + ">; rel=\"next\"");
        }
        reply_json(response, 200, listed);
    }

    void create_issue(const httplib::Request& request, httplib::Response& response) {
        const auto body = nlohmann::json::parse(request.body, nullptr, false);
        if (!body.is_object() || !body.contains("title") || !body["title"].is_string() ||
            (body.contains("body") && !body["body"].is_string()))
            return reply_json(response, 422, {{"message", "Validation Failed"}});
        const std::lock_guard lock(mutex);
        const auto repository = request.matches[1].str() + "/" + request.matches[2].str();
        FakeIssue issue;
        issue.number = next_issue_number++;
        issue.author = token_user.empty() ? "github-actions[bot]" : token_user;
        issue.title = body["title"].get<std::string>();
        issue.body = body.value("body", "");
        if (body.contains("labels"))
            for (const auto& label : body["labels"])
                issue.labels.push_back(label.get<std::string>());
        issues[repository].push_back(issue);
        reply_json(response, 201, issue_json(repository, issue));
    }

    void edit_issue(const httplib::Request& request, httplib::Response& response) {
        const auto body = nlohmann::json::parse(request.body, nullptr, false);
        if (!body.is_object()) return reply_json(response, 422, {{"message", "Invalid request."}});
        const std::lock_guard lock(mutex);
        const auto repository = request.matches[1].str() + "/" + request.matches[2].str();
        const auto number = std::stoll(request.matches[3]);
        auto& list = issues[repository];
        const auto issue = std::find_if(list.begin(), list.end(), [number](const FakeIssue& each) {
            return each.number == number;
        });
        if (issue == list.end()) return reply_json(response, 404, {{"message", "Not Found"}});
        if (body.contains("body")) issue->body = body["body"].get<std::string>();
        if (body.contains("title")) issue->title = body["title"].get<std::string>();
        if (body.contains("state")) issue->open = body["state"] == "open";
        reply_json(response, 200, issue_json(repository, *issue));
    }

    void create_status(const httplib::Request& request, httplib::Response& response) {
        const auto body = nlohmann::json::parse(request.body, nullptr, false);
        if (!body.is_object() || !body.contains("state"))
            return reply_json(response, 422, {{"message", "Validation Failed"}});
        const std::lock_guard lock(mutex);
        statuses[request.matches[1].str() + "/" + request.matches[2].str() + "@" +
                 request.matches[3].str()]
            .push_back(body);
        reply_json(response, 201, body);
    }
};

FakeGitHub::FakeGitHub() : server_(std::make_unique<Server>()) {
    auto& server = *server_;
    using Handler = void (Server::*)(const httplib::Request&, httplib::Response&);
    const auto route = [&server](const char* method, const std::string& path, Handler handler) {
        server.forge.route(
            method, path,
            [&server, handler](const httplib::Request& request, httplib::Response& response) {
                (server.*handler)(request, response);
            });
    };
    const std::string pull_request = R"(/repos/([^/]+)/([^/]+)/issues/(\d+)/comments)";
    const std::string comment = R"(/repos/([^/]+)/([^/]+)/issues/comments/(\d+))";
    route("GET", pull_request, &Server::list_comments);
    route("POST", pull_request, &Server::create_comment);
    route("PATCH", comment, &Server::edit_comment);
    route("DELETE", comment, &Server::delete_comment);
    route("GET", R"(/repos/([^/]+)/([^/]+)/pulls/(\d+))", &Server::get_pull_request);
    route("GET", R"(/repos/([^/]+)/([^/]+)/issues/(\d+)/events)", &Server::list_issue_events);
    route("GET", "/user", &Server::get_user);
    const std::string issues = R"(/repos/([^/]+)/([^/]+)/issues)";
    route("GET", issues, &Server::list_issues);
    route("POST", issues, &Server::create_issue);
    route("PATCH", issues + R"(/(\d+))", &Server::edit_issue);
    route("POST", R"(/repos/([^/]+)/([^/]+)/statuses/([0-9a-f]+))", &Server::create_status);
    server.forge.start();
}

FakeGitHub::~FakeGitHub() {
    server_->forge.stop();
}

std::string FakeGitHub::url() const {
    return server_->url();
}

void FakeGitHub::add_label(const std::string& repository, std::int64_t number,
                           const std::string& label, const std::string& actor) {
    const std::lock_guard lock(server_->mutex);
    const auto key = pull_request_key(repository, number);
    server_->pull_request_labels[key].push_back(label);
    server_->issue_events[key].push_back(
        {{"event", "labeled"}, {"label", {{"name", label}}}, {"actor", server_->user_json(actor)}});
}

void FakeGitHub::remove_label(const std::string& repository, std::int64_t number,
                              const std::string& label, const std::string& actor) {
    const std::lock_guard lock(server_->mutex);
    const auto key = pull_request_key(repository, number);
    std::erase(server_->pull_request_labels[key], label);
    server_->issue_events[key].push_back({{"event", "unlabeled"},
                                          {"label", {{"name", label}}},
                                          {"actor", server_->user_json(actor)}});
}

std::int64_t FakeGitHub::add_comment(const std::string& repository, std::int64_t number,
                                     const std::string& author, const std::string& body) {
    const std::lock_guard lock(server_->mutex);
    const auto id = server_->next_id++;
    server_->comments[pull_request_key(repository, number)].push_back({id, author, body});
    return id;
}

std::vector<FakeComment> FakeGitHub::comments(const std::string& repository,
                                              std::int64_t number) const {
    const std::lock_guard lock(server_->mutex);
    const auto found = server_->comments.find(pull_request_key(repository, number));
    return found == server_->comments.end() ? std::vector<FakeComment>{} : found->second;
}

std::vector<nlohmann::json> FakeGitHub::statuses(const std::string& repository,
                                                 const std::string& sha) const {
    const std::lock_guard lock(server_->mutex);
    const auto found = server_->statuses.find(repository + "@" + sha);
    return found == server_->statuses.end() ? std::vector<nlohmann::json>{} : found->second;
}

void FakeGitHub::set_pull_request_head(const std::string& repository, std::int64_t number,
                                       const std::string& sha) {
    const std::lock_guard lock(server_->mutex);
    server_->pull_request_heads[pull_request_key(repository, number)] = sha;
}

void FakeGitHub::set_token_user(const std::string& login) {
    const std::lock_guard lock(server_->mutex);
    server_->token_user = login;
}

void FakeGitHub::set_paging(FakePaging paging) {
    const std::lock_guard lock(server_->mutex);
    server_->paging = paging;
}

std::int64_t FakeGitHub::add_issue(const std::string& repository, const std::string& author,
                                   const std::string& title, const std::string& body,
                                   const std::vector<std::string>& labels, bool open) {
    const std::lock_guard lock(server_->mutex);
    const auto number = server_->next_issue_number++;
    server_->issues[repository].push_back({number, author, title, body, labels, open, {}});
    return number;
}

std::vector<FakeIssue> FakeGitHub::issues(const std::string& repository) const {
    const std::lock_guard lock(server_->mutex);
    const auto found = server_->issues.find(repository);
    if (found == server_->issues.end()) return {};
    auto listed = found->second;
    for (auto& issue : listed) {
        const auto comments = server_->comments.find(pull_request_key(repository, issue.number));
        if (comments == server_->comments.end()) continue;
        for (const auto& comment : comments->second) issue.comments.push_back(comment.body);
    }
    return listed;
}

void FakeGitHub::fail_next(int times, const FakeFailure& failure) {
    server_->forge.fail_next(times, failure);
}

std::vector<RecordedRequest> FakeGitHub::requests() const {
    return server_->forge.requests();
}

}  // namespace benchwatch::testing
