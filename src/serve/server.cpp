#include "serve/server.hpp"

#include <arpa/inet.h>
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

#include "model/printable.hpp"
#include "serve/assets.hpp"
#include "serve/connection.hpp"

namespace benchwatch::serve {

namespace {

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
        std::string segment = percent_decoded(raw);
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

// Whether an Accept-Encoding header's value accepts gzip: it names gzip without q=0.
bool accepts_gzip(std::string_view value) {
    const auto trimmed = [](std::string_view text) {
        while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
            text.remove_prefix(1);
        while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
        return text;
    };
    while (!value.empty()) {
        const auto comma = value.find(',');
        const std::string coding = lowercase(value.substr(0, comma));
        value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
        const auto semicolon = coding.find(';');
        if (trimmed(std::string_view(coding).substr(0, semicolon)) != "gzip") continue;
        if (semicolon == std::string::npos) return true;
        const auto weight = trimmed(std::string_view(coding).substr(semicolon + 1));
        if (!weight.starts_with("q=")) return true;
        return weight.substr(2).find_first_not_of("0.") != std::string_view::npos;
    }
    return false;
}

// JSON bodies shorter than this are sent as they are: gzip would save little or make them longer.
constexpr std::size_t smallest_gzipped_body = 1024;

Response not_found(bool api) {
    if (api) return error_response(404, "no such route; see docs/dashboard.md for the API");
    return {404, "text/plain; charset=utf-8", "not found\n"};
}

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

// A refusal given before the body, with the headers its status calls for.
void fill_refusal(const Response& refusal, httplib::Response& http_response) {
    http_response.status = refusal.status;
    if (refusal.status == 401) http_response.set_header("WWW-Authenticate", "Bearer");
    if (refusal.status == 405) http_response.set_header("Allow", "GET, HEAD");
    http_response.set_content(refusal.body, refusal.content_type.c_str());
}

// The 405 of a write to a server without uploads, or to another route than uploads'.
void answer_read_only(const httplib::Request&, httplib::Response& http_response) {
    http_response.status = 405;
    http_response.set_header("Allow", "GET, HEAD");
    http_response.set_content(
        error_response(405, "benchwatch serve is read-only: only GET and HEAD are answered").body,
        "application/json; charset=utf-8");
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
    : source_(std::move(source)), refresh_(refresh), http_(std::make_unique<ConnectionServer>()) {
    http_->set_default_headers({{"X-Content-Type-Options", "nosniff"},
                                {"Referrer-Policy", "no-referrer"},
                                {"Cache-Control", "no-cache"}});
    route_reads();
    route_writes();
    refuse_from_headers();
    explain_failures();
}

void DashboardServer::route_reads() {
    http_->Get(".*", [this](const httplib::Request& request, httplib::Response& http_response) {
        Parameters parameters(request.params.begin(), request.params.end());
        Response response;
        handle(request.target, parameters, response);
        http_response.status = response.status;
        if (response.content_type.starts_with("text/html"))
            http_response.set_header("Content-Security-Policy", page_policy);
        // httplib compresses text itself; JSON is gzipped here, from a body made once when
        // there is one.
        http_response.set_header("Vary", "Accept-Encoding");
        if (response.content_type.starts_with("application/json") &&
            (response.gzipped || response.body.size() >= smallest_gzipped_body) &&
            accepts_gzip(request.get_header_value("Accept-Encoding"))) {
            response.body = response.gzipped ? *response.gzipped : gzip(response.body);
            http_response.set_header("Content-Encoding", "gzip");
        }
        http_response.set_content(std::move(response.body), response.content_type.c_str());
    });
}

void DashboardServer::route_writes() {
    http_->Post(".*", [this](const httplib::Request& request, httplib::Response& http_response) {
        if (!uploads_ || request.path != upload_path)
            return answer_read_only(request, http_response);
        const Response response = answer_upload(request);
        http_response.status = response.status;
        if (response.status == 401) http_response.set_header("WWW-Authenticate", "Bearer");
        http_response.set_content(response.body, response.content_type.c_str());
    });
    http_->Put(".*", answer_read_only);
    http_->Patch(".*", answer_read_only);
    http_->Delete(".*", answer_read_only);
}

// Refusals that need the headers only are given before any body is read: a wrong Host, a write
// to a read-only route, an upload without the token. A client that sent "Expect: 100-continue"
// never sends its body; any other has what it sends discarded.
void DashboardServer::refuse_from_headers() {
    http_->set_expect_100_continue_handler(
        [this](const httplib::Request& request, httplib::Response& http_response) {
            const auto refusal = refusal_before_body(request);
            if (!refusal) return 100;
            fill_refusal(*refusal, http_response);
            close_after_reply();
            if (ends_connection(*refusal)) close_unframed(http_response);
            return refusal->status;
        });
    http_->set_pre_routing_handler(
        [this](const httplib::Request& request, httplib::Response& http_response) {
            const auto refusal = refusal_before_body(request);
            if (!refusal) return httplib::Server::HandlerResponse::Unhandled;
            fill_refusal(*refusal, http_response);
            if (ends_connection(*refusal))
                close_unframed(http_response);
            else
                discard_body_and_close(request, http_response);
            return httplib::Server::HandlerResponse::Handled;
        });
}

void DashboardServer::explain_failures() {
    const httplib::Server::HandlerWithResponse fill_empty_error =
        [this](const httplib::Request& request, httplib::Response& http_response) {
            if (http_->answer_if_late(http_response))
                return httplib::Server::HandlerResponse::Handled;
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
    if (auto refusal = refusal_of_head()) return refusal;
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
    return uploads_->receive(request.get_header_value("Authorization"), parts, request.remote_addr);
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

bool DashboardServer::run_committed_since(const Dashboard& shown) const {
    if (!source_.peek) return false;
    try {
        return source_.peek() > shown.last_run_id;
    } catch (const std::exception&) {
        // Said by the next look at the version, once per refresh instead of once per check.
        return false;
    }
}

void DashboardServer::refresh_until_stopped() {
    using Clock = std::chrono::steady_clock;
    // A look at the version may wait for runs being committed (PostgreSQL), a peek never does:
    // peeking often makes `refresh_` the longest a new run waits instead of the usual wait.
    const auto check = source_.peek ? std::min(refresh_, change_check) : refresh_;
    auto next_look = Clock::now() + refresh_;
    std::unique_lock stop_lock(stop_mutex_);
    while (!stop_signal_.wait_for(stop_lock, check, [this] { return stopping_; })) {
        stop_lock.unlock();
        try {
            std::lock_guard lock(source_mutex_);
            const auto previous = snapshot();
            const auto now = Clock::now();
            const bool look = now >= next_look || !previous->dashboard().judged ||
                              run_committed_since(previous->dashboard());
            if (look) next_look = now + refresh_;
            if (look && (source_.version() != previous->dashboard().last_run_id ||
                         !previous->dashboard().judged)) {
                // New values are shown as soon as they are read; judging them takes longer.
                const auto show_unjudged = [&](Dashboard unjudged) {
                    auto shown =
                        std::make_shared<const ApiSnapshot>(std::move(unjudged), previous.get());
                    std::lock_guard snapshot_lock(snapshot_mutex_);
                    snapshot_ = std::move(shown);
                };
                auto loaded = std::make_shared<const ApiSnapshot>(
                    source_.update ? source_.update(previous->dashboard(), show_unjudged)
                                   : source_.load(),
                    previous.get());
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

Response DashboardServer::compared_pull(const ApiSnapshot& snapshot, const std::string& project,
                                        const std::string& machine,
                                        const std::string& commit) const {
    constexpr std::size_t most_kept = 512;
    const ProjectHistory* shown = snapshot.dashboard().find_project(project);
    const MachineHistory* history = shown ? shown->find_machine(machine) : nullptr;
    const std::string key =
        fmt::format("{}\n{}\n{}\n{}", history ? history->revision : 0, project, machine, commit);
    std::promise<Response> promise;
    std::shared_future<Response> answer;
    bool mine = false;
    {
        std::lock_guard lock(comparisons_mutex_);
        if (comparisons_.size() >= most_kept)
            std::erase_if(comparisons_, [](const auto& entry) {
                return entry.second.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
            });
        const auto [entry, inserted] = comparisons_.try_emplace(key);
        if (inserted) entry->second = promise.get_future().share();
        answer = entry->second;
        mine = inserted;
    }
    if (mine) {
        try {
            Response made;
            {
                std::lock_guard lock(source_mutex_);
                made = source_.compare_pull(project, machine, commit);
            }
            if (made.body.size() >= smallest_gzipped_body)
                made.gzipped = std::make_shared<const std::string>(gzip(made.body));
            promise.set_value(std::move(made));
        } catch (...) {
            {
                std::lock_guard lock(comparisons_mutex_);
                comparisons_.erase(key);
            }
            promise.set_exception(std::current_exception());
        }
    }
    return answer.get();
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
        const auto current = snapshot();
        const auto compare_pull = [&](const std::string& project, const std::string& machine,
                                      const std::string& commit) {
            return compared_pull(*current, project, machine, commit);
        };
        response = current->answer(std::span(*segments).subspan(2), parameters, compare_pull);
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
