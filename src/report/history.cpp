#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "report/columns.hpp"
#include "report/escaping.hpp"
#include "report/json_parts.hpp"
#include "report/report.hpp"
#include "report/sentences.hpp"

namespace benchwatch::report {

namespace {

// A terminal line holds this many of the most recent values; older ones are left out.
constexpr std::size_t kSparklineLength = 60;

// "typical ±1.2%" for a typical change |ln ratio| of 0.0119; "no history yet" for a benchmark
// without two runs to compare, whose typical change says nothing.
std::string typical_text(const model::BenchmarkHistory& benchmark) {
    if (benchmark.typical_pairs == 0) return "no history yet";
    return fmt::format("typical ±{:.1f}%", std::expm1(benchmark.typical_change) * 100);
}

// The benchmark's sparkline with one column per commit of the history's last kSparklineLength,
// blank where the benchmark has no value, so that the columns of every line are the same commits
// (a benchmark added later starts further right). Without the history's commits, its own last
// kSparklineLength values.
std::string aligned_sparkline(const model::History& history,
                              const model::BenchmarkHistory& benchmark) {
    std::span<const double> values(benchmark.values);
    if (history.commits.empty() || benchmark.commits.size() != values.size()) {
        if (values.size() > kSparklineLength) values = values.last(kSparklineLength);
        return sparkline(values);
    }
    std::span<const std::string> commits(history.commits);
    if (commits.size() > kSparklineLength) commits = commits.last(kSparklineLength);
    std::map<std::string_view, std::size_t> column_of;
    for (std::size_t column = 0; column < commits.size(); ++column)
        column_of.emplace(commits[column], column);
    std::vector<double> columns(commits.size(), std::numeric_limits<double>::quiet_NaN());
    for (std::size_t i = 0; i < values.size(); ++i)
        if (const auto found = column_of.find(benchmark.commits[i]); found != column_of.end())
            columns[found->second] = values[i];
    return sparkline(columns);
}

// A step's change as a signed percentage and its sense: "+12.3% worse".
std::string step_change(const model::HistoryStep& step) {
    return fmt::format("{:+.1f}% {}", (step.ratio - 1) * 100,
                       model::worse(step.direction, step.ratio) ? "worse" : "better");
}

// A Unix time in milliseconds as its UTC date, "2016-03-01", or as "2016-03-01T11:00:00Z".
std::string utc_date(std::int64_t time_ms, bool with_time = false) {
    const auto seconds =
        static_cast<std::time_t>(time_ms >= 0 ? time_ms / 1000 : (time_ms - 999) / 1000);
    return with_time ? fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(seconds))
                     : fmt::format("{:%Y-%m-%d}", fmt::gmtime(seconds));
}

// " from 2016-03-01 to 2024-05-02": the dates of the first and last points shown, "" for none.
std::string date_span(const model::History& history) {
    if (history.times_ms.empty()) return {};
    const auto first = utc_date(history.times_ms.front());
    const auto last = utc_date(history.times_ms.back());
    return first == last ? " on " + first : fmt::format(" from {} to {}", first, last);
}

}  // namespace

namespace {

// What render_history_text() writes, before lines that could be read as workflow commands are
// defused.
void write_history_text(const model::History& history, std::ostream& out, bool color) {
    const auto title = fmt::format(
        "History of {} on {}: {} run{}{} ({} order)", detail::plain_text(history.project),
        detail::plain_text(history.machine), history.runs, history.runs == 1 ? "" : "s",
        date_span(history), model::to_string(history.order));
    out << (color ? fmt::format("\033[1m{}\033[0m", title) : title) << "\n";
    if (history.benchmarks.empty()) {
        out << "No benchmarks recorded on the default branch.\n";
        return;
    }

    std::vector<std::vector<std::string>> rows;
    for (const auto& benchmark : history.benchmarks) {
        const std::string latest =
            benchmark.values.empty()
                ? std::string("none")
                : detail::plain_text(format_value(benchmark.values.back(), benchmark.unit));
        rows.push_back({detail::plain_text(model::with_metric(benchmark.name, benchmark.metric)),
                        aligned_sparkline(history, benchmark), typical_text(benchmark),
                        "latest " + latest});
    }
    for (const auto& line : detail::text_columns(rows)) out << line << "\n";
    if (history.left_out > 0)
        out << fmt::format("{} older run{} left out; --limit 0 shows all {}.\n", history.left_out,
                           history.left_out == 1 ? "" : "s", history.runs + history.left_out);
}

}  // namespace

void render_history_text(const model::History& history, std::ostream& out, bool color) {
    std::ostringstream buffer;
    write_history_text(history, buffer, color);
    out << detail::without_workflow_commands(buffer.str());
}

