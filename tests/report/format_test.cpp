// What could break: a number rounded across a unit boundary, a lost minus sign on a change that
// rounds to zero, or a benchmark name that breaks the table, injects HTML or mentions someone.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "report/report.hpp"

namespace benchwatch::report {
namespace {

TEST(FormatTime, ThreeSignificantDigitsInNanoseconds) {
    EXPECT_EQ(format_time(30), "30.0 ns");
    EXPECT_EQ(format_time(1.5), "1.50 ns");
    EXPECT_EQ(format_time(12.345), "12.3 ns");
    EXPECT_EQ(format_time(100), "100 ns");
    EXPECT_EQ(format_time(233), "233 ns");
}

TEST(FormatTime, UnitChosenAfterRounding) {
    // 999.7 ns rounds to 3 digits as 1000 ns, so it moves up: 0.9997 µs → 1.00 µs
    EXPECT_EQ(format_time(999.7), "1.00 µs");
    // 999.4 ns rounds to 999 ns and stays
    EXPECT_EQ(format_time(999.4), "999 ns");
    // 999 950 ns is 999.95 µs → 1000 µs, so 0.99995 ms → 1.00 ms
    EXPECT_EQ(format_time(999'950), "1.00 ms");
    // 999 940 ns is 999.94 µs, which also rounds to 1000 µs at 3 digits → 1.00 ms
    EXPECT_EQ(format_time(999'940), "1.00 ms");
    // 999.4 µs → 999 µs
    EXPECT_EQ(format_time(999'400), "999 µs");
    // 999.7 ms → 1.00 s
    EXPECT_EQ(format_time(999.7e6), "1.00 s");
}

TEST(FormatTime, EveryUnitAsInTheSeeds) {
    EXPECT_EQ(format_time(1'000), "1.00 µs");
    EXPECT_EQ(format_time(1'720), "1.72 µs");
    EXPECT_EQ(format_time(207'000), "207 µs");
    EXPECT_EQ(format_time(8.94e6), "8.94 ms");
    EXPECT_EQ(format_time(3.549e9), "3.55 s");
    EXPECT_EQ(format_time(28.6e9), "28.6 s");
}

TEST(FormatTime, BelowOneNanosecond) {
    EXPECT_EQ(format_time(0.5), "0.500 ns");
    EXPECT_EQ(format_time(0.0123), "0.0123 ns");
    EXPECT_EQ(format_time(0), "0 ns");
}

TEST(FormatTime, HugeValuesStayInSecondsWithEveryIntegerDigit) {
    EXPECT_EQ(format_time(999.4e9), "999 s");
    // 999.7 s rounds to 1000 s: there is no larger unit, so whole seconds
    EXPECT_EQ(format_time(999.7e9), "1000 s");
    EXPECT_EQ(format_time(1.23456e12), "1235 s");  // 1234.56 s
    EXPECT_EQ(format_time(3.6e13), "36000 s");
}

TEST(FormatValue, OtherUnitsKeepTheirUnit) {
    EXPECT_EQ(format_value(1.25, "GB/s"), "1.25 GB/s");
    EXPECT_EQ(format_value(12, "allocs"), "12.0 allocs");
    EXPECT_EQ(format_value(0.5, ""), "0.500");
    EXPECT_EQ(format_value(999, "B"), "999 B");
}

TEST(FormatValue, ThousandsTakeAnSiPrefixChosenAfterRounding) {
    EXPECT_EQ(format_value(1536, "B"), "1.54 kB");             // 1.536 k
    EXPECT_EQ(format_value(999.7, "B"), "1.00 kB");            // 999.7 rounds to 1000
    EXPECT_EQ(format_value(123456.7, "ops/s"), "123 kops/s");  // 123.4567 k
    EXPECT_EQ(format_value(1.25e9, "B/s"), "1.25 GB/s");
    EXPECT_EQ(format_value(2500, ""), "2.50 k");
    // Past peta there is no larger prefix: every integer digit stays.
    EXPECT_EQ(format_value(1.5e18, "B"), "1500 PB");
}

// The exponent after rounding to 3 significant digits, as fmt's exact formatting at a precision
// writes it: the reference the faster formatting must equal.
int reference_exponent(double magnitude) {
    if (magnitude == 0) return 0;
    const auto scientific = fmt::format("{:.2e}", magnitude);
    return std::stoi(scientific.substr(scientific.find('e') + 1));
}

// format_value(value, "B") of a non-negative value written with fmt: its exponent and digits.
std::string reference_bytes(double value) {
    static const char* const prefixes[] = {"", "k", "M", "G", "T", "P"};
    std::size_t prefix = 0;
    while (prefix + 1 < std::size(prefixes) && reference_exponent(value) >= 3) {
        value /= 1000;
        ++prefix;
    }
    const auto digits =
        value == 0 ? std::string("0")
                   : fmt::format("{:.{}f}", value, std::max(0, 2 - reference_exponent(value)));
    return digits + " " + prefixes[prefix] + "B";
}

TEST(FormatValue, DigitsAreThoseOfExactRoundingWithTiesToEven) {
    // Ties at the third digit that either stay or carry into the next decade (9995 is exactly
    // representable and rounds to even, 1.00e4), values just either side of them, and values
    // over every decade from denormals to the largest double.
    std::vector<double> values = {0,      9995,   9985,   99950, 0.125,
                                  1.125,  2.375,  1.005,  999.5, 99.95,
                                  0.9995, 1e-320, 5e-324, 1e300, 1.7976931348623157e308};
    for (const double tie : {9995.0, 9985.0, 999.5, 0.125, 1.125}) {
        values.push_back(std::nextafter(tie, 0.0));
        values.push_back(std::nextafter(tie, 1e308));
    }
    std::mt19937_64 random(11);
    std::uniform_real_distribution<double> mantissa(1, 10);
    for (int exponent = -30; exponent <= 30; ++exponent)
        for (int i = 0; i < 200; ++i) values.push_back(mantissa(random) * std::pow(10.0, exponent));
    for (const double value : values)
        ASSERT_EQ(format_value(value, "B"), reference_bytes(value)) << value;
}

TEST(FormatValue, NanosecondsAreTimes) {
    EXPECT_EQ(format_value(999.7, "ns"), "1.00 µs");
}

TEST(FormatChange, SignAndOneDecimal) {
    EXPECT_EQ(format_change(0.0123), "+1.2%");
    // 7354 / 4862 − 1 = 0.51255… → +51.3%
    EXPECT_EQ(format_change(7354.0 / 4862.0 - 1), "+51.3%");
    EXPECT_EQ(format_change(-0.183), "−18.3%");
    EXPECT_EQ(format_change(1.5), "+150.0%");
}

TEST(FormatChange, RealMinusSign) {
    // U+2212 is E2 88 92 in UTF-8, never the ASCII hyphen.
    EXPECT_EQ(format_change(-0.5),
              "\xE2\x88\x92"
              "50.0%");
}

TEST(FormatChange, SignKeptWhenRoundingToZero) {
    EXPECT_EQ(format_change(-0.0001), "−0.0%");
    EXPECT_EQ(format_change(0.0001), "+0.0%");
    EXPECT_EQ(format_change(0), "+0.0%");
}

TEST(FormatChange, RoundsAtTheSecondDecimalOfThePercentage) {
    EXPECT_EQ(format_change(-0.00049), "−0.0%");  // −0.049%
    EXPECT_EQ(format_change(-0.00051), "−0.1%");  // −0.051%
    // −0.0005 × 100 is just above 0.05 in binary (0.0005 is stored as 5.000000000000000104e-4)
    EXPECT_EQ(format_change(-0.0005), "−0.1%");
    EXPECT_EQ(format_change(0.99949), "+99.9%");   // 99.949%
    EXPECT_EQ(format_change(0.99951), "+100.0%");  // 99.951%
}

TEST(EscapeMarkdown, PipeCannotSplitTheCell) {
    EXPECT_EQ(escape_markdown("a|b"), "a\\|b");
}

TEST(EscapeMarkdown, HtmlIsShownAsText) {
    EXPECT_EQ(escape_markdown("<img src=x onerror=alert(1)>"),
              "&lt;img src=x onerror=alert(1)&gt;");
    EXPECT_EQ(escape_markdown("a&b"), "a&amp;b");
}

TEST(EscapeMarkdown, MentionsAreBrokenByAZeroWidthSpace) {
    EXPECT_EQ(escape_markdown("@someone"), "@\u200bsomeone");
    EXPECT_EQ(escape_markdown("ping @org/team"), "ping @\u200borg/team");
    // An '@' that cannot start a mention is left alone.
    EXPECT_EQ(escape_markdown("a @ b"), "a @ b");
}

TEST(EscapeMarkdown, BackticksAndOtherInlineMarkup) {
    EXPECT_EQ(escape_markdown("`code`"), "\\`code\\`");
    EXPECT_EQ(escape_markdown("**bold**"), "\\*\\*bold\\*\\*");
    EXPECT_EQ(escape_markdown("[x](http://y)"), "\\[x\\](http://y)");
    EXPECT_EQ(escape_markdown("_private_"), "\\_private\\_");
    EXPECT_EQ(escape_markdown("back\\slash"), "back\\\\slash");
    EXPECT_EQ(escape_markdown("~~gone~~"), "\\~\\~gone\\~\\~");
    EXPECT_EQ(escape_markdown("$x$"), "\\$x\\$");
}

TEST(EscapeMarkdown, SeedNamesAreUnchanged) {
    for (const char* name : {"array/copyto!/gpu_to_cpu", "array/accumulate/Float32/dims=1L",
                             "array/reverse/1d_inplace", "array/broadcast launch", "byval/slices=3",
                             "stencil/diffusion3d_checked"})
        EXPECT_EQ(escape_markdown(name), name);
}

TEST(EscapeMarkdown, ControlCharactersBecomeSpaces) {
    EXPECT_EQ(escape_markdown("line\nbreak\r\tx\x7f"), "line break  x ");
}

TEST(Sparkline, OneBlockPerValueScaledBetweenMinimumAndMaximum) {
    const std::vector<double> rising{1, 2, 3, 4, 5, 6, 7, 8};
    EXPECT_EQ(sparkline(rising), "▁▂▃▄▅▆▇█");
    // 5 is halfway: 0.5 × 7 = 3.5 rounds to level 4 (▅)
    const std::vector<double> three{0, 5, 10};
    EXPECT_EQ(sparkline(three), "▁▅█");
}

TEST(Sparkline, FlatAndEmpty) {
    const std::vector<double> flat{5, 5, 5};
    EXPECT_EQ(sparkline(flat), "▄▄▄");
    EXPECT_EQ(sparkline({}), "");
}

}  // namespace
}  // namespace benchwatch::report
