#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/comparison.hpp"
#include "model/method_choice.hpp"
#include "model/result.hpp"
#include "stats/budget_share.hpp"
#include "stats/stats.hpp"

namespace benchwatch::compare {

class JsonField;

// One benchmark of a pull request as a method sees it.
struct BenchmarkEvidence {
    // Default-branch values, oldest first, ending with the baseline run's value; all positive.
    std::span<const double> history;
    double base = 0;  // the baseline run's value
    double head = 0;
    bool smaller_is_better = true;
    double minimum_change = 0.03;  // the benchmark's category minimum, e.g. 0.03 for 3%
    // The samples behind base and head where the format has them, else null; they must outlive
    // the evidence (a replay's matrix, a comparison's results).
    const model::SampleSummary* base_samples = nullptr;
    const model::SampleSummary* head_samples = nullptr;
    // Its weight where a budget is shared out by noise: its thresholds are bought at the price
    // of a fluke ÷ this (model::BenchmarkRule::budget_weight).
    double budget_weight = 1;
};

// What a method concludes about one benchmark.
struct Assessment {
    model::Verdict verdict = model::Verdict::Unchanged;
    double threshold = 0;          // |ln(head/reference)| had to exceed this
    double typical_change = 0;     // the noise measure used (seed: median |ln ratio|)
    int history_pairs = 0;         // consecutive history pairs the noise was learned from
    double reference = 0;          // the level head was compared with (seed: base)
    double head_value = 0;         // the head's value judged (samples: its median); 0: head
    double detectable_change = 0;  // smallest relative change flagged here, 0.05 for 5%
};

// What a method concludes about one pull request's suite: every benchmark's assessment, its
// final verdict included (TooNoisy too), and what it learned of the suite as a whole, once.
// Reports, backtest, the dashboard and confirm read this and nothing else.
struct SuiteJudgement {
    std::vector<Assessment> benchmarks;  // parallel to the suite judged
    // The suite's move every benchmark was judged against, e.g. −0.4 when the whole suite ran
    // 40% faster; 0 when the suite did not move as a whole.
    double suite_move = 0;
    // The samples method's spread between runs that the suite's samples do not explain (ln
    // scale); 0 for the other methods.
    double run_to_run = 0;
    // Whether the samples method assumed the spread between runs, its suite being too small to
    // learn it from.
    bool run_to_run_assumed = false;
};

// Whether a benchmark that could flag only changes beyond `detectable_change` (0.31 for 31%) is
// too noisy to judge in a category whose minimum is `minimum_change`: beyond both
// model::too_noisy_multiple times that minimum and model::too_noisy_floor. Example:
// too_noisy(0.31, 0.03) is true; too_noisy(0.29, 0.03) and too_noisy(0.2, 0.01) are false.
bool too_noisy(double detectable_change, double minimum_change);

// The sentence that opens a method's paragraph, saying what its values are: "Times are the
// minimum time of every benchmark.", or where every benchmark of `comparison` is a count
// (model::is_counted_metric()), "Every value is a count of one iteration of a benchmark's loop,
// or of a whole command."
std::string values_sentence(const model::Comparison& comparison);

// `assessment` as TooNoisy when it found no change but could only have flagged one beyond
// too_noisy() of `minimum_change`; a flagged change and an inconclusive one keep their verdicts.
void mark_too_noisy(Assessment& assessment, double minimum_change);

// One benchmark of a prepared suite judged by a noise its method learned: its score as a budget
// shared by noise pools it, and the smallest threshold its category allows (log space).
struct NoiseScore {
    stats::PooledScore pooled;
    double floor = 0;
    stats::GridPosition position;  // of its noise among the thresholds by noise
    double budget_weight = 1;      // its evidence's
};

// The part of judging one pull request's suite that does not depend on the method's setting
// (noise, levels, moves), worked out once so that many settings can decide it cheaply.
class PreparedSuite {
  public:
    virtual ~PreparedSuite() = default;
};

struct ReplayedPullRequest;
struct FlagCount;

// A way of judging a pull request's benchmarks against the default branch's history.
class Method {
  public:
    virtual ~Method() = default;

    // The name `--method` selects it by.
    virtual std::string name() const = 0;

    // The judgement of `suite`, one assessment per benchmark in its order; all benchmarks of one
    // pull request are judged together, so a method may look across the suite. Equals
    // decide(*prepare(suite), setting()).
    SuiteJudgement judge(std::span<const BenchmarkEvidence> suite) const;

    // What judging `suite` needs that no setting changes; it keeps no reference to `suite`.
    virtual std::unique_ptr<PreparedSuite> prepare(
        std::span<const BenchmarkEvidence> suite) const = 0;

    // prepare() of each of `suites`, in order. The suites of a replayed history share their
    // histories (evidence whose `history` starts at one address holds one series' values), and a
    // method may work out what those have in common once.
    virtual std::vector<std::unique_ptr<PreparedSuite>> prepare_each(
        std::span<const std::span<const BenchmarkEvidence>> suites) const;

    // The judgement of a suite prepared by prepare() of this method (or of the method it was
    // made from by with_setting() or calibrated_by()), at sensitivity `setting`; a level method
    // with thresholds by noise uses those instead of `setting`.
    virtual SuiteJudgement decide(const PreparedSuite& prepared, double setting) const = 0;

