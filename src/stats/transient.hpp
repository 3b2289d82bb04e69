#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace benchwatch::stats {

// The q-quantile of `values` (0 ≤ q ≤ 1), interpolated linearly between the sorted values at
// positions ⌊q(n−1)⌋ and ⌈q(n−1)⌉; 0 for an empty span.
// Example: quantile({4, 1, 3, 2}, 0.5) == 2.5, quantile({4, 1, 3, 2}, 0.9) == 3.7.
double quantile(std::span<const double> values, double q);

// quantile() of `values`, which it reorders instead of copying them.
double quantile_in_place(std::span<double> values, double q);

// Whether a move of `change` lasted, judged by the shift of the level it was followed by: the
// shift has the move's sign and at least half its size (both in log space). The backtest's test of
// a persistent flag, and the test transient_deviations() leaves steps out by.
// Example: lasted(0.2, 0.15) is true; lasted(0.2, 0.05) and lasted(0.2, -0.2) are false.
bool lasted(double change, double later_shift);

// The one-run deviations of a series that did not last: its run-to-run noise with its steps left
// out. `log_values` is a series of logarithms, oldest first. At every position i ≥ `level_runs`
// the deviation is d = x[i] − median(x[i−level_runs … i−1]). It is left out when the move lasted,
// which is known once `level_runs` values from i on exist: |d| > `ignore_below` and
// m = median(x[i … i+level_runs−1]) − median(x[i−level_runs … i−1]) has d's sign and |m| ≥ |d|/2.
// Example: with level_runs 3 and ignore_below 0.1, {0, 0, 0, 1, 0, 0, 0} gives {1, 0, 0, 0} (the
// spike did not last) and {0, 0, 0, 1, 1, 1, 1} gives {0, 0} (the step lasted: positions 3, 4 out).
std::vector<double> transient_deviations(std::span<const double> log_values, std::size_t level_runs,
                                         double ignore_below);

// The medians of every `window` consecutive values: entry j is median(values[j … j+window−1]),
// for j from 0 to size − window; empty when there are fewer than `window` values.
// Example: window_medians({3, 1, 2, 5}, 3) == {2, 2}.
std::vector<double> window_medians(std::span<const double> values, std::size_t window);

// transient_deviations() given `level_medians` == window_medians(log_values, level_runs), so that
// a caller judging many windows of one series takes each median once: the same deviations.
std::vector<double> transient_deviations(std::span<const double> log_values,
                                         std::span<const double> level_medians,
                                         std::size_t level_runs, double ignore_below);

// The deviations of every position of a whole series, and which of them lasted as far as the
// series shows: what transient_deviations() finds in any window of it, worked out once.
struct SeriesDeviations {
    std::size_t level_runs = 0;
    std::vector<double> deviation;  // per position (0 before level_runs)
    std::vector<char> lasted;       // per position: left out wherever level_runs values follow it
};

// series_deviations() of `log_values` with `level_medians` == window_medians(log_values,
// level_runs), leaving out moves up to `ignore_below` as transient_deviations() does.
SeriesDeviations series_deviations(std::span<const double> log_values,
                                   std::span<const double> level_medians, std::size_t level_runs,
                                   double ignore_below);

// The last `most` of transient_deviations() of the series' values [first, end), in its order,
// written into `deviations` (cleared first), from what series_deviations() found in the whole:
// a replay takes the deviations of a window of every benchmark for every pull request.
void window_deviations(const SeriesDeviations& series, std::size_t first, std::size_t end,
                       std::size_t most, std::vector<double>& deviations);

// The same deviations written into `deviations`, which is cleared first: a caller judging many
// windows reuses one vector.
void transient_deviations_into(std::span<const double> log_values,
                               std::span<const double> level_medians, std::size_t level_runs,
                               double ignore_below, std::vector<double>& deviations);

}  // namespace benchwatch::stats
