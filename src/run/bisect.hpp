#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/confirmation.hpp"
#include "run/confirm.hpp"

namespace benchwatch::run {

// Where a measured commit stands against a step of one benchmark.
enum class Side {
    Before,   // at the old level: the step came later
    After,    // at the new level: the step came at or before it
    Unknown,  // its rounds ran out before deciding
    Skipped,  // it does not build, or its suite fails: another commit is probed instead
};

// "before", "after", "unknown", "skipped".
const char* to_string(Side side);

// One commit bisect measured, and the evidence that placed it.
struct BisectProbe {
    std::string commit;
    Side side = Side::Unknown;
    // Its re-measurement against the commit before the step (or, when that did not decide,
    // against the one after it).
    model::ConfirmedBenchmark evidence;
    std::string skipped_because;  // for a skipped probe: the one-line error that skipped it
};

// What bisect found.
struct BisectOutcome {
    // The interleaved re-measurement of the two ends: the step itself. Bisect goes on only when
    // it is confirmed.
    model::ConfirmedBenchmark step;
    std::vector<BisectProbe> probes;  // in the order measured
    // The first commit at the new level when found; otherwise empty, and `first`..`last` is the
    // smallest range known to hold it.
    std::string culprit;
    std::string first;
    std::string last;
};

// Runs the benchmarks of commit `commit` once and returns their results.
using MeasureCommit = std::function<std::vector<model::Result>(const std::string& commit)>;

// Finds the first commit of `commits` (oldest first; the first is before the step, the last
// after it) at the new level of `target`. The ends are first re-measured interleaved, against
// the target's category minimum; when that confirms a step, each probe (the middle of the
// range left) is measured interleaved against the first commit, and judged against half the
// step, as `confirm` judges a flagged change; a probe that decides nothing is measured against
// the last commit instead. A probe neither decides ends the search with a range. A probe whose
// measuring throws a model::Error of kind MeasurementAborted or Input (it does not build, its
// suite fails) is skipped for the untried commit nearest the middle; when every commit left is
// skipped, the search ends with a range. Other errors, and those of the two ends, propagate.
// `settings` bound each interleaved measurement. Requires at least two commits.
BisectOutcome bisect(std::span<const std::string> commits, const ConfirmTarget& target,
                     const std::vector<model::Category>& categories, const MeasureCommit& measure,
                     const Clock& clock, const ConfirmSettings& settings);

}  // namespace benchwatch::run
