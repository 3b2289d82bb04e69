#include "serve/server.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <httplib.h>
#include <malloc.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <deque>
#include <iostream>
#include <map>
#include <thread>
#include <vector>

#include "model/printable.hpp"
#include "serve/assets.hpp"

namespace benchwatch::serve {

namespace {

constexpr std::size_t worker_threads = 64;  // a keep-alive connection holds one while it lasts
constexpr std::size_t max_request_body = 64 * 1024;
// The longest request line and headers read; a longer head is answered 431 and its connection
// closed.
constexpr std::size_t max_request_head = 64 * 1024;
constexpr const char* page_policy =
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

const Asset* find_asset(std::string_view path) {
    const auto assets = embedded_assets();
    const auto found =
        std::lower_bound(assets.begin(), assets.end(), path,
                         [](const Asset& a, std::string_view p) { return a.path < p; });
    return found != assets.end() && found->path == path ? &*found : nullptr;
}

// The path of a request target split on '/' and percent-decoded; nullopt when a segment is
// empty (except a trailing one), "." or "..", so that no path can climb out of the page.
std::optional<std::vector<std::string>> path_segments(std::string_view target) {
    const auto query = target.find('?');
    std::string_view path = target.substr(0, query);
    if (!path.starts_with('/')) return std::nullopt;
    path.remove_prefix(1);
    std::vector<std::string> segments;
    while (!path.empty()) {
        const auto slash = path.find('/');
        const std::string_view raw = path.substr(0, slash);
        std::string segment = httplib::detail::decode_url(std::string(raw), false);
        if (segment.empty() || segment == "." || segment == ".." ||
            segment.find('\0') != std::string::npos)
            return std::nullopt;
        segments.push_back(std::move(segment));
        if (slash == std::string_view::npos) break;
        path.remove_prefix(slash + 1);
    }
    return segments;
}

// Loading builds and frees a map per run; glibc keeps that memory unless asked to return it
// (325 MB instead of 48 MB for 500 benchmarks × 5,000 runs, docs/PERFORMANCE.md).
void release_freed_memory() {
    malloc_trim(0);
}

Response not_found(bool api) {
    if (api) return error_response(404, "no such route; see docs/dashboard.md for the API");
    return {404, "text/plain; charset=utf-8", "not found\n"};
}

using Clock = std::chrono::steady_clock;

// What the connection layer and the handlers tell each other about the request being answered
// on this thread: httplib answers a request on one thread, from its first byte to its reply.
struct RequestState {
    bool late = false;             // a deadline passed before the request had arrived
    bool in_body = false;          // its headers had all arrived
    bool drain_body = false;       // refused before its body: discard what arrives, then close
    bool close = false;            // close the connection after the reply
    std::uint64_t body_bytes = 0;  // how much of a refused body to drop; 0: until the client closes
    std::string head;              // its line and headers as they arrived, up to max_request_head
    bool head_cut = false;         // they were longer than max_request_head
};

thread_local RequestState* current_request = nullptr;

// "10 s", or "1500 ms" when not whole seconds.
std::string duration_text(std::chrono::milliseconds duration) {
    if (duration.count() % 1000 == 0) return fmt::format("{} s", duration.count() / 1000);
    return fmt::format("{} ms", duration.count());
}

std::string late_reason(const ConnectionLimits& limits, bool in_body) {
    if (!in_body)
        return fmt::format(
            "the request's line and headers did not arrive within {} of its first byte; send "
            "them at once",
            duration_text(limits.headers_within));
    return fmt::format("the request's body arrived too slowly: each {} bytes must arrive within {}",
                       limits.body_chunk_bytes, duration_text(limits.body_chunk_within));
}

// A whole HTTP/1.1 reply, 408 or 503, with a JSON error body that closes the connection, for the
// answers the connection layer gives itself (httplib never saw the request).
std::string closing_reply(int status, const std::string& reason,
                          const std::string& extra_headers = "") {
    const std::string body = error_response(status, reason).body;
    return fmt::format(
        "HTTP/1.1 {} {}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: "
        "{}\r\n{}Connection: close\r\n\r\n{}",
        status, status == 408 ? "Request Timeout" : "Service Unavailable", body.size(),
        extra_headers, body);
}

// The numeric address of the socket's peer ("127.0.0.1", "::1"), or "" when it has none.
std::string peer_address(int socket) {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    if (getpeername(socket, reinterpret_cast<sockaddr*>(&address), &length) != 0) return "";
    std::array<char, NI_MAXHOST> host{};
    if (getnameinfo(reinterpret_cast<sockaddr*>(&address), length, host.data(), host.size(),
                    nullptr, 0, NI_NUMERICHOST) != 0)
        return "";
    return host.data();
}

void socket_ip_and_port(int socket, bool peer, std::string& ip, int& port) {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    auto* raw = reinterpret_cast<sockaddr*>(&address);
    if ((peer ? getpeername(socket, raw, &length) : getsockname(socket, raw, &length)) != 0) return;
    std::array<char, NI_MAXHOST> host{};
    std::array<char, NI_MAXSERV> service{};
    if (getnameinfo(raw, length, host.data(), host.size(), service.data(), service.size(),
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        return;
    ip = host.data();
    port = std::atoi(service.data());
}

// httplib's Stream over an accepted socket, with deadlines that a trickle of bytes cannot keep
// open: the request line and headers must all arrive within `headers_within` of the request's
// first byte, and each `body_chunk_bytes` of the body within `body_chunk_within`; besides, no
// single wait for bytes lasts longer than `read_wait` (httplib's read timeout). Waits end early
// when `stopping` says the server stops.
class DeadlineStream final : public httplib::Stream {
  public:
    DeadlineStream(int socket, const ConnectionLimits& limits, std::chrono::milliseconds read_wait,
                   std::chrono::milliseconds write_wait, std::function<bool()> stopping)
        : socket_(socket),
          limits_(limits),
          read_wait_(read_wait),
          write_wait_(write_wait),
          stopping_(std::move(stopping)) {}

    using httplib::Stream::write;

    // Waits up to `idle` for the next request's first byte; false when none came, the client
    // closed, or the server stops.
    bool await_request(std::chrono::milliseconds idle) {
        if (position_ < filled_) return true;
        return wait_for(POLLIN, Clock::now() + idle);
    }

    // Starts the deadlines of a request whose first byte is here.
    void begin_request(RequestState& state) {
        state_ = &state;
        deadline_ = Clock::now() + limits_.headers_within;
        wrote_ = false;
    }

    // The headers have all arrived: the body's chunks are timed from now.
    void headers_done() {
        state_->in_body = true;
        body_read_ = 0;
        chunk_start_ = 0;
        deadline_ = Clock::now() + limits_.body_chunk_within;
    }

    // Whether any byte of a reply was written since begin_request().
    bool wrote() const { return wrote_; }

    // Reads and drops up to `bytes` of a refused body, or until the client closes, each chunk
    // within its deadline as a body's, so that a client still sending it reads the refusal
    // instead of a reset connection.
    void discard(std::uint64_t bytes) {
        headers_done();
        std::array<char, 16 * 1024> sink{};
        std::uint64_t dropped = 0;
        while (dropped < bytes) {
            const auto want =
                static_cast<std::size_t>(std::min<std::uint64_t>(sink.size(), bytes - dropped));
            const ssize_t got = read(sink.data(), want);
            if (got <= 0) return;
            dropped += static_cast<std::uint64_t>(got);
        }
    }

    bool is_readable() const override {
        return position_ < filled_ || wait_for(POLLIN, read_deadline());
    }

    bool is_writable() const override { return wait_for(POLLOUT, Clock::now() + write_wait_); }

    ssize_t read(char* destination, std::size_t size) override {
        if (size == 0) return 0;
        if (position_ < filled_) {
            const std::size_t count = std::min(size, filled_ - position_);
            std::copy_n(buffer_.data() + position_, count, destination);
            position_ += count;
            return delivered(destination, count);
        }
        if (!wait_readable()) return -1;
        if (size >= buffer_.size()) {
            const ssize_t got = receive(destination, size);
            return got > 0 ? delivered(destination, static_cast<std::size_t>(got)) : got;
        }
        const ssize_t got = receive(buffer_.data(), buffer_.size());
        if (got <= 0) return got;
        filled_ = static_cast<std::size_t>(got);
        position_ = std::min(size, filled_);
        std::copy_n(buffer_.data(), position_, destination);
        return delivered(destination, position_);
    }

    ssize_t write(const char* source, std::size_t size) override {
        if (!is_writable()) return -1;
        for (;;) {
            const ssize_t sent = ::send(socket_, source, size, MSG_NOSIGNAL);
            if (sent < 0 && errno == EINTR) continue;
            if (sent > 0) wrote_ = true;
            return sent;
        }
    }

    void get_remote_ip_and_port(std::string& ip, int& port) const override {
        socket_ip_and_port(socket_, true, ip, port);
    }

    void get_local_ip_and_port(std::string& ip, int& port) const override {
        socket_ip_and_port(socket_, false, ip, port);
    }

    socket_t socket() const override { return socket_; }

  private:
    Clock::time_point read_deadline() const {
        return std::min(deadline_, Clock::now() + read_wait_);
    }

    // Waits for bytes to read until the request's deadline (marking the request late when it
    // passes) or `read_wait`, whichever comes first.
    bool wait_readable() {
        const auto now = Clock::now();
        if (now >= deadline_) {
            if (state_ != nullptr) state_->late = true;
            return false;
        }
        if (wait_for(POLLIN, read_deadline())) return true;
        if (Clock::now() >= deadline_ && state_ != nullptr) state_->late = true;
        return false;
    }

    // Polls for `events` until `until`, in slices short enough to notice the server stopping.
    bool wait_for(short events, Clock::time_point until) const {
        for (;;) {
            const auto now = Clock::now();
            if (now >= until || stopping_()) return false;
            const auto slice = std::min<std::chrono::milliseconds>(
                std::chrono::duration_cast<std::chrono::milliseconds>(until - now) +
                    std::chrono::milliseconds(1),
                std::chrono::milliseconds(100));
            pollfd descriptor{socket_, events, 0};
            const int ready = ::poll(&descriptor, 1, static_cast<int>(slice.count()));
            if (ready > 0) return true;
            if (ready < 0 && errno != EINTR) return false;
        }
    }

    ssize_t receive(char* destination, std::size_t size) {
        for (;;) {
            const ssize_t got = ::recv(socket_, destination, size, 0);
            if (got < 0 && errno == EINTR) continue;
            return got;
        }
    }

    // Counts `count` bytes handed to httplib; a body's every whole chunk restarts its deadline.
    // Before the body they are the request's line and headers, kept for framing_problem():
    // httplib reads them a byte at a time, so none of the body is among them.
    ssize_t delivered(const char* bytes, std::size_t count) {
        if (state_ != nullptr && !state_->in_body) {
            const std::size_t room = max_request_head - state_->head.size();
            state_->head.append(bytes, std::min(count, room));
            if (count > room) state_->head_cut = true;
        }
        if (state_ != nullptr && state_->in_body) {
            body_read_ += count;
            if (body_read_ - chunk_start_ >= limits_.body_chunk_bytes) {
                chunk_start_ = body_read_;
                deadline_ = Clock::now() + limits_.body_chunk_within;
            }
        }
        return static_cast<ssize_t>(count);
    }

    int socket_;
    const ConnectionLimits& limits_;
    std::chrono::milliseconds read_wait_;
    std::chrono::milliseconds write_wait_;
    std::function<bool()> stopping_;
    RequestState* state_ = nullptr;
    Clock::time_point deadline_ = Clock::time_point::max();
    std::uint64_t body_read_ = 0;
    std::uint64_t chunk_start_ = 0;
    bool wrote_ = false;
    std::array<char, 4096> buffer_{};
    std::size_t position_ = 0;
    std::size_t filled_ = 0;
};

// Whether `name`, a Host header's name without its port and lowercased, is one of loopback:
// localhost, [::1] or an IPv4 address in 127.0.0.0/8.
bool is_loopback_name(std::string_view name) {
    if (name == "localhost" || name == "[::1]") return true;
    in_addr address{};
    return inet_pton(AF_INET, std::string(name).c_str(), &address) == 1 &&
           (ntohl(address.s_addr) >> 24) == 127;
}

// Whether the server listens on a loopback address only.
bool is_loopback_address(std::string_view host) {
    if (host == "::1" || host == "localhost") return true;
    in_addr address{};
    return inet_pton(AF_INET, std::string(host).c_str(), &address) == 1 &&
           (ntohl(address.s_addr) >> 24) == 127;
}

std::string lowercase(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower;
}

// The name of a Host header's value, without its port: "[::1]:8080" → "[::1]", "A.org:80" →
// "a.org".
std::string host_name(std::string_view value) {
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    if (value.starts_with('[')) {
        const auto close = value.find(']');
        if (close != std::string_view::npos) return lowercase(value.substr(0, close + 1));
        return lowercase(value);
    }
    return lowercase(value.substr(0, value.find(':')));
}

// Whether the request says a body follows its headers.
bool declares_body(const httplib::Request& request) {
    return request.has_header("Transfer-Encoding") ||
           (request.has_header("Content-Length") &&
            request.get_header_value("Content-Length") != "0");
}

// Whether `c` may be part of a header's name (RFC 9110's token characters).
bool is_token_character(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::string_view without_blanks(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    return text;
}

// Why the request's line and headers, as they arrived (`head`, up to its empty line), do not say
// beyond doubt where the request ends, so that a proxy in front of the server could read its
// body as another request than the server does; nullopt when they do. Refused: lines not ended
// by CR LF, lines folded onto the next, header names that are not tokens, more than one Host,
// Content-Length or Transfer-Encoding, both of the last two, a Content-Length that is not
// digits, a Transfer-Encoding other than "chunked", and a body on any method but POST, PUT and
// PATCH. The raw bytes are read because httplib skips lines it cannot parse and percent-decodes
// header values ("%63hunked" is "chunked" to it).
std::optional<std::string> framing_problem(std::string_view head) {
    std::string_view method;
    std::size_t line_number = 0;
    std::map<std::string, std::vector<std::string_view>> framing;  // host, content-length, …
    for (;;) {
        const auto end = head.find('\n');
        ++line_number;
        if (end == std::string_view::npos || end == 0 || head[end - 1] != '\r' ||
            head.substr(0, end - 1).find('\r') != std::string_view::npos)
            return fmt::format(
                "line {} of the request's head does not end with CR LF (or holds a lone CR); end "
                "every line of the request line and headers with CR LF",
                line_number);
        const std::string_view line = head.substr(0, end - 1);
        head.remove_prefix(end + 1);
        if (line_number == 1) {
            method = line.substr(0, line.find(' '));
            continue;
        }
        if (line.empty()) break;
        if (line.front() == ' ' || line.front() == '\t')
            return fmt::format(
                "header line {} continues the line before it (obsolete line folding); send each "
                "header on one line",
                line_number);
        const auto colon = line.find(':');
        const std::string_view name = line.substr(0, colon);
        if (colon == std::string_view::npos || name.empty() ||
            !std::all_of(name.begin(), name.end(), is_token_character))
            return fmt::format(
                "header line {} is not NAME: VALUE with a name of letters, digits and "
                "!#$%&'*+-.^_`|~ only; send well-formed headers",
                line_number);
        const std::string lower = lowercase(name);
        if (lower == "host" || lower == "content-length" || lower == "transfer-encoding")
            framing[lower].push_back(without_blanks(line.substr(colon + 1)));
    }
    for (const auto& [name, canonical] :
         {std::pair{"host", "Host"}, std::pair{"content-length", "Content-Length"},
          std::pair{"transfer-encoding", "Transfer-Encoding"}}) {
        const auto found = framing.find(name);
        if (found != framing.end() && found->second.size() > 1)
            return fmt::format("the request has {} {} headers; send one", found->second.size(),
                               canonical);
    }
    const auto value = [&](const std::string& name) -> std::optional<std::string_view> {
        const auto found = framing.find(name);
        if (found == framing.end()) return std::nullopt;
        return found->second.front();
    };
    const auto length = value("content-length");
    const auto encoding = value("transfer-encoding");
    if (length && encoding)
        return "the request has both Content-Length and Transfer-Encoding, which a proxy and this "
               "server could read differently; send one of them";
    if (length &&
        (length->empty() || length->size() > 19 ||
         !std::all_of(length->begin(), length->end(), [](char c) { return c >= '0' && c <= '9'; })))
        return "the request's Content-Length is not a number of bytes (digits only); send the "
               "body's length in bytes";
    if (encoding && lowercase(*encoding) != "chunked")
        return "the request's Transfer-Encoding is not \"chunked\", the only one this server "
               "reads; send the body with Content-Length or Transfer-Encoding: chunked";
    const bool body =
        encoding || (length && length->find_first_not_of('0') != std::string_view::npos);
    if (body && method != "POST" && method != "PUT" && method != "PATCH")
        return fmt::format("{} requests take no body, and this one has one ({}); send it without",
                           method.substr(0, 16),
                           encoding ? "Transfer-Encoding: chunked" : "Content-Length");
    return std::nullopt;
}

// Whether `refusal` is of a request whose end is not known (framing_problem(), a head over
// max_request_head): nothing after it on the connection can be read as a request.
bool ends_connection(const Response& refusal) {
    return refusal.status == 400 || refusal.status == 431;
}

// Closes the connection after `http_response`, first reading and dropping what the client still
// sends (up to max_request_body), never as a request, so that it reads the reply instead of a
// reset connection.
void close_unframed(httplib::Response& http_response) {
    http_response.set_header("Connection", "close");
    if (current_request == nullptr) return;
    current_request->close = true;
    current_request->drain_body = true;
    current_request->body_bytes = max_request_body;
}

// A refusal given before the body, with the headers its status calls for.
void fill_refusal(const Response& refusal, httplib::Response& http_response) {
    http_response.status = refusal.status;
    if (refusal.status == 401) http_response.set_header("WWW-Authenticate", "Bearer");
    if (refusal.status == 405) http_response.set_header("Allow", "GET, HEAD");
    http_response.set_content(refusal.body, refusal.content_type.c_str());
}

// The request's Content-Length, 0 when it has none or it is not a number.
std::uint64_t content_length(const httplib::Request& request) {
    const std::string text = request.get_header_value("Content-Length");
    std::uint64_t length = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), length);
    return error == std::errc() && end == text.data() + text.size() ? length : 0;
}

}  // namespace

// httplib's server with a connection layer of its own: each connection is answered by httplib's
// request parsing and routing (process_request) over a DeadlineStream, at most
// `limits.per_client` connections at once per client address (the others of that address wait
// for their turn, holding no worker), and the listen backlog widened so that a burst of uploads
// waits to be accepted instead of being reset.
class DashboardServer::Http final : public httplib::Server {
  public:
    ConnectionLimits limits;

