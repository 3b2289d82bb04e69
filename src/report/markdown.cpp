#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <optional>
#include <ostream>
#include <sstream>
#include <unordered_set>

#include "report/confirmation.hpp"
#include "report/detectable.hpp"
#include "report/escaping.hpp"
#include "report/report.hpp"
#include "report/rows.hpp"
#include "report/sentences.hpp"

namespace benchwatch::report {

namespace {

constexpr const char* kComparisonHeader =
    "| Benchmark | Baseline | This PR | Change |\n"
    "|:--|--:|--:|--:|\n";

// "+51.3% 🔴 slower", "+0.4% starts allocating (3)", "−1.1%", "−1.1% within noise" (when
// `within_noise`), "+76.9% too noisy".
std::string change_cell(const model::BenchmarkComparison& benchmark, bool within_noise) {
    std::string cell = format_change(benchmark.change());
    std::vector<std::string> notes;
    if (benchmark.verdict == model::Verdict::Slower) notes.push_back("🔴 slower");
    if (benchmark.verdict == model::Verdict::Faster) notes.push_back("🟢 faster");
    if (auto note = detail::judgement_note(benchmark, within_noise); !note.empty())
        notes.push_back(std::move(note));
    if (auto allocation = detail::allocation_note(benchmark); !allocation.empty())
        notes.push_back(std::move(allocation));
    if (!notes.empty()) cell += " " + detail::join(notes, ", ");
    return cell;
}

// Which rows of a table are shown; null shows every row.
using ShownRows = const std::unordered_set<const model::BenchmarkComparison*>*;

bool is_shown(ShownRows shown, const model::BenchmarkComparison* benchmark) {
    return shown == nullptr || shown->contains(benchmark);
}

std::string category_row(const detail::CategoryRows& group) {
    const auto header = group.category ? group.category->name : model::catch_all_category().name;
    return fmt::format("| **{}** | | | |\n", escape_markdown(header));
}

std::string benchmark_row(const model::BenchmarkComparison& benchmark, bool within_noise) {
    return fmt::format("| {} | {} | {} | {} |\n", escape_markdown(benchmark.display_name),
                       escape_markdown(format_value(benchmark.base, benchmark.unit)),
                       escape_markdown(format_value(benchmark.head, benchmark.unit)),
                       change_cell(benchmark, within_noise));
}

// The table of `groups`, with the rows `shown` allows; a category without shown rows is left out.
void write_comparison_table(const std::vector<detail::CategoryRows>& groups, ShownRows shown,
                            bool within_noise, std::ostream& out) {
    out << kComparisonHeader;
    for (const auto& group : groups) {
        bool header_written = false;
        for (const auto* benchmark : group.rows) {
            if (!is_shown(shown, benchmark)) continue;
            if (!header_written) out << category_row(group);
            header_written = true;
            out << benchmark_row(*benchmark, within_noise);
        }
    }
}

// The summary table, with a "Too noisy" column when the report says what it could detect.
void write_summary_table(const model::Comparison& comparison, std::ostream& out) {
    const bool counts_too_noisy = detail::says_what_it_could_detect(comparison);
    out << "| | Geometric mean | Unusual: slower | Unusual: faster |"
        << (counts_too_noisy ? " Too noisy | Compared |\n|:--|--:|--:|--:|--:|--:|\n"
                             : " Compared |\n|:--|--:|--:|--:|--:|\n");
    for (std::size_t i = 0; i < comparison.categories.size(); ++i) {
        const auto& summary = comparison.summaries[i];
        if (summary.compared == 0) continue;
        const auto too_noisy =
            counts_too_noisy ? fmt::format("{} | ", summary.too_noisy) : std::string();
        out << fmt::format("| {} | {} | {} | {} | {}{} |\n",
                           escape_markdown(comparison.categories[i].name),
                           format_change(summary.geometric_mean_change), summary.slower,
                           summary.faster, too_noisy, summary.compared);
    }
}

void write_head_results(const model::Comparison& comparison, std::ostream& out) {
    out << "| Benchmark | This PR |\n|:--|--:|\n";
    for (const auto& group : detail::head_rows(comparison)) {
        out << fmt::format("| **{}** | |\n", escape_markdown(group.category_name));
        for (const auto& row : group.rows)
            out << fmt::format("| {} | {} |\n", escape_markdown(row.display_name),
                               escape_markdown(format_value(row.result->value, row.result->unit)));
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

// The rows each table of a limited report shows, and what to say about the rest.
struct Shortening {
    std::optional<std::unordered_set<const model::BenchmarkComparison*>> unusual;  // nullopt: all
    std::optional<std::unordered_set<const model::BenchmarkComparison*>> all;
    std::size_t limit = 0;
};

std::size_t row_count(const std::vector<detail::CategoryRows>& groups) {
    std::size_t count = 0;
    for (const auto& group : groups) count += group.rows.size();
    return count;
}

// The note under a shortened table: how many rows are missing and where to see them.
std::string left_out_note(std::size_t left_out, std::size_t total, std::string_view which,
                          std::size_t limit, const std::string& history_url) {
    std::string note = fmt::format(
        "\n_{} of {} {} are left out of this table to keep the report under {} characters: "
        "those that changed least. `benchwatch compare --format text` lists them all",
        left_out, total, which, limit);
    if (!detail::web_url(history_url).empty()) note += ", as does the history linked below";
    return note + "._\n";
}

void render(const model::Comparison& comparison, const Shortening* shortening, std::ostream& out) {
    assert(comparison.summaries.size() == comparison.categories.size() &&
           "Comparison::summaries must be parallel to Comparison::categories");
    out << "## Benchmark results\n\n";
    out << detail::baseline_sentence(comparison, escape_markdown) << "\n";
    for (const auto& line : detail::context_lines(comparison, escape_markdown)) out << line << "\n";

    if (comparison.baseline.kind == model::BaselineKind::None) {
        if (!comparison.head_only_results.empty()) {
            out << "\n";
            write_head_results(comparison, out);
        }
    } else {
        out << "\n" << detail::explanation_paragraph(comparison, escape_markdown) << "\n\n";
        if (anything_compared(comparison)) {
            write_summary_table(comparison, out);
            if (const auto line = detail::detectable_sentence(comparison, escape_markdown);
                !line.empty())
                out << "\n" << line << "\n";
            const bool within_noise = detail::says_what_it_could_detect(comparison);
            const auto shown = [](const auto& rows) -> ShownRows {
                return rows ? &*rows : nullptr;
            };
            if (const auto unusual = detail::unusual_rows(comparison); !unusual.empty()) {
                out << "\n";
                const ShownRows unusual_shown = shortening ? shown(shortening->unusual) : nullptr;
                write_comparison_table(unusual, unusual_shown, within_noise, out);
                if (unusual_shown && unusual_shown->size() < row_count(unusual))
                    out << left_out_note(row_count(unusual) - unusual_shown->size(),
                                         row_count(unusual), "unusual changes", shortening->limit,
                                         comparison.history_url);
            }
            if (comparison.confirmation) {
                out << "\n";
                render_confirmation_markdown(
                    *comparison.confirmation, out,
                    comparison.paired ? Rounds::SideBySide : Rounds::ReMeasured);
            }
            const auto all = detail::all_rows(comparison);
            const ShownRows all_shown = shortening ? shown(shortening->all) : nullptr;
            out << "\n<details><summary>All benchmarks</summary>\n\n";
            write_comparison_table(all, all_shown, within_noise, out);
            if (all_shown && all_shown->size() < row_count(all))
                out << left_out_note(row_count(all) - all_shown->size(), row_count(all),
                                     "benchmarks", shortening->limit, comparison.history_url);
            out << "\n</details>\n";
        } else {
            out << "No benchmark ran in both the baseline and this PR.\n";
        }
        write_added_and_removed(comparison, out);
    }
    if (const auto line = detail::ignored_line(
            comparison.ignored, [](const std::string& name) { return escape_markdown(name); });
        !line.empty())
        out << "\n" << line;

    if (const auto url = detail::web_url(comparison.history_url); !url.empty())
        out << "\nHistory: " << url << "\n";
}

std::string rendered(const model::Comparison& comparison, const Shortening& shortening) {
    std::ostringstream out;
    render(comparison, &shortening, out);
    return out.str();
}

// The rows of `groups` that fit in `budget` bytes beside the category rows they need, the largest
// changes first.
std::unordered_set<const model::BenchmarkComparison*> rows_within(
    const std::vector<detail::CategoryRows>& groups, std::size_t budget, bool within_noise) {
    struct Candidate {
        const model::BenchmarkComparison* benchmark;
        std::size_t group;
    };
    std::vector<Candidate> candidates;
    for (std::size_t group = 0; group < groups.size(); ++group)
        for (const auto* benchmark : groups[group].rows) candidates.push_back({benchmark, group});
    const auto size_of_change = [](const model::BenchmarkComparison* benchmark) {
        return std::abs(std::log(benchmark->head / benchmark->base));
    };
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](const Candidate& a, const Candidate& b) {
                         return size_of_change(a.benchmark) > size_of_change(b.benchmark);
                     });
    std::unordered_set<const model::BenchmarkComparison*> kept;
    std::vector<bool> group_started(groups.size(), false);
    std::size_t used = 0;
    for (const auto& candidate : candidates) {
        std::size_t cost = benchmark_row(*candidate.benchmark, within_noise).size();
        if (!group_started[candidate.group]) cost += category_row(groups[candidate.group]).size();
        if (used + cost > budget) continue;
        used += cost;
        group_started[candidate.group] = true;
        kept.insert(candidate.benchmark);
    }
    return kept;
}

// Shrinks the rows of one table (`rows` of `shortening`) until the whole report fits `limit`.
void fit_table(
    const model::Comparison& comparison, const std::vector<detail::CategoryRows>& groups,
    std::optional<std::unordered_set<const model::BenchmarkComparison*>> Shortening::*rows,
    Shortening& shortening) {
    shortening.*rows = std::unordered_set<const model::BenchmarkComparison*>{};
    const std::size_t without_rows = rendered(comparison, shortening).size();
    if (without_rows > shortening.limit) return;
    shortening.*rows = rows_within(groups, shortening.limit - without_rows,
                                   detail::says_what_it_could_detect(comparison));
    // The note's numbers and the table header may have grown; drop the smallest changes left.
    while (rendered(comparison, shortening).size() > shortening.limit) {
        auto& kept = *(shortening.*rows);
        const auto smallest = std::min_element(kept.begin(), kept.end(), [](auto* a, auto* b) {
            return std::abs(std::log(a->head / a->base)) < std::abs(std::log(b->head / b->base));
        });
        kept.erase(smallest);
    }
}

}  // namespace

void render_markdown(const model::Comparison& comparison, std::ostream& out) {
    render(comparison, nullptr, out);
}

void render_markdown_limited(const model::Comparison& comparison, std::ostream& out,
                             std::size_t max_characters) {
    std::ostringstream whole;
    render(comparison, nullptr, whole);
    if (whole.str().size() <= max_characters) {
        out << whole.str();
        return;
    }
    Shortening shortening;
    shortening.limit = max_characters;
    fit_table(comparison, detail::all_rows(comparison), &Shortening::all, shortening);
    if (rendered(comparison, shortening).size() > max_characters)
        fit_table(comparison, detail::unusual_rows(comparison), &Shortening::unusual, shortening);
    std::string text = rendered(comparison, shortening);
    if (text.size() > max_characters) {
        // Even without any table row the rest is too long (thousands of added benchmarks, say):
        // cut at a line end and say so.
        constexpr std::string_view cut_note = "\n_The report was cut here at the size limit._\n";
        assert(max_characters > cut_note.size() && "the limit leaves no room for any report");
        const auto line_end = text.rfind('\n', max_characters - cut_note.size() - 1);
        text.resize(line_end == std::string::npos ? 0 : line_end + 1);
        text += cut_note;
    }
    out << text;
}

}  // namespace benchwatch::report
