#include "compare/changes.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

#include "compare/runs.hpp"
#include "model/environment_keys.hpp"
#include "stats/stats.hpp"
#include "stats/trusted_steps.hpp"

namespace benchwatch::compare {

std::vector<model::EnvironmentChange> environment_differences(const model::Environment& before,
                                                              const model::Environment& after) {
    std::vector<model::EnvironmentChange> changes;
    for (const auto& [key, value_before] : before) {
        const auto found = after.find(key);
        if (found == after.end()) continue;
        auto old_value = value_before;
        auto new_value = found->second;
        if (key.starts_with(model::compiler_key_prefix)) {
            old_value = model::version_in(old_value).value_or(old_value);
            new_value = model::version_in(new_value).value_or(new_value);
        }
        if (old_value != new_value) changes.push_back({key, old_value, new_value});
    }
    return changes;
}

double detectable_log_change(const Method& method, std::span<const double> history,
                             double minimum_change, bool smaller_is_better) {
    if (history.empty()) return 0;
    BenchmarkEvidence evidence;
    evidence.history = history;
    evidence.base = evidence.head = history.back();
    evidence.smaller_is_better = smaller_is_better;
    evidence.minimum_change = minimum_change;
    return method.judge(std::span<const BenchmarkEvidence>(&evidence, 1))
        .benchmarks.front()
        .threshold;
}

namespace {

// The trusted steps of one benchmark's series, without their environment changes.
std::vector<model::HistoryStep> series_steps(const model::BenchmarkHistory& series,
                                             const std::vector<std::size_t>& positions_of_commits,
                                             const Method& method, double minimum_change,
                                             const stats::StepTrustSettings& trust) {
    // The detector needs positive values; `kept` maps its indices back to the series'.
    std::vector<double> positive;
    std::vector<std::size_t> kept;
    for (std::size_t i = 0; i < series.values.size(); ++i) {
        if (!(series.values[i] > 0)) continue;
        positive.push_back(series.values[i]);
        kept.push_back(i);
    }
    const bool smaller_is_better = series.direction == model::Direction::SmallerIsBetter;
    const auto detectable = [&](std::span<const double> before) {
        return detectable_log_change(method, before, minimum_change, smaller_is_better);
    };
    // A step smaller than the detector's default can still be one worth acting on where the
    // benchmark's minimum change is smaller (a counted metric's 0.2%).
    stats::ChangePointSettings detector;
    detector.minimum_step = std::min(detector.minimum_step, minimum_change);
    std::vector<model::HistoryStep> steps;
    for (const auto& trusted : stats::trusted_steps(positive, detectable, trust, detector)) {
        model::HistoryStep step;
        step.benchmark = series.name;
        step.metric = series.metric;
        step.unit = series.unit;
        step.direction = series.direction;
        step.before_commit = series.commits[kept[trusted.step.index - 1]];
        step.after_commit = series.commits[kept[trusted.step.index]];
        step.position = positions_of_commits[kept[trusted.step.index]];
        step.ratio = trusted.step.ratio;
        step.runs_before = static_cast<int>(trusted.runs_before);
        step.runs_after = static_cast<int>(trusted.runs_after);
        step.detectable_change = trusted.detectable_change;
        step.p_value = trusted.p_value;
        steps.push_back(std::move(step));
    }
    return steps;
}

std::size_t distance(std::size_t a, std::size_t b) {
    return a > b ? a - b : b - a;
}

}  // namespace

void group_suite_events(model::HistoryChanges& changes,
                        const std::function<int(std::size_t position)>& measured,
                        const SuiteEventRule& rule) {
    auto& steps = changes.steps;
    std::vector<bool> taken(steps.size(), false);
    // For each benchmark the indices of its steps in `steps`.
    std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> by_benchmark;
    for (std::size_t i = 0; i < steps.size(); ++i)
        by_benchmark[{steps[i].benchmark, steps[i].metric}].push_back(i);

    // The step of each benchmark nearest `position` within the slack, not yet taken.
    const auto members_at = [&](std::size_t position) {
        std::vector<std::size_t> members;
        for (const auto& [key, indices] : by_benchmark) {
            std::size_t best = steps.size();
            for (const std::size_t i : indices)
                if (!taken[i] && distance(steps[i].position, position) <= rule.slack &&
                    (best == steps.size() || distance(steps[i].position, position) <
                                                 distance(steps[best].position, position)))
                    best = i;
            if (best < steps.size()) members.push_back(best);
        }
        return members;
    };

    // Only positions within the slack of some step can gather any.
    std::set<std::size_t> candidates;
    for (const auto& step : steps) {
        const std::size_t first = step.position > rule.slack ? step.position - rule.slack : 1;
        for (std::size_t position = std::max<std::size_t>(first, 1);
             position <= step.position + rule.slack && position < changes.commits.size();
             ++position)
            candidates.insert(position);
    }

    while (true) {
        // The most members wins; of equally many, the most that stepped exactly there.
        std::size_t best_position = 0;
        std::vector<std::size_t> best_members;
        std::size_t best_exact = 0;
        for (const std::size_t position : candidates) {
            auto members = members_at(position);
            const auto exact = static_cast<std::size_t>(
                std::count_if(members.begin(), members.end(),
                              [&](std::size_t i) { return steps[i].position == position; }));
            if (members.size() > best_members.size() ||
                (members.size() == best_members.size() && exact > best_exact)) {
                best_position = position;
                best_members = std::move(members);
                best_exact = exact;
            }
        }
        const auto count = static_cast<double>(best_members.size());
        if (best_members.empty() || best_members.size() < rule.minimum ||
            count < rule.share * static_cast<double>(measured(best_position)))
            break;

        // The event is placed where most of its benchmarks' new levels start (the earliest of
        // equally many), which is a commit where some did.
        std::map<std::size_t, std::size_t> starting_at;
        for (const std::size_t i : best_members) ++starting_at[steps[i].position];
        const auto mode =
            std::max_element(starting_at.begin(), starting_at.end(),
                             [](const auto& a, const auto& b) { return a.second < b.second; });
        model::SuiteEvent event;
        event.position = mode->first;
        event.before_commit = changes.commits[event.position - 1];
        event.after_commit = changes.commits[event.position];
        event.measured = measured(best_position);
        event.benchmarks = static_cast<int>(best_members.size());
        std::vector<double> ratios;
        for (const std::size_t i : best_members) {
            taken[i] = true;
            ratios.push_back(steps[i].ratio);
            event.steps.push_back(steps[i]);
        }
        event.median_ratio = stats::median(ratios);
        changes.events.push_back(std::move(event));
    }

    std::vector<model::HistoryStep> remaining;
    for (std::size_t i = 0; i < steps.size(); ++i)
        if (!taken[i]) remaining.push_back(std::move(steps[i]));
    steps = std::move(remaining);
    std::sort(changes.events.begin(), changes.events.end(),
              [](const model::SuiteEvent& a, const model::SuiteEvent& b) {
                  return a.position < b.position;
              });
}

namespace {

// find_changes() of every benchmark, without the environment changes.
model::HistoryChanges changes_of_all(const model::History& history, const Method& method,
                                     const std::vector<model::Category>& categories,
                                     const StepRules& rules) {
    model::HistoryChanges changes;
    changes.project = history.project;
    changes.machine = history.machine;
    changes.order = history.order;
    changes.runs = history.runs;
    changes.commits = history.commits;

    std::unordered_map<std::string_view, std::size_t> position_of;
    for (std::size_t i = 0; i < history.commits.size(); ++i)
        position_of.emplace(history.commits[i], i);
    // How many benchmarks have runs on both sides of each position: first < position <= last.
    std::vector<int> starting(history.commits.size() + 1, 0);
    for (const auto& series : history.benchmarks) {
        std::vector<std::size_t> positions;
        positions.reserve(series.commits.size());
        for (const auto& commit : series.commits) positions.push_back(position_of.at(commit));
        if (positions.size() >= 2) {
            ++starting[positions.front() + 1];
            --starting[positions.back() + 1];
        }
        const double minimum_change =
            model::minimum_change_of(series.name, series.metric, categories);
        for (auto& step : series_steps(series, positions, method, minimum_change, rules.trust))
            changes.steps.push_back(std::move(step));
    }
    std::vector<int> measured(history.commits.size(), 0);
    int running = 0;
    for (std::size_t i = 0; i < measured.size(); ++i) {
        running += starting[i];
        measured[i] = running;
    }
    group_suite_events(
        changes, [&measured](std::size_t position) { return measured[position]; }, rules.events);
    return changes;
}

// `changes` with only the steps of benchmarks `benchmark` selects, and the environment changes.
model::HistoryChanges selected_with_environments(model::HistoryChanges changes,
                                                 const EnvironmentOf& environment_of,
                                                 const std::string& benchmark) {
    const auto environment_change = [&](const std::string& before, const std::string& after) {
        return environment_differences(environment_of(before), environment_of(after));
    };
    const auto unselected = [&](const model::HistoryStep& step) {
        return !detail::selected(step.benchmark, benchmark);
    };
    for (auto& event : changes.events) {
        event.environment_changes = environment_change(event.before_commit, event.after_commit);
        std::erase_if(event.steps, unselected);
        for (auto& step : event.steps)
            step.environment_changes = environment_change(step.before_commit, step.after_commit);
    }
    std::erase_if(changes.events,
                  [](const model::SuiteEvent& event) { return event.steps.empty(); });
    std::erase_if(changes.steps, unselected);
    for (auto& step : changes.steps)
        step.environment_changes = environment_change(step.before_commit, step.after_commit);
    return changes;
}

}  // namespace

model::HistoryChanges find_changes(const model::History& history,
                                   const EnvironmentOf& environment_of, const Method& method,
                                   const std::vector<model::Category>& categories,
                                   const std::string& benchmark, const StepRules& rules) {
    return selected_with_environments(changes_of_all(history, method, categories, rules),
                                      environment_of, benchmark);
}

model::HistoryChanges history_changes(store::Store& store, const vcs::Repository* repository,
                                      const HistorySource& source, const std::string& benchmark,
                                      std::size_t limit, const SeedSettings& settings,
                                      const Method& method,
                                      const std::vector<model::Category>& categories) {
    return history_changes(store, source, history(store, repository, source, "", limit, settings),
                           benchmark, method, categories);
}

model::HistoryChanges history_changes(store::Store& store, const HistorySource& source,
                                      const model::History& read, const std::string& benchmark,
                                      const Method& method,
                                      const std::vector<model::Category>& categories) {
    auto changes = changes_of_all(read, method, categories, {});
    // Only the runs of the commits either side of a step are read for their environments.
    store::RunFilter filter{source.project, source.machine, "", {}};
    const auto add = [&filter](const auto& step) {
        filter.commits.push_back(step.before_commit);
        filter.commits.push_back(step.after_commit);
    };
    for (const auto& event : changes.events) {
        add(event);
        for (const auto& step : event.steps) add(step);
    }
    for (const auto& step : changes.steps) add(step);
    const detail::RunIndex index(filter.commits.empty() ? std::vector<model::Run>{}
                                                        : store.list_runs(filter));
    const auto environment_of = [&index](const std::string& commit) -> model::Environment {
        const auto runs = index.runs_of(commit);
        return runs.empty() ? model::Environment{} : runs.front()->environment;
    };
    return selected_with_environments(std::move(changes), environment_of, benchmark);
}

}  // namespace benchwatch::compare
