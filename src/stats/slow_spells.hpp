#pragma once

#include <cstddef>
#include <vector>

namespace benchwatch::stats {

// The runs of a suite's history around each run that its values are compared with.
inline constexpr std::size_t kSpellNeighbours = 10;
// How many times the suite's typical deviation a run's must exceed to count as a move of the
// whole suite. Leaving out a run that did not move costs a level one run of its history; keeping
// one that did can make every verdict of a pull request wrong, so the bar is low.
inline constexpr double kSpellNoises = 3;
// The share of a run's benchmarks that must have moved the suite's way, by at least half the
// bound, for the move to be the whole suite's rather than a few outliers'.
inline constexpr double kSpellAgreement = 0.5;
// The fewest benchmarks with a value in a run for it to be judged at all.
inline constexpr std::size_t kSpellSuiteMinimum = 3;

// What find_slow_spells() found in a suite's history.
struct SlowSpells {
    // One per run, oldest first: whether the whole suite moved together in that run, away from
    // the runs around it (a slow spell of the machine, or the first runs of a lasting change).
    std::vector<bool> moved;
    // One per run: the median over the suite of each benchmark's log deviation from its values
    // in the runs around it; 0 for a run too few benchmarks have a value in.
    std::vector<double> suite_deviation;
    // Whether the newest run moved, so that whether the stretch it ends comes back is not known.
    bool unsettled = false;
};

// The runs of a suite's history in which every benchmark moved together and away from the runs
// around it. `logs[run][benchmark]` are log values, oldest run first, NaN where a benchmark has
// none. Each value is compared with the median of the same benchmark's values in the
// kSpellNeighbours nearest other runs (the nearer side first on a tie, runs already found moved
// left out, at least 3 of them); a run moved when the median of those deviations over its
// benchmarks (at least kSpellSuiteMinimum) exceeds both kSpellNoises times the suite's typical
// one (kMadToSigma × the median |deviation| over the runs not found moved) and `smallest_move`,
// and at least
// kSpellAgreement of its benchmarks deviate that way by half that bound or more. Found three
// times over, each time without the runs found before, so that a spell of several runs does not
// hide itself in its neighbours' medians. Example: 12 runs of 3 benchmarks at 0 ± 0.01 whose
// runs 5 to 8 are all at +0.4: moved is true for exactly runs 5 to 8, unsettled false.
SlowSpells find_slow_spells(const std::vector<std::vector<double>>& logs, double smallest_move);

}  // namespace benchwatch::stats
