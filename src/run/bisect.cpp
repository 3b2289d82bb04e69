#include "run/bisect.hpp"

#include <cassert>
#include <cmath>

namespace benchwatch::run {

namespace {

// confirm() of one target between commits `base` and `head`.
model::ConfirmedBenchmark measure_pair(const std::string& base, const std::string& head,
                                       const ConfirmTarget& target,
                                       const std::vector<model::Category>& categories,
                                       const MeasureCommit& measure, const Clock& clock,
                                       const ConfirmSettings& settings) {
    const auto confirmation = confirm(
        std::vector<ConfirmTarget>{target}, categories,
        [&](Build build) { return measure(build == Build::Base ? base : head); }, clock, settings);
    assert(confirmation.benchmarks.size() == 1);
    return confirmation.benchmarks.front();
}

}  // namespace

const char* to_string(Side side) {
    switch (side) {
        case Side::Before:
            return "before";
        case Side::After:
            return "after";
        case Side::Unknown:
            break;
    }
    return "unknown";
}

BisectOutcome bisect(std::span<const std::string> commits, const ConfirmTarget& target,
                     const std::vector<model::Category>& categories, const MeasureCommit& measure,
                     const Clock& clock, const ConfirmSettings& settings) {
    assert(commits.size() >= 2);
    BisectOutcome outcome;
    std::size_t before = 0;
    std::size_t after = commits.size() - 1;
    outcome.first = commits[before + 1];
    outcome.last = commits[after];

    ConfirmTarget unflagged = target;
    unflagged.flagged = model::Verdict::Unchanged;
    unflagged.flagged_change.reset();
    outcome.step = measure_pair(commits[before], commits[after], unflagged, categories, measure,
                                clock, settings);
    if (outcome.step.verdict != model::ConfirmationVerdict::Confirmed) return outcome;

    // Each probe is judged against half the step, in its direction: from the commit before the
    // step to the probe, or from the probe to the commit after the step.
    ConfirmTarget stepped = target;
    stepped.flagged = outcome.step.measured;
    stepped.flagged_change = outcome.step.change;

    while (after - before > 1) {
        const std::size_t middle = before + (after - before) / 2;
        BisectProbe probe{commits[middle], Side::Unknown, {}};
        // Against the commit before the step: beyond half the step, the probe is after it.
        probe.evidence = measure_pair(commits.front(), commits[middle], stepped, categories,
                                      measure, clock, settings);
        if (probe.evidence.verdict == model::ConfirmationVerdict::Confirmed) {
            probe.side = Side::After;
        } else if (probe.evidence.verdict == model::ConfirmationVerdict::Dismissed) {
            probe.side = Side::Before;
        } else {
            // From the probe to the commit after the step: the rest of the step still to come
            // means the probe is before it.
            probe.evidence = measure_pair(commits[middle], commits.back(), stepped, categories,
                                          measure, clock, settings);
            if (probe.evidence.verdict == model::ConfirmationVerdict::Confirmed)
                probe.side = Side::Before;
            else if (probe.evidence.verdict == model::ConfirmationVerdict::Dismissed)
                probe.side = Side::After;
        }
        outcome.probes.push_back(probe);
        if (probe.side == Side::Unknown) break;
        (probe.side == Side::After ? after : before) = middle;
        outcome.first = commits[before + 1];
        outcome.last = commits[after];
    }
    if (after - before == 1) outcome.culprit = commits[after];
    return outcome;
}

}  // namespace benchwatch::run
