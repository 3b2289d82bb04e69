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
    std::map<std::string, std::vector<FakeComment>> comments;         // by pull_request_key()
    std::map<std::string, std::vector<nlohmann::json>> statuses;      // by repository + "@" + sha
    std::map<std::string, std::string> pull_request_heads;            // by pull_request_key()
    std::map<std::string, std::vector<std::string>> labels;           // by pull_request_key()
    std::map<std::string, std::vector<nlohmann::json>> issue_events;  // by pull_request_key()
    std::string token_user;                                           // empty: an Actions token
    std::map<std::string, std::int64_t> user_ids;                     // by login, in order seen
    FakePaging paging = FakePaging::normal;

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
        for (const auto& label : labels[found->first]) names.push_back({{"name", label}});
        reply_json(response, 200,
                   {{"number", number},
                    {"state", "open"},
                    {"head", {{"sha", found->second}}},
                    {"labels", names}});
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
    server_->labels[key].push_back(label);
    server_->issue_events[key].push_back(
        {{"event", "labeled"}, {"label", {{"name", label}}}, {"actor", server_->user_json(actor)}});
}

void FakeGitHub::remove_label(const std::string& repository, std::int64_t number,
                              const std::string& label, const std::string& actor) {
    const std::lock_guard lock(server_->mutex);
    const auto key = pull_request_key(repository, number);
    std::erase(server_->labels[key], label);
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

void FakeGitHub::fail_next(int times, const FakeFailure& failure) {
    server_->forge.fail_next(times, failure);
}

std::vector<RecordedRequest> FakeGitHub::requests() const {
    return server_->forge.requests();
}

}  // namespace benchwatch::testing
