#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "store/store.hpp"

namespace benchwatch::store {

// How long a write waits for another process's transaction before failing with "database is
// locked".
inline constexpr std::chrono::milliseconds kDefaultBusyTimeout{30'000};

// Opens the SQLite store at `path` (creating missing parent directories and the file), in WAL
// mode, and migrates it to current_schema_version() under a write lock, so that any number of
// processes may open a new store at once. Throws StoreError naming `path` when the directory is
// not writable, the file is not a SQLite database, or its schema is newer than this build's.
// Results come back from Store::results() sorted by benchmark name, then metric (bytewise).
// With Access::ReadOnly (and ReadCache when the file or its folder may not be written) the file
// must exist and is opened read-only (SQLITE_OPEN_READONLY), creating nothing but SQLite's
// shared-memory file beside it; in a folder where that cannot be made either, a store without a
// pending write-ahead log is read as immutable.
std::unique_ptr<Store> open_sqlite_store(
    const std::string& path, std::chrono::milliseconds busy_timeout = kDefaultBusyTimeout,
    Access access = Access::ReadWrite);

// The schema version of the SQLite store at `path` (PRAGMA user_version), opening it read-only:
// 0 when the file does not exist. Throws StoreError naming `path` when it is not a database.
int stored_sqlite_schema_version(const std::string& path);

}  // namespace benchwatch::store