void render_history_json(const model::History& history, std::ostream& out) {
    std::map<std::string_view, std::int64_t> time_of;
    for (std::size_t i = 0; i < history.commits.size() && i < history.times_ms.size(); ++i)
        time_of.emplace(history.commits[i], history.times_ms[i]);
    nlohmann::ordered_json benchmarks = nlohmann::ordered_json::array();
    for (const auto& benchmark : history.benchmarks) {
        nlohmann::ordered_json points = nlohmann::ordered_json::array();
        for (std::size_t i = 0; i < benchmark.values.size(); ++i) {
            const auto time =
                i < benchmark.commits.size() ? time_of.find(benchmark.commits[i]) : time_of.end();
            points.push_back({
                {"commit", i < benchmark.commits.size()
                               ? nlohmann::ordered_json(benchmark.commits[i])
                               : nlohmann::ordered_json(nullptr)},
                {"time", time == time_of.end()
                             ? nlohmann::ordered_json(nullptr)
                             : nlohmann::ordered_json(utc_date(time->second, true))},
                {"value", benchmark.values[i]},
            });
        }
        benchmarks.push_back({
            {"name", benchmark.name},
            {"metric", benchmark.metric},
            {"unit", benchmark.unit},
            {"direction", model::to_string(benchmark.direction)},
            {"typical_change", benchmark.typical_pairs == 0
                                   ? nlohmann::ordered_json(nullptr)
                                   : nlohmann::ordered_json(std::expm1(benchmark.typical_change))},
            {"latest", benchmark.values.empty() ? nlohmann::ordered_json(nullptr)
                                                : nlohmann::ordered_json(benchmark.values.back())},
            {"values", std::move(points)},
        });
    }
    const nlohmann::ordered_json document = {
        {"project", history.project},
        {"machine", history.machine},
        {"order", model::to_string(history.order)},
        {"runs", history.runs},
        {"left_out", history.left_out},
        {"benchmarks", std::move(benchmarks)},
    };
    out << document.dump(2) << "\n";
}

namespace {

// What render_changes_text() writes, before lines that could be read as workflow commands are
// defused.
void write_changes_text(const model::HistoryChanges& changes, std::ostream& out) {
    const auto events = changes.events.size();
    out << fmt::format("Steps in the history of {} on {}: {} in {} run{} ({} order){}\n",
                       detail::plain_text(changes.project), detail::plain_text(changes.machine),
                       changes.steps.size(), changes.runs, changes.runs == 1 ? "" : "s",
                       model::to_string(changes.order),
                       events == 0
                           ? std::string()
                           : fmt::format(", and {} suite event{}", events, events == 1 ? "" : "s"));
    if (changes.steps.empty() && changes.events.empty()) {
        out << "No steps found.\n";
        return;
    }

    if (!changes.events.empty()) {
        out << "Suite events, where much of the suite stepped at once (a machine, driver or "
               "toolchain change is likelier than a pull request):\n";
        for (const auto& event : changes.events) {
            auto text =
                fmt::format("  {}..{}  {} of {} benchmarks stepped, median {:+.1f}%",
                            detail::plain_text(detail::short_commit(event.before_commit)),
                            detail::plain_text(detail::short_commit(event.after_commit)),
                            event.benchmarks, event.measured, (event.median_ratio - 1) * 100);
            const auto environment =
                detail::change_list(event.environment_changes, detail::plain_text);
            text += environment.empty() ? "  environment: none recorded changed"
                                        : "  environment: " + environment;
            out << text << "\n";
        }
        if (changes.steps.empty()) return;
        out << "Steps of single benchmarks:\n";
    }

    std::vector<std::vector<std::string>> rows;
    for (const auto& step : changes.steps) {
        const auto environment = detail::change_list(step.environment_changes, detail::plain_text);
        rows.push_back({detail::plain_text(model::with_metric(step.benchmark, step.metric)),
                        detail::plain_text(detail::short_commit(step.before_commit) + ".." +
                                           detail::short_commit(step.after_commit)),
                        step_change(step),
                        environment.empty() ? std::string() : "environment: " + environment});
    }
    for (const auto& line : detail::text_columns(rows)) out << line << "\n";
}

}  // namespace

void render_changes_text(const model::HistoryChanges& changes, std::ostream& out) {
    std::ostringstream buffer;
    write_changes_text(changes, buffer);
    out << detail::without_workflow_commands(buffer.str());
}

namespace {

nlohmann::ordered_json step_json(const model::HistoryStep& step) {
    return {
        {"benchmark", step.benchmark},
        {"metric", step.metric},
        {"unit", step.unit},
        {"direction", model::to_string(step.direction)},
        {"before_commit", step.before_commit},
        {"after_commit", step.after_commit},
        {"ratio", step.ratio},
        {"runs_before", step.runs_before},
        {"runs_after", step.runs_after},
        {"detectable_change", step.detectable_change},
        {"p_value", step.p_value},
        {"environment_changes", detail::environment_changes_json(step.environment_changes)},
    };
}

}  // namespace

void render_changes_json(const model::HistoryChanges& changes, std::ostream& out) {
    nlohmann::ordered_json events = nlohmann::ordered_json::array();
    for (const auto& event : changes.events) {
        nlohmann::ordered_json steps = nlohmann::ordered_json::array();
        for (const auto& step : event.steps) steps.push_back(step_json(step));
        events.push_back({
            {"before_commit", event.before_commit},
            {"after_commit", event.after_commit},
            {"benchmarks", event.benchmarks},
            {"measured", event.measured},
            {"median_ratio", event.median_ratio},
            {"environment_changes", detail::environment_changes_json(event.environment_changes)},
            {"steps", std::move(steps)},
        });
    }
    nlohmann::ordered_json steps = nlohmann::ordered_json::array();
    for (const auto& step : changes.steps) steps.push_back(step_json(step));
    const nlohmann::ordered_json document = {
        {"project", changes.project},
        {"machine", changes.machine},
        {"order", model::to_string(changes.order)},
        {"runs", changes.runs},
        {"events", std::move(events)},
        {"steps", std::move(steps)},
    };
    out << document.dump(2) << "\n";
}

}  // namespace benchwatch::report
