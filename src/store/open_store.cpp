#include <fmt/format.h>

#include <string_view>

#include "store/sqlite_store.hpp"
#include "store/store.hpp"

namespace benchwatch::store {
namespace {

// The scheme of a "scheme://…" URL ("postgres"), or empty when `url` is not one (a path).
std::string_view url_scheme(std::string_view url) {
    const std::size_t separator = url.find("://");
    if (separator == std::string_view::npos || separator == 0) return {};
    const std::string_view scheme = url.substr(0, separator);
    const auto is_scheme_character = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '+' || c == '-' || c == '.';
    };
    const bool starts_with_letter =
        (scheme[0] >= 'a' && scheme[0] <= 'z') || (scheme[0] >= 'A' && scheme[0] <= 'Z');
    for (const char c : scheme)
        if (!is_scheme_character(c)) return {};
    return starts_with_letter ? scheme : std::string_view{};
}

// `url` without the "user:password@" part, so that error messages never show a password.
std::string without_credentials(std::string_view url) {
    const std::size_t authority = url.find("://") + 3;
    const std::size_t authority_end = url.find_first_of("/?#", authority);
    const std::size_t at = url.substr(0, authority_end).rfind('@');
    if (at == std::string_view::npos || at < authority) return std::string(url);
    return fmt::format("{}{}", url.substr(0, authority), url.substr(at + 1));
}

}  // namespace

std::unique_ptr<Store> open_store(const std::string& url) {
    constexpr std::string_view sqlite_prefix = "sqlite:";
    if (url.starts_with(sqlite_prefix)) {
        const std::string path = url.substr(sqlite_prefix.size());
        if (path.empty())
            throw StoreError(
                fmt::format("store {}: no path after \"sqlite:\"; use sqlite:PATH", url));
        return open_sqlite_store(path);
    }
    if (url.empty())
        throw StoreError(
            "store URL is empty; pass --store with a path such as "
            ".benchwatch/history.db");

    const std::string_view scheme = url_scheme(url);
    if (scheme.empty()) return open_sqlite_store(url);
    if (scheme == "postgres" || scheme == "postgresql")
        throw StoreError(fmt::format(
            "store {}: PostgreSQL support is not built in this version of benchwatch; use a "
            "SQLite path such as .benchwatch/history.db",
            without_credentials(url)));
    throw StoreError(
        fmt::format("store {}: unsupported scheme \"{}\"; use a path, sqlite:PATH, or postgres://… "
                    "(PostgreSQL is not built in this version)",
                    without_credentials(url), scheme));
}

}  // namespace benchwatch::store
