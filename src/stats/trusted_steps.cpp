#include "stats/trusted_steps.hpp"

#include <cassert>
#include <cmath>
#include <limits>
#include <map>

#include "stats/rank_test.hpp"
#include "stats/stats.hpp"

namespace benchwatch::stats {

StepDoubt doubt_about(std::span<const double> values, std::span<const std::size_t> starts,
                      std::size_t i, const DetectableLogChange& detectable,
                      const StepTrustSettings& settings, TrustedStep& step) {
    const std::size_t start = starts[i];
    const std::size_t before_begin = i == 0 ? 0 : starts[i - 1];
    const std::size_t after_end = i + 1 == starts.size() ? values.size() : starts[i + 1];
    const auto before = values.subspan(before_begin, start - before_begin);
    const auto after = values.subspan(start, after_end - start);
    step.step = {start, median(after) / median(before)};
    step.runs_before = before.size();
    step.runs_after = after.size();
    const std::size_t after_needed =
        after_end == values.size() ? settings.latest_minimum_runs : settings.minimum_runs;
    if (before.size() < settings.minimum_runs || after.size() < after_needed)
        return StepDoubt::TooShort;

    const double threshold = detectable(values.first(start));
    step.detectable_change = std::expm1(threshold);
    if (!(std::abs(std::log(step.step.ratio)) > threshold)) return StepDoubt::TooSmall;

    const std::size_t compared_before = std::min(settings.test_runs, before.size());
    const std::size_t compared_after = std::min(settings.test_runs, after.size());
    step.p_value =
        mann_whitney_exact_p_value(before.last(compared_before), after.first(compared_after));
    if (!(step.p_value < settings.alpha)) return StepDoubt::NotSignificant;
    return StepDoubt::None;
}

std::vector<TrustedStep> trusted_steps(std::span<const double> values,
                                       const DetectableLogChange& detectable,
                                       const StepTrustSettings& settings,
                                       const ChangePointSettings& detector) {
    assert(settings.minimum_runs >= 1 && settings.latest_minimum_runs >= 1 &&
           settings.test_runs >= 1);
    auto starts = change_points(values, detector);
    // The threshold depends only on the runs before a step, which merging does not change.
    std::map<std::size_t, double> thresholds;
    const DetectableLogChange remembered = [&](std::span<const double> before) {
        const auto [found, inserted] = thresholds.try_emplace(before.size(), 0.0);
        if (inserted) found->second = detectable(before);
        return found->second;
    };
    // A step's doubt depends only on its neighbouring steps, so after a step is dropped only the
    // two beside it are judged again.
    std::vector<TrustedStep> trusted(starts.size());
    std::vector<StepDoubt> doubts(starts.size());
    const auto judge = [&](std::size_t i) {
        trusted[i] = {};
        doubts[i] = doubt_about(values, starts, i, remembered, settings, trusted[i]);
    };
    for (std::size_t i = 0; i < starts.size(); ++i) judge(i);
    while (true) {
        // The doubted step to drop: one next to the shortest level that is too short, else the
        // smallest. A spell of slow runs is merged away before a real step beside it is judged.
        std::size_t weakest = starts.size();
        auto weakest_key = std::pair{std::numeric_limits<std::size_t>::max(),
                                     std::numeric_limits<double>::infinity()};
        for (std::size_t i = 0; i < starts.size(); ++i) {
            if (doubts[i] == StepDoubt::None) continue;
            const auto key = std::pair{doubts[i] == StepDoubt::TooShort
                                           ? std::min(trusted[i].runs_before, trusted[i].runs_after)
                                           : std::numeric_limits<std::size_t>::max(),
                                       std::abs(std::log(trusted[i].step.ratio))};
            if (key < weakest_key) {
                weakest = i;
                weakest_key = key;
            }
        }
        if (weakest == starts.size()) return trusted;
        const auto at = static_cast<std::ptrdiff_t>(weakest);
        starts.erase(starts.begin() + at);
        trusted.erase(trusted.begin() + at);
        doubts.erase(doubts.begin() + at);
        if (weakest > 0) judge(weakest - 1);
        if (weakest < starts.size()) judge(weakest);
    }
}

}  // namespace benchwatch::stats
