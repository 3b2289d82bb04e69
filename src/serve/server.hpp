#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/error.hpp"
#include "serve/api.hpp"
#include "serve/dashboard.hpp"
#include "serve/upload.hpp"

namespace httplib {
struct Request;
}

namespace benchwatch::serve {

class ConnectionServer;

// The server cannot start: the address cannot be bound or parsed. what() is one line naming the
// address and how to fix it.
class ServeError : public model::Error {
  public:
    explicit ServeError(const std::string& message) : Error(model::ErrorKind::Serve, message) {}
};

// Where the server's data comes from. The functions share one store and are never called at the
// same time; they may throw store::StoreError.
struct DashboardSource {
    std::function<std::int64_t()> version;  // grows when the store changes (Store::last_run_id)
    // The newest run id committed now, without waiting for runs being committed
    // (Store::peek_last_run_id): asked every change_check between the looks at `version`, so that
    // a new run is read without waiting for the next; may be empty.
    std::function<std::int64_t()> peek;
    std::function<Dashboard()> load;  // the whole dashboard, read now
    // The dashboard now, from the one `load` or `update` returned last (DashboardLoader::update),
    // first handing the dashboard with the new runs' values not yet judged to `show_unjudged`
    // where it can; when empty, `load` is called instead.
    std::function<Dashboard(const Dashboard& previous,
                            const std::function<void(Dashboard)>& show_unjudged)>
        update;
    // Answers /pulls/COMMIT; called once per commit and revision of its machine, and its answer
    // given to every request for them until the machine changes.
    PullComparer compare_pull;
};

// How often a server whose source can peek asks whether a run was committed since it last read
// the store.
inline constexpr std::chrono::milliseconds change_check{50};

// A host and port to listen on.
struct ListenAddress {
    std::string host;
    int port = 0;  // 0: any free port
};

// What one client may take of the server: the deadlines that end a request arriving too slowly
// (whatever the pace of its bytes: a byte a second keeps no deadline open) and the connections
// one address may have answered at once, so that slow or many connections cannot hold every
// worker.
struct ConnectionLimits {
    // The request line and headers, counted from the request's first byte.
    std::chrono::milliseconds headers_within{10'000};
    // Each `body_chunk_bytes` of a body, counted from the headers' end or the chunk before.
    std::size_t body_chunk_bytes = 64 * 1024;
    std::chrono::milliseconds body_chunk_within{10'000};
    // Connections answered at once from one client address; more wait for a turn without
    // holding a worker, up to `waiting_per_client`, and any beyond are answered 503 and closed.
    std::size_t per_client = 32;
    std::size_t waiting_per_client = 256;
};

// Parses "HOST:PORT", "[IPV6]:PORT" or ":PORT" (loopback). Throws ServeError naming `text` for
// anything else or a port outside 0–65535. Example: parse_listen("127.0.0.1:8080").
ListenAddress parse_listen(const std::string& text);

// The dashboard over HTTP: the embedded page at / and /assets/, the API of docs/dashboard.md at
// /api/v1/. Read-only unless accept_uploads() was called: then POST /api/v1/runs stores runs too;
// otherwise only GET and HEAD are answered. The source's version is looked at every `refresh`,
// and sooner when its peek (asked every change_check, or every `refresh` when that is shorter)
// says a run was committed; the data is read again when the version changed. Requests in the
// meantime see the previous data whole.
class DashboardServer {
  public:
    DashboardServer(DashboardSource source, std::chrono::milliseconds refresh);
    ~DashboardServer();
    DashboardServer(const DashboardServer&) = delete;
    DashboardServer& operator=(const DashboardServer&) = delete;

    // Answers POST /api/v1/runs with `receiver` (docs/upload.md) and accepts request bodies up to
    // its max_bytes(); call before bind().
    void accept_uploads(std::shared_ptr<UploadReceiver> receiver);

    // Replaces the default ConnectionLimits; call before bind().
    void limit_connections(const ConnectionLimits& limits);

    // Host header names answered beside the loopback names (localhost, 127.0.0.1, [::1]), any
    // port; case does not matter. A server bound to a loopback address, or given names here,
    // answers other Host values 421 and reads nothing more of them, so that a web page whose
    // name was rebound to 127.0.0.1 cannot read the API. Call before bind().
    void allow_hosts(std::vector<std::string> names);

    // Loads the data and binds `address`; returns the port bound. Throws ServeError when the
    // address cannot be bound, store::StoreError when the store cannot be read.
    int bind(const ListenAddress& address);

    // Answers requests until stop() is called; call after bind().
    void run();

    // Makes run() return; safe from any thread, and more than once.
    void stop();

  private:
    // The constructor's steps: GET and HEAD, then the writes (uploads, or 405), then the
    // refusals given from the headers alone, then the replies to what httplib or a handler
    // could not answer.
    void route_reads();
    void route_writes();
    void refuse_from_headers();
    void explain_failures();

    std::shared_ptr<const ApiSnapshot> snapshot() const;
    Response compared_pull(const ApiSnapshot& snapshot, const std::string& project,
                           const std::string& machine, const std::string& commit) const;
    // Whether the source's peek names a run newer than those `shown` holds; false without a
    // peek or when it fails.
    bool run_committed_since(const Dashboard& shown) const;
    void refresh_until_stopped();
    void handle(const std::string& target, const Parameters& parameters, Response& response) const;
    Response answer_upload(const httplib::Request& request) const;
    std::optional<Response> refusal_before_body(const httplib::Request& request) const;

    DashboardSource source_;
    std::chrono::milliseconds refresh_;
    std::unique_ptr<ConnectionServer> http_;
    std::vector<std::string> allowed_hosts_;  // lowercase
    bool check_hosts_ = false;
    std::shared_ptr<UploadReceiver> uploads_;  // null: read-only
    mutable std::mutex source_mutex_;          // one store, one caller at a time
    mutable std::mutex snapshot_mutex_;        // guards snapshot_ (the pointer, not the data)
    std::shared_ptr<const ApiSnapshot> snapshot_;
    mutable std::mutex comparisons_mutex_;  // guards comparisons_
    // By machine revision, project, machine and commit, each computed once.
    mutable std::map<std::string, std::shared_future<Response>> comparisons_;
    std::mutex stop_mutex_;
    std::condition_variable stop_signal_;
    bool stopping_ = false;
};

}  // namespace benchwatch::serve
