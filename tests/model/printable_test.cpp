// What could break: a string from outside quoted in a message, a warning or a log line that
// drives the terminal (an escape sequence, a C1 control), breaks the line (a newline a CI log
// would show as two lines, the second free to start "::error::"), is read by GitHub Actions as an
// old-style "##[command]", or loses characters that are harmless (accents, symbols, emoji).
#include "model/printable.hpp"

#include <gtest/gtest.h>

#include "model/utf8.hpp"

namespace benchwatch::model {
namespace {

TEST(Utf8Prefix, CutsBeforeASequenceTheLimitWouldSplit) {
    EXPECT_EQ(utf8_prefix("a\u00e9", 2), "a");            // é is 2 bytes
    EXPECT_EQ(utf8_prefix("a\u00e9", 3), "a\u00e9");      // whole
    EXPECT_EQ(utf8_prefix("\u20ac\u20ac", 5), "\u20ac");  // € is 3 bytes
    EXPECT_EQ(utf8_prefix("\u20ac", 2), "");
    EXPECT_EQ(utf8_prefix("abc", 10), "abc");
}

TEST(PrintableLine, ControlCharactersAreWrittenOutAsCodePoints) {
    EXPECT_EQ(printable_line("a\x1b]0;TITLE\x07\n::error::x\x7f"),
              "a\\u{1b}]0;TITLE\\u{7}\\u{a}::error::x\\u{7f}");
    // U+009B is CSI and U+0085 NEL to a terminal in UTF-8 mode.
    EXPECT_EQ(printable_line("a\xc2\x9b"
                             "2J\xc2\x85"),
              "a\\u{9b}2J\\u{85}");
}

TEST(PrintableLine, BytesThatAreNotUtf8AreWrittenOutAsBytes) {
    EXPECT_EQ(printable_line("a\x9b"
                             "2J\xff\xc3"),
              "a\\x{9b}2J\\x{ff}\\x{c3}");
}

TEST(PrintableLine, AnOldStyleWorkflowCommandLosesItsBracket) {
    EXPECT_EQ(printable_line("x##[error]y"), "x##\\u{5b}error]y");
    EXPECT_EQ(printable_line("###[a] #[b] ##c["), "###\\u{5b}a] #[b] ##c[");
}

TEST(PrintableLine, BidirectionalFormattingCharactersAreWrittenOut) {
    // U+202E RIGHT-TO-LEFT OVERRIDE would show "a\u202Ecod.exe" as "aexe.doc".
    EXPECT_EQ(printable_line("a\u202Ecod.exe"), "a\\u{202e}cod.exe");
    EXPECT_EQ(printable_line("\u061C\u200E\u200F\u202A\u2066\u2069"),
              "\\u{61c}\\u{200e}\\u{200f}\\u{202a}\\u{2066}\\u{2069}");
    EXPECT_EQ(bidi_control_length("\u2065"), 0u);  // unassigned, next to the isolates
    EXPECT_EQ(bidi_control_length("\u202F"), 0u);  // NARROW NO-BREAK SPACE
}

TEST(PrintableLine, OtherTextIsKeptAsItIs) {
    EXPECT_EQ(printable_line("µs é → 😀 [x] a::b \\u{1b}"), "µs é → 😀 [x] a::b \\u{1b}");
    EXPECT_EQ(printable_line(""), "");
}

}  // namespace
}  // namespace benchwatch::model