    // count_flags(request, decide(prepared, setting())) of the replayed `request` whose suite
    // `prepared` was prepared from: a calibration counts flags many thousand times, and a method
    // may count them without writing out every assessment.
    virtual FlagCount count_flags(const PreparedSuite& prepared,
                                  const ReplayedPullRequest& request) const;

    // Each benchmark of `prepared` that is judged by a noise the method learned, as a budget
    // shared by noise reads it. `later_shift` (one per suite entry, as ReplayedPullRequest has
    // it, or empty when the runs after are not known) tells which moves lasted. Empty for a
    // method that learns no noise, such as seed.
    virtual std::vector<NoiseScore> noise_scores(const PreparedSuite& prepared,
                                                 std::span<const double> later_shift) const;

    // The same method set as `calibration` found: at its sensitivity, and with a ByNoise
    // calibration's thresholds by noise.
    virtual std::unique_ptr<Method> calibrated_by(const model::Calibration& calibration) const;

    // The sensitivity knob `backtest --budget` sweeps: bigger is stricter (seed: the factor).
    virtual double setting() const = 0;

    // The same method with its sensitivity knob at `setting`.
    virtual std::unique_ptr<Method> with_setting(double setting) const = 0;

    // The settings worth sweeping, smallest first: {1, 100} for seed.
    virtual std::pair<double, double> setting_range() const = 0;

    // The flukes per pull request its setting is calibrated to on the default branch's history
    // (replay.hpp's calibrate()); std::nullopt when the setting is used as set.
    virtual std::optional<double> calibration_budget() const;

    // Whether a calibration shares the budget out by noise (a threshold per benchmark) rather
    // than through one setting for every benchmark.
    virtual bool shares_budget_by_noise() const;

    // Whether it judges by the samples each run kept, so that a replay must load them.
    virtual bool reads_samples() const;

    // How many of each benchmark's latest default-branch values, up to the baseline, judge()
    // looks at: seed needs its pairs + 1.
    virtual std::size_t history_wanted() const = 0;
};

// The report's verdict for a judgement: Worse is Slower, Better is Faster.
model::Verdict to_verdict(stats::Judgement judgement);

// Everything the layers above need of one judging method besides its judgement, so that a
// method is one unit of this layer: its name, its settings as nothing configured them, the
// paragraph explaining it in a report, and its part of a report's JSON, written and read back.
// Each method's header declares its unit; method_units() lists them all.
struct MethodUnit {
    std::string_view name;  // the name `--method` selects it by
    // The method with the settings it has when nothing configures them.
    model::MethodChoice (*default_choice)();
    // The method `choice` (whose settings are this unit's) configures.
    std::unique_ptr<Method> (*make)(const model::MethodChoice& choice);
    // The report's paragraph on how `comparison` was judged by this method; `minimums` are the
    // categories' minimum changes as the paragraph lists them ("allocations 3%"), escaped.
    std::string (*explanation)(const model::Comparison& comparison,
                               std::span<const std::string> minimums);
    // Its settings, and what it learned of the suite, as members added to a JSON report.
    void (*write_json)(const model::Comparison& comparison, nlohmann::ordered_json& document);
    // What write_json() added, read back from a JSON report's `document` into `comparison`
    // (whose method is already this one with its default settings); a member that reports of
    // older versions lack keeps its default.
    void (*read_json)(const JsonField& document, model::Comparison& comparison);
    // Whether its reports say what it could detect, count too noisy benchmarks and call an
    // unflagged row "within noise": every method but seed, whose reference reports do not.
    bool says_what_it_could_detect = true;
};

// The unit of a method whose settings type is `Settings` (with its name as
// `Settings::method_name`) and which `make` makes from them; it defaults to `Settings{}`.
template <class Settings, std::unique_ptr<Method> (*make)(const Settings&)>
MethodUnit unit_for(decltype(MethodUnit::explanation) explanation,
                    decltype(MethodUnit::write_json) write_json,
                    decltype(MethodUnit::read_json) read_json,
                    bool says_what_it_could_detect = true) {
    return {Settings::method_name,
            [] { return model::MethodChoice(std::string(Settings::method_name), Settings{}); },
            [](const model::MethodChoice& choice) { return make(choice.settings<Settings>()); },
            explanation,
            write_json,
            read_json,
            says_what_it_could_detect};
}

// Every method, in the order the unknown-method message lists them.
std::span<const MethodUnit* const> method_units();

// The unit of the method called `name`. Throws CompareError "unknown method 'x'; available:
// seed, level, samples" for a name no unit has.
const MethodUnit& method_unit(std::string_view name);

// The method called `name` with the settings it has when nothing configures them; throws as
// method_unit() does.
model::MethodChoice default_choice(std::string_view name);

// The method `choice` names, with its settings.
std::unique_ptr<Method> make_method(const model::MethodChoice& choice);

// Every method's name, in the order the unknown-method message lists them.
std::vector<std::string> method_names();

// The method compare and backtest use when none is named.
std::string default_method_name();

}  // namespace benchwatch::compare
