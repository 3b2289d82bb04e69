#include "cli/commit_measurer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <string_view>
#include <utility>

#include "cli/recording.hpp"
#include "ingest/assemble.hpp"
#include "model/environment_keys.hpp"
#include "model/printable.hpp"
#include "run/environment.hpp"
#include "run/instrument.hpp"
#include "run/timed_process.hpp"
#include "store/store.hpp"

namespace benchwatch::cli {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view recipe_help =
    "add a [measure] table to benchwatch.toml, e.g. build = \"cmake -S . -B build && cmake "
    "--build build\" and run = \"build/bench --benchmark_format=json\" (docs/measure.md)";

const MeasureConfig& measure_config(const Context& context, std::string_view command) {
    if (!context.repository)
        throw UsageError(fmt::format(
            "{} builds commits of a git repository; run it inside one or pass --repo", command));
    if (!context.config.measure)
        throw UsageError(fmt::format("{} needs to know how to build and measure a commit; {}",
                                     command, recipe_help));
    return *context.config.measure;
}

// Where the commits are checked out: [measure] worktrees (relative to the config file), else
// the repository's git folder, which no `git status` of the user's checkout lists.
fs::path commit_folders_root(const Context& context) {
    const auto& written = context.config.measure->worktrees;
    if (written.empty()) return context.repository->common_git_dir() / "benchwatch-worktrees";
    const fs::path path(written);
    return path.is_absolute() ? path
                              : context.config.directory_or(context.working_directory) / path;
}

}  // namespace

model::CommitId from_git(const std::string& sha) {
    return model::CommitId::check(sha, "git's list of commits");
}

bool counts_instructions(const MeasureConfig& measure, const Config& config) {
    if (!measure.instrument.empty()) return measure.instrument == "callgrind";
    return config.instrument == "callgrind";
}

run::Recipe recipe_of(const MeasureConfig& measure) {
    run::Recipe recipe;
    recipe.build = measure.build;
    recipe.suite = measure.run;
    recipe.results = measure.results;
    recipe.input_format = measure.input_format;
    recipe.subset = measure.benchmarks;
    if (measure.timeout_seconds)
        recipe.timeout = std::chrono::duration<double>(*measure.timeout_seconds);
    return recipe;
}

void keep_subset(const run::Recipe& recipe, std::string_view suite,
                 std::vector<model::Result>& results, bool& told) {
    const auto dropped = run::drop_outside_subset(recipe, results);
    if (dropped > 0 && results.empty())
        throw run::RecipeError(model::printable_line(fmt::format(
            "{} printed {} benchmark{}, none of them in [measure] benchmarks ({}); check the "
            "patterns against the names it prints",
            suite, dropped, dropped == 1 ? "" : "s", fmt::join(recipe.subset, ", "))));
    if (dropped == 0 || told) return;
    told = true;
    std::cerr << model::printable_line(fmt::format(
                     "note: {} printed {} benchmark{} outside [measure] benchmarks ({}); {} "
                     "dropped, not recorded",
                     suite, dropped, dropped == 1 ? "" : "s", fmt::join(recipe.subset, ", "),
                     dropped == 1 ? "it is" : "they are"))
              << '\n';
}

CommitMeasurer::CommitMeasurer(std::string_view command, const Context& context,
                               std::string project, std::string machine, std::string branch,
                               std::string store_url, const RunningFlags& running)
    : context_(context),
      project_(std::move(project)),
      machine_(std::move(machine)),
      branch_(std::move(branch)),
      store_url_(std::move(store_url)),
      recipe_(recipe_of(measure_config(context, command))),
      folders_(*context.repository, commit_folders_root(context),
               context.config.measure->worktrees_limit_bytes) {
    const std::vector<std::vector<std::string>> commands{run::shell_argv(recipe_.build),
                                                         run::shell_argv(recipe_.suite)};
    if (running.timeout_seconds)
        recipe_.timeout = std::chrono::duration<double>(*running.timeout_seconds);
    recipe_.instrumented = counts_instructions(*context.config.measure, context.config);
    if (recipe_.instrumented) valgrind_ = run::valgrind_version();
    compilers_ = context.config.compilers.value_or(run::default_compilers(commands));
    // A count does not depend on the machine's load or clock.
    if (!recipe_.instrumented) machine_warnings_ = run::machine_warnings();
}

