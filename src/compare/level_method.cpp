#include "compare/level_method.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compare/json_field.hpp"
#include "compare/parallel.hpp"
#include "compare/replay.hpp"
#include "model/words.hpp"
#include "stats/budget_share.hpp"
#include "stats/stats.hpp"
#include "stats/transient.hpp"

namespace benchwatch::compare {

namespace {

// The suite moved as a whole when at least this share of its level-judged benchmarks, and at
// least kSuiteMinimum of them, moved beyond their thresholds in one direction.
constexpr double kSuiteShare = 0.5;
constexpr std::size_t kSuiteMinimum = 10;
// A benchmark counts towards that share beyond this many times its noise even when its
// threshold is further out (at least its category's minimum change).
constexpr double kSuiteTriggerNoises = 2.0;
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
    double budget_weight = 1;            // its evidence's
    bool smaller_is_better = true;
    Assessment assessment;  // complete unless level_based
};

// The suite's moves from their levels, which do not depend on the sensitivity.
struct SuiteMoves {
    std::size_t count = 0;  // level-judged benchmarks
    double shift = 0;       // their median move
    double spread = 0;      // 1.4826 × the median absolute deviation of their moves
};

static_assert(std::is_trivially_destructible_v<Judged>);

// Room for the Judged of many suites at once, each constructed in place by whichever thread
// prepares its suite: one block that a replay's suites share instead of a block each, which would
// be allocated, and its pages cleared, one suite at a time.
class JudgedBlock {
  public:
    explicit JudgedBlock(std::size_t size)
        : size_(size), data_(std::allocator<Judged>().allocate(size)) {}
    JudgedBlock(const JudgedBlock&) = delete;
    JudgedBlock& operator=(const JudgedBlock&) = delete;
    ~JudgedBlock() { std::allocator<Judged>().deallocate(data_, size_); }

    // Entries [first, first + count), to be constructed by the caller.
    Judged* at(std::size_t first) const { return data_ + first; }

  private:
    std::size_t size_;
    Judged* data_;
};

struct LevelPrepared final : PreparedSuite {
    std::span<const Judged> judged;  // in `own`, or in the block a replay's suites share
    std::vector<Judged> own;
    std::shared_ptr<const JudgedBlock> shared;
    SuiteMoves moves;
};

// One series' values as logarithms, the median of every level_runs consecutive logs
// (stats::window_medians) and their deviations (stats::series_deviations, leaving out moves up to
// `floor`), from its first value: what every window of it that a level method judges takes its
// noise and level from. Entries of values that are not positive are not used: nonpositive_before
// counts them, so that a window can tell it holds none.
struct SeriesLogs {
    std::vector<double> logs;
    std::vector<double> level_medians;
    double floor = 0;
    stats::SeriesDeviations deviations;
    std::vector<std::size_t> nonpositive_before;  // one more entry than logs
};

model::Verdict verdict_of(double move, double threshold, bool smaller_is_better) {
    return to_verdict(stats::judge_log_ratio(move, threshold, smaller_is_better));
}

class LevelMethod final : public Method {
  public:
    explicit LevelMethod(const LevelSettings& settings)
        : settings_(settings), by_noise_(settings_.thresholds_by_noise) {
        assert(settings_.level_runs > 0 && settings_.sensitivity >= 0);
        for (const auto& weighted : settings_.thresholds_by_weight)
            by_weight_.emplace_back(weighted.weight, stats::NoiseThresholds(weighted.thresholds));
    }
    // The tables look into settings_, so a copy would look into the original's.
    LevelMethod(const LevelMethod&) = delete;
    LevelMethod& operator=(const LevelMethod&) = delete;

    std::string name() const override { return "level"; }

    std::unique_ptr<PreparedSuite> prepare(
        std::span<const BenchmarkEvidence> suite) const override {
        return prepare_suite(suite);
    }

