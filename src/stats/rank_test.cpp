#include "stats/rank_test.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace benchwatch::stats {

double mann_whitney_p_value(std::span<const double> a, std::span<const double> b) {
    if (a.empty() || b.empty()) return 1;
    struct Pooled {
        double value;
        bool from_a;
    };
    std::vector<Pooled> pooled;
    pooled.reserve(a.size() + b.size());
    for (const double value : a) pooled.push_back({value, true});
    for (const double value : b) pooled.push_back({value, false});
    std::sort(pooled.begin(), pooled.end(),
              [](const Pooled& x, const Pooled& y) { return x.value < y.value; });

    const double n = static_cast<double>(pooled.size());
    double rank_sum_a = 0;
    double tie_term = 0;
    for (std::size_t first = 0; first < pooled.size();) {
        std::size_t end = first + 1;
        while (end < pooled.size() && pooled[end].value == pooled[first].value) ++end;
        // Ranks first + 1 … end, all given their average.
        const double average_rank = (static_cast<double>(first + 1 + end)) / 2;
        const double tied = static_cast<double>(end - first);
        tie_term += tied * tied * tied - tied;
        for (std::size_t i = first; i < end; ++i)
            if (pooled[i].from_a) rank_sum_a += average_rank;
        first = end;
    }

    const double na = static_cast<double>(a.size());
    const double nb = static_cast<double>(b.size());
    const double u = rank_sum_a - na * (na + 1) / 2;
    const double variance = na * nb / 12 * (n + 1 - tie_term / (n * (n - 1)));
    if (variance <= 0) return 1;
    const double z = std::max(0.0, std::abs(u - na * nb / 2) - 0.5) / std::sqrt(variance);
    return std::erfc(z / std::sqrt(2.0));
}

}  // namespace benchwatch::stats
