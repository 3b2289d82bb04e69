#pragma once

#include <span>
#include <string_view>

namespace benchwatch::serve {

// One file of the dashboard's page, built from web/ and compiled into the binary.
struct Asset {
    std::string_view path;          // relative to the page's root: "index.html", "assets/app.js"
    std::string_view content_type;  // e.g. "text/javascript; charset=utf-8"
    std::string_view bytes;
};

// Every file of the page, sorted by path. Defined by the source cmake/embed_assets.cmake
// generates.
std::span<const Asset> embedded_assets();

}  // namespace benchwatch::serve
