#include "compare/samples_method.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compare/json_field.hpp"
#include "model/printable.hpp"
#include "model/words.hpp"
#include "stats/sample_test.hpp"
#include "stats/stats.hpp"

namespace benchwatch::compare {

namespace {

// Default-branch pairs a benchmark's own run-to-run spread is learned from: the same window the
// seed rule reads.
constexpr int history_pairs = 30;

// Degrees of freedom of a variance learned from the median of n absolute moves: such a median
// is about 37% as efficient as the sample variance of the same n.
double median_based_degrees_of_freedom(int pairs) {
    return std::max(1.0, 0.37 * static_cast<double>(pairs));
}

// `summary` with its minimum: the smallest kept sample, else `best`, the result's value, which is
// the minimum of a smaller-is-better metric's samples.
stats::SampleSpread spread_of(const model::SampleSummary& summary, double best) {
    return {summary.count,  summary.median, summary.mean,
            summary.stddev, summary.values, summary.values.empty() ? best : summary.values.front()};
}

// The value a move of `statistic` is taken between: the summary's median or mean, else `best`.
double statistic_of(const model::SampleSummary& summary, double best,
                    stats::SampleStatistic statistic) {
    switch (statistic) {
        case stats::SampleStatistic::Minimum:
            return summary.values.empty() ? best : summary.values.front();
        case stats::SampleStatistic::Mean:
            return summary.mean;
        case stats::SampleStatistic::Median:
            break;
    }
    return summary.median;
}

// The setting-free part of one suite: each benchmark's move and the suite's centre and spread.
struct SamplesPrepared final : PreparedSuite {
    struct Benchmark {
        std::optional<stats::SampleMove> move;  // nullopt: no samples on one side
        double base_median = 0;
        double head_median = 0;
        bool smaller_is_better = true;
        double minimum_change = 0;
        // The variance of the log move between two consecutive default-branch runs that this
        // benchmark's history shows, and its degrees of freedom; 0 without enough history.
        double history_variance = 0;
        double history_df = 0;
    };
    std::vector<Benchmark> benchmarks;
    std::size_t judged = 0;    // benchmarks with a move
    double suite_move = 0;     // log move of the suite (stats::suite_spread)
    double run_to_run = 0;     // τ, log scale
    double run_to_run_df = 1;  // its degrees of freedom
    double tail_df = 2;        // of the t whose tails the suite's moves show (infinity: normal)
};

class SamplesMethod final : public Method {
  public:
    explicit SamplesMethod(const SamplesSettings& settings) : settings_(settings) {
        assert(settings_.false_alarms_per_pr > 0);
    }

    std::string name() const override { return "samples"; }

    std::unique_ptr<PreparedSuite> prepare(
        std::span<const BenchmarkEvidence> suite) const override {
        auto prepared = std::make_unique<SamplesPrepared>();
        std::vector<double> moves;
        std::vector<double> within;
        for (const auto& evidence : suite) {
            SamplesPrepared::Benchmark benchmark;
            benchmark.smaller_is_better = evidence.smaller_is_better;
            benchmark.minimum_change = evidence.minimum_change;
            const int pairs = stats::pairs_used(evidence.history.size(), history_pairs);
            if (pairs >= kSamplesHistoryMinimumPairs) {
                const double deviation =
                    stats::kMadToSigma * stats::typical_change(evidence.history, history_pairs);
                benchmark.history_variance = deviation * deviation;
                benchmark.history_df = median_based_degrees_of_freedom(pairs);
            }
            if (evidence.base_samples && evidence.head_samples) {
                const auto statistic = evidence.smaller_is_better ? settings_.statistic
                                                                  : stats::SampleStatistic::Median;
                benchmark.move =
                    stats::sample_move(spread_of(*evidence.base_samples, evidence.base),
                                       spread_of(*evidence.head_samples, evidence.head), statistic);
                benchmark.base_median =
                    statistic_of(*evidence.base_samples, evidence.base, statistic);
                benchmark.head_median =
                    statistic_of(*evidence.head_samples, evidence.head, statistic);
            }
            if (benchmark.move) {
                moves.push_back(benchmark.move->log_move);
                within.push_back(benchmark.move->within_variance);
            }
            prepared->benchmarks.push_back(benchmark);
        }
        prepared->judged = moves.size();
        if (spread_assumed(*prepared)) return prepared;
        // Learned from the benchmarks whose moves agree where fewer than two thirds of the
        // suite do, so that as many changed benchmarks as unchanged ones do not widen it.
        const auto suite_spread = stats::suite_spread(moves, within);
        prepared->suite_move = suite_spread.centre;
        for (double& move : moves) move -= prepared->suite_move;
        prepared->run_to_run = suite_spread.spread;
        prepared->run_to_run_df = stats::run_to_run_degrees_of_freedom(suite_spread.learned_from);
        // The tails are those of the benchmarks that did not change: the moves beyond what a
        // normal allows once in the suite are left out, since most of them are real changes,
        // and would make any suite where some benchmarks changed look heavy-tailed.
        const double tau_squared = prepared->run_to_run * prepared->run_to_run;
        const double changed_beyond =
            stats::student_t_critical(1.0 / static_cast<double>(moves.size()), 1e6);
        std::vector<double> scaled;
        scaled.reserve(moves.size());
        for (std::size_t i = 0; i < moves.size(); ++i) {
            const double variance = within[i] + tau_squared;
            if (variance <= 0) continue;
            const double move = moves[i] / std::sqrt(variance);
            if (std::abs(move) <= changed_beyond) scaled.push_back(move);
        }
        prepared->tail_df = stats::move_tail_degrees_of_freedom(scaled);
        return prepared;
    }

