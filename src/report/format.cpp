#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

#include "model/utf8.hpp"
#include "report/escaping.hpp"
#include "report/report.hpp"

namespace benchwatch::report {

std::string_view to_string(Format format) {
    switch (format) {
        case Format::Text:
            return "text";
        case Format::Markdown:
            return "markdown";
        case Format::Json:
            return "json";
    }
    return "";
}

std::optional<Format> parse_format(std::string_view word) {
    for (const auto format : {Format::Text, Format::Markdown, Format::Json})
        if (word == to_string(format)) return format;
    return std::nullopt;
}

namespace {

// The decimal exponent of a non-negative finite value once rounded to 3 significant digits
// (999.7 → 3, 999.4 → 2), read from its correctly rounded scientific notation (ties to even).
int rounded_exponent(double magnitude) {
    if (magnitude == 0) return 0;
    // Formatted on the stack by std::to_chars: a report of 10,000 benchmarks asks this some
    // 50,000 times, and fmt's exact formatting at a precision took a tenth of such a compare.
    std::array<char, 40> text{};
    const auto end = std::to_chars(text.data(), text.data() + text.size(), magnitude,
                                   std::chars_format::scientific, 2)
                         .ptr;
    const auto* exponent = std::find(text.data(), end, 'e') + 1;
    if (exponent < end && *exponent == '+') ++exponent;
    int value = 0;
    std::from_chars(exponent, end, value);
    return value;
}

// A non-negative finite value with 3 significant digits, given its rounded_exponent(); values of
// 1000 and more keep every integer digit ("1234") rather than switching to scientific notation.
std::string three_significant_digits(double magnitude, int exponent) {
    if (magnitude == 0) return "0";
    const int decimals = std::max(0, 2 - exponent);
    // Up to 309 integer digits and the decimals.
    std::array<char, 340> text{};
    const auto end = std::to_chars(text.data(), text.data() + text.size(), magnitude,
                                   std::chars_format::fixed, decimals)
                         .ptr;
    return std::string(text.data(), end);
}

struct TimeUnit {
    double nanoseconds;
    const char* symbol;
};

// µ is U+00B5 MICRO SIGN, as in the seeds.
constexpr std::array<TimeUnit, 4> kTimeUnits{{
    {1, "ns"},
    {1e3, "\u00b5s"},
    {1e6, "ms"},
    {1e9, "s"},
}};

}  // namespace

std::string format_time(double nanoseconds) {
    if (!std::isfinite(nanoseconds)) return fmt::format("{} ns", nanoseconds);
    std::string text = std::signbit(nanoseconds) && nanoseconds != 0 ? "-" : "";
    const double magnitude = std::abs(nanoseconds);
    for (std::size_t i = 0; i < kTimeUnits.size(); ++i) {
        const double scaled = magnitude / kTimeUnits[i].nanoseconds;
        const int exponent = rounded_exponent(scaled);
        if (i + 1 == kTimeUnits.size() || exponent < 3) {
            text += three_significant_digits(scaled, exponent);
            text += ' ';
            text += kTimeUnits[i].symbol;
            return text;
        }
    }
    return "";  // unreachable: the last unit always returns
}

std::string format_value(double value, std::string_view unit) {
    if (unit == "ns") return format_time(value);
    // Decimal SI prefixes joined to the unit ("1.25 GB/s", "1.54 kB"), chosen after rounding.
    static constexpr std::array<const char*, 6> kPrefixes{"", "k", "M", "G", "T", "P"};
    const auto with_unit = [&](const std::string& number, const char* prefix) {
        const std::string symbol = prefix + std::string(unit);
        return symbol.empty() ? number : fmt::format("{} {}", number, symbol);
    };
    if (!std::isfinite(value)) return with_unit(fmt::format("{}", value), "");
    const std::string sign = std::signbit(value) && value != 0 ? "-" : "";
    double scaled = std::abs(value);
    std::size_t prefix = 0;
    int exponent = rounded_exponent(scaled);
    while (prefix + 1 < kPrefixes.size() && exponent >= 3) {
        scaled /= 1000;
        ++prefix;
        exponent = rounded_exponent(scaled);
    }
    return with_unit(sign + three_significant_digits(scaled, exponent), kPrefixes[prefix]);
}

std::string terminal_text(std::string_view text) {
    return detail::without_workflow_commands(detail::plain_text(text));
}

std::string escape_markdown(std::string_view name) {
    auto is_word = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
               (static_cast<unsigned char>(c) & 0x80) != 0;
    };
    auto is_mention_start = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_';
    };
    std::string out;
    out.reserve(name.size());
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        const char before = i > 0 ? name[i - 1] : ' ';
        const char after = i + 1 < name.size() ? name[i + 1] : ' ';
        switch (c) {
            case '|':
            case '`':
            case '\\':
            case '*':
            case '[':
            case ']':
            case '~':
            case '$':
                out += '\\';
                out += c;
                break;
            case '_':
                // Inside a word ("gpu_to_cpu") GitHub never emphasises; only escape at its edges.
                if (!is_word(before) || !is_word(after)) out += '\\';
                out += c;
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '&':
                out += "&amp;";
                break;
            case '@':
                // A zero-width space after '@' keeps the text but breaks GitHub's mention.
                out += '@';
                if (is_mention_start(after)) out += "\u200b";
                break;
            default:
                const auto byte = static_cast<unsigned char>(c);
                const auto next = static_cast<unsigned char>(after);
                if (byte == 0xC2 && next >= 0x80 && next <= 0x9F) {
                    out += ' ';  // a C1 control character, U+0080 to U+009F
                    ++i;
                } else if (const auto bidi = model::bidi_control_length(name.substr(i))) {
                    out += ' ';
                    i += bidi - 1;
                } else {
                    out += byte < 0x20 || byte == 0x7f ? ' ' : c;
                }
        }
    }
    return out;
}

std::string sparkline(std::span<const double> values) {
    static constexpr std::array<const char*, 8> kBlocks{"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    double low = INFINITY;
    double high = -INFINITY;
    for (const double value : values)
        if (std::isfinite(value)) {
            low = std::min(low, value);
            high = std::max(high, value);
        }
    std::string line;
    for (const double value : values) {
        if (!std::isfinite(value)) {
            line += ' ';
        } else if (high == low) {
            line += kBlocks[3];
        } else {
            const auto level = std::lround((value - low) / (high - low) * 7);
            line += kBlocks[static_cast<std::size_t>(level)];
        }
    }
    return line;
}

}  // namespace benchwatch::report
