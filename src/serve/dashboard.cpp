#include "serve/dashboard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "compare/changes.hpp"
#include "compare/compare.hpp"
#include "compare/replay.hpp"
#include "model/fnv.hpp"
#include "stats/change_points.hpp"
#include "stats/stats.hpp"

namespace benchwatch::serve {

namespace {

// The trend rule's windows (docs/dashboard.md).
constexpr std::size_t recent_values = 5;
constexpr std::size_t earlier_values = 20;
constexpr std::size_t max_pulls = 100;

std::string first_line(std::string_view message) {
    const auto end = message.find('\n');
    auto line = message.substr(0, end);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    return std::string(line);
}

// The first run of each commit, by commit.
std::unordered_map<std::string, const model::Run*> first_runs(const std::vector<model::Run>& runs) {
    std::unordered_map<std::string, const model::Run*> first;
    for (const auto& run : runs) first.try_emplace(run.commit, &run);
    return first;
}

std::vector<CommitPoint> commit_points(
    const std::vector<std::string>& commits,
    const std::unordered_map<std::string, const model::Run*>& runs,
    const DashboardOptions& options) {
    std::vector<CommitPoint> points;
    points.reserve(commits.size());
    std::int64_t previous_time = 0;
    for (const auto& commit : commits) {
        CommitPoint point;
        point.commit = commit;
        const auto found = runs.find(commit);
        if (found != runs.end()) {
            const model::Run& run = *found->second;
            point.time_ms = run.recorded_at_ms;
            if (run.commit_info) {
                point.subject = first_line(run.commit_info->message);
                point.author = run.commit_info->author;
                point.url = run.commit_info->url;
            }
        }
        if (point.url.empty() && !options.repository_url.empty())
            point.url = options.repository_url + "/commit/" + commit;
        point.time_ms = std::max(point.time_ms, previous_time);
        previous_time = point.time_ms;
        points.push_back(std::move(point));
    }
    return points;
}

// The keys whose values differ between two runs' environments, "" standing for an absent key.
std::vector<KeyChange> differences(const model::Environment& before,
                                   const model::Environment& after) {
    std::vector<KeyChange> changes;
    for (auto& change : compare::environment_differences(before, after))
        changes.push_back(
            {std::move(change.key), change.before.value_or(""), change.after.value_or("")});
    return changes;
}

std::vector<EnvironmentChange> environment_changes(
    const std::vector<std::string>& commits,
    const std::unordered_map<std::string, const model::Run*>& runs) {
    std::vector<EnvironmentChange> changes;
    const model::Environment* previous = nullptr;
    for (std::size_t index = 0; index < commits.size(); ++index) {
        const auto found = runs.find(commits[index]);
        if (found == runs.end() || found->second->environment.empty()) continue;
        const model::Environment& current = found->second->environment;
        if (previous != nullptr) {
            auto keys = differences(*previous, current);
            if (!keys.empty()) changes.push_back({index, std::move(keys)});
        }
        previous = &current;
    }
    return changes;
}

std::vector<PullRun> pull_runs(const std::vector<model::Run>& runs,
                               const std::string& default_branch) {
    std::map<std::string, PullRun> by_commit;
    for (const auto& run : runs) {
        if (run.branch == default_branch) continue;
        PullRun& pull = by_commit[run.commit];
        pull.commit = run.commit;
        pull.branch = run.branch;
        if (run.pull_request) pull.pull_request = run.pull_request;
        pull.time_ms = std::max(pull.time_ms, run.recorded_at_ms);
    }
    std::vector<PullRun> pulls;
    for (auto& [commit, pull] : by_commit) pulls.push_back(std::move(pull));
    std::sort(pulls.begin(), pulls.end(), [](const PullRun& a, const PullRun& b) {
        if (a.time_ms != b.time_ms) return a.time_ms > b.time_ms;
        return a.commit < b.commit;
    });
    if (pulls.size() > max_pulls) pulls.resize(max_pulls);
    return pulls;
}

// Trend, trend change and threshold of one series, per docs/dashboard.md.
void judge_trend(BenchmarkSeries& series, double typical_log_change, double minimum_change,
                 const model::SeedRuleSettings& settings) {
    const double threshold =
        stats::seed_threshold(typical_log_change, settings.factor, minimum_change);
    series.threshold = std::expm1(threshold);
    series.typical_change = std::expm1(typical_log_change);
    std::vector<double> positive;
    for (const double value : series.values)
        if (value > 0) positive.push_back(value);
    const auto shift = stats::recent_shift(positive, recent_values, earlier_values);
    if (!shift || positive.size() < recent_values + 1) return;
    series.trend_change = *shift - 1;
    const bool smaller_is_better = series.direction == model::Direction::SmallerIsBetter;
    switch (stats::judge(1.0, *shift, threshold, smaller_is_better)) {
        case stats::Judgement::Worse:
            series.trend = Trend::Regressed;
            break;
        case stats::Judgement::Better:
            series.trend = Trend::Improved;
            break;
        case stats::Judgement::Unchanged:
            series.trend = Trend::Stable;
            break;
    }
}

// The steps of a series, found among its positive values.
std::vector<SeriesStep> series_steps(const BenchmarkSeries& series) {
    std::vector<double> positive;
    std::vector<std::uint32_t> commits;
    for (std::size_t i = 0; i < series.values.size(); ++i) {
        if (series.values[i] <= 0) continue;
        positive.push_back(series.values[i]);
        commits.push_back(series.commits[i]);
    }
    std::vector<SeriesStep> steps;
    for (const auto& step : stats::detect_steps(positive))
        steps.push_back({commits[step.index], commits[step.index - 1], step.ratio - 1});
    return steps;
}

// Each series' detectable change: the smallest slowdown `method` would flag if a pull request's
// head were judged against the series' history now (head and baseline its latest value).
void add_detectable_changes(std::vector<BenchmarkSeries*>& series,
                            const std::vector<double>& minimum_changes,
                            const compare::Method& method) {
    std::vector<std::vector<double>> histories;
    histories.reserve(series.size());
    std::vector<compare::BenchmarkEvidence> suite;
    std::vector<BenchmarkSeries*> judged;
    for (std::size_t i = 0; i < series.size(); ++i) {
        auto& history = histories.emplace_back();
        for (const double value : series[i]->values)
            if (value > 0) history.push_back(value);
        if (history.empty()) continue;
        compare::BenchmarkEvidence evidence;
        evidence.history = history;
        evidence.base = evidence.head = history.back();
        evidence.smaller_is_better = series[i]->direction == model::Direction::SmallerIsBetter;
        evidence.minimum_change = minimum_changes[i];
        suite.push_back(evidence);
        judged.push_back(series[i]);
    }
    const auto assessments = method.judge(suite);
    for (std::size_t i = 0; i < judged.size(); ++i)
        if (assessments[i].threshold > 0)
            judged[i]->detectable_change = assessments[i].detectable_change;
}

// `choice` as a pull request's report would judge with it on this history now: a level method
// with a budget calibrated on the series' values, as compare calibrates on the default branch.
model::MethodChoice calibrated_method(const std::vector<BenchmarkSeries*>& series,
                                      const std::vector<double>& minimum_changes,
                                      const model::MethodChoice& choice) {
    const auto wanted = compare::calibration_runs(choice);
    if (wanted == 0) return choice;
    compare::BacktestMatrix matrix;
    for (const auto* one : series)
        if (!one->commits.empty())
            matrix.runs = std::max<std::size_t>(matrix.runs, one->commits.back() + 1);
    const std::size_t first = matrix.runs > wanted ? matrix.runs - wanted : 0;
    for (std::size_t i = 0; i < series.size(); ++i) {
        compare::BacktestSeries row;
        row.smaller_is_better = series[i]->direction == model::Direction::SmallerIsBetter;
        row.minimum_change = minimum_changes[i];
        row.values.resize(matrix.runs - first);
        for (std::size_t k = 0; k < series[i]->commits.size(); ++k)
            if (series[i]->commits[k] >= first)
                row.values[series[i]->commits[k] - first] = series[i]->values[k];
        matrix.benchmarks.push_back(std::move(row));
    }
    matrix.runs -= first;
    return compare::calibrated(choice, compare::calibrate_choice(matrix, choice));
}

MachineHistory load_machine(store::Store& store, const vcs::Repository* repository,
                            const std::string& project, const std::string& machine,
                            const std::vector<model::Run>& runs, const DashboardOptions& options) {
    compare::HistorySource source;
    source.project = project;
    source.machine = machine;
    source.default_branch = options.default_branch;
    source.default_branch_revision = options.default_branch_revision;
    const model::History history =
        compare::history(store, repository, source, "", 0, options.settings);

    const auto first = first_runs(runs);
    MachineHistory result;
    result.name = machine;
    result.id = stable_id(machine);
    result.order = history.order;
    result.commits = commit_points(history.commits, first, options);
    result.environment_changes = environment_changes(history.commits, first);
    result.pulls = pull_runs(runs, options.default_branch);

    std::unordered_map<std::string_view, std::uint32_t> position;
    for (std::size_t i = 0; i < history.commits.size(); ++i)
        position.emplace(history.commits[i], static_cast<std::uint32_t>(i));
    const auto last_commit = static_cast<std::uint32_t>(history.commits.size()) - 1;

    std::vector<std::pair<std::size_t, BenchmarkSeries>> sorted;
    std::vector<double> minimum_changes;
    for (const auto& benchmark : history.benchmarks) {
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
        const double minimum_change = model::minimum_change_of(benchmark.name, options.categories);
        series.values = benchmark.values;
        series.commits.reserve(benchmark.commits.size());
        for (const auto& commit : benchmark.commits) series.commits.push_back(position.at(commit));
        series.retired = series.commits.empty() || series.commits.back() != last_commit;
        judge_trend(series, benchmark.typical_change, minimum_change, options.settings);
        minimum_changes.push_back(minimum_change);
        series.steps = series_steps(series);
        sorted.emplace_back(category, std::move(series));
    }
    std::vector<BenchmarkSeries*> all_series;
    for (auto& [category, series] : sorted) all_series.push_back(&series);
    add_detectable_changes(all_series, minimum_changes,
                           *compare::make_method(calibrated_method(all_series, minimum_changes,
                                                                   options.method)));
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [category, series] : sorted) result.benchmarks.push_back(std::move(series));
    return result;
}

}  // namespace

