#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace benchwatch::stats {

// A false-alarm budget shared out between benchmarks by their noise. Each benchmark of a pull
// request has a move from its level and a noise, both in log space; past pull requests give the
// distribution of score = move ÷ noise (oriented so that a positive score is a regression),
// pooled over the suite. From it, for a benchmark of noise σ, a threshold τ has
//   an expected fluke rate   P(|score| > τ / σ)           (a flag either way, without a change)
//   an expected catch        Σ over sizes d of P(score > (τ − d) / σ)   (a regression of size d)
// and the benchmark gets the τ that maximises catch − price × fluke rate, never under σ itself.
// A quiet benchmark so buys a threshold near the changes worth catching, and a noisy one, whose
// catches would cost many flukes, gives its share up. The price is what a calibration sets.
class BudgetShare {
  public:
    // From `scores` (any order, every one finite) and the regression sizes worth catching, in
    // log space (e.g. ln 1.1 and ln 1.2). With no scores every threshold is the largest.
    BudgetShare(std::vector<double> scores, std::span<const double> sizes);

    // Per noise of share_noise_grid(): the chosen threshold at `price` (>= 0). The thresholds
    // never fall as the price rises.
    std::vector<double> thresholds(double price) const;

  private:
    bool has_scores_ = false;
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

}  // namespace benchwatch::stats
