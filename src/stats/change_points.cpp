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

    // More than the rounding error of any cost, or of any sum of costs along a partition, can be.
    double rounding_bound() const { return 1e-9 * (1 + squares_.back() * scale_); }

  private:
    double scale_;
    std::vector<double> sums_;
    std::vector<double> squares_;
};

// How many of a tier's starts are sorted by their bound when it is made.
constexpr std::size_t kSortedFirst = 64;
// How many new starts are weighed at every end before they become a tier of their own.
constexpr std::size_t kNewest = 32;

// PELT (Killick, Fearnhead & Eckley 2012) with a minimum segment length: best[t] is the least
// penalised cost of values [0, t), the earliest start of equally cheap last segments. A candidate
// start s dominated at time t (its cost to t already exceeds best[t]) loses to t for every end from
// t + minimum on, and is dropped from then.
//
// Where the level does not move, nothing is dominated, so PELT alone weighs every earlier start at
// every end. Here a start is weighed only when a lower bound lets it win: the cost of a segment is
// at least the costs of its two parts, so for an anchor u between them best[s] + cost(s, t) ≥
// best[s] + cost(s, u) + cost(u, t). The starts are kept in tiers, each with its anchor (the end
// it was made at) and its starts sorted by best[s] + cost(s, u), which are weighed in that order
// until the bound exceeds the best total found. The newest starts are weighed at every end until
// there are kNewest; they then become a tier, merged with the tiers before it (weighing them all
// at the new anchor) while those are at most twice as large, so there are about log₂(n / kNewest)
// tiers and each start is weighed again at a new anchor about as many times.
std::vector<std::size_t> optimal_partition(const SegmentCost& cost, std::size_t count,
                                           std::size_t minimum, double penalty) {
    constexpr double unreachable = std::numeric_limits<double>::infinity();
    std::vector<double> best(count + 1, unreachable);
    std::vector<std::size_t> previous(count + 1, 0);
    best[0] = -penalty;
    const double rounding = cost.rounding_bound() + 1e-9 * penalty;

    struct Candidate {
        std::size_t start;
        std::size_t dropped_from;
        double bound = 0;  // best[start] + cost(start, anchor) of its tier
        double cost = 0;   // of values [start, end) at the current end, where weighed
    };
    struct Tier {
        std::size_t anchor;
        std::vector<Candidate> candidates;  // by bound
        std::size_t sorted = 0;             // candidates[0, sorted) are in order, before the rest
        std::size_t passed_dropped = 0;     // at the latest end
    };
    const auto by_bound = [](const Candidate& a, const Candidate& b) { return a.bound < b.bound; };
    std::vector<Tier> tiers;                       // oldest first
    std::vector<Candidate> newer{{0, count + 1}};  // ascending start
    std::vector<Candidate*> weighed;
    for (std::size_t end = minimum; end <= count; ++end) {
        // Starts reachable by a full first segment become candidates once they are.
        if (end >= 2 * minimum) newer.push_back({end - minimum, count + 1});
        std::erase_if(newer, [end](const Candidate& c) { return c.dropped_from <= end; });
        if (newer.size() >= kNewest) {
            Tier tier{end, std::move(newer)};
            newer.clear();
            while (!tiers.empty() && tiers.back().candidates.size() <= 2 * tier.candidates.size()) {
                for (const auto& candidate : tiers.back().candidates)
                    if (candidate.dropped_from > end) tier.candidates.push_back(candidate);
                tiers.pop_back();
            }
            tiers.push_back(std::move(tier));
        }

        weighed.clear();
        double least = unreachable;
        std::size_t least_start = 0;
        const auto weigh = [&](Candidate& candidate) {
            const double segment = cost(candidate.start, end);
            const double total = best[candidate.start] + segment + penalty;
            if (total < least || (total == least && candidate.start < least_start)) {
                least = total;
                least_start = candidate.start;
            }
            weighed.push_back(&candidate);
            candidate.cost = segment;
        };
        for (auto& tier : tiers) {
            auto& candidates = tier.candidates;
            if (tier.anchor == end) {
                for (auto& candidate : candidates) weigh(candidate);
                continue;
            }
            const double since_anchor = cost(tier.anchor, end);
            tier.passed_dropped = 0;
            for (std::size_t i = 0; i < candidates.size(); ++i) {
                if (i == tier.sorted) {
                    std::sort(candidates.begin() + static_cast<std::ptrdiff_t>(i), candidates.end(),
                              by_bound);
                    tier.sorted = candidates.size();
                }
                auto& candidate = candidates[i];
                if (candidate.dropped_from <= end) {
                    ++tier.passed_dropped;
                    continue;
                }
                if (candidate.bound + since_anchor + penalty > least + rounding) break;
                weigh(candidate);
            }
        }
        for (auto& candidate : newer) weigh(candidate);
        best[end] = least;
        previous[end] = least_start;
        for (Candidate* candidate : weighed)
            if (best[candidate->start] + candidate->cost >= best[end])
                candidate->dropped_from = std::min(candidate->dropped_from, end + minimum);

        // Dropped starts stay in their tier until they are passed over often.
        for (auto& tier : tiers) {
            if (tier.passed_dropped < kNewest) continue;
            std::size_t kept = 0;
            std::size_t kept_sorted = 0;
            for (std::size_t i = 0; i < tier.candidates.size(); ++i) {
                if (tier.candidates[i].dropped_from <= end) continue;
                if (i < tier.sorted) ++kept_sorted;
                tier.candidates[kept++] = tier.candidates[i];
            }
            tier.candidates.resize(kept);
            tier.sorted = kept_sorted;
            tier.passed_dropped = 0;
        }
        if (!tiers.empty() && tiers.back().anchor == end) {
            auto& tier = tiers.back();
            for (auto& candidate : tier.candidates)
                candidate.bound = best[candidate.start] + candidate.cost;
            // Only the first few are usually weighed later: sort those, the rest when reached.
            tier.sorted = std::min(tier.candidates.size(), kSortedFirst);
            const auto first = tier.candidates.begin() + static_cast<std::ptrdiff_t>(tier.sorted);
            std::nth_element(tier.candidates.begin(), first, tier.candidates.end(), by_bound);
            std::sort(tier.candidates.begin(), first, by_bound);
        }
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
// median by at least `minimum_step` (relative) either way. A step's size depends only on its
// neighbours, so after a removal only the two beside it are measured again.
void merge_small_steps(std::span<const double> values, std::vector<std::size_t>& starts,
                       double minimum_step) {
    const double smallest_allowed = std::log1p(minimum_step);
    std::vector<double> sizes(starts.size());
    const auto measure = [&](std::size_t i) {
        sizes[i] = std::abs(std::log(step_ratio(values, starts, i)));
    };
    for (std::size_t i = 0; i < starts.size(); ++i) measure(i);
    while (!starts.empty()) {
        std::size_t smallest = 0;
        double smallest_size = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < starts.size(); ++i) {
            if (sizes[i] < smallest_size) {
                smallest = i;
                smallest_size = sizes[i];
            }
        }
        if (smallest_size >= smallest_allowed) return;
        starts.erase(starts.begin() + static_cast<std::ptrdiff_t>(smallest));
        sizes.erase(sizes.begin() + static_cast<std::ptrdiff_t>(smallest));
        if (smallest > 0) measure(smallest - 1);
        if (smallest < starts.size()) measure(smallest);
    }
}

}  // namespace

std::vector<std::size_t> least_cost_partition(std::span<const double> values, double noise,
                                              std::size_t minimum, double penalty) {
    assert(minimum >= 1 && noise > 0);
    if (values.empty()) return {};
    return optimal_partition(SegmentCost(values, noise), values.size(), minimum, penalty);
}

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
    const double penalty =
        settings.penalty_per_log_n * std::log(static_cast<double>(values.size()));
    auto starts = least_cost_partition(clipped(logs, noise, settings.clip), noise,
                                       settings.minimum_segment, penalty);
    merge_small_steps(values, starts, settings.minimum_step);
    return starts;
}

}  // namespace benchwatch::stats
