#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/category.hpp"
#include "model/confirmation.hpp"
#include "model/history_order.hpp"
#include "model/method_choice.hpp"
#include "model/result.hpp"
#include "model/run.hpp"
#include "model/verdict.hpp"

namespace benchwatch::model {

// Allocation count going from zero to non-zero (Starts) or back (Stops).
enum class AllocationChange { None, Starts, Stops };

// One benchmark present in both the baseline and the head.
struct BenchmarkComparison {
    std::string name;          // full name, e.g. "latency/ttfp"
    std::string display_name;  // name without its category prefix, e.g. "ttfp"
    std::size_t category = 0;  // index into Comparison::categories
    std::string metric = "time";
    std::string unit = "ns";
    Direction direction = Direction::SmallerIsBetter;
    double base = 0;  // the baseline run's value (level method: the level the head is judged by)
    double head = 0;
    double typical_change = 0;     // median |ln(x[i+1]/x[i])| over the history pairs used
    int history_pairs = 0;         // how many pairs that median was taken over
    double threshold = 0;          // |ln(head/base)| must exceed this to be unusual
    double detectable_change = 0;  // the smallest slowdown flagged: e^threshold − 1
    Verdict verdict = Verdict::Unchanged;
    AllocationChange allocation_change = AllocationChange::None;
    std::optional<double> base_allocations;
    std::optional<double> head_allocations;
    // What re-measuring decided of this benchmark's flag, when it was flagged and re-measured:
    // the verdict above is then the one re-measuring settled (settle_by_confirmation).
    std::optional<ConfirmationVerdict> confirmation;

    // head/base − 1.
    double change() const { return head / base - 1.0; }
    // Shown in the unusual table: slower, faster, or an allocation change.
    bool unusual() const {
        return flags_change(verdict) || allocation_change != AllocationChange::None;
    }
};

// Per-category totals of the benchmarks compared.
struct CategorySummary {
    double geometric_mean_change = 0;  // geometric mean of head/base, minus 1
    int slower = 0;
    int faster = 0;
    int compared = 0;
    int too_noisy = 0;  // Verdict::TooNoisy
};

// How the baseline run was chosen.
enum class BaselineKind {
    MergeBase,        // the merge base of head and the default branch had a run
    NearestAncestor,  // the merge base had none; its nearest benchmarked first-parent ancestor
    Explicit,         // --base
    None,             // nothing to compare with
    // Without git: the latest run recorded on the default branch's name (not the head's commit)
    LatestOnDefaultBranch,
    // Two result files compared without a store or history: `commit` is the base file's name
    // and Comparison::head_commit the head file's
    Files,
};

// Which commit the head is compared with, and why.
struct Baseline {
    BaselineKind kind = BaselineKind::None;
    std::string commit;       // the baseline's run commit (empty when kind == None)
    std::string merge_base;   // the merge base itself (may differ from commit)
    int commits_earlier = 0;  // NearestAncestor: first-parent steps from merge_base to commit
};

// One environment key that differs between baseline and head.
struct EnvironmentChange {
    std::string key;
    std::optional<std::string> before;  // nullopt: the key was added
    std::optional<std::string> after;   // nullopt: the key was removed

    friend bool operator==(const EnvironmentChange&, const EnvironmentChange&) = default;
};

// How the level method's sensitivity was set for one comparison.
enum class CalibrationSource {
    Fixed,         // no budget: the configured sensitivity
    Calibrated,    // the budget met on the history's replayed pull requests
    Conservative,  // too few pull requests to replay: a strict setting until there are
};

// "fixed", "calibrated", "conservative".
const char* to_string(CalibrationSource source);

// The thresholds by noise of a calibration by noise for the benchmarks of one budget weight.
struct WeightedThresholds {
    double weight = 1;
    std::vector<double> thresholds;  // as Calibration::thresholds_by_noise

