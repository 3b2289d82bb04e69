#include "compare/changes.hpp"

#include <set>

#include "compare/runs.hpp"
#include "stats/change_points.hpp"

namespace benchwatch::compare {

std::vector<model::EnvironmentChange> environment_differences(const model::Environment& before,
                                                              const model::Environment& after) {
    std::set<std::string> keys;
    for (const auto& [key, value] : before) keys.insert(key);
    for (const auto& [key, value] : after) keys.insert(key);
    std::vector<model::EnvironmentChange> changes;
    for (const auto& key : keys) {
        model::EnvironmentChange change{key, std::nullopt, std::nullopt};
        if (const auto found = before.find(key); found != before.end())
            change.before = found->second;
        if (const auto found = after.find(key); found != after.end()) change.after = found->second;
        if (change.before != change.after) changes.push_back(std::move(change));
    }
    return changes;
}

model::HistoryChanges history_changes(store::Store& store, const vcs::Repository* repository,
                                      const HistorySource& source, const std::string& benchmark,
                                      std::size_t limit, const model::SeedRuleSettings& settings) {
    const auto history_read = history(store, repository, source, benchmark, limit, settings);
    const auto index = detail::index_runs(store, source.project, source.machine);
    const auto environment_of = [&index](const std::string& commit) -> model::Environment {
        const auto runs = index.runs_of(commit);
        return runs.empty() ? model::Environment{} : runs.front()->environment;
    };

    model::HistoryChanges changes;
    changes.project = history_read.project;
    changes.machine = history_read.machine;
    changes.order = history_read.order;
    changes.runs = history_read.runs;
    for (const auto& series : history_read.benchmarks) {
        // The detector needs positive values; `positions` maps its indices back to commits.
        std::vector<double> positive;
        std::vector<std::size_t> positions;
        for (std::size_t i = 0; i < series.values.size(); ++i) {
            if (series.values[i] <= 0) continue;
            positive.push_back(series.values[i]);
            positions.push_back(i);
        }
        for (const auto& step : stats::detect_steps(positive)) {
            model::HistoryStep found;
            found.benchmark = series.name;
            found.metric = series.metric;
            found.unit = series.unit;
            found.direction = series.direction;
            found.before_commit = series.commits[positions[step.index - 1]];
            found.after_commit = series.commits[positions[step.index]];
            found.ratio = step.ratio;
            found.environment_changes = environment_differences(environment_of(found.before_commit),
                                                                environment_of(found.after_commit));
            changes.steps.push_back(std::move(found));
        }
    }
    return changes;
}

}  // namespace benchwatch::compare
