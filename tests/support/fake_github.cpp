#include "support/fake_github.hpp"

#include <httplib.h>

#include <algorithm>
#include <cassert>
#include <thread>

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
    httplib::Server http;
    int port = 0;
    std::thread thread;

    mutable std::mutex mutex;
    std::int64_t next_id = 1001;
    std::map<std::string, std::vector<FakeComment>> comments;     // by pull_request_key()
    std::map<std::string, std::vector<nlohmann::json>> statuses;  // by repository + "@" + sha
    std::map<std::string, std::string> pull_request_heads;        // by pull_request_key()
    std::vector<RecordedRequest> requests;
    int failures_left = 0;
    FakeFailure failure;

    std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }

    nlohmann::json comment_json(const FakeComment& comment) const {
        return {{"id", comment.id},
                {"body", comment.body},
                {"user", {{"login", comment.author}, {"type", "Bot"}}},
                {"html_url", url() + "/comments/" + std::to_string(comment.id)}};
    }

    // The comment with `id` and the list holding it, or nullptr.
    std::vector<FakeComment>* list_holding(std::int64_t id) {
        for (auto& [key, list] : comments)
            for (const auto& comment : list)
                if (comment.id == id) return &list;
        return nullptr;
    }

    // Records the request (its body read); answers it here, returning true, when it fails on
    // purpose or lacks the token.
    bool intercepted(const httplib::Request& request, httplib::Response& response) {
        const std::lock_guard lock(mutex);
        RecordedRequest recorded{request.method, request.target, {}, request.body};
        for (const auto& [name, value] : request.headers) recorded.headers.emplace(name, value);
        requests.push_back(std::move(recorded));
        if (failures_left > 0) {
            --failures_left;
            response.status = failure.status;
            for (const auto& [name, value] : failure.headers) response.set_header(name, value);
            response.set_content(failure.body, "application/json");
            return true;
        }
        if (request.get_header_value("Authorization") != std::string("Bearer ") + token) {
            reply_json(response, 401, {{"message", "Bad credentials"}});
            return true;
        }
        return false;
    }

    void list_comments(const httplib::Request& request, httplib::Response& response) {
        const std::lock_guard lock(mutex);
        const auto& all =
            comments[pull_request_key(request.matches[1].str() + "/" + request.matches[2].str(),
                                      std::stoll(request.matches[3]))];
        const int page = request.has_param("page") ? std::stoi(request.get_param_value("page")) : 1;
        const int pages =
            std::max<int>(1, static_cast<int>((all.size() + page_size - 1) / page_size));
        auto listed = nlohmann::json::array();
        for (std::size_t i = static_cast<std::size_t>((page - 1) * page_size);
             i < all.size() && i < static_cast<std::size_t>(page * page_size); ++i)
            listed.push_back(comment_json(all[i]));
        const auto page_url = [&](int number) {
            return "<" + url() + request.path + "?per_page=100&page=" + std::to_string(number) +
                   ">";
        };
        if (page < pages)
            response.set_header("Link", page_url(page + 1) + "; rel=\"next\", " + page_url(pages) +
                                            "; rel=\"last\"");
        reply_json(response, 200, listed);
    }

    void create_comment(const httplib::Request& request, httplib::Response& response) {
        const auto body = nlohmann::json::parse(request.body, nullptr, false);
        if (!body.is_object() || !body.contains("body") || !body["body"].is_string())
            return reply_json(response, 422, {{"message", "Invalid request."}});
        const std::lock_guard lock(mutex);
        const FakeComment comment{next_id++, "github-actions[bot]",
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
        reply_json(response, 200,
                   {{"number", number}, {"state", "open"}, {"head", {{"sha", found->second}}}});
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
    const auto route = [&server](Handler handler) {
        return [&server, handler](const httplib::Request& request, httplib::Response& response) {
            if (!server.intercepted(request, response)) (server.*handler)(request, response);
        };
    };
    const std::string pull_request = R"(/repos/([^/]+)/([^/]+)/issues/(\d+)/comments)";
    const std::string comment = R"(/repos/([^/]+)/([^/]+)/issues/comments/(\d+))";
    server.http.Get(pull_request, route(&Server::list_comments));
    server.http.Post(pull_request, route(&Server::create_comment));
    server.http.Patch(comment, route(&Server::edit_comment));
    server.http.Delete(comment, route(&Server::delete_comment));
    server.http.Get(R"(/repos/([^/]+)/([^/]+)/pulls/(\d+))", route(&Server::get_pull_request));
    server.http.Post(R"(/repos/([^/]+)/([^/]+)/statuses/([0-9a-f]+))",
                     route(&Server::create_status));
    server.port = server.http.bind_to_any_port("127.0.0.1");
    assert(server.port > 0);
    server.thread = std::thread([&server] { server.http.listen_after_bind(); });
    // stop() is lost on a server not yet running, so the destructor could wait forever.
    while (!server.http.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

FakeGitHub::~FakeGitHub() {
    server_->http.stop();
    server_->thread.join();
}

std::string FakeGitHub::url() const {
    return server_->url();
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

void FakeGitHub::fail_next(int times, const FakeFailure& failure) {
    const std::lock_guard lock(server_->mutex);
    server_->failures_left = times;
    server_->failure = failure;
}

std::vector<RecordedRequest> FakeGitHub::requests() const {
    const std::lock_guard lock(server_->mutex);
    return server_->requests;
}

}  // namespace benchwatch::testing
