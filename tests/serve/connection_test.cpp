// What could break: a client trickling its headers or body a byte at a time holding a worker for
// as long as it likes (each byte within the read timeout), one address holding every connection,
// a burst of connections reset because the listen backlog is full, an upload without the token
// read whole before it is refused, or a page under another Host name (DNS rebinding) reading the
// API of a server on loopback.

#include <arpa/inet.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "sample_history.hpp"
#include "serve/server.hpp"
#include "store/store.hpp"
#include "support/test_store.hpp"

namespace benchwatch::serve {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* token = "connection-token-51c0";

// A TCP connection to 127.0.0.1:`port` from `source` (any address of 127.0.0.0/8), so that a
// test can be two clients.
int connect_from(const char* source, int port) {
    const int socket = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in local{};
    local.sin_family = AF_INET;
    inet_pton(AF_INET, source, &local.sin_addr);
    if (::bind(socket, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0) return -1;
    sockaddr_in server{};
    server.sin_family = AF_INET;
    server.sin_port = htons(static_cast<std::uint16_t>(port));
    inet_pton(AF_INET, "127.0.0.1", &server.sin_addr);
    if (::connect(socket, reinterpret_cast<sockaddr*>(&server), sizeof(server)) != 0) {
        ::close(socket);
        return -1;
    }
    return socket;
}

bool send_text(int socket, std::string_view text) {
    return ::send(socket, text.data(), text.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(text.size());
}

// What the server sent until it closed the connection or `wait` passed.
std::string read_all(int socket, std::chrono::milliseconds wait) {
    std::string reply;
    const auto until = Clock::now() + wait;
    char buffer[4096];
    while (Clock::now() < until) {
        pollfd ready{socket, POLLIN, 0};
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
        if (::poll(&ready, 1, static_cast<int>(std::max<long>(left, 1))) != 1) break;
        const ssize_t got = ::recv(socket, buffer, sizeof(buffer), 0);
        if (got <= 0) break;
        reply.append(buffer, static_cast<std::size_t>(got));
    }
    return reply;
}

// The status line of a reply, and its body parsed as JSON (null when it is not JSON).
std::pair<std::string, json> status_and_body(const std::string& reply) {
    const std::string status = reply.substr(0, reply.find("\r\n"));
    const auto body_start = reply.find("\r\n\r\n");
    if (body_start == std::string::npos) return {status, nullptr};
    return {status, json::parse(reply.substr(body_start + 4), nullptr, false)};
}

// `request` sent whole on a new connection from 127.0.0.1, and the whole reply.
std::string round_trip(int port, const std::string& request) {
    const int socket = connect_from("127.0.0.1", port);
    EXPECT_GE(socket, 0);
    send_text(socket, request);
    std::string reply = read_all(socket, std::chrono::seconds(5));
    ::close(socket);
    return reply;
}

std::string get_request(const std::string& host, const std::string& path = "/api/v1/projects") {
    return fmt::format("GET {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", path, host);
}

class ConnectionTest : public ::testing::Test {
  protected:
    void SetUp() override {
        store_url_ = benchwatch::testing::test_store_url(directory_.path());
        store_ = store::open_store(store_url_);
        testing::record_sample_history(*store_);
    }

    void TearDown() override {
        if (serving_.joinable()) {
            server_->stop();
            serving_.join();
        }
    }

    // Starts a server accepting uploads, with `limits` and `hosts` beside loopback's names.
    void start(const ConnectionLimits& limits, std::vector<std::string> hosts = {},
               bool run = true) {
        UploadSettings settings;
        settings.token = token;
        settings.extra_projects = {"fresh"};
        settings.max_bytes = 1024 * 1024;
        settings.open_writer = [this] { return store::open_store(store_url_); };
        settings.log = [](const std::string&) {};
        DashboardSource source;
        source.version = [this] { return store_->last_run_id(); };
        source.load = [this] { return load_dashboard(*store_, nullptr, {}); };
        source.compare_pull = [](const std::string&, const std::string&, const std::string&) {
            return error_response(404, "no comparison here");
        };
        server_ = std::make_unique<DashboardServer>(std::move(source), std::chrono::seconds(10));
        server_->accept_uploads(std::make_shared<UploadReceiver>(std::move(settings)));
        server_->limit_connections(limits);
        server_->allow_hosts(std::move(hosts));
        port_ = server_->bind({"127.0.0.1", 0});
        if (run) serving_ = std::thread([this] { server_->run(); });
    }

    // Sends `head` then `trickle` a byte every `pause`, stopping at the first byte of a reply;
    // returns the reply and how long after the first byte it came.
    std::pair<std::string, std::chrono::milliseconds> trickle(const std::string& head,
                                                              const std::string& trickle,
                                                              std::chrono::milliseconds pause) {
        const int socket = connect_from("127.0.0.1", port_);
        EXPECT_GE(socket, 0);
        const auto start = Clock::now();
        send_text(socket, head);
        std::string reply;
        for (const char byte : trickle) {
            reply = read_all(socket, pause);
            if (!reply.empty() || !send_text(socket, std::string_view(&byte, 1))) break;
        }
        reply += read_all(socket, std::chrono::seconds(2));
        ::close(socket);
        return {reply, std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start)};
    }

    benchwatch::testing::TemporaryDirectory directory_{"benchwatch-connection"};
    std::string store_url_;
    std::unique_ptr<store::Store> store_;
    std::unique_ptr<DashboardServer> server_;
    int port_ = 0;
    std::thread serving_;
};

ConnectionLimits quick_limits() {
    ConnectionLimits limits;
    limits.headers_within = std::chrono::milliseconds(1000);
    limits.body_chunk_within = std::chrono::milliseconds(1000);
    return limits;
}

TEST_F(ConnectionTest, HeadersTrickledByteByByteAreCutAtTheirDeadline) {
    start(quick_limits());
    const json reason = {{"error",
                          "the request's line and headers did not arrive within 1 s of its first "
                          "byte; send them at once"}};
    // A byte every 100 ms: each read is far inside the 5 s read timeout, and all of it would
    // take 6 s. The request line itself, then the header lines.
    const std::string headers(60, 'x');
    for (const auto& [head, rest] :
         {std::pair<std::string, std::string>{"G",
                                              "ET /api/v1/projects HTTP/1.1\r\nHost: x" + headers},
          std::pair<std::string, std::string>{"GET /api/v1/projects HTTP/1.1\r\n",
                                              "X-Slow: " + headers}}) {
        const auto [reply, after] = trickle(head, rest, std::chrono::milliseconds(100));
        const auto [status, body] = status_and_body(reply);
        EXPECT_EQ(status, "HTTP/1.1 408 Request Timeout") << head;
        EXPECT_EQ(body, reason) << reply;
        EXPECT_LT(after, std::chrono::milliseconds(4000)) << head;
    }
}

TEST_F(ConnectionTest, BodyTrickledByteByByteIsCutAtItsChunkDeadline) {
    start(quick_limits());
    const std::string head = fmt::format(
        "POST /api/v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {}\r\n"
        "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n",
        token);
    const auto [reply, after] =
        trickle(head, std::string(1000, '{'), std::chrono::milliseconds(100));
    const auto [status, body] = status_and_body(reply);
    EXPECT_EQ(status, "HTTP/1.1 408 Request Timeout");
    EXPECT_EQ(body, json({{"error",
                           "the request's body arrived too slowly: each 65536 bytes must arrive "
                           "within 1 s"}}))
        << reply;
    EXPECT_LT(after, std::chrono::milliseconds(4000));
}

TEST_F(ConnectionTest, BodySentAtAReasonablePaceIsReadWhole) {
    // 256 KiB in 16 KiB pieces 100 ms apart: 2.6 s in all, each 64 KiB within 0.4 s.
    start(quick_limits());
    const std::size_t size = 256 * 1024;
    const int socket = connect_from("127.0.0.1", port_);
    ASSERT_GE(socket, 0);
    send_text(socket, fmt::format("POST /api/v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                  "Authorization: Bearer {}\r\nContent-Type: application/json\r\n"
                                  "Content-Length: {}\r\nConnection: close\r\n\r\n",
                                  token, size));
    for (std::size_t sent = 0; sent < size; sent += 16 * 1024) {
        ASSERT_TRUE(send_text(socket, std::string(16 * 1024, ' ')));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    const auto [status, body] = status_and_body(read_all(socket, std::chrono::seconds(5)));
    ::close(socket);
    EXPECT_EQ(status, "HTTP/1.1 400 Bad Request");
    EXPECT_EQ(body, json({{"error",
                           "the upload is not multipart/form-data; send the files and fields as a "
                           "form, as benchwatch record --server does"}}));
}

TEST_F(ConnectionTest, OneAddressHoldsAtMostItsShareOfConnections) {
    ConnectionLimits limits;
    limits.per_client = 4;
    limits.waiting_per_client = 1;
    start(limits);
    // Three connections from 127.0.0.2 that send half a request and wait, and one kept alive
    // after its first reply.
    std::vector<int> held;
    const int kept_alive = connect_from("127.0.0.2", port_);
    ASSERT_GE(kept_alive, 0);
    send_text(kept_alive, "GET /api/v1/projects HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    const std::string first_reply = read_all(kept_alive, std::chrono::milliseconds(300));
    EXPECT_EQ(status_and_body(first_reply).first, "HTTP/1.1 200 OK");
    EXPECT_EQ(first_reply.find("Connection: close"), std::string::npos) << first_reply;
    for (int i = 0; i < 3; ++i) {
        held.push_back(connect_from("127.0.0.2", port_));
        ASSERT_GE(held.back(), 0);
        send_text(held.back(), "GET /api/v1/projects HTTP/1.1\r\n");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    // The fifth waits for a turn; the sixth is refused.
    const int fifth = connect_from("127.0.0.2", port_);
    ASSERT_GE(fifth, 0);
    send_text(fifth, get_request("127.0.0.1"));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const int sixth = connect_from("127.0.0.2", port_);
    ASSERT_GE(sixth, 0);
    const std::string refused = read_all(sixth, std::chrono::seconds(3));
    ::close(sixth);
    const auto [status, body] = status_and_body(refused);
    EXPECT_EQ(status, "HTTP/1.1 503 Service Unavailable");
    EXPECT_NE(refused.find("\r\nRetry-After: 1\r\n"), std::string::npos) << refused;
    EXPECT_EQ(body, json({{"error",
                           "127.0.0.2 has 4 connections open to this server and 1 more waiting, "
                           "the most one address may hold; retry when some have closed"}}));
    // Another address is answered meanwhile, and the fifth once one of the four closes.
    EXPECT_EQ(status_and_body(round_trip(port_, get_request("127.0.0.1"))).first,
              "HTTP/1.1 200 OK");
    EXPECT_EQ(read_all(fifth, std::chrono::milliseconds(300)), "");
    ::close(held.back());
    held.pop_back();
    EXPECT_EQ(status_and_body(read_all(fifth, std::chrono::seconds(3))).first, "HTTP/1.1 200 OK");
    ::close(fifth);
    // While another waits, the kept-alive connection's next reply closes it and frees its turn.
    held.push_back(connect_from("127.0.0.2", port_));
    send_text(held.back(), "GET /api/v1/projects HTTP/1.1\r\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const int waiting = connect_from("127.0.0.2", port_);
    ASSERT_GE(waiting, 0);
    send_text(waiting, get_request("127.0.0.1"));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    send_text(kept_alive, "GET /api/v1/projects HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    const std::string second_reply = read_all(kept_alive, std::chrono::seconds(3));
    EXPECT_NE(second_reply.find("Connection: close"), std::string::npos) << second_reply;
    EXPECT_EQ(status_and_body(read_all(waiting, std::chrono::seconds(3))).first, "HTTP/1.1 200 OK");
    ::close(waiting);
    ::close(kept_alive);
    for (const int socket : held) ::close(socket);
}

TEST_F(ConnectionTest, BurstOfConnectionsWaitsInTheBacklogWhileTheServerIsBusy) {
    // Bound but not yet accepting: connections complete only as far as the backlog holds them.
    start(ConnectionLimits{}, {}, false);
    std::vector<int> sockets;
    for (int i = 0; i < 100; ++i) {
        const int socket = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        sockaddr_in server{};
        server.sin_family = AF_INET;
        server.sin_port = htons(static_cast<std::uint16_t>(port_));
        inet_pton(AF_INET, "127.0.0.1", &server.sin_addr);
        ::connect(socket, reinterpret_cast<sockaddr*>(&server), sizeof(server));
        sockets.push_back(socket);
    }
    // SYNs beyond a full backlog are dropped and retried after a second; wait less than that.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    int connected = 0;
    for (const int socket : sockets) {
        pollfd ready{socket, POLLOUT, 0};
        int error = 0;
        socklen_t length = sizeof(error);
        if (::poll(&ready, 1, 0) == 1 &&
            getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0)
            ++connected;
        ::close(socket);
    }
    EXPECT_EQ(connected, 100);
}

TEST_F(ConnectionTest, UploadWithoutTheTokenIsRefusedFromItsHeaders) {
    start(ConnectionLimits{});
    const std::string head =
        "POST /api/v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer wrong\r\n"
        "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 62914560\r\n";
    const json wrong_token = {
        {"error", "wrong token: the bearer token is not the one in the server's --token-file"}};
    // The headers alone: the answer comes without a byte of the 60 MiB body.
    const int socket = connect_from("127.0.0.1", port_);
    ASSERT_GE(socket, 0);
    send_text(socket, head + "\r\n");
    const auto [status, body] = status_and_body(read_all(socket, std::chrono::seconds(3)));
    ::close(socket);
    EXPECT_EQ(status, "HTTP/1.1 401 Unauthorized");
    EXPECT_EQ(body, wrong_token);
    // With "Expect: 100-continue" the client is told not to send the body at all.
    const std::string expecting = round_trip(port_, head + "Expect: 100-continue\r\n\r\n");
    EXPECT_EQ(status_and_body(expecting).first, "HTTP/1.1 401 Unauthorized") << expecting;
    EXPECT_EQ(status_and_body(expecting).second, wrong_token);
    // A write to a read-only route is refused the same way.
    const std::string read_only = round_trip(
        port_,
        "PUT /api/v1/projects HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 62914560\r\n\r\n");
    EXPECT_EQ(status_and_body(read_only).first, "HTTP/1.1 405 Method Not Allowed") << read_only;
}

TEST_F(ConnectionTest, ClientSendingAWrongTokensWholeBodyReadsTheRefusal) {
    // 900 KiB, under the 1 MiB limit: the body is discarded as it comes, and the client that
    // sends all of it before reading still reads 401 rather than a reset connection.
    start(ConnectionLimits{});
    httplib::Client client("127.0.0.1", port_);
    const auto result = client.Post("/api/v1/runs", {{"Authorization", "Bearer wrong"}},
                                    std::string(900 * 1024, 'x'), "application/json");
    ASSERT_TRUE(result) << httplib::to_string(result.error());
    EXPECT_EQ(result->status, 401);
    EXPECT_EQ(result->get_header_value("WWW-Authenticate"), "Bearer");
}

TEST_F(ConnectionTest, OnLoopbackOnlyLoopbackNamesAndAllowedHostsAreAnswered) {
    start(ConnectionLimits{}, {"Bench.Example.org"});
    for (const std::string host : {"127.0.0.1", "127.0.0.1:8080", "localhost", "LOCALHOST:1",
                                   "[::1]:8080", "[::1]", "bench.example.org:443", "127.1.2.3:80"})
        EXPECT_EQ(status_and_body(round_trip(port_, get_request(host))).first, "HTTP/1.1 200 OK")
            << host;
    for (const std::string host : {"evil.example", "evil.example:8080", "localhost.evil.example",
                                   "127.0.0.1.evil.example"}) {
        const auto [status, body] = status_and_body(round_trip(port_, get_request(host)));
        EXPECT_EQ(status, "HTTP/1.1 421 Misdirected Request") << host;
        const std::string name = host.substr(0, host.find(':'));
        EXPECT_EQ(body, json({{"error", "Host '" + host +
                                            "' is not a name this server answers to (localhost, "
                                            "127.0.0.1 and [::1], bench.example.org); start it "
                                            "with --allowed-host " +
                                            name + " to answer to that name"}}))
            << host;
    }
    // An upload under another name is refused before its token is even looked at.
    const std::string upload = round_trip(
        port_, fmt::format("POST /api/v1/runs HTTP/1.1\r\nHost: evil.example\r\nAuthorization: "
                           "Bearer {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                           token));
    EXPECT_EQ(status_and_body(upload).first, "HTTP/1.1 421 Misdirected Request") << upload;
}

}  // namespace
}  // namespace benchwatch::serve
