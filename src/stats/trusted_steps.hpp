#pragma once

// Steps a maintainer can trust: the change points of stats::change_points() that are kept only
// where both levels last (the latest level as long as it could), the move is bigger than what a
// pull request's report would flag there, and a rank test on the runs either side agrees. The detector alone follows the level
// of noisy stretches closely (segments of 3 runs, moves of 2%); these rules keep the steps that
// would survive a second look.

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "stats/change_points.hpp"

namespace benchwatch::stats {

// The rules a step must pass to be trusted; the defaults are the ones benchwatch uses.
struct StepTrustSettings {
    std::size_t minimum_runs = 5;  // runs of each level, counted to the neighbouring step
    // Runs of the new level when it is the latest, which has had no chance to last longer.
    std::size_t latest_minimum_runs = 3;
    std::size_t test_runs = 10;  // the rank test compares at most this many runs each side
    double alpha = 0.01;         // the rank test's two-sided significance level
};

// The smallest log move a benchmark's report would flag after the runs `before` (oldest first,
// positive): the threshold a step there must exceed.
using DetectableLogChange = std::function<double(std::span<const double> before)>;

// A step that passed every rule, with what it passed them by.
struct TrustedStep {
    Step step;                     // index and ratio of the medians of the two levels
    std::size_t runs_before = 0;   // length of the old level
    std::size_t runs_after = 0;    // length of the new level
    double detectable_change = 0;  // the threshold at the step, relative (0.05 is 5%)
    double p_value = 1;            // the rank test's, on the runs either side
};

// Why a step of the detector is not trusted, checked in this order.
enum class StepDoubt { None, TooShort, TooSmall, NotSignificant };

// The doubt about the step at starts[i] of `values` (oldest first, positive), among the change
// points `starts`: TooShort when the old level has fewer than minimum_runs runs, or the new
// level fewer than minimum_runs (latest_minimum_runs when it runs to the end of `values`);
// TooSmall when |ln ratio| of the levels' medians is not above detectable(values before it); NotSignificant when
// stats::mann_whitney_exact_p_value() of the last test_runs runs of the old level against the
// first test_runs of the new is not below alpha. `step` receives its figures.
StepDoubt doubt_about(std::span<const double> values, std::span<const std::size_t> starts,
                      std::size_t i, const DetectableLogChange& detectable,
                      const StepTrustSettings& settings, TrustedStep& step);

// The trusted steps of `values` (oldest first, positive), oldest first. Of the change points,
// a doubted one is dropped, its two levels merged, and the rest judged again, until every one
// left passes doubt_about() with the levels it then has: first a TooShort one beside the
// shortest level, else the one with the smallest move.
// Example: ten runs of 100 then ten of 120, with detectable ≡ ln 1.05, give one step at 10,
// ratio 1.2, p = 2 / C(20, 10) ≈ 0.0000108.
std::vector<TrustedStep> trusted_steps(std::span<const double> values,
                                       const DetectableLogChange& detectable,
                                       const StepTrustSettings& settings = {},
                                       const ChangePointSettings& detector = {});

}  // namespace benchwatch::stats
