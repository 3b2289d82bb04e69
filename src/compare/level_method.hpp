#pragma once

#include <cstddef>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "compare/method.hpp"

namespace benchwatch::compare {

// How a calibration spends the false-alarm budget across the suite.
enum class BudgetAllocation {
    // One factor for every benchmark: a head must lie beyond factor × its noise.
    OneFactor,
    // A threshold per benchmark chosen by its noise, so that quiet benchmarks catch small
    // regressions while noisy ones give their share of the budget up (stats/budget_share.hpp).
    ByNoise,
};

// "one-factor", "by-noise".
const char* to_string(BudgetAllocation allocation);

// The allocation whose name is `name`; std::nullopt for any other name.
std::optional<BudgetAllocation> budget_allocation_named(std::string_view name);

// The settings of the level method (docs/JUDGEMENT.md says how each was chosen).
struct LevelSettings {
    static constexpr std::string_view method_name = "level";

    // A head must lie beyond sensitivity × its benchmark's noise; `backtest --budget` sweeps it.
    // With a false-alarm budget this is only the value used until the history can calibrate it.
    double sensitivity = 1.5;
    // The budget: the sensitivity is calibrated so that the default branch's history, replayed
    // as `backtest` replays it, makes at most this many flukes per pull request (the constants
    // of that calibration are in compare/replay.hpp); std::nullopt: `sensitivity` is used as set.
    std::optional<double> false_alarms_per_pr = 1.0;
    // How the calibration shares the budget out; with ByNoise the calibrated sensitivity is the
    // price of a fluke in catches, and `thresholds_by_noise` what that price bought.
    BudgetAllocation allocation = BudgetAllocation::ByNoise;
    // Thresholds (log space) per noise of stats::share_noise_grid(), set by a ByNoise
    // calibration: a head must lie beyond the one for its noise. Empty: sensitivity × noise.
    std::vector<double> thresholds_by_noise;
    // The same for each budget weight other than 1 (BenchmarkEvidence::budget_weight), bought at
    // the price ÷ weight; a benchmark of a weight not listed uses thresholds_by_noise.
    std::vector<model::WeightedThresholds> thresholds_by_weight;
    // The noise: this quantile of the sizes of the benchmark's recent one-run deviations that
    // did not last.
    double noise_quantile = 0.9;
    // A head is compared with the median of this many runs up to the baseline.
    std::size_t level_runs = 5;
    // The noise is learned from at most this many of the latest deviations.
    std::size_t noise_runs = 40;
};

// The thresholds by noise for benchmarks of budget weight `weight`: its table in `by_weight`,
// else `by_noise` (which may be empty: no thresholds by noise).
std::span<const double> thresholds_of_weight(std::span<const double> by_noise,
                                             std::span<const model::WeightedThresholds> by_weight,
                                             double weight);

// With fewer deviations than this a benchmark's noise is not learned: its head is flagged only
// beyond kLevelShortHistoryFactor × the largest change between consecutive runs of its history,
// and is Inconclusive within it (and always with under two runs).
inline constexpr std::size_t kLevelMinimumDeviations = 5;
inline constexpr double kLevelShortHistoryFactor = 2.0;

// A method that compares each head with the recent level of its benchmark on the default branch
// instead of one baseline run, learns the noise from the one-run deviations that did not last
// (so that steps do not inflate it), and judges a move of the whole suite once. A benchmark
// with too short a history for that is flagged only beyond a wide margin and is Inconclusive
// otherwise. Its name is "level".
std::unique_ptr<Method> make_level_method(const LevelSettings& settings);

// The level method as a unit: its report paragraph (with how its sensitivity was calibrated)
// and its JSON members "level_settings", "calibration" and "suite_move".
const MethodUnit& level_unit();

// Every field of `settings` as one JSON object, the part of the store's key for a cached
// calibration that the settings decide: a field added to LevelSettings fails to compile there
// until the object holds it.
nlohmann::ordered_json level_settings_fingerprint(const LevelSettings& settings);

}  // namespace benchwatch::compare
