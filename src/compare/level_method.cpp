#include "compare/level_method.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

#include "stats/budget_share.hpp"
#include "stats/stats.hpp"
#include "stats/transient.hpp"

namespace benchwatch::compare {

namespace {

// The suite moved as a whole when at least this share of its level-judged benchmarks, and at
// least kSuiteMinimum of them, lie beyond their thresholds in one direction.
constexpr double kSuiteShare = 0.5;
constexpr std::size_t kSuiteMinimum = 10;
// Then a benchmark is flagged only beyond this many times the suite's spread around its median
// move (stats::kMadToSigma × median absolute deviation), as well as beyond its own threshold.
constexpr double kSuiteSpreadFactor = 3.0;

// One benchmark before the suite is looked at: its move from its level and its noise, both in
// log space. A benchmark judged on a short history is decided here already.
struct Judged {
    bool level_based = false;            // false: inconclusive (too short a history, or bad values)
    double move = 0;                     // ln(head / reference)
    double noise = 0;                    // the noise quantile of its deviations
    stats::GridPosition noise_position;  // of `noise` among the thresholds by noise
    double floor = 0;                    // ln(1 + its category minimum)
    double minimum_change = 0;           // its category minimum, e.g. 0.03 for 3%
    bool smaller_is_better = true;
    Assessment assessment;  // complete unless level_based
};

// The suite's moves from their levels, which do not depend on the sensitivity.
struct SuiteMoves {
    std::size_t count = 0;  // level-judged benchmarks
    double shift = 0;       // their median move
    double spread = 0;      // 1.4826 × the median absolute deviation of their moves
};

struct LevelPrepared final : PreparedSuite {
    std::vector<Judged> judged;
    SuiteMoves moves;
};

model::Verdict verdict_of(double move, double threshold, bool smaller_is_better) {
    return to_verdict(stats::judge_log_ratio(move, threshold, smaller_is_better));
}

class LevelMethod final : public Method {
  public:
    explicit LevelMethod(const LevelSettings& settings) : settings_(settings) {
        assert(settings_.level_runs > 0 && settings_.sensitivity >= 0);
    }

    std::string name() const override { return "level"; }

    std::unique_ptr<PreparedSuite> prepare(
        std::span<const BenchmarkEvidence> suite) const override {
        auto prepared = std::make_unique<LevelPrepared>();
        prepared->judged.reserve(suite.size());
        for (const auto& evidence : suite) prepared->judged.push_back(prepare_alone(evidence));
        prepared->moves = suite_moves(prepared->judged);
        return prepared;
    }

    SuiteJudgement decide(const PreparedSuite& prepared, double setting) const override {
        const auto& level_prepared = dynamic_cast<const LevelPrepared&>(prepared);
        auto judged = level_prepared.judged;
        for (auto& one : judged) {
            if (!one.level_based) continue;
            auto& assessment = one.assessment;
            const double threshold =
                settings_.thresholds_by_noise.empty()
                    ? setting * one.noise
                    : stats::threshold_at(settings_.thresholds_by_noise, one.noise_position);
            assessment.threshold = std::max(threshold, one.floor);
            assessment.detectable_change = std::expm1(assessment.threshold);
            assessment.verdict = verdict_of(one.move, assessment.threshold, one.smaller_is_better);
        }
        SuiteJudgement judgement;
        if (moved_as_a_whole(level_prepared.moves, judged)) {
            judge_against_suite_move(level_prepared.moves, judged);
            judgement.suite_move = std::expm1(level_prepared.moves.shift);
        }
        judgement.benchmarks.reserve(judged.size());
        for (auto& one : judged) {
            mark_too_noisy(one.assessment, one.minimum_change);
            judgement.benchmarks.push_back(one.assessment);
        }
        return judgement;
    }

    std::vector<double> noise_scores(const PreparedSuite& prepared) const override {
        std::vector<double> scores;
        for (const auto& one : dynamic_cast<const LevelPrepared&>(prepared).judged) {
            if (!one.level_based || !(one.noise > 0)) continue;
            scores.push_back((one.smaller_is_better ? one.move : -one.move) / one.noise);
        }
        return scores;
    }

    std::unique_ptr<Method> calibrated_by(const model::Calibration& calibration) const override {
        auto settings = settings_;
        settings.sensitivity = calibration.sensitivity;
        settings.thresholds_by_noise = calibration.thresholds_by_noise;
        return std::make_unique<LevelMethod>(settings);
    }

    double setting() const override { return settings_.sensitivity; }

    std::optional<double> calibration_budget() const override {
        return settings_.false_alarms_per_pr;
    }

    bool shares_budget_by_noise() const override {
        return settings_.allocation == model::BudgetAllocation::ByNoise;
    }

    std::unique_ptr<Method> with_setting(double setting) const override {
        auto settings = settings_;
        settings.sensitivity = setting;
        return std::make_unique<LevelMethod>(settings);
    }

    std::pair<double, double> setting_range() const override { return {0.5, 20.0}; }

    std::size_t history_wanted() const override {
        return settings_.noise_runs + 2 * settings_.level_runs;
    }

