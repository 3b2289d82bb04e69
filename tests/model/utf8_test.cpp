// What could break: a malformed UTF-8 sequence taken as text (PostgreSQL then refuses the run)
// or well-formed text refused, at the edges RFC 3629 draws; a sequence decoded to the wrong code
// point, so that a bidirectional override or a Unicode space would slip past the checks.
#include "model/utf8.hpp"

#include <gtest/gtest.h>

namespace benchwatch::model {
namespace {

TEST(Utf8, SequenceLengthsOfWellFormedText) {
    EXPECT_EQ(utf8_sequence_length("a"), 1U);
    EXPECT_EQ(utf8_sequence_length("\xC3\xA9"), 2U);          // é
    EXPECT_EQ(utf8_sequence_length("\xE2\x80\xA6"), 3U);      // …
    EXPECT_EQ(utf8_sequence_length("\xF0\x9F\x94\xB4"), 4U);  // 🔴
    EXPECT_EQ(utf8_sequence_length("\xF4\x8F\xBF\xBF"), 4U);  // U+10FFFF, the last code point
}

TEST(Utf8, MalformedSequencesHaveNoLength) {
    EXPECT_EQ(utf8_sequence_length("\x80"), 0U);              // a stray continuation byte
    EXPECT_EQ(utf8_sequence_length("\xC0\x80"), 0U);          // an overlong NUL
    EXPECT_EQ(utf8_sequence_length("\xE0\x9F\xBF"), 0U);      // overlong: below U+0800
    EXPECT_EQ(utf8_sequence_length("\xED\xA0\x80"), 0U);      // a surrogate, U+D800
    EXPECT_EQ(utf8_sequence_length("\xF4\x90\x80\x80"), 0U);  // U+110000
    EXPECT_EQ(utf8_sequence_length("\xE2\x80"), 0U);          // cut short
    EXPECT_EQ(utf8_sequence_length("\xFF"), 0U);
}

TEST(Utf8, CodePointsOfEachLength) {
    EXPECT_EQ(utf8_code_point("a"), U'a');
    EXPECT_EQ(utf8_code_point("\xC3\xA9"), 0xE9U);              // é
    EXPECT_EQ(utf8_code_point("\xC2\x85"), 0x85U);              // NEXT LINE, a C1 control
    EXPECT_EQ(utf8_code_point("\xE2\x80\xAE"), 0x202EU);        // RIGHT-TO-LEFT OVERRIDE
    EXPECT_EQ(utf8_code_point("\xE3\x80\x80"), 0x3000U);        // IDEOGRAPHIC SPACE
    EXPECT_EQ(utf8_code_point("\xF0\x9F\x94\xB4"), 0x1F534U);   // 🔴
    EXPECT_EQ(utf8_code_point("\xF4\x8F\xBF\xBF"), 0x10FFFFU);  // the last code point
}

TEST(Utf8, FirstInvalidByteOrTheWholeLength) {
    EXPECT_EQ(first_invalid_utf8("ab\xFF"), 2U);
    EXPECT_EQ(first_invalid_utf8("\xC3\xA9\xE2\x80"), 2U);  // é, then … cut short
    EXPECT_EQ(first_invalid_utf8("caf\xC3\xA9"), 5U);
    EXPECT_EQ(first_invalid_utf8(""), 0U);
}

}  // namespace
}  // namespace benchwatch::model
