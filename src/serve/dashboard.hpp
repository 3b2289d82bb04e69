#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compare/method.hpp"
#include "compare/seed_method.hpp"
#include "model/category.hpp"
#include "model/comparison.hpp"
#include "model/history.hpp"
#include "model/result.hpp"
#include "store/store.hpp"
#include "vcs/git.hpp"

namespace benchwatch::serve {

// 16 lowercase hex digits naming `name` in URLs and file names (FNV-1a, 64 bits).
// Example: stable_id("") == "cbf29ce484222325".
std::string stable_id(std::string_view name);

// A default-branch commit with runs on one machine, as the dashboard shows it.
struct CommitPoint {
    std::string commit;
    // Its committer date (else its first run's recording time), at least 1 ms after the previous
    // commit's: commits of a rebased stack share one second, and a chart needs each point at its
    // own place on the time axis to find the points of a time range.
    std::int64_t time_ms = 0;
    std::string subject;  // the first line of its message; "" when unknown
    std::string author;   // "" when unknown
    std::string url;      // its page on the forge; "" when unknown
};

// One environment key whose value differs from the previous default-branch run's ("" when the
// key was absent there or is absent now).
struct KeyChange {
    std::string key;
    std::string from;
    std::string to;
};

// The keys that changed at one commit.
struct EnvironmentChange {
    std::size_t commit = 0;          // index into MachineHistory::commits
    std::vector<KeyChange> changes;  // sorted by key
};

// Where a benchmark stands, and why (docs/dashboard.md, "The badge").
using model::Trend;
using model::TrendReason;

// A trusted step of a benchmark's level that is no part of a suite event
// (compare::find_changes()).
struct SeriesStep {
    std::uint32_t commit = 0;         // the first commit of the new level (MachineHistory::commits)
    std::uint32_t before_commit = 0;  // the last commit of the old level
    double change = 0;                // new level / old level − 1
};

// A commit recorded off the default branch: a pull request's head.
struct PullRun {
    std::string commit;
    std::string branch;
    std::optional<std::int64_t> pull_request;
    std::int64_t time_ms = 0;  // its latest run
    std::string subject;       // the first line of its message; "" when unknown
    std::string author;        // "" when unknown
    std::string url;           // its page on the forge; "" when unknown
    // Where it branched off (MachineHistory::commits): the merge base with the default branch or
    // its nearest first-parent ancestor with runs when git knows the commit, else the last
    // default-branch commit first recorded before it; nullopt when there is none.
    std::optional<std::uint32_t> base;
};

// One benchmark's value at a pull request's head.
struct PullValue {
    std::uint32_t pull = 0;  // index into MachineHistory::pulls
    double value = 0;        // its runs combined by their best value, as history combines reruns
};

// One benchmark's values of one metric on one machine's default branch.
struct BenchmarkSeries {
    std::string id;  // stable_id of the name, or of "name\nmetric" for metrics other than time
    std::string name;
    std::string metric;
    std::string unit;
    model::Direction direction = model::Direction::SmallerIsBetter;
    std::string category;
    std::vector<std::uint32_t> commits;  // indices into MachineHistory::commits, ascending
    std::vector<double> values;          // parallel to commits
    // The seed rule's typical change as a fraction (0.012 is 1.2%); nullopt before a second run.
    std::optional<double> typical_change;
    // The relative change the latest run had to exceed for the badge (0 when it was not judged).
    double threshold = 0;
    // The smallest slowdown a pull request's report would flag now, by the configured method;
    // nullopt when the method cannot judge the benchmark at all (under two runs).
    std::optional<double> detectable_change;
    Trend trend = Trend::Stable;
    TrendReason trend_reason = TrendReason::None;
    double trend_change = 0;        // model::BenchmarkStanding::change
    bool retired = false;           // the machine's latest commit has no value for it
    std::vector<SeriesStep> steps;  // oldest first
    std::vector<PullValue> pulls;   // the pull requests' heads that measured it, newest first
};

// A step shared by much of the suite at one commit (compare::find_changes()).
struct SuiteEvent {
    std::uint32_t commit = 0;         // the first commit after it (MachineHistory::commits)
    std::uint32_t before_commit = 0;  // the last commit before it
    int benchmarks = 0;               // that stepped there
    int measured = 0;                 // with runs on both sides
    double change = 0;                // the median of their steps' ratios − 1
    std::vector<KeyChange> changes;   // environment keys that differ, sorted by key
};

// The default branch's history of one project on one machine.
struct MachineHistory {
    std::string name;
    std::string id;
    model::HistoryOrder order = model::HistoryOrder::Recorded;  // as in model::History
    std::vector<CommitPoint> commits;                           // oldest first
    std::vector<EnvironmentChange> environment_changes;         // oldest first
    std::vector<SuiteEvent> suite_events;                       // oldest first
    std::vector<BenchmarkSeries> benchmarks;  // by category (configured order), name, metric
    std::vector<PullRun> pulls;               // newest first, at most 100
    // False while the steps, suite events and badges are still those of the history before its
    // newest runs: DashboardLoader::update() shows new values before it has judged them.
    bool judged = true;
    // The id of the newest run of the project on this machine, any branch: it changes whenever
    // anything above may have.
    std::int64_t revision = 0;

