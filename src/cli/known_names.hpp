#pragma once

// The names a command reads from the store (projects, machines, benchmarks), checked before it
// reads: a name the store does not hold is one error line naming the store, the nearest known
// name when one is close enough to be a typo of it, and the names there are.

#include <optional>
#include <string>
#include <vector>

#include "cli/defaults.hpp"
#include "compare/compare.hpp"
#include "store/store.hpp"

namespace benchwatch::cli {

// Throws UsageError unless `store` (at `store_url`) has a run of `project`: "no project 'snapy'
// in STORE; did you mean 'snappy'? (projects: snappy, zlib)", the projects listed alone when
// none is near, and "which holds no runs yet" for an empty store.
void require_known_project(store::Store& store, const std::string& store_url,
                           const std::string& project);

// require_known_project(), then the same for `machine` among the machines with runs of
// `project`: "no machine 'ci-2' for project 'snappy' in STORE; …".
void require_known_machine(store::Store& store, const std::string& store_url,
                           const std::string& project, const std::string& machine);

// Throws UsageError unless `project` has results of the benchmark `name` (with
// `prefix_allowed`, also of one in the group it names, as `history array/` names several):
// "no benchmark 'BM_Nope' in project 'snappy' in STORE; …".
void require_known_benchmark(store::Store& store, const std::string& store_url,
                             const std::string& project, const std::string& name,
                             bool prefix_allowed);

// require_known_machine() of the history's project and machine, and require_known_benchmark()
// of `benchmark` unless it is empty.
void require_known_history(store::Store& store, const std::string& store_url,
                           const compare::HistorySource& source, const std::string& benchmark = "",
                           bool prefix_allowed = false);

// What a command reads on the machine it chooses.
enum class MachineUse {
    History,  // the default branch's runs alone (history, backtest, bisect)
    HeadRun,  // also the run of a head, recorded on this host unless a machine was named
};

// The machine a command reads when no --machine, BENCHWATCH_MACHINE or config machine names one,
// for a project `store` holds: its only machine; else, for `use` History, its only machine with
// runs on `source.default_branch` (the one serve shows), else `source.machine` (the host's name)
// when that has such runs or no machine has, and otherwise throws UsageError listing the
// machines that have them; else, for HeadRun, `source.machine`. Example: a project recorded on
// "ci-linux" alone is read on "ci-linux" whatever the host is called.
std::string history_machine(store::Store& store, const compare::HistorySource& source,
                            MachineUse use);

// require_known_history(), with the machine of `source` chosen by history_machine() first when
// `common` and the environment (named_machine()) name none.
void require_history_of_named_or_only_machine(store::Store& store, const std::string& store_url,
                                              compare::HistorySource& source,
                                              const CommonFlags& common, const Context& context,
                                              MachineUse use, const std::string& benchmark = "",
                                              bool prefix_allowed = false);

// The checks above for a filter of runs whose `project` and `machine` may each be empty (any):
// a machine without a project must have runs of some project.
void require_known_filter(store::Store& store, const std::string& store_url,
                          const std::string& project, const std::string& machine);

// The note `record` and `run` print when `project`'s first run went into a store whose
// `projects` (before it) are others: "this is the first run of project 'snappy2' in STORE,
// which holds 'snappy'; pass --project snappy to add to it", naming the nearest project; nullopt
// when the store held `project` already or nothing at all.
std::optional<std::string> first_run_note(const std::string& project,
                                          const std::vector<std::string>& projects,
                                          const std::string& store_url);

}  // namespace benchwatch::cli
