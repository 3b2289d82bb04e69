// How well `benchwatch history --changes` finds steps that are known, on generated histories
// (docs/JUDGEMENT.md, "Steps near the end and slow spells"). Each history is a suite of 8
// benchmarks measured once per commit, as a library's own backfilled history is; every value is
// 1000 × exp(level + σ · N(0, 1)) with σ² = ln(1 + CV²) (log-normal noise of that CV). The steps
// are found as the command finds them: compare::find_changes with the default method calibrated
// on the whole history.
//
//   step_detection [REPEATS [--false]]   (default 10 histories per cell)
//
// Four kinds of history, for each CV of 3%, 5% and 10% and each length of 12, 20, 30 and 60 runs:
// - step: one benchmark steps by 10, 15, 20, 30 or 50% (slower or faster, alternately) with
//   3, 4, 5 or 10 runs after the step (at least 5 before; shorter histories are left out);
// - spell: no step; every benchmark is 15–30% slower for 2, 3 or 4 runs (a slow spell of the
//   shared machine), with at least 5 runs after the spell;
// - step+spell: as spell, and one benchmark steps by 20–50% 5 runs before the spell begins;
// - noise: no step and no spell.
// A step found counts when its new level starts within one commit of the true step, in its
// sense; every other step shown (of any benchmark, alone or in a suite event) is false. Printed:
// Markdown tables of found / true and false steps by CV, size and runs after, then per kind;
// with --false, each false step on standard error.
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "compare/changes.hpp"
#include "compare/method.hpp"
#include "compare/replay.hpp"
#include "model/category.hpp"

