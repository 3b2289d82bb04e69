#include "support/fake_forge.hpp"

#include <httplib.h>

#include <cassert>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace benchwatch::testing {

struct FakeForgeServer::State {
    httplib::Server http;
    int port = 0;
    std::thread thread;
    std::string credential_header;
    std::string credential;
    std::string unauthorized_body;

    mutable std::mutex mutex;
    std::vector<RecordedRequest> requests;
    int failures_left = 0;
    FakeFailure failure;

    // Records the request; answers it here, returning true, when it fails on purpose or lacks
    // the credential.
    bool intercepted(const httplib::Request& request, httplib::Response& response) {
        const std::lock_guard lock(mutex);
        RecordedRequest recorded{request.method, request.target, {}, request.body};
        for (const auto& [name, value] : request.headers) recorded.headers.emplace(name, value);
        requests.push_back(std::move(recorded));
        if (failures_left > 0) {
            --failures_left;
            response.status = failure.status;
            for (const auto& [name, value] : failure.headers) response.set_header(name, value);
            response.set_content(failure.body, "application/json");
            return true;
        }
        if (request.get_header_value(credential_header.c_str()) != credential) {
            response.status = 401;
            response.set_content(unauthorized_body, "application/json");
            return true;
        }
        return false;
    }
};

FakeForgeServer::FakeForgeServer(std::string credential_header, std::string credential,
                                 std::string unauthorized_body)
    : state_(std::make_unique<State>()) {
    state_->credential_header = std::move(credential_header);
    state_->credential = std::move(credential);
    state_->unauthorized_body = std::move(unauthorized_body);
}

FakeForgeServer::~FakeForgeServer() {
    stop();
}

void FakeForgeServer::route(const std::string& method, const std::string& path, Handler handler) {
    assert(!state_->thread.joinable());
    auto guarded = [state = state_.get(), handler = std::move(handler)](
                       const httplib::Request& request, httplib::Response& response) {
        if (!state->intercepted(request, response)) handler(request, response);
    };
    auto& http = state_->http;
    if (method == "GET")
        http.Get(path, guarded);
    else if (method == "POST")
        http.Post(path, guarded);
    else if (method == "PUT")
        http.Put(path, guarded);
    else if (method == "PATCH")
        http.Patch(path, guarded);
    else if (method == "DELETE")
        http.Delete(path, guarded);
    else
        throw std::invalid_argument("the fake forge routes no method " + method);
}

void FakeForgeServer::start() {
    auto& state = *state_;
    state.port = state.http.bind_to_any_port("127.0.0.1");
    assert(state.port > 0);
    state.thread = std::thread([&state] { state.http.listen_after_bind(); });
    // stop() is lost on a server not yet running, so stop() could wait forever.
    while (!state.http.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void FakeForgeServer::stop() {
    if (!state_->thread.joinable()) return;
    state_->http.stop();
    state_->thread.join();
}

std::string FakeForgeServer::origin() const {
    return "http://127.0.0.1:" + std::to_string(state_->port);
}

void FakeForgeServer::fail_next(int times, const FakeFailure& failure) {
    const std::lock_guard lock(state_->mutex);
    state_->failures_left = times;
    state_->failure = failure;
}

std::vector<RecordedRequest> FakeForgeServer::requests() const {
    const std::lock_guard lock(state_->mutex);
    return state_->requests;
}

}  // namespace benchwatch::testing
