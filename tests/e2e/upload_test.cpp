// What could break: `benchwatch record --server` against a real `benchwatch serve --allow-upload`:
// its answer lines differing from record's, a refusal not one line and exit 2, the token in the
// server's log, concurrent uploaders on PostgreSQL losing or doubling runs, or a server killed
// mid-upload leaving half a run or losing one it had confirmed; two servers on one PostgreSQL
// store storing a run uploaded to both twice, or one of them never showing a run the other took.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <thread>

#include "store/store.hpp"
#include "support/postgres.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* token = "e2e-upload-token-7d1a";

// A hyperfine export with `count` commands, each taking `seconds`.
std::string hyperfine_file(int count, double seconds) {
    json results = json::array();
    for (int i = 0; i < count; ++i)
        results.push_back({{"command", fmt::format("bench-{:02}", i)},
                           {"mean", seconds},
                           {"stddev", 0.0},
                           {"median", seconds},
                           {"min", seconds},
                           {"max", seconds},
                           {"times", {seconds, seconds}}});
    return json({{"results", results}}).dump();
}

class UploadTest : public ::testing::Test {
  protected:
    void SetUp() override {
        write_text(token_file(), std::string(token) + "\n");
        fs::permissions(token_file(), fs::perms::owner_read | fs::perms::owner_write);
    }

    std::string token_file() const { return (directory_.path() / "token").string(); }

    // A store URL on the test PostgreSQL server with a schema of its own; empty (and the test
    // failed when the server is required) when there is no server.
    std::string postgres_store() {
        const auto url = test_postgres_url();
        if (!url) {
            if (postgres_required()) ADD_FAILURE() << kNoPostgresServer;
            return "";
        }
        schema_ = std::make_unique<PostgresSchema>(*url, "upload");
        EXPECT_EQ(schema_->created_error(), "");
        return schema_->store_url();
    }

    vcs::ProcessOutput benchwatch(const std::vector<std::string>& arguments) {
        return run(benchwatch_command(arguments), directory_.path(), without_ci_variables());
    }

    // `record --server` of `file` for project p on `machine` at `commit`.
    vcs::ProcessOutput upload(int port, const std::string& file, const std::string& commit,
                              const std::string& machine = "m", const std::string& project = "p") {
        return benchwatch({"record", "--server", fmt::format("http://127.0.0.1:{}", port),
                           "--token-file", token_file(), "--project", project, "--machine", machine,
                           "--commit", commit, "--branch", "main", file});
    }

    // Starts `count` shell loops at once, loop i uploading `runs` runs on machine m<i> (commits
    // 0…001, 0…002…), each writing one line per upload to log-<i>: the exit code, then record's
    // output.
    void start_uploaders(int port, int count, int runs, const std::string& file) {
        for (int i = 0; i < count; ++i) {
            const std::string script = fmt::format(
                R"(for j in $(seq -f %03g 1 {runs}); do
                     out=$("$BW" record --server http://127.0.0.1:{port} --token-file "$TOKEN" \
                           --project p --machine m{i} --branch main "$FILE" \
                           --commit 0000000000000000000000000000000000000$j 2>&1)
                     echo "$? $out"
                   done > "$LOGS/log-{i}")",
                fmt::arg("runs", runs), fmt::arg("port", port), fmt::arg("i", i));
            auto environment = without_ci_variables();
            environment["BW"] = benchwatch_binary();
            environment["TOKEN"] = token_file();
            environment["FILE"] = file;
            environment["LOGS"] = directory_.path().string();
            uploaders_.emplace_back([script, environment, this] {
                run({"bash", "-c", script}, directory_.path(), environment);
            });
        }
    }

    void wait_for_uploaders() {
        for (auto& uploader : uploaders_) uploader.join();
        uploaders_.clear();
    }

    // Every line the uploaders logged, by machine.
    std::map<std::string, std::vector<std::string>> uploader_lines(int count) const {
        std::map<std::string, std::vector<std::string>> lines;
        for (int i = 0; i < count; ++i) {
            std::ifstream log(directory_.path() / fmt::format("log-{}", i));
            std::string line;
            while (std::getline(log, line)) lines[fmt::format("m{}", i)].push_back(line);
        }
        return lines;
    }

    TemporaryDirectory directory_{"benchwatch-upload"};
    std::unique_ptr<PostgresSchema> schema_;
    std::vector<std::thread> uploaders_;
};

