#include "serve/dashboard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "compare/changes.hpp"
#include "compare/compare.hpp"
#include "compare/replay.hpp"
#include "model/commit_id.hpp"
#include "model/fnv.hpp"
#include "model/series_points.hpp"
#include "stats/stats.hpp"

namespace benchwatch::serve {

// Not in the anonymous namespace: DashboardLoader::State holds a cache.
namespace loading {

// One result of a pull request head's run, as its value at the head needs it.
struct HeadResult {
    std::string benchmark;
    std::string metric;
    double value = 0;
};

// The results of pull requests' heads' runs, kept from one load to the next so that a head's
// older runs are not read again.
class HeadResultCache {
  public:
    explicit HeadResultCache(store::Store& store) : store_(store) {}

    // Keeps the results of the runs `results` holds.
    void keep(const std::unordered_map<std::int64_t, std::vector<model::Result>>& results) {
        for (const auto& [id, of_run] : results) {
            auto& kept = cache_[id];
            kept.clear();
            for (const auto& result : of_run)
                kept.push_back({result.benchmark, result.metric, result.value});
        }
    }

    // Reads the results of the runs of `ids` that are not kept yet, and marks all of them used.
    void read(std::span<const std::int64_t> ids) {
        std::vector<std::int64_t> missing;
        for (const auto id : ids) {
            used_.insert(id);
            if (!cache_.contains(id)) missing.push_back(id);
        }
        if (!missing.empty()) keep(store_.results(missing));
    }

    // The results of a run read() was given.
    const std::vector<HeadResult>& of(std::int64_t id) const { return cache_.at(id); }

    // Marks the run used when its results are kept.
    void touch(std::int64_t id) {
        if (cache_.contains(id)) used_.insert(id);
    }

    // Forgets the runs that read() or touch() was not given since the last forget_unused().
    void forget_unused() {
        std::erase_if(cache_, [&](const auto& entry) { return !used_.contains(entry.first); });
        used_.clear();
    }

    // Forgets every run.
    void clear() {
        cache_.clear();
        used_.clear();
    }

