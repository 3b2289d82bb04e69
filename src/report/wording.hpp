#pragma once

// Private to the report layer: the sentences and row orders that every renderer shares, so the
// Markdown, text and JSON outputs never disagree about what a comparison says.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/comparison.hpp"

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

// Columns a UTF-8 string takes in a terminal, counting one per code point.
std::size_t display_width(std::string_view text);

// How a column of text_columns() aligns its cells, and the fewest columns of the terminal it
// takes.
struct TextColumn {
    bool right_aligned = false;
    std::size_t min_width = 0;
};

// `rows` of cells laid out as a table of terminal text: columns two spaces apart, each as wide as
// its widest cell (in display_width) and at least its min_width; one line per row, without a
// newline or trailing spaces. `columns` describes the first columns; the others align left.
std::vector<std::string> text_columns(const std::vector<std::vector<std::string>>& rows,
                                      std::span<const TextColumn> columns = {});

// "6ecd201bb": the first 9 hex digits of a SHA; any other id is kept whole.
std::string short_commit(std::string_view commit);

// The sentence saying what the head is compared with ("Compared with 6ecd201bb, the merge base.";
// for a head on the default branch, that it is compared with the run before it).
std::string baseline_sentence(const model::Comparison& comparison, Escape escape);

// "LLVM 15 → 16, CUDA added (12.2), GPU removed (was A100)": each change, joined by commas.
std::string change_list(const std::vector<model::EnvironmentChange>& changes, Escape escape);

// "The environment differs from the baseline's: LLVM 15 → 16, CUDA added (12.2)."; "" when the
// list is empty.
std::string environment_sentence(const std::vector<model::EnvironmentChange>& changes,
                                 Escape escape);

// "Measured on: Debian GNU/Linux 12 (bookworm), kernel 6.1.0-18-amd64, x86_64, AMD EPYC 7B13,
// 2 cores, 23.4 GiB of memory, NVIDIA A100, GPU driver 535.104.05." with the keys present, in
// model::machine_keys order; "" when `machine` is empty.
std::string machine_sentence(const model::Environment& machine, Escape escape);

// "The baseline ran on a different machine: cpu AMD EPYC 7402 → AMD EPYC 7B13."; "" when the
// list is empty.
std::string machine_change_sentence(const std::vector<model::EnvironmentChange>& changes,
                                    Escape escape);

// "Measurement warnings for <whose> run: " and each warning's sentence, one after the other;
// "" when there are none. `whose` is "this PR's" or "the baseline's".
std::string warnings_sentence(std::string_view whose, const std::vector<model::Warning>& warnings,
                              Escape escape);

// The lines under the baseline sentence, each only when it has something to say: the
// environment's changes, the machine, a different baseline machine, the head's warnings, the
// baseline's warnings.
std::vector<std::string> context_lines(const model::Comparison& comparison, Escape escape);

// The paragraph explaining the rule, with the configured factor and category minimums; category
// names pass through `escape`.
std::string explanation_paragraph(const model::Comparison& comparison, Escape escape);

// Whether the report says what the comparison could detect, counts too noisy benchmarks and
// calls an unflagged row "within noise": every method but seed, whose reference reports do not.
bool says_what_it_could_detect(const model::Comparison& comparison);

// The note of a row its method did not flag: "inconclusive", "too noisy", "within noise" for an
// unchanged row when `within_noise` (says_what_it_could_detect), else "".
std::string unflagged_note(const model::BenchmarkComparison& benchmark, bool within_noise);

// What one comparison could detect: the smallest change each benchmark could flag, over those
// the history gave a threshold (all but inconclusive benchmarks with under two runs).
struct Detectability {
    std::size_t with_threshold = 0;
    double median = 0;  // the median detectable change of those benchmarks
    // The one with the largest detectable change, the first in report order on a tie; nullptr
    // when no benchmark has a threshold.
    const model::BenchmarkComparison* noisiest = nullptr;
    std::size_t too_noisy = 0;
    double too_noisy_smallest = 0;  // the smallest and largest detectable change of those
    double too_noisy_largest = 0;
    std::size_t inconclusive = 0;
    // Whether some benchmark was judged: unchanged within its noise, slower or faster. Without
    // one, the summary's zeros say nothing about the pull request.
    bool anything_judged = false;
};

// Detectability of the compared benchmarks of `comparison`.
Detectability detectability(const model::Comparison& comparison);

// The line under the summary table: "Changes beyond 4.2% could be detected (median of 79
// benchmarks; the noisiest, kernel/launch, only beyond 31%).", then how many are too noisy when
// any are; or, when nothing could be judged, that sentence, why and what helps. "" when
// !says_what_it_could_detect or nothing was compared.
std::string detectable_sentence(const model::Comparison& comparison, Escape escape);

// A detectable change as the detectable sentence writes it: one decimal under 10% ("4.2%"),
// whole percents from there ("31%", "450%").
std::string detectable_percent(double fraction);

// "2.5%": a fraction as a percentage without trailing zeros.
std::string percent_without_trailing_zeros(double fraction);

// "starts allocating (3)", "stops allocating" or "".
std::string allocation_note(const model::BenchmarkComparison& benchmark);

// One category's rows, in the order they are shown.
struct CategoryRows {
    const model::Category* category = nullptr;  // nullptr: names no category matched
    std::vector<const model::BenchmarkComparison*> rows;
};

// Every benchmark grouped by category in configured order, keeping their order inside each;
// categories without benchmarks are left out.
std::vector<CategoryRows> all_rows(const model::Comparison& comparison);

// The unusual benchmarks grouped the same way, each group sorted by |ln(head/base)|, largest first.
std::vector<CategoryRows> unusual_rows(const model::Comparison& comparison);

// A head result with the name it is shown under.
struct HeadRow {
    std::string display_name;
    const model::Result* result = nullptr;
};

// One category's head results (BaselineKind::None).
struct HeadGroup {
    std::string category_name;
    std::vector<HeadRow> rows;
};

// Comparison::head_only_results grouped by category in configured order, sorted by display name;
// names no category matches come last under model::catch_all_category()'s name.
std::vector<HeadGroup> head_rows(const model::Comparison& comparison);

// The names of `results` sorted with model::name_less.
std::vector<std::string> sorted_names(const std::vector<model::Result>& results);

// "a, b" from already escaped names.
std::string join(const std::vector<std::string>& items, std::string_view separator);

}  // namespace benchwatch::report::detail
