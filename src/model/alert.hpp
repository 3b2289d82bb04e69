#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/comparison.hpp"
#include "model/history.hpp"
#include "model/result.hpp"

namespace benchwatch::model {

// What an alert is about: one benchmark's step, or a step of much of the suite at one commit.
enum class AlertKind { Step, Suite };

// "step" or "suite", as an alert's marker spells it.
inline const char* to_string(AlertKind kind) {
    return kind == AlertKind::Step ? "step" : "suite";
}

// What names one alert on every machine: no machine in it, so that machines seeing the same step
// share one issue. Two keys are the same step when project, kind, benchmark and metric agree and
// their commit ranges (before_commit, after_commit] overlap.
struct AlertKey {
    std::string project;
    AlertKind kind = AlertKind::Step;
    std::string benchmark;      // empty for a suite event
    std::string metric;         // empty for a suite event
    std::string before_commit;  // the last commit of the old level
    std::string after_commit;   // the first commit of the new level

    friend bool operator==(const AlertKey&, const AlertKey&) = default;
};

// A lasting step in one machine's default-branch history (`history --changes`), as an alert
// issue describes it.
struct Alert {
    AlertKey key;
    std::string machine;  // whose history shows it
    std::string unit = "ns";
    Direction direction = Direction::SmallerIsBetter;
    double ratio = 1;    // new level / old level; for a suite event the median of its steps'
    int runs_after = 0;  // runs at the new level so far (for a suite event, its steps' most)
    int benchmarks = 0;  // suite event: benchmarks that stepped there
    int measured = 0;    // suite event: benchmarks measured on both sides
    std::vector<HistoryStep> steps;                      // suite event: its benchmarks' steps
    std::vector<EnvironmentChange> environment_changes;  // between the two commits' runs
    // Whether it is new enough (its new level began within the recent runs) and of a kind that
    // opens an issue when none exists; older steps only keep an issue already open.
    bool opens_issue = false;
    // The commits of before_commit..after_commit on the first-parent history, oldest first, when
    // the repository knows them; a single one is the commit that made the step.
    std::vector<std::string> range_commits;
    std::string culprit_subject;  // that single commit's subject, when known
};

}  // namespace benchwatch::model
