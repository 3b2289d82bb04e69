#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/alert.hpp"
#include "model/history.hpp"

namespace benchwatch::compare {

// Which steps of a machine's default-branch history open an alert issue.
struct AlertRules {
    // A step opens an issue when its new level began within this many of the latest runs.
    std::size_t recent_runs = 20;
    // Whether a benchmark getting better opens one too; worse steps and suite events always do.
    bool improvements = false;
};

// Every step and suite event of `changes` (history_changes() of one machine) as an alert of
// `changes.project` seen on `changes.machine`, suite events first, each marked opens_issue when
// `rules` say it is new enough to open one. The repository's facts (range_commits,
// culprit_subject) are left empty.
std::vector<model::Alert> history_alerts(const model::HistoryChanges& changes,
                                         const AlertRules& rules);

// Whether the issue keyed `key` is about `alert`: the same project, kind, benchmark and metric,
// and the same first commit of the new level, or commit ranges (before, after] that overlap in
// the order of `commits` (the history's, oldest first), as when bisect's runs narrowed the range
// or another machine measured other commits.
bool same_step(const model::AlertKey& key, const model::Alert& alert,
               const std::vector<std::string>& commits);

// Whether the level of the step keyed `key` has returned in the history whose alerts are
// `alerts` (history_alerts() of a history of `commits`, oldest first): the history covers the
// step (it holds the step's first commit of the new level) and either no longer shows it (no
// alert is the same step, nor, for a benchmark's step, a suite event's step of that benchmark),
// or later steps of the same benchmark (of the suite, for a suite event) undid at least half of it,
// in log scale. A history that does not cover the step (another machine's, or one whose runs
// start later) says nothing: false.
bool level_returned(const model::AlertKey& key, const std::vector<model::Alert>& alerts,
                    const std::vector<std::string>& commits);

}  // namespace benchwatch::compare
