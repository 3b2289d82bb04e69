#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <set>

#include "cli/commands.hpp"
#include "cli/defaults.hpp"
#include "ingest/github_action_benchmark.hpp"
#include "store/store.hpp"

namespace benchwatch::cli {

namespace {

struct ImportFlags {
    CommonFlags common;
    std::string branch;
    std::string suite;
    std::string file;
};

const ingest::ImportedSuite& choose_suite(const ingest::ImportedHistory& history,
                                          const ImportFlags& flags) {
    std::vector<std::string_view> names;
    for (const auto& suite : history.suites) names.push_back(suite.name);
    if (history.suites.empty())
        throw UsageError(fmt::format("{}: the history holds no benchmark suites", flags.file));
    if (flags.suite.empty()) {
        if (history.suites.size() == 1) return history.suites.front();
        throw UsageError(
            fmt::format("{}: the history holds {} suites ('{}'); pass --suite with "
                        "one of them",
                        flags.file, names.size(), fmt::join(names, "', '")));
    }
    const auto named = std::find_if(history.suites.begin(), history.suites.end(),
                                    [&](const auto& suite) { return suite.name == flags.suite; });
    if (named == history.suites.end())
        throw UsageError(fmt::format("{}: no suite '{}'; the history holds '{}'", flags.file,
                                     flags.suite, fmt::join(names, "', '")));
    return *named;
}

int run_import_github_action_benchmark(const ImportFlags& flags) {
    // The whole file is read and checked before the store is opened, and every run is stored in
    // one transaction: a bad file or a failure half-way changes nothing.
    const ingest::ImportedHistory history =
        ingest::read_github_action_benchmark_history(flags.file);
    const ingest::ImportedSuite& suite = choose_suite(history, flags);
    const Context context = Context::discover(flags.common.repo);

    std::vector<model::Run> runs;
    std::set<std::string> benchmarks;
    for (const ingest::ImportedRun& imported : suite.runs) {
        if (imported.results.empty()) {
            std::cerr << fmt::format(
                "warning: {}: the entry of commit {} has no benches; skipped\n", flags.file,
                imported.commit);
            continue;
        }
        model::Run& run = runs.emplace_back();
        run.commit = imported.commit;
        run.recorded_at_ms = imported.date_ms;
        run.format = "github-action-benchmark";
        run.content_hash = fmt::format("{:016x}", imported.content_hash);
        run.results = imported.results;
        run.commit_info = imported.commit_info;
        run.environment = imported.environment;
        for (const model::Result& result : run.results) benchmarks.insert(result.benchmark);
    }
    if (runs.empty())
        throw UsageError(
            fmt::format("{}: suite '{}' has no entries with benches", flags.file, suite.name));

    const std::string project = resolve_project(flags.common, context);
    const std::string machine = resolve_machine(flags.common, context);
    const std::string branch =
        flags.branch.empty() ? resolve_default_branch_name("", context) : flags.branch;
    for (model::Run& run : runs) {
        run.project = project;
        run.machine = machine;
        run.branch = branch;
    }

    const auto store = store::open_store(resolve_store(flags.common, context));
    const std::vector<store::RecordOutcome> outcomes = store->record_all(runs);
    const auto inserted = std::count_if(outcomes.begin(), outcomes.end(),
                                        [](const auto& outcome) { return outcome.inserted; });
    std::cout << fmt::format(
        "imported {} of {} runs ({} benchmarks) from suite '{}' into project {}, machine {}, "
        "branch {}{}\n",
        inserted, runs.size(), benchmarks.size(), suite.name, project, machine, branch,
        inserted < static_cast<std::ptrdiff_t>(runs.size())
            ? fmt::format("; {} were already stored",
                          runs.size() - static_cast<std::size_t>(inserted))
            : "");
    return 0;
}

}  // namespace

Command add_import_command(CLI::App& parent) {
    auto flags = std::make_shared<ImportFlags>();
    auto* command = parent.add_subcommand("import", "Import a history kept by another tool");
    command->require_subcommand(1);
    auto* action_benchmark = command->add_subcommand(
        "github-action-benchmark",
        "Import github-action-benchmark's data.js (or its JSON) as default-branch runs");
    add_common_flags(*action_benchmark, flags->common);
    action_benchmark->add_option("--branch", flags->branch,
                                 "Branch to file the runs under (default: the default branch)");
    action_benchmark->add_option("--suite", flags->suite,
                                 "Suite to import when the history holds several");
    action_benchmark->add_option("FILE", flags->file, "The history: data.js or its JSON")
        ->required();
    return {command, [flags] { return run_import_github_action_benchmark(*flags); }};
}

}  // namespace benchwatch::cli
