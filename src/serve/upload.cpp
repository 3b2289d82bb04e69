#include "serve/upload.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "model/commit_id.hpp"
#include "report/report.hpp"

namespace benchwatch::serve {

namespace {

using nlohmann::json;

constexpr std::string_view single_fields[] = {"format",         "project",       "machine",
                                              "commit",         "branch",        "pull_request",
                                              "commit_message", "commit_author", "commit_time"};
constexpr std::string_view required_fields[] = {"project", "machine", "commit", "branch"};

// Whether `given` is `expected`, looking at every byte of `expected` whatever `given` holds, so
// that the time taken says nothing of how much of a guessed token was right.
bool same_token(std::string_view given, std::string_view expected) {
    std::size_t difference = given.size() ^ expected.size();
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const auto given_byte = static_cast<unsigned char>(i < given.size() ? given[i] : 0);
        difference |= given_byte ^ static_cast<unsigned char>(expected[i]);
    }
    return difference == 0;
}

std::string_view trimmed(std::string_view text) {
    constexpr std::string_view blanks = " \t\r\n";
    const auto first = text.find_first_not_of(blanks);
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(blanks) - first + 1);
}

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string http_status_name(int status) {
    if (status == 413) return "413 Payload Too Large";
    if (status == 503) return "503 Service Unavailable";
    return forge::status_name(status);
}

// The "error" of a refusal's JSON body, else the body's first line, shortened.
std::string refusal_reason(const std::string& body) {
    const json answer = json::parse(body, nullptr, false);
    if (answer.is_object() && answer.contains("error") && answer["error"].is_string())
        return forge::one_line(answer["error"].get<std::string>());
    std::string line = body.substr(0, body.find('\n')).substr(0, 200);
    return line.empty() ? "no reason given" : forge::one_line(line);
}

}  // namespace

TokenFile read_token_file(const std::string& path) {
    std::ifstream file(path);
    if (!file)
        throw UploadError(
            fmt::format("--token-file {}: cannot be read ({}); pass a file that "
                        "holds the upload token on its first line",
                        path, std::strerror(errno)));
    std::string line;
    std::getline(file, line);
    TokenFile token_file{std::string(trimmed(line)), std::nullopt};
    if (token_file.token.empty())
        throw UploadError(fmt::format(
            "--token-file {}: the file holds no token; write the token on its first line", path));
    struct stat status {};
    if (stat(path.c_str(), &status) == 0 && (status.st_mode & (S_IRWXG | S_IRWXO)) != 0)
        token_file.warning = fmt::format(
            "--token-file {}: group or others may read it (mode {:04o}); run chmod 600 {}", path,
            status.st_mode & 07777, path);
    return token_file;
}

std::vector<forge::FormPart> upload_form(const RunUpload& upload) {
    std::vector<forge::FormPart> form;
    for (const auto& file : upload.files) form.push_back({"file", file.content, file.name});
    const ingest::RunMetadata& metadata = upload.metadata;
    form.push_back({"format", upload.format, ""});
    form.push_back({"project", metadata.project, ""});
    form.push_back({"machine", metadata.machine, ""});
    form.push_back({"commit", metadata.commit, ""});
    form.push_back({"branch", metadata.branch, ""});
    if (metadata.pull_request)
        form.push_back({"pull_request", std::to_string(*metadata.pull_request), ""});
    for (const auto& fact : metadata.environment) form.push_back({"env", fact, ""});
    if (const auto& info = metadata.commit_info) {
        form.push_back({"commit_message", info->message, ""});
        form.push_back({"commit_author", info->author, ""});
        form.push_back({"commit_time", info->timestamp, ""});
    }
    return form;
}

