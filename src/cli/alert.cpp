#include "cli/alert.hpp"

#include <fmt/format.h>

#include <iostream>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/known_names.hpp"
#include "compare/alerts.hpp"
#include "report/alert.hpp"
#include "report/report.hpp"
#include "store/store.hpp"
#include "vcs/git.hpp"

namespace benchwatch::cli {

namespace {

// The commits of each alert's range and, when the range is one commit, its subject, as far as
// the repository knows them (runs recorded elsewhere may name commits it lacks).
void add_commit_facts(std::vector<model::Alert>& alerts, const Context& context) {
    if (!context.repository) return;
    for (auto& alert : alerts) {
        try {
            alert.range_commits = context.repository->first_parent_range(alert.key.before_commit,
                                                                         alert.key.after_commit);
        } catch (const vcs::GitError&) {
            continue;
        }
        if (alert.range_commits.size() != 1) continue;
        if (const auto info = context.repository->commit_info(alert.range_commits.front()))
            alert.culprit_subject = info->subject;
    }
}

}  // namespace

void add_alert_flags(CLI::App& command, AlertFlags& flags) {
    add_common_flags(command, flags.common);
    add_default_branch_flag(command, flags.default_branch);
    command
        .add_option("--recent", flags.recent,
                    "Open an issue for a step whose new level began within this many of the "
                    "latest runs (default: 20)")
        ->check(CLI::Range(1, 100000));
    command.add_flag("--improvements", flags.improvements,
                     "Open issues for steps that made a benchmark better too");
    command.add_option("--label", flags.label,
                       "The label of alert issues, by which they are listed (default: "
                       "benchwatch-alert)");
    command.add_option("--history-url", flags.history_url,
                       "Link to the project's history (default: the config's history_url or "
                       "dashboard_url)");
    command.add_flag("--dry-run", flags.dry_run,
                     "Print what would be opened, updated and closed, changing nothing");
}

int run_alert(const AlertFlags& flags, const AlertForge& forge) {
    const auto context = Context::discover(flags.common.repo);
    const auto source = resolve_history_source(flags.common, flags.default_branch, context);
    const auto store_url = resolve_store(flags.common, context);
    const auto store = store::open_store(store_url, store::Access::ReadOnly);
    require_known_history(*store, store_url, source);
    const auto changes = default_branch_changes(*store, source, "", 0, context);
    if (changes.runs == 0)
        throw UsageError(fmt::format(
            "no default-branch history for project '{}' on machine '{}' (branch '{}'); record "
            "runs with --branch {} first",
            shown_input(source.project), shown_input(source.machine),
            shown_input(source.default_branch), shown_input(source.default_branch)));
    auto found = compare::history_alerts(changes, {flags.recent, flags.improvements});
    add_commit_facts(found, context);

    const report::AlertLinks links{resolve_repository_url(context),
                                   resolve_history_url(flags.history_url, source.project, context)};
    forge::AlertPlanInput input;
    input.issues = forge.list(source.project);
    input.found = std::move(found);
    input.machine = source.machine;
    input.same_step = [&changes](const model::AlertKey& key, const model::Alert& alert) {
        return compare::same_step(key, alert, changes.commits);
    };
    input.returned = [&changes, &input](const model::AlertKey& key) {
        return compare::level_returned(key, input.found, changes.commits);
    };
    input.title = report::alert_title;
    input.body = [&links](const model::Alert& alert, const std::vector<std::string>& machines) {
        return report::render_alert_markdown(alert, machines, links);
    };
    input.returned_comment = [&](const forge::AlertIssue&, const std::vector<std::string>& still) {
        return report::render_alert_returned(source.machine, changes.commits.back(), still);
    };
    auto actions = forge::plan_alerts(input);
    if (actions.empty()) {
        std::cout << fmt::format(
            "no alerts for {} on {}: no new step in the last {} runs, and no open alert issue "
            "to update or close\n",
            report::terminal_text(source.project), report::terminal_text(source.machine),
            flags.recent);
        return 0;
    }
    const auto calls = flags.dry_run ? forge::AlertCalls{} : forge.calls();
    for (auto& action : actions) {
        if (!flags.dry_run) forge::apply_alert_action(action, calls);
        std::cout << report::terminal_text(forge::describe_alert_action(action, flags.dry_run))
                  << '\n';
    }
    return 0;
}

}  // namespace benchwatch::cli
