#pragma once

#include <string>
#include <string_view>

#include "ingest/ingest.hpp"

namespace benchwatch::ingest {

// The one-line message parse() throws for `content`, a file called "results.json" read as
// `format`; "no error" when it reads.
inline std::string parse_error(const std::string& content, std::string_view format = "auto") {
    try {
        parse(content, "results.json", format);
    } catch (const InputError& error) {
        return error.what();
    }
    return "no error";
}

}  // namespace benchwatch::ingest
