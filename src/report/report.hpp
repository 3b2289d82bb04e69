#pragma once

#include <optional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "model/comparison.hpp"
#include "model/error.hpp"
#include "model/history.hpp"
#include "model/words.hpp"

namespace benchwatch::report {

// The "method" a JSON report names when base and head were measured side by side
// (model::Comparison::paired), judged by their rounds rather than by a method and a history.
inline constexpr std::string_view kPairedMethodName = "paired";

// What a report is written as: terminal text, Markdown (a pull request's comment) or JSON.
enum class Format { Text, Markdown, Json };

// "text", "markdown" or "json", as --format spells it.
std::string_view to_string(Format format);

// The Format that `word` spells as to_string() does; std::nullopt for any other word.
std::optional<Format> parse_format(std::string_view word);

// A time in nanoseconds with 3 significant digits in ns, µs, ms or s, the unit chosen after
// rounding: format_time(999.7) == "1.00 µs", format_time(30) == "30.0 ns",
// format_time(3.549e9) == "3.55 s".
std::string format_time(double nanoseconds);

// A value in its unit: times via format_time() when unit is "ns"; others with 3 significant
// digits and the unit ("1.25 GB/s", "12.0 allocs").
std::string format_value(double value, std::string_view unit);

// "+1.2%", "−0.0%": a relative change as every report writes it (model/words.hpp).
using model::format_change;

// Text from outside (a name, unit, category, environment value…) made safe for a Markdown table
// cell or sentence: control characters and bidirectional formatting characters become spaces, so
// it stays on its line and shows as itself; '|', '<', '>',
// '&', '`', '*', '_', '~', '$', '[', ']' and '\' cannot break the table, inject HTML, start a
// link or image, or emphasise; '@' cannot mention anyone.
std::string escape_markdown(std::string_view name);

// Text from outside made safe for one terminal or CI log line: every C0 or C1 control character
// (newline, escape, DEL, U+009B…) and bidirectional formatting character becomes a space, bytes
// that are not UTF-8 become U+FFFD, and a workflow command is defused as
// detail::without_workflow_commands() does.
std::string terminal_text(std::string_view text);

// A terminal sparkline of the values, one block character (▁▂▃▄▅▆▇█) per value.
std::string sparkline(std::span<const double> values);

// The pull-request report in Markdown, line for line as docs/report.md shows it.
void render_markdown(const model::Comparison& comparison, std::ostream& out);

// render_markdown(), at most `max_characters` bytes of UTF-8 (never fewer than GitHub counts as
// characters): when the whole report is longer, the "All benchmarks" table keeps the rows with
// the largest changes that fit, in their usual order, and a note under it says how many are left
// out and where to see them; only when that is not enough does the unusual table lose its
// smallest changes too. Tables are never cut mid-row. Example: GitHub's comment limit is
// render_markdown_limited(comparison, out, 65536).
void render_markdown_limited(const model::Comparison& comparison, std::ostream& out,
                             std::size_t max_characters);

// The same report as aligned terminal text; ANSI colours when `color`.
void render_text(const model::Comparison& comparison, std::ostream& out, bool color);

// The same report as JSON, every number unrounded, with each benchmark's typical change,
// threshold and verdict.
void render_json(const model::Comparison& comparison, std::ostream& out);

// A JSON report that cannot be read back. what() is one line naming the file, the place in it
// and how to fix it.
class ReportError : public model::Error {
  public:
    explicit ReportError(const std::string& message) : Error(model::ErrorKind::Report, message) {}
};

// Reads back what render_json() wrote (`compare --format json`), so that a report computed in
// one job can be rendered in another: render_markdown(read_json(render_json(c))) is
// render_markdown(c), byte for byte, and likewise for text. `source` names the text in messages.
// Throws ReportError when the text is not JSON or a key render_json() writes is missing or of
// the wrong type: "report.json: benchmarks[3].base: expected a number; write the report with
// `benchwatch compare --format json`".
model::Comparison read_json(std::string_view text, std::string_view source);

// `benchwatch history` as terminal text: a title with the UTC dates of the first and last points,
// then per benchmark a sparkline, typical change, latest value.
void render_history_text(const model::History& history, std::ostream& out, bool color);

// `benchwatch history --format json`: each point with its commit, its time (History::times_ms
// as "2016-03-01T11:00:00Z") and its value.
void render_history_json(const model::History& history, std::ostream& out);

// `benchwatch history --changes` as terminal text: a title; the suite events, each once with its
// commits, how many benchmarks stepped of how many measured, their median step and the
// environment keys that changed; then per remaining step the benchmark, the commits on either
// side, the change of its level and whether that is worse or better, and the environment keys
// that changed between those commits' runs.
void render_changes_text(const model::HistoryChanges& changes, std::ostream& out);

// `benchwatch history --changes --format json`.
void render_changes_json(const model::HistoryChanges& changes, std::ostream& out);

}  // namespace benchwatch::report
