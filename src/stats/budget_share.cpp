#include "stats/budget_share.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>
#include <optional>

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

// How many of `values` lie above `bound`.
double count_above(const SortedCounts& values, double bound) {
    return static_cast<double>(values.count_above(bound));
}

// A noise of 0 (a benchmark whose every deviation was 0) makes any move infinitely many noises.
double positive(double noise) {
    constexpr double smallest_noise = 1e-12;
    return std::max(noise, smallest_noise);
}

// Beyond this size (log space) the prior adds the busy machine's spikes, whatever the noise.
constexpr double kPriorSpikeSize = 0.5;
constexpr double kPriorSpikeRate = 0.01;

}  // namespace

double prior_fluke_rate(double threshold, double noise) {
    const double u = threshold / positive(noise);
    const double core = u < 1 ? 1 - 0.9 * u : 0.1 / u;
    return std::min(1.0, core + (threshold < kPriorSpikeSize ? kPriorSpikeRate : 0.0));
}

double prior_share_above(double move, double noise) {
    return move >= 0 ? prior_fluke_rate(move, noise) / 2 : 1 - prior_fluke_rate(-move, noise) / 2;
}

BudgetShare::BudgetShare(std::span<const PooledScore> scores, std::span<const double> sizes,
                         double evidence_weight)
    : evidence_weight_(scores.empty() ? 0.0 : evidence_weight),
      count_(static_cast<double>(scores.size())),
      catch_(kNoises * kThresholds, 0.0),
      fluke_(kNoises * kThresholds, 0.0) {
    assert(evidence_weight_ >= 0 && evidence_weight_ <= 1);
    std::vector<double> core_flukes;
    std::vector<double> large_flukes;
    std::vector<double> core_scores;
    std::vector<double> large_scores;
    for (const auto& pooled : scores) {
        assert(std::isfinite(pooled.score) && pooled.noise > 0);
        if (pooled.fluke <= kPooledCoreScore)
            core_flukes.push_back(pooled.fluke);
        else
            large_flukes.push_back(pooled.fluke * pooled.noise);
        if (std::abs(pooled.score) <= kPooledCoreScore)
            core_scores.push_back(pooled.score);
        else
            large_scores.push_back(pooled.score * pooled.noise);
    }
    core_flukes_ = SortedCounts(std::move(core_flukes));
    large_flukes_ = SortedCounts(std::move(large_flukes));
    core_scores_ = SortedCounts(std::move(core_scores));
    large_scores_ = SortedCounts(std::move(large_scores));
    const auto& noises = noise_grid();
    const auto& thresholds = threshold_grid();
    for (std::size_t n = 0; n < kNoises; ++n) {
        for (std::size_t t = 0; t < kThresholds; ++t) {
            double caught = 0;
            for (const double size : sizes) caught += share_above(thresholds[t] - size, noises[n]);
            catch_[n * kThresholds + t] = caught;
            fluke_[n * kThresholds + t] = fluke_rate(thresholds[t], noises[n]);
        }
    }
}

double BudgetShare::fluke_rate(double threshold, double noise) const {
    const double prior = prior_fluke_rate(threshold, noise);
    if (count_ == 0) return prior;
    const double u = threshold / positive(noise);
    const double within = u >= kPooledCoreScore ? 0.0 : count_above(core_flukes_, u);
    const double pooled = (within + count_above(large_flukes_, threshold)) / count_;
    return evidence_weight_ * pooled + (1 - evidence_weight_) * prior;
}
double BudgetShare::share_above(double move, double noise) const {
    const double prior = prior_share_above(move, noise);
    if (count_ == 0) return prior;
    const double v = move / positive(noise);
    double within = 0;
    if (v <= -kPooledCoreScore)
        within = static_cast<double>(core_scores_.size());
    else if (v < kPooledCoreScore)
        within = count_above(core_scores_, v);
    const double pooled = (within + count_above(large_scores_, move)) / count_;
    return evidence_weight_ * pooled + (1 - evidence_weight_) * prior;
}

std::vector<double> BudgetShare::thresholds(double price) const {
    assert(price >= 0);
    const auto& thresholds = threshold_grid();
    std::vector<double> table(kNoises, thresholds.back());
    for (std::size_t n = 0; n < kNoises; ++n) {
        // Ties go to the smaller threshold. The largest is always allowed, so that a benchmark
        // noisier than every candidate still gets one.
        std::size_t best = kThresholds - 1;
        double best_value = -std::numeric_limits<double>::infinity();
        for (std::size_t t = 0; t < kThresholds; ++t) {
            if (thresholds[t] < kThresholdNoiseFloor * noise_grid()[n] && t + 1 < kThresholds)
                continue;
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
    // The grid's logarithms, computed once: this runs for every benchmark at every setting a
    // calibration tries.
    static const auto log_noises = [&noises] {
        std::array<double, kNoises> logs{};
        for (std::size_t i = 0; i < kNoises; ++i) logs[i] = std::log(noises[i]);
        return logs;
    }();
    if (!(noise > noises.front())) return {0, 0};
    if (noise >= noises.back()) return {kNoises - 2, 1};
    const auto upper = static_cast<std::size_t>(
        std::upper_bound(noises.begin(), noises.end(), noise) - noises.begin());
    const std::size_t lower = upper - 1;
    return {lower, (std::log(noise) - log_noises[lower]) / (log_noises[upper] - log_noises[lower])};
}

double threshold_at(std::span<const double> table, GridPosition position) {
    assert(table.size() == kNoises && position.lower + 1 < kNoises);
    const double low = table[position.lower];
    return low + position.weight * (table[position.lower + 1] - low);
}

double threshold_for_noise(std::span<const double> table, double noise) {
    return threshold_for_noise(table, noise, grid_position(noise));
}

double threshold_for_noise(std::span<const double> table, double noise, GridPosition position) {
    return NoiseThresholds(table).at(noise, position);
}

NoiseThresholds::NoiseThresholds(std::span<const double> table) : table_(table) {
    assert(table.empty() || table.size() == kNoises);
    const double smallest = threshold_grid().front();
    for (std::size_t i = 0; i < table.size() && table[i] <= smallest; ++i) last_at_smallest_ = i;
}

double NoiseThresholds::at(double noise, GridPosition position) const {
    assert(table_.size() == kNoises);
    const auto& noises = noise_grid();
    if (last_at_smallest_ && noise < noises[*last_at_smallest_])
        return threshold_grid().front() * std::max(noise, 0.0) / noises[*last_at_smallest_];
    return threshold_at(table_, position);
}

}  // namespace benchwatch::stats
