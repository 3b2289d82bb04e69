#include "serve/connection.hpp"

#include <fmt/format.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace benchwatch::serve {

namespace {

constexpr std::size_t worker_threads = 64;  // a keep-alive connection holds one while it lasts
constexpr std::size_t max_request_body = 64 * 1024;
// The longest request line and headers read; a longer head is answered 431 and its connection
// closed.
constexpr std::size_t max_request_head = 64 * 1024;

using Clock = std::chrono::steady_clock;

// What the connection layer and the handlers tell each other about the request being answered
// on this thread: httplib answers a request on one thread, from its first byte to its reply.
struct RequestState {
    bool late = false;             // a deadline passed before the request had arrived
    bool in_body = false;          // its headers had all arrived
    bool drain_body = false;       // refused before its body: discard what arrives, then close
    bool close = false;            // close the connection after the reply
    std::uint64_t body_bytes = 0;  // how much of a refused body to drop; 0: the most accepted
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

// The request without Brotli among the codings it accepts. httplib compresses a text reply
// with the best coding the client accepts, and Brotli at its highest quality, once per request:
// browsers accept it, and a 1.6 MB page then took 2.3 s to compress where gzip takes 40 ms.
void without_brotli(httplib::Request& request) {
    const auto found = request.headers.find("Accept-Encoding");
    if (found == request.headers.end()) return;
    std::string kept;
    std::string_view rest = found->second;
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        const auto coding = rest.substr(0, comma);
        auto name = coding.substr(0, coding.find(';'));
        while (!name.empty() && (name.front() == ' ' || name.front() == '\t'))
            name.remove_prefix(1);
        while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.remove_suffix(1);
        const bool brotli = name.size() == 2 && (name[0] == 'b' || name[0] == 'B') &&
                            (name[1] == 'r' || name[1] == 'R');
        if (!brotli) {
            if (!kept.empty()) kept += ',';
            kept += coding;
        }
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    found->second = kept.empty() ? "identity" : kept;
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

// The request's Content-Length, 0 when it has none or it is not a number.
std::uint64_t content_length(const httplib::Request& request) {
    const std::string text = request.get_header_value("Content-Length");
    std::uint64_t length = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), length);
    return error == std::errc() && end == text.data() + text.size() ? length : 0;
}

void close_socket(socket_t socket) {
    ::shutdown(socket, SHUT_RDWR);
    ::close(socket);
}

}  // namespace

ConnectionServer::ConnectionServer() {
    new_task_queue = [] { return new httplib::ThreadPool(worker_threads); };
    // SO_REUSEADDR only: httplib's default SO_REUSEPORT would let a second server share the
    // port silently, each answering some of the requests.
    set_socket_options([](int socket) {
        int yes = 1;
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    });
    // Without it every reply on a kept-alive connection waits ~40 ms: httplib writes headers and
    // body separately, and Nagle's algorithm holds the body until the client's delayed ACK.
    set_tcp_nodelay(true);
    set_keep_alive_max_count(1000);
    set_payload_max_length(max_request_body);
}

ConnectionServer::~ConnectionServer() {
    for (auto& [client, entry] : clients_)
        for (const socket_t socket : entry.waiting) close_socket(socket);
}

// httplib listens with a backlog of 5; listening again on the bound socket widens it.
void ConnectionServer::widen_backlog() {
    const socket_t socket = svr_sock_;
    if (socket != INVALID_SOCKET) ::listen(socket, SOMAXCONN);
}

bool ConnectionServer::answer_if_late(httplib::Response& http_response) const {
    if (current_request == nullptr || !current_request->late) return false;
    http_response.status = 408;
    http_response.set_header("Connection", "close");
    current_request->close = true;
    const Response response = error_response(408, late_reason(limits, current_request->in_body));
    http_response.set_content(response.body, response.content_type.c_str());
    return true;
}

// Answers the connection, then, on the same worker, each connection of the same address that
// waited for its turn meanwhile.
bool ConnectionServer::process_and_close_socket(socket_t socket) {
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

// Answers requests on the connection while it stays open, closing it after a reply when
// another connection of `client` waits for its turn, so that the turn is not held idle.
bool ConnectionServer::answer_connection(socket_t socket, const std::string& client) {
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
        const bool answered = process_request(stream, last, closed, [&](httplib::Request& request) {
            stream.headers_done();
            without_brotli(request);
        });
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

// Lets a connection of `client` in when it holds fewer than per_client, else queues it for the
// next free turn (holding no worker meanwhile) when fewer than waiting_per_client wait.
ConnectionServer::Admission ConnectionServer::admit(const std::string& client, socket_t socket) {
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

bool ConnectionServer::others_wait(const std::string& client) {
    std::lock_guard lock(clients_mutex_);
    const auto found = clients_.find(client);
    return found != clients_.end() && !found->second.waiting.empty();
}

// The connection of `client` whose turn is next, now holding the turn of the one that ended;
// nullopt when none waits, and the turn is given back.
std::optional<socket_t> ConnectionServer::next_turn(const std::string& client) {
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

std::optional<Response> refusal_of_head() {
    if (current_request == nullptr) return std::nullopt;
    if (current_request->head_cut)
        return error_response(431, fmt::format("the request's line and headers are longer than {} "
                                               "bytes; send fewer or shorter headers",
                                               max_request_head));
    if (const auto problem = framing_problem(current_request->head))
        return error_response(400, *problem);
    return std::nullopt;
}

bool ends_connection(const Response& refusal) {
    return refusal.status == 400 || refusal.status == 431;
}

void close_after_reply() {
    if (current_request != nullptr) current_request->close = true;
}

void close_unframed(httplib::Response& http_response) {
    http_response.set_header("Connection", "close");
    if (current_request == nullptr) return;
    current_request->close = true;
    current_request->drain_body = true;
    current_request->body_bytes = max_request_body;
}

void discard_body_and_close(const httplib::Request& request, httplib::Response& http_response) {
    if (!declares_body(request) || current_request == nullptr) return;
    http_response.set_header("Connection", "close");
    current_request->drain_body = true;
    current_request->body_bytes = content_length(request);
}

std::string percent_decoded(std::string_view text) {
    return httplib::detail::decode_url(std::string(text), false);
}

std::string lowercase(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower;
}

}  // namespace benchwatch::serve
