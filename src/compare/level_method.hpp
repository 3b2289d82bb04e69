#pragma once

#include <cstddef>
#include <memory>

#include "compare/method.hpp"

namespace benchwatch::compare {

// The settings of the `level` method (docs/JUDGEMENT.md says how each was chosen).
struct LevelSettings {
    // A head must lie beyond sensitivity × the noise of its benchmark; `backtest --budget`
    // sweeps it.
    double sensitivity = 1.5;
    // The noise: this quantile of the sizes of the benchmark's recent one-run deviations that
    // did not last (stats::transient_deviations).
    double noise_quantile = 0.9;
    // The level a head is compared with: the median of this many runs up to the baseline.
    std::size_t level_runs = 5;
    // The noise is learned from at most this many of the latest deviations.
    std::size_t noise_runs = 40;
    // With fewer deviations than this the benchmark is judged by the seed rule instead.
    std::size_t minimum_deviations = 5;
    // The suite moved as a whole when at least this share of its benchmarks lies beyond its
    // threshold in one direction...
    double suite_share = 0.5;
    // ...and it has at least this many benchmarks.
    std::size_t suite_minimum = 10;
    // Then each benchmark is judged against the suite's median move, with a threshold of at
    // least this many times the suite's spread around it (1.4826 × median absolute deviation).
    double suite_spread_factor = 3.0;
};

// A method that compares each head with the recent level of its benchmark on the default branch
// instead of one baseline run, learns the noise from the one-run deviations that did not last
// (so that steps do not inflate it), and judges a move of the whole suite once. `seed` judges
// benchmarks whose history is too short for that. Its name is "level".
std::unique_ptr<Method> make_level_method(const LevelSettings& settings,
                                          const model::SeedRuleSettings& seed_settings);

}  // namespace benchwatch::compare