fs::path CommitMeasurer::prepare(const model::CommitId& commit) {
    const auto& sha = commit.str();
    if (const auto found = prepared_.find(sha); found != prepared_.end()) {
        require_checkout(found->second, commit);
        return found->second;
    }
    // Said once, before the first build, rather than for a command refused before building.
    if (prepared_.empty())
        for (const auto& warning : machine_warnings_)
            std::cerr << "warning: " << warning.message << '\n';
    const auto folder = folders_.checkout(commit);
    run::build_commit(recipe_, folder, sha, {{"BENCHWATCH_COMMIT", sha}});
    require_checkout(folder, commit);
    prepared_.emplace(sha, folder);
    return folder;
}

void CommitMeasurer::require_checkout(const fs::path& folder, const model::CommitId& commit) const {
    if (!folders_.holds(folder, commit))
        throw run::RecipeError(fmt::format(
            "the checkout of {} in {} is gone: a step of the [measure] recipe removed it; change "
            "the recipe so that it leaves the folder it runs in",
            commit.str().substr(0, 12), folder.string()));
}

ingest::ParsedResults CommitMeasurer::measure(const model::CommitId& commit,
                                              std::span<const std::string> benchmarks) {
    const auto folder = prepare(commit);
    const auto& sha = commit.str();
    const auto cpu_before = run::read_cpu();
    auto parsed = run::run_suite(recipe_, folder, sha, {{"BENCHWATCH_COMMIT", sha}}, benchmarks);
    competing_[sha] = !recipe_.instrumented && context_.config.warn_on_competing_work
                          ? run::competing_work_since(cpu_before)
                          : std::nullopt;
    require_checkout(folder, commit);
    keep_subset(recipe_, fmt::format("the suite of {}", sha.substr(0, 12)), parsed.results,
                told_dropped_);
    for (const auto& warning : parsed.warnings)
        std::cerr << "warning: " << sha.substr(0, 12) << ": " << model::printable_line(warning)
                  << '\n';
    parsed.warnings.clear();
    return parsed;
}

void CommitMeasurer::record(const model::CommitId& commit, ingest::ParsedResults parsed) {
    model::Run run;
    run.results = std::move(parsed.results);
    run.format = parsed.format;
    run.content_hash = fmt::format("{:016x}", parsed.content_hash);
    const auto folder = prepare(commit);
    run.environment = run::capture_environment(folder, compilers_);
    for (auto& [key, value] : parsed.context) run.environment[key] = value;
    // Stored with the run as `run` stores them, so that the dashboard shows them too.
    const auto programs = run::harness_programs(
        parsed.program, run::command_words(run::shell_argv(recipe_.suite)), folder);
    auto machine = machine_warnings_;
    if (const auto found = competing_.find(commit.str());
        found != competing_.end() && found->second) {
        std::cerr << "warning: " << commit.str().substr(0, 12) << ": " << found->second->message
                  << '\n';
        machine.push_back(*found->second);
    }
    for (const auto& warning : run::run_warnings(machine, parsed.context, programs, run.results))
        run.warnings.push_back({run::to_string(warning.issue), warning.message});

    ingest::RunMetadata metadata;
    metadata.project = project_;
    metadata.machine = machine_;
    metadata.commit = commit.str();
    metadata.branch = branch_;
    metadata.environment.push_back(fmt::format("{}=no", model::dirty_key));
    if (const auto info = context_.repository->commit_info(commit.str()))
        metadata.commit_info = model::CommitInfo{info->message, info->author, info->timestamp, ""};
    metadata.recorded_at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
    run.environment.erase(std::string(model::dirty_key));
    ingest::apply_environment_facts(metadata.environment, run.environment);
    // Each commit's suite ran once, so that a `run --repetitions N` compared with it can say so.
    if (!recipe_.instrumented) run.environment[std::string(model::repetitions_key)] = "1";
    // A count depends on the valgrind that made it.
    if (recipe_.instrumented) run.environment["valgrind"] = valgrind_;
    store_run(std::move(run), metadata, store_url_);
}

std::set<std::string> CommitMeasurer::with_runs(const std::vector<std::string>& commits) const {
    std::set<std::string> measured;
    const auto store = store::open_store(store_url_);
    for (const auto& run : store->list_runs({project_, machine_, "", commits}))
        measured.insert(run.commit);
    return measured;
}

}  // namespace benchwatch::cli