std::string stable_id(std::string_view name) {
    return fmt::format("{:016x}", model::fnv1a(name));
}

const char* to_string(Trend trend) {
    switch (trend) {
        case Trend::Regressed:
            return "regressed";
        case Trend::Improved:
            return "improved";
        case Trend::Stable:
            break;
    }
    return "stable";
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
    Dashboard dashboard;
    dashboard.default_branch = options.default_branch;
    dashboard.last_run_id = store.last_run_id();
    for (const auto& name : store.projects()) {
        std::map<std::string, std::vector<model::Run>> runs_by_machine;
        for (auto& run :
             store.list_runs({.project = name, .machine = "", .branch = "", .commits = {}}))
            runs_by_machine[run.machine].push_back(std::move(run));

        ProjectHistory project;
        project.name = name;
        project.id = stable_id(name);
        std::size_t most_commits = 0;
        for (const auto& [machine, runs] : runs_by_machine) {
            auto history = load_machine(store, repository, name, machine, runs, options);
            if (history.commits.empty()) continue;
            if (history.commits.size() > most_commits) {
                most_commits = history.commits.size();
                project.default_machine = machine;
            }
            project.machines.push_back(std::move(history));
        }
        if (!project.machines.empty()) dashboard.projects.push_back(std::move(project));
    }
    return dashboard;
}

}  // namespace benchwatch::serve
