#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "compare/method.hpp"
#include "compare/seed_method.hpp"
#include "model/benchmark_rules.hpp"
#include "model/category.hpp"
#include "model/comparison.hpp"
#include "model/error.hpp"
#include "model/history.hpp"
#include "store/store.hpp"
#include "vcs/git.hpp"

namespace benchwatch::compare {

// The comparison cannot be made as asked (no run of the head, an unknown --base…). what() is one
// line saying what is missing and how to fix it.
class CompareError : public model::Error {
  public:
    explicit CompareError(const std::string& message) : Error(model::ErrorKind::Compare, message) {}
};

// Where the default branch's history comes from.
struct HistorySource {
    std::string project;
    std::string machine;
    std::string default_branch = "main";  // branch name runs were recorded with
    // The default branch as a git revision ("origin/main"); empty: ask the repository.
    std::string default_branch_revision;
};

// What compare() needs besides the store and the repository.
struct CompareOptions {
    HistorySource source;
    std::string head;                 // revision or commit id of the pull request's head
    std::optional<std::string> base;  // --base: compare with this commit instead
    // The method and its settings; a level method with a false-alarm budget has its sensitivity
    // calibrated on the default branch's history up to the baseline.
    model::MethodChoice method = default_choice(default_method_name());
    std::vector<model::Category> categories = model::default_categories();
    // Per-benchmark settings: ignored benchmarks are left out of the head, the baseline and the
    // history (listed in Comparison::ignored); minimums replace the categories'.
    model::BenchmarkRules rules;
    std::string history_url;
};

// Builds the pull request's comparison: head and baseline runs (reruns of one commit combined
// by their best value), the default branch's history up to the baseline (first-parent chain when
// `repository` holds the commits, recording order otherwise), and `options.method`'s verdicts.
// `repository` may be null; without it (or when git does not know the head) the baseline is the
// latest run recorded on `source.default_branch` (BaselineKind::LatestOnDefaultBranch).
// Throws CompareError when the head has no run or --base names none, for an ambiguous commit
// prefix, an unknown default branch revision and an unknown method; vcs::GitError when git fails.
// Example: compare(store, nullptr, {.source = {"cuda", "gpu1"}, .head = "abc1234"}).
model::Comparison compare(store::Store& store, const vcs::Repository* repository,
                          const CompareOptions& options);

// One results file as compare_files() reads it: its name for the report and what it holds.
struct ResultsFile {
    std::string name;  // as the user gave it, e.g. "base.json"
    std::vector<model::Result> results;
    model::Environment environment;  // what the file says of its environment
};

// Compares two result files without a store or history: every benchmark and metric in both,
// judged by `method` (the samples method reads the samples each file carries; a method that
// needs history finds none), with BaselineKind::Files. Throws CompareError when no benchmark
// is in both files. Benchmarks `rules` ignore are left out and listed in Comparison::ignored.
// Example: compare_files({"a.json", …}, {"b.json", …}, samples, categories).
model::Comparison compare_files(const ResultsFile& base, const ResultsFile& head,
                                const model::MethodChoice& method,
                                const std::vector<model::Category>& categories,
                                const model::BenchmarkRules& rules = {});

// The commits a pull request's base and head were measured side by side at.
struct PairedCommits {
    std::string project;
    std::string machine;
    std::string base;  // the merge base, built and measured as the baseline
    std::string head;  // the pull request's head
};

// The pull request's comparison from its base and head measured side by side in interleaved
// rounds (`compare --paired`), without any history: every benchmark of `rounds` in its category,
// its baseline value the base's median over its rounds and its head value that median times the
// paired change (the median of its per-round head/base ratios), its threshold its minimum (a
// rule's, else its category's), its noise half the width of its interval (log scale), its history
// pairs the rounds that decided it (0 when undecided), and its verdict from the rounds: confirmed
// as Slower or Faster, dismissed (within the minimum) as Unchanged, undecided as Inconclusive.
// `rounds` is kept as the comparison's confirmation and `paired` is set. Example: a benchmark whose
// rounds gave +12% with an interval of +8% to +15% is Slower.
model::Comparison paired_comparison(model::Confirmation rounds, const PairedCommits& commits,
                                    const std::vector<model::Category>& categories,
                                    const model::BenchmarkRules& rules = {});

// Lets what re-measuring decided settle the verdicts of `comparison`, so that its counts, markers,
// status and exit code follow the confirmed verdicts: a flagged benchmark whose flag was
// dismissed becomes Unchanged, one left undecided Inconclusive, and one confirmed keeps its
// flag; each is marked with its confirmation verdict, and the summaries are counted again.
// Benchmarks that were not re-measured, and a comparison without a confirmation, are left as
// they are. Example: a 🟢 faster flag dismissed by `--confirm` counts as unchanged.
void settle_by_confirmation(model::Comparison& comparison);

// The commits among `commits` (default-branch commits, oldest first) whose runs of `project` on
// `machine` a comparison leaves out of a baseline's history, oldest first: those in which the
// whole suite moved together away from the commits around them (a slow spell of the machine;
// stats::find_slow_spells beyond the smallest minimum of `categories`) and those whose every run
// was recorded under load while most commits' were not. Commits without a clean run are not
// looked at. Example: of 12 commits whose 5th to 8th ran 40% slower, those four.
std::vector<std::string> disturbed_commits(store::Store& store, const std::string& project,
                                           const std::string& machine,
                                           std::span<const std::string> commits,
                                           const std::vector<model::Category>& categories);

// Each benchmark's values on the default branch, oldest first, at most `limit` runs
// (0: all), with its typical change over the last `settings.pairs` pairs. `benchmark` non-empty
// keeps only that benchmark (exact name) or those under it as a prefix ("array/" or "array").
// `with_samples` keeps each value's samples too (BenchmarkHistory::samples).
model::History history(store::Store& store, const vcs::Repository* repository,
                       const HistorySource& source, const std::string& benchmark, std::size_t limit,
                       const SeedSettings& settings, bool with_samples = false);

// history(store, repository, source, "", 0, settings) as it reads now, built from `previous`
// (that history as it read when the store held only the runs of `runs` with ids up to
// `previous_last_id`) and the results of the runs recorded since (`added`, by run id), without
// reading the store. `runs` are every run of the project on the machine now, in recording order.
// nullopt when the older runs' results would be needed: a commit entered the default branch
// anywhere but after its newest commit, or a result's unit or direction differs from its
// benchmark's.
std::optional<model::History> extend_history(
    model::History previous, std::int64_t previous_last_id, const std::vector<model::Run>& runs,
    const std::unordered_map<std::int64_t, std::vector<model::Result>>& added,
    const vcs::Repository* repository, const HistorySource& source, const SeedSettings& settings);

// Where the runs recorded since a history was read go in it: what extend_history() adds.
struct HistoryExtension {
    std::vector<std::string> commits;    // the extended history's commits, oldest first
    std::vector<std::int64_t> times_ms;  // parallel to commits, as History::times_ms
    // The results of the new clean runs on those commits, in recording order, each with its
    // commit's index in `commits`; they point into the `added` extension_of() was given.
    std::vector<std::pair<std::size_t, const std::vector<model::Result>*>> results;
};

// What extend_history() adds to a history whose commits are `commits` (oldest first) in `order`,
// worked out from the commits alone, so that a caller keeping the history in another form can
// extend it without building a model::History. nullopt where extend_history() returns it for
// anything but a unit or direction.
std::optional<HistoryExtension> extension_of(
    const std::vector<std::string>& commits, model::HistoryOrder order,
    std::int64_t previous_last_id, const std::vector<model::Run>& runs,
    const std::unordered_map<std::int64_t, std::vector<model::Result>>& added,
    const vcs::Repository* repository, const HistorySource& source);

// `previous` extended by `extension` (extension_of() of its commits and order), as
// extend_history() extends it; nullopt when a result's unit or direction differs from its
// benchmark's.
std::optional<model::History> extend_history(model::History previous,
                                             const HistoryExtension& extension,
                                             const SeedSettings& settings);

}  // namespace benchwatch::compare
