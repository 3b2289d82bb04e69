#include <fmt/format.h>

#include <string_view>

#include "store/postgres_store.hpp"
#include "store/sqlite_store.hpp"
#include "store/store.hpp"
#include "store/store_url.hpp"

namespace benchwatch::store {
namespace {

enum class Backend { Sqlite, Postgres };

// The backend for `url` and what to hand it (the path for SQLite, the whole URL for
// PostgreSQL). Throws StoreError for an empty URL or an unsupported scheme.
std::pair<Backend, std::string> backend_of(const std::string& url) {
    constexpr std::string_view sqlite_prefix = "sqlite:";
    if (url.starts_with(sqlite_prefix)) {
        std::string path = url.substr(sqlite_prefix.size());
        if (path.empty())
            throw StoreError(
                fmt::format("store {}: no path after \"sqlite:\"; use sqlite:PATH", url));
        return {Backend::Sqlite, path};
    }
    if (url.empty())
        throw StoreError(
            "store URL is empty; pass --store with a path such as "
            ".benchwatch/history.db");

    const std::string_view scheme = url_scheme(url);
    if (scheme.empty()) return {Backend::Sqlite, url};
    if (scheme == "postgres" || scheme == "postgresql") return {Backend::Postgres, url};
    throw StoreError(
        fmt::format("store {}: unsupported scheme \"{}\"; use a path, sqlite:PATH, or postgres://…",
                    without_credentials(url), scheme));
}

}  // namespace

std::unique_ptr<Store> open_store(const std::string& url, Access access) {
    const auto [backend, location] = backend_of(url);
    return backend == Backend::Sqlite ? open_sqlite_store(location, kDefaultBusyTimeout, access)
                                      : open_postgres_store(location, access);
}

int stored_schema_version(const std::string& url) {
    const auto [backend, location] = backend_of(url);
    return backend == Backend::Sqlite ? stored_sqlite_schema_version(location)
                                      : stored_postgres_schema_version(location);
}

}  // namespace benchwatch::store
