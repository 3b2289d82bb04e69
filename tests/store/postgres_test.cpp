// What could break: a PostgreSQL store that cannot be reached, authenticated or created on
// reported without its URL or fix, a password shown in a message, libpq's PGPASSWORD or
// ~/.pgpass ignored, a read-only user made to write when the store is current, results left
// behind by a deleted run or pointing at a deleted benchmark, a store object recording with
// benchmark ids that are no longer stored, or last_run_id() naming a run while one with a
// smaller id is still being written.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <span>
#include <thread>
#include <vector>

#include "store/store.hpp"
#include "store_fixture.hpp"

namespace benchwatch::store {
namespace {

using testing::make_run;
using testing::postgres_query_text;

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

// The server of tests/support/postgres-cluster, with its roles benchwatch_password (password
// "secret") and benchwatch_limited (password "limited").
class PostgresTest : public ::testing::Test {
  protected:
    void SetUp() override {
        const std::optional<std::string> url = testing::test_postgres_url();
        const std::string problem =
            "no PostgreSQL server for the tests: run them through ctest (which starts "
            "tests/support/postgres-cluster)";
        if (!url && testing::postgres_required()) FAIL() << problem;
        if (!url) GTEST_SKIP() << problem;
        server_url_ = *url;
        const std::size_t host = server_url_.find("host=");
        ASSERT_NE(host, std::string::npos) << server_url_ << " is not the cluster's URL";
        socket_directory_ = server_url_.substr(host + 5, server_url_.find('&', host) - host - 5);
    }
    void TearDown() override {
        for (const std::string& schema : schemas_)
            postgres_query_text(server_url_, fmt::format("DROP SCHEMA {} CASCADE", schema));
        unsetenv("PGPASSWORD");
        unsetenv("PGPASSFILE");
    }

    // A URL of the server's database `database` for `credentials` ("user" or "user:password").
    std::string url_as(const std::string& credentials,
                       const std::string& database = "benchwatch") const {
        return fmt::format("postgresql://{}@/{}?host={}", credentials, database, socket_directory_);
    }