    // A replay's suites take their histories from one array per benchmark: the logs and level
    // medians of each array are taken once here, for the longest history that starts there,
    // instead of once for every pull request.
    std::vector<std::unique_ptr<PreparedSuite>> prepare_each(
        std::span<const std::span<const BenchmarkEvidence>> suites) const override {
        // Per series: its longest history and its category's minimum change.
        std::unordered_map<const double*, std::pair<std::size_t, double>> longest;
        for (const auto suite : suites)
            for (const auto& evidence : suite) {
                auto& [length, minimum_change] = longest[evidence.history.data()];
                length = std::max(length, evidence.history.size());
                minimum_change = evidence.minimum_change;
            }
        // The map is filled first and its entries worked out after, each on its own, so that
        // the work can be spread without the map changing under it.
        std::unordered_map<const double*, SeriesLogs> series;
        series.reserve(longest.size());
        std::vector<std::pair<const double*, std::pair<std::size_t, double>>> starts(
            longest.begin(), longest.end());
        std::vector<SeriesLogs*> entries;
        entries.reserve(starts.size());
        for (const auto& [start, length] : starts) entries.push_back(&series[start]);
        detail::for_each_index(starts.size(), [&](std::size_t s) {
            const auto [start, length_and_minimum] = starts[s];
            const auto [length, minimum_change] = length_and_minimum;
            auto& one = *entries[s];
            one.logs.reserve(length);
            one.nonpositive_before.reserve(length + 1);
            one.nonpositive_before.push_back(0);
            for (std::size_t i = 0; i < length; ++i) {
                one.logs.push_back(start[i] > 0 ? std::log(start[i]) : 0.0);
                one.nonpositive_before.push_back(one.nonpositive_before.back() +
                                                 (start[i] > 0 ? 0 : 1));
            }
            one.level_medians = stats::window_medians(one.logs, settings_.level_runs);
            one.floor = std::log1p(minimum_change);
            one.deviations = stats::series_deviations(one.logs, one.level_medians,
                                                      settings_.level_runs, one.floor);
        });
        std::vector<std::size_t> first(suites.size() + 1, 0);
        for (std::size_t i = 0; i < suites.size(); ++i) first[i + 1] = first[i] + suites[i].size();
        const auto block = std::make_shared<const JudgedBlock>(first.back());
        std::vector<std::unique_ptr<PreparedSuite>> prepared(suites.size());
        detail::for_each_index(suites.size(), [&](std::size_t i) {
            auto one = std::make_unique<LevelPrepared>();
            Judged* judged = block->at(first[i]);
            for (const auto& evidence : suites[i]) {
                const auto found = series.find(evidence.history.data());
                std::construct_at(
                    judged++,
                    prepare_alone(evidence, found == series.end() ? nullptr : &found->second));
            }
            one->judged = std::span<const Judged>(block->at(first[i]), suites[i].size());
            one->shared = block;
            one->moves = suite_moves(one->judged);
            prepared[i] = std::move(one);
        });
        return prepared;
    }

