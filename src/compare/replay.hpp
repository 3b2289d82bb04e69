#pragma once

// The default branch replayed as pull requests, as `benchwatch backtest` defines them, and the
// calibration of a method's setting to a false-alarm budget on such a replay. Backtest and
// compare both use it, so that what compare calibrates on is exactly what backtest measures.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "compare/method.hpp"
#include "model/benchmark_rules.hpp"
#include "model/comparison.hpp"
#include "model/history.hpp"

namespace benchwatch::compare {

// One benchmark across the default branch's runs.
struct BacktestSeries {
    std::string name;
    bool smaller_is_better = true;
    double minimum_change = 0.03;  // its category's minimum change
    // One entry per run, oldest first; std::nullopt (or a value <= 0) where it was not measured.
    std::vector<std::optional<double>> values;
    // Empty, or one entry per run: the samples behind each value, where the run kept them.
    std::vector<std::optional<model::SampleSummary>> samples = {};
    double budget_weight = 1;  // BenchmarkEvidence::budget_weight
};

// The default branch's history as benchmarks × runs; every series has `runs` values.
struct BacktestMatrix {
    std::size_t runs = 0;
    std::vector<BacktestSeries> benchmarks;
};

// Runs on either side of a pull request that decide whether its flags persist.
inline constexpr std::size_t persistence_window = 5;
// Runs of history before the first pull request.
inline constexpr std::size_t first_pull_request = 10;

// One default-branch run replayed as a pull request.
struct ReplayedPullRequest {
    std::size_t run = 0;  // its head: runs before it are its history, run − 1 its baseline
    std::vector<BenchmarkEvidence> suite;  // the benchmarks measured at run and run − 1
    // Per suite entry: ln(median of runs run…run+4 / median of runs run−5…run−1), measured
    // values only; a flag lasted when stats::lasted(flagged change, this).
    std::vector<double> later_shift;
};

// Every run t with max(first_pull_request, first_run) <= t and t + persistence_window + 1 <=
// matrix.runs, replayed as a pull request. Keeps pointers into its own copy of the values, so it
// must outlive the evidence it hands out and cannot be copied.
class Replay {
  public:
    explicit Replay(const BacktestMatrix& matrix, std::size_t first_run = 0);
    Replay(const Replay&) = delete;
    Replay& operator=(const Replay&) = delete;

    std::span<const ReplayedPullRequest> pull_requests() const { return requests_; }

