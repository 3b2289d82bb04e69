#include "compare/method.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>

#include "compare/compare.hpp"
#include "compare/level_method.hpp"
#include "compare/replay.hpp"
#include "compare/samples_method.hpp"
#include "compare/seed_method.hpp"
#include "stats/stats.hpp"

namespace benchwatch::compare {

model::Verdict to_verdict(stats::Judgement judgement) {
    switch (judgement) {
        case stats::Judgement::Worse:
            return model::Verdict::Slower;
        case stats::Judgement::Better:
            return model::Verdict::Faster;
        case stats::Judgement::Unchanged:
            break;
    }
    return model::Verdict::Unchanged;
}

SuiteJudgement Method::judge(std::span<const BenchmarkEvidence> suite) const {
    return decide(*prepare(suite), setting());
}

std::vector<std::unique_ptr<PreparedSuite>> Method::prepare_each(
    std::span<const std::span<const BenchmarkEvidence>> suites) const {
    std::vector<std::unique_ptr<PreparedSuite>> prepared;
    prepared.reserve(suites.size());
    for (const auto suite : suites) prepared.push_back(prepare(suite));
    return prepared;
}

std::optional<double> Method::calibration_budget() const {
    return std::nullopt;
}

bool Method::shares_budget_by_noise() const {
    return false;
}

bool Method::reads_samples() const {
    return false;
}

std::string values_sentence(const model::Comparison& comparison) {
    const bool all_counted = !comparison.benchmarks.empty() &&
                             std::all_of(comparison.benchmarks.begin(), comparison.benchmarks.end(),
                                         [](const auto& benchmark) {
                                             return model::is_counted_metric(benchmark.metric);
                                         });
    return all_counted ? "Every value is a count of one iteration of a benchmark's loop, or of a "
                         "whole command."
                       : "Times are the minimum time of every benchmark.";
}

bool too_noisy(double detectable_change, double minimum_change) {
    return detectable_change > model::too_noisy_multiple * minimum_change &&
           detectable_change > model::too_noisy_floor;
}

void mark_too_noisy(Assessment& assessment, double minimum_change) {
    if (assessment.verdict == model::Verdict::Unchanged &&
        too_noisy(assessment.detectable_change, minimum_change))
        assessment.verdict = model::Verdict::TooNoisy;
}

FlagCount Method::count_flags(const PreparedSuite& prepared,
                              const ReplayedPullRequest& request) const {
    return compare::count_flags(request, decide(prepared, setting()));
}

std::vector<NoiseScore> Method::noise_scores(const PreparedSuite&, std::span<const double>) const {
    return {};
}

std::unique_ptr<Method> Method::calibrated_by(const model::Calibration& calibration) const {
    return with_setting(calibration.sensitivity);
}

std::span<const MethodUnit* const> method_units() {
    // Registering a method: its unit in this list, in the order the unknown-method message names
    // them.
    static const MethodUnit* const units[] = {&seed_unit(), &level_unit(), &samples_unit()};
    return units;
}

const MethodUnit& method_unit(std::string_view name) {
    for (const auto* unit : method_units())
        if (unit->name == name) return *unit;
    throw CompareError(
        fmt::format("unknown method '{}'; available: {}", name, fmt::join(method_names(), ", ")));
}

model::MethodChoice default_choice(std::string_view name) {
    return method_unit(name).default_choice();
}

std::unique_ptr<Method> make_method(const model::MethodChoice& choice) {
    return method_unit(choice.name()).make(choice);
}

std::vector<std::string> method_names() {
    std::vector<std::string> names;
    for (const auto* unit : method_units()) names.emplace_back(unit->name);
    return names;
}

std::string default_method_name() {
    return "level";
}

}  // namespace benchwatch::compare
