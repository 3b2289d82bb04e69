#include "model/printable.hpp"

#include <cstdio>

#include "model/utf8.hpp"

namespace benchwatch::model {
namespace {

// "\u{1b}" or "\x{ff}": `prefix` ('u' or 'x') and the value in lowercase hexadecimal.
void append_escaped(std::string& out, char prefix, unsigned value) {
    char digits[8];
    std::snprintf(digits, sizeof digits, "%x", value);
    out += '\\';
    out += prefix;
    out += '{';
    out += digits;
    out += '}';
}

}  // namespace

std::string_view utf8_prefix(std::string_view text, std::size_t limit) {
    std::string_view kept = text.substr(0, limit);
    while (kept.size() < text.size() && !kept.empty() &&
           (static_cast<unsigned char>(text[kept.size()]) & 0xC0) == 0x80)
        kept.remove_suffix(1);
    return kept;
}

std::string printable_line(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    while (!text.empty()) {
        const std::size_t length = utf8_sequence_length(text);
        const auto lead = static_cast<unsigned char>(text[0]);
        if (length == 0) {
            append_escaped(out, 'x', lead);
            text.remove_prefix(1);
            continue;
        }
        const auto second = length == 2 ? static_cast<unsigned char>(text[1]) : 0;
        if (length == 1 && (lead < 0x20 || lead == 0x7f))
            append_escaped(out, 'u', lead);
        else if (lead == 0xC2 && second < 0xA0)
            append_escaped(out, 'u', second);
        else if (lead == '[' && out.ends_with("##"))
            append_escaped(out, 'u', lead);
        else if (bidi_control_length(text) != 0)
            append_escaped(out, 'u', utf8_code_point(text.substr(0, length)));
        else
            out += text.substr(0, length);
        text.remove_prefix(length);
    }
    return out;
}

}  // namespace benchwatch::model
