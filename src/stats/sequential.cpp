#include "stats/sequential.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

namespace benchwatch::stats {

double binomial_half_cdf(int n, int k) {
    assert(n >= 0);
    if (k < 0) return 0;
    if (k >= n) return 1;
    // Each term C(n, i) / 2^n in logarithms, so that large n neither overflows nor underflows
    // early.
    const double log_half_power = -n * std::log(2.0);
    double total = 0;
    for (int i = 0; i <= k; ++i)
        total += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) +
                          log_half_power);
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
    const int n = static_cast<int>(values.size());
    const int rank = sign_interval_rank(n, alpha);
    if (rank == 0) return {};
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    return {sorted[static_cast<std::size_t>(rank - 1)], sorted[static_cast<std::size_t>(n - rank)]};
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
