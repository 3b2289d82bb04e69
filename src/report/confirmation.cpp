#include "report/confirmation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "model/category.hpp"
#include "model/words.hpp"
#include "report/columns.hpp"
#include "report/escaping.hpp"
#include "report/json_parts.hpp"
#include "report/report.hpp"
#include "report/rows.hpp"

namespace benchwatch::report {

namespace {

// "slower +15.0%", or "—" without a report.
std::string flagged_cell(const model::ConfirmedBenchmark& benchmark) {
    if (!benchmark.flagged_change) return "—";
    return fmt::format("{} {}", model::to_string(benchmark.flagged),
                       format_change(*benchmark.flagged_change));
}

// "+13.1% to +16.2%", or "—" while too few rounds bound it.
std::string interval_cell(const model::ConfirmedBenchmark& benchmark) {
    if (!benchmark.change_low || !benchmark.change_high) return "—";
    return fmt::format("{} to {}", format_change(*benchmark.change_low),
                       format_change(*benchmark.change_high));
}

// "confirmed slower", "dismissed", "undecided"; side by side "slower", "unchanged", "undecided".
std::string verdict_cell(const model::ConfirmedBenchmark& benchmark, Rounds rounds) {
    if (rounds == Rounds::SideBySide) switch (benchmark.verdict) {
            case model::ConfirmationVerdict::Confirmed:
                return model::to_string(benchmark.measured);
            case model::ConfirmationVerdict::Dismissed:
                return "unchanged";
            case model::ConfirmationVerdict::Undecided:
                return "undecided";
        }
    std::string cell = model::to_string(benchmark.verdict);
    if (benchmark.verdict == model::ConfirmationVerdict::Confirmed)
        cell += std::string(" ") + model::to_string(benchmark.measured);
    return cell;
}

std::string shown_name(const model::ConfirmedBenchmark& benchmark, detail::Escape escape) {
    return escape(model::with_metric(benchmark.name, benchmark.metric));
}

// "Re-measured 3 benchmarks over 14 rounds, base and head interleaved (stopped: all decided)."
std::string rounds_sentence(const model::Confirmation& confirmation, Rounds rounds) {
    const auto count = confirmation.benchmarks.size();
    return fmt::format(
        "{} {} benchmark{} over {} round{}, base and head interleaved{} (stopped: {}).",
        rounds == Rounds::SideBySide ? "Measured" : "Re-measured", count, count == 1 ? "" : "s",
        confirmation.rounds, confirmation.rounds == 1 ? "" : "s",
        rounds == Rounds::SideBySide ? " in this job" : "", model::to_string(confirmation.stop));
}

// "2 confirmed (1 slower, 1 faster), 1 dismissed, 0 undecided."; side by side "1 slower, 1 faster,
// 1 unchanged, 0 undecided."
std::string tally_sentence(const model::Confirmation& confirmation, Rounds rounds) {
    int confirmed = 0, slower = 0, faster = 0, dismissed = 0, undecided = 0;
    for (const auto& benchmark : confirmation.benchmarks) {
        switch (benchmark.verdict) {
            case model::ConfirmationVerdict::Confirmed:
                ++confirmed;
                if (benchmark.measured == model::Verdict::Slower) ++slower;
                if (benchmark.measured == model::Verdict::Faster) ++faster;
                break;
            case model::ConfirmationVerdict::Dismissed:
                ++dismissed;
                break;
            case model::ConfirmationVerdict::Undecided:
                ++undecided;
                break;
        }
    }
    if (rounds == Rounds::SideBySide)
        return fmt::format("{} slower, {} faster, {} unchanged, {} undecided.", slower, faster,
                           dismissed, undecided);
    return fmt::format("{} confirmed ({} slower, {} faster), {} dismissed, {} undecided.",
                       confirmed, slower, faster, dismissed, undecided);
}

// The rule in one sentence, with the error rate and where decisions can start.
std::string rule_sentence(const model::Confirmation& confirmation, Rounds rounds) {
    const auto rule = rounds == Rounds::SideBySide
                          ? "A benchmark is slower or faster when the interval of its median "
                            "change lies beyond its category's minimum change, and unchanged when "
                            "it lies within it"
                      : confirmation.report.empty()
                          ? "A benchmark is confirmed as changed when the interval of its median "
                            "change lies beyond its category's minimum change either way, and "
                            "dismissed when it lies within it"
                          : "A flagged change is confirmed when the interval of its median change "
                            "lies beyond half the flagged change, and dismissed when it lies short "
                            "of it";
    return fmt::format(
        "{}; each verdict is wrong with probability at most {}, and none is possible before "
        "round {}.",
        rule, model::percent_without_trailing_zeros(confirmation.alpha),
        confirmation.first_deciding_round);
}

// The columns of the table: a side-by-side measurement flagged nothing before its rounds.
std::vector<std::string> column_names(Rounds rounds) {
    if (rounds == Rounds::SideBySide)
        return {"Benchmark", "Change", "Interval", "Rounds", "Verdict"};
    return {"Benchmark", "Flagged", "Re-measured", "Interval", "Rounds", "Verdict"};
}

std::vector<std::string> row_cells(const model::ConfirmedBenchmark& benchmark,
                                   detail::Escape escape, Rounds rounds) {
    std::vector<std::string> cells = {shown_name(benchmark, escape)};
    if (rounds == Rounds::ReMeasured) cells.push_back(flagged_cell(benchmark));
    cells.insert(cells.end(), {format_change(benchmark.change), interval_cell(benchmark),
                               std::to_string(benchmark.rounds), verdict_cell(benchmark, rounds)});
    return cells;
}

using json = nlohmann::ordered_json;

}  // namespace

namespace {

// What render_confirmation_text() writes, before lines that could be read as workflow commands are
// defused.
void write_confirmation_text(const model::Confirmation& confirmation, Rounds rounds,
                             std::ostream& out) {
    out << rounds_sentence(confirmation, rounds) << '\n';
    out << "Base: " << detail::plain_text(confirmation.base_command) << '\n';
    out << "Head: " << detail::plain_text(confirmation.head_command) << "\n\n";
    std::vector<std::vector<std::string>> rows = {column_names(rounds)};
    for (const auto& benchmark : confirmation.benchmarks)
        rows.push_back(row_cells(benchmark, detail::plain_text, rounds));
    std::vector<std::size_t> widths(rows.front().size(), 0);
    for (const auto& row : rows)
        for (std::size_t column = 0; column < row.size(); ++column)
            widths[column] = std::max(widths[column], detail::display_width(row[column]));
    // Names, flags and verdicts read left-aligned, numbers right-aligned.
    const auto left = [&](std::size_t column) {
        return column == 0 || column + 1 == widths.size() ||
               (rounds == Rounds::ReMeasured && column == 1);
    };
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t column = 0; column < row.size(); ++column) {
            const auto padding = widths[column] - detail::display_width(row[column]);
            if (column > 0) line += "  ";
            if (!left(column)) line.append(padding, ' ');
            line += row[column];
            if (left(column) && column + 1 < row.size()) line.append(padding, ' ');
        }
        out << line << '\n';
    }
    out << '\n'
        << tally_sentence(confirmation, rounds) << '\n'
        << rule_sentence(confirmation, rounds) << '\n';
}

}  // namespace

