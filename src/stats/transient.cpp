#include "stats/transient.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>

#include "stats/stats.hpp"

namespace benchwatch::stats {

double quantile(std::span<const double> values, double q) {
    std::vector<double> copy(values.begin(), values.end());
    return quantile_in_place(copy, q);
}

double quantile_in_place(std::span<double> values, double q) {
    assert(q >= 0 && q <= 1);
    if (values.empty()) return 0;
    const double position = q * static_cast<double>(values.size() - 1);
    const auto below = static_cast<std::size_t>(std::floor(position));
    const auto above = std::min(below + 1, values.size() - 1);
    const double fraction = position - static_cast<double>(below);
    // Only the two order statistics around the position are needed, not a full sort. Near the
    // top (a noise quantile of 0.9 keeps 5 of 40), the few largest values are kept in a short
    // sorted list in one pass, which a replay does for every benchmark of every pull request.
    constexpr std::size_t few = 8;
    const std::size_t from_below = values.size() - below;
    double low = 0;
    double high = 0;
    if (from_below <= few) {
        std::array<double, few> largest{};  // ascending
        std::size_t kept = 0;
        for (const double value : values) {
            if (kept == from_below) {
                if (!(value > largest[0])) continue;
                --kept;
                std::copy(largest.begin() + 1,
                          largest.begin() + static_cast<std::ptrdiff_t>(kept) + 1, largest.begin());
            }
            std::size_t at = kept++;
            for (; at > 0 && largest[at - 1] > value; --at) largest[at] = largest[at - 1];
            largest[at] = value;
        }
        low = largest[0];
        high = above == below ? low : largest[1];
    } else {
        const auto at_below = values.begin() + static_cast<std::ptrdiff_t>(below);
        std::nth_element(values.begin(), at_below, values.end());
        low = *at_below;
        high = above == below ? low : *std::min_element(at_below + 1, values.end());
    }
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

SeriesDeviations series_deviations(std::span<const double> log_values,
                                   std::span<const double> level_medians, std::size_t level_runs,
                                   double ignore_below) {
    assert(level_runs > 0);
    const auto n = log_values.size();
    assert(n < level_runs || level_medians.size() == n - level_runs + 1);
    SeriesDeviations series;
    series.level_runs = level_runs;
    series.deviation.assign(n, 0.0);
    series.lasted.assign(n, 0);
    for (std::size_t i = level_runs; i < n; ++i) {
        const double before = level_medians[i - level_runs];
        const double deviation = log_values[i] - before;
        series.deviation[i] = deviation;
        if (i + level_runs <= n && std::abs(deviation) > ignore_below)
            series.lasted[i] = lasted(deviation, level_medians[i] - before) ? 1 : 0;
    }
    return series;
}

void window_deviations(const SeriesDeviations& series, std::size_t first, std::size_t end,
                       std::size_t most, std::vector<double>& deviations) {
    assert(first <= end && end <= series.deviation.size());
    deviations.clear();
    const auto level_runs = series.level_runs;
    // Newest first, so that the scan stops once `most` are found; a position counts as lasted
    // only where the window holds the level_runs values after it.
    for (std::size_t j = end; j-- > first + level_runs && deviations.size() < most;)
        if (j + level_runs > end || !series.lasted[j]) deviations.push_back(series.deviation[j]);
    std::reverse(deviations.begin(), deviations.end());
}

}  // namespace benchwatch::stats
