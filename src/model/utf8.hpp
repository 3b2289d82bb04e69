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

// The code point of `sequence`, one well-formed UTF-8 sequence of 1 to 4 bytes (as
// utf8_sequence_length measures it). Example: utf8_code_point("é") == 0xE9.
constexpr char32_t utf8_code_point(std::string_view sequence) {
    const auto byte = [&](std::size_t index) {
        return static_cast<char32_t>(static_cast<unsigned char>(sequence[index]));
    };
    const auto continuation = [&](std::size_t index) { return byte(index) & 0x3Fu; };
    switch (sequence.size()) {
        case 2:
            return ((byte(0) & 0x1Fu) << 6) | continuation(1);
        case 3:
            return ((byte(0) & 0x0Fu) << 12) | (continuation(1) << 6) | continuation(2);
        case 4:
            return ((byte(0) & 0x07u) << 18) | (continuation(1) << 12) | (continuation(2) << 6) |
                   continuation(3);
        default:
            return byte(0);
    }
}

// The length of the bidirectional formatting character that `text` starts with (U+061C, U+200E,
// U+200F, U+202A to U+202E, U+2066 to U+2069), else 0. Such a character reorders the text shown
// around it, so that a name from outside could display as another.
// Example: bidi_control_length("\u202Eab") == 3, bidi_control_length("ab") == 0.
constexpr std::size_t bidi_control_length(std::string_view text) {
    const auto byte = [&](std::size_t index) { return static_cast<unsigned char>(text[index]); };
    if (text.size() >= 2 && byte(0) == 0xD8 && byte(1) == 0x9C) return 2;
    if (text.size() < 3 || byte(0) != 0xE2) return 0;
    if (byte(1) == 0x80 &&
        (byte(2) == 0x8E || byte(2) == 0x8F || (byte(2) >= 0xAA && byte(2) <= 0xAE)))
        return 3;
    if (byte(1) == 0x81 && byte(2) >= 0xA6 && byte(2) <= 0xA9) return 3;
    return 0;
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