    // httplib listens with a backlog of 5; listening again on the bound socket widens it.
    void widen_backlog() {
        const socket_t socket = svr_sock_;
        if (socket != INVALID_SOCKET) ::listen(socket, SOMAXCONN);
    }

  private:
    // Answers the connection, then, on the same worker, each connection of the same address that
    // waited for its turn meanwhile.
    bool process_and_close_socket(socket_t socket) override {
        const std::string client = peer_address(socket);
        switch (admit(client, socket)) {
            case Admission::waiting:
                return true;
            case Admission::refused: {
                const std::string reply = closing_reply(
                    503,
                    fmt::format("{} has {} connections open to this server and {} more waiting, "
                                "the most one address may hold; retry when some have closed",
                                client, limits.per_client, limits.waiting_per_client),
                    "Retry-After: 1\r\n");
                [[maybe_unused]] const auto sent =
                    ::send(socket, reply.data(), reply.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
                close_socket(socket);
                return true;
            }
            case Admission::admitted:
                break;
        }
        bool answered = true;
        for (std::optional<socket_t> next = socket; next; next = next_turn(client)) {
            answered = answer_connection(*next, client);
            close_socket(*next);
        }
        return answered;
    }

    static void close_socket(socket_t socket) {
        ::shutdown(socket, SHUT_RDWR);
        ::close(socket);
    }

    // Answers requests on the connection while it stays open, closing it after a reply when
    // another connection of `client` waits for its turn, so that the turn is not held idle.
    bool answer_connection(socket_t socket, const std::string& client) {
        DeadlineStream stream(socket, limits, std::chrono::seconds(read_timeout_sec_),
                              std::chrono::seconds(write_timeout_sec_),
                              [this] { return svr_sock_.load() == INVALID_SOCKET; });
        for (std::size_t left = keep_alive_max_count_; left > 0; --left) {
            if (!stream.await_request(std::chrono::seconds(keep_alive_timeout_sec_))) return true;
            RequestState state;
            current_request = &state;
            stream.begin_request(state);
            bool closed = false;
            const bool last = left == 1 || others_wait(client);
            const bool answered = process_request(
                stream, last, closed, [&](httplib::Request&) { stream.headers_done(); });
            current_request = nullptr;
            if (state.late && !stream.wrote()) {
                const std::string reply = closing_reply(408, late_reason(limits, state.in_body));
                stream.write(reply.data(), reply.size());
            }
            // A body over the largest accepted is not worth reading even to drop it.
            if (state.drain_body && state.body_bytes <= payload_max_length_)
                stream.discard(state.body_bytes > 0 ? state.body_bytes : payload_max_length_);
            if (last || !answered || closed || state.late || state.close || state.drain_body)
                return answered;
        }
        return true;
    }

    enum class Admission { admitted, waiting, refused };

    // Lets a connection of `client` in when it holds fewer than per_client, else queues it for
    // the next free turn (holding no worker meanwhile) when fewer than waiting_per_client wait.
    Admission admit(const std::string& client, socket_t socket) {
        std::lock_guard lock(clients_mutex_);
        Client& entry = clients_[client];
        if (entry.open < limits.per_client) {
            ++entry.open;
            return Admission::admitted;
        }
        if (entry.waiting.size() < limits.waiting_per_client) {
            entry.waiting.push_back(socket);
            return Admission::waiting;
        }
        return Admission::refused;
    }

    bool others_wait(const std::string& client) {
        std::lock_guard lock(clients_mutex_);
        const auto found = clients_.find(client);
        return found != clients_.end() && !found->second.waiting.empty();
    }

    // The connection of `client` whose turn is next, now holding the turn of the one that ended;
    // nullopt when none waits, and the turn is given back.
    std::optional<socket_t> next_turn(const std::string& client) {
        std::lock_guard lock(clients_mutex_);
        const auto found = clients_.find(client);
        if (found == clients_.end()) return std::nullopt;
        Client& entry = found->second;
        if (!entry.waiting.empty()) {
            const socket_t next = entry.waiting.front();
            entry.waiting.pop_front();
            return next;
        }
        if (--entry.open == 0) clients_.erase(found);
        return std::nullopt;
    }

  public:
    ~Http() override {
        for (auto& [client, entry] : clients_)
            for (const socket_t socket : entry.waiting) close_socket(socket);
    }

  private:
    struct Client {
        std::size_t open = 0;            // connections being answered
        std::deque<socket_t> waiting{};  // accepted, waiting for a turn, oldest first
    };
    std::mutex clients_mutex_;
    std::map<std::string, Client> clients_;  // by client address
};

ListenAddress parse_listen(const std::string& text) {
    const auto fail = [&] {
        return ServeError(
            fmt::format("--listen '{}' is not HOST:PORT with a port from 0 to "
                        "65535; for example --listen 127.0.0.1:8080",
                        text));
    };
    const auto colon = text.rfind(':');
    if (colon == std::string::npos) throw fail();
    ListenAddress address;
    address.host = text.substr(0, colon);
    if (address.host.starts_with('[') && address.host.ends_with(']'))
        address.host = address.host.substr(1, address.host.size() - 2);
    else if (address.host.find(':') != std::string::npos)
        throw fail();
    if (address.host.empty()) address.host = "127.0.0.1";
    const std::string_view port = std::string_view(text).substr(colon + 1);
    const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), address.port);
    if (port.empty() || error != std::errc() || end != port.data() + port.size() ||
        address.port < 0 || address.port > 65535)
        throw fail();
    return address;
}

DashboardServer::DashboardServer(DashboardSource source, std::chrono::milliseconds refresh)
    : source_(std::move(source)), refresh_(refresh), http_(std::make_unique<Http>()) {
    http_->new_task_queue = [] { return new httplib::ThreadPool(worker_threads); };
    // SO_REUSEADDR only: httplib's default SO_REUSEPORT would let a second server share the
    // port silently, each answering some of the requests.
    http_->set_socket_options([](int socket) {
        int yes = 1;
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    });
    // Without it every reply on a kept-alive connection waits ~40 ms: httplib writes headers and
    // body separately, and Nagle's algorithm holds the body until the client's delayed ACK.
    http_->set_tcp_nodelay(true);
    http_->set_keep_alive_max_count(1000);
    http_->set_payload_max_length(max_request_body);
    http_->set_default_headers({{"X-Content-Type-Options", "nosniff"},
                                {"Referrer-Policy", "no-referrer"},
                                {"Cache-Control", "no-cache"}});
    http_->Get(".*", [this](const httplib::Request& request, httplib::Response& http_response) {
        Parameters parameters(request.params.begin(), request.params.end());
        Response response;
        handle(request.target, parameters, response);
        http_response.status = response.status;
        if (response.content_type.starts_with("text/html"))
            http_response.set_header("Content-Security-Policy", page_policy);
        http_response.set_content(std::move(response.body), response.content_type.c_str());
    });
    const auto read_only = [](const httplib::Request&, httplib::Response& http_response) {
        http_response.status = 405;
        http_response.set_header("Allow", "GET, HEAD");
        http_response.set_content(
            error_response(405, "benchwatch serve is read-only: only GET and HEAD are answered")
                .body,
            "application/json; charset=utf-8");
    };
    http_->Post(".*", [this, read_only](const httplib::Request& request,
                                        httplib::Response& http_response) {
        if (!uploads_ || request.path != upload_path) return read_only(request, http_response);
        const Response response = answer_upload(request);
        http_response.status = response.status;
        if (response.status == 401) http_response.set_header("WWW-Authenticate", "Bearer");
        http_response.set_content(response.body, response.content_type.c_str());
    });
    // Refusals that need the headers only are given before any body is read: a wrong Host, a
    // write to a read-only route, an upload without the token. A client that sent
    // "Expect: 100-continue" never sends its body; any other has what it sends discarded.
    http_->set_expect_100_continue_handler(
        [this](const httplib::Request& request, httplib::Response& http_response) {
            const auto refusal = refusal_before_body(request);
            if (!refusal) return 100;
            fill_refusal(*refusal, http_response);
            if (current_request != nullptr) current_request->close = true;
            if (ends_connection(*refusal)) close_unframed(http_response);
            return refusal->status;
        });
    http_->set_pre_routing_handler(
        [this](const httplib::Request& request, httplib::Response& http_response) {
            const auto refusal = refusal_before_body(request);
            if (!refusal) return httplib::Server::HandlerResponse::Unhandled;
            fill_refusal(*refusal, http_response);
            if (ends_connection(*refusal)) {
                close_unframed(http_response);
            } else if (declares_body(request) && current_request != nullptr) {
                http_response.set_header("Connection", "close");
                current_request->drain_body = true;
                current_request->body_bytes = content_length(request);
            }
            return httplib::Server::HandlerResponse::Handled;
        });
    http_->Put(".*", read_only);
    http_->Patch(".*", read_only);
    http_->Delete(".*", read_only);
    const httplib::Server::HandlerWithResponse fill_empty_error =
        [this](const httplib::Request& request, httplib::Response& http_response) {
            if (current_request != nullptr && current_request->late) {
                http_response.status = 408;
                http_response.set_header("Connection", "close");
                current_request->close = true;
                const Response response =
                    error_response(408, late_reason(http_->limits, current_request->in_body));
                http_response.set_content(response.body, response.content_type.c_str());
                return httplib::Server::HandlerResponse::Handled;
            }
            if (!http_response.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
            // httplib's own refusal (a malformed request line, a body over the limit): where the
            // request ends is not known, so the connection ends with it.
            close_unframed(http_response);
            std::string reason = fmt::format("{} {}: the request could not be answered",
                                             request.method, request.path);
            if (http_response.status == 413 && uploads_) {
                reason = fmt::format(
                    "the upload is larger than this server's limit of {} bytes; upload fewer or "
                    "smaller files, or raise the server's --max-upload-bytes",
                    uploads_->max_bytes());
                uploads_->log(fmt::format("upload from {} refused (413 Payload Too Large): {}",
                                          request.remote_addr, reason));
            }
            const Response response = error_response(http_response.status, reason);
            http_response.set_content(response.body, response.content_type.c_str());
            return httplib::Server::HandlerResponse::Handled;
        };
    http_->set_error_handler(fill_empty_error);
    http_->set_exception_handler(
        [](const httplib::Request&, httplib::Response& http_response, std::exception_ptr error) {
            std::string message = "internal error";
            try {
                std::rethrow_exception(error);
            } catch (const std::exception& exception) {
                message = fmt::format("internal error: {}", exception.what());
            } catch (...) {
            }
            http_response.status = 500;
            http_response.set_content(error_response(500, message).body,
                                      "application/json; charset=utf-8");
        });
}

DashboardServer::~DashboardServer() {
    stop();
}

void DashboardServer::accept_uploads(std::shared_ptr<UploadReceiver> receiver) {
    assert(receiver);
    http_->set_payload_max_length(receiver->max_bytes());
    uploads_ = std::move(receiver);
}

void DashboardServer::limit_connections(const ConnectionLimits& limits) {
    http_->limits = limits;
}

void DashboardServer::allow_hosts(std::vector<std::string> names) {
    allowed_hosts_.clear();
    for (const auto& name : names) allowed_hosts_.push_back(host_name(name));
}

std::optional<Response> DashboardServer::refusal_before_body(
    const httplib::Request& request) const {
    if (current_request != nullptr) {
        if (current_request->head_cut)
            return error_response(
                431, fmt::format("the request's line and headers are longer than {} bytes; send "
                                 "fewer or shorter headers",
                                 max_request_head));
        if (const auto problem = framing_problem(current_request->head))
            return error_response(400, *problem);
    }
    if (check_hosts_ && request.has_header("Host")) {
        const std::string value = request.get_header_value("Host");
        const std::string name = host_name(value);
        if (!is_loopback_name(name) &&
            std::find(allowed_hosts_.begin(), allowed_hosts_.end(), name) == allowed_hosts_.end()) {
            std::string names = "localhost, 127.0.0.1 and [::1]";
            for (const auto& allowed : allowed_hosts_) names += ", " + allowed;
            return error_response(
                421, fmt::format("Host '{}' is not a name this server answers to ({}); start it "
                                 "with --allowed-host {} to answer to that name",
                                 value.substr(0, 100), names, name.substr(0, 100)));
        }
    }
    if (request.method == "GET" || request.method == "HEAD") return std::nullopt;
    if (!uploads_ || request.method != "POST" || request.path != upload_path)
        return error_response(405, "benchwatch serve is read-only: only GET and HEAD are answered");
    return uploads_->refusal_of_authorization(request.get_header_value("Authorization"),
                                              request.remote_addr);
}

Response DashboardServer::answer_upload(const httplib::Request& request) const {
    std::optional<std::vector<ReceivedPart>> form;
    if (request.is_multipart_form_data()) {
        form.emplace();
        for (const auto& [name, part] : request.files)
            form->push_back({part.name, part.filename, part.content});
    }
    std::optional<std::span<const ReceivedPart>> parts;
    if (form) parts = std::span<const ReceivedPart>(*form);
    return uploads_->receive(request.get_header_value("Authorization"), parts,
                             request.remote_addr);
}

int DashboardServer::bind(const ListenAddress& address) {
    {
        std::lock_guard lock(source_mutex_);
        auto loaded = std::make_shared<const ApiSnapshot>(source_.load());
        std::lock_guard snapshot_lock(snapshot_mutex_);
        snapshot_ = std::move(loaded);
    }
    release_freed_memory();
    int port = address.port;
    if (port == 0) {
        port = http_->bind_to_any_port(address.host);
        if (port < 0) port = 0;
    } else if (!http_->bind_to_port(address.host, port)) {
        port = 0;
    }
    check_hosts_ = !allowed_hosts_.empty() || is_loopback_address(address.host);
    if (port != 0) http_->widen_backlog();
    if (port == 0)
        throw ServeError(
            fmt::format("cannot listen on {}:{} (in use, or not an address of this "
                        "machine); pass --listen with another host or port",
                        address.host, address.port));
    return port;
}

void DashboardServer::run() {
    std::thread refresher([this] { refresh_until_stopped(); });
    http_->listen_after_bind();
    stop();
    refresher.join();
}

void DashboardServer::stop() {
    {
        std::lock_guard lock(stop_mutex_);
        stopping_ = true;
    }
    stop_signal_.notify_all();
    http_->stop();
}

std::shared_ptr<const ApiSnapshot> DashboardServer::snapshot() const {
    std::lock_guard lock(snapshot_mutex_);
    return snapshot_;
}

void DashboardServer::refresh_until_stopped() {
    std::unique_lock stop_lock(stop_mutex_);
    while (!stop_signal_.wait_for(stop_lock, refresh_, [this] { return stopping_; })) {
        stop_lock.unlock();
        try {
            std::lock_guard lock(source_mutex_);
            if (source_.version() != snapshot()->dashboard().last_run_id) {
                auto loaded = std::make_shared<const ApiSnapshot>(source_.load());
                {
                    std::lock_guard snapshot_lock(snapshot_mutex_);
                    snapshot_ = std::move(loaded);
                }
                release_freed_memory();
            }
        } catch (const std::exception& error) {
            std::cerr << "warning: keeping the dashboard's previous data: "
                      << model::printable_line(error.what()) << '\n';
        }
        stop_lock.lock();
    }
}

void DashboardServer::handle(const std::string& target, const Parameters& parameters,
                             Response& response) const {
    const auto segments = path_segments(target);
    const bool api = std::string_view(target).starts_with("/api/");
    if (!segments) {
        response = not_found(api);
        return;
    }
    if (segments->size() >= 2 && (*segments)[0] == "api" && (*segments)[1] == "v1") {
        const auto compare_pull = [this](const std::string& project, const std::string& machine,
                                         const std::string& commit) {
            std::lock_guard lock(source_mutex_);
            return source_.compare_pull(project, machine, commit);
        };
        response = snapshot()->answer(std::span(*segments).subspan(2), parameters, compare_pull);
        return;
    }
    if (api) {
        response = not_found(true);
        return;
    }
    std::string path;
    for (const auto& segment : *segments) path += (path.empty() ? "" : "/") + segment;
    if (path.empty()) path = "index.html";
    const Asset* asset = find_asset(path);
    if (asset == nullptr) {
        response = not_found(false);
        return;
    }
    response = {200, std::string(asset->content_type), std::string(asset->bytes)};
    // The page carries the data of the project and machine it opens on, so that it draws its
    // first charts without waiting for requests of its own.
    if (path == "index.html") {
        const auto chosen = [&](const std::string& name) {
            const auto found = parameters.find(name);
            return found == parameters.end() ? std::string() : found->second;
        };
        const auto current = snapshot();
        if (const std::string* data = current->page_data(chosen("pkg"), chosen("machine")))
            response.body = page_with_data(asset->bytes, *data);
    }
}

}  // namespace benchwatch::serve
