#pragma once

// What a report must never carry, whatever strings from outside went into it: checks shared by
// the escaping tests and the rendering fuzz target. Each returns a description of the first
// problem found (with the line it is on), or nullopt when the output is clean. They use no test
// framework, so that a fuzz target can call them.

#include <optional>
#include <string>
#include <string_view>

namespace benchwatch::testing {

// Markup in a Markdown report that the report did not write itself: HTML other than its own
// `<details><summary>All benchmarks</summary>` … `</details>`, an @mention, a link or image (an
// unescaped '[' or "]("), a heading other than "## Benchmark results" and "### Confirmation", a
// block quote, a line that would underline the one above it into a heading, a control character,
// a bidirectional formatting character (U+202E and the like, which reorder what is shown), or a
// table row whose cells differ in number from its header's.
std::optional<std::string> markdown_problem(std::string_view markdown);

// A byte that drives a terminal: a C0 control character other than the newline, DEL, or a C1
// control character (U+0080 to U+009F), a bidirectional formatting character. With `own_colours`,
// the report's own SGR sequences (ESC[0m, ESC[1m, ESC[31m, ESC[32m, ESC[33m) are allowed.
std::optional<std::string> terminal_problem(std::string_view text, bool own_colours);

// A line that GitHub Actions would run as a workflow command: one that starts with "::" after
// leading white space (Unicode's, as the runner trims it), or that holds "##[" anywhere.
std::optional<std::string> workflow_command_problem(std::string_view text);

}  // namespace benchwatch::testing