void render_confirmation_text(const model::Confirmation& confirmation, std::ostream& out,
                              Rounds rounds) {
    std::ostringstream buffer;
    write_confirmation_text(confirmation, rounds, buffer);
    out << detail::without_workflow_commands(buffer.str());
}

void render_confirmation_markdown(const model::Confirmation& confirmation, std::ostream& out,
                                  Rounds rounds) {
    out << (rounds == Rounds::SideBySide ? "### Side by side\n\n" : "### Confirmation\n\n");
    out << rounds_sentence(confirmation, rounds) << ' ' << tally_sentence(confirmation, rounds)
        << "\n\n";
    const auto columns = column_names(rounds);
    out << "| " << detail::join(columns, " | ") << " |\n|:--|";
    for (std::size_t column = 1; column + 1 < columns.size(); ++column)
        out << (rounds == Rounds::ReMeasured && column == 1 ? ":--|" : "--:|");
    out << ":--|\n";
    for (const auto& benchmark : confirmation.benchmarks) {
        auto cells = row_cells(benchmark, escape_markdown, rounds);
        const auto mark = benchmark.verdict == model::ConfirmationVerdict::Confirmed   ? "✅ "
                          : benchmark.verdict == model::ConfirmationVerdict::Dismissed ? "❎ "
                                                                                       : "❔ ";
        cells.back() = mark + cells.back();
        out << "| " << detail::join(cells, " | ") << " |\n";
    }
    out << '\n' << rule_sentence(confirmation, rounds) << '\n';
}

nlohmann::ordered_json detail::confirmation_json(const model::Confirmation& confirmation) {
    json benchmarks = json::array();
    for (const auto& benchmark : confirmation.benchmarks) {
        const bool flagged = benchmark.flagged_change.has_value();
        benchmarks.push_back({
            {"name", benchmark.name},
            {"metric", benchmark.metric},
            {"direction", model::to_string(benchmark.direction)},
            {"flagged", flagged ? json(model::to_string(benchmark.flagged)) : json(nullptr)},
            {"flagged_change", detail::optional_json(benchmark.flagged_change)},
            {"boundary", benchmark.boundary},
            {"change", benchmark.change},
            {"unit", benchmark.unit},
            {"base_median", benchmark.base_median},
            {"head_median", benchmark.head_median},
            {"change_low", detail::optional_json(benchmark.change_low)},
            {"change_high", detail::optional_json(benchmark.change_high)},
            {"rounds", benchmark.rounds},
            {"verdict", model::to_string(benchmark.verdict)},
            {"measured", model::to_string(benchmark.measured)},
        });
    }
    return {
        {"base_command", confirmation.base_command},
        {"head_command", confirmation.head_command},
        {"report", confirmation.report.empty() ? json(nullptr) : json(confirmation.report)},
        {"alpha", confirmation.alpha},
        {"false_alarms_per_suite", confirmation.false_alarms_per_suite},
        {"max_rounds", confirmation.max_rounds},
        {"time_budget_seconds", confirmation.time_budget_seconds},
        {"rounds", confirmation.rounds},
        {"first_deciding_round", confirmation.first_deciding_round},
        {"stopped", model::to_string(confirmation.stop)},
        {"benchmarks", std::move(benchmarks)},
    };
}

void render_confirmation_json(const model::Confirmation& confirmation, std::ostream& out) {
    out << detail::confirmation_json(confirmation).dump(2) << '\n';
}

}  // namespace benchwatch::report
