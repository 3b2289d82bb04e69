#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

// What the local stand-ins for GitHub's and GitLab's APIs share: the server, its thread, the
// recording of requests, failures on demand and the credentials check.
namespace benchwatch::testing {

// One request as a fake server received it.
struct RecordedRequest {
    std::string method;
    std::string target;  // path and query: "/repos/o/r/issues/5/comments?per_page=100"
    std::multimap<std::string, std::string> headers;
    std::string body;
};

// The answer the next requests get instead of the normal one.
struct FakeFailure {
    int status = 500;
    std::multimap<std::string, std::string> headers;
    std::string body = R"({"message": "Server Error"})";
};

// An issue of a fake forge, with the comments (GitLab's notes) on it, oldest first.
struct FakeIssue {
    std::int64_t number = 0;  // GitHub's number, GitLab's iid
    std::string author;
    std::string title;
    std::string body;  // GitLab's description
    std::vector<std::string> labels;
    bool open = true;
    std::vector<std::string> comments;
};

// How a fake forge's listings point at their next page: as the forges do (none after the last
// page), at the page just sent, or always at one more page, however many there are.
enum class FakePaging { normal, same_page, endless };

// An HTTP server on 127.0.0.1, on a port the system chooses, answering from its own thread
// between start() and stop(). Every request is recorded; then it gets the failure set by
// fail_next() if any is left, or 401 with `unauthorized_body` (JSON) unless its header
// `credential_header` is exactly `credential`; only then does its route's handler answer it.
class FakeForgeServer {
  public:
    using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;

    FakeForgeServer(std::string credential_header, std::string credential,
                    std::string unauthorized_body);
    FakeForgeServer(const FakeForgeServer&) = delete;
    FakeForgeServer& operator=(const FakeForgeServer&) = delete;
    ~FakeForgeServer();

    // Sends `method` ("GET", "POST", "PUT", "PATCH" or "DELETE") requests whose path matches
    // the regular expression `path` to `handler`. Only before start().
    void route(const std::string& method, const std::string& path, Handler handler);

    // Binds the port and returns once the server answers.
    void start();

    // Stops answering and waits for the thread; the owner calls it before the state its handlers
    // use goes away. Calling it again does nothing.
    void stop();

    // "http://127.0.0.1:PORT".
    std::string origin() const;

    // The next `times` requests get `failure`.
    void fail_next(int times, const FakeFailure& failure);

    // Every request received, in order.
    std::vector<RecordedRequest> requests() const;

  private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace benchwatch::testing
