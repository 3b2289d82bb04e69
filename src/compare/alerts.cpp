#include "compare/alerts.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace benchwatch::compare {

namespace {

bool recent(std::size_t position, const model::HistoryChanges& changes, const AlertRules& rules) {
    return changes.commits.size() - position <= rules.recent_runs;
}

std::optional<std::size_t> position_in(const std::vector<std::string>& commits,
                                       const std::string& commit) {
    const auto found = std::find(commits.begin(), commits.end(), commit);
    if (found == commits.end()) return std::nullopt;
    return static_cast<std::size_t>(found - commits.begin());
}

}  // namespace

std::vector<model::Alert> history_alerts(const model::HistoryChanges& changes,
                                         const AlertRules& rules) {
    std::vector<model::Alert> alerts;
    for (const auto& event : changes.events) {
        model::Alert alert;
        alert.key = {changes.project,     model::AlertKind::Suite, "", "",
                     event.before_commit, event.after_commit};
        alert.machine = changes.machine;
        alert.ratio = event.median_ratio;
        alert.benchmarks = event.benchmarks;
        alert.measured = event.measured;
        alert.steps = event.steps;
        for (const auto& step : event.steps)
            alert.runs_after = std::max(alert.runs_after, step.runs_after);
        alert.environment_changes = event.environment_changes;
        alert.opens_issue = recent(event.position, changes, rules);
        alerts.push_back(std::move(alert));
    }
    for (const auto& step : changes.steps) {
        model::Alert alert;
        alert.key = {changes.project, model::AlertKind::Step, step.benchmark,
                     step.metric,     step.before_commit,     step.after_commit};
        alert.machine = changes.machine;
        alert.unit = step.unit;
        alert.direction = step.direction;
        alert.ratio = step.ratio;
        alert.runs_after = step.runs_after;
        alert.environment_changes = step.environment_changes;
        alert.opens_issue = recent(step.position, changes, rules) &&
                            (rules.improvements || model::worse(step.direction, step.ratio));
        alerts.push_back(std::move(alert));
    }
    return alerts;
}

bool same_step(const model::AlertKey& key, const model::Alert& alert,
               const std::vector<std::string>& commits) {
    const auto& other = alert.key;
    if (key.project != other.project || key.kind != other.kind ||
        key.benchmark != other.benchmark || key.metric != other.metric)
        return false;
    if (key.after_commit == other.after_commit) return true;
    const auto before = position_in(commits, key.before_commit);
    const auto after = position_in(commits, key.after_commit);
    const auto other_before = position_in(commits, other.before_commit);
    const auto other_after = position_in(commits, other.after_commit);
    if (!before || !after || !other_before || !other_after) return false;
    return *before < *other_after && *other_before < *after;
}

namespace {

// The steps of `alerts` of the same benchmark and metric as `key` (for a suite key, the suite
// events), as alerts of their own: a suite event's steps are its benchmarks' steps.
std::vector<model::Alert> steps_like(const model::AlertKey& key,
                                     const std::vector<model::Alert>& alerts) {
    std::vector<model::Alert> like;
    for (const auto& alert : alerts) {
        if (alert.key.kind == key.kind) {
            if (key.kind == model::AlertKind::Suite ||
                (alert.key.benchmark == key.benchmark && alert.key.metric == key.metric))
                like.push_back(alert);
            continue;
        }
        if (key.kind != model::AlertKind::Step) continue;
        for (const auto& step : alert.steps) {
            if (step.benchmark != key.benchmark || step.metric != key.metric) continue;
            model::Alert member;
            member.key = {alert.key.project, model::AlertKind::Step, step.benchmark,
                          step.metric,       step.before_commit,     step.after_commit};
            member.ratio = step.ratio;
            like.push_back(std::move(member));
        }
    }
    return like;
}

}  // namespace

bool level_returned(const model::AlertKey& key, const std::vector<model::Alert>& alerts,
                    const std::vector<std::string>& commits) {
    const auto step_at = position_in(commits, key.after_commit);
    if (!step_at) return false;
    const auto like = steps_like(key, alerts);
    const auto same = std::find_if(like.begin(), like.end(), [&](const model::Alert& alert) {
        return same_step(key, alert, commits);
    });
    if (same == like.end()) return true;
    const auto start = position_in(commits, same->key.after_commit);
    double moved = std::log(same->ratio);
    for (const auto& later : like) {
        const auto at = position_in(commits, later.key.after_commit);
        if (at && start && *at > *start) moved += std::log(later.ratio);
    }
    return std::abs(moved) <= std::abs(std::log(same->ratio)) / 2;
}

}  // namespace benchwatch::compare
