#include <algorithm>

#include "compare/compare.hpp"
#include "compare/runs.hpp"
#include "model/series_points.hpp"
#include "stats/stats.hpp"

namespace benchwatch::compare {

namespace {

using detail::CombinedResults;
using detail::ResultKey;
using detail::RunIndex;

// The committer date of `commit` as its runs carry it, std::nullopt when none does.
std::optional<std::int64_t> commit_time(const RunIndex& index, const std::string& commit) {
    for (const auto* run : index.runs_of(commit))
        if (const auto time = model::commit_time_ms(*run)) return time;
    return std::nullopt;
}

// The default branch's benchmarked commits, newest first, and the order they come in: git's
// first-parent chain of the default branch when it holds any benchmarked commit, else the
// recording order of runs on the default branch's name.
std::pair<std::vector<std::string>, model::HistoryOrder> default_branch_commits(
    const vcs::Repository* repository, const RunIndex& index, const HistorySource& source) {
    if (repository != nullptr) {
        auto revision = source.default_branch_revision.empty()
                            ? repository->default_branch()
                            : std::optional<std::string>(source.default_branch_revision);
        if (revision && repository->resolve(*revision)) {
            const auto chain = repository->first_parent_chain(*revision, 0);
            auto commits = detail::benchmarked_commits(chain, index, "");
            if (!commits.empty()) return {std::move(commits), model::HistoryOrder::Git};
        }
    }
    return {detail::recorded_commits(index, source.default_branch, "", ""),
            model::HistoryOrder::Recorded};
}

// When a history point is: its commit's committer date, else its first run's recording time.
std::int64_t point_time(const RunIndex& index, const std::string& commit) {
    if (const auto time = commit_time(index, commit)) return *time;
    const auto runs = index.runs_of(commit);
    return runs.empty() ? 0 : runs.front()->recorded_at_ms;
}

}  // namespace

model::History history(store::Store& store, const vcs::Repository* repository,
                       const HistorySource& source, const std::string& benchmark, std::size_t limit,
                       const SeedSettings& settings, bool with_samples) {
    const auto index = detail::index_runs(store, source.project, source.machine, {}, true);
    auto [commits, order] = default_branch_commits(repository, index, source);

    // The typical change needs pairs + 1 points even when fewer are shown.
    const auto shown = limit == 0 ? commits.size() : std::min(limit, commits.size());
    const auto read = limit == 0
                          ? commits.size()
                          : std::min(commits.size(),
                                     std::max(limit, static_cast<std::size_t>(settings.pairs) + 1));
    const auto window = std::span<const std::string>(commits).first(read);

    struct Point {
        std::size_t position;  // in `commits`, newest first
        double value;
        std::optional<model::SampleSummary> samples;  // only when asked for
    };
    // Per benchmark and metric: the unit and direction of its newest result, and its points.
    struct Found {
        std::string unit;
        model::Direction direction = model::Direction::SmallerIsBetter;
        std::vector<Point> points;
    };
    std::map<ResultKey, Found> found;
    if (with_samples) {
        detail::visit_history(
            store, index, window, [&](std::size_t position, CombinedResults& results) {
                for (const auto& [key, result] : results) {
                    if (!detail::selected(key.benchmark, benchmark)) continue;
                    auto [entry, inserted] =
                        found.try_emplace(key, Found{result.unit, result.direction, {}});
                    entry->second.points.push_back({position, result.value, result.samples});
                }
                return true;
            });
    } else {
        // Values only: a fraction of the reading, which is most of a long history's time.
        detail::ValueKeys keys;
        std::vector<Found*> by_number;  // null: not selected
        detail::visit_history_values(
            store, index, window, keys,
            [&](std::size_t position, std::span<const detail::KeyedValue> values) {
                for (const auto& value : values) {
                    while (by_number.size() < keys.size()) {
                        const auto& key = keys.key(by_number.size());
                        by_number.push_back(detail::selected(key.benchmark, benchmark) ? &found[key]
                                                                                       : nullptr);
                    }
                    auto* entry = by_number[value.key];
                    if (entry == nullptr) continue;
                    if (entry->points.empty()) {
                        entry->unit = value.unit;
                        entry->direction = value.direction;
                    }
                    entry->points.push_back({position, value.value, std::nullopt});
                }
                return true;
            });
        std::erase_if(found, [](const auto& entry) { return entry.second.points.empty(); });
    }

    model::History history;
    history.project = source.project;
    history.machine = source.machine;
    history.order = order;
    history.runs = static_cast<int>(shown);
    history.left_out = static_cast<int>(commits.size() - shown);
    history.commits.assign(commits.rend() - static_cast<std::ptrdiff_t>(shown), commits.rend());
    for (const auto& commit : history.commits)
        history.times_ms.push_back(point_time(index, commit));
    for (auto& [key, entry] : found) {
        auto& points = entry.points;
        std::reverse(points.begin(), points.end());
        std::vector<double> positive;
        for (const auto& point : points)
            if (point.value > 0) positive.push_back(point.value);

        model::BenchmarkHistory series;
        series.name = key.benchmark;
        series.metric = key.metric;
        series.unit = entry.unit;
        series.direction = entry.direction;
        series.typical_change = stats::typical_change(positive, settings.pairs);
        series.typical_pairs = stats::pairs_used(positive.size(), settings.pairs);
        for (const auto& point : points) {
            if (point.position >= shown) continue;
            series.commits.push_back(commits[point.position]);
            series.values.push_back(point.value);
            if (with_samples) series.samples.push_back(point.samples);
        }
        if (!series.values.empty()) history.benchmarks.push_back(std::move(series));
    }
    std::sort(history.benchmarks.begin(), history.benchmarks.end(),
              [](const model::BenchmarkHistory& a, const model::BenchmarkHistory& b) {
                  if (a.name != b.name) return model::name_less(a.name, b.name);
                  return a.metric < b.metric;
              });
    return history;
}

std::optional<HistoryExtension> extension_of(
    const std::vector<std::string>& commits, model::HistoryOrder order,
    std::int64_t previous_last_id, const std::vector<model::Run>& runs,
    const std::unordered_map<std::int64_t, std::vector<model::Result>>& added,
    const vcs::Repository* repository, const HistorySource& source) {
    const RunIndex index(runs);
    const auto [newest_first, now_order] = default_branch_commits(repository, index, source);
    const std::size_t kept = commits.size();
    if (now_order != order || newest_first.size() < kept ||
        !std::equal(commits.begin(), commits.end(), newest_first.rbegin()))
        return std::nullopt;
    // A commit new to the history is read from its runs alone, so they must all be new.
    for (std::size_t i = kept; i < newest_first.size(); ++i)
        for (const auto* run : index.runs_of(newest_first[newest_first.size() - 1 - i]))
            if (run->id <= previous_last_id) return std::nullopt;

    HistoryExtension extension;
    extension.commits.assign(newest_first.rbegin(), newest_first.rend());
    for (const auto& commit : extension.commits)
        extension.times_ms.push_back(point_time(index, commit));
    std::unordered_map<std::string_view, std::size_t> position;
    for (std::size_t i = 0; i < extension.commits.size(); ++i)
        position.emplace(extension.commits[i], i);
    // The new runs in recording order; a commit of the history has clean runs, and only those
    // count.
    for (const auto& run : index.runs()) {
        if (run.id <= previous_last_id || model::is_dirty(run)) continue;
        const auto at = position.find(run.commit);
        if (at == position.end()) continue;
        const auto results = added.find(run.id);
        if (results == added.end()) return std::nullopt;
        extension.results.emplace_back(at->second, &results->second);
    }
    return extension;
}

std::optional<model::History> extend_history(model::History previous,
                                             const HistoryExtension& extension,
                                             const SeedSettings& settings) {
    model::History history = std::move(previous);
    history.commits = extension.commits;
    history.runs = static_cast<int>(history.commits.size());
    history.times_ms = extension.times_ms;
    std::map<ResultKey, std::size_t> series_of;
    for (std::size_t b = 0; b < history.benchmarks.size(); ++b)
        series_of.emplace(ResultKey{history.benchmarks[b].name, history.benchmarks[b].metric}, b);
    std::unordered_map<std::string_view, std::size_t> position;
    for (std::size_t i = 0; i < history.commits.size(); ++i)
        position.emplace(history.commits[i], i);

    // Each new run combined into its commit's value as detail::visit_history combines reruns.
    for (const auto& [at, results] : extension.results) {
        const std::string& commit = history.commits[at];
        for (const auto& result : *results) {
            const auto [entry, inserted] = series_of.try_emplace(
                ResultKey{result.benchmark, result.metric}, history.benchmarks.size());
            if (inserted) {
                model::BenchmarkHistory series;
                series.name = result.benchmark;
                series.metric = result.metric;
                series.unit = result.unit;
                series.direction = result.direction;
                history.benchmarks.push_back(std::move(series));
            }
            auto& series = history.benchmarks[entry->second];
            if (result.unit != series.unit || result.direction != series.direction)
                return std::nullopt;
            model::place_value(series.commits, series.values, commit, at, result.value,
                               result.direction,
                               [&](const std::string& c) { return position.at(c); });
        }
    }
    for (auto& series : history.benchmarks) {
        std::vector<double> positive;
        for (const double value : series.values)
            if (value > 0) positive.push_back(value);
        series.typical_change = stats::typical_change(positive, settings.pairs);
        series.typical_pairs = stats::pairs_used(positive.size(), settings.pairs);
    }
    std::sort(history.benchmarks.begin(), history.benchmarks.end(),
              [](const model::BenchmarkHistory& a, const model::BenchmarkHistory& b) {
                  if (a.name != b.name) return model::name_less(a.name, b.name);
                  return a.metric < b.metric;
              });
    return history;
}

std::optional<model::History> extend_history(
    model::History previous, std::int64_t previous_last_id, const std::vector<model::Run>& runs,
    const std::unordered_map<std::int64_t, std::vector<model::Result>>& added,
    const vcs::Repository* repository, const HistorySource& source, const SeedSettings& settings) {
    const auto extension = extension_of(previous.commits, previous.order, previous_last_id, runs,
                                        added, repository, source);
    if (!extension) return std::nullopt;
    return extend_history(std::move(previous), *extension, settings);
}

}  // namespace benchwatch::compare