  private:
    store::Store& store_;
    std::unordered_map<std::int64_t, std::vector<HeadResult>> cache_;
    std::unordered_set<std::int64_t> used_;
};

}  // namespace loading

using loading::HeadResultCache;

namespace {

constexpr std::size_t max_pulls = 100;

std::string first_line(std::string_view message) {
    const auto end = message.find('\n');
    auto line = message.substr(0, end);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    return std::string(line);
}

// The first clean run of each commit, by commit; a commit with dirty runs only keeps its first.
std::unordered_map<std::string, const model::Run*> first_runs(const std::vector<model::Run>& runs) {
    std::unordered_map<std::string, const model::Run*> first;
    for (const auto& run : runs) {
        const auto [position, inserted] = first.try_emplace(run.commit, &run);
        if (!inserted && model::is_dirty(*position->second) && !model::is_dirty(run))
            position->second = &run;
    }
    return first;
}

std::vector<CommitPoint> commit_points(
    const model::History& history, const std::unordered_map<std::string, const model::Run*>& runs,
    const DashboardOptions& options) {
    const auto& commits = history.commits;
    std::vector<CommitPoint> points;
    points.reserve(commits.size());
    std::int64_t previous_time = 0;
    for (std::size_t i = 0; i < commits.size(); ++i) {
        const auto& commit = commits[i];
        CommitPoint point;
        point.commit = commit;
        if (i < history.times_ms.size()) point.time_ms = history.times_ms[i];
        const auto found = runs.find(commit);
        if (found != runs.end()) {
            const model::Run& run = *found->second;
            if (run.commit_info) {
                point.subject = first_line(run.commit_info->message);
                point.author = run.commit_info->author;
                point.url = run.commit_info->url;
            }
        }
        if (point.url.empty() && !options.repository_url.empty())
            point.url = options.repository_url + "/commit/" + commit;
        if (i > 0) point.time_ms = std::max(point.time_ms, previous_time + 1);
        previous_time = point.time_ms;
        points.push_back(std::move(point));
    }
    return points;
}

// The changed keys as the dashboard shows them, "" standing for an absent key.
std::vector<KeyChange> key_changes(const std::vector<model::EnvironmentChange>& differences) {
    std::vector<KeyChange> changes;
    for (const auto& change : differences)
        changes.push_back({change.key, change.before.value_or(""), change.after.value_or("")});
    return changes;
}

std::vector<EnvironmentChange> environment_changes(
    const std::vector<std::string>& commits,
    const std::unordered_map<std::string, const model::Run*>& runs) {
    std::vector<EnvironmentChange> changes;
    // Each key's latest recorded value: a run that did not capture a key neither changes it nor
    // hides a change between the runs before and after it.
    model::Environment known;
    for (std::size_t index = 0; index < commits.size(); ++index) {
        const auto found = runs.find(commits[index]);
        if (found == runs.end() || found->second->environment.empty()) continue;
        const model::Environment& current = found->second->environment;
        auto keys = key_changes(compare::environment_differences(known, current));
        if (!keys.empty()) changes.push_back({index, std::move(keys)});
        for (const auto& [key, value] : current) known[key] = value;
    }
    return changes;
}

// Where `commit`, a pull request's head, branched off the default branch: its merge base with the
// default branch, or the nearest first-parent ancestor of that with runs, as `compare` chooses a
// baseline. nullopt when git does not know the commit or no ancestor has runs.
std::optional<std::uint32_t> git_base(
    const vcs::Repository& repository, const std::string& default_branch, const std::string& commit,
    const std::unordered_map<std::string_view, std::uint32_t>& position) {
    constexpr std::size_t farthest = 10'000;
    try {
        const auto merge_base = repository.merge_base(commit, default_branch);
        if (!merge_base) return std::nullopt;
        for (const auto& ancestor : repository.first_parent_chain(*merge_base, farthest))
            if (const auto found = position.find(ancestor); found != position.end())
                return found->second;
    } catch (const vcs::GitError&) {
    }
    return std::nullopt;
}

// The pull requests' heads, newest first, at most max_pulls, each with its base and its values of
// the history's benchmarks (reruns combined by their best value).
std::vector<PullRun> pull_runs(HeadResultCache& results, const std::vector<model::Run>& runs,
                               const model::History& history,
                               const std::vector<CommitPoint>& commits,
                               const vcs::Repository* repository, const DashboardOptions& options,
                               std::vector<BenchmarkSeries>& series) {
    std::map<std::string, PullRun> by_commit;
    std::map<std::string, std::int64_t> first_recorded;
    std::unordered_map<std::string, std::int64_t> default_first_recorded;
    for (const auto& run : runs) {
        if (run.branch == options.default_branch) {
            default_first_recorded.try_emplace(run.commit, run.recorded_at_ms);
            continue;
        }
        PullRun& pull = by_commit[run.commit];
        pull.commit = run.commit;
        pull.branch = run.branch;
        if (run.pull_request) pull.pull_request = run.pull_request;
        pull.time_ms = std::max(pull.time_ms, run.recorded_at_ms);
        if (run.commit_info && pull.subject.empty() && pull.author.empty()) {
            pull.subject = first_line(run.commit_info->message);
            pull.author = run.commit_info->author;
            pull.url = run.commit_info->url;
        }
        first_recorded.try_emplace(run.commit, run.recorded_at_ms);
    }
    std::vector<PullRun> pulls;
    for (auto& [commit, pull] : by_commit) pulls.push_back(std::move(pull));
    std::sort(pulls.begin(), pulls.end(), [](const PullRun& a, const PullRun& b) {
        if (a.time_ms != b.time_ms) return a.time_ms > b.time_ms;
        return a.commit < b.commit;
    });
    if (pulls.size() > max_pulls) pulls.resize(max_pulls);

    std::unordered_map<std::string_view, std::uint32_t> position;
    for (std::size_t i = 0; i < commits.size(); ++i)
        position.emplace(commits[i].commit, static_cast<std::uint32_t>(i));
    std::optional<std::string> default_branch;
    if (repository != nullptr && history.order == model::HistoryOrder::Git)
        default_branch = options.default_branch_revision.empty()
                             ? repository->default_branch()
                             : std::optional<std::string>(options.default_branch_revision);
    for (auto& pull : pulls) {
        // A recorded commit reaches git only as a full SHA, whatever wrote the store.
        if (default_branch && model::CommitId::parse(pull.commit))
            pull.base = git_base(*repository, *default_branch, pull.commit, position);
        if (pull.base || default_branch) continue;
        // Without git: the last default-branch commit whose runs began before the head's.
        const std::int64_t head_time = first_recorded.at(pull.commit);
        for (std::size_t i = commits.size(); i-- > 0;) {
            const auto found = default_first_recorded.find(commits[i].commit);
            if (found != default_first_recorded.end() && found->second <= head_time) {
                pull.base = static_cast<std::uint32_t>(i);
                break;
            }
        }
    }

    // Each pull request head's results: its clean runs, or its dirty ones when it has no other.
    std::map<std::string, std::vector<std::int64_t>> clean_runs;
    std::map<std::string, std::vector<std::int64_t>> dirty_runs;
    std::unordered_map<std::string, std::uint32_t> pull_index;
    for (std::size_t i = 0; i < pulls.size(); ++i)
        pull_index.emplace(pulls[i].commit, static_cast<std::uint32_t>(i));
    std::vector<std::int64_t> wanted;
    for (const auto& run : runs) {
        if (run.branch == options.default_branch || !pull_index.contains(run.commit)) continue;
        (model::is_dirty(run) ? dirty_runs : clean_runs)[run.commit].push_back(run.id);
        wanted.push_back(run.id);
    }
    if (wanted.empty()) return pulls;
    results.read(wanted);
    std::map<std::pair<std::string_view, std::string_view>, std::size_t> series_of;
    for (std::size_t i = 0; i < series.size(); ++i)
        series_of.emplace(
            std::pair<std::string_view, std::string_view>(series[i].name, series[i].metric), i);
    for (std::uint32_t p = 0; p < pulls.size(); ++p) {
        const auto clean = clean_runs.find(pulls[p].commit);
        const auto& ids = clean != clean_runs.end() ? clean->second : dirty_runs[pulls[p].commit];
        std::map<std::size_t, double> best;
        for (const auto id : ids) {
            for (const auto& result : results.of(id)) {
                const auto found = series_of.find({result.benchmark, result.metric});
                if (found == series_of.end() || !std::isfinite(result.value)) continue;
                const auto [entry, inserted] = best.try_emplace(found->second, result.value);
                // Keeping the best value so far instead would be a change for the worse.
                if (!inserted &&
                    model::worse(series[found->second].direction, entry->second / result.value))
                    entry->second = result.value;
            }
        }
        for (const auto& [index, value] : best) series[index].pulls.push_back({p, value});
    }
    return pulls;
}

compare::HistorySource history_source(const std::string& project, const std::string& machine,
                                      const DashboardOptions& options) {
    compare::HistorySource source;
    source.project = project;
    source.machine = machine;
    source.default_branch = options.default_branch;
    source.default_branch_revision = options.default_branch_revision;
    return source;
}

// The history `machine` was built from, without its typical changes, which are not kept whole.
model::History history_of(const std::string& project, const MachineHistory& machine) {
    model::History history;
    history.project = project;
    history.machine = machine.name;
    history.order = machine.order;
    history.runs = static_cast<int>(machine.commits.size());
    for (const auto& commit : machine.commits) history.commits.push_back(commit.commit);
    for (const auto& series : machine.benchmarks) {
        model::BenchmarkHistory benchmark;
        benchmark.name = series.name;
        benchmark.metric = series.metric;
        benchmark.unit = series.unit;
        benchmark.direction = series.direction;
        benchmark.values = series.values;
        benchmark.commits.reserve(series.commits.size());
        for (const auto index : series.commits)
            benchmark.commits.push_back(machine.commits[index].commit);
        history.benchmarks.push_back(std::move(benchmark));
    }
    std::sort(history.benchmarks.begin(), history.benchmarks.end(),
              [](const model::BenchmarkHistory& a, const model::BenchmarkHistory& b) {
                  if (a.name != b.name) return model::name_less(a.name, b.name);
                  return a.metric < b.metric;
              });
    return history;
}

// What the dashboard shows of `history` apart from its benchmarks: its name, commits and
// environment changes; `first` is first_runs() of every run of its project on its machine.
MachineHistory machine_frame(const model::History& history,
                             const std::unordered_map<std::string, const model::Run*>& first,
                             const DashboardOptions& options) {
    MachineHistory result;
    result.name = history.machine;
    result.id = stable_id(history.machine);
    result.order = history.order;
    result.commits = commit_points(history, first, options);
    result.environment_changes = environment_changes(history.commits, first);
    return result;
}

// The dashboard's view of `history`, read from `runs` (every run of its project on its machine).
// With `judged_before` (this machine's view before the newest runs were added to the end of its
// history), the steps, suite events and badges are that view's, not judged again.
MachineHistory build_machine(HeadResultCache& head_results, const vcs::Repository* repository,
                             const model::History& history, const std::vector<model::Run>& runs,
                             const DashboardOptions& options,
                             const MachineHistory* judged_before = nullptr) {
    const auto first = first_runs(runs);
    MachineHistory result = machine_frame(history, first, options);

    std::unordered_map<std::string_view, std::uint32_t> position;
    for (std::size_t i = 0; i < history.commits.size(); ++i)
        position.emplace(history.commits[i], static_cast<std::uint32_t>(i));
    const auto last_commit = static_cast<std::uint32_t>(history.commits.size()) - 1;

    // Steps are judged as `history --changes` judges them, calibrated on the whole history; the
    // badges judge the latest run as compare judges it as a head, calibrated on the runs before.
    model::HistoryChanges changes;
    std::vector<model::BenchmarkStanding> standings;
    std::map<std::pair<std::string_view, std::string_view>, std::vector<SeriesStep>> steps;
    std::unordered_map<std::string_view, const BenchmarkSeries*> judged_series;
    if (judged_before == nullptr) {
        const auto method = compare::make_method(
            compare::calibrated_on(history, options.method, options.categories));
        const auto latest_run_method = compare::make_method(
            compare::calibrated_on(history, options.method, options.categories, true));
        const auto environment_of = [&first](const std::string& commit) -> model::Environment {
            const auto found = first.find(commit);
            return found == first.end() ? model::Environment{} : found->second->environment;
        };
        changes = compare::find_changes(history, environment_of, *method, options.categories);
        standings = compare::standings(history, changes, *latest_run_method, options.categories);
        for (const auto& event : changes.events)
            result.suite_events.push_back({static_cast<std::uint32_t>(event.position),
                                           static_cast<std::uint32_t>(event.position - 1),
                                           event.benchmarks, event.measured, event.median_ratio - 1,
                                           key_changes(event.environment_changes)});
        for (const auto& step : changes.steps)
            steps[{step.benchmark, step.metric}].push_back(
                {static_cast<std::uint32_t>(step.position), position.at(step.before_commit),
                 step.ratio - 1});
    } else {
        result.judged = false;
        result.suite_events = judged_before->suite_events;
        for (const auto& series : judged_before->benchmarks)
            judged_series.emplace(series.id, &series);
    }

    std::vector<std::pair<std::size_t, BenchmarkSeries>> sorted;
    for (std::size_t b = 0; b < history.benchmarks.size(); ++b) {
        const auto& benchmark = history.benchmarks[b];
        BenchmarkSeries series;
        series.name = benchmark.name;
        series.metric = benchmark.metric;
        series.unit = benchmark.unit;
        series.direction = benchmark.direction;
        series.id = stable_id(
            benchmark.metric == "time" ? benchmark.name : benchmark.name + '\n' + benchmark.metric);
        const std::size_t category = model::categorize(benchmark.name, options.categories);
        if (category < options.categories.size())
            series.category = options.categories[category].name;
        series.values = benchmark.values;
        series.commits.reserve(benchmark.commits.size());
        for (const auto& commit : benchmark.commits) series.commits.push_back(position.at(commit));
        series.retired = series.commits.empty() || series.commits.back() != last_commit;
        if (benchmark.typical_pairs > 0)
            series.typical_change = std::expm1(benchmark.typical_change);
        if (judged_before == nullptr) {
            const auto& standing = standings[b];
            series.trend = standing.trend;
            series.trend_reason = standing.reason;
            series.trend_change = standing.change;
            series.threshold = standing.threshold;
            series.detectable_change = standing.detectable_change;
            if (const auto found = steps.find({benchmark.name, benchmark.metric});
                found != steps.end())
                series.steps = found->second;
        } else if (const auto found = judged_series.find(series.id); found != judged_series.end()) {
            const BenchmarkSeries& judged = *found->second;
            series.trend = judged.trend;
            series.trend_reason = judged.trend_reason;
            series.trend_change = judged.trend_change;
            series.threshold = judged.threshold;
            series.detectable_change = judged.detectable_change;
            series.steps = judged.steps;
        }
        sorted.emplace_back(category, std::move(series));
    }
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [category, series] : sorted) result.benchmarks.push_back(std::move(series));
    result.pulls = pull_runs(head_results, runs, history, result.commits, repository, options,
                             result.benchmarks);
    result.revision = runs.empty() ? 0 : runs.back().id;
    return result;
}

// What build_machine() returns for the history `extension` extends, given `before` (the view of
// that history) as the view judged before, but built from `before` instead of from a
// model::History: its series' values and commits (indices) take the new results as
// compare::extend_history() does, and only the series they touch have their typical change
// worked out again. nullopt when a result is of a benchmark `before` does not have, or of
// another unit or direction.
std::optional<MachineHistory> extend_machine(
    HeadResultCache& head_results, const vcs::Repository* repository, const std::string& project,
    const MachineHistory& before, const compare::HistoryExtension& extension,
    const std::vector<model::Run>& runs, const DashboardOptions& options) {
    if (extension.commits.empty()) return std::nullopt;
    model::History frame;
    frame.project = project;
    frame.machine = before.name;
    frame.order = before.order;
    frame.runs = static_cast<int>(extension.commits.size());
    frame.commits = extension.commits;
    frame.times_ms = extension.times_ms;
    MachineHistory shown = machine_frame(frame, first_runs(runs), options);
    shown.judged = false;
    shown.suite_events = before.suite_events;
    shown.benchmarks = before.benchmarks;

    std::map<std::pair<std::string_view, std::string_view>, std::size_t> series_of;
    for (std::size_t i = 0; i < shown.benchmarks.size(); ++i)
        series_of.emplace(std::pair<std::string_view, std::string_view>(shown.benchmarks[i].name,
                                                                        shown.benchmarks[i].metric),
                          i);
    std::vector<bool> touched(shown.benchmarks.size(), false);
    for (const auto& [at, results] : extension.results) {
        const auto position = static_cast<std::uint32_t>(at);
        for (const auto& result : *results) {
            const auto found = series_of.find({result.benchmark, result.metric});
            if (found == series_of.end()) return std::nullopt;
            BenchmarkSeries& series = shown.benchmarks[found->second];
            if (result.unit != series.unit || result.direction != series.direction)
                return std::nullopt;
            model::place_value(series.commits, series.values, position, position, result.value,
                               result.direction, [](std::uint32_t point) { return point; });
            touched[found->second] = true;
        }
    }
    const auto last_commit = static_cast<std::uint32_t>(shown.commits.size()) - 1;
    for (std::size_t b = 0; b < shown.benchmarks.size(); ++b) {
        BenchmarkSeries& series = shown.benchmarks[b];
        series.pulls.clear();
        series.retired = series.commits.empty() || series.commits.back() != last_commit;
        if (!touched[b]) continue;
        std::vector<double> positive;
        for (const double value : series.values)
            if (value > 0) positive.push_back(value);
        const double typical = stats::typical_change(positive, options.settings.pairs);
        series.typical_change = std::nullopt;
        if (stats::pairs_used(positive.size(), options.settings.pairs) > 0)
            series.typical_change = std::expm1(typical);
    }
    shown.pulls =
        pull_runs(head_results, runs, frame, shown.commits, repository, options, shown.benchmarks);
    shown.revision = runs.empty() ? 0 : runs.back().id;
    return shown;
}

}  // namespace

