#pragma once

// Private to the report layer: what a string from outside becomes in each output, so that a
// name can neither break nor command the text around it.

#include <string>
#include <string_view>

namespace benchwatch::report::detail {

// Makes a name or value safe for one output (escape_markdown, or plain_text for terminals).
using Escape = std::string (*)(std::string_view);

// The text with every C0 or C1 control character (newline, escape, DEL, U+009B…) and
// bidirectional formatting character replaced by a space and every byte that is not well-formed
// UTF-8 by U+FFFD, so that a name cannot break a line, send terminal escape sequences or reorder
// the text shown around it.
std::string plain_text(std::string_view text);

// `text` (lines of terminal text) with no line that GitHub Actions would run as a workflow
// command: a U+200B ZERO WIDTH SPACE goes between the colons of a "::" that starts a line after
// white space (Unicode's, which the runner trims first), and between "##" and "[" anywhere, so
// that a name from outside shows as it is but commands nothing.
std::string without_workflow_commands(std::string_view text);

// `url` when it is an http or https URL with a host, characters outside letters, digits and
// "-._~:/?#%=&+,;" percent-encoded ("https://x.org/a b" → "https://x.org/a%20b"); "" for any
// other scheme or a missing host, so that a link from outside can only lead to a web page.
std::string web_url(std::string_view url);

}  // namespace benchwatch::report::detail