namespace {

using namespace benchwatch;

constexpr std::size_t kBenchmarks = 8;
constexpr double kCvs[] = {0.03, 0.05, 0.10};
constexpr std::size_t kLengths[] = {12, 20, 30, 60};
constexpr double kSizes[] = {0.10, 0.15, 0.20, 0.30, 0.50};
constexpr std::size_t kRunsAfter[] = {3, 4, 5, 10};

// A true step of one benchmark: its new level starts at commit `index`.
struct Truth {
    std::size_t benchmark = 0;
    std::size_t index = 0;
    bool slower = true;
};

// What one history asks for, besides its noise.
struct Plan {
    std::size_t length = 0;
    double cv = 0;
    std::vector<Truth> steps;
    std::vector<double> step_ratios;  // parallel to steps
    std::size_t spell_begin = 0;      // the spell's runs [begin, end) are slower; none when equal
    std::size_t spell_end = 0;
    double spell_ratio = 1;
};

model::History generate(const Plan& plan, std::mt19937_64& random) {
    const double sigma = std::sqrt(std::log1p(plan.cv * plan.cv));
    std::normal_distribution<double> noise(0, sigma);
    model::History history;
    history.project = "p";
    history.machine = "m";
    history.order = model::HistoryOrder::Recorded;
    history.runs = static_cast<int>(plan.length);
    for (std::size_t i = 0; i < plan.length; ++i)
        history.commits.push_back(fmt::format("c{:03}", i));
    for (std::size_t b = 0; b < kBenchmarks; ++b) {
        model::BenchmarkHistory series;
        series.name = fmt::format("bench{}", b);
        series.commits = history.commits;
        for (std::size_t i = 0; i < plan.length; ++i) {
            double level = 0;
            for (std::size_t s = 0; s < plan.steps.size(); ++s)
                if (plan.steps[s].benchmark == b && i >= plan.steps[s].index)
                    level += std::log(plan.step_ratios[s]);
            if (i >= plan.spell_begin && i < plan.spell_end) level += std::log(plan.spell_ratio);
            series.values.push_back(1000 * std::exp(level + noise(random)));
        }
        history.benchmarks.push_back(std::move(series));
    }
    return history;
}

struct Tally {
    std::size_t truth = 0;
    std::size_t found = 0;
    std::size_t exact = 0;  // found at the true commit itself
    std::size_t falses = 0;
    std::size_t histories = 0;
    std::size_t false_after_spell = 0;  // false steps whose new level starts at the spell's end
    std::size_t false_at_spell = 0;     // false steps whose new level starts at the spell's start
};

// Whether to print every false step (step_detection REPEATS --false).
bool print_false_steps = false;

void score(const Plan& plan, const model::HistoryChanges& changes, Tally& tally) {
    std::vector<const model::HistoryStep*> shown;
    for (const auto& step : changes.steps) shown.push_back(&step);
    for (const auto& event : changes.events)
        for (const auto& step : event.steps) shown.push_back(&step);
    std::vector<bool> matched(shown.size(), false);
    for (const auto& truth : plan.steps) {
        ++tally.truth;
        const std::string name = fmt::format("bench{}", truth.benchmark);
        for (std::size_t k = 0; k < shown.size(); ++k) {
            const auto& step = *shown[k];
            const std::size_t distance = step.position > truth.index ? step.position - truth.index
                                                                     : truth.index - step.position;
            if (matched[k] || step.benchmark != name || distance > 1 ||
                (step.ratio > 1) != truth.slower)
                continue;
            matched[k] = true;
            ++tally.found;
            if (distance == 0) ++tally.exact;
            break;
        }
    }
    for (std::size_t k = 0; k < shown.size(); ++k) {
        if (matched[k]) continue;
        ++tally.falses;
        if (print_false_steps)
            fmt::print(stderr,
                       "false step: {} runs, CV {}, spell [{}, {}) ×{:.2f}, true steps at {}: {} "
                       "at {}, {:+.1f}%, {} runs before, {} after, p {:.4f}\n",
                       plan.length, plan.cv, plan.spell_begin, plan.spell_end, plan.spell_ratio,
                       plan.steps.empty() ? 0 : plan.steps[0].index, shown[k]->benchmark,
                       shown[k]->position, (shown[k]->ratio - 1) * 100, shown[k]->runs_before,
                       shown[k]->runs_after, shown[k]->p_value);
        if (plan.spell_end > plan.spell_begin && shown[k]->position == plan.spell_end)
            ++tally.false_after_spell;
        if (plan.spell_end > plan.spell_begin && shown[k]->position == plan.spell_begin)
            ++tally.false_at_spell;
    }
    ++tally.histories;
}

void judge(const Plan& plan, std::mt19937_64& random, Tally& tally) {
    const auto history = generate(plan, random);
    const auto categories = model::default_categories();
    const auto method = compare::make_method(
        compare::calibrated_on(history, compare::default_choice("level"), categories));
    const compare::EnvironmentOf no_environment = [](const std::string&) {
        return model::Environment{};
    };
    score(plan, compare::find_changes(history, no_environment, *method, categories), tally);
}

std::string ratio(std::size_t a, std::size_t b) {
    return fmt::format("{}/{} ({:.0f}%)", a, b, b == 0 ? 0.0 : 100.0 * double(a) / double(b));
}

}  // namespace

