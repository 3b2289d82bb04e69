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

double mann_whitney_exact_p_value(std::span<const double> a, std::span<const double> b) {
    constexpr std::size_t largest_exact = 60;
    if (a.empty() || b.empty()) return 1;
    const std::size_t n = a.size() + b.size();
    if (n > largest_exact) return mann_whitney_p_value(a, b);
    struct Pooled {
        double value;
        bool from_a;
    };
    std::vector<Pooled> pooled;
    pooled.reserve(n);
    for (const double value : a) pooled.push_back({value, true});
    for (const double value : b) pooled.push_back({value, false});
    std::sort(pooled.begin(), pooled.end(),
              [](const Pooled& x, const Pooled& y) { return x.value < y.value; });

    // Twice the average ranks, so that ties keep whole numbers.
    std::vector<std::size_t> doubled_ranks(n);
    std::size_t observed = 0;
    for (std::size_t first = 0; first < n;) {
        std::size_t end = first + 1;
        while (end < n && pooled[end].value == pooled[first].value) ++end;
        for (std::size_t i = first; i < end; ++i) {
            doubled_ranks[i] = first + 1 + end;
            if (pooled[i].from_a) observed += doubled_ranks[i];
        }
        first = end;
    }

    // ways[k][s]: how many choices of k of the values seen so far have doubled rank sum s (at
    // most C(60, 30) ≈ 1.2e17: a double keeps 16 digits of it, plenty for the ratio).
    const std::size_t chosen = a.size();
    const std::size_t most = 2 * n * chosen;
    std::vector<std::vector<double>> ways(chosen + 1, std::vector<double>(most + 1, 0));
    ways[0][0] = 1;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = std::min(chosen, i + 1); k >= 1; --k)
            for (std::size_t s = most; s >= doubled_ranks[i]; --s)
                ways[k][s] += ways[k - 1][s - doubled_ranks[i]];

    const auto centre = static_cast<long long>(chosen * (n + 1));
    const auto distance = [centre](std::size_t sum) {
        const long long off = static_cast<long long>(sum) - centre;
        return off < 0 ? -off : off;
    };
    double extreme = 0;
    double total = 0;
    for (std::size_t s = 0; s <= most; ++s) {
        total += ways[chosen][s];
        if (distance(s) >= distance(observed)) extreme += ways[chosen][s];
    }
    return std::min(1.0, extreme / total);
}

}  // namespace benchwatch::stats