UploadReceipt send_upload(const std::string& server_url, const std::string& token,
                          const RunUpload& upload, forge::RetryPolicy policy) {
    const auto address = forge::split_api_url(server_url);
    if (!address)
        throw UploadError(
            fmt::format("--server '{}' is not an http:// or https:// URL; for "
                        "example --server http://benchwatch.example.org:8080",
                        server_url));
    forge::HttpSession session(address->origin, std::move(policy));
    forge::HttpCall call;
    call.method = "POST";
    call.target = address->path_prefix + std::string(upload_path);
    call.headers = {{"Authorization", "Bearer " + token}};
    call.form = upload_form(upload);
    const forge::HttpAnswer answer = session.exchange(call);
    const std::string call_name = forge::method_and_path(call.method, call.target);
    if (answer.status == 0)
        throw UploadError(forge::unreachable_message("benchwatch serve", "--server",
                                                     address->origin, call_name, answer));
    if (!answer.succeeded()) {
        // What answered may not be benchwatch serve, and may echo what it was sent.
        const std::string reason = forge::redact(refusal_reason(answer.body), token);
        if (answer.status >= 500)
            throw UploadError(fmt::format("{} answered {} to {} {} times: {}; retry later",
                                          address->origin, http_status_name(answer.status),
                                          call_name, answer.attempts, reason));
        throw UploadError(fmt::format("{} refused the upload ({}): {}", address->origin,
                                      http_status_name(answer.status), reason));
    }
    const json receipt = json::parse(answer.body, nullptr, false);
    if (!receipt.is_object() || !receipt.contains("run_id") || !receipt["run_id"].is_number() ||
        !receipt.contains("attempt") || !receipt.contains("inserted"))
        throw UploadError(
            fmt::format("{} answered {} to {} without a run id; is --server the "
                        "address of benchwatch serve --allow-upload?",
                        address->origin, answer.status, call_name));
    return {receipt["run_id"].get<std::int64_t>(), receipt["attempt"].get<int>(),
            receipt["inserted"].get<bool>()};
}

// A store connection taken from the pool; returned on destruction when marked healthy, closed
// otherwise (a connection that failed may be broken).
class UploadReceiver::WriterLease {
  public:
    WriterLease(UploadReceiver& owner, std::unique_ptr<store::Store> store)
        : owner_(owner), store_(std::move(store)) {}
    WriterLease(const WriterLease&) = delete;
    WriterLease& operator=(const WriterLease&) = delete;
    ~WriterLease() {
        std::lock_guard lock(owner_.pool_mutex_);
        if (healthy_)
            owner_.idle_writers_.push_back(std::move(store_));
        else
            --owner_.open_writers_;
        owner_.writer_returned_.notify_one();
    }

    store::Store& store() { return *store_; }
    void mark_healthy() { healthy_ = true; }

  private:
    UploadReceiver& owner_;
    std::unique_ptr<store::Store> store_;
    bool healthy_ = false;
};

UploadReceiver::UploadReceiver(UploadSettings settings) : settings_(std::move(settings)) {
    assert(!settings_.token.empty() && settings_.open_writer && settings_.writers > 0);
}

UploadReceiver::~UploadReceiver() = default;

UploadReceiver::WriterLease UploadReceiver::lease_writer() {
    std::unique_lock lock(pool_mutex_);
    writer_returned_.wait(
        lock, [this] { return !idle_writers_.empty() || open_writers_ < settings_.writers; });
    if (!idle_writers_.empty()) {
        auto store = std::move(idle_writers_.back());
        idle_writers_.pop_back();
        return WriterLease(*this, std::move(store));
    }
    ++open_writers_;
    lock.unlock();
    try {
        return WriterLease(*this, settings_.open_writer());
    } catch (...) {
        lock.lock();
        --open_writers_;
        writer_returned_.notify_one();
        throw;
    }
}

bool UploadReceiver::accepts_project(store::Store& writer, const std::string& project) {
    if (settings_.extra_projects.contains(project)) return true;
    {
        std::lock_guard lock(projects_mutex_);
        if (stored_projects_.contains(project)) return true;
    }
    const std::vector<std::string> projects = writer.projects();
    std::lock_guard lock(projects_mutex_);
    stored_projects_.insert(projects.begin(), projects.end());
    return stored_projects_.contains(project);
}

void UploadReceiver::log(const std::string& line) {
    const std::string one_line = report::terminal_text(line);
    if (settings_.log) {
        settings_.log(one_line);
        return;
    }
    std::lock_guard lock(log_mutex_);
    std::cerr << one_line << std::endl;
}

