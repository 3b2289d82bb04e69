#pragma once

// The one place that relies on cpp-httplib (0.11) beyond its public API, because httplib offers no
// hook for per-request deadlines, per-client admission or reading a request's raw head:
// - ConnectionServer overrides httplib::Server's private virtual process_and_close_socket() and
//   calls its protected process_request() over a Stream of its own; it reads the protected
//   svr_sock_ (INVALID_SOCKET once stop() was called; listened on again to widen httplib's backlog
//   of 5), keep_alive_max_count_, keep_alive_timeout_sec_, read_timeout_sec_, write_timeout_sec_
//   and payload_max_length_;
// - httplib answers a request on one thread from its first byte to its reply, so a thread-local
//   pointer tells the handlers which request is answered; it reads the request line and headers
//   a byte at a time, so the head kept as it arrives holds none of the body;
// - percent_decoded() is httplib::detail::decode_url().

#include <httplib.h>

#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "serve/api.hpp"
#include "serve/server.hpp"

namespace benchwatch::serve {

// httplib's server with a connection layer of its own: each connection is answered by httplib's
// request parsing and routing over a stream whose deadlines a trickle of bytes cannot keep open
// (ConnectionLimits), at most `limits.per_client` connections at once per client address (the
// others of that address wait for their turn, holding no worker), with 64 workers, SO_REUSEADDR
// without SO_REUSEPORT, TCP_NODELAY, 1,000 requests per kept-alive connection and bodies up to
// 64 KiB unless set_payload_max_length() says otherwise.
class ConnectionServer final : public httplib::Server {
  public:
    ConnectionServer();
    ~ConnectionServer() override;

    ConnectionLimits limits;

    // Widens the listen backlog so that a burst of uploads waits to be accepted instead of being
    // reset; call after binding.
    void widen_backlog();

    // When a deadline of the request being answered on this thread passed before it had arrived,
    // fills `http_response` with the 408 that says which and closes the connection after it;
    // false, and `http_response` untouched, otherwise.
    bool answer_if_late(httplib::Response& http_response) const;

  private:
    enum class Admission { admitted, waiting, refused };
    struct Client {
        std::size_t open = 0;            // connections being answered
        std::deque<socket_t> waiting{};  // accepted, waiting for a turn, oldest first
    };

    bool process_and_close_socket(socket_t socket) override;
    bool answer_connection(socket_t socket, const std::string& client);
    Admission admit(const std::string& client, socket_t socket);
    bool others_wait(const std::string& client);
    std::optional<socket_t> next_turn(const std::string& client);

    std::mutex clients_mutex_;
    std::map<std::string, Client> clients_;  // by client address
};

// The refusal of the request being answered on this thread that its line and headers as they
// arrived call for: 431 when they are longer than 64 KiB, 400 when they do not say beyond doubt
// where the request ends (so that a proxy in front of the server could read its body as another
// request); nullopt when neither, or outside a request.
std::optional<Response> refusal_of_head();

// Whether `refusal` is one that refusal_of_head() gives: nothing after that request on its
// connection can be read as a request.
bool ends_connection(const Response& refusal);

// Closes the connection of the request being answered on this thread after its reply.
void close_after_reply();

// Closes the connection after `http_response`, first reading and dropping what the client still
// sends (up to 64 KiB), never as a request, so that it reads the reply instead of a reset
// connection.
void close_unframed(httplib::Response& http_response);

// When `request` declares a body, closes the connection after `http_response`, first reading and
// dropping the body (its Content-Length bytes, or without one as many as the largest body
// accepted; nothing when it is larger than that), so that a client still sending it reads the
// reply instead of a reset connection.
void discard_body_and_close(const httplib::Request& request, httplib::Response& http_response);

// `text` percent-decoded, '+' kept as it is: percent_decoded("a%20b+c") == "a b+c".
std::string percent_decoded(std::string_view text);

// `text` with its ASCII letters lowercased, for header names and values that compare without
// case: lowercase("Host") == "host".
std::string lowercase(std::string_view text);

}  // namespace benchwatch::serve
