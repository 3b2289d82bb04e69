#include "report/columns.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cmath>
#include <cstdint>

#include "model/category.hpp"
#include "model/environment_keys.hpp"
#include "report/report.hpp"

namespace benchwatch::report::detail {

std::size_t display_width(std::string_view text) {
    return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

std::vector<std::string> text_columns(const std::vector<std::vector<std::string>>& rows,
                                      std::span<const TextColumn> columns) {
    const auto column = [&](std::size_t i) {
        return i < columns.size() ? columns[i] : TextColumn{};
    };
    std::vector<std::size_t> widths;
    for (const auto& row : rows) {
        if (widths.size() < row.size()) widths.resize(row.size(), 0);
        for (std::size_t i = 0; i < row.size(); ++i)
            widths[i] = std::max({widths[i], column(i).min_width, display_width(row[i])});
    }
    std::vector<std::string> lines;
    lines.reserve(rows.size());
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            if (i > 0) line += "  ";
            const std::string padding(widths[i] - display_width(row[i]), ' ');
            line += column(i).right_aligned ? padding + row[i] : row[i] + padding;
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        lines.push_back(std::move(line));
    }
    return lines;
}

}  // namespace benchwatch::report::detail