  private:
    Judged prepare_alone(const BenchmarkEvidence& evidence) const {
        Judged judged;
        const auto recent =
            evidence.history.last(std::min(history_wanted(), evidence.history.size()));
        const bool positive =
            evidence.base > 0 && evidence.head > 0 &&
            std::all_of(recent.begin(), recent.end(), [](double value) { return value > 0; });
        std::vector<double> logs;
        if (positive) {
            logs.reserve(recent.size());
            for (double value : recent) logs.push_back(std::log(value));
        }
        const double floor = std::log1p(evidence.minimum_change);
        auto deviations = positive && logs.size() > settings_.level_runs
                              ? stats::transient_deviations(logs, settings_.level_runs, floor)
                              : std::vector<double>{};
        if (deviations.size() > settings_.noise_runs)
            deviations.erase(deviations.begin(),
                             deviations.end() - static_cast<std::ptrdiff_t>(settings_.noise_runs));
        if (deviations.size() < kLevelMinimumDeviations)
            return judge_short_history(evidence, logs, floor);

        for (auto& deviation : deviations) deviation = std::abs(deviation);
        const double level = level_of(logs);
        judged.level_based = true;
        judged.move = std::log(evidence.head) - level;
        judged.noise = stats::quantile(deviations, settings_.noise_quantile);
        judged.noise_position = stats::grid_position(judged.noise);
        judged.floor = floor;
        judged.minimum_change = evidence.minimum_change;
        judged.smaller_is_better = evidence.smaller_is_better;
        auto& assessment = judged.assessment;
        assessment.typical_change = judged.noise;
        assessment.history_pairs = static_cast<int>(deviations.size());
        assessment.reference = std::exp(level);
        return judged;
    }

    // The median of the last level_runs log values, or of all of them when there are fewer.
    double level_of(std::span<const double> logs) const {
        return stats::median(logs.last(std::min(settings_.level_runs, logs.size())));
    }

    // Too few deviations to learn the noise from: the head against the median of the runs there
    // are, flagged only beyond kLevelShortHistoryFactor × the largest consecutive change seen, and
    // Inconclusive otherwise. It takes no part in judging a move of the suite.
    Judged judge_short_history(const BenchmarkEvidence& evidence, std::span<const double> logs,
                               double floor) const {
        Judged judged;
        judged.minimum_change = evidence.minimum_change;
        auto& assessment = judged.assessment;
        assessment.reference = evidence.base;
        assessment.verdict = model::Verdict::Inconclusive;
        if (logs.size() < 2) return judged;
        double largest = 0;
        for (std::size_t i = 1; i < logs.size(); ++i)
            largest = std::max(largest, std::abs(logs[i] - logs[i - 1]));
        const double level = level_of(logs);
        const double move = std::log(evidence.head) - level;
        assessment.reference = std::exp(level);
        assessment.typical_change = largest;
        assessment.history_pairs = static_cast<int>(logs.size() - 1);
        assessment.threshold = std::max(kLevelShortHistoryFactor * largest, floor);
        assessment.detectable_change = std::expm1(assessment.threshold);
        const auto verdict = verdict_of(move, assessment.threshold, evidence.smaller_is_better);
        if (verdict != model::Verdict::Unchanged) assessment.verdict = verdict;
        return judged;
    }

    // When at least kSuiteShare of the level-judged benchmarks moved beyond their thresholds
    // in one direction, the suite moved as a whole (a machine, driver or toolchain change): a
    // benchmark is then flagged only when it moved beyond its threshold both from its level and
    // from the suite's median move, the same way, with a threshold of at least the suite's
    // spread × kSuiteSpreadFactor.
    static SuiteMoves suite_moves(const std::vector<Judged>& judged) {
        std::vector<double> moves;
        for (const auto& one : judged)
            if (one.level_based) moves.push_back(one.move);
        SuiteMoves result;
        result.count = moves.size();
        if (moves.empty()) return result;
        result.shift = stats::median(moves);
        for (double& move : moves) move = std::abs(move - result.shift);
        result.spread = stats::kMadToSigma * stats::median(moves);
        return result;
    }

    // Whether the suite moved as a whole, each benchmark judged by its own threshold.
    static bool moved_as_a_whole(const SuiteMoves& suite, const std::vector<Judged>& judged) {
        int up = 0;
        int down = 0;
        for (const auto& one : judged) {
            if (!one.level_based) continue;
            if (one.move > one.assessment.threshold) ++up;
            if (one.move < -one.assessment.threshold) ++down;
        }
        return suite.count >= kSuiteMinimum &&
               static_cast<double>(std::max(up, down)) >=
                   kSuiteShare * static_cast<double>(suite.count);
    }

    static void judge_against_suite_move(const SuiteMoves& suite, std::vector<Judged>& judged) {
        const double shift = suite.shift;
        const double spread = suite.spread;
        for (auto& one : judged) {
            if (!one.level_based) continue;
            auto& assessment = one.assessment;
            assessment.threshold = std::max(assessment.threshold, kSuiteSpreadFactor * spread);
            assessment.detectable_change = std::expm1(assessment.threshold);
            const auto beyond_suite =
                verdict_of(one.move - shift, assessment.threshold, one.smaller_is_better);
            const auto beyond_level =
                verdict_of(one.move, assessment.threshold, one.smaller_is_better);
            assessment.verdict =
                beyond_suite == beyond_level ? beyond_suite : model::Verdict::Unchanged;
        }
    }

    LevelSettings settings_;
};

}  // namespace

std::unique_ptr<Method> make_level_method(const LevelSettings& settings) {
    return std::make_unique<LevelMethod>(settings);
}

}  // namespace benchwatch::compare
