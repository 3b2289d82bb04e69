#include "stats/transient.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "stats/stats.hpp"

namespace benchwatch::stats {

double quantile(std::span<const double> values, double q) {
    std::vector<double> copy(values.begin(), values.end());
    return quantile_in_place(copy, q);
}

double quantile_in_place(std::span<double> sorted, double q) {
    assert(q >= 0 && q <= 1);
    if (sorted.empty()) return 0;
    const double position = q * static_cast<double>(sorted.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(position));
    const auto above = std::min(below + 1, sorted.size() - 1);
    const double fraction = position - static_cast<double>(below);
    // Only the two order statistics around the position are needed, not a full sort.
    const auto at_below = sorted.begin() + static_cast<std::ptrdiff_t>(below);
    std::nth_element(sorted.begin(), at_below, sorted.end());
    const double low = *at_below;
    const double high = above == below ? low : *std::min_element(at_below + 1, sorted.end());
    return low + fraction * (high - low);
}

bool lasted(double change, double later_shift) {
    return change * later_shift > 0 && std::abs(later_shift) >= std::abs(change) / 2;
}

std::vector<double> window_medians(std::span<const double> values, std::size_t window) {
    assert(window > 0);
    std::vector<double> medians;
    if (values.size() < window) return medians;
    medians.reserve(values.size() - window + 1);
    for (std::size_t j = 0; j + window <= values.size(); ++j)
        medians.push_back(median(values.subspan(j, window)));
    return medians;
}

std::vector<double> transient_deviations(std::span<const double> log_values, std::size_t level_runs,
                                         double ignore_below) {
    assert(level_runs > 0);
    return transient_deviations(log_values, window_medians(log_values, level_runs), level_runs,
                                ignore_below);
}

std::vector<double> transient_deviations(std::span<const double> log_values,
                                         std::span<const double> level_medians,
                                         std::size_t level_runs, double ignore_below) {
    std::vector<double> deviations;
    transient_deviations_into(log_values, level_medians, level_runs, ignore_below, deviations);
    return deviations;
}

void transient_deviations_into(std::span<const double> log_values,
                               std::span<const double> level_medians, std::size_t level_runs,
                               double ignore_below, std::vector<double>& deviations) {
    assert(level_runs > 0);
    const auto n = log_values.size();
    assert(n < level_runs || level_medians.size() == n - level_runs + 1);
    deviations.clear();
    for (std::size_t i = level_runs; i < n; ++i) {
        const double before = level_medians[i - level_runs];
        const double deviation = log_values[i] - before;
        if (i + level_runs <= n && std::abs(deviation) > ignore_below) {
            const double moved = level_medians[i] - before;
            if (lasted(deviation, moved)) continue;
        }
        deviations.push_back(deviation);
    }
}

}  // namespace benchwatch::stats
