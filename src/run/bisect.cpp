#include "run/bisect.hpp"

#include <cassert>
#include <cmath>
#include <optional>
#include <set>

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

// The commit strictly between `before` and `after` nearest their middle that was not skipped,
// the earlier of two equally near; nullopt when every one was.
std::optional<std::size_t> untried_middle(std::size_t before, std::size_t after,
                                          const std::set<std::size_t>& skipped) {
    const std::size_t middle = before + (after - before) / 2;
    for (std::size_t distance = 0; distance < after - before; ++distance) {
        for (const std::size_t candidate : {middle - distance, middle + distance})
            if (candidate > before && candidate < after && !skipped.contains(candidate))
                return candidate;
    }
    return std::nullopt;
}

// Places `probe` against the step: measured against the first commit, where beyond half the
// step it is after it and short of it before; when that decides nothing, against the last
// commit, where the rest of the step still to come means the probe is before it.
void judge_probe(BisectProbe& probe, std::span<const std::string> commits,
                 const ConfirmTarget& stepped, const std::vector<model::Category>& categories,
                 const MeasureCommit& measure, const Clock& clock,
                 const ConfirmSettings& settings) {
    probe.evidence =
        measure_pair(commits.front(), probe.commit, stepped, categories, measure, clock, settings);
    if (probe.evidence.verdict == model::ConfirmationVerdict::Confirmed) {
        probe.side = Side::After;
        return;
    }
    if (probe.evidence.verdict == model::ConfirmationVerdict::Dismissed) {
        probe.side = Side::Before;
        return;
    }
    probe.evidence =
        measure_pair(probe.commit, commits.back(), stepped, categories, measure, clock, settings);
    if (probe.evidence.verdict == model::ConfirmationVerdict::Confirmed)
        probe.side = Side::Before;
    else if (probe.evidence.verdict == model::ConfirmationVerdict::Dismissed)
        probe.side = Side::After;
}

}  // namespace

const char* to_string(Side side) {
    switch (side) {
        case Side::Before:
            return "before";
        case Side::After:
            return "after";
        case Side::Skipped:
            return "skipped";
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

    std::set<std::size_t> skipped;
    while (after - before > 1) {
        const auto middle = untried_middle(before, after, skipped);
        if (!middle) break;
        BisectProbe probe{commits[*middle], Side::Unknown, {}, {}};
        try {
            judge_probe(probe, commits, stepped, categories, measure, clock, settings);
        } catch (const model::Error& error) {
            // A commit that does not build or measure is passed over, as `git bisect skip`
            // does; the repository or the machine failing stops the search.
            if (error.kind() != model::ErrorKind::MeasurementAborted &&
                error.kind() != model::ErrorKind::Input)
                throw;
            probe.side = Side::Skipped;
            probe.skipped_because = error.what();
            skipped.insert(*middle);
            outcome.probes.push_back(probe);
            continue;
        }
        outcome.probes.push_back(probe);
        if (probe.side == Side::Unknown) break;
        (probe.side == Side::After ? after : before) = *middle;
        outcome.first = commits[before + 1];
        outcome.last = commits[after];
    }
    if (after - before == 1) outcome.culprit = commits[after];
    return outcome;
}

}  // namespace benchwatch::run
