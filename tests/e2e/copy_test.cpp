// What could break: `benchwatch copy` losing or changing part of a run (results, environment,
// warnings, commit information, attempt, recording time) between SQLite and PostgreSQL, storing a
// run twice when run again, ignoring --project, touching the target when it refuses, or copying
// cached calibrations, which are keyed by the source's run ids.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "store/store.hpp"
#include "store/store_url.hpp"
#include "support/postgres.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

model::Result result(std::string benchmark, double value) {
    model::Result made;
    made.benchmark = std::move(benchmark);
    made.value = value;
    return made;
}

std::string sha(char digit) {
    return std::string(40, digit);
}

// Project "cuda" on machine "gpu-1": commits 1–4 on main (commit 3 recorded twice, so its second
// run is attempt 2), commit 5 on pull request 42; 3 results each. Project "metal" on machine
// "m1": commits 1 and 2 on main, 2 results each. 6 runs × 3 + 2 runs × 2 = 22 results.
std::vector<model::Run> sample_history() {
    std::vector<model::Run> runs;
    const auto add = [&](std::string project, std::string machine, char commit, int position) {
        model::Run& run = runs.emplace_back();
        run.project = std::move(project);
        run.machine = std::move(machine);
        run.commit = sha(commit);
        run.branch = "main";
        run.recorded_at_ms = 1'790'000'000'000 + position * 3'600'123;
        run.format = "googlebenchmark";
        run.content_hash = fmt::format("{:016x}", position);
        run.environment = {{"compiler", "g++ 12.2.0"}, {"gpu", fmt::format("A100 #{}", position)}};
        run.commit_info =
            model::CommitInfo{fmt::format("Commit {}\n\nWith a body.", commit), "Ada Lovelace",
                              fmt::format("2026-10-0{}T12:00:00+02:00", commit),
                              "https://example.org/commit/" + sha(commit)};
        return &run;
    };
    const double scale[] = {1.0, 1.01, 0.99, 1.02, 1.0, 1.25};
    for (int position = 0; position < 6; ++position) {
        const char commit = position < 3 ? static_cast<char>('1' + position)
                                         : static_cast<char>('1' + position - 1);
        model::Run* run = add("cuda", "gpu-1", commit, position);
        const double factor = scale[position];
        run->results = {result("array/copy", 1500.0 * factor),
                        result("latency/ttfp", 2.5e9 * factor),
                        result("sum/throughput", 4.0e9 / factor)};
        run->results[0].allocations = 12;
        run->results[0].memory = 4096 * factor;
        run->results[0].samples = model::SampleSummary{
            25, 1510.0 * factor, 1520.5, 7.25, {1500.0 * factor, 1510.0 * factor, 1530.25}};
        run->results[1].user_time = 1.5e9;
        run->results[1].system_time = 0.25e9;
        run->results[1].gc_time = 0.125e9;
        run->results[2].metric = "throughput";
        run->results[2].unit = "B/s";
        run->results[2].direction = model::Direction::BiggerIsBetter;
    }
    runs[3].warnings = {{"high-load", "The load average was 3.2 on 2 cores; rerun when idle."},
                        {"few-samples", "array/copy has 3 samples; give the harness more time."}};
    runs[5].branch = "feature";
    runs[5].pull_request = 42;
    runs[5].commit_info->url.clear();
    for (int position = 6; position < 8; ++position) {
        model::Run* run = add("metal", "m1", static_cast<char>('1' + position - 6), position);
        run->results = {result("kernel/launch", 800.0 + position), result("kernel/sync", 90.5)};
        run->commit_info.reset();
    }
    return runs;
}

// A stored run as it compares across stores: everything but its id.
model::Run without_id(model::Run run) {
    run.id = 0;
    return run;
}

// Every run of the store at `url` with its results, oldest first, ids cleared.
std::vector<model::Run> everything_in(const std::string& url) {
    const auto store = store::open_store(url);
    std::vector<model::Run> runs = store->list_runs({});
    std::vector<std::int64_t> ids;
    for (const model::Run& run : runs) ids.push_back(run.id);
    auto results = store->results(ids);
    for (model::Run& run : runs) {
        run.results = results.at(run.id);
        run = without_id(std::move(run));
    }
    return runs;
}

