#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/run.hpp"
#include "store/store.hpp"
#include "store/store_url.hpp"
#include "../support/postgres.hpp"

namespace benchwatch::store::testing {

// A fresh temporary directory per test, removed afterwards.
template <class Base>
class WithTemporaryDirectory : public Base {
  protected:
    void SetUp() override {
        std::string pattern = (std::filesystem::temp_directory_path() / "bw-store-XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        directory_ = pattern;
    }
    void TearDown() override { std::filesystem::remove_all(directory_); }

    std::string path(const std::string& name) const { return (directory_ / name).string(); }

    std::filesystem::path directory_;
};

// A test of the SQLite store only, with a temporary directory.
using StoreTest = WithTemporaryDirectory<::testing::Test>;

using benchwatch::testing::postgres_query_text;
using benchwatch::testing::postgres_required;
using benchwatch::testing::test_postgres_url;

enum class Backend { Sqlite, Postgres };

// "Sqlite" or "Postgres", the suffix of each parameterised test's name.
inline std::string backend_name(const ::testing::TestParamInfo<Backend>& info) {
    return info.param == Backend::Sqlite ? "Sqlite" : "Postgres";
}

// A test run once per backend, each time on a fresh, empty store: a file in a temporary directory
// for SQLite, a new schema (the URL's search_path) in the test server's database for PostgreSQL,
// dropped afterwards. A new schema takes ~3 ms where a new database takes ~100 ms.
class BackendTest : public WithTemporaryDirectory<::testing::TestWithParam<Backend>> {
  protected:
    void SetUp() override {
        WithTemporaryDirectory::SetUp();
        if (GetParam() == Backend::Sqlite) {
            store_url_ = path("history.db");
            return;
        }
        const std::optional<std::string> url = test_postgres_url();
        if (!url) {
            if (postgres_required()) FAIL() << benchwatch::testing::kNoPostgresServer;
            GTEST_SKIP() << benchwatch::testing::kNoPostgresServer;
        }
        server_url_ = *url;
        store_url_ = fresh_store_url("main");
    }
    void TearDown() override {
        schemas_.clear();
        WithTemporaryDirectory::TearDown();
    }

    // The URL of another new, empty store named `name` within this test.
    std::string fresh_store_url(const std::string& name) {
        if (GetParam() == Backend::Sqlite) return path(name + "/.benchwatch/history.db");
        const auto& schema =
            schemas_.emplace_back(std::make_unique<benchwatch::testing::PostgresSchema>(server_url_, name));
        EXPECT_EQ(schema->created_error(), "") << "creating schema " << schema->name();
        return schema->store_url();
    }

    // `url` with its search_path set to `schema`.
    static std::string with_search_path(const std::string& url, const std::string& schema) {
        return benchwatch::testing::with_search_path(url, schema);
    }

    // The store's URL as messages show it, without the user.
    std::string shown_url() const { return without_credentials(store_url_); }

    // A new connection to the test's store.
    std::unique_ptr<Store> open() const { return open_store(store_url_); }

    // The first column of the first row of `sql` on the test's store, as text.
    std::string query_text(const std::string& sql) const;

    // Runs `sql` on the test's store, failing the test when it fails.
    void execute_sql(const std::string& sql) const;

    std::string store_url_;
    std::string server_url_;  // the PostgreSQL server's URL, without search path
    std::vector<std::unique_ptr<benchwatch::testing::PostgresSchema>> schemas_;
};

// Runs every TEST_P of `suite` on SQLite and on PostgreSQL.
#define BENCHWATCH_ON_EVERY_BACKEND(suite)                                                       \
    INSTANTIATE_TEST_SUITE_P(Backends, suite,                                                    \
                             ::testing::Values(::benchwatch::store::testing::Backend::Sqlite,    \
                                               ::benchwatch::store::testing::Backend::Postgres), \
                             ::benchwatch::store::testing::backend_name)

// A time result of `benchmark`, smaller is better, with only a value.
inline model::Result time_result(std::string benchmark, double value) {
    model::Result result;
    result.benchmark = std::move(benchmark);
    result.value = value;
    return result;
}

// A run of project "cuda" on machine "ci-1" with two results; `commit` and `content_hash`
// vary per test.
inline model::Run make_run(const std::string& commit, const std::string& content_hash) {
    model::Run run;
    run.project = "cuda";
    run.machine = "ci-1";
    run.commit = commit;
    run.branch = "master";
    run.recorded_at_ms = 1'700'000'000'000;
    run.format = "benchmarktools";
    run.content_hash = content_hash;
    run.results = {time_result("array/copy", 1500.0), time_result("latency/ttfp", 2.5e9)};
    return run;
}

// Runs one SQL text on the SQLite file at `path` with the plain C API, as a user would by hand.
inline void execute_sql(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    const int code = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
    const std::string message = error ? error : "";
    sqlite3_free(error);
    sqlite3_close(db);
    ASSERT_EQ(code, SQLITE_OK) << message;
}

// The first column of the first row of `sql` on the SQLite file at `path`, as text ("" when there
// is no row).
inline std::string query_text(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    sqlite3_stmt* statement = nullptr;
    std::string text;
    if (sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK) {
        const int code = sqlite3_step(statement);
        if (code == SQLITE_ROW)
            text = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
        else if (code != SQLITE_DONE)
            text = sqlite3_errmsg(db);
    } else {
        text = sqlite3_errmsg(db);
    }
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return text;
}

inline std::string BackendTest::query_text(const std::string& sql) const {
    return GetParam() == Backend::Sqlite ? testing::query_text(store_url_, sql)
                                         : postgres_query_text(store_url_, sql);
}

inline void BackendTest::execute_sql(const std::string& sql) const {
    if (GetParam() == Backend::Sqlite) return testing::execute_sql(store_url_, sql);
    ASSERT_EQ(postgres_query_text(store_url_, sql), "");
}

}  // namespace benchwatch::store::testing
