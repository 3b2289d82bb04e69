#include "run/confirm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>
#include <random>
#include <tuple>
#include <utility>

#include "stats/sequential.hpp"
#include "stats/stats.hpp"

namespace benchwatch::run {

namespace {

bool target_less(const ConfirmTarget& a, const ConfirmTarget& b) {
    if (a.name != b.name) return model::name_less(a.name, b.name);
    return a.metric < b.metric;
}

using ResultKey = std::pair<std::string, std::string>;  // benchmark, metric

std::map<ResultKey, const model::Result*> index_results(std::span<const model::Result> results) {
    std::map<ResultKey, const model::Result*> index;
    for (const auto& result : results)
        index.emplace(ResultKey{result.benchmark, result.metric}, &result);
    return index;
}

// Slower or Faster for a change to head/base = `ratio` in a metric of `direction`.
model::Verdict verdict_of(double ratio, model::Direction direction) {
    return model::worse(direction, ratio) ? model::Verdict::Slower : model::Verdict::Faster;
}

// The value of `target` in `results`; throws ConfirmError naming the command and round.
double value_of(const ConfirmTarget& target, const std::map<ResultKey, const model::Result*>& index,
                Build build, int round) {
    const auto found = index.find({target.name, target.metric});
    if (found == index.end())
        throw ConfirmError(fmt::format(
            "benchmark '{}' is missing from the {} command's results in round {}; make "
            "--{}-cmd run every benchmark to confirm (or leave it out of --only-unusual's report)",
            model::with_metric(target.name, target.metric), to_string(build), round,
            to_string(build)));
    return found->second->value;
}

}  // namespace

const char* to_string(Build build) {
    return build == Build::Base ? "base" : "head";
}

std::vector<ConfirmTarget> targets_from_report(const model::Comparison& report) {
    std::vector<ConfirmTarget> targets;
    for (const auto& benchmark : report.benchmarks) {
        if (!model::flags_change(benchmark.verdict)) continue;
        ConfirmTarget target;
        target.name = benchmark.name;
        target.metric = benchmark.metric;
        target.direction = benchmark.direction;
        target.flagged = benchmark.verdict;
        target.flagged_change = benchmark.change();
        target.unit = benchmark.unit;
        if (benchmark.category < report.categories.size())
            target.minimum_change = report.categories[benchmark.category].minimum_change;
        targets.push_back(std::move(target));
    }
    std::sort(targets.begin(), targets.end(), target_less);
    return targets;
}

std::vector<ConfirmTarget> targets_from_results(std::span<const model::Result> base,
                                                std::span<const model::Result> head,
                                                const std::vector<model::Category>& categories,
                                                const model::BenchmarkRules& rules) {
    const auto head_index = index_results(head);
    std::vector<ConfirmTarget> targets;
    for (const auto& result : base) {
        if (!head_index.contains({result.benchmark, result.metric})) continue;
        ConfirmTarget target;
        target.name = result.benchmark;
        target.metric = result.metric;
        target.direction = result.direction;
        target.minimum_change =
            model::minimum_change_of(result.benchmark, result.metric, categories, rules);
        target.unit = result.unit;
        targets.push_back(std::move(target));
    }
    std::sort(targets.begin(), targets.end(), target_less);
    return targets;
}

stats::Interval median_bound(std::span<const double> log_ratios, const ConfirmSettings& settings) {
    return stats::median_confidence_sequence(log_ratios, settings.alpha);
}

double alpha_for(const ConfirmSettings& settings, std::size_t benchmarks) {
    if (!settings.false_alarms_per_suite || benchmarks == 0) return settings.alpha;
    return std::min(kLargestAlpha,
                    *settings.false_alarms_per_suite / static_cast<double>(benchmarks));
}

int first_deciding_round(const ConfirmSettings& settings) {
    return stats::fewest_values_for_sequence(settings.alpha);
}

model::ConfirmedBenchmark judge_rounds(const ConfirmTarget& target,
                                       std::span<const double> log_ratios,
                                       const ConfirmSettings& settings) {
    model::ConfirmedBenchmark judged;
    judged.name = target.name;
    judged.metric = target.metric;
    judged.direction = target.direction;
    judged.flagged = target.flagged;
    judged.flagged_change = target.flagged_change;
    judged.unit = target.unit;
    judged.rounds = static_cast<int>(log_ratios.size());
    if (log_ratios.empty()) return judged;

    const double median = stats::median(log_ratios);
    judged.change = std::exp(median) - 1;
    const auto interval = median_bound(log_ratios, settings);
    if (interval.finite()) {
        judged.change_low = std::exp(interval.low) - 1;
        judged.change_high = std::exp(interval.high) - 1;
    }

    auto decide = [&](model::ConfirmationVerdict verdict) {
        judged.verdict = verdict;
        if (verdict == model::ConfirmationVerdict::Confirmed)
            judged.measured = verdict_of(std::exp(median), target.direction);
    };
    if (target.flagged_change) {
        const double half_flagged = std::log1p(*target.flagged_change) / 2;
        judged.boundary = std::exp(half_flagged) - 1;
        const auto side = stats::side_of(interval, half_flagged);
        const auto beyond = half_flagged > 0 ? stats::Side::Above : stats::Side::Below;
        const auto short_of = half_flagged > 0 ? stats::Side::Below : stats::Side::Above;
        if (side == beyond) decide(model::ConfirmationVerdict::Confirmed);
        if (side == short_of) decide(model::ConfirmationVerdict::Dismissed);
        return judged;
    }
    const double minimum = std::log1p(target.minimum_change);
    judged.boundary = target.minimum_change;
    const auto above_upper = stats::side_of(interval, minimum);
    const auto against_lower = stats::side_of(interval, -minimum);
    if (above_upper == stats::Side::Above || against_lower == stats::Side::Below)
        decide(model::ConfirmationVerdict::Confirmed);
    else if (above_upper == stats::Side::Below && against_lower == stats::Side::Above)
        decide(model::ConfirmationVerdict::Dismissed);
    return judged;
}

model::Confirmation confirm(std::optional<std::vector<ConfirmTarget>> targets,
                            const std::vector<model::Category>& categories, const Measure& measure,
                            const Clock& clock, ConfirmSettings settings) {
    assert(settings.max_rounds >= 1 && settings.alpha > 0 && settings.alpha < 1);
    if (targets) settings.alpha = alpha_for(settings, targets->size());
    model::Confirmation confirmation;
    confirmation.alpha = settings.alpha;
    confirmation.false_alarms_per_suite = settings.false_alarms_per_suite.value_or(0);
    confirmation.max_rounds = settings.max_rounds;
    confirmation.time_budget_seconds = settings.time_budget_seconds;
    confirmation.first_deciding_round = first_deciding_round(settings);
    confirmation.stop = model::ConfirmationStop::MaxRounds;

    if (targets && targets->empty()) {
        confirmation.stop = model::ConfirmationStop::AllDecided;
        return confirmation;
    }

    // A budget already spent (by building, say) runs no round at all.
    if (targets && settings.time_budget_seconds <= 0) {
        for (const auto& target : *targets)
            confirmation.benchmarks.push_back(judge_rounds(target, {}, settings));
        confirmation.stop = model::ConfirmationStop::TimeBudget;
        return confirmation;
    }

    std::vector<std::vector<double>> log_ratios;
    std::vector<std::vector<double>> base_values;
    std::vector<std::vector<double>> head_values;
    std::mt19937_64 order(settings.order_seed.value_or(0));
    Build pair_first = Build::Base;
    const double start = clock();
    for (int round = 1; round <= settings.max_rounds; ++round) {
        if (round > 1) {
            const double elapsed = clock() - start;
            const double mean_round = elapsed / (round - 1);
            if (elapsed + mean_round > settings.time_budget_seconds) {
                confirmation.stop = model::ConfirmationStop::TimeBudget;
                break;
            }
        }
        // The first round of each pair measures pair_first first, the second the other way
        // round: base-head-head-base-… unless the pair's order is drawn.
        if (round % 2 == 1 && settings.order_seed)
            pair_first = std::bernoulli_distribution(0.5)(order) ? Build::Base : Build::Head;
        const Build first =
            round % 2 == 1 ? pair_first : (pair_first == Build::Base ? Build::Head : Build::Base);
        const Build second = first == Build::Base ? Build::Head : Build::Base;
        auto first_results = measure(first);
        auto second_results = measure(second);
        const auto& base = first == Build::Base ? first_results : second_results;
        const auto& head = first == Build::Base ? second_results : first_results;
        if (!targets) {
            targets = targets_from_results(base, head, categories, settings.rules);
            if (targets->empty())
                throw ConfirmError(
                    "the base and head commands' results share no benchmark; make both commands "
                    "run the same benchmarks");
            settings.alpha = alpha_for(settings, targets->size());
            confirmation.alpha = settings.alpha;
            confirmation.first_deciding_round = first_deciding_round(settings);
        }
        if (round == 1) {
            log_ratios.resize(targets->size());
            base_values.resize(targets->size());
            head_values.resize(targets->size());
            for (const auto& target : *targets)
                confirmation.benchmarks.push_back(judge_rounds(target, {}, settings));
        }
        confirmation.rounds = round;

        const auto base_index = index_results(base);
        const auto head_index = index_results(head);
        bool all_decided = true;
        for (std::size_t i = 0; i < targets->size(); ++i) {
            const auto& target = (*targets)[i];
            const double base_value = value_of(target, base_index, Build::Base, round);
            const double head_value = value_of(target, head_index, Build::Head, round);
            auto& judged = confirmation.benchmarks[i];
            if (judged.verdict != model::ConfirmationVerdict::Undecided) continue;
            log_ratios[i].push_back(std::log(head_value / base_value));
            base_values[i].push_back(base_value);
            head_values[i].push_back(head_value);
            judged = judge_rounds(target, log_ratios[i], settings);
            judged.base_median = stats::median(base_values[i]);
            judged.head_median = stats::median(head_values[i]);
            if (judged.verdict == model::ConfirmationVerdict::Undecided) all_decided = false;
        }
        if (all_decided) {
            confirmation.stop = model::ConfirmationStop::AllDecided;
            break;
        }
    }
    return confirmation;
}

}  // namespace benchwatch::run