    SuiteJudgement decide(const PreparedSuite& prepared, double setting) const override {
        const auto& level_prepared = dynamic_cast<const LevelPrepared&>(prepared);
        std::vector<Judged> judged(level_prepared.judged.begin(), level_prepared.judged.end());
        for (auto& one : judged) {
            if (!one.level_based) continue;
            auto& assessment = one.assessment;
            assessment.threshold = own_threshold(one, setting);
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

    // The verdicts decide() gives, without its assessments: a calibration counts the flags of
    // every replayed pull request at every setting it tries. An assessment's detectable change
    // only turns an unchanged verdict into too noisy, which flags nothing, so it is left out.
    FlagCount count_flags(const PreparedSuite& prepared,
                          const ReplayedPullRequest& request) const override {
        const auto& level_prepared = dynamic_cast<const LevelPrepared&>(prepared);
        const auto& judged = level_prepared.judged;
        assert(judged.size() == request.suite.size());
        thread_local std::vector<double> thresholds;
        thresholds.assign(judged.size(), 0.0);
        for (std::size_t i = 0; i < judged.size(); ++i)
            if (judged[i].level_based) thresholds[i] = own_threshold(judged[i], setting());
        const auto& moves = level_prepared.moves;
        const bool moved = moved_together(moves, judged, [&](std::size_t i) {
            return std::min(thresholds[i], widest_suite_trigger(judged[i]));
        });
        FlagCount count;
        for (std::size_t i = 0; i < judged.size(); ++i) {
            const auto& one = judged[i];
            const auto verdict = !one.level_based ? one.assessment.verdict
                                 : moved
                                     ? against_suite_move(moves, one, thresholds[i]).first
                                     : verdict_of(one.move, thresholds[i], one.smaller_is_better);
            if (model::flags_change(verdict))
                count_flag(request, i, one.assessment.reference, count);
        }
        return count;
    }

    std::vector<NoiseScore> noise_scores(const PreparedSuite& prepared,
                                         std::span<const double> later_shift) const override {
        const auto& level_prepared = dynamic_cast<const LevelPrepared&>(prepared);
        const auto& judged = level_prepared.judged;
        assert(later_shift.empty() || later_shift.size() == judged.size());
        const auto& suite = level_prepared.moves;
        const bool moved = moved_beyond_noise(suite, judged);
        std::vector<NoiseScore> scores;
        for (std::size_t i = 0; i < judged.size(); ++i) {
            const auto& one = judged[i];
            if (!one.level_based || !(one.noise > 0)) continue;
            const auto oriented = [&](double move) {
                return (one.smaller_is_better ? move : -move) / one.noise;
            };
            NoiseScore score;
            score.floor = one.floor;
            score.position = one.noise_position;
            score.budget_weight = one.budget_weight;
            score.pooled.noise = one.noise;
            score.pooled.score = oriented(one.move);
            score.pooled.fluke = std::abs(score.pooled.score);
            if (moved) {
                const double from_suite = one.move - suite.shift;
                score.pooled.score = oriented(from_suite);
                score.pooled.fluke = std::abs(from_suite) > kSuiteSpreadFactor * suite.spread
                                         ? std::abs(score.pooled.score)
                                         : 0.0;
            }
            if (!later_shift.empty() && stats::lasted(one.move, later_shift[i]))
                score.pooled.fluke = 0;
            scores.push_back(score);
        }
        return scores;
    }

    std::unique_ptr<Method> calibrated_by(const model::Calibration& calibration) const override {
        auto settings = settings_;
        settings.sensitivity = calibration.sensitivity;
        settings.thresholds_by_noise = calibration.thresholds_by_noise;
        settings.thresholds_by_weight = calibration.thresholds_by_weight;
        return std::make_unique<LevelMethod>(settings);
    }

    double setting() const override { return settings_.sensitivity; }

    std::optional<double> calibration_budget() const override {
        return settings_.false_alarms_per_pr;
    }

    bool shares_budget_by_noise() const override {
        return settings_.allocation == BudgetAllocation::ByNoise;
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
    std::unique_ptr<PreparedSuite> prepare_suite(std::span<const BenchmarkEvidence> suite) const {
        auto prepared = std::make_unique<LevelPrepared>();
        prepared->own.reserve(suite.size());
        for (const auto& evidence : suite)
            prepared->own.push_back(prepare_alone(evidence, nullptr));
        prepared->judged = prepared->own;
        prepared->moves = suite_moves(prepared->judged);
        return prepared;
    }

    // `whole`, when given, holds the logs and level medians of the series evidence.history is
    // the start of.
    Judged prepare_alone(const BenchmarkEvidence& evidence, const SeriesLogs* whole) const {
        Judged judged;
        const auto wanted = std::min(history_wanted(), evidence.history.size());
        const auto first = evidence.history.size() - wanted;
        const auto recent = evidence.history.subspan(first);
        const bool positive =
            evidence.base > 0 && evidence.head > 0 &&
            (whole ? whole->nonpositive_before[first + wanted] == whole->nonpositive_before[first]
                   : std::all_of(recent.begin(), recent.end(),
                                 [](double value) { return value > 0; }));
        std::vector<double> own_logs;
        std::span<const double> logs;
        if (positive && whole) {
            logs = std::span<const double>(whole->logs).subspan(first, wanted);
        } else if (positive) {
            own_logs.reserve(recent.size());
            for (double value : recent) own_logs.push_back(std::log(value));
            logs = own_logs;
        }
        const double floor = std::log1p(evidence.minimum_change);
        // One vector per thread for every benchmark it prepares, rather than one each.
        thread_local std::vector<double> all_deviations;
        all_deviations.clear();
        if (positive && logs.size() > settings_.level_runs) {
            if (whole && whole->floor == floor)
                stats::window_deviations(whole->deviations, first, first + wanted,
                                         settings_.noise_runs, all_deviations);
            else if (whole)
                stats::transient_deviations_into(
                    logs,
                    std::span<const double>(whole->level_medians)
                        .subspan(first, logs.size() - settings_.level_runs + 1),
                    settings_.level_runs, floor, all_deviations);
            else
                all_deviations = stats::transient_deviations(logs, settings_.level_runs, floor);
        }
        std::span<double> deviations(all_deviations);
        if (deviations.size() > settings_.noise_runs)
            deviations = deviations.last(settings_.noise_runs);
        if (deviations.size() < kLevelMinimumDeviations)
            return judge_short_history(evidence, logs, floor);

        for (auto& deviation : deviations) deviation = std::abs(deviation);
        const double level = level_of(logs);
        judged.level_based = true;
        judged.move = std::log(evidence.head) - level;
        judged.noise = stats::quantile_in_place(deviations, settings_.noise_quantile);
        judged.noise_position = stats::grid_position(judged.noise);
        judged.floor = floor;
        judged.minimum_change = evidence.minimum_change;
        judged.budget_weight = evidence.budget_weight;
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
    static SuiteMoves suite_moves(std::span<const Judged> judged) {
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

    // How far a benchmark must move to count towards a move of the whole suite: its threshold,
    // or kSuiteTriggerNoises × its noise (at least its floor) when that is nearer. A quiet
    // benchmark's threshold can be many times its noise, and a one-run move of the machine that
    // every benchmark feels would otherwise not reach half of the suite, yet flag the rest.
    static double suite_trigger(const Judged& one) {
        return std::min(one.assessment.threshold, widest_suite_trigger(one));
    }

    static double widest_suite_trigger(const Judged& one) {
        return std::max(kSuiteTriggerNoises * one.noise, one.floor);
    }

    // Whether at least kSuiteShare of the suite's level-judged benchmarks, and at least
    // kSuiteMinimum of them, moved beyond `trigger(i)` of the i-th in one direction.
    template <typename Trigger>
    static bool moved_together(const SuiteMoves& suite, std::span<const Judged> judged,
                               Trigger trigger) {
        int up = 0;
        int down = 0;
        for (std::size_t i = 0; i < judged.size(); ++i) {
            const auto& one = judged[i];
            if (!one.level_based) continue;
            const double bound = trigger(i);
            if (one.move > bound) ++up;
            if (one.move < -bound) ++down;
        }
        return suite.count >= kSuiteMinimum && static_cast<double>(std::max(up, down)) >=
                                                   kSuiteShare * static_cast<double>(suite.count);
    }

    // Whether the suite moved as a whole, each benchmark judged by its suite_trigger().
    static bool moved_as_a_whole(const SuiteMoves& suite, std::span<const Judged> judged) {
        return moved_together(suite, judged,
                              [&](std::size_t i) { return suite_trigger(judged[i]); });
    }

    // Whether the suite moved as a whole whatever the thresholds: each benchmark counted only
    // beyond the farthest trigger a threshold can give it. What a calibration pools past
    // suites by, before their thresholds are chosen.
    static bool moved_beyond_noise(const SuiteMoves& suite, std::span<const Judged> judged) {
        return moved_together(suite, judged,
                              [&](std::size_t i) { return widest_suite_trigger(judged[i]); });
    }

    static void judge_against_suite_move(const SuiteMoves& suite, std::vector<Judged>& judged) {
        for (auto& one : judged) {
            if (!one.level_based) continue;
            auto& assessment = one.assessment;
            std::tie(assessment.verdict, assessment.threshold) =
                against_suite_move(suite, one, assessment.threshold);
            assessment.detectable_change = std::expm1(assessment.threshold);
        }
    }

    // The verdict of a level-judged benchmark whose own threshold is `threshold` when the suite
    // moved as a whole, and the threshold it is judged by then.
    static std::pair<model::Verdict, double> against_suite_move(const SuiteMoves& suite,
                                                                const Judged& one,
                                                                double threshold) {
        threshold = std::max(threshold, kSuiteSpreadFactor * suite.spread);
        const auto beyond_suite =
            verdict_of(one.move - suite.shift, threshold, one.smaller_is_better);
        const auto beyond_level = verdict_of(one.move, threshold, one.smaller_is_better);
        return {beyond_suite == beyond_level ? beyond_suite : model::Verdict::Unchanged, threshold};
    }

    // A level-judged benchmark's threshold at `setting` before the suite is looked at: from the
    // thresholds by noise of its budget weight when there are any, else `setting` × its noise;
    // at least its category's floor.
    double own_threshold(const Judged& one, double setting) const {
        const auto& table = thresholds_of_weight(one.budget_weight);
        const double threshold =
            table.empty() ? setting * one.noise : table.at(one.noise, one.noise_position);
        return std::max(threshold, one.floor);
    }

    // thresholds_of_weight() of the settings' tables.
    const stats::NoiseThresholds& thresholds_of_weight(double weight) const {
        for (const auto& [one, table] : by_weight_)
            if (one == weight) return table;
        return by_noise_;
    }

    LevelSettings settings_;
    stats::NoiseThresholds by_noise_;
    std::vector<std::pair<double, stats::NoiseThresholds>> by_weight_;
};

}  // namespace

std::unique_ptr<Method> make_level_method(const LevelSettings& settings) {
    return std::make_unique<LevelMethod>(settings);
}

namespace {

// `value` rounded to 3 significant digits, so that a calibrated 1.73421 reads "1.73".
double three_digits(double value) {
    return std::stod(fmt::format("{:.3g}", value));
}

// How many percent `share` (0 to 1) is, e.g. "17%".
std::string percent(double share) {
    return fmt::format("{:.0f}%", 100 * share);
}

// " The thresholds share a budget … by noise …": how a calibration by noise chose them, and
// what its estimate rests on.
std::string by_noise_sentence(const model::Calibration& calibration, const std::string& budget) {
    // A calibration with pull requests always gives the prior some weight; one without was read
    // from a report of a version that calibrated by noise on the replay alone, within its margin.
    if (calibration.pull_requests > 0 && calibration.prior_weight == 0)
        return fmt::format(
            " The thresholds share a budget of {} per pull request out by noise: each "
            "benchmark's is the one that buys the most catches of 10% and 20% regressions for the "
            "flukes it risks, at the price of a fluke at which the default branch's last {} runs, "
            "replayed as pull requests, stay within {} of the budget ({:.2f} each on average). "
            "Quiet benchmarks so watch for small changes and noisy ones give their share up.",
            budget, calibration.pull_requests,
            model::percent_without_trailing_zeros(kCalibrationMargin), calibration.flukes_per_pr);
    auto sentence = fmt::format(
        " The thresholds share a budget of {} per pull request out by noise: each benchmark's is "
        "the one that buys the most catches of 10% and 20% regressions for the flukes it risks, "
        "at the price of a fluke at which this suite is expected to make {:.2f} flukes per pull "
        "request, within {} of the budget.",
        budget, calibration.expected_flukes_per_pr,
        model::percent_without_trailing_zeros(kPooledCalibrationMargin));
    if (calibration.pull_requests == 0)
        return sentence +
               fmt::format(
                   " No default-branch run can be replayed as a pull request yet (the first "
                   "needs {} runs before it and {} after), so that estimate rests on a prior "
                   "tail of moves applied to each benchmark's own noise, and is rough.",
                   first_pull_request, persistence_window);
    return sentence +
           fmt::format(
               " That estimate pools every benchmark's moves in the default branch's last {} "
               "runs replayed as pull requests, scaled by each one's noise ({} from a prior tail "
               "while they are few), and is corrected by the flukes those pull requests made "
               "({:.2f} each on average, weighing {}). Quiet benchmarks so watch for small "
               "changes and noisy ones give their share up.",
               calibration.pull_requests, percent(calibration.prior_weight),
               calibration.flukes_per_pr, percent(calibration.replay_weight));
}

// " The factor 1.73 was calibrated …": how the level method's sensitivity was set; "" when the
// configuration fixed it.
std::string calibration_how_sentence(const model::Calibration& calibration,
                                     const LevelSettings& settings) {
    const auto budget =
        fmt::format("{:g} false alarm{}", calibration.budget, calibration.budget == 1 ? "" : "s");
    switch (calibration.source) {
        case model::CalibrationSource::Calibrated:
            if (settings.allocation == BudgetAllocation::ByNoise)
                return by_noise_sentence(calibration, budget);
            return fmt::format(
                " That factor was calibrated to a budget of {} per pull request: it is the "
                "smallest at which the default branch's last {} runs, replayed as pull requests, "
                "stay within {} of it ({:.2f} each on average).",
                budget, calibration.pull_requests,
                model::percent_without_trailing_zeros(kCalibrationMargin),
                calibration.flukes_per_pr);
        case model::CalibrationSource::Conservative:
            return fmt::format(
                " The default branch has too few runs to calibrate that factor to a budget of {} "
                "per pull request ({} replayed as pull requests, {} needed), so it is at least "
                "{}.",
                budget, calibration.pull_requests, kCalibrationMinimum,
                model::whole_or_general(kConservativeSensitivity));
        case model::CalibrationSource::Fixed:
            break;
    }
    return "";
}

// " It was read from the store's cache …" when the calibration came from the store's cache, or
// " The store's cache held another calibration … ignored …" when the one cached was out of the
// range calibration produces; "" otherwise.
std::string calibration_origin_sentence(const model::Calibration& calibration) {
    if (calibration.from_cache)
        return " It was read from the store's cache, where an earlier compare of the same runs "
               "and settings kept it.";
    if (!calibration.cache_refusal.empty())
        return fmt::format(
            " The store's cache held another calibration for these runs and settings, ignored "
            "since {}; this one was calibrated again.",
            calibration.cache_refusal);
    return "";
}

// calibration_how_sentence() and calibration_origin_sentence(); "" when the configuration fixed
// the sensitivity.
std::string calibration_sentence(const model::Calibration& calibration,
                                 const LevelSettings& settings) {
    if (calibration.source == model::CalibrationSource::Fixed) return "";
    return calibration_how_sentence(calibration, settings) +
           calibration_origin_sentence(calibration);
}

// The level method's paragraph (docs/JUDGEMENT.md), with the suite's move when there was one.
std::string level_explanation(const model::Comparison& comparison,
                              std::span<const std::string> minimums) {
    const auto& settings = comparison.method.settings<LevelSettings>();
    const bool by_noise = settings.allocation == BudgetAllocation::ByNoise &&
                          comparison.calibration.source == model::CalibrationSource::Calibrated;
    auto paragraph = fmt::format(
        "{} Each is compared with its level, the "
        "median of its last {} runs on the default branch up to the baseline (the Baseline "
        "column). A change is unusual when it exceeds both {} the benchmark's noise (the {} "
        "percentile of its recent one-run deviations that did not last){} and a minimum per "
        "category ({}). A benchmark with fewer than {} such deviations (each run after its "
        "first {} gives one, unless it began a step that lasted) is unusual only beyond {} its "
        "largest change between consecutive runs, and inconclusive otherwise. A benchmark "
        "that starts or stops allocating is listed however few the allocations.",
        values_sentence(comparison), settings.level_runs,
        by_noise ? std::string("a threshold chosen for")
                 : model::factor_words(three_digits(settings.sensitivity)),
        model::ordinal_percentile(settings.noise_quantile),
        by_noise ? ", never below half that noise," : "", fmt::join(minimums, ", "),
        kLevelMinimumDeviations, settings.level_runs,
        model::factor_words(kLevelShortHistoryFactor));
    paragraph += calibration_sentence(comparison.calibration, settings);
    if (model::moved_visibly(comparison.suite_move))
        paragraph += fmt::format(
            " The whole suite moved by {} from its levels in this run, as a change of machine, "
            "driver or toolchain would; each benchmark is judged against that move as well.",
            model::format_change(comparison.suite_move));
    return paragraph;
}

void write_level_json(const model::Comparison& comparison, nlohmann::ordered_json& document) {
    const auto& settings = comparison.method.settings<LevelSettings>();
    document["level_settings"] = {
        {"sensitivity", settings.sensitivity},
        {"noise_quantile", settings.noise_quantile},
        {"level_runs", settings.level_runs},
        {"minimum_deviations", kLevelMinimumDeviations},
        {"short_history_factor", kLevelShortHistoryFactor},
        {"budget_allocation", to_string(settings.allocation)},
    };
    const auto& calibration = comparison.calibration;
    document["calibration"] = {
        {"source", model::to_string(calibration.source)},
        {"false_alarms_per_pr", calibration.source == model::CalibrationSource::Fixed
                                    ? nlohmann::ordered_json(nullptr)
                                    : nlohmann::ordered_json(calibration.budget)},
        {"pull_requests", calibration.pull_requests},
        {"flukes_per_pr", calibration.flukes_per_pr},
    };
    if (settings.allocation == BudgetAllocation::ByNoise &&
        calibration.source == model::CalibrationSource::Calibrated) {
        auto& written = document["calibration"];
        written["expected_flukes_per_pr"] = calibration.expected_flukes_per_pr;
        written["prior_weight"] = calibration.prior_weight;
        written["replay_weight"] = calibration.replay_weight;
    }
    if (calibration.from_cache) document["calibration"]["from_cache"] = true;
    if (!calibration.cache_refusal.empty())
        document["calibration"]["cache_refusal"] = calibration.cache_refusal;
    document["suite_move"] = comparison.suite_move;
}

model::CalibrationSource read_calibration_source(const JsonField& field) {
    const auto text = field.text();
    for (const auto source : {model::CalibrationSource::Fixed, model::CalibrationSource::Calibrated,
                              model::CalibrationSource::Conservative})
        if (text == model::to_string(source)) return source;
    field.fail("\"fixed\", \"calibrated\" or \"conservative\"");
}

// What a report read back says for why a cached calibration was ignored: its own words stay in
// the JSON, so that a file from outside cannot put its text into the explanation.
constexpr const char* kRefusedCacheInWords = "it was outside what a calibration can produce";

void read_level_json(const JsonField& document, model::Comparison& comparison) {
    auto& settings = comparison.method.settings<LevelSettings>();
    if (document.has("level_settings")) {
        const auto level = document["level_settings"];
        settings.sensitivity = level["sensitivity"].number();
        settings.noise_quantile = level["noise_quantile"].number();
        settings.level_runs = static_cast<std::size_t>(level["level_runs"].integer());
        // minimum_deviations and short_history_factor, which reports still carry, are this
        // method's constants: no configuration changes them. Reports written before budgets were
        // shared by noise spent theirs through one factor.
        settings.allocation = BudgetAllocation::OneFactor;
        if (level.has("budget_allocation")) {
            const auto allocation = budget_allocation_named(level["budget_allocation"].text());
            if (!allocation) level["budget_allocation"].fail("\"by-noise\" or \"one-factor\"");
            settings.allocation = *allocation;
        }
    }
    if (document.has("calibration")) {
        const auto calibration = document["calibration"];
        comparison.calibration.source = read_calibration_source(calibration["source"]);
        comparison.calibration.budget =
            calibration["false_alarms_per_pr"].optional_number().value_or(0);
        comparison.calibration.pull_requests = calibration["pull_requests"].integer();
        comparison.calibration.flukes_per_pr = calibration["flukes_per_pr"].number();
        if (calibration.has("expected_flukes_per_pr")) {
            comparison.calibration.expected_flukes_per_pr =
                calibration["expected_flukes_per_pr"].number();
            comparison.calibration.prior_weight = calibration["prior_weight"].number();
            comparison.calibration.replay_weight = calibration["replay_weight"].number();
        }
        comparison.calibration.from_cache =
            calibration.has("from_cache") && calibration["from_cache"].boolean();
        if (calibration.has("cache_refusal"))
            comparison.calibration.cache_refusal = kRefusedCacheInWords;
    }
    comparison.calibration.sensitivity = settings.sensitivity;
    if (document.has("suite_move")) comparison.suite_move = document["suite_move"].number();
}

}  // namespace

const char* to_string(BudgetAllocation allocation) {
    return allocation == BudgetAllocation::ByNoise ? "by-noise" : "one-factor";
}

std::span<const double> thresholds_of_weight(std::span<const double> by_noise,
                                             std::span<const model::WeightedThresholds> by_weight,
                                             double weight) {
    for (const auto& weighted : by_weight)
        if (weighted.weight == weight) return weighted.thresholds;
    return by_noise;
}

std::optional<BudgetAllocation> budget_allocation_named(std::string_view name) {
    if (name == "one-factor") return BudgetAllocation::OneFactor;
    if (name == "by-noise") return BudgetAllocation::ByNoise;
    return std::nullopt;
}

nlohmann::ordered_json level_settings_fingerprint(const LevelSettings& settings) {
    // Every field bound by position: a field added to LevelSettings makes this binding fail to
    // compile until the fingerprint covers it.
    const auto& [sensitivity, false_alarms_per_pr, allocation, thresholds_by_noise,
                 thresholds_by_weight, noise_quantile, level_runs, noise_runs] = settings;
    nlohmann::ordered_json fingerprint = {
        {"sensitivity", sensitivity},
        {"false_alarms_per_pr", false_alarms_per_pr ? nlohmann::ordered_json(*false_alarms_per_pr)
                                                    : nlohmann::ordered_json(nullptr)},
        {"budget_allocation", to_string(allocation)},
        {"thresholds_by_noise", thresholds_by_noise},
        {"noise_quantile", noise_quantile},
        {"level_runs", level_runs},
        {"noise_runs", noise_runs}};
    // Only when there are any, so that the fingerprints of settings without them stay as they
    // were.
    if (!thresholds_by_weight.empty()) {
        auto weighted = nlohmann::ordered_json::array();
        for (const auto& [weight, thresholds] : thresholds_by_weight)
            weighted.push_back({{"weight", weight}, {"thresholds", thresholds}});
        fingerprint["thresholds_by_weight"] = std::move(weighted);
    }
    return fingerprint;
}

const MethodUnit& level_unit() {
    static const MethodUnit unit = unit_for<LevelSettings, make_level_method>(
        level_explanation, write_level_json, read_level_json);
    return unit;
}

}  // namespace benchwatch::compare
