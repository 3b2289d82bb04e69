#include "compare/seed_method.hpp"

#include <fmt/format.h>

#include <cassert>
#include <cmath>
#include <nlohmann/json.hpp>

#include "compare/json_field.hpp"
#include "model/words.hpp"
#include "stats/stats.hpp"

namespace benchwatch::compare {

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

class SeedMethod final : public Method {
  public:
    explicit SeedMethod(const SeedSettings& settings) : settings_(settings) {
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
        return make_seed_method(settings);
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

    SeedSettings settings_;
};

}  // namespace

std::unique_ptr<Method> make_seed_method(const SeedSettings& settings) {
    return std::make_unique<SeedMethod>(settings);
}

namespace {

std::string seed_explanation(const model::Comparison& comparison,
                             std::span<const std::string> minimums) {
    return fmt::format(
        "{} A change is unusual when it exceeds both "
        "{} the benchmark's typical change between consecutive runs on the default branch and a "
        "minimum per category ({}). A benchmark that starts or stops allocating is listed however "
        "few the allocations. A single run can still be a fluke, so {}.",
        values_sentence(comparison),
        model::factor_words(comparison.method.settings<SeedSettings>().factor),
        fmt::join(minimums, ", "),
        comparison.confirmation ? "each flagged change was measured again below"
                                : "rerun before drawing conclusions");
}

void write_seed_json(const model::Comparison& comparison, nlohmann::ordered_json& document) {
    const auto& settings = comparison.method.settings<SeedSettings>();
    document["settings"] = {{"factor", settings.factor}, {"pairs", settings.pairs}};
}

void read_seed_json(const JsonField& document, model::Comparison& comparison) {
    auto& settings = comparison.method.settings<SeedSettings>();
    settings.factor = document["settings"]["factor"].number();
    settings.pairs = document["settings"]["pairs"].integer();
}

}  // namespace

const MethodUnit& seed_unit() {
    static const MethodUnit unit = unit_for<SeedSettings, make_seed_method>(
        seed_explanation, write_seed_json, read_seed_json, false);
    return unit;
}

}  // namespace benchwatch::compare
