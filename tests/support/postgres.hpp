#pragma once

// The test PostgreSQL server that ctest starts (tests/support/postgres-cluster) for the layers in
// BENCHWATCH_POSTGRES_LAYERS: its URL, plain SQL on it, and fresh schemas as separate stores.
// Header-only: BENCHWATCH_POSTGRES_URL_FILE is defined per test executable.

#include <fmt/format.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

namespace benchwatch::testing {

// The URL of the test PostgreSQL server: BENCHWATCH_TEST_POSTGRES_URL, else the file that
// tests/support/postgres-cluster wrote for ctest; nullopt when neither is there.
inline std::optional<std::string> test_postgres_url() {
    if (const char* url = std::getenv("BENCHWATCH_TEST_POSTGRES_URL"); url && *url) return url;
    std::ifstream file(BENCHWATCH_POSTGRES_URL_FILE);
    std::string url;
    if (!std::getline(file, url) || url.empty()) return std::nullopt;
    return url;
}

// Whether a missing server fails the test instead of skipping it (scripts/test sets it).
inline bool postgres_required() {
    const char* required = std::getenv("BENCHWATCH_REQUIRE_POSTGRES");
    return required && std::string(required) == "1";
}

// Why a PostgreSQL test cannot run, for GTEST_SKIP() or FAIL().
inline constexpr const char* kNoPostgresServer =
    "no PostgreSQL server for the tests: run them through ctest (which starts "
    "tests/support/postgres-cluster) or set BENCHWATCH_TEST_POSTGRES_URL";

// Runs `sql` over a new libpq connection to `url`; returns the first column of the first row as
// text ("" when there is no row), or the error message when it fails.
inline std::string postgres_query_text(const std::string& url, const std::string& sql) {
    std::unique_ptr<PGconn, decltype(&PQfinish)> connection(PQconnectdb(url.c_str()), &PQfinish);
    if (PQstatus(connection.get()) != CONNECTION_OK) return PQerrorMessage(connection.get());
    PQsetNoticeProcessor(
        connection.get(), [](void*, const char*) {}, nullptr);
    std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(connection.get(), sql.c_str()),
                                                         &PQclear);
    const ExecStatusType status = PQresultStatus(result.get());
    if (status == PGRES_COMMAND_OK) return "";
    if (status != PGRES_TUPLES_OK) return PQerrorMessage(connection.get());
    return PQntuples(result.get()) == 0 ? "" : PQgetvalue(result.get(), 0, 0);
}

// `url` with its search_path set to `schema`.
inline std::string with_search_path(const std::string& url, const std::string& schema) {
    return fmt::format("{}{}options=-csearch_path%3D{}", url,
                       url.find('?') == std::string::npos ? "?" : "&", schema);
}

// A new, empty schema on the server at `server_url`, named after the process, a counter and
// `name`, dropped with everything in it when the object goes away: a separate store whose URL
// is store_url().
class PostgresSchema {
  public:
    PostgresSchema(std::string server_url, const std::string& name)
        : server_url_(std::move(server_url)) {
        static int counter = 0;
        name_ = fmt::format("test_{}_{}_{}", getpid(), ++counter, name);
        created_error_ = postgres_query_text(server_url_, fmt::format("CREATE SCHEMA {}", name_));
    }
    PostgresSchema(const PostgresSchema&) = delete;
    PostgresSchema& operator=(const PostgresSchema&) = delete;
    ~PostgresSchema() {
        postgres_query_text(server_url_, fmt::format("DROP SCHEMA IF EXISTS {} CASCADE", name_));
    }

    // "" when the schema was created, else the server's message.
    const std::string& created_error() const { return created_error_; }
    const std::string& name() const { return name_; }
    std::string store_url() const { return with_search_path(server_url_, name_); }

  private:
    std::string server_url_;
    std::string name_;
    std::string created_error_;
};

}  // namespace benchwatch::testing
