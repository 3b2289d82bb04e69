#include "support/fake_gitlab.hpp"

#include <httplib.h>

#include <algorithm>
#include <cassert>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

namespace benchwatch::testing {

namespace {

std::string merge_request_key(const std::string& project, std::int64_t iid) {
    return project + "!" + std::to_string(iid);
}

void reply_json(httplib::Response& response, int status, const nlohmann::json& json) {
    response.status = status;
    response.set_content(json.dump(), "application/json");
}

void reply_not_found(httplib::Response& response) {
    reply_json(response, 404, {{"message", "404 Not found"}});
}

// The note body of a create or edit request, or an error answered.
std::optional<std::string> note_body(const httplib::Request& request, httplib::Response& response) {
    const auto json = nlohmann::json::parse(request.body, nullptr, false);
    if (!json.is_object() || !json.contains("body") || !json["body"].is_string()) {
        reply_json(response, 400, {{"error", "body is missing"}});
        return std::nullopt;
    }
    auto body = json["body"].get<std::string>();
    if (body.size() > FakeGitLab::note_limit) {
        reply_json(response, 400,
                   {{"message", {{"note", {"is too long (maximum is 1000000 characters)"}}}}});
        return std::nullopt;
    }
    return body;
}

}  // namespace

struct FakeGitLab::Server {
    httplib::Server http;
    int port = 0;
    std::thread thread;

    mutable std::mutex mutex;
    std::int64_t next_id = 501;
    std::map<std::string, std::vector<FakeNote>> notes;  // by merge_request_key()
    std::vector<RecordedRequest> requests;
    bool link_headers = true;
    int failures_left = 0;
    FakeFailure failure;

    std::string origin() const { return "http://127.0.0.1:" + std::to_string(port); }

    static nlohmann::json note_json(const FakeNote& note) {
        return {{"id", note.id},
                {"body", note.body},
                {"author", {{"username", note.author}}},
                {"system", note.system},
                {"noteable_type", "MergeRequest"}};
    }

    // The merge request's notes named by the request's path, or nullptr (404 answered).
    std::vector<FakeNote>* merge_request_notes(const httplib::Request& request,
                                               httplib::Response& response) {
        const auto found =
            notes.find(merge_request_key(request.matches[1].str(), std::stoll(request.matches[2])));
        if (found == notes.end()) {
            reply_json(response, 404, {{"message", "404 Not found"}});
            return nullptr;
        }
        return &found->second;
    }

    // Records the request; answers it here, returning true, when it fails on purpose or lacks
    // the token.
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
        if (request.get_header_value("PRIVATE-TOKEN") != token) {
            reply_json(response, 401, {{"message", "401 Unauthorized"}});
            return true;
        }
        return false;
    }

    void list_notes(const httplib::Request& request, httplib::Response& response) {
        const std::lock_guard lock(mutex);
        const auto* all = merge_request_notes(request, response);
        if (all == nullptr) return;
        const int page = request.has_param("page") ? std::stoi(request.get_param_value("page")) : 1;
        const int pages =
            std::max<int>(1, static_cast<int>((all->size() + page_size - 1) / page_size));
        auto listed = nlohmann::json::array();
        for (std::size_t i = static_cast<std::size_t>((page - 1) * page_size);
             i < all->size() && i < static_cast<std::size_t>(page * page_size); ++i)
            listed.push_back(note_json((*all)[i]));
        response.set_header("X-Page", std::to_string(page));
        response.set_header("X-Next-Page", page < pages ? std::to_string(page + 1) : "");
        if (link_headers && page < pages) {
            const auto page_url = [&](int number) {
                return "<" + origin() + request.target.substr(0, request.target.find('?')) +
                       "?per_page=100&sort=asc&page=" + std::to_string(number) + ">";
            };
            response.set_header(
                "Link", page_url(page + 1) + "; rel=\"next\", " + page_url(1) + "; rel=\"first\"");
        }
        reply_json(response, 200, listed);
    }

