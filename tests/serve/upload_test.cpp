// What could break: POST /api/v1/runs storing a run that `record` would refuse, storing anything
// for a refused upload, a refusal without its status or one-line reason, the token compared
// loosely or written to the log, a repeat stored twice, parallel uploads losing runs, or the
// uploader printing a refusal that echoes its token as it came.
#include "serve/upload.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/stat.h>

#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "ingest/ingest.hpp"
#include "serve/server.hpp"
#include "store/store.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::serve {
namespace {

using nlohmann::json;

constexpr const char* token = "upload-token-4f9c2e81";
constexpr std::size_t limit = 64 * 1024;

// A hyperfine export with one command per name, each taking `seconds`.
std::string hyperfine_file(const std::vector<std::string>& names, double seconds = 0.5) {
    json results = json::array();
    for (const auto& name : names)
        results.push_back({{"command", name},
                           {"mean", seconds},
                           {"stddev", 0.0},
                           {"median", seconds},
                           {"min", seconds},
                           {"max", seconds},
                           {"times", {seconds, seconds}}});
    return json({{"results", results}}).dump();
}

// The form of a complete upload of project "cuda", with `file` as its one file.
httplib::MultipartFormDataItems upload_items(
    const std::string& file,
    const std::string& commit = "abc1234567000000000000000000000000000000") {
    return {{"file", file, "results.json", "application/json"},
            {"project", "cuda", "", ""},
            {"machine", "gpu-1", "", ""},
            {"commit", commit, "", ""},
            {"branch", "main", "", ""},
            {"env", "driver=550.1", "", ""}};
}

httplib::MultipartFormDataItems without(httplib::MultipartFormDataItems items,
                                        const std::string& field) {
    std::erase_if(items, [&](const auto& item) { return item.name == field; });
    return items;
}

class UploadTest : public ::testing::Test {
  protected:
    void SetUp() override {
        store_url_ = benchwatch::testing::test_store_url(directory_.path());
        store_ = store::open_store(store_url_);
        model::Run existing;
        existing.project = "cuda";
        existing.machine = "gpu-1";
        existing.commit = "0000000001";
        existing.branch = "main";
        existing.content_hash = "first";
        existing.results.push_back({});
        existing.results.back().benchmark = "sort";
        existing.results.back().value = 1.0;
        store_->record(existing);

        UploadSettings settings;
        settings.token = token;
        settings.extra_projects = {"fresh"};
        settings.max_bytes = limit;
        settings.writers = 2;
        settings.open_writer = [this] { return store::open_store(store_url_); };
        settings.log = [this](const std::string& line) {
            std::lock_guard lock(log_mutex_);
            log_ += line + '\n';
        };
        DashboardSource source;
        // The server's refresh thread gets a connection of its own: a store object is used by
        // one thread, and the test reads store_ while the server runs.
        server_store_ = store::open_store(store_url_);
        source.version = [this] { return server_store_->last_run_id(); };
        source.load = [this] { return load_dashboard(*server_store_, nullptr, {}); };
        source.compare_pull = [](const std::string&, const std::string&, const std::string&) {
            return error_response(404, "no comparison here");
        };
        server_ =
            std::make_unique<DashboardServer>(std::move(source), std::chrono::milliseconds(50));
        server_->accept_uploads(std::make_shared<UploadReceiver>(std::move(settings)));
        port_ = server_->bind({"127.0.0.1", 0});
        serving_ = std::thread([this] { server_->run(); });
    }

    void TearDown() override {
        server_->stop();
        serving_.join();
    }

    httplib::Result post(const httplib::MultipartFormDataItems& items,
                         const std::string& authorization = std::string("Bearer ") + token) {
        httplib::Client client("127.0.0.1", port_);
        httplib::Headers headers;
        if (!authorization.empty()) headers.emplace("Authorization", authorization);
        return client.Post("/api/v1/runs", headers, items);
    }

    // Checks a refusal: its status, its body {"error": reason}, and that nothing was stored.
    void expect_refused(const httplib::Result& result, int status, const std::string& reason) {
        ASSERT_TRUE(result);
        EXPECT_EQ(result->status, status);
        EXPECT_EQ(result->get_header_value("Content-Type"), "application/json; charset=utf-8");
        EXPECT_EQ(json::parse(result->body), json({{"error", reason}}));
        EXPECT_EQ(store_->last_run_id(), 1) << "a refused upload stored a run";
    }

    std::string log() {
        std::lock_guard lock(log_mutex_);
        return log_;
    }

