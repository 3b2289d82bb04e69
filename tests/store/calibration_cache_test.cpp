// What could break, on SQLite and on PostgreSQL alike: a cached calibration given back for a key
// that differs in any part, the table growing with every new history or settings, a version-4
// store left without the table or losing its runs when migrated, or a cache write waiting the
// whole busy timeout behind another writer.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <chrono>

#include "store/sqlite_store.hpp"
#include "store/store.hpp"
#include "store_fixture.hpp"

namespace benchwatch::store {
namespace {

using testing::make_run;

using CalibrationCacheTest = testing::BackendTest;

CalibrationKey key_of(std::string settings, std::string history) {
    return {"cuda", "ci-1", std::move(settings), std::move(history)};
}

// The message of the StoreError that `body` throws, or "" when it throws none.
template <class Body>
std::string store_error_of(Body&& body) {
    try {
        body();
    } catch (const StoreError& error) {
        return error.what();
    }
    return "";
}

TEST_P(CalibrationCacheTest, EmptyStoreHasNothingCached) {
    EXPECT_EQ(open()->cached_calibration(key_of("s", "h")), std::nullopt);
}

TEST_P(CalibrationCacheTest, ValueComesBackOnlyUnderItsWholeKey) {
    auto store = open();
    store->cache_calibration(key_of("s", "h"), R"({"sensitivity": 1.5})");
    // Another connection sees it.
    EXPECT_EQ(open()->cached_calibration(key_of("s", "h")), R"({"sensitivity": 1.5})");
    EXPECT_EQ(store->cached_calibration({"other", "ci-1", "s", "h"}), std::nullopt);
    EXPECT_EQ(store->cached_calibration({"cuda", "ci-2", "s", "h"}), std::nullopt);
    EXPECT_EQ(store->cached_calibration(key_of("s2", "h")), std::nullopt);
    EXPECT_EQ(store->cached_calibration(key_of("s", "h2")), std::nullopt);
}

TEST_P(CalibrationCacheTest, NewHistoryReplacesTheEntryOfItsSettings) {
    auto store = open();
    store->cache_calibration(key_of("s", "h1"), "first");
    store->cache_calibration(key_of("s", "h2"), "second");
    store->cache_calibration(key_of("t", "h1"), "other settings");
    EXPECT_EQ(store->cached_calibration(key_of("s", "h1")), std::nullopt);
    EXPECT_EQ(store->cached_calibration(key_of("s", "h2")), "second");
    EXPECT_EQ(store->cached_calibration(key_of("t", "h1")), "other settings");
    EXPECT_EQ(query_text("SELECT count(*) FROM cached_calibrations"), "2");
    // Writing the same key again changes nothing but the value.
    store->cache_calibration(key_of("s", "h2"), "again");
    EXPECT_EQ(store->cached_calibration(key_of("s", "h2")), "again");
    EXPECT_EQ(query_text("SELECT count(*) FROM cached_calibrations"), "2");
}

TEST_P(CalibrationCacheTest, KeepsTheLatestWrittenPerProjectAndMachine) {
    auto store = open();
    store->cache_calibration({"cuda", "ci-2", "s0", "h"}, "other machine");
    const int written = kCachedCalibrationsPerMachine + 4;
    for (int i = 0; i < written; ++i)
        store->cache_calibration(key_of(fmt::format("s{}", i), "h"), fmt::format("v{}", i));
    // Writing s4 again makes it the newest, so that s5 goes first when s20 comes.
    store->cache_calibration(key_of("s4", "h"), "v4 again");
    store->cache_calibration(key_of(fmt::format("s{}", written), "h"), "newest");

    EXPECT_EQ(query_text("SELECT count(*) FROM cached_calibrations WHERE machine = 'ci-1'"),
              std::to_string(kCachedCalibrationsPerMachine));
    for (int i = 0; i <= 5; ++i)
        EXPECT_EQ(store->cached_calibration(key_of(fmt::format("s{}", i), "h")),
                  i == 4 ? std::optional<std::string>("v4 again") : std::nullopt)
            << "s" << i;
    for (int i = 6; i < written; ++i)
        EXPECT_EQ(store->cached_calibration(key_of(fmt::format("s{}", i), "h")),
                  fmt::format("v{}", i));
    EXPECT_EQ(store->cached_calibration({"cuda", "ci-2", "s0", "h"}), "other machine");
}

TEST_P(CalibrationCacheTest, VersionFourStoreIsMigratedKeepingItsRuns) {
    open()->record(make_run("c1", "h1"));
    // Version 4 is the first four steps, which never change: undo the fifth to the seventh.
    execute_sql(GetParam() == testing::Backend::Sqlite
                    ? "DROP TABLE cached_calibrations; ALTER TABLE results DROP COLUMN "
                      "sample_values; PRAGMA user_version = 4;"
                    : "DROP TABLE cached_calibrations; ALTER TABLE results DROP COLUMN "
                      "sample_values; DROP TRIGGER results_of_deleted_runs ON runs; "
                      "DROP TRIGGER results_keep_their_benchmarks ON benchmarks; "
                      "DROP FUNCTION delete_results_of_deleted_runs(); "
                      "DROP FUNCTION refuse_deleting_used_benchmarks(); "
                      "ALTER TABLE results ADD CONSTRAINT results_run_id_fkey FOREIGN KEY "
                      "(run_id) REFERENCES runs (id) ON DELETE CASCADE; "
                      "ALTER TABLE results ADD CONSTRAINT results_benchmark_id_fkey FOREIGN KEY "
                      "(benchmark_id) REFERENCES benchmarks (id); "
                      "UPDATE schema_version SET version = 4;");
    EXPECT_EQ(stored_schema_version(store_url_), 4);

    auto store = open();
    EXPECT_EQ(store->schema_version(), 7);
    EXPECT_EQ(stored_schema_version(store_url_), 7);
    ASSERT_EQ(store->list_runs({}).size(), 1u);
    EXPECT_EQ(store->list_runs({})[0].commit, "c1");
    EXPECT_EQ(store->cached_calibration(key_of("s", "h")), std::nullopt);
    store->cache_calibration(key_of("s", "h"), "value");
    EXPECT_EQ(open()->cached_calibration(key_of("s", "h")), "value");
}

BENCHWATCH_ON_EVERY_BACKEND(CalibrationCacheTest);

using SqliteCalibrationCacheTest = testing::StoreTest;

TEST_F(SqliteCalibrationCacheTest, WriteGivesUpSoonWhileAnotherProcessHoldsTheWriteLock) {
    const std::string store_path = path("history.db");
    auto store = open_store(store_path);
    store->cache_calibration(key_of("s", "h1"), "before");
    sqlite3* holder = nullptr;
    ASSERT_EQ(sqlite3_open(store_path.c_str(), &holder), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);

    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(store_error_of([&] { store->cache_calibration(key_of("s", "h2"), "after"); }),
              "store " + store_path +
                  ": caching a calibration: database is locked by another process for over "
                  "0.25 s");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    // Reading is not blocked, and the failed write changed nothing.
    EXPECT_EQ(store->cached_calibration(key_of("s", "h1")), "before");

    sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(holder);
    // The store's own busy timeout is back: recording works as before.
    EXPECT_TRUE(store->record(make_run("c1", "h1")).inserted);
    store->cache_calibration(key_of("s", "h2"), "after");
    EXPECT_EQ(store->cached_calibration(key_of("s", "h2")), "after");
}

}  // namespace
}  // namespace benchwatch::store
