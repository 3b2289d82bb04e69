// What could break: a store URL sent to the wrong backend, a schema left unmigrated or a newer one
// opened anyway, a password shown in a message, or an error message that does not say which
// store and how to fix it.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>

#include "store/postgres_store.hpp"
#include "store/sqlite_store.hpp"
#include "store/store.hpp"
#include "store/store_url.hpp"
#include "store_fixture.hpp"

namespace benchwatch::store {
namespace {

using testing::execute_sql;
using testing::make_run;
using testing::StoreTest;

using OpenTest = StoreTest;

// The message of the StoreError that `open` throws, or "" when it throws none.
template <class Open>
std::string store_error_of(Open&& open) {
    try {
        open();
    } catch (const StoreError& error) {
        return error.what();
    }
    return "";
}

TEST_F(OpenTest, PlainPathAndSqliteUrlOpenTheSameFile) {
    const std::string store_path = path("history.db");
    open_store(store_path)->record(make_run("c1", "h1"));
    auto store = open_store("sqlite:" + store_path);
    EXPECT_EQ(store->list_runs({}).size(), 1u);
}

TEST_F(OpenTest, CreatesMissingParentDirectories) {
    const std::string store_path = path(".benchwatch/nested/history.db");
    auto store = open_store(store_path);
    store->record(make_run("c1", "h1"));
    EXPECT_TRUE(std::filesystem::is_regular_file(store_path));
}

TEST_F(OpenTest, UsesWriteAheadLogging) {
    const std::string store_path = path("history.db");
    open_store(store_path);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(store_path.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* statement = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &statement, nullptr), SQLITE_OK);
    ASSERT_EQ(sqlite3_step(statement), SQLITE_ROW);
    EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)), "wal");
    sqlite3_finalize(statement);
    sqlite3_close(db);
}

// The integer that `pragma` ("page_size") reads from the SQLite file at `store_path`.
int pragma_value(const std::string& store_path, const std::string& pragma) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(store_path.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, ("PRAGMA " + pragma).c_str(), -1, &statement, nullptr),
              SQLITE_OK);
    EXPECT_EQ(sqlite3_step(statement), SQLITE_ROW);
    const int value = sqlite3_column_int(statement, 0);
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return value;
}

TEST_F(OpenTest, ANewStoreHasLargePagesAndAnOldOneKeepsItsOwn) {
    const std::string new_path = path("new.db");
    open_store(new_path)->record(make_run("c1", "h1"));
    EXPECT_EQ(pragma_value(new_path, "page_size"), 16384);

    // A store made with SQLite's default pages, as stores were before: it opens, records and
    // reads as before, and keeps its pages.
    const std::string old_path = path("old.db");
    execute_sql(old_path, "PRAGMA page_size = 4096; CREATE TABLE made_before (x)");
    ASSERT_EQ(pragma_value(old_path, "page_size"), 4096);
    execute_sql(old_path, "DROP TABLE made_before");
    auto old_store = open_store(old_path);
    old_store->record(make_run("c1", "h1"));
    old_store->record(make_run("c2", "h2"));
    EXPECT_EQ(old_store->list_runs({}).size(), 2u);
    EXPECT_EQ(pragma_value(old_path, "page_size"), 4096);
}

TEST(OpenStoreUrlTest, PasswordsAreLeftOutOfShownUrls) {
    EXPECT_EQ(without_credentials("postgres://bench:secret@db.example:5432/history"),
              "postgres://db.example:5432/history");
    EXPECT_EQ(without_credentials("postgresql://bench@db.example/history"),
              "postgresql://db.example/history");
    EXPECT_EQ(
        without_credentials("postgresql:///history?host=/run/pg&password=secret&sslmode=require"),
        "postgresql:///history?host=/run/pg&sslmode=require");
    EXPECT_EQ(without_credentials("postgresql://db.example/history?password=secret"),
              "postgresql://db.example/history");
    // A path with an "@" is not a URL.
    EXPECT_EQ(without_credentials("/home/me@work/history.db"), "/home/me@work/history.db");
}

