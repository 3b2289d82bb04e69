#include "compare/method.hpp"

#include <fmt/format.h>

#include <cassert>
#include <cmath>

#include "compare/compare.hpp"
#include "compare/level_method.hpp"
#include "compare/samples_method.hpp"
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

std::optional<double> Method::calibration_budget() const {
    return std::nullopt;
}

bool Method::shares_budget_by_noise() const {
    return false;
}

bool Method::reads_samples() const {
    return false;
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

std::vector<double> Method::noise_scores(const PreparedSuite&) const {
    return {};
}

std::unique_ptr<Method> Method::calibrated_by(const model::Calibration& calibration) const {
    return with_setting(calibration.sensitivity);
}

namespace {

// The seed rule's setting-free part of one suite: each benchmark's typical change.
struct SeedPrepared final : PreparedSuite {
    struct Benchmark {
        double typical_change = 0;
        int history_pairs = 0;
        double base = 0;
        double head = 0;
        bool smaller_is_better = true;
        double minimum_change = 0;
    };
    std::vector<Benchmark> benchmarks;
};

// The JuliaGPU reports' rule: head against the baseline run, flagged beyond factor × the median
// |ln ratio| of the last `pairs` history pairs, and never below the category's minimum change.
class SeedMethod final : public Method {
  public:
    explicit SeedMethod(const model::SeedRuleSettings& settings) : settings_(settings) {
        assert(settings_.pairs >= 0 && settings_.factor >= 0);
    }

    std::string name() const override { return "seed"; }

    std::unique_ptr<PreparedSuite> prepare(
        std::span<const BenchmarkEvidence> suite) const override {
        auto prepared = std::make_unique<SeedPrepared>();
        prepared->benchmarks.reserve(suite.size());
        for (const auto& evidence : suite)
            prepared->benchmarks.push_back(
                {stats::typical_change(evidence.history, settings_.pairs),
                 stats::pairs_used(evidence.history.size(), settings_.pairs), evidence.base,
                 evidence.head, evidence.smaller_is_better, evidence.minimum_change});
        return prepared;
    }

    // The reports this rule reproduces have no TooNoisy verdict, so it gives none.
    SuiteJudgement decide(const PreparedSuite& prepared, double setting) const override {
        const auto& suite = dynamic_cast<const SeedPrepared&>(prepared);
        SuiteJudgement judgement;
        judgement.benchmarks.reserve(suite.benchmarks.size());
        for (const auto& benchmark : suite.benchmarks)
            judgement.benchmarks.push_back(judge_one(benchmark, setting));
        return judgement;
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
    static Assessment judge_one(const SeedPrepared::Benchmark& benchmark, double factor) {
        Assessment assessment;
        assessment.typical_change = benchmark.typical_change;
        assessment.history_pairs = benchmark.history_pairs;
        assessment.threshold =
            stats::seed_threshold(benchmark.typical_change, factor, benchmark.minimum_change);
        assessment.reference = benchmark.base;
        assessment.detectable_change = std::exp(assessment.threshold) - 1.0;
        if (benchmark.base > 0 && benchmark.head > 0)
            assessment.verdict = to_verdict(stats::judge(
                benchmark.base, benchmark.head, assessment.threshold, benchmark.smaller_is_better));
        return assessment;
    }

    model::SeedRuleSettings settings_;
};

}  // namespace

std::unique_ptr<Method> make_method(const model::MethodChoice& choice) {
    switch (choice.kind) {
        case model::MethodKind::Seed:
            return std::make_unique<SeedMethod>(choice.seed);
        case model::MethodKind::Samples:
            return make_samples_method(choice.samples);
        case model::MethodKind::Level:
            break;
    }
    return make_level_method(choice.level);
}

model::MethodChoice with_method_named(model::MethodChoice choice, std::string_view name) {
    const auto kind = model::method_kind_named(name);
    if (!kind)
        throw CompareError(fmt::format("unknown method '{}'; available: {}", name,
                                       fmt::join(method_names(), ", ")));
    choice.kind = *kind;
    return choice;
}

std::vector<std::string> method_names() {
    return {"seed", "level", "samples"};
}

std::string default_method_name() {
    return "level";
}

}  // namespace benchwatch::compare