    SuiteJudgement decide(const PreparedSuite& prepared, double setting) const override {
        const auto& suite = dynamic_cast<const SamplesPrepared&>(prepared);
        const bool assumed = spread_assumed(suite);
        const double shared_by = static_cast<double>(
            std::max(suite.judged, std::max<std::size_t>(settings_.budget_benchmarks, 1)));
        const double per_benchmark = std::min(1.0, 1.0 / setting / shared_by);
        const double tau_squared = suite.run_to_run * suite.run_to_run;
        SuiteJudgement judgement;
        judgement.suite_move = std::expm1(suite.suite_move);
        judgement.run_to_run = suite.run_to_run;
        // With no benchmark judged, no spread was used, assumed or learned.
        judgement.run_to_run_assumed = assumed && suite.judged > 0;
        auto& assessments = judgement.benchmarks;
        assessments.reserve(suite.benchmarks.size());
        for (const auto& benchmark : suite.benchmarks) {
            Assessment assessment;
            assessment.verdict = model::Verdict::Inconclusive;
            if (!benchmark.move) {
                assessments.push_back(assessment);
                continue;
            }
            const auto& move = *benchmark.move;
            // The move is at least as noisy as the samples and the suite's spread explain, and
            // at least as noisy as this benchmark's own moves between default-branch runs: a
            // benchmark that jumps between processes more than the rest of the suite is judged
            // by its history where it has one. A suite too small to show the spread between
            // runs gets the spread its samples explain, widened by the factor measured between
            // runs on a quiet machine.
            const double factor = settings_.assumed_spread_factor;
            const double explained = assumed ? factor * factor * move.within_variance
                                             : move.within_variance + tau_squared;
            const bool by_history = benchmark.history_variance > explained;
            const double variance = by_history ? benchmark.history_variance : explained;
            // Neither the samples nor the suite's spread can foresee moves with heavier tails
            // than the suite's moves show.
            const double explained_df = assumed ? move.within_df
                                                : stats::satterthwaite_degrees_of_freedom(
                                                      move.within_variance, move.within_df,
                                                      tau_squared, suite.run_to_run_df);
            const double df =
                std::min(suite.tail_df, by_history ? benchmark.history_df : explained_df);
            const double noise = std::sqrt(variance);
            assessment.typical_change = noise;
            assessment.threshold = std::max(stats::student_t_critical(per_benchmark, df) * noise,
                                            std::log1p(benchmark.minimum_change));
            assessment.detectable_change = std::exp(assessment.threshold) - 1.0;
            assessment.reference = benchmark.base_median;
            assessment.head_value = benchmark.head_median;
            assessment.verdict = to_verdict(stats::judge_log_ratio(move.log_move - suite.suite_move,
                                                                   assessment.threshold,
                                                                   benchmark.smaller_is_better));
            mark_too_noisy(assessment, benchmark.minimum_change);
            assessments.push_back(assessment);
        }
        return judgement;
    }