TEST(OpenStoreUrlTest, UnknownSchemeListsTheSupportedForms) {
    EXPECT_EQ(store_error_of([] { open_store("mysql://root:pw@localhost/bench"); }),
              "store mysql://localhost/bench: unsupported scheme \"mysql\"; use a path, "
              "sqlite:PATH, or postgres://…");
}

TEST(OpenStoreUrlTest, EmptyUrlAndEmptySqlitePathAreRefused) {
    EXPECT_EQ(store_error_of([] { open_store(""); }),
              "store URL is empty; pass --store with a path such as .benchwatch/history.db");
    EXPECT_EQ(store_error_of([] { open_store("sqlite:"); }),
              "store sqlite:: no path after \"sqlite:\"; use sqlite:PATH");
}

using OpenEveryBackendTest = testing::BackendTest;

TEST_P(OpenEveryBackendTest, NewStoreIsAtTheCurrentSchemaVersion) {
    EXPECT_EQ(stored_schema_version(store_url_), 0);
    auto store = open();
    EXPECT_EQ(store->schema_version(), current_schema_version());
    EXPECT_EQ(stored_schema_version(store_url_), current_schema_version());
    EXPECT_EQ(current_schema_version(), 7);
}

TEST_P(OpenEveryBackendTest, StoreWithItsOwnTablesIsMigratedOnceKeepingThem) {
    execute_sql("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('kept');");
    EXPECT_TRUE(open()->record(make_run("c1", "h1")).inserted);
    // Opening again does not migrate twice (that would fail: the tables exist).
    EXPECT_EQ(open()->list_runs({}).size(), 1u);
    EXPECT_EQ(query_text("SELECT text FROM notes"), "kept");
}

TEST_P(OpenEveryBackendTest, NewerSchemaVersionIsRefused) {
    const int newer = current_schema_version() + 1;
    execute_sql(GetParam() == testing::Backend::Sqlite
                    ? fmt::format("PRAGMA user_version = {}", newer)
                    : fmt::format("CREATE TABLE schema_version (version INTEGER NOT NULL); "
                                  "INSERT INTO schema_version VALUES ({})",
                                  newer));
    EXPECT_EQ(store_error_of([&] { open(); }),
              fmt::format("store {} has schema version {}, newer than this benchwatch ({}); "
                          "upgrade benchwatch",
                          shown_url(), newer, current_schema_version()));
    EXPECT_EQ(stored_schema_version(store_url_), newer);
}

BENCHWATCH_ON_EVERY_BACKEND(OpenEveryBackendTest);

TEST_F(OpenTest, EmptyFileIsMigrated) {
    const std::string store_path = path("history.db");
    std::ofstream(store_path).close();
    ASSERT_EQ(std::filesystem::file_size(store_path), 0u);
    auto store = open_store(store_path);
    EXPECT_EQ(store->schema_version(), current_schema_version());
    EXPECT_TRUE(store->record(make_run("c1", "h1")).inserted);
}

// Schema version 1 as benchwatch 0.1 created it, with one run of commit c1 (environment
// julia = 1.10, one result array/copy = 1500 ns over 10 samples).
constexpr const char* kVersionOneStore = R"sql(
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    project TEXT NOT NULL,
    machine TEXT NOT NULL,
    commit_id TEXT NOT NULL,
    branch TEXT NOT NULL,
    pull_request INTEGER,
    recorded_at_ms INTEGER NOT NULL,
    attempt INTEGER NOT NULL,
    format TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    UNIQUE (project, machine, commit_id, content_hash)
);
CREATE INDEX runs_by_branch ON runs (project, machine, branch);
CREATE INDEX runs_by_commit ON runs (commit_id);
CREATE TABLE environment (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
CREATE TABLE benchmarks (
    id INTEGER PRIMARY KEY,
    project TEXT NOT NULL,
    name TEXT NOT NULL,
    metric TEXT NOT NULL,
    unit TEXT NOT NULL,
    direction TEXT NOT NULL CHECK (direction IN ('smaller', 'bigger')),
    UNIQUE (project, name, metric, unit, direction)
);
CREATE TABLE results (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    benchmark_id INTEGER NOT NULL REFERENCES benchmarks (id),
    value REAL NOT NULL,
    allocations REAL,
    memory REAL,
    sample_count INTEGER,
    sample_median REAL,
    sample_mean REAL,
    sample_stddev REAL,
    PRIMARY KEY (run_id, benchmark_id)
) WITHOUT ROWID;
INSERT INTO runs VALUES (7, 'cuda', 'ci-1', 'c1', 'master', NULL, 1700000000000, 1,
                         'benchmarktools', 'sha256:aa');
INSERT INTO environment VALUES (7, 'julia', '1.10');
INSERT INTO benchmarks VALUES (3, 'cuda', 'array/copy', 'time', 'ns', 'smaller');
INSERT INTO results VALUES (7, 3, 1500, NULL, NULL, 10, 1510, 1520, 5);
PRAGMA user_version = 1;
)sql";

