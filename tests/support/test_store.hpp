#pragma once

// The store a test writes: a SQLite file normally, a fresh schema on the test PostgreSQL server
// when BENCHWATCH_TEST_STORE=postgres (set by ctest for the *-postgres labels), so that the same
// end-to-end tests run on both backends. Header-only, as postgres.hpp: BENCHWATCH_POSTGRES_URL_FILE
// is defined per test executable.

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "support/postgres.hpp"

namespace benchwatch::testing {

// Whether this run of the tests keeps its stores on PostgreSQL (BENCHWATCH_TEST_STORE=postgres).
inline bool stores_on_postgres() {
    const char* backend = std::getenv("BENCHWATCH_TEST_STORE");
    return backend != nullptr && std::string_view(backend) == "postgres";
}

// A new, empty store: the SQLite file `directory`/`name`.db, or on PostgreSQL the URL of a new
// schema on the test server named after `name` (letters, digits and _ only), dropped when the
// process exits. Throws std::runtime_error when PostgreSQL is asked for and cannot be reached.
inline std::string test_store_url(const std::filesystem::path& directory,
                                  std::string_view name = "history") {
    if (!stores_on_postgres()) return (directory / (std::string(name) + ".db")).string();
    const std::optional<std::string> server = test_postgres_url();
    if (!server) throw std::runtime_error(kNoPostgresServer);
    // Static, so that every schema outlives the test that asked for it and is dropped at exit.
    static std::vector<std::unique_ptr<PostgresSchema>> schemas;
    const auto& schema =
        schemas.emplace_back(std::make_unique<PostgresSchema>(*server, std::string(name)));
    if (!schema->created_error().empty())
        throw std::runtime_error("creating schema " + schema->name() +
                                 " for a test store: " + schema->created_error());
    return schema->store_url();
}

}  // namespace benchwatch::testing