    friend bool operator==(const WeightedThresholds&, const WeightedThresholds&) = default;
};

// What the calibration of the level method's sensitivity found on the history up to a baseline.
struct Calibration {
    CalibrationSource source = CalibrationSource::Fixed;
    double budget = 0;         // false alarms per pull request allowed (0 when Fixed)
    double sensitivity = 0;    // the setting chosen
    int pull_requests = 0;     // default-branch runs replayed as pull requests
    double flukes_per_pr = 0;  // flukes per replayed pull request at that setting
    // A calibration by noise's estimate of the flukes per pull request its thresholds make on
    // the suite it judges: the pooled scores' expectation, corrected by how many the replayed
    // pull requests made against how many the same estimate expected of them.
    double expected_flukes_per_pr = 0;
    // In that estimate, the weight of the prior tail against the history's pooled scores (1
    // with no pull request replayed) and the weight of the replayed pull requests' count of
    // flukes against the pooled expectation (0 with none).
    double prior_weight = 0;
    double replay_weight = 0;
    // A calibration by noise's thresholds (the level settings' thresholds_by_noise); else empty.
    std::vector<double> thresholds_by_noise;
    // The same bought at the price ÷ weight, for each budget weight other than 1 that a
    // benchmark of the suite has (BenchmarkRule::budget_weight), by weight; else empty.
    std::vector<WeightedThresholds> thresholds_by_weight;
    // Whether it was read from the store's cache, computed earlier for the same runs and settings.
    bool from_cache = false;
    // Why the calibration the store's cache held for these runs and settings was ignored and this
    // one computed instead ("its sensitivity 1e+06 is outside 0.5 to 20, the range calibration
    // chooses from"); empty when none was ignored.
    std::string cache_refusal;
};

// A maintainer's acceptance of a pull request's changes: a label on it that the forge reports.
struct Acceptance {
    std::string label;  // e.g. "performance-accepted"
    std::string by;     // the login that added it; empty when the forge does not say
};

// Everything a renderer needs to write the pull-request report.
struct Comparison {
    std::string project;
    std::string machine;
    std::string head_commit;
    Baseline baseline;
    // The method that judged the benchmarks, with the settings it used (a calibrated level
    // method's sensitivity is the one calibrated).
    MethodChoice method;
    Calibration calibration;  // the level method's; source Fixed for seed
    // The median move of the whole suite from its levels when the level method found one
    // (−0.4: 40% faster), which every benchmark was judged against; 0 when none.
    double suite_move = 0;
    // The samples method's spread between runs that the samples do not explain, learned from the
    // suite (ln scale, 0.05 ≈ 5%); 0 for the other methods.
    double run_to_run_spread = 0;
    // Whether the samples method assumed that spread (its settings' assumed_spread_factor ×
    // each benchmark's own) because too few benchmarks had samples to learn it from.
    bool run_to_run_assumed = false;
    HistoryOrder history_order = HistoryOrder::None;  // of the history behind typical_change
    int history_runs = 0;              // default-branch runs the typical changes were learned from
    std::vector<Category> categories;  // configured order
    std::vector<CategorySummary> summaries;       // parallel to categories
    std::vector<BenchmarkComparison> benchmarks;  // sorted by category, then display name
    std::vector<Result> added;                    // in head only
    std::vector<Result> removed;                  // in baseline only
    std::vector<Result> head_only_results;        // BaselineKind::None: the head's results
    // Benchmarks of head or baseline that benchwatch.toml's [[benchmark]] rules ignore, sorted:
    // in no verdict and no count, only listed.
    std::vector<std::string> ignored;
    // Set when the pull request carries the accept label: its slowdowns are still reported but
    // fail neither the status nor --fail-on-regression. Only read from the forge or the CI's own
    // event, never from a report file, which the pull request's code may have written.
    std::optional<Acceptance> accepted;
    std::vector<EnvironmentChange> environment_changes;  // sorted by key; no machine keys
    Environment machine_environment;  // the head's machine keys (model/environment_keys.hpp)
    // Machine keys that differ from the baseline's, sorted by key; empty when either side
    // recorded none (a run stored by `record` says nothing about its machine)
    std::vector<EnvironmentChange> machine_changes;
    // Default-branch runs left out of the levels and noises, newest first: the whole suite moved
    // together in them, away from the runs around them (a slow spell of the machine, or the first
    // runs of a lasting change), or they were recorded under load while most runs were not.
    std::vector<std::string> left_out_runs;
    double left_out_move = 0;  // the suite's median move in those that moved (0.4: 40% slower)
    // Whether the newest run moved so, so that whether it comes back is not known yet.
    bool left_out_unsettled = false;
    // Whether every run of the head was recorded under load while most default-branch runs were
    // not: other work only slows a run down, so its slower verdicts were left Inconclusive.
    bool head_under_load = false;
    std::vector<Warning> head_warnings;      // stability warnings of the head's latest attempt
    std::vector<Warning> baseline_warnings;  // the same for the baseline (empty without one)
    std::string history_url;                 // empty: no link
    // What `compare --confirm` decided when it re-measured the flagged benchmarks, or with
    // `paired` every benchmark's rounds; nullopt when nothing was re-measured.
    std::optional<Confirmation> confirmation;
    // Whether base and head were measured side by side in one job (`compare --paired`): the
    // verdicts then come from the confirmation's rounds, not from a method and a history.
    bool paired = false;
};

}  // namespace benchwatch::model
