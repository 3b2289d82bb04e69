// What could break: `benchwatch serve --allow-upload` storing what `benchwatch record` refuses, or
// refusing it in other words: a commit that is not a full SHA (a path, "..", a git option, a
// short id), a value of 0, below 0, subnormal or not a number, a project, machine, branch or
// benchmark name with control characters or over the length limit, a body over the server's
// limit. The uploads are sent as any client may send them (curl), not through record --server,
// which checks the files before it sends them.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/run_checks.hpp"
#include "store/store.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kToken = "upload-checks-token-51c2";
constexpr std::size_t kLimit = 20'000;

// The arguments of `benchwatch serve` with uploads into `store` of project "p" up to kLimit bytes,
// its token in `directory`.
std::vector<std::string> serve_arguments(const std::string& store, const fs::path& directory) {
    const std::string token_file = (directory / "token").string();
    const std::string limit = std::to_string(kLimit);
    return {"--store",      store,      "--listen",         "127.0.0.1:0", "--allow-upload",
            "--token-file", token_file, "--upload-project", "p",           "--max-upload-bytes",
            limit};
}

// A hyperfine export of one command `name` whose runs took `seconds` (as JSON text).
std::string hyperfine_file(const std::string& name, const std::string& seconds) {
    return fmt::format(
        R"({{"results": [{{"command": {}, "mean": {}, "stddev": 0.001, "median": {}, "min": {},
           "max": {}, "times": [{}, {}]}}]}})",
        nlohmann::json(name).dump(), seconds, seconds, seconds, seconds, seconds, seconds);
}

// One upload: its results file and fields; every case changes one thing of the good one.
struct Upload {
    std::string case_name;
    std::string file = hyperfine_file("sort", "0.25");
    std::string file_name = "results.json";
    std::string project = "p";
    std::string machine = "m";
    std::string commit = fake_commit("c1");
    std::string branch = "main";
};

class UploadChecksTest : public ::testing::Test {
  protected:
    void SetUp() override {
        write_text(directory_.path() / "token", std::string(kToken) + "\n");
        fs::permissions(directory_.path() / "token",
                        fs::perms::owner_read | fs::perms::owner_write);
    }

    // The HTTP status and body the server on `port` answers to `upload`, sent with curl.
    std::pair<std::string, std::string> post(int port, const Upload& upload) {
        const fs::path file = directory_.path() / upload.file_name;
        write_text(file, upload.file);
        const fs::path body = directory_.path() / "answer";
        const auto output = run({"curl",
                                 "--silent",
                                 "--show-error",
                                 "--output",
                                 body.string(),
                                 "--write-out",
                                 "%{http_code}",
                                 "--header",
                                 fmt::format("Authorization: Bearer {}", kToken),
                                 "--form",
                                 "file=@" + file.string(),
                                 "--form-string",
                                 "project=" + upload.project,
                                 "--form-string",
                                 "machine=" + upload.machine,
                                 "--form-string",
                                 "commit=" + upload.commit,
                                 "--form-string",
                                 "branch=" + upload.branch,
                                 fmt::format("http://127.0.0.1:{}/api/v1/runs", port)},
                                directory_.path());
        EXPECT_EQ(output.err, "") << upload.case_name;
        return {output.out, read_text(body)};
    }

    // What `benchwatch record` into a store of its own prints for `upload`, outside git.
    vcs::ProcessOutput record(const Upload& upload) {
        const fs::path file = directory_.path() / upload.file_name;
        write_text(file, upload.file);
        return run(benchwatch_command({"record", "--store",
                                       (directory_.path() / "local.db").string(), "--project",
                                       upload.project, "--machine", upload.machine, "--commit",
                                       upload.commit, "--branch", upload.branch, upload.file_name}),
                   directory_.path(), without_ci_variables());
    }

    TemporaryDirectory directory_{"benchwatch-upload-checks"};
};

