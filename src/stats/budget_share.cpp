#include "stats/budget_share.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>

namespace benchwatch::stats {

namespace {

constexpr std::size_t kNoises = 160;
constexpr std::size_t kThresholds = 80;

template <std::size_t N>
std::array<double, N> log_spaced(double first, double last) {
    std::array<double, N> grid{};
    const double low = std::log(first);
    const double step = (std::log(last) - low) / static_cast<double>(N - 1);
    for (std::size_t i = 0; i < N; ++i) grid[i] = std::exp(low + step * static_cast<double>(i));
    return grid;
}

const std::array<double, kNoises>& noise_grid() {
    static const auto grid = log_spaced<kNoises>(1e-4, 3.0);
    return grid;
}

const std::array<double, kThresholds>& threshold_grid() {
    static const auto grid = [] {
        auto changes = log_spaced<kThresholds>(0.01, 3.0);
        for (auto& change : changes) change = std::log1p(change);
        return changes;
    }();
    return grid;
}

// The share of `sorted` above `bound`.
double share_above(const std::vector<double>& sorted, double bound) {
    const auto above = sorted.end() - std::upper_bound(sorted.begin(), sorted.end(), bound);
    return static_cast<double>(above) / static_cast<double>(sorted.size());
}

}  // namespace

BudgetShare::BudgetShare(std::vector<double> scores, std::span<const double> sizes)
    : catch_(kNoises * kThresholds, 0.0), fluke_(kNoises * kThresholds, 0.0) {
    if (scores.empty()) return;
    has_scores_ = true;
    std::sort(scores.begin(), scores.end());
    std::vector<double> magnitudes(scores.size());
    std::transform(scores.begin(), scores.end(), magnitudes.begin(),
                   [](double score) { return std::abs(score); });
    std::sort(magnitudes.begin(), magnitudes.end());
    const auto& noises = noise_grid();
    const auto& thresholds = threshold_grid();
    for (std::size_t n = 0; n < kNoises; ++n) {
        for (std::size_t t = 0; t < kThresholds; ++t) {
            const double noise = noises[n];
            const double threshold = thresholds[t];
            double caught = 0;
            for (const double size : sizes)
                caught += share_above(scores, (threshold - size) / noise);
            catch_[n * kThresholds + t] = caught;
            fluke_[n * kThresholds + t] = share_above(magnitudes, threshold / noise);
        }
    }
}

std::vector<double> BudgetShare::thresholds(double price) const {
    assert(price >= 0);
    const auto& noises = noise_grid();
    const auto& thresholds = threshold_grid();
    std::vector<double> table(kNoises, thresholds.back());
    if (!has_scores_) return table;
    for (std::size_t n = 0; n < kNoises; ++n) {
        // The largest threshold is always allowed, so that a benchmark noisier than every
        // candidate still gets one; the others only from its noise up. Ties go to the smaller.
        std::size_t best = kThresholds - 1;
        double best_value = -std::numeric_limits<double>::infinity();
        for (std::size_t t = 0; t < kThresholds; ++t) {
            if (thresholds[t] < noises[n] && t + 1 < kThresholds) continue;
            const double value = catch_[n * kThresholds + t] - price * fluke_[n * kThresholds + t];
            if (value > best_value) {
                best = t;
                best_value = value;
            }
        }
        table[n] = thresholds[best];
    }
    return table;
}

std::span<const double> share_noise_grid() {
    return noise_grid();
}

std::span<const double> share_threshold_grid() {
    return threshold_grid();
}

GridPosition grid_position(double noise) {
    const auto& noises = noise_grid();
    if (!(noise > noises.front())) return {0, 0};
    if (noise >= noises.back()) return {kNoises - 2, 1};
    const auto upper = static_cast<std::size_t>(
        std::upper_bound(noises.begin(), noises.end(), noise) - noises.begin());
    const std::size_t lower = upper - 1;
    return {lower, (std::log(noise) - std::log(noises[lower])) /
                       (std::log(noises[upper]) - std::log(noises[lower]))};
}

double threshold_at(std::span<const double> table, GridPosition position) {
    assert(table.size() == kNoises && position.lower + 1 < kNoises);
    const double low = table[position.lower];
    return low + position.weight * (table[position.lower + 1] - low);
}

}  // namespace benchwatch::stats