TEST_F(UploadTest, RecordServerPrintsRecordsLinesAndRepeatsStoreNothing) {
    const std::string store = test_store_url(directory_.path());
    ServerProcess server({"--store", store, "--listen", "127.0.0.1:0", "--allow-upload",
                          "--token-file", token_file(), "--upload-project", "p"},
                         directory_.path());
    const int port = server.port();
    const std::string file = (directory_.path() / "results.json").string();
    write_text(file, hyperfine_file(3, 0.25));

    const std::string commit = "c0ffee1234567" + std::string(27, '0');
    const auto first = upload(port, file, commit);
    EXPECT_EQ(first.exit_code, 0) << first.err;
    EXPECT_EQ(first.out,
              "recorded run 1 of c0ffee123 (project p, machine m, branch main, "
              "attempt 1, 3 results)\n");
    const auto again = upload(port, file, commit);
    EXPECT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(again.out, "already recorded: run 1 of c0ffee123 holds these results\n");

    const std::string wrong_token = (directory_.path() / "wrong-token").string();
    write_text(wrong_token, "not-the-token\n");
    fs::permissions(wrong_token, fs::perms::owner_read | fs::perms::owner_write);
    const auto wrong = benchwatch({"record", "--server", fmt::format("http://127.0.0.1:{}", port),
                                   "--token-file", wrong_token, "--project", "p", "--machine", "m",
                                   "--commit", fake_commit("c2"), "--branch", "main", file});
    EXPECT_EQ(wrong.exit_code, 2);
    EXPECT_EQ(wrong.err, fmt::format("error: http://127.0.0.1:{} refused the upload (401 "
                                     "Unauthorized): wrong token: the bearer token is not the "
                                     "one in the server's --token-file\n",
                                     port));
    const auto unknown = upload(port, file, fake_commit("c3"), "m", "q");
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_EQ(unknown.err, fmt::format("error: http://127.0.0.1:{} refused the upload (422 "
                                       "Unprocessable Entity): project 'q' is not accepted here: "
                                       "the server takes uploads for the projects in its store "
                                       "and those of --upload-project\n",
                                       port));
    EXPECT_EQ(server.stop(), 0);
    EXPECT_EQ(server.log().find(token), std::string::npos) << server.log();
    EXPECT_NE(server.log().find("refused (401 Unauthorized)"), std::string::npos) << server.log();

    const auto runs = store::open_store(store)->list_runs({});
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].commit, commit);
}

TEST_F(UploadTest, UnreachableServerIsOneLineAfterTheRetries) {
    const std::string file = (directory_.path() / "results.json").string();
    write_text(file, hyperfine_file(1, 0.25));
    // Port 9 (discard) on loopback has no listener here; four attempts wait 0.5 + 1 + 2 s.
    const auto result = upload(9, file, fake_commit("c1"));
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.err,
              "error: cannot reach benchwatch serve at http://127.0.0.1:9 for POST /api/v1/runs "
              "after 4 attempts (Connection); check --server and the network\n");
}

TEST_F(UploadTest, SixteenUploadersOfFiftyRunsStoreEightHundredRunsOnPostgres) {
    const std::string store = postgres_store();
    if (store.empty()) GTEST_SKIP() << kNoPostgresServer;
    ServerProcess server({"--store", store, "--listen", "127.0.0.1:0", "--allow-upload",
                          "--token-file", token_file(), "--upload-project", "p"},
                         directory_.path());
    const int port = server.port();
    const std::string file = (directory_.path() / "results.json").string();
    write_text(file, hyperfine_file(5, 0.25));
    start_uploaders(port, 16, 50, file);
    wait_for_uploaders();

    int succeeded = 0;
    for (const auto& [machine, lines] : uploader_lines(16)) {
        EXPECT_EQ(lines.size(), 50u) << machine;
        for (const auto& line : lines) {
            EXPECT_TRUE(line.starts_with("0 recorded run ")) << machine << ": " << line;
            succeeded += line.starts_with("0 recorded run ");
        }
    }
    EXPECT_EQ(succeeded, 800);
    EXPECT_EQ(server.stop(), 0);
    const auto opened = store::open_store(store);
    const auto runs = opened->list_runs({"p", "", "", {}});
    std::set<std::pair<std::string, std::string>> distinct;
    std::vector<std::int64_t> ids;
    for (const auto& run : runs) {
        distinct.emplace(run.machine, run.commit);
        ids.push_back(run.id);
        EXPECT_EQ(run.attempt, 1) << run.machine << " " << run.commit;
    }
    EXPECT_EQ(runs.size(), 800u);
    EXPECT_EQ(distinct.size(), 800u);
    const auto results = opened->results(ids);
    for (const auto id : ids) EXPECT_EQ(results.at(id).size(), 5u) << "run " << id;
}

