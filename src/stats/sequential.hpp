#pragma once

#include <cmath>
#include <limits>
#include <span>

#include "stats/stats.hpp"

namespace benchwatch::stats {

// P(X <= k) for X ~ Binomial(n, 1/2): the chance of at most k heads in n fair coin flips.
// 0 for k < 0, 1 for k >= n. Example: binomial_half_cdf(3, 0) == 0.125.
double binomial_half_cdf(int n, int k);

// The rank k (1-based) of the sign-test confidence interval [x_(k), x_(n+1−k)] for the median of
// n independent values: the largest k with 2 × P(Binomial(n, 1/2) <= k − 1) <= alpha, so that the
// interval misses the median with probability at most alpha whatever the distribution. 0 when n
// is too small for any finite interval at that level. Example: sign_interval_rank(6, 0.05) == 1
// (2 × 1/64 = 0.031), sign_interval_rank(5, 0.05) == 0 (2 × 1/32 = 0.0625).
int sign_interval_rank(int n, double alpha);

// The fewest values for which sign_interval_rank(n, alpha) is at least 1: the smallest n with
// 2^(1−n) <= alpha. Example: fewest_values_for_interval(0.05) == 6.
int fewest_values_for_interval(double alpha);

// The distribution-free confidence interval for the median of `values` at level 1 − alpha:
// [x_(k), x_(n+1−k)] with k = sign_interval_rank(n, alpha), or (−∞, +∞) when k is 0.
// Example: median_interval({5, 1, 4, 2, 3, 6}, 0.05) == [1, 6].
Interval median_interval(std::span<const double> values, double alpha);

// The evidence against "the median of the values is at most θ" after `n` independent values of
// which `above` lie above θ: the likelihood ratio of the signs, ∫ (2p)^above (2(1−p))^(n−above)
// dπ(p), mixed over p uniform on [1/2, 1], which in closed form is
// 2^(n+1) × P(Binomial(n+1, 1/2) <= above) / ((n+1) × C(n, above)). While the median is at most
// θ, each value is above θ with chance at most 1/2, so this is a nonnegative supermartingale that
// starts at 1: by Ville's inequality it ever reaches 1/alpha with chance at most alpha, however
// often it is looked at. Example: sign_mixture_evidence(8, 8) == 511 / 9, and
// sign_mixture_evidence(0, 0) == 1.
double sign_mixture_evidence(int n, int above);

// The rank k (1-based) of the anytime-valid interval [x_(k), x_(n+1−k)] for the median of n
// independent values: the largest k for which every θ below x_(k) (which has n + 1 − k values
// above it) has sign_mixture_evidence(n, n + 1 − k) >= 2 / alpha, and likewise above x_(n+1−k),
// so that the intervals of every n together miss the median with chance at most alpha. 0 when n
// is too small for a finite interval. Example: sequential_sign_rank(8, 0.05) == 1 (511 / 9 = 56.8
// >= 40), sequential_sign_rank(7, 0.05) == 0 (255 / 8 = 31.9 < 40).
int sequential_sign_rank(int n, double alpha);

// The fewest values for which sequential_sign_rank(n, alpha) is at least 1. Example:
// fewest_values_for_sequence(0.05) == 8.
int fewest_values_for_sequence(double alpha);

// The anytime-valid confidence interval for the median of `values` at level 1 − alpha:
// [x_(k), x_(n+1−k)] with k = sequential_sign_rank(n, alpha), or (−∞, +∞) when k is 0. Unlike
// median_interval(), it may be taken after every new value with no correction for the looks.
// Example: median_confidence_sequence({1, ..., 8}, 0.05) == [1, 8].
Interval median_confidence_sequence(std::span<const double> values, double alpha);

// The error rate each look of a sequential test may spend so that `max_looks` looks together err
// with probability at most `alpha` (Bonferroni): alpha / max_looks.
double alpha_per_look(double alpha, int max_looks);

// Where an interval lies relative to a boundary: wholly above it, wholly below it, or across it
// (a bound equal to the boundary counts as across).
enum class Side { Above, Below, Across };

// Side of `interval` relative to `boundary`. Example: side_of({0.1, 0.3}, 0.05) == Side::Above.
Side side_of(const Interval& interval, double boundary);

}  // namespace benchwatch::stats