std::optional<Response> UploadReceiver::refusal_of_authorization(std::string_view authorization,
                                                                 std::string_view peer) {
    const auto refuse = [&](const std::string& reason) {
        log(fmt::format("upload from {} refused ({}): {}", peer, http_status_name(401), reason));
        return error_response(401, reason);
    };
    authorization = trimmed(authorization);
    constexpr std::string_view scheme = "Bearer ";
    if (authorization.size() < scheme.size() ||
        !std::equal(scheme.begin(), scheme.end(), authorization.begin(),
                    [](char a, char b) { return std::tolower(a) == std::tolower(b); }))
        return refuse(
            "no bearer token: send the header 'Authorization: Bearer TOKEN' with the token in "
            "the server's --token-file");
    if (!same_token(trimmed(authorization.substr(scheme.size())), settings_.token))
        return refuse("wrong token: the bearer token is not the one in the server's --token-file");
    return std::nullopt;
}

namespace {

// An upload refused with an HTTP status and the reason it is sent and logged with.
struct Refusal {
    int status = 400;
    std::string reason;
};

// The fields of an upload's form: each single field once, the files and --env values in order.
struct UploadForm {
    std::map<std::string_view, std::string_view> fields;
    std::vector<std::string> environment;
    std::vector<const ReceivedPart*> files;

