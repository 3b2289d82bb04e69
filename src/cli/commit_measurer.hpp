#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/config.hpp"
#include "cli/defaults.hpp"
#include "ingest/ingest.hpp"
#include "model/commit_id.hpp"
#include "run/recipe.hpp"
#include "run/stability.hpp"
#include "vcs/commit_folders.hpp"

namespace benchwatch::cli {

// `sha`, a commit as git rev-parse or rev-list printed it, as a commit id; throws
// model::CommitIdError (naming git as its origin) for anything else.
model::CommitId from_git(const std::string& sha);

// The recipe `measure` describes, its subset included (not whether it counts instructions).
run::Recipe recipe_of(const MeasureConfig& measure);

// Whether the recipe `measure` counts instructions under callgrind: its own `instrument`, else
// the [run] instrument of `config`.
bool counts_instructions(const MeasureConfig& measure, const Config& config);

// Drops the benchmarks outside `recipe`'s subset from `results`, what `suite` ("the suite of
// 3f2a9c01d4e5") printed, and, the first time any are dropped while `told` is false, says how
// many on standard error and sets `told`. Throws run::RecipeError when that leaves no result.
void keep_subset(const run::Recipe& recipe, std::string_view suite,
                 std::vector<model::Result>& results, bool& told);

// What `backfill` and `bisect` both do to a commit: check it out in a folder of its own, build
// it and run its suite with benchwatch.toml's [measure] recipe, and record a run of it as `run`
// records one (environment, compilers, stability warnings, the commit's message and date).
class CommitMeasurer {
  public:
    // Measures commits of `context`'s repository, whose config must have a [measure] table
    // (throws UsageError saying what `command` needs otherwise), as runs of `project` on
    // `machine` on `branch`, stored in `store_url`; `running`'s --timeout replaces the recipe's
    // timeout. The machine's stability warnings, taken now before anything runs, are printed
    // before the first build; whether other work competed is measured while each suite runs.
    CommitMeasurer(std::string_view command, const Context& context, std::string project,
                   std::string machine, std::string branch, std::string store_url,
                   const RunningFlags& running);

    // Checks out and builds `commit`, once per measurer. Throws run::RecipeError when the build
    // fails or removes the folder it ran in, vcs::GitError when the commit cannot be checked out.
    std::filesystem::path prepare(const model::CommitId& commit);

    // Runs the suite of `commit` once, prepared first when it is not; a recipe with
    // "{benchmarks}" runs only `benchmarks` (empty: the [measure] benchmarks, or all). Results
    // outside the [measure] benchmarks are dropped (keep_subset()). Throws run::RecipeError or
    // ingest::InputError when the suite fails or prints no results, or the commit's folder is
    // gone.
    ingest::ParsedResults measure(const model::CommitId& commit,
                                  std::span<const std::string> benchmarks = {});

    // Records `parsed`, a measurement of `commit`, as a run in the store, and prints the
    // "recorded run …" line.
    void record(const model::CommitId& commit, ingest::ParsedResults parsed);

    // The commits among `commits` that already have a run of this project and machine.
    std::set<std::string> with_runs(const std::vector<std::string>& commits) const;

    // True when `benchmark` lies within the [measure] benchmarks (all do without any).
    bool in_subset(std::string_view benchmark) const { return run::in_subset(recipe_, benchmark); }

    // The [measure] benchmarks' patterns; empty: every benchmark.
    const std::vector<std::string>& subset() const { return recipe_.subset; }

  private:
    // Throws run::RecipeError unless `folder` still holds the checkout of `commit`.
    void require_checkout(const std::filesystem::path& folder, const model::CommitId& commit) const;

    const Context& context_;
    std::string project_;
    std::string machine_;
    std::string branch_;
    std::string store_url_;
    run::Recipe recipe_;
    vcs::CommitFolders folders_;
    std::vector<std::string> compilers_;
    std::vector<run::StabilityWarning> machine_warnings_;
    std::map<std::string, std::filesystem::path> prepared_;
    // Per commit: the warning that other work competed with its latest measure(), if it did.
    std::map<std::string, std::optional<run::StabilityWarning>> competing_;
    bool told_dropped_ = false;  // the note on benchmarks outside the subset was printed
    std::string valgrind_;       // its version, when the recipe counts instructions
};

}  // namespace benchwatch::cli
