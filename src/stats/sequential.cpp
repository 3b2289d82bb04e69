#include "stats/sequential.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

namespace benchwatch::stats {

namespace {

double log_binomial_coefficient(int n, int k) {
    return std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0);
}

// [x_(rank), x_(n+1−rank)] of `values`, or (−∞, +∞) for rank 0.
Interval order_statistics_interval(std::span<const double> values, int rank) {
    const int n = static_cast<int>(values.size());
    if (rank == 0) return {};
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    return {sorted[static_cast<std::size_t>(rank - 1)], sorted[static_cast<std::size_t>(n - rank)]};
}

}  // namespace

double binomial_half_cdf(int n, int k) {
    assert(n >= 0);
    if (k < 0) return 0;
    if (k >= n) return 1;
    // Each term C(n, i) / 2^n in logarithms, so that large n neither overflows nor underflows
    // early.
    const double log_half_power = -n * std::log(2.0);
    double total = 0;
    for (int i = 0; i <= k; ++i) total += std::exp(log_binomial_coefficient(n, i) + log_half_power);
    return std::min(total, 1.0);
}

int sign_interval_rank(int n, double alpha) {
    assert(alpha > 0 && alpha < 1);
    int rank = 0;
    while (rank + 1 <= (n + 1) / 2 && 2 * binomial_half_cdf(n, rank) <= alpha) ++rank;
    return rank;
}

int fewest_values_for_interval(double alpha) {
    assert(alpha > 0 && alpha < 1);
    int n = 1;
    while (sign_interval_rank(n, alpha) == 0) ++n;
    return n;
}

Interval median_interval(std::span<const double> values, double alpha) {
    return order_statistics_interval(values,
                                     sign_interval_rank(static_cast<int>(values.size()), alpha));
}

double sign_mixture_evidence(int n, int above) {
    assert(n >= 0 && above >= 0 && above <= n);
    return std::exp((n + 1) * std::log(2.0) + std::log(binomial_half_cdf(n + 1, above)) -
                    std::log(n + 1.0) - log_binomial_coefficient(n, above));
}

int sequential_sign_rank(int n, double alpha) {
    assert(alpha > 0 && alpha < 1);
    // The evidence grows with the count above, so the rank is the last k whose n + 1 − k values
    // above still reach the threshold; half the error is spent on each end of the interval.
    int rank = 0;
    while (rank + 1 <= (n + 1) / 2 && sign_mixture_evidence(n, n - rank) >= 2 / alpha) ++rank;
    return rank;
}

int fewest_values_for_sequence(double alpha) {
    assert(alpha > 0 && alpha < 1);
    int n = 1;
    while (sequential_sign_rank(n, alpha) == 0) ++n;
    return n;
}

Interval median_confidence_sequence(std::span<const double> values, double alpha) {
    return order_statistics_interval(values,
                                     sequential_sign_rank(static_cast<int>(values.size()), alpha));
}

double alpha_per_look(double alpha, int max_looks) {
    assert(max_looks >= 1);
    return alpha / max_looks;
}

Side side_of(const Interval& interval, double boundary) {
    if (interval.low > boundary) return Side::Above;
    if (interval.high < boundary) return Side::Below;
    return Side::Across;
}

}  // namespace benchwatch::stats
