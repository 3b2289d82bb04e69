#include "stats/sample_test.hpp"

#include <algorithm>
#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cassert>
#include <cmath>
#include <numbers>
#include <numeric>
#include <vector>

#include "stats/stats.hpp"
#include "stats/transient.hpp"

namespace benchwatch::stats {

namespace {

// The median of a chi-square distribution with one degree of freedom.
constexpr double chi_square_1_median = 0.454936423119572;

// The 90th percentile of |t_ν| over its median.
double tail_ratio(double degrees_of_freedom) {
    const boost::math::students_t distribution(degrees_of_freedom);
    return boost::math::quantile(boost::math::complement(distribution, 0.05)) /
           boost::math::quantile(boost::math::complement(distribution, 0.25));
}

bool usable_spread(const SampleSpread& side) {
    return side.count >= 2 && std::isfinite(side.median) && side.median > 0 &&
           std::isfinite(side.mean) && side.mean > 0 && std::isfinite(side.stddev) &&
           side.stddev >= 0;
}

// The median of deviation² / (within + τ²) over the benchmarks.
double median_scaled_square(std::span<const double> deviations, std::span<const double> within,
                            double tau) {
    std::vector<double> scaled(deviations.size());
    for (std::size_t i = 0; i < deviations.size(); ++i) {
        const double variance = within[i] + tau * tau;
        const double square = deviations[i] * deviations[i];
        scaled[i] = variance > 0 ? square / variance : (square > 0 ? INFINITY : 0.0);
    }
    return median(scaled);
}

// The Maritz–Jarrett weights of k order statistics for the ((k + 1) / 2)-th: the chance that a
// Beta((k + 1) / 2, k − (k + 1) / 2 + 1) variable, the share of a distribution below that order
// statistic, falls between (i − 1) / k and i / k. Suites judge many benchmarks with one count,
// so each count's weights are computed once per thread.
const std::vector<double>& median_weights(std::size_t k) {
    thread_local std::vector<std::vector<double>> by_count;
    if (by_count.size() <= k) by_count.resize(k + 1);
    std::vector<double>& weights = by_count[k];
    if (!weights.empty()) return weights;
    const double rank = static_cast<double>((k + 1) / 2);
    const boost::math::beta_distribution<double> share(rank, static_cast<double>(k) - rank + 1);
    double below = 0;
    for (std::size_t i = 1; i <= k; ++i) {
        const double upto =
            i == k ? 1.0 : boost::math::cdf(share, static_cast<double>(i) / static_cast<double>(k));
        weights.push_back(upto - below);
        below = upto;
    }
    return weights;
}

bool usable_kept(std::span<const double> kept, std::int64_t count) {
    return kept.size() >= 2 && static_cast<std::int64_t>(kept.size()) <= count &&
           std::all_of(kept.begin(), kept.end(),
                       [](double value) { return std::isfinite(value) && value > 0; });
}

double median_variance_from_deviation(const SampleSpread& side) {
    const double cv = side.stddev / side.mean;
    return std::numbers::pi / 2.0 * cv * cv / static_cast<double>(side.count);
}

}  // namespace

double log_median_variance(std::span<const double> kept, std::int64_t count) {
    assert(kept.size() >= 2 && static_cast<std::int64_t>(kept.size()) <= count);
    const std::vector<double>& weights = median_weights(kept.size());
    // Moments about the kept median's log, so that large logs do not cancel.
    const double centre = std::log(kept[(kept.size() - 1) / 2]);
    double first = 0;
    double second = 0;
    for (std::size_t i = 0; i < kept.size(); ++i) {
        const double deviation = std::log(kept[i]) - centre;
        first += weights[i] * deviation;
        second += weights[i] * deviation * deviation;
    }
    const double variance = std::max(0.0, second - first * first);
    return variance * static_cast<double>(kept.size()) / static_cast<double>(count);
}

double log_minimum_variance(std::span<const double> kept, std::int64_t count) {
    assert(kept.size() >= 2 && static_cast<std::int64_t>(kept.size()) <= count);
    const double k = static_cast<double>(kept.size());
    const double centre = std::log(kept.front());
    double first = 0;
    double second = 0;
    for (std::size_t i = 0; i < kept.size(); ++i) {
        const double at = static_cast<double>(i);
        const double weight = std::pow(1.0 - at / k, k) - std::pow(1.0 - (at + 1.0) / k, k);
        const double deviation = std::log(kept[i]) - centre;
        first += weight * deviation;
        second += weight * deviation * deviation;
    }
    const double variance = std::max(0.0, second - first * first);
    return variance * k / static_cast<double>(count);
}

std::optional<SampleMove> sample_move(const SampleSpread& base, const SampleSpread& head,
                                      SampleStatistic statistic) {
    if (!usable_spread(base) || !usable_spread(head)) return std::nullopt;
    const bool both_kept = usable_kept(base.kept, base.count) && usable_kept(head.kept, head.count);
    SampleMove move;
    switch (statistic) {
        case SampleStatistic::Median:
            move.log_move = std::log(head.median / base.median);
            move.within_variance = both_kept ? log_median_variance(base.kept, base.count) +
                                                   log_median_variance(head.kept, head.count)
                                             : median_variance_from_deviation(base) +
                                                   median_variance_from_deviation(head);
            break;
        case SampleStatistic::Minimum:
            if (!(std::isfinite(base.minimum) && base.minimum > 0 && std::isfinite(head.minimum) &&
                  head.minimum > 0))
                return std::nullopt;
            move.log_move = std::log(head.minimum / base.minimum);
            move.within_variance = both_kept ? log_minimum_variance(base.kept, base.count) +
                                                   log_minimum_variance(head.kept, head.count)
                                             : median_variance_from_deviation(base) +
                                                   median_variance_from_deviation(head);
            break;
        case SampleStatistic::Mean: {
            move.log_move = std::log(head.mean / base.mean);
            const auto relative_variance = [](const SampleSpread& side) {
                const double cv = side.stddev / side.mean;
                return cv * cv / static_cast<double>(side.count);
            };
            move.within_variance = relative_variance(base) + relative_variance(head);
            break;
        }
    }
    move.within_df = static_cast<double>(base.count + head.count - 2);
    return move;
}

double run_to_run_spread(std::span<const double> deviations,
                         std::span<const double> within_variances) {
    if (deviations.size() < 2) return 0;
    const double target = chi_square_1_median;
    if (median_scaled_square(deviations, within_variances, 0) <= target) return 0;
    // The median of the scaled squares falls as τ grows: bisect for the τ where it is the
    // target. Every deviation is below the largest |deviation| / √target, so that τ is a
    // bracket's top.
    double largest = 0;
    for (const double deviation : deviations) largest = std::max(largest, std::abs(deviation));
    double low = 0;
    double high = largest / std::sqrt(target) + 1e-300;
    for (int step = 0; step < 200 && high - low > 1e-12 * high; ++step) {
        const double middle = (low + high) / 2.0;
        if (median_scaled_square(deviations, within_variances, middle) > target)
            low = middle;
        else
            high = middle;
    }
    return high;
}

namespace {

// A group's median move and the spread between runs learned from its deviations from it.
struct GroupFit {
    double centre = 0;
    double spread = 0;
};

// The fit of the benchmarks `members`, their spread learned as that of a whole population.
GroupFit fit_group(std::span<const double> moves, std::span<const double> within,
                   std::span<const std::size_t> members) {
    std::vector<double> group_moves;
    std::vector<double> group_within;
    for (const std::size_t i : members) {
        group_moves.push_back(moves[i]);
        group_within.push_back(within[i]);
    }
    GroupFit fit;
    fit.centre = median(group_moves);
    for (double& move : group_moves) move -= fit.centre;
    fit.spread = run_to_run_spread(group_moves, group_within);
    return fit;
}

// The benchmarks of `pool` (ascending) that agree with `fit`, a group whose members' median
// within variance is `typical`: a benchmark more precise than the group is held to the group's
// noise, since the spread between runs may be learned as 0 where the samples explain the
// group's moves.
std::vector<std::size_t> agreeing(std::span<const double> moves, std::span<const double> within,
                                  std::span<const std::size_t> pool, const GroupFit& fit,
                                  double typical) {
    std::vector<std::size_t> members;
    for (const std::size_t i : pool) {
        const double noise = std::sqrt(std::max(within[i], typical) + fit.spread * fit.spread);
        if (std::abs(moves[i] - fit.centre) <= kAgreementWidth * noise) members.push_back(i);
    }
    return members;
}

// The median of `values` over the benchmarks `members`.
double median_of(std::span<const double> values, std::span<const std::size_t> members) {
    std::vector<double> picked;
    picked.reserve(members.size());
    for (const std::size_t i : members) picked.push_back(values[i]);
    return median(picked);
}

// The largest group agreeing with the shortest `half` of `pool` (ascending by index).
std::vector<std::size_t> group_from_shortest_half(std::span<const double> moves,
                                                  std::span<const double> within,
                                                  std::span<const std::size_t> pool,
                                                  std::size_t half) {
    std::vector<std::size_t> by_move(pool.begin(), pool.end());
    std::stable_sort(by_move.begin(), by_move.end(),
                     [&](std::size_t a, std::size_t b) { return moves[a] < moves[b]; });
    std::size_t first = 0;
    double best_width = INFINITY;
    double best_distance = INFINITY;
    for (std::size_t start = 0; start + half <= by_move.size(); ++start) {
        const double width = moves[by_move[start + half - 1]] - moves[by_move[start]];
        if (width > best_width) continue;
        const std::span<const std::size_t> window(by_move.data() + start, half);
        const double distance = std::abs(median_of(moves, window));
        if (width < best_width || distance < best_distance) {
            first = start;
            best_width = width;
            best_distance = distance;
        }
    }
    std::vector<std::size_t> core(by_move.begin() + static_cast<std::ptrdiff_t>(first),
                                  by_move.begin() + static_cast<std::ptrdiff_t>(first + half));
    std::sort(core.begin(), core.end());
    // The core's spread is learned as a whole population's. Where the suite holds two
    // populations, the core is the tighter one and its spread is its own, so the other stays
    // out. Where nothing moved, the core is the closest-together half of one population and
    // its spread about half the suite's: about 95% of a normal suite still lies within 4 of
    // those noises, more than the two thirds at which the whole suite is used. Learned as from
    // the middle of a suite instead, the core's spread is twice as wide, and one population
    // 4 × that away swallows the other; learned again from a group that one far, imprecise
    // benchmark joined, it widens with each step until every benchmark agrees.
    const auto group =
        agreeing(moves, within, pool, fit_group(moves, within, core), median_of(within, core));
    return group.empty() ? core : group;
}

}  // namespace

std::vector<std::size_t> largest_agreeing_group(std::span<const double> moves,
                                                std::span<const double> within_variances) {
    assert(moves.size() == within_variances.size());
    const std::size_t half = (moves.size() + 1) / 2;
    std::vector<std::size_t> pool(moves.size());
    std::iota(pool.begin(), pool.end(), std::size_t{0});
    std::vector<std::size_t> best;
    double best_distance = INFINITY;
    while (!pool.empty() && pool.size() >= half && pool.size() >= best.size()) {
        auto group = group_from_shortest_half(moves, within_variances, pool, half);
        const double distance = std::abs(median_of(moves, group));
        if (group.size() > best.size() ||
            (group.size() == best.size() && distance < best_distance)) {
            best = group;
            best_distance = distance;
        }
        std::vector<std::size_t> rest;
        std::set_difference(pool.begin(), pool.end(), group.begin(), group.end(),
                            std::back_inserter(rest));
        if (rest.size() == pool.size()) break;
        pool = std::move(rest);
    }
    return best;
}

SuiteSpread suite_spread(std::span<const double> moves, std::span<const double> within_variances) {
    assert(moves.size() == within_variances.size());
    std::vector<std::size_t> members(moves.size());
    std::iota(members.begin(), members.end(), std::size_t{0});
    const auto group = largest_agreeing_group(moves, within_variances);
    if (group.size() >= kAgreeingGroupMinimum && 3 * group.size() < 2 * moves.size())
        members = group;
    const GroupFit fit = fit_group(moves, within_variances, members);
    return {fit.centre, fit.spread, members.size()};
}

double move_tail_degrees_of_freedom(std::span<const double> scaled_moves) {
    constexpr double assumed = 2;
    constexpr double heaviest = 1;
    constexpr double lightest = 1000;
    if (scaled_moves.size() < kTailSuiteMinimum) return assumed;
    std::vector<double> sizes;
    sizes.reserve(scaled_moves.size());
    for (const double move : scaled_moves) sizes.push_back(std::abs(move));
    const double middle = quantile(sizes, 0.5);
    const double high = quantile(sizes, 0.9);
    if (!(middle > 0)) return high > 0 ? heaviest : INFINITY;
    const double ratio = high / middle;
    if (ratio <= tail_ratio(lightest)) return INFINITY;
    if (ratio >= tail_ratio(heaviest)) return heaviest;
    // The ratio falls as ν grows: bisect on log ν.
    double low = std::log(heaviest);
    double top = std::log(lightest);
    for (int step = 0; step < 60; ++step) {
        const double mid = (low + top) / 2;
        if (tail_ratio(std::exp(mid)) > ratio)
            low = mid;
        else
            top = mid;
    }
    return std::exp((low + top) / 2);
}

double run_to_run_degrees_of_freedom(std::size_t deviations) {
    if (deviations < 2) return 1;
    return std::max(1.0, 0.37 * static_cast<double>(deviations - 1));
}

double satterthwaite_degrees_of_freedom(double a, double df_a, double b, double df_b) {
    if (b <= 0) return df_a;
    if (a <= 0) return df_b;
    return (a + b) * (a + b) / (a * a / df_a + b * b / df_b);
}

double student_t_critical(double p, double df) {
    const boost::math::students_t distribution(df);
    return boost::math::quantile(boost::math::complement(distribution, p / 2.0));
}

}  // namespace benchwatch::stats