    benchwatch::testing::TemporaryDirectory directory_{"benchwatch-upload"};
    std::string store_url_;
    std::unique_ptr<store::Store> store_;
    std::unique_ptr<store::Store> server_store_;  // the dashboard refresh thread's
    std::unique_ptr<DashboardServer> server_;
    int port_ = 0;
    std::thread serving_;
    std::mutex log_mutex_;
    std::string log_;
};

TEST_F(UploadTest, NewRunIsCreatedAndTheSameUploadAgainIsTheSameRun) {
    const auto first = post(upload_items(hyperfine_file({"sort", "uniq"})));
    ASSERT_TRUE(first);
    EXPECT_EQ(first->status, 201);
    EXPECT_EQ(json::parse(first->body), json({{"run_id", 2},
                                              {"attempt", 1},
                                              {"inserted", true},
                                              {"results", 2},
                                              {"warnings", json::array()}}));
    const auto again = post(upload_items(hyperfine_file({"sort", "uniq"})));
    ASSERT_TRUE(again);
    EXPECT_EQ(again->status, 200);
    EXPECT_EQ(json::parse(again->body)["inserted"], false);
    EXPECT_EQ(json::parse(again->body)["run_id"], 2);

    const auto runs =
        store_->list_runs({"cuda", "", "", {"abc1234567000000000000000000000000000000"}});
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].machine, "gpu-1");
    EXPECT_EQ(runs[0].branch, "main");
    EXPECT_EQ(runs[0].format, "hyperfine");
    EXPECT_EQ(runs[0].environment.at("driver"), "550.1");
    const std::int64_t id = runs[0].id;
    EXPECT_EQ(store_->results(std::span(&id, 1)).at(id).size(), 2u);
    EXPECT_NE(log().find("recorded run 2 of abc123456 (project cuda, machine gpu-1, branch main, "
                         "attempt 1, 2 results)"),
              std::string::npos)
        << log();
}

TEST_F(UploadTest, SecondDifferentUploadOfACommitIsItsSecondAttempt) {
    ASSERT_EQ(post(upload_items(hyperfine_file({"sort"}, 0.5)))->status, 201);
    const auto second = post(upload_items(hyperfine_file({"sort"}, 0.6)));
    ASSERT_TRUE(second);
    EXPECT_EQ(second->status, 201);
    EXPECT_EQ(json::parse(second->body)["attempt"], 2);
}

TEST_F(UploadTest, NoTokenIsRefusedWithBearerChallenge) {
    const auto result = post(upload_items(hyperfine_file({"sort"})), "");
    expect_refused(result, 401,
                   "no bearer token: send the header 'Authorization: Bearer TOKEN' with the token "
                   "in the server's --token-file");
    EXPECT_EQ(result->get_header_value("WWW-Authenticate"), "Bearer");
}

TEST_F(UploadTest, WrongTokensAreRefused) {
    const std::string wrong_token_reason =
        "wrong token: the bearer token is not the one in the server's --token-file";
    // The token with its last byte changed, cut short, and made longer.
    const std::string changed = std::string(token).substr(0, 20) + "2";
    for (const std::string& authorization :
         {"Bearer " + changed, std::string("Bearer upload-token"),
          std::string("Bearer ") + token + "0"})
        expect_refused(post(upload_items(hyperfine_file({"sort"})), authorization), 401,
                       wrong_token_reason);
    // The token in another scheme, and the scheme without a token.
    for (const std::string& authorization : {std::string("Basic ") + token, std::string("Bearer ")})
        expect_refused(post(upload_items(hyperfine_file({"sort"})), authorization), 401,
                       "no bearer token: send the header 'Authorization: Bearer TOKEN' with the "
                       "token in the server's --token-file");
}

TEST_F(UploadTest, BodyOverTheLimitIsRefused) {
    // 70,000 bytes of names: over the 65,536-byte limit whatever the form adds.
    std::vector<std::string> names;
    for (int i = 0; i < 7000; ++i) names.push_back(fmt::format("bench-{:04}", i));
    expect_refused(post(upload_items(hyperfine_file(names))), 413,
                   "the upload is larger than this server's limit of 65536 bytes; upload fewer "
                   "or smaller files, or raise the server's --max-upload-bytes");
}

TEST_F(UploadTest, MalformedFileIsRefusedWithRecordsReason) {
    const std::string broken = R"({"results": [{"command": "sort", "mean": 0.5,)";
    std::string record_reason;
    try {
        ingest::parse(broken, "results.json", "auto");
    } catch (const ingest::InputError& error) {
        record_reason = error.what();
    }
    ASSERT_FALSE(record_reason.empty());
    expect_refused(post(upload_items(broken)), 400, record_reason);
    EXPECT_TRUE(record_reason.starts_with("results.json:")) << record_reason;
}

TEST_F(UploadTest, BenchmarkInTwoFilesIsRefusedAsRecordRefusesIt) {
    auto items = upload_items(hyperfine_file({"sort"}));
    items.push_back({"file", hyperfine_file({"sort", "uniq"}), "more.json", ""});
    expect_refused(post(items), 400,
                   "more.json: benchmark 'sort' is also in results.json; record files of "
                   "different suites, or record them as separate runs");
}