    double setting() const override { return 1.0 / settings_.false_alarms_per_pr; }

    std::unique_ptr<Method> with_setting(double setting) const override {
        auto settings = settings_;
        settings.false_alarms_per_pr = 1.0 / setting;
        return std::make_unique<SamplesMethod>(settings);
    }

    std::pair<double, double> setting_range() const override { return {0.01, 1000.0}; }

    std::size_t history_wanted() const override { return history_pairs + 1; }

    bool reads_samples() const override { return true; }

  private:
    // Whether `suite` judged too few benchmarks to learn the suite's move and the spread between
    // runs from, so that the spread is assumed.
    bool spread_assumed(const SamplesPrepared& suite) const {
        return suite.judged < settings_.suite_minimum;
    }

    SamplesSettings settings_;
};

}  // namespace

std::unique_ptr<Method> make_samples_method(const SamplesSettings& settings) {
    return std::make_unique<SamplesMethod>(settings);
}

std::string_view statistic_name(stats::SampleStatistic statistic) {
    switch (statistic) {
        case stats::SampleStatistic::Minimum:
            return "min";
        case stats::SampleStatistic::Mean:
            return "mean";
        case stats::SampleStatistic::Median:
            break;
    }
    return "median";
}

std::optional<stats::SampleStatistic> statistic_named(std::string_view name) {
    for (const auto statistic : {stats::SampleStatistic::Minimum, stats::SampleStatistic::Median,
                                 stats::SampleStatistic::Mean})
        if (statistic_name(statistic) == name) return statistic;
    return std::nullopt;
}

stats::SampleStatistic statistic_for_harness(std::string_view format) {
    // pytest-benchmark's documentation and BenchmarkTools.jl's manual both name the minimum as
    // the estimate to compare, the least moved by the machine's interruptions.
    if (format == "pytest-benchmark" || format == "benchmarktools")
        return stats::SampleStatistic::Minimum;
    return stats::SampleStatistic::Median;
}

namespace {

// "minimum", "median" or "mean": a statistic as the report's sentences name it.
std::string_view statistic_word(stats::SampleStatistic statistic) {
    switch (statistic) {
        case stats::SampleStatistic::Minimum:
            return "minimum";
        case stats::SampleStatistic::Mean:
            return "mean";
        case stats::SampleStatistic::Median:
            break;
    }
    return "median";
}

// The report's first sentence: the statistic times move between, and for two files of a harness
// whether it is that harness's default and how to choose another.
std::string statistic_sentence(const SamplesSettings& settings) {
    const auto statistic = statistic_word(settings.statistic);
    std::string sentence =
        fmt::format("Times are the {} of each benchmark's samples in each run", statistic);
    if (settings.harness.empty()) return sentence + ".";
    const auto harness = model::printable_line(settings.harness);
    const auto recommended = statistic_for_harness(settings.harness);
    if (settings.statistic != recommended)
        return sentence + fmt::format(" (chosen with --statistic; {} files default to the {}).",
                                      harness, statistic_word(recommended));
    if (recommended == stats::SampleStatistic::Minimum)
        return sentence +
               fmt::format(", as {} recommends (--statistic median or mean chooses another).",
                           harness);
    return sentence + fmt::format(
                          ", the default for {} files (--statistic min or mean chooses "
                          "another).",
                          harness);
}

// The samples method's paragraph (docs/JUDGEMENT.md, "Two runs judged by their samples").
std::string samples_explanation(const model::Comparison& comparison,
                                std::span<const std::string> minimums) {
    const auto& settings = comparison.method.settings<SamplesSettings>();
    const auto budget = settings.false_alarms_per_pr;
    const std::string noise =
        comparison.run_to_run_assumed
            ? fmt::format(
                  "the spread of its own samples taken {:g} times as wide, since two runs minutes "
                  "apart differ by more than their repetitions suggest and fewer than {} "
                  "benchmarks have samples to learn by how much from. Two runs of so few "
                  "benchmarks cannot tell a machine that ran slower from a change",
                  settings.assumed_spread_factor, settings.suite_minimum)
            : fmt::format(
                  "the spread of its own samples plus the spread between runs that the suite's "
                  "other benchmarks show and their samples do not ({:.1f}% here), since two runs "
                  "minutes apart differ by more than their repetitions suggest",
                  100 * std::expm1(comparison.run_to_run_spread));
    auto paragraph = fmt::format(
        "{} A change is unusual when it exceeds both a minimum per category ({}) and its noise at "
        "Student's t for {:g} false "
        "alarm{} shared among the benchmarks judged, or among {} where fewer are: {}. Benchmarks "
        "without samples in both runs are inconclusive. A benchmark that starts or stops "
        "allocating is listed however few the allocations.",
        statistic_sentence(settings), fmt::join(minimums, ", "), budget, budget == 1 ? "" : "s",
        settings.budget_benchmarks, noise);
    if (comparison.history_runs > 0)
        paragraph += fmt::format(
            " A benchmark with at least {} pairs of consecutive default-branch runs is judged by "
            "the spread of its own moves between them where that is larger.",
            kSamplesHistoryMinimumPairs);
    if (model::moved_visibly(comparison.suite_move))
        paragraph += fmt::format(
            " The whole suite moved by {} between the runs; two runs cannot tell a machine "
            "that ran faster or slower from a change that moved everything, so each benchmark is "
            "judged against that move.",
            model::format_change(comparison.suite_move));
    return paragraph;
}

void write_samples_json(const model::Comparison& comparison, nlohmann::ordered_json& document) {
    const auto& settings = comparison.method.settings<SamplesSettings>();
    document["samples_settings"] = {
        {"false_alarms_per_pr", settings.false_alarms_per_pr},
        {"budget_benchmarks", settings.budget_benchmarks},
        {"suite_minimum", settings.suite_minimum},
        {"assumed_spread_factor", settings.assumed_spread_factor},
        {"statistic", statistic_name(settings.statistic)},
        {"harness", settings.harness},
    };
    document["run_to_run_spread"] = comparison.run_to_run_spread;
    document["run_to_run_assumed"] = comparison.run_to_run_assumed;
    document["suite_move"] = comparison.suite_move;
}

void read_samples_json(const JsonField& document, model::Comparison& comparison) {
    auto& settings = comparison.method.settings<SamplesSettings>();
    if (document.has("samples_settings")) {
        const auto samples = document["samples_settings"];
        settings.false_alarms_per_pr = samples["false_alarms_per_pr"].number();
        settings.suite_minimum = static_cast<std::size_t>(samples["suite_minimum"].integer());
        // A report written before the budget had a fewest count shared it among its judged
        // benchmarks alone.
        settings.budget_benchmarks =
            samples.has("budget_benchmarks")
                ? static_cast<std::size_t>(samples["budget_benchmarks"].integer())
                : 1;
        if (samples.has("assumed_spread_factor"))
            settings.assumed_spread_factor = samples["assumed_spread_factor"].number();
        // A report written before the statistic was a choice compared medians.
        if (samples.has("statistic")) {
            const auto field = samples["statistic"];
            const auto named = statistic_named(field.text());
            if (!named) field.fail("min, median or mean");
            settings.statistic = *named;
        }
        // A reader's name, shown in the report's paragraph as it is: nothing that markup reads.
        if (samples.has("harness")) {
            const auto field = samples["harness"];
            settings.harness = field.text();
            if (!std::all_of(settings.harness.begin(), settings.harness.end(), [](char c) {
                    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
                }))
                field.fail("a harness's reader name such as pytest-benchmark");
        }
    }
    if (document.has("run_to_run_spread"))
        comparison.run_to_run_spread = document["run_to_run_spread"].number();
    if (document.has("run_to_run_assumed"))
        comparison.run_to_run_assumed = document["run_to_run_assumed"].boolean();
    if (document.has("suite_move")) comparison.suite_move = document["suite_move"].number();
}

}  // namespace

const MethodUnit& samples_unit() {
    static const MethodUnit unit = unit_for<SamplesSettings, make_samples_method>(
        samples_explanation, write_samples_json, read_samples_json);
    return unit;
}

}  // namespace benchwatch::compare