TEST_F(UploadTest, ServerKilledMidUploadLeavesNoPartialRunAndKeepsEveryConfirmedOneOnPostgres) {
    const std::string store = postgres_store();
    if (store.empty()) GTEST_SKIP() << kNoPostgresServer;
    const std::vector<std::string> arguments = {
        "--allow-upload", "--token-file", token_file(), "--upload-project", "p", "--store", store};
    auto first = std::make_unique<ServerProcess>(
        [&] {
            auto with_listen = arguments;
            with_listen.insert(with_listen.end(), {"--listen", "127.0.0.1:0"});
            return with_listen;
        }(),
        directory_.path());
    const int port = first->port();
    const std::string file = (directory_.path() / "results.json").string();
    write_text(file, hyperfine_file(200, 0.25));
    constexpr int uploaders = 8;
    constexpr int runs_each = 25;
    start_uploaders(port, uploaders, runs_each, file);

    // Kill the server once some runs are in, then start another on the same port while the
    // uploaders retry.
    const auto stored_runs = [&] { return store::open_store(store)->last_run_id(); };
    while (stored_runs() < 40) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    first->kill_now();
    const std::int64_t stored_at_kill = stored_runs();
    auto with_port = arguments;
    with_port.insert(with_port.end(), {"--listen", fmt::format("127.0.0.1:{}", port)});
    ServerProcess second(with_port, directory_.path());
    EXPECT_EQ(second.port(), port);
    wait_for_uploaders();
    EXPECT_EQ(second.stop(), 0);

    const auto opened = store::open_store(store);
    const auto runs = opened->list_runs({"p", "", "", {}});
    std::map<std::int64_t, std::pair<std::string, std::string>> machine_and_commit;
    std::vector<std::int64_t> ids;
    for (const auto& run : runs) {
        machine_and_commit[run.id] = {run.machine, run.commit};
        ids.push_back(run.id);
    }
    const auto results = opened->results(ids);
    for (const auto id : ids) {
        const auto found = results.find(id);
        EXPECT_EQ(found == results.end() ? 0 : found->second.size(), 200u) << "partial run " << id;
    }
    // Each "recorded run N of COMMIT" or "already recorded: run N of COMMIT" an uploader got is
    // a stored run of its machine and commit.
    const std::regex confirmed(R"(^0 (?:recorded run|already recorded: run) (\d+) of (k\d+) )");
    int confirmations = 0;
    int failures = 0;
    for (const auto& [machine, lines] : uploader_lines(uploaders)) {
        EXPECT_EQ(lines.size(), static_cast<std::size_t>(runs_each)) << machine;
        for (const auto& line : lines) {
            std::smatch match;
            if (!std::regex_search(line, match, confirmed)) {
                ++failures;
                continue;
            }
            ++confirmations;
            const auto stored = machine_and_commit.find(std::stoll(match[1]));
            ASSERT_NE(stored, machine_and_commit.end()) << machine << ": " << line;
            EXPECT_EQ(stored->second, std::make_pair(machine, std::string(match[2])))
                << machine << ": " << line;
        }
    }
    EXPECT_GE(runs.size(), static_cast<std::size_t>(confirmations));
    std::cerr << fmt::format(
        "[ figures  ] {} runs stored when killed; {} uploads confirmed, {} failed, {} runs "
        "stored\n",
        stored_at_kill, confirmations, failures, runs.size());
}

// Runs per uploader in the two-server test: BENCHWATCH_SCALE_OUT_RUNS, else 10 (16 uploaders × 10
// keeps the suite quick; bench/scale_out.sh runs it with 50).
int scale_out_runs() {
    const char* runs = std::getenv("BENCHWATCH_SCALE_OUT_RUNS");
    return runs && *runs ? std::atoi(runs) : 10;
}

// `GET /api/v1/projects` of the server on `port`: the body, or "" when it did not answer 200.
std::string projects_of(int port) {
    httplib::Client client("127.0.0.1", port);
    const auto response = client.Get("/api/v1/projects");
    return response && response->status == 200 ? response->body : "";
}

// The number of runs `GET /api/v1/projects` reports for project p; -1 when there is none.
long runs_shown(int port) {
    const json projects = json::parse(projects_of(port), nullptr, false);
    if (!projects.is_object() || !projects.contains("projects")) return -1;
    for (const auto& project : projects["projects"])
        if (project["name"] == "p") return project["runs"].get<long>();
    return -1;
}

