// What could break: `benchwatch migrate` changing a store under --check, not saying which version
// it migrated from, or a newer store not refused.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>

#include "store/store.hpp"
#include "store/store_url.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch {
namespace {

using testing::benchwatch_command;
using testing::postgres_query_text;
using testing::run;
using testing::stores_on_postgres;
using testing::test_store_url;
using testing::without_ci_variables;

// Whether the store at `url` holds no table: no file for SQLite, an empty schema for PostgreSQL.
bool untouched(const std::string& url) {
    if (!stores_on_postgres()) return !std::filesystem::exists(url);
    return postgres_query_text(
               url, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()") == "0";
}

TEST(MigrateTest, CheckChangesNothingThenMigrateMigratesOnce) {
    const testing::TemporaryDirectory directory("benchwatch-migrate");
    const std::string url = test_store_url(directory.path());
    // Messages show a PostgreSQL URL without its user.
    const std::string store = store::without_credentials(url);

    const auto check = run(benchwatch_command({"migrate", "--check", "--store", url}),
                           directory.path(), without_ci_variables());
    EXPECT_EQ(check.exit_code, 1);
    EXPECT_EQ(check.out, "store " + store +
                             ": at schema version 0, migrations to version 7 pending; run "
                             "benchwatch migrate\n");
    EXPECT_TRUE(untouched(url));

    const auto first = run(benchwatch_command({"migrate", "--store", url}), directory.path(),
                           without_ci_variables());
    EXPECT_EQ(first.exit_code, 0) << first.err;
    EXPECT_EQ(first.out, "store " + store + ": schema version 7 (migrated from 0)\n");

    const auto second = run(benchwatch_command({"migrate", "--store", url}), directory.path(),
                            without_ci_variables());
    EXPECT_EQ(second.out, "store " + store + ": already at schema version 7\n");
    const auto current = run(benchwatch_command({"migrate", "--check", "--store", url}),
                             directory.path(), without_ci_variables());
    EXPECT_EQ(current.exit_code, 0);
    EXPECT_EQ(current.out, "store " + store + ": at schema version 7, nothing to migrate\n");
}

TEST(MigrateTest, VersionFourStoreIsMigratedToTheCurrentOneKeepingItsRuns) {
    const testing::TemporaryDirectory directory("benchwatch-migrate");
    const std::string url = test_store_url(directory.path());
    const std::string store = store::without_credentials(url);
    const auto results = directory.path() / "results.json";
    testing::write_text(results, R"({"context": {}, "benchmarks": [{"name": "a", )"
                                 R"("run_type": "iteration", "iterations": 10, "real_time": 5, )"
                                 R"("cpu_time": 5, "time_unit": "ns"}]})");
    const auto recorded =
        run(benchwatch_command({"record", "--store", url, "--project", "p", "--machine", "m",
                                "--commit", testing::fake_commit("c1"), "--branch", "main",
                                results.string()}),
            directory.path(), without_ci_variables());
    ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
    // Version 4 is the first four steps, which never change: undo the fifth to the seventh (the
    // seventh changes PostgreSQL only).
    if (stores_on_postgres()) {
        ASSERT_EQ(postgres_query_text(
                      url,
                      "DROP TABLE cached_calibrations; "
                      "ALTER TABLE results DROP COLUMN sample_values; "
                      "DROP TRIGGER results_of_deleted_runs ON runs; "
                      "DROP TRIGGER results_keep_their_benchmarks ON benchmarks; "
                      "DROP FUNCTION delete_results_of_deleted_runs(); "
                      "DROP FUNCTION refuse_deleting_used_benchmarks(); "
                      "ALTER TABLE results ADD CONSTRAINT results_run_id_fkey FOREIGN KEY "
                      "(run_id) REFERENCES runs (id) ON DELETE CASCADE; "
                      "ALTER TABLE results ADD CONSTRAINT results_benchmark_id_fkey FOREIGN KEY "
                      "(benchmark_id) REFERENCES benchmarks (id); "
                      "UPDATE schema_version SET version = 4"),
                  "");
    } else {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(url.c_str(), &db), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(db,
                               "DROP TABLE cached_calibrations; ALTER TABLE results DROP COLUMN "
                               "sample_values; PRAGMA user_version = 4",
                               nullptr, nullptr, nullptr),
                  SQLITE_OK);
        sqlite3_close(db);
    }

    const auto check = run(benchwatch_command({"migrate", "--check", "--store", url}),
                           directory.path(), without_ci_variables());
    EXPECT_EQ(check.exit_code, 1);
    EXPECT_EQ(check.out, "store " + store +
                             ": at schema version 4, migrations to version 7 pending; run "
                             "benchwatch migrate\n");
    const auto migrated = run(benchwatch_command({"migrate", "--store", url}), directory.path(),
                              without_ci_variables());
    EXPECT_EQ(migrated.exit_code, 0) << migrated.err;
    EXPECT_EQ(migrated.out, "store " + store + ": schema version 7 (migrated from 4)\n");
    const auto runs = store::open_store(url)->list_runs({});
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].commit, testing::fake_commit("c1"));
}

TEST(MigrateTest, NewerStoreIsRefused) {
    const testing::TemporaryDirectory directory("benchwatch-migrate");
    const std::string url = test_store_url(directory.path());
    const std::string store = store::without_credentials(url);
    if (stores_on_postgres()) {
        ASSERT_EQ(postgres_query_text(url,
                                      "CREATE TABLE schema_version (version INTEGER NOT NULL); "
                                      "INSERT INTO schema_version VALUES (9)"),
                  "");
    } else {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(url.c_str(), &db), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 9", nullptr, nullptr, nullptr),
                  SQLITE_OK);
        sqlite3_close(db);
    }

    const auto refused = run(benchwatch_command({"migrate", "--check", "--store", url}),
                             directory.path(), without_ci_variables());
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_EQ(refused.err, "error: store " + store +
                               " has schema version 9, newer than this benchwatch (7); upgrade "
                               "benchwatch\n");
}

}  // namespace
}  // namespace benchwatch
