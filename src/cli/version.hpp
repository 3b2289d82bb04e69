#pragma once

#include <string_view>

namespace benchwatch::cli {

// What `benchwatch --version` prints: "benchwatch 0.1.0 (commit 1a3febe)", the commit of the
// source it was built from, or "benchwatch 0.1.0 (unknown commit)" when built outside git.
std::string_view version_line();

}  // namespace benchwatch::cli
