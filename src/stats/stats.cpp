#include "stats/stats.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <numeric>
#include <vector>

#include "model/result.hpp"

namespace benchwatch::stats {

namespace {

// Spans up to this long are sorted on the stack: the level and transient-deviation windows are
// 5 values, taken millions of times when a history is replayed.
constexpr std::size_t small_median = 16;

// The median of five values by a sorting network's nine compare-exchanges, without branches: a
// replay takes millions of five-run medians (levels, and the windows before and after each pull
// request).
double median_of_five(std::span<const double> values) {
    double v[5] = {values[0], values[1], values[2], values[3], values[4]};
    const auto exchange = [&v](int low, int high) {
        const double smaller = std::min(v[low], v[high]);
        v[high] = std::max(v[low], v[high]);
        v[low] = smaller;
    };
    exchange(0, 1);
    exchange(3, 4);
    exchange(2, 4);
    exchange(2, 3);
    exchange(0, 3);
    exchange(0, 2);
    exchange(1, 4);
    exchange(1, 3);
    exchange(1, 2);
    return v[2];
}

double median_of_small(std::span<const double> values) {
    std::array<double, small_median> sorted{};
    const auto n = values.size();
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t j = i;
        while (j > 0 && sorted[j - 1] > values[i]) {
            sorted[j] = sorted[j - 1];
            --j;
        }
        sorted[j] = values[i];
    }
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

}  // namespace

double median(std::span<const double> values) {
    if (values.empty()) return 0;
    if (values.size() == 5) return median_of_five(values);
    if (values.size() <= small_median) return median_of_small(values);
    std::vector<double> sorted(values.begin(), values.end());
    const auto middle = sorted.size() / 2;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(middle),
                     sorted.end());
    const double upper = sorted[middle];
    if (sorted.size() % 2 == 1) return upper;
    const double lower =
        *std::max_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(middle));
    return (lower + upper) / 2;
}

double mean(std::span<const double> values) {
    if (values.empty()) return 0;
    return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double sample_stddev(std::span<const double> values) {
    if (values.size() < 2) return 0;
    const double average = mean(values);
    double squares = 0;
    for (const double value : values) squares += (value - average) * (value - average);
    return std::sqrt(squares / static_cast<double>(values.size() - 1));
}

std::vector<double> kept_order_statistics(std::span<const double> values, std::size_t most) {
    assert(most >= 2);
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    if (sorted.size() <= most) return sorted;
    std::vector<double> kept;
    kept.reserve(most);
    const double last = static_cast<double>(sorted.size() - 1);
    for (std::size_t i = 0; i < most; ++i) {
        const double rank =
            std::round(static_cast<double>(i) * last / static_cast<double>(most - 1));
        kept.push_back(sorted[static_cast<std::size_t>(rank)]);
    }
    return kept;
}

Interval wilson_interval(long successes, long trials, double z) {
    if (trials <= 0) return {0, 1};
    const double n = static_cast<double>(trials);
    const double share = static_cast<double>(successes) / n;
    const double z2 = z * z;
    const double centre = (share + z2 / (2 * n)) / (1 + z2 / n);
    const double half = z / (1 + z2 / n) * std::sqrt(share * (1 - share) / n + z2 / (4 * n * n));
    return {std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

Interval rate_interval(std::span<const double> counts, double z) {
    if (counts.empty()) return {0, 0};
    const double centre = mean(counts);
    const double n = static_cast<double>(counts.size());
    const double error = std::max(sample_stddev(counts) / std::sqrt(n), std::sqrt(centre / n));
    return {std::max(0.0, centre - z * error), centre + z * error};
}

double minimum(std::span<const double> values) {
    assert(!values.empty() && "minimum() of an empty span");
    return *std::min_element(values.begin(), values.end());
}

int pairs_used(std::size_t series_size, int max_pairs) {
    if (series_size < 2 || max_pairs <= 0) return 0;
    const auto available = series_size - 1;
    return static_cast<int>(std::min(available, static_cast<std::size_t>(max_pairs)));
}

double typical_change(std::span<const double> series, int max_pairs) {
    const int pairs = pairs_used(series.size(), max_pairs);
    if (pairs == 0) return 0;
    const auto recent = series.last(static_cast<std::size_t>(pairs) + 1);
    std::vector<double> log_changes;
    log_changes.reserve(static_cast<std::size_t>(pairs));
    for (std::size_t i = 0; i + 1 < recent.size(); ++i) {
        assert(recent[i] > 0 && recent[i + 1] > 0 && "typical_change() needs positive values");
        log_changes.push_back(std::abs(std::log(recent[i + 1] / recent[i])));
    }
    return median(log_changes);
}

double geometric_mean(std::span<const double> ratios) {
    if (ratios.empty()) return 1;
    double log_sum = 0;
    for (const double ratio : ratios) {
        assert(ratio > 0 && "geometric_mean() needs positive ratios");
        log_sum += std::log(ratio);
    }
    return std::exp(log_sum / static_cast<double>(ratios.size()));
}

double seed_threshold(double typical_change, double factor, double minimum_change) {
    return std::max(factor * typical_change, std::log1p(minimum_change));
}

Judgement judge_log_ratio(double log_ratio, double threshold, bool smaller_is_better) {
    if (!(std::abs(log_ratio) > threshold)) return Judgement::Unchanged;
    const auto direction =
        smaller_is_better ? model::Direction::SmallerIsBetter : model::Direction::BiggerIsBetter;
    return model::worse(direction, std::exp(log_ratio)) ? Judgement::Worse : Judgement::Better;
}

Judgement judge(double base, double head, double threshold, bool smaller_is_better) {
    assert(base > 0 && head > 0 && "judge() needs positive values");
    return judge_log_ratio(std::log(head / base), threshold, smaller_is_better);
}

std::vector<std::size_t> downsample_extremes(std::span<const double> values,
                                             std::size_t max_points) {
    assert(max_points >= 2 && "downsample_extremes() keeps at least two points");
    std::vector<std::size_t> kept;
    if (values.size() <= max_points) {
        kept.resize(values.size());
        for (std::size_t i = 0; i < kept.size(); ++i) kept[i] = i;
        return kept;
    }
    const std::size_t buckets = max_points / 2;
    kept.reserve(2 * buckets);
    for (std::size_t bucket = 0; bucket < buckets; ++bucket) {
        const std::size_t begin = bucket * values.size() / buckets;
        const std::size_t end = (bucket + 1) * values.size() / buckets;
        std::size_t smallest = begin;
        std::size_t largest = begin;
        for (std::size_t i = begin + 1; i < end; ++i) {
            if (values[i] < values[smallest]) smallest = i;
            if (values[i] > values[largest]) largest = i;
        }
        kept.push_back(std::min(smallest, largest));
        if (smallest != largest) kept.push_back(std::max(smallest, largest));
    }
    return kept;
}

}  // namespace benchwatch::stats
