#pragma once

#include <string>
#include <string_view>

namespace benchwatch::store {

// The scheme of a "scheme://…" URL ("postgres"), or empty when `url` is not one (a path).
std::string_view url_scheme(std::string_view url);

// `url` without its "user:password@" part and without a "password=" query parameter, so that
// error messages and logs never show a password. A path comes back unchanged.
std::string without_credentials(std::string_view url);

}  // namespace benchwatch::store
