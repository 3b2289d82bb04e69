#pragma once

#include <cstddef>
#include <memory>

#include "compare/method.hpp"

namespace benchwatch::compare {

// The settings of the `level` method.
using LevelSettings = model::LevelRuleSettings;

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

}  // namespace benchwatch::compare
