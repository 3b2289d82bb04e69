#pragma once

#include <memory>
#include <string>

#include "store/store.hpp"

namespace benchwatch::store {

// Opens the PostgreSQL store at `url`, a libpq connection URI ("postgres://…" or
// "postgresql://…") handed to libpq unchanged, so that PGHOST, PGUSER, PGPASSWORD… and ~/.pgpass
// apply as they do for psql; the tables go in the first schema of the search path. Migrates the
// store to current_schema_version() in one transaction under an advisory lock, so that any number
// of processes may open a new store at once. Throws StoreError naming the URL without its
// password when the server is unreachable, authentication fails, the database is missing, the
// user may not create the tables, or the schema is newer than this build's. With an access other
// than Access::ReadWrite, a search path without benchwatch tables is a StoreError instead of
// being given them.
std::unique_ptr<Store> open_postgres_store(const std::string& url,
                                           Access access = Access::ReadWrite);

// The schema version of the PostgreSQL store at `url` as it is (0 when it has no benchwatch
// tables), changing nothing. Throws StoreError as open_postgres_store() does.
int stored_postgres_schema_version(const std::string& url);

}  // namespace benchwatch::store