    // The field's value, "" when it was not sent.
    std::string field(std::string_view name) const {
        const auto found = fields.find(name);
        return found == fields.end() ? std::string() : std::string(found->second);
    }
};

// Sorts the parts of `form` into fields, files and environment values. Throws Refusal for an
// unknown or repeated field, or a missing file or required field.
UploadForm read_form(std::span<const ReceivedPart> form) {
    UploadForm read;
    for (const ReceivedPart& part : form) {
        if (part.name == "file") {
            read.files.push_back(&part);
        } else if (part.name == "env") {
            read.environment.emplace_back(part.content);
        } else if (std::find(std::begin(single_fields), std::end(single_fields), part.name) !=
                   std::end(single_fields)) {
            if (!read.fields.emplace(part.name, part.content).second)
                throw Refusal{400, fmt::format("the upload has more than one '{}' field; send "
                                               "it once",
                                               part.name)};
        } else {
            throw Refusal{400, fmt::format("the upload has an unknown field '{}'; docs/upload.md "
                                           "lists the fields",
                                           part.name.substr(0, 60))};
        }
    }
    const std::string missing_field_reason =
        "every upload names its project, machine, commit and branch and has at least one file";
    if (read.files.empty())
        throw Refusal{400, fmt::format("the upload has no 'file' field; {}", missing_field_reason)};
    for (const std::string_view name : required_fields)
        if (read.field(name).empty())
            throw Refusal{
                400, fmt::format("the upload has no '{}' field; {}", name, missing_field_reason)};
    return read;
}

// What `record` would know of the run, from the form's fields, recorded at `recorded_at_ms`.
// Throws Refusal for a commit that is not a full SHA, a time or pull request number that does
// not parse.
ingest::RunMetadata metadata_of(const UploadForm& form, std::int64_t recorded_at_ms) {
    ingest::RunMetadata metadata;
    metadata.project = form.field("project");
    metadata.machine = form.field("machine");
    const std::string given = form.field("commit");
    std::string lowercase = given;
    std::transform(lowercase.begin(), lowercase.end(), lowercase.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const auto commit = model::CommitId::parse(lowercase);
    if (!commit)
        throw Refusal{400, fmt::format("the upload's 'commit' is '{}', not a full commit SHA (40 "
                                       "or 64 hex digits); send the full SHA, as benchwatch "
                                       "record --server does",
                                       given.substr(0, 60))};
    metadata.commit = commit->str();
    if (const std::string time = form.field("commit_time");
        !time.empty() && !model::timestamp_ms(time))
        throw Refusal{400, fmt::format("the upload's 'commit_time' is '{}', not an ISO 8601 time "
                                       "with its offset such as 2016-03-01T12:00:00+01:00",
                                       time.substr(0, 60))};
    metadata.branch = form.field("branch");
    if (const std::string number = form.field("pull_request"); !number.empty()) {
        metadata.pull_request = forge::parse_integer(number);
        if (!metadata.pull_request)
            throw Refusal{400, fmt::format("the upload's 'pull_request' is '{}', not a whole "
                                           "number",
                                           number.substr(0, 60))};
    }
    metadata.environment = form.environment;
    if (form.fields.contains("commit_message") || form.fields.contains("commit_author") ||
        form.fields.contains("commit_time"))
        metadata.commit_info =
            model::CommitInfo{form.field("commit_message"), form.field("commit_author"),
                              form.field("commit_time"), ""};
    metadata.recorded_at_ms = recorded_at_ms;
    return metadata;
}

// The run the form's files make, as `record` makes it, and the readers' warnings. Throws
// Refusal with the reader's message for a file that cannot be read.
std::pair<model::Run, std::vector<std::string>> run_of(const UploadForm& form,
                                                       const ingest::RunMetadata& metadata) {
    const std::string format = form.fields.contains("format") ? form.field("format") : "auto";
    std::vector<std::string> warnings;
    try {
        std::vector<ingest::NamedResults> parsed_files;
        for (std::size_t index = 0; index < form.files.size(); ++index) {
            std::string name(form.files[index]->filename);
            if (name.empty()) name = fmt::format("file {}", index + 1);
            auto parsed = ingest::parse(form.files[index]->content, name, format);
            warnings.insert(warnings.end(), parsed.warnings.begin(), parsed.warnings.end());
            parsed_files.push_back({std::move(name), std::move(parsed)});
        }
        return {ingest::assemble_run(std::move(parsed_files), metadata), std::move(warnings)};
    } catch (const ingest::InputError& error) {
        throw Refusal{400, error.what()};
    }
}

}  // namespace

store::RecordOutcome UploadReceiver::store_upload(const model::Run& run) {
    try {
        WriterLease writer = lease_writer();
        if (!accepts_project(writer.store(), run.project)) {
            writer.mark_healthy();
            throw Refusal{422, fmt::format("project '{}' is not accepted here: the server takes "
                                           "uploads for the projects in its store and those of "
                                           "--upload-project",
                                           run.project)};
        }
        auto outcome = writer.store().record(run);
        writer.mark_healthy();
        return outcome;
    } catch (const store::StoreError& error) {
        throw Refusal{503, error.what()};
    }
}

Response UploadReceiver::receive(std::string_view authorization,
                                 std::optional<std::span<const ReceivedPart>> form,
                                 std::string_view peer) {
    if (auto refusal = refusal_of_authorization(authorization, peer)) return std::move(*refusal);
    model::Run run;
    std::vector<std::string> warnings;
    store::RecordOutcome outcome;
    try {
        if (!form)
            throw Refusal{400,
                          "the upload is not multipart/form-data; send the files and fields "
                          "as a form, as benchwatch record --server does"};
        const UploadForm read = read_form(*form);
        std::tie(run, warnings) = run_of(read, metadata_of(read, now_ms()));
        outcome = store_upload(run);
    } catch (const Refusal& refusal) {
        log(fmt::format("upload from {} refused ({}): {}", peer, http_status_name(refusal.status),
                        refusal.reason));
        return error_response(refusal.status, refusal.reason);
    }
    const std::string short_commit = run.commit.substr(0, 9);
    if (outcome.inserted)
        log(
            fmt::format("upload from {}: recorded run {} of {} (project {}, machine {}, branch {}, "
                        "attempt {}, {} result{})",
                        peer, outcome.run_id, short_commit, run.project, run.machine, run.branch,
                        outcome.attempt, run.results.size(), run.results.size() == 1 ? "" : "s"));
    else
        log(fmt::format("upload from {}: already recorded as run {} of {} (project {})", peer,
                        outcome.run_id, short_commit, run.project));
    const json receipt = {{"run_id", outcome.run_id},
                          {"attempt", outcome.attempt},
                          {"inserted", outcome.inserted},
                          {"results", run.results.size()},
                          {"warnings", warnings}};
    return {outcome.inserted ? 201 : 200, "application/json; charset=utf-8",
            receipt.dump(-1, ' ', false, json::error_handler_t::replace)};
}

}  // namespace benchwatch::serve
