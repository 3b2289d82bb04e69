#include <fmt/format.h>

#include <cassert>
#include <ostream>

#include "report/report.hpp"
#include "report/wording.hpp"

namespace benchwatch::report {

namespace {

constexpr const char* kComparisonHeader =
    "| Benchmark | Baseline | This PR | Change |\n"
    "|:--|--:|--:|--:|\n";

// "+51.3% 🔴 slower", "+0.4% starts allocating (3)", "−1.1%".
std::string change_cell(const model::BenchmarkComparison& benchmark) {
    std::string cell = format_change(benchmark.change());
    std::vector<std::string> notes;
    if (benchmark.verdict == model::Verdict::Slower) notes.push_back("🔴 slower");
    if (benchmark.verdict == model::Verdict::Faster) notes.push_back("🟢 faster");
    if (auto allocation = detail::allocation_note(benchmark); !allocation.empty())
        notes.push_back(std::move(allocation));
    if (!notes.empty()) cell += " " + detail::join(notes, ", ");
    return cell;
}

void write_comparison_table(const std::vector<detail::CategoryRows>& groups, std::ostream& out) {
    out << kComparisonHeader;
    for (const auto& group : groups) {
        const auto header = group.category ? group.category->name : std::string("Uncategorized");
        out << fmt::format("| **{}** | | | |\n", escape_markdown(header));
        for (const auto* benchmark : group.rows)
            out << fmt::format("| {} | {} | {} | {} |\n", escape_markdown(benchmark->display_name),
                               format_value(benchmark->base, benchmark->unit),
                               format_value(benchmark->head, benchmark->unit),
                               change_cell(*benchmark));
    }
}

void write_summary_table(const model::Comparison& comparison, std::ostream& out) {
    out << "| | Geometric mean | Unusual: slower | Unusual: faster | Compared |\n"
           "|:--|--:|--:|--:|--:|\n";
    for (std::size_t i = 0; i < comparison.categories.size(); ++i) {
        const auto& summary = comparison.summaries[i];
        if (summary.compared == 0) continue;
        out << fmt::format("| {} | {} | {} | {} | {} |\n",
                           escape_markdown(comparison.categories[i].name),
                           format_change(summary.geometric_mean_change), summary.slower,
                           summary.faster, summary.compared);
    }
}

void write_head_results(const model::Comparison& comparison, std::ostream& out) {
    out << "| Benchmark | This PR |\n|:--|--:|\n";
    for (const auto& group : detail::head_rows(comparison)) {
        out << fmt::format("| **{}** | |\n", escape_markdown(group.category_name));
        for (const auto& row : group.rows)
            out << fmt::format("| {} | {} |\n", escape_markdown(row.display_name),
                               format_value(row.result->value, row.result->unit));
    }
}

bool anything_compared(const model::Comparison& comparison) {
    for (const auto& summary : comparison.summaries)
        if (summary.compared > 0) return true;
    return false;
}

// "New benchmarks, not compared: a, b." for each non-empty list, one line each.
void write_added_and_removed(const model::Comparison& comparison, std::ostream& out) {
    auto escaped = [](const std::vector<model::Result>& results) {
        auto names = detail::sorted_names(results);
        for (auto& name : names) name = escape_markdown(name);
        return detail::join(names, ", ");
    };
    if (comparison.added.empty() && comparison.removed.empty()) return;
    out << "\n";
    if (!comparison.added.empty())
        out << "New benchmarks, not compared: " << escaped(comparison.added) << ".\n";
    if (!comparison.removed.empty())
        out << "Removed benchmarks, not compared: " << escaped(comparison.removed) << ".\n";
}

}  // namespace

void render_markdown(const model::Comparison& comparison, std::ostream& out) {
    assert(comparison.summaries.size() == comparison.categories.size() &&
           "Comparison::summaries must be parallel to Comparison::categories");
    out << "## Benchmark results\n\n";
    out << detail::baseline_sentence(comparison.baseline, escape_markdown) << "\n";
    for (const auto& line : detail::context_lines(comparison, escape_markdown)) out << line << "\n";

    if (comparison.baseline.kind == model::BaselineKind::None) {
        if (!comparison.head_only_results.empty()) {
            out << "\n";
            write_head_results(comparison, out);
        }
    } else {
        out << "\n" << detail::explanation_paragraph(comparison) << "\n\n";
        if (anything_compared(comparison)) {
            write_summary_table(comparison, out);
            if (const auto unusual = detail::unusual_rows(comparison); !unusual.empty()) {
                out << "\n";
                write_comparison_table(unusual, out);
            }
            out << "\n<details><summary>All benchmarks</summary>\n\n";
            write_comparison_table(detail::all_rows(comparison), out);
            out << "\n</details>\n";
        } else {
            out << "No benchmark ran in both the baseline and this PR.\n";
        }
        write_added_and_removed(comparison, out);
    }

    if (!comparison.history_url.empty())
        out << "\nHistory: " << detail::plain_text(comparison.history_url) << "\n";
}

}  // namespace benchwatch::report
