#pragma once

#include <string>
#include <string_view>

namespace benchwatch::model {

// Text from outside made safe to quote in one line of a message, a warning or a log: every C0 or
// C1 control character, DEL and bidirectional formatting character (model::bidi_control_length)
// is written out as \u{1b}, a byte that is not UTF-8 as \x{ff}, and the '[' of "##[" as \u{5b},
// so that a quoted name can neither drive a terminal, nor break the line, nor show as other text,
// nor be read by GitHub Actions as a workflow command. Other text is kept as it is:
// printable_line("a\x1b[2J##[error]é") == "a\\u{1b}[2J##\\u{5b}error]é".
std::string printable_line(std::string_view text);

// The longest start of `text` of at most `limit` bytes that does not split a UTF-8 sequence:
// utf8_prefix("aé", 2) == "a".
std::string_view utf8_prefix(std::string_view text, std::size_t limit);

}  // namespace benchwatch::model