  private:
    std::vector<std::vector<double>> measured_;  // per benchmark: positive values, oldest first
    std::vector<ReplayedPullRequest> requests_;
};

// The suite of each of `requests`, in order: what Method::prepare_each() takes.
std::vector<std::span<const BenchmarkEvidence>> suites_of(
    std::span<const ReplayedPullRequest> requests);

// Flags of one replayed pull request that did not last (flukes) and that did (persistent), given
// its judgement. The flagged change is the one a report shows: head against the method's
// reference (the level; seed: the baseline run).
struct FlagCount {
    long flukes = 0;
    long persistent = 0;
};
FlagCount count_flags(const ReplayedPullRequest& request, const SuiteJudgement& judgement);

// Adds to `count` the flag of entry `entry` of `request`'s suite, judged against `reference`
// (its level; the baseline run when 0): persistent when the change lasted, a fluke otherwise.
void count_flag(const ReplayedPullRequest& request, std::size_t entry, double reference,
                FlagCount& count);

// How a setting is calibrated to a method's budget of false alarms (flukes) per pull request.
// Only the latest kCalibrationWindow replayable pull requests count, so that a history whose
// noise changed is judged by its recent noise.
inline constexpr std::size_t kCalibrationWindow = 75;

// A method that shares its budget by noise is calibrated on an estimate of the flukes its
// thresholds make on the suite it judges, from the scores of every benchmark of the replayed
// pull requests pooled (stats::BudgetShare), so that it works from the first runs:
// - the pooled scores are mixed with a prior tail, which weighs as much as kPriorPullRequests
//   replayed pull requests;
// - the expectation is corrected by the ratio of the flukes the replayed pull requests made to
//   those the same estimate expected of them, each count plus kReplayEvidenceFlukes, so that the
//   correction grows smoothly with the evidence (a suite rule or a correlated machine the pool
//   does not see shows there);
// - the estimate must stay within budget × kPooledCalibrationMargin.
inline constexpr double kPriorPullRequests = 10;
inline constexpr double kReplayEvidenceFlukes = 5;
inline constexpr double kPooledCalibrationMargin = 0.85;

// Other methods with a budget are calibrated on the replay alone: the replayed pull requests
// must stay within budget × kCalibrationMargin, so that the next ones, which the setting was not
// chosen on, stay within the budget. With fewer replayable pull requests than
// kCalibrationMinimum the calibration is not trusted: the stricter of its answer and
// kConservativeSensitivity is used; with none, that setting.
inline constexpr double kCalibrationMargin = 0.7;
inline constexpr std::size_t kCalibrationMinimum = 20;
inline constexpr double kConservativeSensitivity = 3.0;

// The regressions a budget shared by noise buys catches of: 10% and 20%, in log space.
inline constexpr double shared_budget_sizes[] = {0.09531017980432486, 0.1823215567939546};

// The prices of a fluke, in expected catches, that a budget shared by noise searches.
inline constexpr std::pair<double, double> shared_budget_prices = {0.001, 100000.0};

// The smallest setting in `range` (0 < first <= second) with flukes_at(setting) <= target: the
// first point of a log-spaced grid of 24 that keeps it, refined by `bisection_steps` halvings
// (in log space) against the grid point before it; range.second when none keeps it. Flukes fall
// nearly monotonically as the setting grows, so this finds the first crossing.
double smallest_setting_within(std::pair<double, double> range, double target, int bisection_steps,
                               const std::function<double(double)>& flukes_at);

// The most sensitive setting of `method` (which has a method.calibration_budget()) for judging
// the suite `now` (prepared by `method`; only its noises count, not its head) after the replayed
// pull requests `prepared` (each prepared by `method`, oldest first; only the last
// kCalibrationWindow are used).
// - A method that shares its budget by noise: the smallest price over shared_budget_prices at
//   which the estimate above stays within budget × kPooledCalibrationMargin, each benchmark's
//   threshold being the one that price buys for its noise; the dearest when none does.
// - Any other: the smallest setting over method.setting_range() (log-spaced grid refined by
//   bisection) at which the replayed pull requests make at most budget × kCalibrationMargin
//   flukes per pull request, with the conservative rule above; the strictest when none does.
// Judge with method.calibrated_by(the result).
model::Calibration calibrate(const Method& method, std::span<const ReplayedPullRequest> requests,
                             std::span<const std::unique_ptr<PreparedSuite>> prepared,
                             const PreparedSuite& now);

// How `choice` judges a head whose default-branch history is `history` (all of it, up to the
// baseline): a method with a budget is calibrated on the latest kCalibrationWindow pull requests
// that history replays; otherwise its settings are used as they are (source Fixed).
model::Calibration calibrate_choice(const BacktestMatrix& history,
                                    const model::MethodChoice& choice);

// Why `calibration` (read from somewhere calibrate_choice() did not just write it, such as the
// store's cache) is not one that calibrate_choice() can give for `choice` on any history: its
// budget not the configured one, more pull requests than the window, a source that does not
// follow from their number, a sensitivity outside the range the calibration searches (exactly
// the conservative setting with no pull requests), thresholds that a calibration by noise would
// not hold or outside stats::share_threshold_grid(), flukes without pull requests, flukes that
// are no whole number over its pull requests, or more flukes than a calibrated sensitivity below
// the top of its range keeps within (the budget times the calibration's margin). One phrase
// ("its sensitivity 1e+06 is outside 0.5 to 20, the range calibration chooses from");
// std::nullopt when it could be.
std::optional<std::string> calibration_out_of_range(const model::Calibration& calibration,
                                                    const model::MethodChoice& choice);

// Runs of history, newest last, that calibrate_choice() reads for `choice`: enough for its
// window of pull requests, each with the history the method looks at before it and its
// persistence window after; 0 when it calibrates nothing.
std::size_t calibration_runs(const model::MethodChoice& choice);

// The default branch's history as a matrix: one row per benchmark and metric (named
// model::with_metric), one column per run in History::commits order, without the benchmarks
// `rules` ignore and with the minimums they set.
BacktestMatrix matrix_of(const model::History& history,
                         const std::vector<model::Category>& categories,
                         const model::BenchmarkRules& rules = {});

// `choice` as a report would judge the next pull request with it on `history` (the default
// branch, all of it): a level method with a budget calibrated on history's latest runs. With
// `leave_out_latest` set, the history's newest commit is left out, as compare leaves it out
// when that commit is the head it judges.
model::MethodChoice calibrated_on(const model::History& history, const model::MethodChoice& choice,
                                  const std::vector<model::Category>& categories,
                                  bool leave_out_latest = false);

// `choice` with a level method's sensitivity (and thresholds by noise) set to what
// `calibration` chose.
model::MethodChoice calibrated(model::MethodChoice choice, const model::Calibration& calibration);

}  // namespace benchwatch::compare
