#pragma once

#include <string>

#include "model/comparison.hpp"

namespace benchwatch::cli {

// The style of a build annotation showing `comparison` (`buildkite-agent annotate --style`):
// "error" when a benchmark is slower (after re-measuring, only a confirmed slowdown is);
// "warning" when there is no baseline, nothing to compare, or more than half of the benchmarks
// are too noisy or inconclusive, so that "nothing slower" means little; else "success" (nothing
// unusual, or only faster).
std::string annotation_style(const model::Comparison& comparison);

}  // namespace benchwatch::cli
