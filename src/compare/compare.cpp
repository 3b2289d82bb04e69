#include "compare/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <string_view>
#include <utility>

#include "compare/calibration_cache.hpp"
#include "compare/changes.hpp"
#include "compare/method.hpp"
#include "compare/replay.hpp"
#include "compare/runs.hpp"
#include "model/commit_id.hpp"
#include "model/environment_keys.hpp"
#include "model/sort_large.hpp"
#include "stats/slow_spells.hpp"
#include "stats/stats.hpp"

namespace benchwatch::compare {

namespace {

using detail::CombinedResults;
using detail::ResultKey;
using detail::RunIndex;

// Shortest commit prefix accepted when git cannot resolve a revision.
constexpr std::size_t shortest_prefix = 7;

// A revision turned into a recorded commit id.
struct LocatedCommit {
    std::string commit;
    bool known_to_git = false;  // git resolved it, so its ancestry can be asked
};

// The commit `revision` names: git's answer when it has runs, else a recorded commit equal to
// `revision` or the only one starting with it (at least 7 characters). An unmatched revision is
// returned as given (or as git resolved it) for the caller's "no run" message.
LocatedCommit locate(const std::string& revision, const vcs::Repository* repository,
                     const RunIndex& index, const HistorySource& source) {
    std::optional<std::string> resolved;
    if (repository != nullptr) resolved = repository->resolve(revision);
    if (resolved && index.has(*resolved)) return {*resolved, true};
    if (index.has(revision)) return {revision, false};
    if (revision.size() >= shortest_prefix) {
        const auto matches = index.commits_starting_with(revision);
        if (matches.size() == 1) return {matches.front(), false};
        if (matches.size() > 1)
            throw CompareError(fmt::format(
                "commit prefix '{}' matches {} recorded commits of project '{}' on machine '{}' "
                "({}, {}…); give more digits",
                revision, matches.size(), source.project, source.machine, matches[0], matches[1]));
    }
    if (resolved) return {*resolved, true};
    return {revision, false};
}

std::string no_run_message(const std::string& commit, const HistorySource& source) {
    return fmt::format(
        "no run of commit {} for project '{}' on machine '{}'; record one with `benchwatch record "
        "--commit {}` first",
        commit, source.project, source.machine, commit);
}

// The runs a comparison side is made of: combined results, the latest attempt's environment
// (split into the machine's keys and the rest) and warnings, and how many runs of the harness its
// results are the best of.
struct Side {
    std::string commit;
    CombinedResults results;
    model::Environment environment;  // without machine keys or benchwatch's own
    model::Environment machine;
    std::vector<model::Warning> warnings;
    // Every attempt's model::repetitions_key added up, since reruns are combined by their best;
    // std::nullopt when an attempt does not say (a run stored by `record`).
    std::optional<long> repetitions;
};

// `environment` into the side's machine keys and the rest; benchwatch's own keys about how the
// run was measured are left out, as measured_differently() compares what they say.
void split_environment(const model::Environment& environment, Side& side) {
    for (const auto& [key, value] : environment) {
        if (model::is_measurement_key(key)) continue;
        (model::is_machine_key(key) ? side.machine : side.environment).emplace(key, value);
    }
}

// The repetitions `runs` were measured with together; std::nullopt unless every one says.
std::optional<long> repetitions_of(std::span<const model::Run* const> runs) {
    long total = 0;
    for (const auto* run : runs) {
        const auto found = run->environment.find(std::string(model::repetitions_key));
        if (found == run->environment.end()) return std::nullopt;
        const auto& text = found->second;
        long count = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
        if (error != std::errc() || end != text.data() + text.size() || count < 1)
            return std::nullopt;
        total += count;
    }
    return total;
}

// The side of `commit`, whose runs' combined results are `results`.
Side side_of(const RunIndex& index, const std::string& commit, CombinedResults results) {
    const auto runs = index.runs_of(commit);
    assert(!runs.empty());
    const model::Run& latest = *runs.back();
    Side side{commit, std::move(results), {}, {}, latest.warnings, {}};
    side.repetitions = repetitions_of(runs);
    split_environment(latest.environment, side);
    return side;
}

Side load_side(store::Store& store, const RunIndex& index, const std::string& commit,
               std::set<std::string>* ignored = nullptr) {
    return side_of(index, commit, detail::load_combined(store, index, commit, ignored));
}

// The sides of `head` and `base`, read together: one reading of their benchmarks' names.
std::pair<Side, Side> load_sides(store::Store& store, const RunIndex& index,
                                 const std::string& head, const std::string& base,
                                 std::set<std::string>* ignored) {
    if (head == base) {
        auto side = load_side(store, index, head, ignored);
        return {side, side};
    }
    std::array<std::string, 2> commits{head, base};
    std::array<CombinedResults, 2> results;
    detail::visit_history(
        store, index, commits,
        [&](std::size_t position, CombinedResults& combined) {
            results[position] = std::move(combined);
            return true;
        },
        ignored);
    return {side_of(index, head, std::move(results[0])),
            side_of(index, base, std::move(results[1]))};
}

// The chosen baseline and the history that leads up to it, newest first.
struct BaselineChoice {
    model::Baseline baseline;
    std::vector<std::string> history;  // newest first; starts with baseline.commit when it exists
    model::HistoryOrder history_order = model::HistoryOrder::Recorded;
};

// The default branch as a git revision, or std::nullopt when git has none.
std::optional<std::string> default_branch_revision(const vcs::Repository& repository,
                                                   const HistorySource& source) {
    if (source.default_branch_revision.empty()) return repository.default_branch();
    if (!repository.resolve(source.default_branch_revision))
        throw CompareError(
            fmt::format("default branch '{}' is not a revision of the repository in {}; pass "
                        "--default-branch with a branch that exists",
                        source.default_branch_revision, repository.top_level().string()));
    return source.default_branch_revision;
}

// History of an already chosen baseline commit: its first-parent chain when git knows it, else
// the default branch's runs recorded up to it.
void fill_history(BaselineChoice& choice, const vcs::Repository* repository, const RunIndex& index,
                  const HistorySource& source, const std::string& head) {
    const auto& commit = choice.baseline.commit;
    // A recorded commit reaches git only as a full SHA, whatever wrote the store.
    if (repository != nullptr && model::CommitId::parse(commit) &&
        repository->resolve(commit) == commit) {
        const auto chain = repository->first_parent_chain(commit, 0);
        choice.history = detail::benchmarked_commits(chain, index, head);
        choice.history_order = model::HistoryOrder::Git;
    } else {
        choice.history = detail::recorded_commits(index, source.default_branch, head, commit);
        choice.history_order = model::HistoryOrder::Recorded;
    }
}

// The merge base with the default branch, or its nearest first-parent ancestor with a clean run.
// The head's own commit is never its baseline.
std::optional<BaselineChoice> choose_with_git(const vcs::Repository& repository,
                                              const RunIndex& index, const HistorySource& source,
                                              const std::string& head) {
    const auto default_branch = default_branch_revision(repository, source);
    if (!default_branch) return std::nullopt;

    BaselineChoice choice;
    choice.history_order = model::HistoryOrder::Git;
    const auto merge_base = repository.merge_base(head, *default_branch);
    if (!merge_base) return choice;
    choice.baseline.merge_base = *merge_base;

    const auto chain = repository.first_parent_chain(*merge_base, 0);
    for (std::size_t steps = 0; steps < chain.size(); ++steps) {
        if (chain[steps] == head || !index.has_clean(chain[steps])) continue;
        choice.baseline.kind =
            steps == 0 ? model::BaselineKind::MergeBase : model::BaselineKind::NearestAncestor;
        choice.baseline.commit = chain[steps];
        choice.baseline.commits_earlier = static_cast<int>(steps);
        choice.history = detail::benchmarked_commits(std::span(chain).subspan(steps), index, head);
        return choice;
    }
    return choice;
}

// Without git: the latest clean run recorded on the default branch's name that is not the head's.
BaselineChoice choose_recorded(const RunIndex& index, const HistorySource& source,
                               const std::string& head) {
    BaselineChoice choice;
    const auto& runs = index.runs();
    const auto latest = std::find_if(runs.rbegin(), runs.rend(), [&](const model::Run& run) {
        return run.branch == source.default_branch && run.commit != head && !model::is_dirty(run);
    });
    if (latest == runs.rend()) return choice;
    choice.baseline.kind = model::BaselineKind::LatestOnDefaultBranch;
    choice.baseline.commit = latest->commit;
    choice.history = detail::recorded_commits(index, source.default_branch, head, latest->commit);
    return choice;
}

BaselineChoice choose_baseline(const vcs::Repository* repository, const RunIndex& index,
                               const CompareOptions& options, const LocatedCommit& head) {
    const auto& source = options.source;
    if (options.base) {
        const auto base = locate(*options.base, repository, index, source);
        if (!index.has(base.commit)) throw CompareError(no_run_message(base.commit, source));
        BaselineChoice choice;
        choice.baseline.kind = model::BaselineKind::Explicit;
        choice.baseline.commit = base.commit;
        fill_history(choice, repository, index, source, head.commit);
        return choice;
    }
    if (repository != nullptr && head.known_to_git) {
        if (auto choice = choose_with_git(*repository, index, source, head.commit)) return *choice;
    }
    return choose_recorded(index, source, head.commit);
}

// Whether every run of `commit` was recorded while the machine was busy.
bool recorded_under_load(const RunIndex& index, const std::string& commit) {
    // A commit's runs are combined by each benchmark's best value, so one run made without
    // load (a commit measured again) is enough for its values to be trusted.
    const auto runs = index.runs_of(commit);
    return !runs.empty() && std::all_of(runs.begin(), runs.end(), [](const model::Run* run) {
        return std::any_of(
            run->warnings.begin(), run->warnings.end(),
            [](const model::Warning& warning) { return warning.kind == "high-load"; });
    });
}

// Which points of a history a comparison leaves out, and what the slow spells found say.
struct LeftOutPoints {
    std::vector<bool> left_out;  // per point, newest first
    stats::SlowSpells spells;    // per point, oldest first
};

// The points of `newest_first` (per point, newest first, each key's value or NaN) in which the
// whole suite moved together away from the points around them (stats::find_slow_spells, moves
// beyond `smallest_move`), and those `loaded` (recorded under load) while at most half are.
LeftOutPoints left_out_points(const std::vector<std::vector<double>>& newest_first,
                              const std::vector<bool>& loaded, double smallest_move) {
    std::vector<std::vector<double>> oldest_first(newest_first.rbegin(), newest_first.rend());
    for (auto& row : oldest_first)
        for (auto& value : row) value = std::log(value);
    LeftOutPoints points{std::vector<bool>(newest_first.size(), false),
                         stats::find_slow_spells(oldest_first, smallest_move)};
    // When most runs were recorded under load, that is how this machine is; it says nothing.
    const bool load_says_something =
        2 * static_cast<std::size_t>(std::count(loaded.begin(), loaded.end(), true)) <=
        newest_first.size();
    for (std::size_t p = 0; p < newest_first.size(); ++p)
        points.left_out[p] =
            points.spells.moved[newest_first.size() - 1 - p] || (load_says_something && loaded[p]);
    return points;
}

// The newest points of a history as one reading gave them, kept so that a second reader of the
// same points need not read them again: the calibration and the levels read mostly the same runs.
struct ReadPoints {
    struct Value {
        std::size_t key = 0;  // its number in `keys`
        double value = 0;
    };
    detail::ValueKeys keys;
    std::vector<std::vector<Value>> newest_first;  // each point's values, from the newest point
    // Up to how many points a reading keeps; the first reader sets it to what the second needs.
    std::size_t wanted = 0;

