#include "report/alert.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "model/category.hpp"
#include "model/printable.hpp"
#include "report/escaping.hpp"
#include "report/report.hpp"
#include "report/sentences.hpp"

namespace benchwatch::report {

namespace {

constexpr std::size_t title_limit = 200;
constexpr std::size_t steps_listed = 10;

std::string signed_percent(double ratio) {
    return format_change(ratio - 1);
}

std::string worse_or_better(model::Direction direction, double ratio) {
    return model::worse(direction, ratio) ? "worse" : "better";
}

// The pages of `commits` under the repository's page, as bare URLs (both forges link them), or
// "" when the repository's page is unknown.
std::string commit_pages(const std::vector<std::string>& commits, const AlertLinks& links) {
    if (links.repository_url.empty()) return "";
    std::vector<std::string> pages;
    for (const auto& commit : commits)
        if (const auto url = detail::web_url(links.repository_url + "/commit/" + commit);
            !url.empty())
            pages.push_back(url);
    return fmt::format("{}", fmt::join(pages, " "));
}

std::string short_commit_text(const std::string& commit) {
    return escape_markdown(detail::short_commit(commit));
}

std::string machine_list(const std::vector<std::string>& machines) {
    std::vector<std::string> escaped;
    for (const auto& machine : machines) escaped.push_back(escape_markdown(machine));
    return fmt::format("{}", fmt::join(escaped, ", "));
}

// `text` cut to at most `limit` bytes at a character's start, "…" ending a cut one.
std::string cut_line(std::string text, std::size_t limit) {
    if (text.size() <= limit) return text;
    constexpr std::string_view ellipsis = "…";
    text.resize(model::utf8_prefix(text, limit - ellipsis.size()).size());
    return text.append(ellipsis);
}

std::string step_line(const model::HistoryStep& step) {
    return fmt::format("| {} | {} {} | {}..{} |",
                       escape_markdown(model::with_metric(step.benchmark, step.metric)),
                       signed_percent(step.ratio), worse_or_better(step.direction, step.ratio),
                       escape_markdown(detail::short_commit(step.before_commit)),
                       escape_markdown(detail::short_commit(step.after_commit)));
}

}  // namespace

std::string alert_title(const model::Alert& alert) {
    const auto& key = alert.key;
    const auto commit = detail::short_commit(key.after_commit);
    std::string title;
    if (key.kind == model::AlertKind::Suite)
        title = fmt::format("benchwatch: {} of {} benchmarks of {} stepped at {} (median {})",
                            alert.benchmarks, alert.measured, key.project, commit,
                            signed_percent(alert.ratio));
    else
        title =
            fmt::format("benchwatch: {} {} {} at {} ({})",
                        model::with_metric(key.benchmark, key.metric), signed_percent(alert.ratio),
                        worse_or_better(alert.direction, alert.ratio), commit, key.project);
    return cut_line(detail::plain_text(title), title_limit);
}

std::string render_alert_markdown(const model::Alert& alert,
                                  const std::vector<std::string>& machines,
                                  const AlertLinks& links) {
    const auto& key = alert.key;
    std::string out;
    if (key.kind == model::AlertKind::Suite)
        out += fmt::format(
            "**Suite-wide step in {}**\n\n{} of the {} benchmarks measured on both sides stepped "
            "at "
            "the same commit, median {}: a change of machine, driver or toolchain is likelier "
            "than a commit that moved everything.\n\n",
            escape_markdown(key.project), alert.benchmarks, alert.measured,
            signed_percent(alert.ratio));
    else
        out += fmt::format(
            "**{} stepped {} {} in {}**\n\nA lasting step on the default branch: the new level "
            "has held for {} run{} on {} (new level / old level = {:.3f}).\n\n",
            escape_markdown(model::with_metric(key.benchmark, key.metric)),
            signed_percent(alert.ratio), worse_or_better(alert.direction, alert.ratio),
            escape_markdown(key.project), alert.runs_after, alert.runs_after == 1 ? "" : "s",
            escape_markdown(alert.machine), alert.ratio);

    out += "| | |\n|---|---|\n";
    auto range = fmt::format("{}..{}", short_commit_text(key.before_commit),
                             short_commit_text(key.after_commit));
    if (!alert.range_commits.empty())
        range += fmt::format(" ({} commit{})", alert.range_commits.size(),
                             alert.range_commits.size() == 1 ? "" : "s");
    out += fmt::format("| Commits | {} |\n", range);
    if (alert.range_commits.size() == 1)
        out += fmt::format("| Made by | {} {} |\n", short_commit_text(alert.range_commits.front()),
                           escape_markdown(alert.culprit_subject));
    if (const auto pages = commit_pages({key.before_commit, key.after_commit}, links);
        !pages.empty())
        out += fmt::format("| Commit pages | {} |\n", pages);
    const auto environment = detail::change_list(alert.environment_changes, escape_markdown);
    out += fmt::format("| Environment changes | {} |\n",
                       environment.empty() ? "none recorded" : environment);
    out += fmt::format("| Machines | {} |\n", machine_list(machines));
    if (const auto history = detail::web_url(links.history_url); !history.empty())
        out += fmt::format("| History | {} |\n", history);

    if (key.kind == model::AlertKind::Suite && !alert.steps.empty()) {
        auto steps = alert.steps;
        std::stable_sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) {
            return std::abs(std::log(a.ratio)) > std::abs(std::log(b.ratio));
        });
        out += fmt::format(
            "\nLargest steps ({} of {}):\n\n| Benchmark | Change | Commits |\n"
            "|---|---|---|\n",
            std::min(steps.size(), steps_listed), steps.size());
        for (std::size_t i = 0; i < steps.size() && i < steps_listed; ++i)
            out += step_line(steps[i]) + "\n";
    }
    if (key.kind == model::AlertKind::Step && alert.range_commits.size() != 1)
        out +=
            "\n`benchwatch bisect` measures the commits between to find the one that made "
            "the step.\n";
    out +=
        "\n_benchwatch updates this issue while the step lasts and closes it when the level "
        "returns._\n";
    return out;
}

std::string render_alert_returned(const std::string& machine, const std::string& latest,
                                  const std::vector<std::string>& still) {
    const auto where = fmt::format(
        "The level returned on {}: its default-branch history up to {} no longer shows the step.",
        escape_markdown(machine), escape_markdown(detail::short_commit(latest)));
    if (still.empty()) return where + " Closing.\n";
    return fmt::format("{} Still stepped on {}.\n", where, machine_list(still));
}

}  // namespace benchwatch::report
