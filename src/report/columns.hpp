#pragma once

// Private to the report layer: terminal tables laid out by the width their text takes.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace benchwatch::report::detail {

// Columns a UTF-8 string takes in a terminal, counting one per code point.
std::size_t display_width(std::string_view text);

// How a column of text_columns() aligns its cells, and the fewest columns of the terminal it
// takes.
struct TextColumn {
    bool right_aligned = false;
    std::size_t min_width = 0;
};

// `rows` of cells laid out as a table of terminal text: columns two spaces apart, each as wide as
// its widest cell (in display_width) and at least its min_width; one line per row, without a
// newline or trailing spaces. `columns` describes the first columns; the others align left.
std::vector<std::string> text_columns(const std::vector<std::vector<std::string>>& rows,
                                      std::span<const TextColumn> columns = {});

}  // namespace benchwatch::report::detail