std::string stable_id(std::string_view name) {
    return fmt::format("{:016x}", model::fnv1a(name));
}

const BenchmarkSeries* MachineHistory::find_benchmark(std::string_view benchmark_id) const {
    for (const auto& series : benchmarks)
        if (series.id == benchmark_id) return &series;
    return nullptr;
}

const MachineHistory* ProjectHistory::find_machine(std::string_view machine_name) const {
    const std::string_view wanted =
        machine_name.empty() ? std::string_view(default_machine) : machine_name;
    for (const auto& machine : machines)
        if (machine.name == wanted) return &machine;
    return nullptr;
}

const ProjectHistory* Dashboard::find_project(std::string_view name) const {
    for (const auto& project : projects)
        if (project.name == name) return &project;
    return nullptr;
}

Dashboard load_dashboard(store::Store& store, const vcs::Repository* repository,
                         const DashboardOptions& options) {
    return DashboardLoader(store, repository, options).load();
}

struct DashboardLoader::State {
    explicit State(store::Store& store) : head_results(store) {}

    int schema_version = 0;
    std::int64_t last_run_id = -1;  // -1: nothing loaded yet
    std::size_t run_count = 0;      // of `runs`
    // Every run of each project and machine up to last_run_id, in recording order, without
    // results.
    std::map<std::pair<std::string, std::string>, std::vector<model::Run>> runs;
    HeadResultCache head_results;
};

