#pragma once

#include <cstddef>
#include <string_view>

namespace benchwatch::model {

// The length of the well-formed UTF-8 sequence (RFC 3629) that `text` starts with; 0 when it
// starts with none: a stray continuation byte, an overlong form, a surrogate, a code point past
// U+10FFFF, or a sequence cut short. Requires a non-empty `text`.
// Example: utf8_sequence_length("é…") == 2, utf8_sequence_length("\xC0\x80") == 0.
constexpr std::size_t utf8_sequence_length(std::string_view text) {
    const auto byte = [&](std::size_t index) { return static_cast<unsigned char>(text[index]); };
    const unsigned char lead = byte(0);
    if (lead < 0x80) return 1;
    std::size_t length = 0;
    unsigned char second_low = 0x80;
    unsigned char second_high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) second_low = 0xA0;
        if (lead == 0xED) second_high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) second_low = 0x90;
        if (lead == 0xF4) second_high = 0x8F;
    } else {
        return 0;
    }
    if (text.size() < length || byte(1) < second_low || byte(1) > second_high) return 0;
    for (std::size_t index = 2; index < length; ++index)
        if (byte(index) < 0x80 || byte(index) > 0xBF) return 0;
    return length;
}

// The offset of the first byte of `text` that does not start a well-formed UTF-8 sequence;
// text.size() when all of it is UTF-8. Example: first_invalid_utf8("ab\xFF") == 2.
constexpr std::size_t first_invalid_utf8(std::string_view text) {
    std::size_t offset = 0;
    while (offset < text.size()) {
        const std::size_t length = utf8_sequence_length(text.substr(offset));
        if (length == 0) return offset;
        offset += length;
    }
    return text.size();
}

}  // namespace benchwatch::model
