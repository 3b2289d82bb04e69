#include "serve/server.hpp"

#include <fmt/format.h>
#include <httplib.h>
#include <malloc.h>
#include <sys/socket.h>

#include <algorithm>
#include <cassert>
#include <charconv>
#include <iostream>
#include <thread>
#include <vector>

#include "serve/assets.hpp"

namespace benchwatch::serve {

namespace {

constexpr std::size_t worker_threads = 64;  // a keep-alive connection holds one while it lasts
constexpr std::size_t max_request_body = 64 * 1024;
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

}  // namespace

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
    : source_(std::move(source)), refresh_(refresh), http_(std::make_unique<httplib::Server>()) {
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
    http_->Put(".*", read_only);
    http_->Patch(".*", read_only);
    http_->Delete(".*", read_only);
    const httplib::Server::HandlerWithResponse fill_empty_error =
        [this](const httplib::Request& request, httplib::Response& http_response) {
            if (!http_response.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
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
            std::cerr << "warning: keeping the dashboard's previous data: " << error.what() << '\n';
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
}

}  // namespace benchwatch::serve
