#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <utility>

#include "model/run.hpp"

namespace benchwatch::store::testing {

// A fresh temporary directory per test, removed afterwards.
class StoreTest : public ::testing::Test {
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

}  // namespace benchwatch::store::testing