void expect_same_runs(const std::vector<model::Run>& expected,
                      const std::vector<model::Run>& actual) {
    ASSERT_EQ(expected.size(), actual.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const model::Run& want = expected[i];
        const model::Run& got = actual[i];
        SCOPED_TRACE(fmt::format("run {} ({} {})", i, want.project, want.commit));
        EXPECT_EQ(got.project, want.project);
        EXPECT_EQ(got.machine, want.machine);
        EXPECT_EQ(got.commit, want.commit);
        EXPECT_EQ(got.branch, want.branch);
        EXPECT_EQ(got.pull_request, want.pull_request);
        EXPECT_EQ(got.recorded_at_ms, want.recorded_at_ms);
        EXPECT_EQ(got.attempt, want.attempt);
        EXPECT_EQ(got.environment, want.environment);
        EXPECT_EQ(got.format, want.format);
        EXPECT_EQ(got.content_hash, want.content_hash);
        EXPECT_EQ(got.results, want.results);
        EXPECT_EQ(got.warnings, want.warnings);
        EXPECT_EQ(got.commit_info, want.commit_info);
    }
}

class CopyTest : public ::testing::Test {
  protected:
    void SetUp() override {
        const std::optional<std::string> url = test_postgres_url();
        if (!url) {
            if (postgres_required()) FAIL() << kNoPostgresServer;
            GTEST_SKIP() << kNoPostgresServer;
        }
        server_url_ = *url;
        source_ = (directory_.path() / "source.db").string();
        const auto store = store::open_store(source_);
        const std::vector<model::Run> runs = sample_history();
        for (const model::Run& run : runs) store->record(run);
    }

    // A new, empty PostgreSQL store, dropped after the test.
    std::string new_postgres_store(const std::string& name) {
        const auto& schema =
            schemas_.emplace_back(std::make_unique<PostgresSchema>(server_url_, name));
        EXPECT_EQ(schema->created_error(), "");
        return schema->store_url();
    }

    vcs::ProcessOutput benchwatch(const std::vector<std::string>& arguments) const {
        return run(benchwatch_command(arguments), directory_.path(), without_ci_variables());
    }

    vcs::ProcessOutput copy(const std::string& from, const std::string& to,
                            std::vector<std::string> more = {}) const {
        std::vector<std::string> arguments = {"copy", "--from", from, "--to", to};
        arguments.insert(arguments.end(), more.begin(), more.end());
        return benchwatch(arguments);
    }

    // `history --format json` of project cuda on gpu-1 in the store at `url`.
    std::string history_json(const std::string& url) const {
        const auto output = benchwatch({"history", "--store", url, "--project", "cuda", "--machine",
                                        "gpu-1", "--default-branch", "main", "--repo",
                                        directory_.path().string(), "--format", "json"});
        EXPECT_EQ(output.exit_code, 0) << output.err;
        return output.out;
    }

    // `compare --format json` of the pull request's commit 5 with the default branch.
    std::string compare_json(const std::string& url) const {
        const auto output =
            benchwatch({"compare", "--store", url, "--project", "cuda", "--machine", "gpu-1",
                        "--default-branch", "main", "--head", sha('5'), "--base", sha('4'),
                        "--repo", directory_.path().string(), "--format", "json"});
        EXPECT_EQ(output.exit_code, 0) << output.err;
        return output.out;
    }

    static std::string shown(const std::string& url) { return store::without_credentials(url); }

    TemporaryDirectory directory_{"benchwatch-copy"};
    std::string server_url_;
    std::string source_;
    std::vector<std::unique_ptr<PostgresSchema>> schemas_;
};

TEST_F(CopyTest, SqliteToPostgresToSqliteKeepsEveryRunAsStored) {
    const std::string postgres = new_postgres_store("round_trip");
    const std::string back = (directory_.path() / "back" / "history.db").string();

    const auto there = copy(source_, postgres);
    ASSERT_EQ(there.exit_code, 0) << there.err;
    // 6 cuda runs × 3 results + 2 metal runs × 2 results = 22 results.
    EXPECT_EQ(there.out, fmt::format("copied 8 runs (22 results) from {} to {}; 0 already there\n",
                                     source_, shown(postgres)));
    EXPECT_EQ(there.err, "");
    const auto home = copy(postgres, back);
    ASSERT_EQ(home.exit_code, 0) << home.err;
    EXPECT_EQ(home.out, fmt::format("copied 8 runs (22 results) from {} to {}; 0 already there\n",
                                    shown(postgres), back));

    const std::vector<model::Run> original = everything_in(source_);
    ASSERT_EQ(original.size(), 8u);
    EXPECT_EQ(original[3].attempt, 2);  // commit 3's second run
    expect_same_runs(original, everything_in(postgres));
    expect_same_runs(original, everything_in(back));

    const std::string history = history_json(source_);
    EXPECT_NE(history.find("array/copy"), std::string::npos);
    EXPECT_EQ(unified_diff(history, history_json(postgres)), "");
    EXPECT_EQ(unified_diff(history, history_json(back)), "");
    const std::string comparison = compare_json(source_);
    EXPECT_NE(comparison.find("sum/throughput"), std::string::npos);
    EXPECT_EQ(unified_diff(comparison, compare_json(postgres)), "");
    EXPECT_EQ(unified_diff(comparison, compare_json(back)), "");
}