// Each upload is refused with 400 and the line record prints after "error: ", and nothing of
// any of them is stored.
TEST_F(UploadChecksTest, TheServerRefusesWhatRecordRefusesInRecordsWords) {
    const std::string long_name(model::kLongestName + 1, 'n');
    const std::vector<Upload> cases = {
        {.case_name = "time 0", .file = hyperfine_file("sort", "0")},
        {.case_name = "negative time", .file = hyperfine_file("sort", "-1")},
        {.case_name = "subnormal time", .file = hyperfine_file("sort", "1e-320")},
        {.case_name = "time not a number",
         .file = "goos: linux\nBenchmarkA-8 \t 100 \t NaN ns/op\nPASS\n",
         .file_name = "go.txt"},
        {.case_name = "benchmark name with ESC", .file = hyperfine_file("sort\x1b[2J", "0.25")},
        {.case_name = "benchmark name too long", .file = hyperfine_file(long_name, "0.25")},
        {.case_name = "machine with ESC", .machine = "gpu\x1b]0;owned\x07"},
        {.case_name = "branch with a newline", .branch = "main\nwarning: forged"},
        {.case_name = "project with DEL", .project = "p\x7f"},
        {.case_name = "machine too long", .machine = long_name},
    };
    const std::string store = test_store_url(directory_.path());
    const ServerProcess server(serve_arguments(store, directory_.path()), directory_.path());
    const int port = server.port();
    for (const Upload& upload : cases) {
        const auto recorded = record(upload);
        EXPECT_EQ(recorded.exit_code, 2) << upload.case_name << ": " << recorded.out;
        ASSERT_TRUE(recorded.err.starts_with("error: ") && recorded.err.ends_with("\n") &&
                    recorded.err.find('\n') + 1 == recorded.err.size())
            << upload.case_name << ": " << recorded.err;
        const std::string reason = recorded.err.substr(7, recorded.err.size() - 8);
        const auto [status, body] = post(port, upload);
        EXPECT_EQ(status, "400") << upload.case_name << ": " << body;
        EXPECT_EQ(body, nlohmann::json({{"error", reason}}).dump()) << upload.case_name;
    }
    EXPECT_EQ(store::open_store(store)->list_runs({}).size(), 0u);
}

// Commits that record resolves with git are taken by the server only as full SHAs: a path,
// "..", an option or a short id is refused with 400 naming it, and nothing is stored.
TEST_F(UploadChecksTest, TheServerRefusesEveryCommitThatIsNotAFullSha) {
    const std::string store = test_store_url(directory_.path());
    const ServerProcess server(serve_arguments(store, directory_.path()), directory_.path());
    const int port = server.port();
    const std::string victim = (directory_.path() / "victim").string();
    for (const std::string& commit :
         {std::string(".."), victim, std::string("--upload-pack=touch owned"),
          std::string("c0ffee1"), std::string(fake_commit("c1")).substr(0, 39) + "g",
          fake_commit("c1") + "0"}) {
        Upload upload;
        upload.commit = commit;
        const auto [status, body] = post(port, upload);
        EXPECT_EQ(status, "400") << commit;
        EXPECT_EQ(body,
                  nlohmann::json(
                      {{"error", fmt::format("the upload's 'commit' is '{}', not a full commit "
                                             "SHA (40 or 64 hex digits); send the full SHA, as "
                                             "benchwatch record --server does",
                                             commit.substr(0, 60))}})
                      .dump())
            << commit;
    }
    EXPECT_EQ(store::open_store(store)->list_runs({}).size(), 0u);
    EXPECT_FALSE(fs::exists(directory_.path() / "owned"));
}

// A body over --max-upload-bytes is refused with 413 before it is read; a good upload after it
// is stored, so the refusals above are the checks' and not a broken server's.
TEST_F(UploadChecksTest, AnOversizedBodyIsRefusedAndAGoodUploadStillStored) {
    const std::string store = test_store_url(directory_.path());
    const ServerProcess server(serve_arguments(store, directory_.path()), directory_.path());
    const int port = server.port();
    Upload oversized;
    oversized.file =
        hyperfine_file(std::string(kLimit, 'x').substr(0, 4000), "0.25") + std::string(kLimit, ' ');
    const auto [status, body] = post(port, oversized);
    EXPECT_EQ(status, "413") << body;
    EXPECT_EQ(nlohmann::json::parse(body)["error"],
              fmt::format("the upload is larger than this server's limit of {} bytes; upload "
                          "fewer or smaller files, or raise the server's --max-upload-bytes",
                          kLimit));
    const auto [good_status, good_body] = post(port, Upload{});
    EXPECT_EQ(good_status, "201") << good_body;
    const auto runs = store::open_store(store)->list_runs({});
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].commit, fake_commit("c1"));
}

}  // namespace
}  // namespace benchwatch::testing
