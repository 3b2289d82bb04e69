#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "forge/http.hpp"
#include "ingest/assemble.hpp"
#include "model/error.hpp"
#include "serve/api.hpp"
#include "store/store.hpp"

// Uploads of runs to `benchwatch serve --allow-upload` (POST /api/v1/runs, docs/upload.md): the
// form both sides agree on, the client that sends it, and the server side that checks and stores
// it.
namespace benchwatch::serve {

// An upload was refused or could not be made. what() is one line: the server's reason, or why it
// could not be reached after the retries.
class UploadError : public model::Error {
  public:
    explicit UploadError(const std::string& message) : Error(model::ErrorKind::Upload, message) {}
};

// The route runs are uploaded to, below the server's address.
inline constexpr std::string_view upload_path = "/api/v1/runs";

// The default cap on an upload's body: 64 MiB, far above real suites' few MB.
inline constexpr std::size_t default_max_upload_bytes = 64 * 1024 * 1024;

// A bearer token read from a file, and a warning when the file is readable by group or others.
struct TokenFile {
    std::string token;
    std::optional<std::string> warning;
};

// The token in `path`: its first line without surrounding whitespace. Throws UploadError naming
// the file when it cannot be read or holds no token ("--token-file t: the file is empty; write
// the token on its first line").
TokenFile read_token_file(const std::string& path);

// One results file of an upload: its name (for messages) and its bytes.
struct UploadFile {
    std::string name;
    std::string content;
};

// What `benchwatch record --server` sends: the results files, their --format ("auto" or a
// name) and the run's metadata. The server sets the time the run is recorded at.
struct RunUpload {
    std::vector<UploadFile> files;
    std::string format = "auto";
    ingest::RunMetadata metadata;
};

// The multipart/form-data parts of `upload`: a "file" part per file, then the fields "format",
// "project", "machine", "commit", "branch", "pull_request" (when set), one "env" per fact, and
// "commit_message", "commit_author", "commit_time" (when the commit's details are known).
std::vector<forge::FormPart> upload_form(const RunUpload& upload);

// What the server answered to a stored upload.
struct UploadReceipt {
    std::int64_t run_id = 0;
    int attempt = 1;
    bool inserted = false;  // false: the same results were already stored
};

// Sends `upload` to the server at `server_url` ("http://host:port", optionally with a path
// prefix behind a reverse proxy) as bearer `token`, retrying connection errors and 5xx answers
// as `policy` says (the upload is idempotent, so a retry after a lost answer stores nothing
// twice). Throws UploadError for a refusal ("http://h:1 refused the upload (401 Unauthorized):
// wrong token; …"), for a server unreachable or failing after every attempt, and for a URL
// that is not http(s)://.
UploadReceipt send_upload(const std::string& server_url, const std::string& token,
                          const RunUpload& upload, forge::RetryPolicy policy = {});

// One part of a received multipart/form-data body; views into the request.
struct ReceivedPart {
    std::string_view name;
    std::string_view filename;  // empty for a plain field
    std::string_view content;
};

// How the server accepts uploads.
struct UploadSettings {
    std::string token;
    std::set<std::string> extra_projects;  // accepted beside those already in the store
    std::size_t max_bytes = default_max_upload_bytes;
    std::function<std::unique_ptr<store::Store>()> open_writer;  // a new store connection
    std::size_t writers = 4;  // store connections kept open at most, one per upload at a time
    // Receives one line per upload (never the token); empty: standard error.
    std::function<void(const std::string&)> log{};
};

// The server side of POST /api/v1/runs. receive() is called from many threads at once; each
// upload is checked as `record` checks its input and stored with one Store::record call on a
// connection of its own from a pool of at most `writers`.
class UploadReceiver {
  public:
    explicit UploadReceiver(UploadSettings settings);
    ~UploadReceiver();
    UploadReceiver(const UploadReceiver&) = delete;
    UploadReceiver& operator=(const UploadReceiver&) = delete;

    // The answer to an upload with this Authorization header and form from `peer`: 201
    // {"run_id","attempt","inserted":true,"results","warnings"} for a new run, 200 with
    // "inserted":false for one already stored; 401 for a missing or wrong token, 400 for a
    // malformed form or file (the reason `record` gives), 422 for a project the server does not
    // accept, 503 when the store fails (worth retrying). Every refusal is {"error": "one line"}.
    // `form` is nullopt when the body is not multipart/form-data.
    Response receive(std::string_view authorization,
                     std::optional<std::span<const ReceivedPart>> form, std::string_view peer);

    // The 401 answer for this Authorization header from `peer`, logged, or nullopt when it
    // carries the token. The server calls it with the headers alone, before reading any body.
    std::optional<Response> refusal_of_authorization(std::string_view authorization,
                                                     std::string_view peer);

    // The largest body accepted, in bytes.
    std::size_t max_bytes() const { return settings_.max_bytes; }

    // Writes one line to the upload log, made one terminal line: control characters (newlines,
    // escape sequences) from the request become spaces.
    void log(const std::string& line);

  private:
    class WriterLease;
    WriterLease lease_writer();
    bool accepts_project(store::Store& writer, const std::string& project);
    // Stores `run` through a writer of the pool when its project is accepted here; throws the
    // refusal (422 for a project not accepted, 503 when the store fails) otherwise.
    store::RecordOutcome store_upload(const model::Run& run);

    UploadSettings settings_;
    std::mutex pool_mutex_;
    std::condition_variable writer_returned_;
    std::vector<std::unique_ptr<store::Store>> idle_writers_;
    std::size_t open_writers_ = 0;
    std::mutex projects_mutex_;
    std::set<std::string> stored_projects_;
    std::mutex log_mutex_;
};

}  // namespace benchwatch::serve
