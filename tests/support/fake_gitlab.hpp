#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "support/fake_forge.hpp"

// A local stand-in for GitLab's REST API v4, for the gitlab and end-to-end tests: a merge
// request's notes (list with pagination, create, edit, delete) with their authors, and the
// token's user (GET /user), issues (list by state and label with pagination, create, edit, close,
// notes), with configurable failures; it records every request.
namespace benchwatch::testing {

// A note on a merge request of the fake server.
struct FakeNote {
    std::int64_t id = 0;
    std::string author;
    std::string body;
    bool system = false;  // GitLab's notes of events ("added 1 commit")
};

// GitLab on 127.0.0.1, on a port chosen by the system, answering from its own thread until the
// object goes away. Requests need the header "PRIVATE-TOKEN: " + token (else 401); merge
// requests not made with add_merge_request() answer 404.
class FakeGitLab {
  public:
    FakeGitLab();
    FakeGitLab(const FakeGitLab&) = delete;
    FakeGitLab& operator=(const FakeGitLab&) = delete;
    ~FakeGitLab();

    // "http://127.0.0.1:PORT/api/v4", for CI_API_V4_URL.
    std::string url() const;

    // The token the server accepts.
    static constexpr const char* token = "glpat-fakeTOKENfor1benchwatch2tests";

    // The token's user, as GET /user names it; notes the token creates are by this user.
    static constexpr const char* token_user = "project_42_bot";

    // Notes per page of a listing, whatever per_page asks (small, so tests paginate).
    static constexpr int page_size = 2;

    // GitLab's limit on a note's body, in characters (bytes here).
    static constexpr std::size_t note_limit = 1000000;

    // Makes merge request `iid` of `project` ("42" or "group/app", as the path names it).
    void add_merge_request(const std::string& project, std::int64_t iid);

    // `username` adds or removes `label` on a merge request add_merge_request() made: GET
    // .../merge_requests/:iid lists the labels it has, and its resource label events (one page)
    // gain an "add" or "remove".
    void add_label(const std::string& project, std::int64_t iid, const std::string& label,
                   const std::string& username);
    void remove_label(const std::string& project, std::int64_t iid, const std::string& label,
                      const std::string& username);

    // Adds a note by `author` to a merge request made before; returns its id. Ids grow from 501
    // in the order notes are made.
    std::int64_t add_note(const std::string& project, std::int64_t iid, const std::string& author,
                          const std::string& body, bool system = false);

    // The merge request's notes, oldest first.
    std::vector<FakeNote> notes(const std::string& project, std::int64_t iid) const;

    // Whether listings send a Link header; without it only X-Next-Page says there is more.
    void send_link_headers(bool send);

    // How listings point at their next page (X-Next-Page, and Link when sent).
    void set_paging(FakePaging paging);

    // Adds an issue by `author` to `project` ("42" or "group/app"); returns its iid. Iids grow
    // from 1 in the order issues are made.
    std::int64_t add_issue(const std::string& project, const std::string& author,
                           const std::string& title, const std::string& description,
                           const std::vector<std::string>& labels, bool open = true);

    // The project's issues, oldest first, each with its notes' bodies.
    std::vector<FakeIssue> issues(const std::string& project) const;

    // The next `times` requests get `failure`.
    void fail_next(int times, const FakeFailure& failure);

    // Every request received, in order.
    std::vector<RecordedRequest> requests() const;

  private:
    struct Server;
    std::unique_ptr<Server> server_;
};

}  // namespace benchwatch::testing
