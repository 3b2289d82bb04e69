#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "stats/sorted_counts.hpp"

namespace benchwatch::stats {

// One benchmark of a past pull request, as a budget shared by noise pools it.
struct PooledScore {
    double score = 0;  // its move from its level ÷ its noise, a regression positive
    // |score| when a flag of it would have been a fluke; 0 when its move lasted, or when the
    // whole suite moved and its move from the suite's was within the suite's spread.
    double fluke = 0;
    double noise = 0;  // its noise (log space), > 0
};

// Scores up to this size are pooled in units of each benchmark's noise; larger ones by their
// size in log space, since a busy machine's one-run spike does not scale with a benchmark's
// noise (a 20% spike is 40 noises of a 0.5% benchmark and 4 of a 5% one).
inline constexpr double kPooledCoreScore = 6.0;

// The tail that a history's own scores are mixed with while they are few: a fluke rate of
// 1 − 0.9u up to u = τ/σ = 1 and 0.1/u beyond (a heavy tail: 1% of moves beyond 10 noises),
// plus 1% of moves of any noise beyond 65% (ln 1.65 = 0.5), the busy machine's spikes. Clamped
// to 1. Example: prior_fluke_rate(0.1, 0.05) == 0.05 + 0.01.
double prior_fluke_rate(double threshold, double noise);

// The prior's share of moves beyond `move` (log space, a regression positive), half of its
// fluke rate either way. Example: prior_share_above(0.1, 0.05) == 0.03.
double prior_share_above(double move, double noise);

// No threshold is chosen below this share of its benchmark's noise. The flukes that prices are
// read from are moves that did not last, and noise that comes in spells (a machine busy for
// several runs in a row, as when a history is backfilled on one machine) lasts: a history can
// then show few flukes at thresholds far below the noise, and a head measured in another spell
// moves beyond them everywhere. On 30 runs of a real suite backfilled on a busy 2-core machine,
// identical heads were flagged on 4 benchmarks of 11 on average without it and 1 with it; on
// the histories docs/JUDGEMENT.md measures it moves a budget of 1's figures by at most 0.12
// flukes per pull request and 3 points of catches.
inline constexpr double kThresholdNoiseFloor = 0.5;

// A false-alarm budget shared out between benchmarks by their noise. Past pull requests give
// each benchmark's move from its level and its noise, pooled over the suite as PooledScore; from
// them, for a benchmark of noise σ, a threshold τ has
//   a fluke rate     the share of pooled moves beyond τ either way that were flukes
//   an expected catch  Σ over sizes d of the share of pooled moves beyond τ − d (a regression d)
// where a pooled move is its score × σ up to kPooledCoreScore noises and its own size beyond.
// While the scores are few they are mixed with the prior tail: each share is
// evidence_weight × the pooled one + (1 − evidence_weight) × the prior's. The benchmark gets the
// τ that maximises catch − price × fluke rate, never below kThresholdNoiseFloor × σ: a quiet
// benchmark so buys a threshold near the changes worth catching, and a noisy one, whose catches
// would cost many flukes, gives its share up, below its own noise when the history says its
// moves rarely reach it. The price is what a
// calibration sets.
class BudgetShare {
  public:
    // From `scores` (any order, every one finite with a positive noise), the regression sizes
    // worth catching in log space (e.g. ln 1.1 and ln 1.2), and the weight of the scores against
    // the prior, in [0, 1] (0 when there are no scores).
    BudgetShare(std::span<const PooledScore> scores, std::span<const double> sizes,
                double evidence_weight);

    // The share of moves of a benchmark of noise `noise` that would be flagged beyond
    // `threshold` and be flukes.
    double fluke_rate(double threshold, double noise) const;

    // The share of moves of a benchmark of noise `noise` beyond `move` (a regression positive).
    double share_above(double move, double noise) const;

    // Per noise of share_noise_grid(): the chosen threshold at `price` (>= 0). The fluke rate
    // of the threshold chosen never rises as the price rises.
    std::vector<double> thresholds(double price) const;

  private:
    double evidence_weight_ = 0;
    double count_ = 0;           // scores pooled
    SortedCounts core_flukes_;   // fluke magnitudes up to kPooledCoreScore
    SortedCounts core_scores_;   // scores within ±kPooledCoreScore
    SortedCounts large_flukes_;  // fluke × noise beyond kPooledCoreScore
    SortedCounts large_scores_;  // score × noise beyond ±kPooledCoreScore
    std::vector<double> catch_;  // noise × threshold, row-major
    std::vector<double> fluke_;
};

// The noise levels (log space) at which thresholds are tabulated: 160 log-spaced from 1e-4 to 3.
std::span<const double> share_noise_grid();

// The candidate thresholds (log space): ln(1 + c) for 80 changes c log-spaced from 1% to 300%.
std::span<const double> share_threshold_grid();

// Where a noise lies on share_noise_grid(): between points `lower` and lower + 1, `weight` of
// the way in ln noise (0 at the first end of the grid and below, 1 at the last and above).
struct GridPosition {
    std::size_t lower = 0;
    double weight = 0;
};
GridPosition grid_position(double noise);

// The threshold at a noise placed by grid_position() from `table` (one per share_noise_grid()
// point): interpolated linearly in ln noise, and the end values beyond the grid. Example: with a
// table of t_i at noise n_i, threshold_at(table, grid_position(n_3)) == t_3.
double threshold_at(std::span<const double> table, GridPosition position);

// The threshold at `noise` from `table`: threshold_at(table, grid_position(noise)), except below
// the largest grid noise n₀ at which the table holds the threshold grid's first point (1%, the
// smallest it can choose): there it is the same number of noises the table used at n₀, 1% × noise
// ÷ n₀, so that a benchmark far quieter than timings are (a count of instructions) is judged
// against its own noise and its category's minimum rather than 1%. Example: with a table at 1%
// up to the noise 0.004, a noise of 0.001 gives ln(1.01) / 4.
double threshold_for_noise(std::span<const double> table, double noise);

// threshold_for_noise() of a noise whose grid_position() is `position`, already worked out.
double threshold_for_noise(std::span<const double> table, double noise, GridPosition position);

// A table of thresholds by noise (one per share_noise_grid() point, or none) with where it
// leaves the threshold grid's first point found once, for a judge that looks up thousands of
// thresholds in it: at() equals threshold_for_noise() of the table. The table must outlive it.
class NoiseThresholds {
  public:
    explicit NoiseThresholds(std::span<const double> table);

    bool empty() const { return table_.empty(); }
    double at(double noise, GridPosition position) const;

  private:
    std::span<const double> table_;
    std::optional<std::size_t> last_at_smallest_;
};

}  // namespace benchwatch::stats
