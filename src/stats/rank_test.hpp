#pragma once

#include <span>

namespace benchwatch::stats {

// The two-sided p-value of the Mann–Whitney U test that `a` and `b` come from one distribution,
// by the normal approximation with the tie correction and a continuity correction of ½:
// U = R_a − n_a(n_a + 1)/2 (R_a the sum of a's ranks in the pooled sample, ties given their
// average rank), σ² = n_a n_b / 12 × (n + 1 − Σ(t³ − t) / (n(n − 1))) over the groups of t equal
// values, z = max(0, |U − n_a n_b / 2| − ½) / σ and p = erfc(z / √2). 1 when either side is
// empty or every value is equal. Example: mann_whitney_p_value({1, 2, 3}, {4, 5, 6}) ≈ 0.0809.
double mann_whitney_p_value(std::span<const double> a, std::span<const double> b);

// The same test's two-sided p-value from the exact distribution of a's rank sum R_a over every
// way of choosing n_a of the pooled values (ties keep their average ranks): the share of choices
// whose |R − n_a(n + 1)/2| is at least the observed one. It can fall below 0.01 where the normal
// approximation cannot (3 runs above 9 others: 2 / C(12, 3) = 0.0091). Exact up to 60 values in
// all (cost ~ n³); beyond that mann_whitney_p_value(). 1 when either side is empty.
// Example: mann_whitney_exact_p_value({1, 2, 3}, {4, 5, 6}) == 2 / 20 = 0.1.
double mann_whitney_exact_p_value(std::span<const double> a, std::span<const double> b);

}  // namespace benchwatch::stats