DashboardLoader::DashboardLoader(store::Store& store, const vcs::Repository* repository,
                                 DashboardOptions options)
    : store_(store),
      repository_(repository),
      options_(std::move(options)),
      state_(std::make_unique<State>(store)) {}

DashboardLoader::~DashboardLoader() = default;

Dashboard DashboardLoader::assemble(const Dashboard* previous, std::int64_t last_run_id,
                                    const std::function<std::optional<MachineHistory>(
                                        const std::string& project, const std::string& machine,
                                        const MachineHistory* before)>& machine_of) {
    Dashboard dashboard;
    dashboard.default_branch = options_.default_branch;
    dashboard.last_run_id = last_run_id;
    for (const auto& name : store_.projects()) {
        const ProjectHistory* before = previous ? previous->find_project(name) : nullptr;
        ProjectHistory project;
        project.name = name;
        project.id = stable_id(name);
        std::size_t most_commits = 0;
        const auto first = state_->runs.lower_bound({name, ""});
        for (auto at = first; at != state_->runs.end() && at->first.first == name; ++at) {
            const std::string& machine = at->first.second;
            const MachineHistory* kept = nullptr;
            if (before != nullptr)
                for (const auto& candidate : before->machines)
                    if (candidate.name == machine) kept = &candidate;
            auto history = machine_of(name, machine, kept);
            if (!history || history->commits.empty()) continue;
            if (history->commits.size() > most_commits) {
                most_commits = history->commits.size();
                project.default_machine = machine;
            }
            project.machines.push_back(std::move(*history));
        }
        if (!project.machines.empty()) dashboard.projects.push_back(std::move(project));
    }
    state_->head_results.forget_unused();
    state_->last_run_id = last_run_id;
    return dashboard;
}