    // Keeps point `position` (read in order from the newest) when it is among the wanted ones.
    void keep(std::size_t position, std::span<const detail::KeyedValue> values) {
        if (position >= wanted || position != newest_first.size()) return;
        auto& point = newest_first.emplace_back();
        point.reserve(values.size());
        for (const auto& value : values) point.push_back({value.key, value.value});
    }
};

// Each key's values in the history, oldest first, at most `wanted` of them, leaving out the runs
// in which the whole suite moved together away from the runs around it (stats::find_slow_spells
// over the newest `wanted` + kSpellReserve points, moves beyond `smallest_move`) and those
// recorded under load while most were not; those runs are written to `comparison`. The newest
// points are read first, and reading stops once every key has enough; the points in `read` (the
// newest ones, as an earlier reading kept them) are taken from there. The comparison's
// history_runs is set to how many history points, from the newest, any of the values came from.
std::map<ResultKey, std::vector<double>> history_series(
    store::Store& store, const RunIndex& index, std::span<const std::string> history,
    const std::string& newest_commit, const CombinedResults& newest,
    const std::set<ResultKey>& keys, std::size_t wanted, double smallest_move, ReadPoints& read,
    model::Comparison& comparison) {
    const std::vector<ResultKey> key_list(keys.begin(), keys.end());
    const std::size_t target = wanted + kSpellReserve;
    std::vector<std::vector<double>> newest_first;  // one row per history point, NaN: no value
    std::vector<std::size_t> counts(key_list.size(), 0);
    std::size_t unfinished = key_list.size();
    detail::ValueKeys& numbers = read.keys;
    // Per key number: its place in key_list, or key_list.size() when it is not one of `keys`.
    std::vector<std::size_t> place_of;
    const auto take = [&](const auto& values) {
        auto& row = newest_first.emplace_back(key_list.size(), NAN);
        while (place_of.size() < numbers.size()) {
            const auto& key = numbers.key(place_of.size());
            const auto found = std::lower_bound(key_list.begin(), key_list.end(), key);
            place_of.push_back(found != key_list.end() && *found == key
                                   ? static_cast<std::size_t>(found - key_list.begin())
                                   : key_list.size());
        }
        for (const auto& value : values) {
            const auto k = place_of[value.key];
            if (k == key_list.size() || !(value.value > 0)) continue;
            row[k] = value.value;
            if (counts[k] < target && ++counts[k] == target) --unfinished;
        }
        return unfinished > 0;
    };
    // The baseline is the history's newest point, and its results are already loaded unless an
    // earlier reading kept them; point p is history[p].
    std::size_t first = 0;
    bool more = true;
    for (; more && first < read.newest_first.size(); ++first) more = take(read.newest_first[first]);
    if (more && first == 0 && !history.empty() && history.front() == newest_commit) {
        std::vector<ReadPoints::Value> values;
        for (const auto& [key, result] : newest)
            values.push_back({numbers.number(key), result.value});
        more = take(values);
        first = 1;
    }
    if (more && first < history.size())
        detail::visit_history_values(
            store, index, history.subspan(first), numbers,
            [&](std::size_t, std::span<const detail::KeyedValue> values) { return take(values); });

    std::vector<bool> loaded(newest_first.size());
    for (std::size_t p = 0; p < newest_first.size(); ++p)
        loaded[p] = recorded_under_load(index, history[p]);
    const auto [left_out, spells] = left_out_points(newest_first, loaded, smallest_move);
    std::vector<double> moves;
    for (std::size_t p = 0; p < newest_first.size(); ++p) {
        if (!left_out[p]) continue;
        comparison.left_out_runs.push_back(history[p]);
        const std::size_t oldest_index = newest_first.size() - 1 - p;
        if (spells.moved[oldest_index]) moves.push_back(spells.suite_deviation[oldest_index]);
    }
    comparison.left_out_unsettled = spells.unsettled;
    if (!moves.empty()) comparison.left_out_move = std::expm1(stats::median(moves));

    std::map<ResultKey, std::vector<double>> series;
    comparison.history_runs = 0;
    for (std::size_t k = 0; k < key_list.size(); ++k) {
        std::vector<double> values;
        for (std::size_t p = 0; p < newest_first.size() && values.size() < wanted; ++p) {
            if (left_out[p] || std::isnan(newest_first[p][k])) continue;
            values.push_back(newest_first[p][k]);
            comparison.history_runs = std::max(comparison.history_runs, static_cast<int>(p) + 1);
        }
        if (values.empty()) continue;
        std::reverse(values.begin(), values.end());
        series.emplace(key_list[k], std::move(values));
    }
    return series;
}

// The newest `runs` points of the history (newest first), as a matrix over every benchmark
// measured in them, oldest run first; the points `read` wants are kept there too.
BacktestMatrix history_matrix(store::Store& store, const RunIndex& index,
                              std::span<const std::string> history, std::size_t runs,
                              const std::vector<model::Category>& categories, ReadPoints& read) {
    const auto count = std::min(runs, history.size());
    detail::ValueKeys& keys = read.keys;
    std::vector<BacktestSeries> series;  // by key number
    detail::visit_history_values(
        store, index, history.first(count), keys,
        [&](std::size_t position, std::span<const detail::KeyedValue> values) {
            read.keep(position, values);
            if (series.size() < keys.size()) series.resize(keys.size());
            for (const auto& value : values) {
                auto& one = series[value.key];
                if (one.values.empty()) {
                    const auto& key = keys.key(value.key);
                    one.values.resize(count);
                    one.smaller_is_better = value.direction == model::Direction::SmallerIsBetter;
                    one.minimum_change = model::minimum_change_of(key.benchmark, key.metric,
                                                                  categories, index.rules());
                    one.budget_weight = model::budget_weight_of(key.benchmark, index.rules());
                }
                one.values[count - 1 - position] = value.value;
            }
            return true;
        });
    std::vector<std::size_t> by_name(series.size());
    std::iota(by_name.begin(), by_name.end(), std::size_t{0});
    std::sort(by_name.begin(), by_name.end(),
              [&](std::size_t a, std::size_t b) { return keys.key(a) < keys.key(b); });
    BacktestMatrix matrix;
    matrix.runs = count;
    for (const auto number : by_name)
        if (!series[number].values.empty()) matrix.benchmarks.push_back(std::move(series[number]));
    return matrix;
}

// The calibration of `options.method` on the newest runs of `history` (newest first) that it
// reads, from the store's cache when it holds the one for these runs and settings.
model::Calibration calibration_of(store::Store& store, const RunIndex& index,
                                  std::span<const std::string> history,
                                  const CompareOptions& options,
                                  const std::vector<model::Category>& categories,
                                  ReadPoints& read) {
    const auto runs = calibration_runs(options.method);
    const auto calibrate = [&] {
        return calibrate_choice(history_matrix(store, index, history, runs, categories, read),
                                options.method);
    };
    if (runs == 0) return calibrate();
    const store::CalibrationKey key{
        options.source.project, options.source.machine,
        detail::calibration_settings_fingerprint(options.method, categories, options.rules),
        detail::calibration_history_fingerprint(history.first(std::min(runs, history.size())),
                                                index)};
    return detail::cached_calibration(store, key, calibrate, [&](const model::Calibration& cached) {
        return calibration_out_of_range(cached, options.method);
    });
}

model::AllocationChange allocation_change(const model::Result& base, const model::Result& head) {
    if (!base.allocations || !head.allocations) return model::AllocationChange::None;
    if (*base.allocations == 0 && *head.allocations > 0) return model::AllocationChange::Starts;
    if (*base.allocations > 0 && *head.allocations == 0) return model::AllocationChange::Stops;
    return model::AllocationChange::None;
}

// The category of `benchmark`; a configuration without a catch-all gets one appended for the
// benchmarks that no prefix matches.
std::size_t category_of(const std::string& benchmark, std::vector<model::Category>& categories) {
    const auto index = model::categorize(benchmark, categories);
    if (index < categories.size()) return index;
    categories.push_back(model::catch_all_category());
    return categories.size() - 1;
}

void sort_by_name(std::vector<model::Result>& results) {
    const auto less = [](const model::Result& a, const model::Result& b) {
        if (a.benchmark != b.benchmark) return model::name_less(a.benchmark, b.benchmark);
        return a.metric < b.metric;
    };
    model::sort_large(results, less);
}

// The verdict a benchmark's rounds settle on: confirmed as the direction measured (a confirmed
// flag is confirmed in its own direction), dismissed as Unchanged, undecided as Inconclusive.
model::Verdict settled_verdict(const model::ConfirmedBenchmark& measured) {
    switch (measured.verdict) {
        case model::ConfirmationVerdict::Confirmed:
            return measured.measured;
        case model::ConfirmationVerdict::Dismissed:
            return model::Verdict::Unchanged;
        case model::ConfirmationVerdict::Undecided:
            break;
    }
    return model::Verdict::Inconclusive;
}

// The report's order: by category, then display name.
void sort_benchmarks(model::Comparison& comparison) {
    model::sort_large(comparison.benchmarks,
                      [](const model::BenchmarkComparison& a, const model::BenchmarkComparison& b) {
                          if (a.category != b.category) return a.category < b.category;
                          if (a.display_name != b.display_name)
                              return model::name_less(a.display_name, b.display_name);
                          if (a.name != b.name) return a.name < b.name;
                          return a.metric < b.metric;
                      });
}

std::vector<model::Result> values_of(const CombinedResults& results) {
    std::vector<model::Result> list;
    for (const auto& [key, result] : results) list.push_back(result);
    sort_by_name(list);
    return list;
}

// Every benchmark in both runs, judged together by `method`, plus new
// and removed ones.
void judge_benchmarks(model::Comparison& comparison, const Side& head, const Side& base,
                      const std::map<ResultKey, std::vector<double>>& series, const Method& method,
                      const model::BenchmarkRules& rules) {
    std::vector<BenchmarkEvidence> suite;
    for (const auto& [key, head_result] : head.results) {
        const auto base_found = base.results.find(key);
        if (base_found == base.results.end()) {
            comparison.added.push_back(head_result);
            continue;
        }
        const auto& base_result = base_found->second;
        model::BenchmarkComparison benchmark;
        benchmark.name = key.benchmark;
        benchmark.category = category_of(key.benchmark, comparison.categories);
        benchmark.display_name = model::with_metric(
            model::display_name(key.benchmark, comparison.categories[benchmark.category]),
            key.metric);
        benchmark.metric = key.metric;
        benchmark.unit = head_result.unit;
        benchmark.direction = head_result.direction;
        benchmark.base = base_result.value;
        benchmark.head = head_result.value;
        benchmark.allocation_change = allocation_change(base_result, head_result);
        benchmark.base_allocations = base_result.allocations;
        benchmark.head_allocations = head_result.allocations;

        BenchmarkEvidence evidence;
        const auto found_series = series.find(key);
        if (found_series != series.end()) evidence.history = found_series->second;
        evidence.base = benchmark.base;
        evidence.head = benchmark.head;
        evidence.smaller_is_better = benchmark.direction == model::Direction::SmallerIsBetter;
        evidence.minimum_change = model::minimum_change_of(benchmark.name, benchmark.metric,
                                                           comparison.categories, rules);
        evidence.budget_weight = model::budget_weight_of(benchmark.name, rules);
        if (base_result.samples) evidence.base_samples = &*base_result.samples;
        if (head_result.samples) evidence.head_samples = &*head_result.samples;
        suite.push_back(evidence);
        comparison.benchmarks.push_back(std::move(benchmark));
    }
    const auto judgement = method.judge(suite);
    const auto& assessments = judgement.benchmarks;
    assert(assessments.size() == comparison.benchmarks.size());
    comparison.suite_move = judgement.suite_move;
    comparison.run_to_run_spread = judgement.run_to_run;
    comparison.run_to_run_assumed = judgement.run_to_run_assumed;
    for (std::size_t i = 0; i < assessments.size(); ++i) {
        auto& benchmark = comparison.benchmarks[i];
        benchmark.typical_change = assessments[i].typical_change;
        benchmark.history_pairs = assessments[i].history_pairs;
        benchmark.threshold = assessments[i].threshold;
        benchmark.detectable_change = assessments[i].detectable_change;
        benchmark.verdict = assessments[i].verdict;
        if (benchmark.base > 0 && assessments[i].reference > 0)
            benchmark.base = assessments[i].reference;
        if (assessments[i].head_value > 0) benchmark.head = assessments[i].head_value;
    }
    for (const auto& [key, base_result] : base.results)
        if (!head.results.contains(key)) comparison.removed.push_back(base_result);
    sort_by_name(comparison.added);
    sort_by_name(comparison.removed);
    sort_benchmarks(comparison);
}

// Geometric mean of the slowdown ratios (head/base for times, base/head for metrics where bigger
// is better, so that a 20% drop in throughput counts as 1/0.8 = +25% and cannot cancel a 25%
// slower time), counts of unusual and too noisy verdicts and of benchmarks, per category.
std::vector<model::CategorySummary> summarize(const model::Comparison& comparison) {
    std::vector<model::CategorySummary> summaries(comparison.categories.size());
    std::vector<std::vector<double>> ratios(comparison.categories.size());
    for (const auto& benchmark : comparison.benchmarks) {
        auto& summary = summaries[benchmark.category];
        ++summary.compared;
        if (benchmark.verdict == model::Verdict::Slower) ++summary.slower;
        if (benchmark.verdict == model::Verdict::Faster) ++summary.faster;
        if (benchmark.verdict == model::Verdict::TooNoisy) ++summary.too_noisy;
        if (benchmark.base > 0 && benchmark.head > 0)
            ratios[benchmark.category].push_back(benchmark.direction ==
                                                         model::Direction::BiggerIsBetter
                                                     ? benchmark.base / benchmark.head
                                                     : benchmark.head / benchmark.base);
    }
    for (std::size_t i = 0; i < summaries.size(); ++i)
        summaries[i].geometric_mean_change = stats::geometric_mean(ratios[i]) - 1.0;
    return summaries;
}

Side side_of(const ResultsFile& file, const model::BenchmarkRules& rules,
             std::set<std::string>& ignored) {
    Side side;
    side.commit = file.name;
    for (const auto& result : file.results) {
        if (model::is_ignored(result.benchmark, rules)) {
            ignored.insert(result.benchmark);
            continue;
        }
        side.results.emplace(ResultKey{result.benchmark, result.metric}, result);
    }
    split_environment(file.environment, side);
    return side;
}

// The median number of samples per benchmark on each side, over the benchmarks that carry
// samples on both (head first); std::nullopt when none does.
std::optional<std::pair<double, double>> median_samples(const Side& base, const Side& head) {
    std::vector<double> base_counts;
    std::vector<double> head_counts;
    for (const auto& [key, head_result] : head.results) {
        const auto found = base.results.find(key);
        if (found == base.results.end()) continue;
        const auto& base_samples = found->second.samples;
        const auto& head_samples = head_result.samples;
        if (!base_samples || !head_samples || base_samples->count < 1 || head_samples->count < 1)
            continue;
        base_counts.push_back(static_cast<double>(base_samples->count));
        head_counts.push_back(static_cast<double>(head_samples->count));
    }
    if (head_counts.empty()) return std::nullopt;
    return std::pair{stats::median(head_counts), stats::median(base_counts)};
}

// A warning when the head and the baseline were not measured alike: the best of more runs of the
// harness on one side, or (when both runs say nothing of that, or agree) at least twice the
// samples per benchmark by median. Smaller differences in samples are left alone, since a
// harness that samples for a fixed time takes fewer samples of a slower benchmark.
std::optional<model::Warning> measured_differently(const Side& base, const Side& head) {
    constexpr std::string_view advice =
        "measure both the same way (the [measure] recipe's run, or the same --repetitions)";
    if (base.repetitions && head.repetitions && *base.repetitions != *head.repetitions) {
        const auto how = [](long count, bool whole) {
            if (count == 1) return std::string(whole ? "from 1 repetition" : "from 1");
            return fmt::format("as the best of {}{}", count, whole ? " repetitions" : "");
        };
        return model::Warning{
            "measured-differently",
            fmt::format("The head was measured {} and the baseline {}; {}",
                        how(*head.repetitions, true), how(*base.repetitions, false), advice)};
    }
    const auto samples = median_samples(base, head);
    if (!samples) return std::nullopt;
    const auto [head_samples, base_samples] = *samples;
    if (std::max(head_samples, base_samples) < 2 * std::min(head_samples, base_samples))
        return std::nullopt;
    return model::Warning{
        "measured-differently",
        fmt::format("The head was measured with {:g} samples per benchmark (the median) and the "
                    "baseline with {:g}; measure both the same way (the [measure] recipe's run, "
                    "or the same harness options)",
                    head_samples, base_samples)};
}

// The summaries and the environment and machine differences of a judged comparison.
void add_totals_and_differences(model::Comparison& comparison, const Side& base, const Side& head) {
    comparison.summaries = summarize(comparison);
    comparison.environment_changes = environment_differences(base.environment, head.environment);
    if (!base.machine.empty() && !head.machine.empty())
        comparison.machine_changes = environment_differences(base.machine, head.machine);
}

}  // namespace

model::Comparison paired_comparison(model::Confirmation rounds, const PairedCommits& commits,
                                    const std::vector<model::Category>& categories,
                                    const model::BenchmarkRules& rules) {
    model::Comparison comparison;
    comparison.project = commits.project;
    comparison.machine = commits.machine;
    comparison.head_commit = commits.head;
    comparison.baseline.kind = model::BaselineKind::MergeBase;
    comparison.baseline.commit = commits.base;
    comparison.baseline.merge_base = commits.base;
    comparison.categories = categories;
    comparison.paired = true;
    for (const auto& measured : rounds.benchmarks) {
        model::BenchmarkComparison benchmark;
        benchmark.name = measured.name;
        benchmark.category = category_of(measured.name, comparison.categories);
        const auto& category = comparison.categories[benchmark.category];
        benchmark.display_name =
            model::with_metric(model::display_name(measured.name, category), measured.metric);
        benchmark.metric = measured.metric;
        benchmark.unit = measured.unit;
        benchmark.direction = measured.direction;
        benchmark.base = measured.base_median;
        benchmark.head = measured.base_median * (1 + measured.change);
        // An undecided benchmark says nothing of what could be detected: it has no rounds that
        // count towards the report's line on that.
        const bool decided = measured.verdict != model::ConfirmationVerdict::Undecided;
        benchmark.history_pairs = decided ? measured.rounds : 0;
        const double minimum =
            model::minimum_change_of(measured.name, measured.metric, comparison.categories, rules);
        benchmark.threshold = std::log1p(minimum);
        benchmark.detectable_change = minimum;
        if (measured.change_low && measured.change_high)
            benchmark.typical_change =
                (std::log1p(*measured.change_high) - std::log1p(*measured.change_low)) / 2;
        benchmark.verdict = settled_verdict(measured);
        comparison.benchmarks.push_back(std::move(benchmark));
    }
    sort_benchmarks(comparison);
    comparison.summaries = summarize(comparison);
    comparison.confirmation = std::move(rounds);
    return comparison;
}

void settle_by_confirmation(model::Comparison& comparison) {
    if (!comparison.confirmation) return;
    for (auto& benchmark : comparison.benchmarks) {
        if (!model::flags_change(benchmark.verdict)) continue;
        const auto& decided = comparison.confirmation->benchmarks;
        const auto found = std::find_if(decided.begin(), decided.end(), [&](const auto& entry) {
            return entry.name == benchmark.name && entry.metric == benchmark.metric;
        });
        if (found == decided.end()) continue;
        benchmark.confirmation = found->verdict;
        benchmark.verdict = settled_verdict(*found);
    }
    comparison.summaries = summarize(comparison);
}

namespace {

// Other work on the machine only ever slows a run down, so a pull request's run recorded under
// load cannot show that it got slower; what it shows faster, or unchanged, still holds. When every
// run of the head was recorded under load and at most half of `history`'s commits were (where
// most were, that is how this machine is, and the levels carry it too), every slower verdict of a
// metric that is timed becomes Inconclusive and comparison.head_under_load is set.
void distrust_slowdowns_under_load(model::Comparison& comparison, const RunIndex& index,
                                   std::span<const std::string> history) {
    if (!recorded_under_load(index, comparison.head_commit)) return;
    const auto loaded = std::count_if(history.begin(), history.end(), [&](const auto& commit) {
        return recorded_under_load(index, commit);
    });
    if (2 * static_cast<std::size_t>(loaded) > history.size()) return;
    comparison.head_under_load = true;
    for (auto& benchmark : comparison.benchmarks)
        if (benchmark.verdict == model::Verdict::Slower &&
            !model::is_counted_metric(benchmark.metric))
            benchmark.verdict = model::Verdict::Inconclusive;
    comparison.summaries = summarize(comparison);
}

}  // namespace

model::Comparison compare_files(const ResultsFile& base, const ResultsFile& head,
                                const model::MethodChoice& method,
                                const std::vector<model::Category>& categories,
                                const model::BenchmarkRules& rules) {
    std::set<std::string> ignored;
    const auto base_side = side_of(base, rules, ignored);
    const auto head_side = side_of(head, rules, ignored);
    model::Comparison comparison;
    comparison.head_commit = head.name;
    comparison.baseline.kind = model::BaselineKind::Files;
    comparison.baseline.commit = base.name;
    comparison.method = method;
    comparison.calibration.source = model::CalibrationSource::Fixed;
    comparison.categories = categories;
    comparison.history_order = model::HistoryOrder::None;
    comparison.machine_environment = head_side.machine;
    comparison.ignored.assign(ignored.begin(), ignored.end());
    judge_benchmarks(comparison, head_side, base_side, {}, *make_method(method), rules);
    if (comparison.benchmarks.empty())
        throw CompareError(fmt::format(
            "no benchmark is in both {} ({} result{}) and {} ({} result{}); compare two runs of "
            "one suite",
            base.name, base.results.size(), base.results.size() == 1 ? "" : "s", head.name,
            head.results.size(), head.results.size() == 1 ? "" : "s"));
    add_totals_and_differences(comparison, base_side, head_side);
    return comparison;
}

model::Comparison compare(store::Store& store, const vcs::Repository* repository,
                          const CompareOptions& options) {
    const auto& source = options.source;
    const auto index = detail::index_runs(store, source.project, source.machine, options.rules);

    const auto head_commit = locate(options.head, repository, index, source);
    if (!index.has(head_commit.commit))
        throw CompareError(no_run_message(head_commit.commit, source));
    std::set<std::string> ignored;
    model::Comparison comparison;
    comparison.project = source.project;
    comparison.machine = source.machine;
    comparison.head_commit = head_commit.commit;
    comparison.method = options.method;
    comparison.categories = options.categories;
    comparison.history_url = options.history_url;
    const auto list_ignored = [&] { comparison.ignored.assign(ignored.begin(), ignored.end()); };

    auto choice = choose_baseline(repository, index, options, head_commit);
    comparison.baseline = choice.baseline;
    comparison.history_order = choice.history_order;
    if (choice.baseline.kind == model::BaselineKind::None) {
        const auto head = load_side(store, index, head_commit.commit, &ignored);
        comparison.machine_environment = head.machine;
        comparison.head_warnings = head.warnings;
        comparison.head_only_results = values_of(head.results);
        comparison.summaries.resize(comparison.categories.size());
        list_ignored();
        return comparison;
    }

    const auto [head, base] =
        load_sides(store, index, head_commit.commit, choice.baseline.commit, &ignored);
    comparison.machine_environment = head.machine;
    comparison.head_warnings = head.warnings;
    list_ignored();
    std::set<ResultKey> compared_keys;
    for (const auto& [key, result] : head.results)
        if (base.results.contains(key)) compared_keys.insert(key);
    ReadPoints read;
    read.wanted = make_method(options.method)->history_wanted() + kSpellReserve;
    comparison.calibration =
        calibration_of(store, index, choice.history, options, comparison.categories, read);
    comparison.method = calibrated(options.method, comparison.calibration);
    const auto method = make_method(comparison.method);
    const auto wanted = method->history_wanted();
    const auto series =
        history_series(store, index, choice.history, base.commit, base.results, compared_keys,
                       wanted, smallest_spell_move(comparison.categories), read, comparison);

    judge_benchmarks(comparison, head, base, series, *method, options.rules);
    distrust_slowdowns_under_load(comparison, index, choice.history);
    add_totals_and_differences(comparison, base, head);
    if (auto warning = measured_differently(base, head))
        comparison.head_warnings.push_back(std::move(*warning));
    comparison.baseline_warnings = base.warnings;
    return comparison;
}

std::vector<std::string> disturbed_commits(store::Store& store, const std::string& project,
                                           const std::string& machine,
                                           std::span<const std::string> commits,
                                           const std::vector<model::Category>& categories) {
    const auto index = detail::index_runs(store, project, machine);
    std::vector<std::string> newest_first;
    for (auto commit = commits.rbegin(); commit != commits.rend(); ++commit)
        if (index.has_clean(*commit)) newest_first.push_back(*commit);
    ReadPoints read;
    const auto matrix =
        history_matrix(store, index, newest_first, newest_first.size(), categories, read);
    std::vector<std::vector<double>> values(matrix.runs,
                                            std::vector<double>(matrix.benchmarks.size(), NAN));
    for (std::size_t b = 0; b < matrix.benchmarks.size(); ++b)
        for (std::size_t run = 0; run < matrix.runs; ++run)
            if (const auto value = matrix.benchmarks[b].values[run]; value && *value > 0)
                values[matrix.runs - 1 - run][b] = *value;
    std::vector<bool> loaded(newest_first.size());
    for (std::size_t p = 0; p < newest_first.size(); ++p)
        loaded[p] = recorded_under_load(index, newest_first[p]);
    const auto left_out = left_out_points(values, loaded, smallest_spell_move(categories)).left_out;
    std::vector<std::string> disturbed;
    for (std::size_t p = newest_first.size(); p-- > 0;)
        if (left_out[p]) disturbed.push_back(newest_first[p]);
    return disturbed;
}

}  // namespace benchwatch::compare
