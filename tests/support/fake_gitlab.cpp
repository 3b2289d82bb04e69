#include "support/fake_gitlab.hpp"

#include <httplib.h>

#include <algorithm>
#include <cassert>
#include <mutex>
#include <nlohmann/json.hpp>

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
    FakeForgeServer forge{"PRIVATE-TOKEN", token, R"({"message": "401 Unauthorized"})"};

    mutable std::mutex mutex;
    std::int64_t next_id = 501;
    std::map<std::string, std::vector<FakeNote>> notes;               // by merge_request_key()
    std::map<std::string, std::vector<std::string>> labels;           // by merge_request_key()
    std::map<std::string, std::vector<nlohmann::json>> label_events;  // by merge_request_key()
    bool link_headers = true;
    FakePaging paging = FakePaging::normal;
    std::map<std::string, std::int64_t> user_ids;  // by username, in order seen

    std::map<std::string, std::vector<FakeIssue>> issues;  // by project
    std::int64_t next_iid = 1;

    std::string origin() const { return forge.origin(); }

    nlohmann::json user_json(const std::string& username) {
        const auto id = user_ids.emplace(username, static_cast<std::int64_t>(user_ids.size()) + 1)
                            .first->second;
        return {{"id", id}, {"username", username}, {"name", username}, {"state", "active"}};
    }

    nlohmann::json note_json(const FakeNote& note) {
        return {{"id", note.id},
                {"body", note.body},
                {"author", user_json(note.author)},
                {"system", note.system},
                {"noteable_type", "MergeRequest"}};
    }

    void get_user(const httplib::Request&, httplib::Response& response) {
        const std::lock_guard lock(mutex);
        reply_json(response, 200, user_json(token_user));
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

    void get_merge_request(const httplib::Request& request, httplib::Response& response) {
        const std::lock_guard lock(mutex);
        const auto key = merge_request_key(request.matches[1], std::stoll(request.matches[2]));
        if (!notes.contains(key)) return reply_not_found(response);
        reply_json(response, 200,
                   {{"iid", std::stoll(request.matches[2])}, {"labels", labels[key]}});
    }

    void list_label_events(const httplib::Request& request, httplib::Response& response) {
        const std::lock_guard lock(mutex);
        const auto key = merge_request_key(request.matches[1], std::stoll(request.matches[2]));
        if (!notes.contains(key)) return reply_not_found(response);
        reply_json(response, 200, label_events[key]);
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
        const int next = paging == FakePaging::same_page                 ? page
                         : paging == FakePaging::endless || page < pages ? page + 1
                                                                         : 0;
        response.set_header("X-Page", std::to_string(page));
        response.set_header("X-Next-Page", next > 0 ? std::to_string(next) : "");
        if (link_headers && next > 0) {
            const auto page_url = [&](int number) {
                return "<" + origin() + request.target.substr(0, request.target.find('?')) +
                       "?per_page=100&sort=asc&page=" + std::to_string(number) + ">";
            };
            response.set_header(
                "Link", page_url(next) + "; rel=\"next\", " + page_url(1) + "; rel=\"first\"");
        }
        reply_json(response, 200, listed);
    }

    void create_note(const httplib::Request& request, httplib::Response& response) {
        const auto body = note_body(request, response);
        if (!body) return;
        const std::lock_guard lock(mutex);
        auto* list = merge_request_notes(request, response);
        if (list == nullptr) return;
        list->push_back({next_id++, token_user, *body, false});
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

    // Issues, as GitLab's API v4 has them: a listing filtered by state ("opened", "closed", else
    // all) and labels (a comma-separated list, every one named), paged with X-Next-Page; creation
    // with title, description and labels; an edit of the description or title, or state_event
    // "close"; notes.
    nlohmann::json issue_json(const std::string& project, const FakeIssue& issue) {
        return {
            {"iid", issue.number},
            {"id", 9000 + issue.number},
            {"title", issue.title},
            {"description", issue.body},
            {"state", issue.open ? "opened" : "closed"},
            {"labels", issue.labels},
            {"author", user_json(issue.author)},
            {"web_url", origin() + "/" + project + "/-/issues/" + std::to_string(issue.number)}};
    }

    static std::vector<std::string> label_list(const std::string& text) {
        std::vector<std::string> labels;
        std::size_t start = 0;
        while (start <= text.size()) {
            const auto end = std::min(text.find(',', start), text.size());
            if (end > start) labels.push_back(text.substr(start, end - start));
            start = end + 1;
        }
        return labels;
    }

    FakeIssue* issue_of(const httplib::Request& request) {
        auto& list = issues[request.matches[1].str()];
        const auto iid = std::stoll(request.matches[2]);
        const auto found = std::find_if(
            list.begin(), list.end(), [iid](const FakeIssue& each) { return each.number == iid; });
        return found == list.end() ? nullptr : &*found;
    }

    void list_issues(const httplib::Request& request, httplib::Response& response) {
        const std::lock_guard lock(mutex);
        const auto project = request.matches[1].str();
        const auto state = request.has_param("state") ? request.get_param_value("state") : "all";
        const auto wanted = label_list(
            request.has_param("labels") ? request.get_param_value("labels") : std::string());
        std::vector<const FakeIssue*> selected;
        for (const auto& issue : issues[project]) {
            if ((state == "opened" && !issue.open) || (state == "closed" && issue.open)) continue;
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
            listed.push_back(issue_json(project, *selected[i]));
        response.set_header("X-Page", std::to_string(page));
        response.set_header("X-Next-Page", page < pages ? std::to_string(page + 1) : "");
        reply_json(response, 200, listed);
    }

    void create_issue(const httplib::Request& request, httplib::Response& response) {
        const auto body = nlohmann::json::parse(request.body, nullptr, false);
        if (!body.is_object() || !body.contains("title") || !body["title"].is_string())
            return reply_json(response, 400, {{"error", "title is missing"}});
        const std::lock_guard lock(mutex);
        const auto project = request.matches[1].str();
        FakeIssue issue;
        issue.number = next_iid++;
        issue.author = token_user;
        issue.title = body["title"].get<std::string>();
        issue.body = body.value("description", "");
        issue.labels = label_list(body.value("labels", ""));
        issues[project].push_back(issue);
        reply_json(response, 201, issue_json(project, issue));
    }

    void edit_issue(const httplib::Request& request, httplib::Response& response) {
        const auto body = nlohmann::json::parse(request.body, nullptr, false);
        if (!body.is_object()) return reply_json(response, 400, {{"error", "not JSON"}});
        const std::lock_guard lock(mutex);
        auto* issue = issue_of(request);
        if (issue == nullptr) return reply_not_found(response);
        if (body.contains("description")) issue->body = body["description"].get<std::string>();
        if (body.contains("title")) issue->title = body["title"].get<std::string>();
        if (body.contains("state_event")) issue->open = body["state_event"] == "reopen";
        reply_json(response, 200, issue_json(request.matches[1].str(), *issue));
    }

    void create_issue_note(const httplib::Request& request, httplib::Response& response) {
        const auto body = note_body(request, response);
        if (!body) return;
        const std::lock_guard lock(mutex);
        auto* issue = issue_of(request);
        if (issue == nullptr) return reply_not_found(response);
        issue->comments.push_back(*body);
        reply_json(response, 201, {{"id", next_id++}, {"body", *body}, {"noteable_type", "Issue"}});
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
    const auto route = [&server](const char* method, const std::string& path, Handler handler) {
        server.forge.route(
            method, path,
            [&server, handler](const httplib::Request& request, httplib::Response& response) {
                (server.*handler)(request, response);
            });
    };
    // httplib decodes the path, so "group%2Fapp" arrives as "group/app".
    const std::string notes = R"(/api/v4/projects/(.+)/merge_requests/(\d+)/notes)";
    const std::string note = notes + R"(/(\d+))";
    route("GET", notes, &Server::list_notes);
    const std::string merge_request = R"(/api/v4/projects/(.+)/merge_requests/(\d+))";
    route("GET", merge_request, &Server::get_merge_request);
    route("GET", merge_request + "/resource_label_events", &Server::list_label_events);
    route("GET", "/api/v4/user", &Server::get_user);
    route("POST", notes, &Server::create_note);
    route("PUT", note, &Server::edit_note);
    route("DELETE", note, &Server::delete_note);
    const std::string issues = R"(/api/v4/projects/(.+)/issues)";
    route("GET", issues, &Server::list_issues);
    route("POST", issues, &Server::create_issue);
    route("PUT", issues + R"(/(\d+))", &Server::edit_issue);
    route("POST", issues + R"(/(\d+)/notes)", &Server::create_issue_note);
    server.forge.start();
}

FakeGitLab::~FakeGitLab() {
    server_->forge.stop();
}

std::string FakeGitLab::url() const {
    return server_->origin() + "/api/v4";
}

void FakeGitLab::add_merge_request(const std::string& project, std::int64_t iid) {
    const std::lock_guard lock(server_->mutex);
    server_->notes[merge_request_key(project, iid)];
}

void FakeGitLab::add_label(const std::string& project, std::int64_t iid, const std::string& label,
                           const std::string& username) {
    const std::lock_guard lock(server_->mutex);
    const auto key = merge_request_key(project, iid);
    server_->labels[key].push_back(label);
    server_->label_events[key].push_back(
        {{"action", "add"}, {"label", {{"name", label}}}, {"user", server_->user_json(username)}});
}

void FakeGitLab::remove_label(const std::string& project, std::int64_t iid,
                              const std::string& label, const std::string& username) {
    const std::lock_guard lock(server_->mutex);
    const auto key = merge_request_key(project, iid);
    std::erase(server_->labels[key], label);
    server_->label_events[key].push_back({{"action", "remove"},
                                          {"label", {{"name", label}}},
                                          {"user", server_->user_json(username)}});
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

void FakeGitLab::set_paging(FakePaging paging) {
    const std::lock_guard lock(server_->mutex);
    server_->paging = paging;
}

std::int64_t FakeGitLab::add_issue(const std::string& project, const std::string& author,
                                   const std::string& title, const std::string& description,
                                   const std::vector<std::string>& labels, bool open) {
    const std::lock_guard lock(server_->mutex);
    const auto iid = server_->next_iid++;
    server_->issues[project].push_back({iid, author, title, description, labels, open, {}});
    return iid;
}

std::vector<FakeIssue> FakeGitLab::issues(const std::string& project) const {
    const std::lock_guard lock(server_->mutex);
    const auto found = server_->issues.find(project);
    return found == server_->issues.end() ? std::vector<FakeIssue>{} : found->second;
}

void FakeGitLab::fail_next(int times, const FakeFailure& failure) {
    server_->forge.fail_next(times, failure);
}

std::vector<RecordedRequest> FakeGitLab::requests() const {
    return server_->forge.requests();
}

}  // namespace benchwatch::testing