int main(int argc, char** argv) {
    const int repeats = argc > 1 ? std::atoi(argv[1]) : 10;
    print_false_steps = argc > 2 && std::string(argv[2]) == "--false";
    if (repeats < 1) {
        fmt::print(stderr, "error: REPEATS must be a positive whole number, got '{}'\n", argv[1]);
        return 2;
    }
    std::mt19937_64 random(20260611);

    // Steps: found by CV × size × runs after, and the false steps beside them.
    fmt::print("## Steps found (within one commit, in their sense), by CV and runs after\n\n");
    fmt::print("| CV | size | 3 after | 4 after | 5 after | 10 after | false steps |\n");
    fmt::print("|--:|--:|--:|--:|--:|--:|--:|\n");
    Tally all_steps;
    std::vector<Tally> by_after(std::size(kRunsAfter));
    for (const double cv : kCvs)
        for (const double size : kSizes) {
            std::string row = fmt::format("| {:.0f}% | {:.0f}% |", cv * 100, size * 100);
            std::size_t falses = 0;
            for (std::size_t a = 0; a < std::size(kRunsAfter); ++a) {
                Tally tally;
                for (const std::size_t length : kLengths) {
                    if (length < kRunsAfter[a] + 5) continue;
                    for (int r = 0; r < repeats; ++r) {
                        Plan plan;
                        plan.length = length;
                        plan.cv = cv;
                        const bool slower = r % 2 == 0;
                        plan.steps.push_back({static_cast<std::size_t>(r) % kBenchmarks,
                                              length - kRunsAfter[a], slower});
                        plan.step_ratios.push_back(slower ? 1 + size : 1 / (1 + size));
                        judge(plan, random, tally);
                    }
                }
                row += fmt::format(" {} |", ratio(tally.found, tally.truth));
                falses += tally.falses;
                by_after[a].truth += tally.truth;
                by_after[a].found += tally.found;
                by_after[a].exact += tally.exact;
                by_after[a].falses += tally.falses;
                by_after[a].histories += tally.histories;
                all_steps.truth += tally.truth;
                all_steps.found += tally.found;
                all_steps.exact += tally.exact;
                all_steps.falses += tally.falses;
                all_steps.histories += tally.histories;
            }
            fmt::print("{} {} |\n", row, falses);
        }
    fmt::print("\n| runs after | found | at the true commit | missed | false steps | histories |\n");
    fmt::print("|--:|--:|--:|--:|--:|--:|\n");
    for (std::size_t a = 0; a < std::size(kRunsAfter); ++a)
        fmt::print("| {} | {} | {} | {} | {} | {} |\n", kRunsAfter[a],
                   ratio(by_after[a].found, by_after[a].truth), by_after[a].exact,
                   by_after[a].truth - by_after[a].found, by_after[a].falses,
                   by_after[a].histories);

    // Spells and pure noise: every step shown is false.
    fmt::print("\n## False steps without a step, and around slow spells\n\n");
    fmt::print(
        "| kind | CV | histories | true steps found | false steps | at the spell's first run | at "
        "the commit after the spell |\n");
    fmt::print("|:--|--:|--:|--:|--:|--:|--:|\n");
    for (const std::string kind : {"noise", "spell", "step+spell"})
        for (const double cv : kCvs) {
            Tally tally;
            for (const std::size_t length : kLengths)
                for (std::size_t spell = 2; spell <= 4; ++spell)
                    for (int r = 0; r < repeats; ++r) {
                        if (kind == "noise" && spell > 2) continue;
                        Plan plan;
                        plan.length = length;
                        plan.cv = cv;
                        if (kind != "noise") {
                            // Room for 5 runs before, the spell and 5 runs after; with a step, 5
                            // more before the spell for the step's new level to begin.
                            const std::size_t earliest = kind == "spell" ? 5 : 10;
                            if (length < earliest + spell + 5) continue;
                            std::uniform_int_distribution<std::size_t> begin(
                                earliest, length - spell - 5);
                            plan.spell_begin = begin(random);
                            plan.spell_end = plan.spell_begin + spell;
                            plan.spell_ratio = std::uniform_real_distribution<double>(1.15,
                                                                                       1.30)(random);
                        }
                        if (kind == "step+spell") {
                            const bool slower = r % 2 == 0;
                            const double size =
                                std::uniform_real_distribution<double>(0.20, 0.50)(random);
                            plan.steps.push_back({static_cast<std::size_t>(r) % kBenchmarks,
                                                  plan.spell_begin - 5, slower});
                            plan.step_ratios.push_back(slower ? 1 + size : 1 / (1 + size));
                        }
                        judge(plan, random, tally);
                    }
            fmt::print("| {} | {:.0f}% | {} | {} | {} | {} | {} |\n", kind, cv * 100,
                       tally.histories,
                       kind == "step+spell" ? ratio(tally.found, tally.truth) : "–", tally.falses,
                       tally.false_at_spell, tally.false_after_spell);
        }
    fmt::print("\nAll step histories: {} found, {} missed, {} false steps in {} histories\n",
               ratio(all_steps.found, all_steps.truth), all_steps.truth - all_steps.found,
               all_steps.falses, all_steps.histories);
    return 0;
}
