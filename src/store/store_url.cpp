#include "store/store_url.hpp"

#include <fmt/format.h>

namespace benchwatch::store {

std::string_view url_scheme(std::string_view url) {
    const std::size_t separator = url.find("://");
    if (separator == std::string_view::npos || separator == 0) return {};
    const std::string_view scheme = url.substr(0, separator);
    const auto is_letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    const auto is_scheme_character = [&](char c) {
        return is_letter(c) || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
    };
    for (const char c : scheme)
        if (!is_scheme_character(c)) return {};
    return is_letter(scheme[0]) ? scheme : std::string_view{};
}

namespace {

// `query` ("a=1&password=x&b=2", without the '?') without its password parameters.
std::string without_password_parameters(std::string_view query) {
    std::string kept;
    while (!query.empty()) {
        const std::size_t end = query.find('&');
        const std::string_view parameter = query.substr(0, end);
        if (!parameter.starts_with("password=") && !parameter.empty())
            kept.append(kept.empty() ? "" : "&").append(parameter);
        if (end == std::string_view::npos) break;
        query.remove_prefix(end + 1);
    }
    return kept;
}

}  // namespace

std::string without_credentials(std::string_view url) {
    if (url_scheme(url).empty()) return std::string(url);
    const std::size_t authority = url.find("://") + 3;
    const std::size_t authority_end = url.find_first_of("/?#", authority);
    const std::size_t at = url.substr(0, authority_end).rfind('@');
    std::string shown = at == std::string_view::npos || at < authority
                            ? std::string(url)
                            : fmt::format("{}{}", url.substr(0, authority), url.substr(at + 1));

    const std::size_t question = shown.find('?');
    if (question == std::string::npos) return shown;
    const std::size_t fragment = shown.find('#', question);
    const std::string query = without_password_parameters(
        std::string_view(shown).substr(question + 1, fragment - question - 1));
    const std::string rest = fragment == std::string::npos ? "" : shown.substr(fragment);
    return shown.substr(0, query.empty() ? question : question + 1) + query + rest;
}

}  // namespace benchwatch::store