TEST_F(CopyTest, CopyingAgainCopiesNothingAndFinishesAPartialCopy) {
    const std::string postgres = new_postgres_store("again");

    const auto metal = copy(source_, postgres, {"--project", "metal"});
    ASSERT_EQ(metal.exit_code, 0) << metal.err;
    EXPECT_EQ(metal.out, fmt::format("copied 2 runs (4 results) from {} to {}; 0 already there\n",
                                     source_, shown(postgres)));
    EXPECT_EQ(store::open_store(postgres)->projects(), std::vector<std::string>{"metal"});

    // The rest, as when a copy was interrupted after its first batch.
    const auto rest = copy(source_, postgres);
    ASSERT_EQ(rest.exit_code, 0) << rest.err;
    EXPECT_EQ(rest.out, fmt::format("copied 6 runs (18 results) from {} to {}; 2 already there\n",
                                    source_, shown(postgres)));
    const auto again = copy(source_, postgres);
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(again.out, fmt::format("copied 0 runs (0 results) from {} to {}; 8 already there\n",
                                     source_, shown(postgres)));

    // Metal first, then cuda: the order of runs differs, each run is the same.
    std::vector<model::Run> original = everything_in(source_);
    std::stable_partition(original.begin(), original.end(),
                          [](const model::Run& run) { return run.project == "metal"; });
    expect_same_runs(original, everything_in(postgres));
}

TEST_F(CopyTest, RunsOfACommitTheTargetAlreadyHadAreNumberedAfterIt) {
    const std::string target = (directory_.path() / "merged.db").string();
    model::Run earlier = sample_history().front();  // cuda, gpu-1, commit 1
    earlier.content_hash = "recorded-elsewhere";
    store::open_store(target)->record(earlier);

    const auto merged = copy(source_, target, {"--project", "cuda"});
    ASSERT_EQ(merged.exit_code, 0) << merged.err;
    EXPECT_EQ(merged.err, fmt::format("warning: 1 of the copied runs got another attempt number in "
                                      "{}, which already held other runs of their commits\n",
                                      target));
    // Commit 1's copied run follows the one already there: attempt 2.
    const auto runs = store::open_store(target)->list_runs({"cuda", "gpu-1", "", {sha('1')}});
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[1].content_hash, fmt::format("{:016x}", 0));
    EXPECT_EQ(runs[1].attempt, 2);
}

TEST_F(CopyTest, ProjectAndMachineFilterWhatIsCopied) {
    const std::string target = (directory_.path() / "cuda.db").string();
    // A machine of another project only: a filter that would copy nothing is a mistake, named.
    const auto none = copy(source_, target, {"--project", "cuda", "--machine", "m1"});
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_EQ(none.out, "");
    EXPECT_EQ(none.err, fmt::format("error: no machine 'm1' for project 'cuda' in {}; machines: "
                                    "gpu-1\n",
                                    source_));
    EXPECT_FALSE(fs::exists(target));
    const auto cuda = copy(source_, target, {"--project", "cuda", "--machine", "gpu-1"});
    ASSERT_EQ(cuda.exit_code, 0) << cuda.err;
    EXPECT_EQ(cuda.out, fmt::format("copied 6 runs (18 results) from {} to {}; 0 already there\n",
                                    source_, target));
    const auto store = store::open_store(target);
    EXPECT_EQ(store->projects(), std::vector<std::string>{"cuda"});
}

// A run that `record` would refuse, in a store written before the rules held or by hand, is
// refused in the words `record` uses, and the target keeps nothing of it.
TEST_F(CopyTest, ARunRecordWouldRefuseIsRefusedInRecordsWords) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(source_.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "UPDATE results SET value = 0 WHERE run_id = 1 AND value = 1500",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    EXPECT_EQ(sqlite3_changes(db), 1);
    sqlite3_close(db);

    const std::string target = (directory_.path() / "target.db").string();
    const std::string problem = ": benchmark 'array/copy': time must be a positive number, got 0";
    const auto copied = copy(source_, target);
    EXPECT_EQ(copied.exit_code, 2);
    EXPECT_EQ(copied.err, "error: store " + source_ +
                              ": run 1 (project 'cuda', machine 'gpu-1', commit 111111111111)" +
                              problem +
                              "; copy stopped there with 0 runs copied before it: copy the other "
                              "projects or machines with --project and --machine\n");
    EXPECT_TRUE(everything_in(target).empty());

    const fs::path results = directory_.path() / "zero.json";
    write_text(results,
               R"({"context": {"library_build_type": "release"}, "benchmarks": [{"name": )"
               R"("array/copy", "run_type": "iteration", "iterations": 10, "real_time": 0, )"
               R"("cpu_time": 1, "time_unit": "ns"}]})");
    const auto recorded =
        benchwatch({"record", "--store", target, "--project", "cuda", "--machine", "gpu-1",
                    "--commit", sha('1'), "--branch", "main", results.string()});
    EXPECT_EQ(recorded.exit_code, 2);
    EXPECT_EQ(recorded.err, "error: " + results.string() + problem + "\n");
}

