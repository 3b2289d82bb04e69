#include "compare/method.hpp"

#include <fmt/format.h>

#include <cassert>
#include <cmath>

#include "compare/compare.hpp"
#include "compare/level_method.hpp"
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

namespace {

// DESIGN.md §4.4: head against the baseline run, flagged beyond factor × the median |ln ratio|
// of the last `pairs` history pairs, and never below the category's minimum change.
class SeedMethod final : public Method {
  public:
    explicit SeedMethod(const model::SeedRuleSettings& settings) : settings_(settings) {
        assert(settings_.pairs >= 0 && settings_.factor >= 0);
    }

    std::string name() const override { return "seed"; }

    std::vector<Assessment> judge(std::span<const BenchmarkEvidence> suite) const override {
        std::vector<Assessment> assessments;
        assessments.reserve(suite.size());
        for (const auto& evidence : suite) assessments.push_back(judge_one(evidence));
        return assessments;
    }

    double setting() const override { return settings_.factor; }

    std::unique_ptr<Method> with_setting(double setting) const override {
        auto settings = settings_;
        settings.factor = setting;
        return std::make_unique<SeedMethod>(settings);
    }

    std::pair<double, double> setting_range() const override { return {1.0, 100.0}; }

    std::size_t history_wanted() const override {
        return static_cast<std::size_t>(settings_.pairs) + 1;
    }

  private:
    Assessment judge_one(const BenchmarkEvidence& evidence) const {
        Assessment assessment;
        assessment.typical_change = stats::typical_change(evidence.history, settings_.pairs);
        assessment.history_pairs = stats::pairs_used(evidence.history.size(), settings_.pairs);
        assessment.threshold = stats::seed_threshold(assessment.typical_change, settings_.factor,
                                                     evidence.minimum_change);
        assessment.reference = evidence.base;
        assessment.detectable_change = std::exp(assessment.threshold) - 1.0;
        if (evidence.base > 0 && evidence.head > 0)
            assessment.verdict = to_verdict(stats::judge(
                evidence.base, evidence.head, assessment.threshold, evidence.smaller_is_better));
        return assessment;
    }

    model::SeedRuleSettings settings_;
};

}  // namespace

std::unique_ptr<Method> make_method(std::string_view name, const model::SeedRuleSettings& settings,
                                    const model::LevelRuleSettings& level_settings) {
    if (name == "seed") return std::make_unique<SeedMethod>(settings);
    if (name == "level") return make_level_method(level_settings);
    throw CompareError(
        fmt::format("unknown method '{}'; available: {}", name, fmt::join(method_names(), ", ")));
}

std::vector<std::string> method_names() {
    return {"seed", "level"};
}

std::string default_method_name() {
    return "level";
}

}  // namespace benchwatch::compare