TEST_F(UploadTest, UnknownProjectIsRefused) {
    auto items = without(upload_items(hyperfine_file({"sort"})), "project");
    items.push_back({"project", "elsewhere", "", ""});
    expect_refused(post(items), 422,
                   "project 'elsewhere' is not accepted here: the server takes uploads for the "
                   "projects in its store and those of --upload-project");
}

TEST_F(UploadTest, ProjectOfUploadProjectIsAccepted) {
    auto items = without(upload_items(hyperfine_file({"sort"})), "project");
    items.push_back({"project", "fresh", "", ""});
    const auto result = post(items);
    ASSERT_TRUE(result);
    EXPECT_EQ(result->status, 201);
    EXPECT_EQ(store_->projects(), (std::vector<std::string>{"cuda", "fresh"}));
}

TEST_F(UploadTest, MissingFieldsAreRefused) {
    const std::string rule =
        "; every upload names its project, machine, commit and branch and has at least one file";
    for (const std::string field : {"file", "project", "machine", "commit", "branch"})
        expect_refused(post(without(upload_items(hyperfine_file({"sort"})), field)), 400,
                       "the upload has no '" + field + "' field" + rule);
}

TEST_F(UploadTest, MalformedFieldsAreRefused) {
    auto twice = upload_items(hyperfine_file({"sort"}));
    twice.push_back({"branch", "other", "", ""});
    expect_refused(post(twice), 400, "the upload has more than one 'branch' field; send it once");

    auto unknown = upload_items(hyperfine_file({"sort"}));
    unknown.push_back({"store", "/tmp/x.db", "", ""});
    expect_refused(post(unknown), 400,
                   "the upload has an unknown field 'store'; docs/upload.md lists the fields");

    auto number = upload_items(hyperfine_file({"sort"}));
    number.push_back({"pull_request", "12a", "", ""});
    expect_refused(post(number), 400, "the upload's 'pull_request' is '12a', not a whole number");

    auto fact = upload_items(hyperfine_file({"sort"}));
    fact.push_back({"env", "=x", "", ""});
    expect_refused(post(fact), 400, "--env '=x': expected KEY=VALUE");

    for (const std::string& commit : {std::string("abc1234"), std::string("hello-world"),
                                      std::string(40, 'g'), std::string("zz not a sha\u202e")})
        expect_refused(post(upload_items(hyperfine_file({"sort"}), commit)), 400,
                       "the upload's 'commit' is '" + commit +
                           "', not a full commit SHA (40 or 64 hex digits); send the full SHA, "
                           "as benchwatch record --server does");

    auto time = upload_items(hyperfine_file({"sort"}));
    time.push_back({"commit_time", "last tuesday", "", ""});
    expect_refused(post(time), 400,
                   "the upload's 'commit_time' is 'last tuesday', not an ISO 8601 time with its "
                   "offset such as 2016-03-01T12:00:00+01:00");

    auto format = upload_items(hyperfine_file({"sort"}));
    format.push_back({"format", "googlebenchmark", "", ""});
    const auto result = post(format);
    ASSERT_TRUE(result);
    EXPECT_EQ(result->status, 400);
    EXPECT_TRUE(json::parse(result->body)["error"].get<std::string>().starts_with("results.json"))
        << result->body;
}

TEST_F(UploadTest, BodyThatIsNotAFormIsRefused) {
    httplib::Client client("127.0.0.1", port_);
    const auto result =
        client.Post("/api/v1/runs", {{"Authorization", std::string("Bearer ") + token}},
                    hyperfine_file({"sort"}), "application/json");
    expect_refused(result, 400,
                   "the upload is not multipart/form-data; send the files and fields as a form, "
                   "as benchwatch record --server does");
}

TEST_F(UploadTest, OtherWriteRoutesStayReadOnly) {
    httplib::Client client("127.0.0.1", port_);
    const auto result =
        client.Post("/api/v1/projects", {{"Authorization", std::string("Bearer ") + token}}, "{}",
                    "application/json");
    ASSERT_TRUE(result);
    EXPECT_EQ(result->status, 405);
    EXPECT_EQ(client.Put("/api/v1/runs", "{}", "application/json")->status, 405);
}

