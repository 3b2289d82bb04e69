#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <vector>

namespace benchwatch::stats {

// The standard deviation of normal noise per unit of its median absolute deviation, 1 / Φ⁻¹(¾):
// the robust spread of deviations is kMadToSigma × the median of their absolute values.
inline constexpr double kMadToSigma = 1.482602218505602;

// Median of `values`; 0 for an empty span. Even counts average the two middle values.
// Example: median({3, 1, 2, 10}) == 2.5.
double median(std::span<const double> values);

// Arithmetic mean; 0 for an empty span.
double mean(std::span<const double> values);

// Sample standard deviation (n − 1 in the denominator); 0 for fewer than two values.
double sample_stddev(std::span<const double> values);

// The order statistics of `values` to keep when at most `most` may be kept: all of them in
// ascending order when there are no more than `most`, otherwise the ones at ranks
// round(i × (n − 1) / (most − 1)) for i = 0 … most − 1, so the smallest, the largest and evenly
// spaced ranks between. Requires most >= 2. Example: kept_order_statistics({5, 1, 4, 2, 3}, 3)
// == {1, 3, 5}.
std::vector<double> kept_order_statistics(std::span<const double> values, std::size_t most);

// A closed interval; infinite bounds when the data cannot bound it.
struct Interval {
    double low = -std::numeric_limits<double>::infinity();
    double high = std::numeric_limits<double>::infinity();

    // Whether both bounds are finite.
    bool finite() const { return std::isfinite(low) && std::isfinite(high); }
};

// The Wilson score interval of a share of `successes` in `trials` at `z` standard errors (1.96:
// about 95%); {0, 1} for no trials. Example: wilson_interval(5, 10, 1.96) ≈ {0.237, 0.763}.
Interval wilson_interval(long successes, long trials, double z);

// The mean of `counts` (events per unit, e.g. flukes per pull request) ± z standard errors, the
// standard error the larger of the sample's (standard deviation / √n) and a Poisson count's
// (√(mean / n)), so that one unit or identical units still get a width; never below 0.
// Examples: rate_interval({1}, 1.96) == {0, 2.96}; rate_interval({0, 2}, 1) == {0, 2}.
Interval rate_interval(std::span<const double> counts, double z);

// Smallest value; requires a non-empty span.
double minimum(std::span<const double> values);

// Typical change of a series: the median of |ln(x[i+1] / x[i])| over its last `max_pairs`
// consecutive pairs (fewer when the series is shorter). 0 when the series has under two values.
// Example: typical_change({100, 110, 100}, 30) == ln(1.1). Values must be positive.
double typical_change(std::span<const double> series, int max_pairs);

// Number of pairs typical_change() looks at: min(max(size − 1, 0), max_pairs).
int pairs_used(std::size_t series_size, int max_pairs);

// Geometric mean of positive ratios; 1 for an empty span.
// Example: geometric_mean({2, 0.5}) == 1.
double geometric_mean(std::span<const double> ratios);

// The verdict of the seed rule on one benchmark, in terms of the metric's own direction.
enum class Judgement { Unchanged, Worse, Better };

// The seed rule's threshold on |ln(head/base)|: the larger of factor × typical change and
// ln(1 + minimum_change). Example: seed_threshold(0.005, 3, 0.03) == ln(1.03).
double seed_threshold(double typical_change, double factor, double minimum_change);

// Judges a move of ln(head/base): Unchanged unless |log_ratio| > threshold (strictly); then Worse
// when the metric moved against `smaller_is_better`, Better otherwise.
Judgement judge_log_ratio(double log_ratio, double threshold, bool smaller_is_better);

// judge_log_ratio() of ln(head/base). Values must be positive.
Judgement judge(double base, double head, double threshold, bool smaller_is_better);

// Positions of the points to keep when `values` must be drawn with at most `max_points` points:
// all of them when there are no more than that; otherwise the series is cut by position into
// max_points / 2 buckets of nearly equal size (bucket b starts at b × n / buckets) and each keeps
// the position of its smallest and of its largest value (the first of equals), in position order
// and once when they coincide, so that steps and spikes survive. Requires max_points >= 2.
// Example: downsample_extremes({5, 1, 9, 3, 4, 8}, 4) == {1, 2, 3, 5}.
std::vector<std::size_t> downsample_extremes(std::span<const double> values,
                                             std::size_t max_points);

}  // namespace benchwatch::stats
