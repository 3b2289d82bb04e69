#pragma once

#include <string>
#include <vector>

#include "compare/compare.hpp"
#include "model/comparison.hpp"
#include "model/history.hpp"
#include "model/run.hpp"
#include "store/store.hpp"
#include "vcs/git.hpp"

namespace benchwatch::compare {

// The keys whose value differs between two environments, sorted by key: before is nullopt for
// a key added, after for a key removed.
std::vector<model::EnvironmentChange> environment_differences(const model::Environment& before,
                                                              const model::Environment& after);

// The steps in each benchmark's default-branch history (stats::detect_steps over its positive
// values, oldest first; the history is read as compare::history reads it, over the last `limit`
// runs or all with 0), each with the environment keys that differ between the first runs of the
// commits on either side. `benchmark` filters as in history().
model::HistoryChanges history_changes(store::Store& store, const vcs::Repository* repository,
                                      const HistorySource& source, const std::string& benchmark,
                                      std::size_t limit, const model::SeedRuleSettings& settings);

}  // namespace benchwatch::compare