TEST_F(OpenTest, VersionOneStoreIsMigratedAndItsRunsStillRead) {
    const std::string store_path = path("history.db");
    execute_sql(store_path, kVersionOneStore);
    auto store = open_store(store_path);
    EXPECT_EQ(store->schema_version(), current_schema_version());

    const auto runs = store->list_runs({});
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].id, 7);
    EXPECT_EQ(runs[0].commit, "c1");
    EXPECT_EQ(runs[0].environment, (model::Environment{{"julia", "1.10"}}));
    EXPECT_TRUE(runs[0].warnings.empty());
    const std::int64_t ids[] = {7};
    const auto results = store->results(ids);
    ASSERT_EQ(results.at(7).size(), 1u);
    EXPECT_EQ(results.at(7)[0].benchmark, "array/copy");
    EXPECT_EQ(results.at(7)[0].value, 1500);
    EXPECT_EQ(results.at(7)[0].samples, (model::SampleSummary{10, 1510, 1520, 5, {}}));

    // The migrated store takes runs with warnings, next to the old run.
    model::Run run = make_run("c2", "h2");
    run.warnings = {{"debug-harness", "Google Benchmark is a debug build."}};
    store->record(run);
    const auto after = open_store(store_path)->list_runs({});
    ASSERT_EQ(after.size(), 2u);
    EXPECT_TRUE(after[0].warnings.empty());
    EXPECT_EQ(after[1].warnings, run.warnings);
}

TEST_F(OpenTest, FileThatIsNotADatabaseIsNamed) {
    const std::string store_path = path("results.json");
    std::ofstream(store_path) << R"({"context": {"date": "2024-01-01"}, "benchmarks": []})"
                              << std::string(600, ' ') << "\n";
    EXPECT_EQ(store_error_of([&] { open_store(store_path); }),
              "store " + store_path +
                  ": opening: file is not a database; pass --store with the path of a benchwatch "
                  "store");
}

TEST_F(OpenTest, DirectoryUnderARegularFileIsUnwritable) {
    const std::string file = path("notes.txt");
    std::ofstream(file) << "not a directory\n";
    const std::string store_path = file + "/history.db";
    EXPECT_EQ(store_error_of([&] { open_store(store_path); }),
              fmt::format("store {}: creating directory {}: Not a directory; check that the "
                          "directory exists and is writable, or pass --store",
                          store_path, file));
}

TEST(OpenUnwritableTest, FileSystemThatRefusesNewFilesIsUnwritable) {
    // /proc refuses to create files even for root.
    EXPECT_EQ(store_error_of([] { open_store("/proc/history.db"); }),
              "store /proc/history.db: opening: unable to open database file; check that the "
              "directory exists and is writable, or pass --store");
}

TEST_F(OpenTest, WriteLockHeldTooLongIsReportedAsLocked) {
    const std::string store_path = path("history.db");
    auto store = open_sqlite_store(store_path, std::chrono::milliseconds(200));
    sqlite3* holder = nullptr;
    ASSERT_EQ(sqlite3_open(store_path.c_str(), &holder), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);

    EXPECT_EQ(store_error_of([&] { store->record(make_run("c1", "h1")); }),
              "store " + store_path +
                  ": recording the run of commit c1: database is locked by another process for "
                  "over 0.2 s; try again when it has finished");
    // Readers are not blocked by a writer.
    EXPECT_TRUE(store->list_runs({}).empty());

    sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(holder);
    EXPECT_TRUE(store->record(make_run("c1", "h1")).inserted);
}

}  // namespace
}  // namespace benchwatch::store