TEST_F(CopyTest, TheSameStoreTwiceIsRefused) {
    const auto same = copy(source_, "sqlite:" + source_);
    EXPECT_EQ(same.exit_code, 2);
    EXPECT_EQ(same.out, "");
    EXPECT_EQ(same.err, fmt::format("error: --from and --to both name the store {}; copy needs "
                                    "two different stores\n",
                                    source_));
}

TEST_F(CopyTest, MissingOrUnreachableSourceLeavesTheTargetUncreated) {
    const std::string target = (directory_.path() / "target.db").string();
    const std::string missing = (directory_.path() / "missing.db").string();
    const auto from_missing = copy(missing, target);
    EXPECT_EQ(from_missing.exit_code, 2);
    EXPECT_EQ(from_missing.err, fmt::format("error: store {} holds no benchwatch history; check "
                                            "--from\n",
                                            missing));
    EXPECT_FALSE(fs::exists(missing));

    const auto unreachable =
        copy("postgresql://benchwatch@/benchwatch?host=/nonexistent-bw-socket", target);
    EXPECT_EQ(unreachable.exit_code, 2);
    EXPECT_EQ(unreachable.err,
              "error: store postgresql:///benchwatch?host=/nonexistent-bw-socket: connecting: "
              "connection to server on socket \"/nonexistent-bw-socket/.s.PGSQL.5432\" failed: No "
              "such file or directory; check that the server is running and that the URL's host "
              "and port are right\n");
    EXPECT_FALSE(fs::exists(target));
}

TEST_F(CopyTest, UnreachableTargetIsNamed) {
    const auto unreachable =
        copy(source_, "postgresql://benchwatch:secret-pw@/benchwatch?host=/nonexistent-bw-socket");
    EXPECT_EQ(unreachable.exit_code, 2);
    EXPECT_EQ(unreachable.err,
              "error: store postgresql:///benchwatch?host=/nonexistent-bw-socket: connecting: "
              "connection to server on socket \"/nonexistent-bw-socket/.s.PGSQL.5432\" failed: No "
              "such file or directory; check that the server is running and that the URL's host "
              "and port are right\n");
}

TEST_F(CopyTest, CachedCalibrationsStayBehindAndTheTargetCalibratesTheSame) {
    const std::string comparison = compare_json(source_);
    const auto cached_in = [](const std::string& path) {
        sqlite3* db = nullptr;
        EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        sqlite3_stmt* count = nullptr;
        sqlite3_prepare_v2(db, "SELECT count(*) FROM cached_calibrations", -1, &count, nullptr);
        const int rows = sqlite3_step(count) == SQLITE_ROW ? sqlite3_column_int(count, 0) : -1;
        sqlite3_finalize(count);
        sqlite3_close(db);
        return rows;
    };
    ASSERT_EQ(cached_in(source_), 1);
    const std::string target = (directory_.path() / "target.db").string();
    const auto copied = copy(source_, target);
    ASSERT_EQ(copied.exit_code, 0) << copied.err;
    EXPECT_EQ(cached_in(target), 0);
    EXPECT_EQ(unified_diff(comparison, compare_json(target)), "");
    EXPECT_EQ(cached_in(target), 1);
}

TEST_F(CopyTest, TargetWithANewerSchemaIsRefusedUntouched) {
    const std::string target = (directory_.path() / "newer.db").string();
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(target.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 9", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    const std::string before = read_text(target);

    const auto refused = copy(source_, target);
    EXPECT_EQ(refused.exit_code, 2);
    // The current version is 7 (tests/e2e/migrate_test.cpp).
    EXPECT_EQ(refused.err, fmt::format("error: store {} has schema version 9, newer than this "
                                       "benchwatch (7); upgrade benchwatch\n",
                                       target));
    EXPECT_EQ(read_text(target), before);
    EXPECT_FALSE(fs::exists(target + "-wal"));
}

}  // namespace
}  // namespace benchwatch::testing
