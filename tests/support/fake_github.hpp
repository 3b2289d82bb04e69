#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/fake_forge.hpp"

// A local stand-in for GitHub's REST API, for the github and end-to-end tests: issue comments
// (list with pagination, create, edit, delete) with their authors, the token's user (GET /user),
// commit statuses, pull requests' heads and labels with their issue events, issues (list by
// state and label with pagination, create, edit, close, comment), with configurable failures; it
// records every request.
namespace benchwatch::testing {

// A comment on a pull request of the fake server.
struct FakeComment {
    std::int64_t id = 0;
    std::string author;
    std::string body;
};

// GitHub on 127.0.0.1, on a port chosen by the system, answering from its own thread until the
// object goes away. Requests need "Authorization: Bearer " + token() (else 401).
class FakeGitHub {
  public:
    FakeGitHub();
    FakeGitHub(const FakeGitHub&) = delete;
    FakeGitHub& operator=(const FakeGitHub&) = delete;
    ~FakeGitHub();

    // "http://127.0.0.1:PORT", for GITHUB_API_URL.
    std::string url() const;

    // The token the server accepts.
    static constexpr const char* token = "ghs_fakeTOKENfor1benchwatch2tests";

    // Comments per page of a listing, whatever per_page asks (small, so tests paginate).
    static constexpr int page_size = 2;

    // Adds a comment by `author` to pull request `number` of `repository`; returns its id.
    // Ids grow from 1001 in the order comments are made. An author whose login ends in "[bot]"
    // is listed with user.type "Bot", any other as "User".
    std::int64_t add_comment(const std::string& repository, std::int64_t number,
                             const std::string& author, const std::string& body);

    // The pull request's comments, oldest first.
    std::vector<FakeComment> comments(const std::string& repository, std::int64_t number) const;

    // The statuses posted for commit `sha` of `repository`, as their JSON bodies, oldest first.
    std::vector<nlohmann::json> statuses(const std::string& repository,
                                         const std::string& sha) const;

    // Makes pull request `number` of `repository` exist, its head at `sha` (GET .../pulls/N;
    // other pull requests are 404).
    void set_pull_request_head(const std::string& repository, std::int64_t number,
                               const std::string& sha);

    // `actor` adds `label` to pull request `number` of `repository` (which set_pull_request_head
    // made exist): GET .../pulls/N lists it, and its issue events gain a "labeled" event.
    void add_label(const std::string& repository, std::int64_t number, const std::string& label,
                   const std::string& actor);

    // `actor` removes `label`: an "unlabeled" event, and the pull request no longer lists it.
    void remove_label(const std::string& repository, std::int64_t number, const std::string& label,
                      const std::string& actor);

    // Makes the token a person's (or an app's user's) token: GET /user answers `login`, and
    // comments the token creates are by `login`. Until then the token is GitHub Actions' own:
    // GET /user is refused (403 "Resource not accessible by integration") and comments are
    // created by github-actions[bot].
    void set_token_user(const std::string& login);

    // How listings point at their next page.
    void set_paging(FakePaging paging);

    // Adds an issue by `author` to `repository`; returns its number. Numbers grow from 1 in the
    // order issues are made, apart from pull requests' numbers.
    std::int64_t add_issue(const std::string& repository, const std::string& author,
                           const std::string& title, const std::string& body,
                           const std::vector<std::string>& labels, bool open = true);

    // The repository's issues, oldest first, each with its comments.
    std::vector<FakeIssue> issues(const std::string& repository) const;

    // The next `times` requests get `failure`.
    void fail_next(int times, const FakeFailure& failure);

    // Every request received, in order.
    std::vector<RecordedRequest> requests() const;

  private:
    struct Server;
    std::unique_ptr<Server> server_;
};

}  // namespace benchwatch::testing
