#pragma once

// Steps in one benchmark's history: where its level moved and stayed moved. The method is
// optimal partitioning (PELT) of the log values with a Huber-like cost: each log value is clipped
// to within `clip` noise levels of the median of the five runs around it (so one-run spikes weigh
// no more than ordinary noise), segments cost their squared deviations from their mean in units
// of the noise level, and every step costs a penalty of `penalty_per_log_n` × ln(n). The noise
// level is the median absolute difference of consecutive log values / √2 × 1.4826, which steps
// and spikes barely move. Segments are at least `minimum_segment` runs long, so a spike shorter
// than that is never a step. Last, steps that move the median by less than `minimum_step` are
// merged away, smallest first: they may be real but are too small for anyone to act on.

#include <cstddef>
#include <span>
#include <vector>

namespace benchwatch::stats {

// The detector's settings; the defaults are the ones benchwatch uses everywhere.
struct ChangePointSettings {
    std::size_t minimum_segment = 3;  // runs on each side of a step, at least 1
    double penalty_per_log_n = 3.0;   // a step must reduce the cost by this × ln(n)
    double clip = 1.5;           // a value counts at most this many noise levels off its neighbours
    double noise_floor = 0.001;  // smallest noise level assumed (log units, ≈ 0.1%)
    double minimum_step = 0.02;  // smaller moves of the median are merged away (2%)
};

// One step: the level from `index` on differs from the level before it.
struct Step {
    std::size_t index = 0;  // the first value after the step
    double ratio = 1;       // median of the segment from `index` / median of the segment before

    friend bool operator==(const Step&, const Step&) = default;
};

// The least costly partition of `values` into segments at least `minimum` long, each costing the
// squared deviations of its values from their mean in units of noise², plus `penalty`: the
// segments' starts after the first, ascending; of equally costly last segments, the longest.
// change_points() gives it the clipped log values. Example: least_cost_partition({0, 0, 0, 1, 1,
// 1}, 1, 1, 1) == {3} (1 against 6 × 0.5², one level's 1.5), and == {} with penalty 2.
std::vector<std::size_t> least_cost_partition(std::span<const double> values, double noise,
                                              std::size_t minimum, double penalty);

// The positions where a new level starts, ascending (never 0). Values are oldest first and must
// be positive. Example: change_points({10, 10, 10, 10, 12, 12, 12, 12}) == {4}.
std::vector<std::size_t> change_points(std::span<const double> values,
                                       const ChangePointSettings& settings = {});

}  // namespace benchwatch::stats