Dashboard DashboardLoader::load() {
    read_whole_ = true;
    // Until it is done: a load or update that throws leaves the loader with nothing to build on.
    state_->last_run_id = -1;
    state_->runs.clear();
    state_->head_results.clear();
    state_->schema_version = store_.schema_version();
    const std::int64_t last = store_.last_run_id();
    state_->run_count = 0;
    for (const auto& name : store_.projects()) {
        for (auto& run :
             store_.list_runs({.project = name, .machine = "", .branch = "", .commits = {}})) {
            if (run.id > last) continue;
            state_->runs[{name, run.machine}].push_back(std::move(run));
            ++state_->run_count;
        }
    }
    return assemble(
        nullptr, last,
        [&](const std::string& project, const std::string& machine, const MachineHistory*) {
            const model::History history =
                compare::history(store_, repository_, history_source(project, machine, options_),
                                 "", 0, options_.settings);
            return std::optional<MachineHistory>(
                build_machine(state_->head_results, repository_, history,
                              state_->runs.at({project, machine}), options_));
        });
}

Dashboard DashboardLoader::update(const Dashboard& previous,
                                  const std::function<void(Dashboard)>& show_unjudged) {
    if (state_->last_run_id < 0 || previous.last_run_id != state_->last_run_id || !previous.judged)
        return load();
    // The count before the newest id: a run recorded between the two is listed, not counted.
    const int schema_version = store_.schema_version();
    const std::int64_t count = store_.run_count();
    const std::int64_t last = store_.last_run_id();
    if (schema_version != state_->schema_version || last < state_->last_run_id) return load();
    store::RunFilter filter;
    filter.after_id = state_->last_run_id;
    auto added = last == state_->last_run_id ? std::vector<model::Run>() : store_.list_runs(filter);
    std::erase_if(added, [&](const model::Run& run) { return run.id > last; });
    if (static_cast<std::size_t>(count) != state_->run_count + added.size()) return load();
    read_whole_ = false;
    if (added.empty()) return previous;

    std::vector<std::int64_t> ids;
    for (const auto& run : added) ids.push_back(run.id);
    const auto results = store_.results(ids);
    state_->head_results.keep(results);
    const std::int64_t previous_last_id = state_->last_run_id;
    std::set<std::pair<std::string, std::string>> changed;
    for (auto& run : added) {
        std::pair<std::string, std::string> key{run.project, run.machine};
        state_->runs[key].push_back(std::move(run));
        changed.insert(std::move(key));
    }
    state_->last_run_id = -1;
    state_->run_count += added.size();

    // A machine without new runs is copied; its pull requests' heads' results stay in use.
    const auto unchanged = [&](const std::string& project, const std::string& machine,
                               const MachineHistory* before) -> std::optional<MachineHistory> {
        if (before == nullptr) return std::nullopt;
        for (const auto& run : state_->runs.at({project, machine}))
            if (run.branch != options_.default_branch) state_->head_results.touch(run.id);
        return *before;
    };
    // Where each changed machine's new runs go in its history, worked out once for both passes;
    // nullopt when it cannot be extended.
    std::map<std::pair<std::string, std::string>, std::optional<compare::HistoryExtension>>
        extensions;
    const auto extension_for =
        [&](const std::string& project, const std::string& machine,
            const MachineHistory* before) -> const std::optional<compare::HistoryExtension>& {
        const auto [found, added_now] = extensions.try_emplace({project, machine});
        if (added_now && before != nullptr) {
            std::vector<std::string> commits;
            commits.reserve(before->commits.size());
            for (const auto& commit : before->commits) commits.push_back(commit.commit);
            found->second = compare::extension_of(
                commits, before->order, previous_last_id, state_->runs.at({project, machine}),
                results, repository_, history_source(project, machine, options_));
        }
        return found->second;
    };
    // Each changed machine's history extended by its new runs, built once for both passes and
    // only when needed: a history holds each point's commit as a string (millions of them).
    std::map<std::pair<std::string, std::string>, std::optional<model::History>> extended;
    const auto extend = [&](const std::string& project, const std::string& machine,
                            const MachineHistory* before) -> std::optional<model::History>& {
        const auto [found, added_now] = extended.try_emplace({project, machine});
        if (!added_now) return found->second;
        if (const auto& extension = extension_for(project, machine, before))
            found->second = compare::extend_history(history_of(project, *before), *extension,
                                                    options_.settings);
        return found->second;
    };
    if (show_unjudged) {
        Dashboard unjudged =
            assemble(&previous, last,
                     [&](const std::string& project, const std::string& machine,
                         const MachineHistory* before) -> std::optional<MachineHistory> {
                         if (!changed.contains({project, machine}))
                             return unchanged(project, machine, before);
                         const auto& extension = extension_for(project, machine, before);
                         if (!extension) return unchanged(project, machine, before);
                         const auto& runs = state_->runs.at({project, machine});
                         // The usual case, from `before` alone; a new benchmark or a unit that
                         // changed takes the history.
                         if (auto shown = extend_machine(state_->head_results, repository_, project,
                                                         *before, *extension, runs, options_))
                             return shown;
                         const auto& history = extend(project, machine, before);
                         if (!history) return unchanged(project, machine, before);
                         return build_machine(state_->head_results, repository_, *history, runs,
                                              options_, before);
                     });
        unjudged.judged = false;
        state_->last_run_id = -1;
        show_unjudged(std::move(unjudged));
    }
    return assemble(&previous, last,
                    [&](const std::string& project, const std::string& machine,
                        const MachineHistory* before) -> std::optional<MachineHistory> {
                        if (!changed.contains({project, machine}))
                            return unchanged(project, machine, before);
                        auto& history = extend(project, machine, before);
                        if (!history) {
                            ++machines_read_whole_;
                            history = compare::history(store_, repository_,
                                                       history_source(project, machine, options_),
                                                       "", 0, options_.settings);
                        }
                        return build_machine(state_->head_results, repository_, *history,
                                             state_->runs.at({project, machine}), options_);
                    });
}

}  // namespace benchwatch::serve