TEST_F(UploadTest, TwoServersOnOnePostgresStoreStoreEachRunOnceAndShowTheSame) {
    const std::string store = postgres_store();
    if (store.empty()) GTEST_SKIP() << kNoPostgresServer;
    const auto start_server = [&] {
        return std::make_unique<ServerProcess>(
            std::vector<std::string>{"--store", store, "--listen", "127.0.0.1:0", "--allow-upload",
                                     "--token-file", token_file(), "--upload-project", "p",
                                     "--refresh-ms", "200"},
            directory_.path());
    };
    const auto first = start_server();
    const auto second = start_server();
    const int ports[2] = {first->port(), second->port()};
    const std::string file = (directory_.path() / "results.json").string();
    write_text(file, hyperfine_file(5, 0.25));

    // Uploader i sends its runs to server i % 2; every third run it also sends, at the same
    // time, to the other server, as a retry against another server behind a load balancer would.
    constexpr int uploaders = 16;
    const int runs = scale_out_runs();
    for (int i = 0; i < uploaders; ++i) {
        const std::string script = fmt::format(
            R"sh(upload() {{
                 "$BW" record --server "http://127.0.0.1:$1" --token-file "$TOKEN" --project p \
                       --machine m{i} --branch main "$FILE" \
                       --commit 0000000000000000000000000000000000000$2 2>&1
               }}
               for j in $(seq -f %03g 1 {runs}); do
                 if ((10#$j % 3 == 0)); then
                   upload {other} $j > "$LOGS/twice-{i}-$j" &
                   out=$(upload {port} $j)
                   echo "$? $out"
                   wait $!
                   echo "$? $(cat "$LOGS/twice-{i}-$j")"
                 else
                   out=$(upload {port} $j)
                   echo "$? $out"
                 fi
               done > "$LOGS/log-{i}")sh",
            fmt::arg("runs", runs), fmt::arg("port", ports[i % 2]),
            fmt::arg("other", ports[(i + 1) % 2]), fmt::arg("i", i));
        auto environment = without_ci_variables();
        environment["BW"] = benchwatch_binary();
        environment["TOKEN"] = token_file();
        environment["FILE"] = file;
        environment["LOGS"] = directory_.path().string();
        uploaders_.emplace_back([script, environment, this] {
            run({"bash", "-c", script}, directory_.path(), environment);
        });
    }
    wait_for_uploaders();

    // Every upload succeeded; each run sent twice was recorded by one server and found already
    // recorded, as the same run, by the other.
    const std::regex answer(R"(^0 (recorded run|already recorded: run) (\d+) of )");
    std::map<std::string, int> recorded_by_machine;
    for (const auto& [machine, lines] : uploader_lines(uploaders)) {
        EXPECT_EQ(lines.size(), static_cast<std::size_t>(runs + runs / 3)) << machine;
        for (const auto& line : lines) {
            std::smatch match;
            ASSERT_TRUE(std::regex_search(line, match, answer)) << machine << ": " << line;
            recorded_by_machine[machine] += match[1] == "recorded run";
        }
    }
    for (const auto& [machine, recorded] : recorded_by_machine)
        EXPECT_EQ(recorded, runs) << machine << " had runs recorded twice or not at all";

    const auto opened = store::open_store(store);
    const auto stored = opened->list_runs({"p", "", "", {}});
    std::set<std::pair<std::string, std::string>> distinct;
    for (const auto& run : stored) {
        distinct.emplace(run.machine, run.commit);
        EXPECT_EQ(run.attempt, 1) << run.machine << " " << run.commit;
    }
    EXPECT_EQ(stored.size(), static_cast<std::size_t>(uploaders * runs));
    EXPECT_EQ(distinct.size(), static_cast<std::size_t>(uploaders * runs));

    // Both servers show every run once they have refreshed (every 200 ms), and say the same. The
    // wait is a bound on a hang, not a measurement: a run missed stays missed.
    const long expected = uploaders * runs;
    for (int round = 0;
         round < 300 && (runs_shown(ports[0]) != expected || runs_shown(ports[1]) != expected);
         ++round)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(runs_shown(ports[0]), expected);
    EXPECT_EQ(runs_shown(ports[1]), expected);
    EXPECT_EQ(projects_of(ports[0]), projects_of(ports[1]));
    EXPECT_EQ(first->stop(), 0);
    EXPECT_EQ(second->stop(), 0);
}

}  // namespace
}  // namespace benchwatch::testing
