#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "compare/method.hpp"
#include "model/category.hpp"
#include "model/comparison.hpp"
#include "model/history.hpp"
#include "model/run.hpp"
#include "stats/trusted_steps.hpp"
#include "store/store.hpp"
#include "vcs/git.hpp"

namespace benchwatch::compare {

// The keys recorded in both environments whose values differ, sorted by key. A key recorded on
// one side only is no change: runs stored by `record` and by `run`, or by older and newer
// versions, capture different keys. Toolchain keys ("compiler.<name>") differ only when the
// versions their values name differ, and are given as those versions, so that a banner line
// stored by an older version is not a change.
std::vector<model::EnvironmentChange> environment_differences(const model::Environment& before,
                                                              const model::Environment& after);

// The smallest move, in log space, that `method` would flag on a benchmark whose default-branch
// values up to the baseline are `history` (oldest first, positive), judged alone (no suite to
// move with): the Assessment::threshold of a head judged against that history. A step in the
// history must be bigger than this at its place to be trusted. 0 for an empty history.
double detectable_log_change(const Method& method, std::span<const double> history,
                             double minimum_change, bool smaller_is_better);

// When the steps of many benchmarks at one commit are one suite event.
struct SuiteEventRule {
    // At least this share of the benchmarks measured on both sides of the commit, and at least
    // `minimum` of them, stepped there: the level method's rule for a move of the whole suite.
    double share = 0.5;
    std::size_t minimum = 10;
    // A benchmark's step counts when its new level starts up to this many commits either side.
    std::size_t slack = 1;
};

// Everything that decides which steps are shown and how.
struct StepRules {
    stats::StepTrustSettings trust;
    SuiteEventRule events;
};

// The environment of a commit's first run ({} when it has none).
using EnvironmentOf = std::function<model::Environment(const std::string& commit)>;

// The trusted steps (stats::trusted_steps over each benchmark's positive values, sized against
// detectable_log_change() with `method` and the benchmark's category minimum) of every
// benchmark of `history`, those shared by much of the suite gathered into suite events (see
// group_suite_events()), and each with the environment keys that differ between the commits on
// either side. Only benchmarks `benchmark` selects (as in history()) are listed, but events are
// found among all of them.
model::HistoryChanges find_changes(const model::History& history,
                                   const EnvironmentOf& environment_of, const Method& method,
                                   const std::vector<model::Category>& categories,
                                   const std::string& benchmark = "", const StepRules& rules = {});

// Moves the steps shared by much of the suite out of `changes.steps` into `changes.events`:
// repeatedly, the commit position p at which the most benchmarks have a step whose new level
// starts within `rule.slack` positions of p becomes an event when those benchmarks number at
// least `rule.minimum` and at least `rule.share` of the benchmarks measured on both sides of p
// (`measured(p)`); each benchmark gives it its step nearest p (of equally many at p, the p where
// most stepped exactly). The event is placed where most of its steps' new levels start, the
// earliest of equally many. Events end up oldest first.
void group_suite_events(model::HistoryChanges& changes,
                        const std::function<int(std::size_t position)>& measured,
                        const SuiteEventRule& rule);

// The trusted steps of the default branch's history read as history() reads it (over the last
// `limit` runs, or all with 0), as find_changes() gives them.
model::HistoryChanges history_changes(store::Store& store, const vcs::Repository* repository,
                                      const HistorySource& source, const std::string& benchmark,
                                      std::size_t limit, const SeedSettings& settings,
                                      const Method& method,
                                      const std::vector<model::Category>& categories);

// history_changes() of `read`, the default branch's history as history() read it from `store`.
model::HistoryChanges history_changes(store::Store& store, const HistorySource& source,
                                      const model::History& read, const std::string& benchmark,
                                      const Method& method,
                                      const std::vector<model::Category>& categories);

// How many default-branch runs beyond those a method wants a comparison reads, so that the runs
// it leaves out as a slow spell (stats::find_slow_spells over all of them) are made up for.
inline constexpr std::size_t kSpellReserve = 12;

// The smallest move of the whole suite that counts as a slow spell: ln(1 + the smallest minimum
// change of `categories`), ln 2 when there are none.
double smallest_spell_move(const std::vector<model::Category>& categories);

// The dashboard's judgement of each benchmark of `history` (parallel to history.benchmarks),
// from `changes` (find_changes() of the same history and method): Regressed or Improved when
// `method`, judging every benchmark with values at the latest two commits together (the latest
// as the head, everything before as its history, as `compare` judges a head against the commit
// before it, without the runs compare would leave out as a slow spell), flags its latest run; else
// when one of its own steps (not a suite event's) began within the last `recent_runs` commits, by
// that step's direction; else Stable. The detectable change is `method`'s for a head judged against
// the whole history.
std::vector<model::BenchmarkStanding> standings(const model::History& history,
                                                const model::HistoryChanges& changes,
                                                const Method& method,
                                                const std::vector<model::Category>& categories,
                                                std::size_t recent_runs = 20);

}  // namespace benchwatch::compare
