#pragma once

// Internal to the compare layer: the runs of one project on one machine indexed by commit, reruns
// combined by their best value, and the default branch's history read newest first.

#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/benchmark_rules.hpp"
#include "model/result.hpp"
#include "model/run.hpp"
#include "store/store.hpp"
#include "vcs/git.hpp"

namespace benchwatch::compare::detail {

// A benchmark's identity across runs.
struct ResultKey {
    std::string benchmark;
    std::string metric;

    auto operator<=>(const ResultKey&) const = default;
};

// True when `name` is `filter` or lies under it ("array" and "array/" both select "array/copy");
// every name is selected by an empty filter.
bool selected(std::string_view name, std::string_view filter);

// One result per benchmark and metric.
using CombinedResults = std::map<ResultKey, model::Result>;

// True when `candidate` is better than `current` in the metric's own direction.
bool better(const model::Result& candidate, const model::Result& current);

// All runs of one project on one machine (without results), grouped by commit, and the rules
// that say which of their benchmarks are ignored.
class RunIndex {
  public:
    // `runs` in recording order, as Store::list_runs returns them.
    explicit RunIndex(std::vector<model::Run> runs, model::BenchmarkRules rules = {});
    // The index points into its own runs: moving keeps them where they are, a copy would not.
    RunIndex(RunIndex&&) = default;
    RunIndex& operator=(RunIndex&&) = default;
    RunIndex(const RunIndex&) = delete;
    RunIndex& operator=(const RunIndex&) = delete;

    const std::vector<model::Run>& runs() const { return runs_; }

    // True when the commit has any run, a dirty one included (what a head needs).
    bool has(std::string_view commit) const { return by_commit_.contains(commit); }

    // True when the commit has a run measured on a clean work tree: only those are history.
    bool has_clean(std::string_view commit) const {
        const auto found = by_commit_.find(commit);
        return found != by_commit_.end() && found->second.clean;
    }

    // The commit's runs (attempts) in recording order: its clean runs when it has any, else its
    // dirty ones, so that a dirty run is never combined with a clean one. Empty for an unknown
    // commit.
    std::span<const model::Run* const> runs_of(std::string_view commit) const;

    // Recorded commits that start with `prefix`.
    std::vector<std::string> commits_starting_with(std::string_view prefix) const;

    // True when a rule says to leave `benchmark` out of every judgement.
    bool ignores(std::string_view benchmark) const { return model::is_ignored(benchmark, rules_); }

    const model::BenchmarkRules& rules() const { return rules_; }

  private:
    // Where a commit's runs_of() lie in `chosen_`, and whether they are clean.
    struct Chosen {
        std::size_t first = 0;
        std::size_t count = 0;
        bool clean = false;
    };
    std::vector<model::Run> runs_;
    model::BenchmarkRules rules_;
    std::vector<const model::Run*> chosen_;                   // each commit's runs_of(), together
    std::unordered_map<std::string_view, Chosen> by_commit_;  // views of the runs' commits
};

// Every run of `project` on `machine`, indexed, with the rules that ignore benchmarks; with
// `outline`, each run as store::RunFilter::outline lists it.
RunIndex index_runs(store::Store& store, const std::string& project, const std::string& machine,
                    model::BenchmarkRules rules = {}, bool outline = false);

// The results of all runs of `commit`, reruns combined by their best value (the result of the
// best attempt is kept whole, allocations included), without the benchmarks the index ignores;
// their names are added to `ignored` when it is given.
CombinedResults load_combined(store::Store& store, const RunIndex& index, const std::string& commit,
                              std::set<std::string>* ignored = nullptr);

// Reads the combined results of `commits` (newest first) a batch of commits at a time, calling
// `visit(position, results)` for each in order until it returns false; `visit` may take the
// results it is given. Benchmarks the index ignores are left out, their names added to `ignored`
// when it is given.
void visit_history(store::Store& store, const RunIndex& index, std::span<const std::string> commits,
                   const std::function<bool(std::size_t, CombinedResults&)>& visit,
                   std::set<std::string>* ignored = nullptr);

// The benchmarks and metrics a reading of values has met, numbered from 0 in the order met.
class ValueKeys {
  public:
    // The number of `key`, numbered now when it is new.
    std::size_t number(const ResultKey& key);

    const ResultKey& key(std::size_t number) const { return keys_[number]; }
    std::size_t size() const { return keys_.size(); }

  private:
    std::vector<ResultKey> keys_;
    std::map<ResultKey, std::size_t> numbers_;
};

// One benchmark and metric of a commit: the value, direction and unit of its best attempt.
struct KeyedValue {
    std::size_t key = 0;  // its number in the ValueKeys of the reading
    double value = 0;
    model::Direction direction = model::Direction::SmallerIsBetter;
    std::string_view unit;  // valid while the reading lasts
};

// visit_history() for readers of values only, at a fraction of its cost: `visit(position,
// values)` gets each commit's values (one per benchmark and metric, as visit_history() combines
// them), whose keys `keys` numbers.
void visit_history_values(
    store::Store& store, const RunIndex& index, std::span<const std::string> commits,
    ValueKeys& keys, const std::function<bool(std::size_t, std::span<const KeyedValue>)>& visit);

// The commits of `chain` (a first-parent chain, newest first) that have clean runs, except
// `excluded`.
std::vector<std::string> benchmarked_commits(std::span<const std::string> chain,
                                             const RunIndex& index, const std::string& excluded);

// Commits of clean runs recorded on `branch`, newest first by their first recording, except
// `excluded`. A non-empty `up_to` keeps only commits first recorded no later than `up_to`'s last
// run, and puts `up_to` first even when it was recorded on another branch.
std::vector<std::string> recorded_commits(const RunIndex& index, const std::string& branch,
                                          const std::string& excluded, const std::string& up_to);

}  // namespace benchwatch::compare::detail
