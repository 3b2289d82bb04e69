#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <ostream>
#include <sstream>

#include "report/columns.hpp"
#include "report/confirmation.hpp"
#include "report/detectable.hpp"
#include "report/escaping.hpp"
#include "report/report.hpp"
#include "report/rows.hpp"
#include "report/sentences.hpp"

namespace benchwatch::report {

namespace {

enum class Tone { Plain, Bold, Red, Green, Yellow };

std::string paint(std::string_view text, Tone tone, bool color) {
    if (!color || tone == Tone::Plain || text.empty()) return std::string(text);
    const char* code = "";
    switch (tone) {
        case Tone::Bold:
            code = "1";
            break;
        case Tone::Red:
            code = "31";
            break;
        case Tone::Green:
            code = "32";
            break;
        case Tone::Yellow:
            code = "33";
            break;
        case Tone::Plain:
            break;
    }
    return fmt::format("\033[{}m{}\033[0m", code, text);
}

// One line of an aligned table: data cells, or a section title when `cells` is empty.
struct TextRow {
    std::vector<std::string> cells;
    std::string section;
    std::string note;  // after the last column, unaligned
    Tone note_tone = Tone::Plain;
};

std::string pad(std::string_view text, std::size_t width, bool right) {
    const auto used = detail::display_width(text);
    const std::string fill(width > used ? width - used : 0, ' ');
    return right ? fill + std::string(text) : std::string(text) + fill;
}

// Writes `header` and `rows` with the first column left-aligned and the others right-aligned,
// two spaces apart, without trailing spaces.
void write_table(const std::vector<std::string>& header, const std::vector<TextRow>& rows,
                 std::ostream& out, bool color) {
    std::vector<std::size_t> widths(header.size());
    auto widen = [&](const std::vector<std::string>& cells) {
        assert(cells.size() == widths.size() && "every table row has one cell per column");
        for (std::size_t i = 0; i < cells.size(); ++i)
            widths[i] = std::max(widths[i], detail::display_width(cells[i]));
    };
    widen(header);
    for (const auto& row : rows)
        if (!row.cells.empty()) widen(row.cells);

    auto line = [&](const std::vector<std::string>& cells) {
        std::string text;
        for (std::size_t i = 0; i < cells.size(); ++i) {
            if (i > 0) text += "  ";
            text += pad(cells[i], widths[i], i > 0);
        }
        text.erase(text.find_last_not_of(' ') + 1);
        return text;
    };
    out << line(header) << "\n";
    for (const auto& row : rows) {
        if (row.cells.empty()) {
            out << paint(row.section, Tone::Bold, color) << "\n";
            continue;
        }
        out << line(row.cells);
        if (!row.note.empty()) out << "  " << paint(row.note, row.note_tone, color);
        out << "\n";
    }
}

// A benchmark's row; an unchanged one is noted "within noise" when `within_noise`.
TextRow benchmark_row(const model::BenchmarkComparison& benchmark, bool within_noise) {
    TextRow row;
    row.cells = {"  " + detail::plain_text(benchmark.display_name),
                 detail::plain_text(format_value(benchmark.base, benchmark.unit)),
                 detail::plain_text(format_value(benchmark.head, benchmark.unit)),
                 format_change(benchmark.change())};
    std::vector<std::string> notes;
    if (benchmark.verdict == model::Verdict::Slower) {
        notes.push_back("slower");
        row.note_tone = Tone::Red;
    } else if (benchmark.verdict == model::Verdict::Faster) {
        notes.push_back("faster");
        row.note_tone = Tone::Green;
    } else if (benchmark.allocation_change != model::AllocationChange::None) {
        row.note_tone = Tone::Yellow;
    }
    if (auto note = detail::judgement_note(benchmark, within_noise); !note.empty())
        notes.push_back(std::move(note));
    if (auto allocation = detail::allocation_note(benchmark); !allocation.empty())
        notes.push_back(std::move(allocation));
    row.note = detail::join(notes, ", ");
    return row;
}

void write_comparison_table(const std::vector<detail::CategoryRows>& groups, bool within_noise,
                            std::ostream& out, bool color) {
    std::vector<TextRow> rows;
    for (const auto& group : groups) {
        TextRow section;
        section.section = detail::plain_text(group.category ? group.category->name
                                                            : model::catch_all_category().name);
        rows.push_back(std::move(section));
        for (const auto* benchmark : group.rows)
            rows.push_back(benchmark_row(*benchmark, within_noise));
    }
    write_table({"Benchmark", "Baseline", "This PR", "Change"}, rows, out, color);
}

// The summary table, with a "Too noisy" column when the report says what it could detect.
void write_summary_table(const model::Comparison& comparison, std::ostream& out, bool color) {
    const bool counts_too_noisy = detail::says_what_it_could_detect(comparison);
    std::vector<TextRow> rows;
    for (std::size_t i = 0; i < comparison.categories.size(); ++i) {
        const auto& summary = comparison.summaries[i];
        if (summary.compared == 0) continue;
        TextRow row;
        row.cells = {detail::plain_text(comparison.categories[i].name),
                     format_change(summary.geometric_mean_change), std::to_string(summary.slower),
                     std::to_string(summary.faster)};
        if (counts_too_noisy) row.cells.push_back(std::to_string(summary.too_noisy));
        row.cells.push_back(std::to_string(summary.compared));
        rows.push_back(std::move(row));
    }
    std::vector<std::string> header = {"", "Geometric mean", "Unusual: slower", "Unusual: faster"};
    if (counts_too_noisy) header.push_back("Too noisy");
    header.push_back("Compared");
    write_table(header, rows, out, color);
}

void write_head_results(const model::Comparison& comparison, std::ostream& out, bool color) {
    std::vector<TextRow> rows;
    for (const auto& group : detail::head_rows(comparison)) {
        TextRow section;
        section.section = detail::plain_text(group.category_name);
        rows.push_back(std::move(section));
        for (const auto& head : group.rows) {
            TextRow row;
            row.cells = {"  " + detail::plain_text(head.display_name),
                         detail::plain_text(format_value(head.result->value, head.result->unit))};
            rows.push_back(std::move(row));
        }
    }
    write_table({"Benchmark", "This PR"}, rows, out, color);
}

bool anything_compared(const model::Comparison& comparison) {
    return std::any_of(comparison.summaries.begin(), comparison.summaries.end(),
                       [](const auto& summary) { return summary.compared > 0; });
}

std::string plain_names(const std::vector<model::Result>& results) {
    auto names = detail::sorted_names(results);
    for (auto& name : names) name = detail::plain_text(name);
    return detail::join(names, ", ");
}

}  // namespace

namespace {

// What render_text() writes, before lines that could be read as workflow commands are defused.
void write_text(const model::Comparison& comparison, std::ostream& out, bool color) {
    assert(comparison.summaries.size() == comparison.categories.size() &&
           "Comparison::summaries must be parallel to Comparison::categories");
    out << paint("Benchmark results", Tone::Bold, color) << "\n\n";
    out << detail::baseline_sentence(comparison, detail::plain_text) << "\n";
    for (const auto& line : detail::context_lines(comparison, detail::plain_text))
        out << line << "\n";

    if (comparison.baseline.kind == model::BaselineKind::None) {
        if (!comparison.head_only_results.empty()) {
            out << "\n";
            write_head_results(comparison, out, color);
        }
    } else {
        out << "\n" << detail::explanation_paragraph(comparison, detail::plain_text) << "\n\n";
        if (anything_compared(comparison)) {
            write_summary_table(comparison, out, color);
            if (const auto line = detail::detectable_sentence(comparison, detail::plain_text);
                !line.empty())
                out << "\n" << line << "\n";
            const bool within_noise = detail::says_what_it_could_detect(comparison);
            if (const auto unusual = detail::unusual_rows(comparison); !unusual.empty()) {
                out << "\n" << paint("Unusual changes", Tone::Bold, color) << "\n";
                write_comparison_table(unusual, within_noise, out, color);
            }
            if (comparison.confirmation) {
                out << "\n"
                    << paint(comparison.paired ? "Side by side" : "Confirmation", Tone::Bold, color)
                    << "\n";
                render_confirmation_text(
                    *comparison.confirmation, out,
                    comparison.paired ? Rounds::SideBySide : Rounds::ReMeasured);
            }
            out << "\n" << paint("All benchmarks", Tone::Bold, color) << "\n";
            write_comparison_table(detail::all_rows(comparison), within_noise, out, color);
        } else {
            out << "No benchmark ran in both the baseline and this PR.\n";
        }
        if (!comparison.added.empty() || !comparison.removed.empty()) out << "\n";
        if (!comparison.added.empty())
            out << "New benchmarks, not compared: " << plain_names(comparison.added) << ".\n";
        if (!comparison.removed.empty())
            out << "Removed benchmarks, not compared: " << plain_names(comparison.removed) << ".\n";
    }
    if (const auto line = detail::ignored_line(
            comparison.ignored, [](const std::string& name) { return detail::plain_text(name); });
        !line.empty())
        out << "\n" << line;

    if (const auto url = detail::web_url(comparison.history_url); !url.empty())
        out << "\nHistory: " << url << "\n";
}

}  // namespace

void render_text(const model::Comparison& comparison, std::ostream& out, bool color) {
    std::ostringstream buffer;
    write_text(comparison, buffer, color);
    out << detail::without_workflow_commands(buffer.str());
}

}  // namespace benchwatch::report