    void create_note(const httplib::Request& request, httplib::Response& response) {
        const auto body = note_body(request, response);
        if (!body) return;
        const std::lock_guard lock(mutex);
        auto* list = merge_request_notes(request, response);
        if (list == nullptr) return;
        list->push_back({next_id++, "project_42_bot", *body, false});
        reply_json(response, 201, note_json(list->back()));
    }

    void edit_note(const httplib::Request& request, httplib::Response& response) {
        const auto body = note_body(request, response);
        if (!body) return;
        const std::lock_guard lock(mutex);
        auto* list = merge_request_notes(request, response);
        if (list == nullptr) return;
        const auto id = std::stoll(request.matches[3]);
        const auto note = std::find_if(list->begin(), list->end(),
                                       [id](const FakeNote& each) { return each.id == id; });
        if (note == list->end()) return reply_not_found(response);
        note->body = *body;
        reply_json(response, 200, note_json(*note));
    }

    void delete_note(const httplib::Request& request, httplib::Response& response) {
        const std::lock_guard lock(mutex);
        auto* list = merge_request_notes(request, response);
        if (list == nullptr) return;
        const auto id = std::stoll(request.matches[3]);
        if (std::erase_if(*list, [id](const FakeNote& each) { return each.id == id; }) == 0)
            return reply_not_found(response);
        response.status = 204;
    }
};

FakeGitLab::FakeGitLab() : server_(std::make_unique<Server>()) {
    auto& server = *server_;
    using Handler = void (Server::*)(const httplib::Request&, httplib::Response&);
    const auto route = [&server](Handler handler) {
        return [&server, handler](const httplib::Request& request, httplib::Response& response) {
            if (!server.intercepted(request, response)) (server.*handler)(request, response);
        };
    };
    // httplib decodes the path, so "group%2Fapp" arrives as "group/app".
    const std::string notes = R"(/api/v4/projects/(.+)/merge_requests/(\d+)/notes)";
    const std::string note = notes + R"(/(\d+))";
    server.http.Get(notes, route(&Server::list_notes));
    server.http.Post(notes, route(&Server::create_note));
    server.http.Put(note, route(&Server::edit_note));
    server.http.Delete(note, route(&Server::delete_note));
    server.port = server.http.bind_to_any_port("127.0.0.1");
    assert(server.port > 0);
    server.thread = std::thread([&server] { server.http.listen_after_bind(); });
    // stop() is lost on a server not yet running, so the destructor could wait forever.
    while (!server.http.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

FakeGitLab::~FakeGitLab() {
    server_->http.stop();
    server_->thread.join();
}

std::string FakeGitLab::url() const {
    return server_->origin() + "/api/v4";
}

void FakeGitLab::add_merge_request(const std::string& project, std::int64_t iid) {
    const std::lock_guard lock(server_->mutex);
    server_->notes[merge_request_key(project, iid)];
}

std::int64_t FakeGitLab::add_note(const std::string& project, std::int64_t iid,
                                  const std::string& author, const std::string& body, bool system) {
    const std::lock_guard lock(server_->mutex);
    const auto found = server_->notes.find(merge_request_key(project, iid));
    assert(found != server_->notes.end());
    const auto id = server_->next_id++;
    found->second.push_back({id, author, body, system});
    return id;
}

std::vector<FakeNote> FakeGitLab::notes(const std::string& project, std::int64_t iid) const {
    const std::lock_guard lock(server_->mutex);
    const auto found = server_->notes.find(merge_request_key(project, iid));
    return found == server_->notes.end() ? std::vector<FakeNote>{} : found->second;
}

void FakeGitLab::send_link_headers(bool send) {
    const std::lock_guard lock(server_->mutex);
    server_->link_headers = send;
}

void FakeGitLab::fail_next(int times, const FakeFailure& failure) {
    const std::lock_guard lock(server_->mutex);
    server_->failures_left = times;
    server_->failure = failure;
}

std::vector<RecordedRequest> FakeGitLab::requests() const {
    const std::lock_guard lock(server_->mutex);
    return server_->requests;
}

}  // namespace benchwatch::testing