TEST_F(UploadTest, LogNamesEveryRefusalAndNeverTheToken) {
    post(upload_items(hyperfine_file({"sort"})), "Bearer wrong");
    post(upload_items(hyperfine_file({"sort"})));
    auto items = without(upload_items(hyperfine_file({"sort"})), "project");
    items.push_back({"project", "elsewhere", "", ""});
    post(items);
    const std::string text = log();
    EXPECT_NE(text.find("upload from 127.0.0.1 refused (401 Unauthorized): wrong token"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("refused (422 Unprocessable Entity): project 'elsewhere'"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find(token), std::string::npos) << text;
    EXPECT_EQ(text.find("wrong\n"), std::string::npos) << "the sent token was logged: " << text;
}

TEST_F(UploadTest, LogWritesTheRequestsStringsWithoutTheirControlCharacters) {
    // A machine with control characters is refused, and its refusal quotes it escaped.
    auto items = without(upload_items(hyperfine_file({"sort"})), "machine");
    items.push_back({"machine", "gpu\x1b]0;owned\x07-1", "", ""});
    post(items);
    // A branch with a bidirectional override and a workflow command is stored, and logged
    // with neither.
    auto stored = without(upload_items(hyperfine_file({"sort"})), "branch");
    stored.push_back({"branch", "main\u202Exe.##[error]x", "", ""});
    post(stored);
    auto broken = without(upload_items("{"), "file");
    broken.push_back({"file", "{", "res\x1b[31mults.json", "application/json"});
    post(broken);
    const std::string text = log();
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
    EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
    EXPECT_NE(text.find("refused (400 Bad Request): the run: machine name "
                        "\"gpu\\x1b]0;owned\\x07-1\" holds control character U+001B; names must "
                        "be printable on one line"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("machine gpu-1, branch main xe.##\u200b[error]x,"), std::string::npos)
        << text;
    EXPECT_NE(text.find("refused (400 Bad Request): res\\u{1b}[31mults.json:1:2:"),
              std::string::npos)
        << text;
}

TEST_F(UploadTest, ParallelUploadsAreAllStoredOnce) {
    // 8 threads × 10 commits, each commit uploaded twice: 80 runs, 80 repeats answered 200.
    std::vector<std::thread> uploaders;
    std::mutex statuses_mutex;
    std::map<int, int> statuses;
    for (int thread = 0; thread < 8; ++thread)
        uploaders.emplace_back([&, thread] {
            for (int commit = 0; commit < 10; ++commit)
                for (int repeat = 0; repeat < 2; ++repeat) {
                    const auto id = fmt::format("{:040}", thread * 100 + commit);
                    const auto result = post(upload_items(hyperfine_file({"sort"}), id));
                    std::lock_guard lock(statuses_mutex);
                    ++statuses[result ? result->status : -1];
                }
        });
    for (auto& uploader : uploaders) uploader.join();
    EXPECT_EQ(statuses, (std::map<int, int>{{200, 80}, {201, 80}}));
    EXPECT_EQ(store_->list_runs({"cuda", "", "", {}}).size(), 81u);
}

TEST(SendUpload, ARefusalThatEchoesTheTokenIsShownWithoutIt) {
    // Something other than benchwatch serve at --server, answering with what it was sent.
    httplib::Server echo;
    echo.Post(".*", [](const httplib::Request& request, httplib::Response& response) {
        response.status = 403;
        response.set_content(
            json({{"error", "no uploads for " + request.get_header_value("Authorization")}}).dump(),
            "application/json");
    });
    const int port = echo.bind_to_any_port("127.0.0.1");
    std::thread thread([&echo] { echo.listen_after_bind(); });
    while (!echo.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    RunUpload upload;
    upload.files.push_back({"results.json", hyperfine_file({"a"})});
    std::string message;
    try {
        send_upload(fmt::format("http://127.0.0.1:{}", port), token, upload);
    } catch (const UploadError& error) {
        message = error.what();
    }
    echo.stop();
    thread.join();
    EXPECT_EQ(message, fmt::format("http://127.0.0.1:{} refused the upload (403 Forbidden): no "
                                   "uploads for Bearer [token]",
                                   port));
}

TEST(TokenFile, FirstLineTrimmedEmptyRefusedOpenModeWarned) {
    benchwatch::testing::TemporaryDirectory directory("benchwatch-token");
    const auto path = (directory.path() / "token").string();
    benchwatch::testing::write_text(path, "  secret-1 \nignored\n");
    chmod(path.c_str(), 0600);
    const TokenFile quiet = read_token_file(path);
    EXPECT_EQ(quiet.token, "secret-1");
    EXPECT_FALSE(quiet.warning);
    chmod(path.c_str(), 0644);
    EXPECT_EQ(read_token_file(path).warning,
              "--token-file " + path + ": group or others may read it (mode 0644); run chmod 600 " +
                  path);
    benchwatch::testing::write_text(path, " \n");
    try {
        read_token_file(path);
        FAIL() << "an empty token file was accepted";
    } catch (const UploadError& error) {
        EXPECT_STREQ(error.what(), ("--token-file " + path +
                                    ": the file holds no token; write the token on its first line")
                                       .c_str());
    }
}

}  // namespace
}  // namespace benchwatch::serve
