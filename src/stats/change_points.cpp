#include "stats/change_points.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>

#include "stats/stats.hpp"

namespace benchwatch::stats {

namespace {

// Half the width of the window whose median a value is clipped around.
constexpr std::size_t kClipHalfWindow = 2;

// The noise level of log values: robust standard deviation of one value, from the median
// absolute difference of consecutive values (each difference holds two values' noise, hence √2).
double noise_level(std::span<const double> logs, double floor) {
    if (logs.size() < 2) return floor;
    std::vector<double> differences;
    differences.reserve(logs.size() - 1);
    for (std::size_t i = 1; i < logs.size(); ++i)
        differences.push_back(std::abs(logs[i] - logs[i - 1]));
    return std::max(floor, kMadToSigma * median(differences) / std::sqrt(2.0));
}

// The median of at most 2 × kClipHalfWindow + 1 values, without allocating.
double window_median(std::span<const double> window) {
    std::array<double, 2 * kClipHalfWindow + 1> sorted{};
    assert(!window.empty() && window.size() <= sorted.size());
    // Insertion sort: at most five values.
    for (std::size_t i = 0; i < window.size(); ++i) {
        std::size_t place = i;
        for (; place > 0 && sorted[place - 1] > window[i]; --place)
            sorted[place] = sorted[place - 1];
        sorted[place] = window[i];
    }
    const std::size_t middle = window.size() / 2;
    return window.size() % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

// Each log value pulled to within `clip` × `noise` of the median of the values around it.
std::vector<double> clipped(std::span<const double> logs, double noise, double clip) {
    std::vector<double> result(logs.size());
    for (std::size_t i = 0; i < logs.size(); ++i) {
        const std::size_t first = i >= kClipHalfWindow ? i - kClipHalfWindow : 0;
        const std::size_t last = std::min(logs.size(), i + kClipHalfWindow + 1);
        const double centre = window_median(logs.subspan(first, last - first));
        result[i] = std::clamp(logs[i], centre - clip * noise, centre + clip * noise);
    }
    return result;
}

// Sum of squared deviations from their mean of any run of values, from prefix sums.
class SegmentCost {
  public:
    SegmentCost(std::span<const double> values, double noise) : scale_(1 / (noise * noise)) {
        // Centring first keeps the prefix sums small, so the subtraction below stays exact.
        const double centre = median(values);
        sums_.assign(values.size() + 1, 0);
        squares_.assign(values.size() + 1, 0);
        for (std::size_t i = 0; i < values.size(); ++i) {
            const double value = values[i] - centre;
            sums_[i + 1] = sums_[i] + value;
            squares_[i + 1] = squares_[i] + value * value;
        }
    }

    // The cost of values [begin, end), in units of the noise level squared.
    double operator()(std::size_t begin, std::size_t end) const {
        const double count = static_cast<double>(end - begin);
        const double sum = sums_[end] - sums_[begin];
        const double squares = squares_[end] - squares_[begin];
        return std::max(0.0, squares - sum * sum / count) * scale_;
    }

  private:
    double scale_;
    std::vector<double> sums_;
    std::vector<double> squares_;
};

// PELT (Killick, Fearnhead & Eckley 2012) with a minimum segment length: best[t] is the least
// penalised cost of values [0, t). A candidate start s dominated at time t (its cost to t already
// exceeds best[t]) loses to t for every end from t + minimum on, and is dropped from then.
std::vector<std::size_t> optimal_partition(const SegmentCost& cost, std::size_t count,
                                           std::size_t minimum, double penalty) {
    constexpr double unreachable = std::numeric_limits<double>::infinity();
    std::vector<double> best(count + 1, unreachable);
    std::vector<std::size_t> previous(count + 1, 0);
    best[0] = -penalty;

    struct Candidate {
        std::size_t start;
        std::size_t dropped_from;
        double cost = 0;  // of values [start, end) at the current end
    };
    std::vector<Candidate> candidates{{0, count + 1}};
    for (std::size_t end = minimum; end <= count; ++end) {
        // Starts reachable by a full first segment become candidates once they are.
        if (end >= 2 * minimum) candidates.push_back({end - minimum, count + 1});
        std::erase_if(candidates, [end](const Candidate& c) { return c.dropped_from <= end; });
        for (auto& candidate : candidates) {
            if (end - candidate.start < minimum) continue;
            candidate.cost = cost(candidate.start, end);
            const double total = best[candidate.start] + candidate.cost + penalty;
            if (total < best[end]) {
                best[end] = total;
                previous[end] = candidate.start;
            }
        }
        for (auto& candidate : candidates)
            if (end - candidate.start >= minimum &&
                best[candidate.start] + candidate.cost >= best[end])
                candidate.dropped_from = std::min(candidate.dropped_from, end + minimum);
    }

    std::vector<std::size_t> starts;
    for (std::size_t end = count; end > 0; end = previous[end])
        if (previous[end] > 0) starts.push_back(previous[end]);
    std::reverse(starts.begin(), starts.end());
    return starts;
}

// The ratio of the medians of the segments on either side of starts[i].
double step_ratio(std::span<const double> values, const std::vector<std::size_t>& starts,
                  std::size_t i) {
    const std::size_t before_begin = i == 0 ? 0 : starts[i - 1];
    const std::size_t after_end = i + 1 == starts.size() ? values.size() : starts[i + 1];
    return median(values.subspan(starts[i], after_end - starts[i])) /
           median(values.subspan(before_begin, starts[i] - before_begin));
}

// Removes the change point whose step is smallest, again and again, until every step moves the
// median by at least `minimum_step` (relative) either way.
void merge_small_steps(std::span<const double> values, std::vector<std::size_t>& starts,
                       double minimum_step) {
    const double smallest_allowed = std::log1p(minimum_step);
    while (!starts.empty()) {
        std::size_t smallest = 0;
        double smallest_size = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < starts.size(); ++i) {
            const double size = std::abs(std::log(step_ratio(values, starts, i)));
            if (size < smallest_size) {
                smallest = i;
                smallest_size = size;
            }
        }
        if (smallest_size >= smallest_allowed) return;
        starts.erase(starts.begin() + static_cast<std::ptrdiff_t>(smallest));
    }
}

}  // namespace

std::vector<std::size_t> change_points(std::span<const double> values,
                                       const ChangePointSettings& settings) {
    assert(settings.minimum_segment >= 1);
    if (values.size() < 2 * settings.minimum_segment) return {};
    std::vector<double> logs;
    logs.reserve(values.size());
    for (const double value : values) {
        assert(value > 0);
        logs.push_back(std::log(value));
    }
    const double noise = noise_level(logs, settings.noise_floor);
    const SegmentCost cost(clipped(logs, noise, settings.clip), noise);
    const double penalty =
        settings.penalty_per_log_n * std::log(static_cast<double>(values.size()));
    auto starts = optimal_partition(cost, values.size(), settings.minimum_segment, penalty);
    merge_small_steps(values, starts, settings.minimum_step);
    return starts;
}

}  // namespace benchwatch::stats
