#include "support/output_checks.hpp"

#include <array>
#include <cstdint>

namespace benchwatch::testing {
namespace {

// "line 3: a mention: | @octocat | …", the line cut to 200 bytes.
std::string problem(std::string_view what, std::size_t line_number, std::string_view line) {
    constexpr std::size_t shown = 200;
    return "line " + std::to_string(line_number) + ": " + std::string(what) + ": " +
           std::string(line.substr(0, shown));
}

// Calls `check(line_number, line)` for each line of `text` (split at '\n') until it returns a
// problem.
template <typename Check>
std::optional<std::string> first_line_problem(std::string_view text, Check check) {
    std::size_t line_number = 1;
    while (true) {
        const auto end = text.find('\n');
        const auto line = text.substr(0, end);
        if (auto found = check(line_number, line)) return found;
        if (end == std::string_view::npos) return std::nullopt;
        text.remove_prefix(end + 1);
        ++line_number;
    }
}

bool is_ascii_punctuation(char c) {
    const auto byte = static_cast<unsigned char>(c);
    return (byte >= 0x21 && byte <= 0x2F) || (byte >= 0x3A && byte <= 0x40) ||
           (byte >= 0x5B && byte <= 0x60) || (byte >= 0x7B && byte <= 0x7E);
}

// U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069: they reorder the text around them.
bool is_bidi_control(std::string_view text) {
    for (const std::string_view control :
         {"\u061c", "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066",
          "\u2067", "\u2068", "\u2069"})
        if (text.starts_with(control)) return true;
    return false;
}

bool starts_mention(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

// The Markdown markup problem of one line outside the report's own tags, which are removed first.
std::optional<std::string> markdown_line_problem(std::size_t number, std::string_view line,
                                                 std::size_t& table_columns) {
    std::string text(line);
    for (const std::string_view tag :
         {std::string_view("<details><summary>All benchmarks</summary>"),
          std::string_view("</details>")})
        if (text == tag) text.clear();
    if (text.starts_with('#') && text != "## Benchmark results" && text != "### Confirmation" &&
        text != "### Side by side")
        return problem("a heading", number, line);
    if (text.starts_with('>')) return problem("a block quote", number, line);
    if (!text.empty() && text.find_first_not_of('=') == std::string::npos)
        return problem("a heading underline", number, line);
    if (!text.empty() && !text.starts_with('|') &&
        text.find_first_not_of("- ") == std::string::npos)
        return problem("a heading underline or rule", number, line);
    // CommonMark: a backslash escapes the ASCII punctuation character after it, and only that.
    std::size_t separators = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const auto byte = static_cast<unsigned char>(c);
        if (c == '\\' && i + 1 < text.size() && is_ascii_punctuation(text[i + 1])) {
            ++i;
            continue;
        }
        if (byte < 0x20 || byte == 0x7F) return problem("a control character", number, line);
        if (byte == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0xA0)
            return problem("a C1 control character", number, line);
        if (is_bidi_control(text.substr(i)))
            return problem("a bidirectional formatting character", number, line);
        if (c == '<') return problem("HTML", number, line);
        if (c == '[') return problem("a link or image", number, line);
        if (c == ']' && i + 1 < text.size() && text[i + 1] == '(')
            return problem("a link target", number, line);
        if (c == '@' && i + 1 < text.size() && starts_mention(text[i + 1]))
            return problem("a mention", number, line);
        if (c == '|') ++separators;
    }
    if (!text.starts_with('|')) {
        table_columns = 0;
        return std::nullopt;
    }
    if (table_columns == 0) table_columns = separators;
    if (separators != table_columns) return problem("a broken table row", number, line);
    return std::nullopt;
}

// The code point that the UTF-8 `text` starts with and its length in bytes; {0, 0} when it does
// not start with a well-formed sequence of at most 3 bytes (no white space is longer).
std::pair<std::uint32_t, std::size_t> leading_code_point(std::string_view text) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    if (text.empty()) return {0, 0};
    if (byte(0) < 0x80) return {byte(0), 1};
    if (byte(0) >= 0xC2 && byte(0) <= 0xDF && text.size() >= 2)
        return {((byte(0) & 0x1Fu) << 6) | (byte(1) & 0x3Fu), 2};
    if (byte(0) >= 0xE0 && byte(0) <= 0xEF && text.size() >= 3)
        return {((byte(0) & 0x0Fu) << 12) | ((byte(1) & 0x3Fu) << 6) | (byte(2) & 0x3Fu), 3};
    return {0, 0};
}

// Unicode's White_Space, which .NET's String.TrimStart() removes before the runner looks for "::".
bool is_white_space(std::uint32_t code_point) {
    constexpr std::array<std::uint32_t, 10> singles = {0x20,   0x85,   0xA0,   0x1680, 0x2028,
                                                       0x2029, 0x202F, 0x205F, 0x3000, 0x0B};
    if ((code_point >= 0x09 && code_point <= 0x0D) ||
        (code_point >= 0x2000 && code_point <= 0x200A))
        return true;
    for (const auto single : singles)
        if (code_point == single) return true;
    return false;
}

}  // namespace

std::optional<std::string> markdown_problem(std::string_view markdown) {
    std::size_t table_columns = 0;
    return first_line_problem(markdown, [&](std::size_t number, std::string_view line) {
        return markdown_line_problem(number, line, table_columns);
    });
}

std::optional<std::string> terminal_problem(std::string_view text, bool own_colours) {
    return first_line_problem(
        text, [&](std::size_t number, std::string_view line) -> std::optional<std::string> {
            for (std::size_t i = 0; i < line.size(); ++i) {
                const auto byte = static_cast<unsigned char>(line[i]);
                if (own_colours && byte == 0x1B) {
                    bool own = false;
                    for (const std::string_view sequence :
                         {"\x1b[0m", "\x1b[1m", "\x1b[31m", "\x1b[32m", "\x1b[33m"}) {
                        if (line.substr(i).starts_with(sequence)) {
                            i += sequence.size() - 1;
                            own = true;
                            break;
                        }
                    }
                    if (own) continue;
                }
                if (byte < 0x20 || byte == 0x7F)
                    return problem("a control character", number, line);
                if (is_bidi_control(line.substr(i)))
                    return problem("a bidirectional formatting character", number, line);
                if (byte == 0xC2 && i + 1 < line.size() &&
                    static_cast<unsigned char>(line[i + 1]) < 0xA0)
                    return problem("a C1 control character", number, line);
            }
            return std::nullopt;
        });
}

std::optional<std::string> workflow_command_problem(std::string_view text) {
    return first_line_problem(
        text, [](std::size_t number, std::string_view line) -> std::optional<std::string> {
            if (line.find("##[") != std::string_view::npos)
                return problem("an old-style workflow command", number, line);
            std::string_view rest = line;
            while (true) {
                const auto [code_point, length] = leading_code_point(rest);
                if (length == 0 || !is_white_space(code_point)) break;
                rest.remove_prefix(length);
            }
            if (rest.starts_with("::")) return problem("a workflow command", number, line);
            return std::nullopt;
        });
}

}  // namespace benchwatch::testing