    // The benchmark with this id, or null.
    const BenchmarkSeries* find_benchmark(std::string_view benchmark_id) const;
};

// Every machine's history of one project.
struct ProjectHistory {
    std::string name;
    std::string id;
    std::vector<MachineHistory> machines;  // sorted by name; only machines with default-branch runs
    std::string default_machine;           // the machine with the most default-branch commits

    // The machine called `machine_name`, or the default machine when it is empty; null when none.
    const MachineHistory* find_machine(std::string_view machine_name) const;
};

// Everything the dashboard shows, read from the store at one moment.
struct Dashboard {
    std::string default_branch;
    std::vector<ProjectHistory> projects;  // sorted by name
    std::int64_t last_run_id = 0;          // Store::last_run_id() when it was read
    // False for the dashboard DashboardLoader::update() shows before judging the new runs.
    bool judged = true;

    // The project called `name`, or null.
    const ProjectHistory* find_project(std::string_view name) const;
};

// What load_dashboard() needs besides the store.
struct DashboardOptions {
    std::string default_branch = "main";  // branch name runs were recorded with
    std::string default_branch_revision;  // as in compare::HistorySource
    compare::SeedSettings settings;
    // Whose detectable change cards show; a budget calibrates it on each machine's history.
    model::MethodChoice method = compare::default_choice(compare::default_method_name());
    std::vector<model::Category> categories = model::default_categories();
    // Commit pages as REPOSITORY_URL/commit/SHA for runs that do not carry one; "" for none.
    std::string repository_url;
};

// Reads every project's default-branch history on every machine, in the order compare::history
// gives (git's first-parent chain when `repository` knows the commits, else recording order),
// each commit placed at its committer date, without dirty runs,
// with each benchmark's category, typical change, retirement, its steps and suite events
// (compare::find_changes()) and its badge and detectable change (compare::standings()) by the
// configured method, the environment changes between consecutive runs that both recorded one,
// and the pull requests' heads. `repository` may be null. Throws store::StoreError when the store
// cannot be read.
Dashboard load_dashboard(store::Store& store, const vcs::Repository* repository,
                         const DashboardOptions& options);

// Reads the dashboard as load_dashboard() does, and again after more runs were recorded reading
// only those where it can. Uses `store` (and `repository`, which may be null) from one thread.
class DashboardLoader {
  public:
    DashboardLoader(store::Store& store, const vcs::Repository* repository,
                    DashboardOptions options);
    ~DashboardLoader();
    DashboardLoader(const DashboardLoader&) = delete;
    DashboardLoader& operator=(const DashboardLoader&) = delete;

    // load_dashboard() of the store now. Throws store::StoreError when it cannot be read.
    Dashboard load();

    // What load() would return now, built from `previous` (the dashboard this loader returned
    // last) and the runs recorded since, of which only the results are read: the histories,
    // steps, suite events, badges and pull requests of the machines with new runs are worked
    // out again from what `previous` and the loader hold; the other machines are copied. A
    // machine whose history cannot be extended (a commit entered its default branch before the
    // newest, a unit changed) is read whole; the whole store is, as load() does, when `previous`
    // is another, the schema version changed, the newest id went down or a run was deleted.
    // When `show_unjudged` is given, it is first handed the dashboard the new runs make
    // before they are judged: their values in every series, each extended machine keeping the
    // steps, suite events and badges of `previous` (judging them is most of an update's time).
    // `previous` must be a judged dashboard. Throws store::StoreError when the store cannot be
    // read.
    Dashboard update(const Dashboard& previous,
                     const std::function<void(Dashboard)>& show_unjudged = {});

    // Whether the last load() or update() read the whole store.
    bool read_whole() const { return read_whole_; }

    // How many machines update() read whole since the loader was made.
    std::size_t machines_read_whole() const { return machines_read_whole_; }

  private:
    struct State;

    Dashboard assemble(const Dashboard* previous, std::int64_t last_run_id,
                       const std::function<std::optional<MachineHistory>(
                           const std::string& project, const std::string& machine,
                           const MachineHistory* before)>& machine_of);

    store::Store& store_;
    const vcs::Repository* repository_;
    DashboardOptions options_;
    std::unique_ptr<State> state_;
    bool read_whole_ = true;
    std::size_t machines_read_whole_ = 0;
};

}  // namespace benchwatch::serve