    // Records a run of commit "slow" into the store at `url` (schema `schema`) on a thread of its
    // own, which keeps its transaction open for `seconds` after taking its id; returns once it has
    // taken it. The runs' id sequence shows that to other sessions at once, and it is this
    // schema's own: other tests on the server sleep in transactions of their own meanwhile.
    std::thread record_slowly(const std::string& url, const std::string& schema, int seconds) {
        EXPECT_EQ(postgres_query_text(
                      server_url_,
                      fmt::format("SET search_path = {}; "
                                  "CREATE FUNCTION slow() RETURNS trigger LANGUAGE plpgsql AS $$ "
                                  "BEGIN IF NEW.commit_id = 'slow' THEN PERFORM pg_sleep({}); END "
                                  "IF; RETURN NULL; END $$; "
                                  "CREATE TRIGGER slow AFTER INSERT ON runs FOR EACH ROW "
                                  "EXECUTE FUNCTION slow()",
                                  schema, seconds)),
                  "");
        std::thread slow([url] { open_store(url)->record(make_run("slow", "h1")); });
        const auto ids_taken = fmt::format(
            "SELECT coalesce(max(last_value), 0) FROM pg_sequences WHERE schemaname = '{}' AND "
            "sequencename LIKE 'runs%'",
            schema);
        for (int i = 0; i < 2000 && postgres_query_text(server_url_, ids_taken) == "0"; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return slow;
    }

    // Whether record_slowly()'s run in `schema` is still uncommitted.
    bool slow_run_open(const std::string& schema) const {
        return postgres_query_text(
                   server_url_, fmt::format("SELECT count(*) FROM {}.runs WHERE commit_id = 'slow'",
                                            schema)) == "0";
    }

    // A new schema owned by the superuser, dropped after the test.
    std::string new_schema(const std::string& name) {
        const std::string schema = fmt::format("test_{}_{}", getpid(), name);
        EXPECT_EQ(postgres_query_text(server_url_, "CREATE SCHEMA " + schema), "");
        schemas_.push_back(schema);
        return schema;
    }

    std::string server_url_;
    std::string socket_directory_;
    std::vector<std::string> schemas_;
};

TEST_F(PostgresTest, UnreachableServerIsNamedWithTheFix) {
    EXPECT_EQ(
        store_error_of(
            [] { open_store("postgresql://benchwatch@/benchwatch?host=/nonexistent-bw-socket"); }),
        "store postgresql:///benchwatch?host=/nonexistent-bw-socket: connecting: connection to "
        "server on socket \"/nonexistent-bw-socket/.s.PGSQL.5432\" failed: No such file or "
        "directory; check that the server is running and that the URL's host and port are right");
}

TEST_F(PostgresTest, WrongPasswordIsNamedAndNotShown) {
    const std::string url = url_as("benchwatch_password:wrong-secret");
    const std::string message = store_error_of([&] { open_store(url); });
    EXPECT_EQ(message,
              fmt::format("store postgresql:///benchwatch?host={0}: connecting: connection to "
                          "server on socket \"{0}/.s.PGSQL.5432\" failed: FATAL: password "
                          "authentication failed for user \"benchwatch_password\"; check the user "
                          "and password in the URL, PGPASSWORD or ~/.pgpass",
                          socket_directory_));
    EXPECT_EQ(message.find("wrong-secret"), std::string::npos);
}

TEST_F(PostgresTest, PasswordComesFromPgpasswordOrThePasswordFile) {
    const std::string schema = new_schema("pgpass");
    postgres_query_text(server_url_,
                        fmt::format("GRANT ALL ON SCHEMA {} TO benchwatch_password", schema));
    const std::string url = url_as("benchwatch_password") + "&options=-csearch_path%3D" + schema;

    EXPECT_NE(store_error_of([&] { open_store(url); }), "");  // no password anywhere
    setenv("PGPASSWORD", "secret", 1);
    EXPECT_EQ(store_error_of([&] { open_store(url)->record(make_run("c1", "h1")); }), "");
    unsetenv("PGPASSWORD");

    // ~/.pgpass's format, in a file named by PGPASSFILE: host:port:database:user:password.
    const std::string password_file = ::testing::TempDir() + "benchwatch-pgpass";
    std::ofstream(password_file) << "*:*:benchwatch:benchwatch_password:secret\n";
    ASSERT_EQ(chmod(password_file.c_str(), 0600), 0);  // libpq ignores a file others can read
    setenv("PGPASSFILE", password_file.c_str(), 1);
    std::size_t runs = 0;
    EXPECT_EQ(store_error_of([&] { runs = open_store(url)->list_runs({}).size(); }), "");
    EXPECT_EQ(runs, 1u);
    std::remove(password_file.c_str());
}

TEST_F(PostgresTest, MissingDatabaseSaysHowToCreateIt) {
    EXPECT_EQ(store_error_of([&] { open_store(url_as("benchwatch", "no_such_history")); }),
              fmt::format("store postgresql:///no_such_history?host={0}: connecting: connection "
                          "to server on socket \"{0}/.s.PGSQL.5432\" failed: FATAL: database "
                          "\"no_such_history\" does not exist; create it with createdb "
                          "no_such_history",
                          socket_directory_));
}

TEST_F(PostgresTest, UserWhoMayNotCreateTablesIsToldSo) {
    const std::string schema = new_schema("limited");
    postgres_query_text(server_url_,
                        fmt::format("GRANT USAGE ON SCHEMA {} TO benchwatch_limited", schema));
    const std::string url =
        url_as("benchwatch_limited:limited") + "&options=-csearch_path%3D" + schema;
    EXPECT_EQ(store_error_of([&] { open_store(url); }),
              fmt::format("store postgresql:///benchwatch?host={}&options=-csearch_path%3D{}: "
                          "migrating to schema version 7: permission denied for schema {}; run "
                          "benchwatch migrate as the schema's owner, or grant this user CREATE on "
                          "the schema",
                          socket_directory_, schema, schema));
}

TEST_F(PostgresTest, DeletingRunsDeletesTheirResultsAndUsedBenchmarksStay) {
    const std::string schema = new_schema("deleting");
    const std::string url = server_url_ + "&options=-csearch_path%3D" + schema;
    auto store = open_store(url);
    store->record(make_run("c1", "h1"));
    store->record(make_run("c2", "h2"));
    const auto in_schema = [&](const std::string& sql) {
        return postgres_query_text(server_url_,
                                   fmt::format("SET search_path = {}; {}", schema, sql));
    };
    EXPECT_NE(in_schema("DELETE FROM benchmarks")
                  .find("results still use a deleted benchmark; delete their runs first"),
              std::string::npos);
    EXPECT_EQ(in_schema("DELETE FROM runs WHERE commit_id = 'c1'"), "");
    EXPECT_EQ(in_schema("SELECT count(*) FROM results"), "2");
    EXPECT_EQ(in_schema("SELECT count(*) FROM results WHERE run_id NOT IN (SELECT id FROM runs)"),
              "0");
    // From another search path too: the triggers name their own schema's tables.
    EXPECT_EQ(postgres_query_text(server_url_, fmt::format("DELETE FROM {}.runs", schema)), "");
    EXPECT_EQ(in_schema("SELECT count(*) FROM results"), "0");
    EXPECT_EQ(in_schema("DELETE FROM benchmarks"), "");
}

TEST_F(PostgresTest, StoreRecordsAgainAfterItsProjectsBenchmarksWereDeletedAndAddedAgain) {
    const std::string schema = new_schema("stale");
    const std::string url = server_url_ + "&options=-csearch_path%3D" + schema;
    auto store = open_store(url);
    store->record(make_run("c1", "h1"));
    // By hand, as an administrator cleaning up: the runs, then their benchmarks, then the same
    // names recorded again through another store object, which gives them new ids.
    EXPECT_EQ(postgres_query_text(server_url_, fmt::format("DELETE FROM {0}.runs; "
                                                           "DELETE FROM {0}.benchmarks",
                                                           schema)),
              "");
    open_store(url)->record(make_run("c2", "h2"));
    // This object knew the old ids; what it records now must use the stored ones.
    const RecordOutcome outcome = store->record(make_run("c3", "h3"));
    ASSERT_TRUE(outcome.inserted);
    const std::int64_t id = outcome.run_id;
    const auto results = store->results(std::span<const std::int64_t>(&id, 1));
    ASSERT_EQ(results.at(id).size(), 2u);
    EXPECT_EQ(results.at(id)[0].benchmark, "array/copy");
    EXPECT_EQ(postgres_query_text(server_url_,
                                  fmt::format("SELECT count(*) FROM {0}.results WHERE benchmark_id "
                                              "NOT IN (SELECT id FROM {0}.benchmarks)",
                                              schema)),
              "0");
}

TEST_F(PostgresTest, LastRunIdWaitsForARunWithASmallerIdThatIsStillBeingWritten) {
    const std::string schema = new_schema("order");
    const std::string url = server_url_ + "&options=-csearch_path%3D" + schema;
    open_store(url);
    // The run of commit "slow" holds id 1 with its transaction open for a second.
    std::thread slow = record_slowly(url, schema, 1);
    auto reader = open_store(url);
    open_store(url)->record(make_run("fast", "h2"));
    const std::int64_t last = reader->last_run_id();
    const auto runs = reader->list_runs({});
    slow.join();
    // Every run up to the id last_run_id() named is there to be read.
    std::vector<std::int64_t> ids;
    for (const auto& run : runs) ids.push_back(run.id);
    EXPECT_EQ(last, 2);
    EXPECT_EQ(ids, (std::vector<std::int64_t>{1, 2}));
}

TEST_F(PostgresTest, PeekNamesACommittedRunWithoutWaitingForOneStillBeingWritten) {
    const std::string schema = new_schema("peek");
    const std::string url = server_url_ + "&options=-csearch_path%3D" + schema;
    open_store(url);
    // The run of commit "slow" keeps its transaction open for 6 s after taking its id: long
    // enough for another run to be recorded and the peek made on a machine busy with other tests.
    std::thread slow = record_slowly(url, schema, 6);
    auto reader = open_store(url);
    open_store(url)->record(make_run("fast", "h2"));
    const std::int64_t peeked = reader->peek_last_run_id();
    // A serve that peeks many times a second must not queue behind writers as last_run_id()
    // does: the peek came back while the slow run was still being written.
    const bool slow_still_open = slow_run_open(schema);
    slow.join();
    EXPECT_EQ(peeked, 2);
    EXPECT_TRUE(slow_still_open);
}

TEST_F(PostgresTest, ARecorderIsNotHeldUpByAReaderWaitingForAnotherSchemasSlowRun) {
    // Two stores in one database: schemas of their own, as docs/postgres.md sets them up.
    const std::string slow_schema = new_schema("slow_store");
    const std::string slow_url = server_url_ + "&options=-csearch_path%3D" + slow_schema;
    const std::string other_schema = new_schema("other_store");
    const std::string other_url = server_url_ + "&options=-csearch_path%3D" + other_schema;
    open_store(slow_url);
    auto other = open_store(other_url);
    std::thread slow = record_slowly(slow_url, slow_schema, 6);
    // A reader of the slow store (a dashboard refreshing) waits in last_run_id() for the slow run.
    const std::string reader_name = fmt::format("waiting_reader_{}", getpid());
    std::thread waiting(
        [&] { open_store(slow_url + "&application_name=" + reader_name)->last_run_id(); });
    const auto reader_waits = fmt::format(
        "SELECT count(*) FROM pg_stat_activity WHERE application_name = '{}' AND "
        "wait_event_type = 'Lock'",
        reader_name);
    for (int i = 0; i < 2000 && postgres_query_text(server_url_, reader_waits) == "0"; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(postgres_query_text(server_url_, reader_waits), "1");
    // The other store's recorder must not queue behind that waiting reader.
    other->record(make_run("fast", "h2"));
    const bool slow_still_open = slow_run_open(slow_schema);
    waiting.join();
    slow.join();
    EXPECT_TRUE(slow_still_open);
}

TEST_F(PostgresTest, ReadOnlyUserReadsACurrentStoreButCannotRecord) {
    const std::string schema = new_schema("reader");
    const std::string owner_url = server_url_ + "&options=-csearch_path%3D" + schema;
    open_store(owner_url)->record(make_run("c1", "h1"));
    postgres_query_text(
        server_url_, fmt::format("GRANT USAGE ON SCHEMA {0} TO benchwatch_limited; "
                                 "GRANT SELECT ON ALL TABLES IN SCHEMA {0} TO benchwatch_limited",
                                 schema));
    const std::string url =
        url_as("benchwatch_limited:limited") + "&options=-csearch_path%3D" + schema;
    auto store = open_store(url);
    EXPECT_EQ(store->list_runs({}).size(), 1u);
    EXPECT_EQ(store_error_of([&] { store->record(make_run("c2", "h2")); }),
              fmt::format("store postgresql:///benchwatch?host={}&options=-csearch_path%3D{}: "
                          "recording the run of commit c2: permission denied for table runs; "
                          "grant this user the privilege on the store's tables",
                          socket_directory_, schema));
}

TEST_F(PostgresTest, ReadOnlyUserReadsTheCalibrationCacheButCannotWriteIt) {
    const std::string schema = new_schema("cache_reader");
    const std::string owner_url = server_url_ + "&options=-csearch_path%3D" + schema;
    const CalibrationKey key{"cuda", "ci-1", "s", "h"};
    open_store(owner_url)->cache_calibration(key, "cached");
    postgres_query_text(
        server_url_, fmt::format("GRANT USAGE ON SCHEMA {0} TO benchwatch_limited; "
                                 "GRANT SELECT ON ALL TABLES IN SCHEMA {0} TO benchwatch_limited",
                                 schema));
    const std::string url =
        url_as("benchwatch_limited:limited") + "&options=-csearch_path%3D" + schema;
    auto store = open_store(url);
    EXPECT_EQ(store->cached_calibration(key), "cached");
    EXPECT_EQ(store_error_of([&] { store->cache_calibration(key, "new"); }),
              fmt::format("store postgresql:///benchwatch?host={}&options=-csearch_path%3D{}: "
                          "caching a calibration: permission denied for table "
                          "cached_calibrations; grant this user the privilege on the store's "
                          "tables",
                          socket_directory_, schema));
    EXPECT_EQ(store->cached_calibration(key), "cached");
}

TEST_F(PostgresTest, CalibrationCacheWriteGivesUpSoonWhileTheTableIsLocked) {
    const std::string schema = new_schema("cache_locked");
    const std::string url = server_url_ + "&options=-csearch_path%3D" + schema;
    auto store = open_store(url);
    const CalibrationKey key{"cuda", "ci-1", "s", "h"};
    std::unique_ptr<PGconn, decltype(&PQfinish)> holder(PQconnectdb(url.c_str()), &PQfinish);
    ASSERT_EQ(PQstatus(holder.get()), CONNECTION_OK);
    for (const char* sql : {"BEGIN", "LOCK TABLE cached_calibrations IN ACCESS EXCLUSIVE MODE"}) {
        std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(holder.get(), sql), &PQclear);
        ASSERT_EQ(PQresultStatus(result.get()), PGRES_COMMAND_OK) << sql;
    }

    const auto start = std::chrono::steady_clock::now();
    const std::string error = store_error_of([&] { store->cache_calibration(key, "value"); });
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    EXPECT_NE(error.find("caching a calibration: canceling statement due to lock timeout"),
              std::string::npos)
        << error;

    PQclear(PQexec(holder.get(), "ROLLBACK"));
    // The lock timeout was the write's own: the store writes and records as before.
    store->cache_calibration(key, "value");
    EXPECT_EQ(store->cached_calibration(key), "value");
    EXPECT_TRUE(store->record(make_run("c1", "h1")).inserted);
}

}  // namespace
}  // namespace benchwatch::store
