#include "report/escaping.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cmath>
#include <cstdint>

#include "model/category.hpp"
#include "model/environment_keys.hpp"
#include "model/utf8.hpp"
#include "report/report.hpp"

namespace benchwatch::report::detail {

std::string plain_text(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    while (!text.empty()) {
        const std::size_t length = model::utf8_sequence_length(text);
        const auto lead = static_cast<unsigned char>(text[0]);
        if (length == 0) {
            // A lone byte 0x80-0x9F is a C1 control to a terminal that is not in UTF-8 mode.
            out += "\ufffd";
            text.remove_prefix(1);
            continue;
        }
        const bool c0_or_delete = length == 1 && (lead < 0x20 || lead == 0x7f);
        const bool c1 = length == 2 && lead == 0xC2 && static_cast<unsigned char>(text[1]) < 0xA0;
        if (c0_or_delete || c1 || model::bidi_control_length(text) != 0)
            out += ' ';
        else
            out += text.substr(0, length);
        text.remove_prefix(length);
    }
    return out;
}

namespace {

// The length in bytes of the Unicode White_Space character that `text` starts with, else 0.
std::size_t white_space_length(std::string_view text) {
    const std::size_t length = model::utf8_sequence_length(text);
    if (length == 0) return 0;
    const char32_t code_point = model::utf8_code_point(text.substr(0, length));
    const bool white = (code_point >= 0x09 && code_point <= 0x0D) || code_point == 0x20 ||
                       code_point == 0x85 || code_point == 0xA0 || code_point == 0x1680 ||
                       (code_point >= 0x2000 && code_point <= 0x200A) || code_point == 0x2028 ||
                       code_point == 0x2029 || code_point == 0x202F || code_point == 0x205F ||
                       code_point == 0x3000;
    return white ? length : 0;
}

}  // namespace

std::string without_workflow_commands(std::string_view text) {
    constexpr std::string_view zero_width_space = "\u200b";
    std::string out;
    out.reserve(text.size());
    bool line_start = true;
    while (!text.empty()) {
        if (line_start) {
            while (const std::size_t length = white_space_length(text)) {
                if (text[0] == '\n') break;
                out += text.substr(0, length);
                text.remove_prefix(length);
            }
            line_start = false;
            if (text.starts_with("::")) {
                out += ':';
                out += zero_width_space;
                text.remove_prefix(1);
                continue;
            }
        }
        const char c = text[0];
        if (c == '[' && out.ends_with("##")) out += zero_width_space;
        out += c;
        text.remove_prefix(1);
        if (c == '\n') line_start = true;
    }
    return out;
}

std::string web_url(std::string_view url) {
    const auto starts_with_ignoring_case = [&](std::string_view prefix) {
        return url.size() >= prefix.size() &&
               std::equal(prefix.begin(), prefix.end(), url.begin(), [](char a, char b) {
                   return a == std::tolower(static_cast<unsigned char>(b));
               });
    };
    std::size_t host_start = 0;
    if (starts_with_ignoring_case("https://"))
        host_start = 8;
    else if (starts_with_ignoring_case("http://"))
        host_start = 7;
    else
        return "";
    const auto is_host_character = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.' || c == ':';
    };
    const auto host_end = std::find_if(url.begin() + static_cast<std::ptrdiff_t>(host_start),
                                       url.end(), [&](char c) { return !is_host_character(c); });
    const auto host =
        url.substr(host_start, static_cast<std::size_t>(host_end - url.begin()) - host_start);
    if (host.empty() || std::isalnum(static_cast<unsigned char>(host.front())) == 0) return "";
    if (host_end != url.end() && *host_end != '/' && *host_end != '?' && *host_end != '#')
        return "";
    // Characters Markdown, HTML or a mention could read are percent-encoded, so the URL is shown
    // and linked as a whole and nothing in it is read as markup.
    static constexpr std::string_view kKept = "-._~:/?#%=&+,;";
    std::string out;
    for (const char c : url) {
        const auto byte = static_cast<unsigned char>(c);
        if (std::isalnum(byte) != 0 || kKept.find(c) != std::string_view::npos)
            out += c;
        else
            out += fmt::format("%{:02X}", byte);
    }
    return out;
}

}  // namespace benchwatch::report::detail
