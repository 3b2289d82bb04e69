#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <tuple>

#include "cli/commands.hpp"
#include "cli/known_names.hpp"
#include "report/report.hpp"
#include "store/run_file.hpp"
#include "store/store.hpp"
#include "vcs/branch_files.hpp"

namespace benchwatch::cli {

namespace {

struct HistoryBranchFlags {
    std::string store;
    std::string repo;
    std::string remote = "origin";
    std::string branch = "benchwatch-data";
    std::string project;  // empty: every project
    std::string machine;  // empty: every machine
    std::string default_branch;
    bool all_branches = false;  // push: every branch's runs, not the default branch's alone
};

std::string runs_phrase(std::size_t count) {
    return fmt::format("{} run{}", count, count == 1 ? "" : "s");
}

// The store and the branch a command works on, from its flags.
struct Endpoints {
    std::string store_url;
    std::unique_ptr<store::Store> store;
    vcs::FileBranch branch;
    store::RunFilter filter;
    std::string default_branch;  // the name runs of the default branch are recorded under
};

Endpoints open_endpoints(const HistoryBranchFlags& flags, store::Access access) {
    const auto context = Context::discover(flags.repo);
    if (!context.repository)
        throw UsageError(fmt::format(
            "history-branch: {} is not in a git repository; run it in a clone of the repository "
            "that holds the branch, or pass --repo DIR",
            flags.repo.empty() ? context.working_directory.string() : flags.repo));
    CommonFlags common{.store = flags.store, .project = {}, .machine = {}, .repo = flags.repo};
    const auto store_url = resolve_store(common, context);
    return {store_url, store::open_store(store_url, access),
            vcs::FileBranch(*context.repository, flags.remote, flags.branch),
            store::RunFilter{
                .project = flags.project, .machine = flags.machine, .branch = {}, .commits = {}},
            resolve_default_branch_name(flags.default_branch, context)};
}

// Paths on the branch of the runs the store already has.
std::set<std::string> stored_run_paths(store::Store& store, const store::RunFilter& filter) {
    std::set<std::string> paths;
    for (const auto& run : store.list_runs(filter)) paths.insert(store::run_file_path(run));
    return paths;
}

// Whether the run file at `path` ("runs/PROJECT/MACHINE/…") is of `machine` (empty: any).
bool is_of_machine(const std::string& path, const std::string& machine) {
    if (machine.empty()) return true;
    const auto folder = "/" + store::run_file_path_component(machine) + "/";
    const auto after_project = path.find('/', std::string_view("runs/").size());
    return after_project != std::string::npos &&
           path.compare(after_project, folder.size(), folder) == 0;
}

// Why the branch's entry `entry` is not read as a run file, or std::nullopt when it is read.
std::optional<std::string> reason_to_skip(const vcs::BranchEntry& entry) {
    if (entry.mode == "120000")
        return "is a symbolic link, not a run file; only regular files are read from the branch";
    if (!entry.regular_file())
        return fmt::format(
            "has git mode {}, not a regular file; only regular files are read "
            "from the branch",
            entry.mode);
    if (*entry.size > store::kMaxRunFileBytes)
        return fmt::format("is {:.1f} MiB, over the {} MiB a run file may be",
                           static_cast<double>(*entry.size) / (1 << 20),
                           store::kMaxRunFileBytes >> 20);
    return std::nullopt;
}

int pull(const HistoryBranchFlags& flags) {
    auto endpoints = open_endpoints(flags, store::Access::ReadWrite);
    const auto& branch = endpoints.branch;
    const auto tip = branch.fetch();
    if (!tip) {
        std::cout << fmt::format("{} does not exist yet: nothing to pull (push creates it)\n",
                                 branch.name());
        return 0;
    }
    const auto stored = stored_run_paths(*endpoints.store, endpoints.filter);
    std::vector<vcs::BranchEntry> to_read;
    std::size_t already_stored = 0;
    std::size_t skipped = 0;
    for (auto& entry : branch.entries(*tip, store::run_file_folder(flags.project, flags.machine))) {
        if (flags.project.empty() && !is_of_machine(entry.path, flags.machine)) continue;
        if (stored.contains(entry.path)) {
            ++already_stored;
        } else if (const auto reason = reason_to_skip(entry)) {
            std::cerr << "warning: "
                      << report::terminal_text(
                             fmt::format("{}:{} {}; skipped", branch.name(), entry.path, *reason))
                      << '\n';
            ++skipped;
        } else {
            to_read.push_back(std::move(entry));
        }
    }

    std::vector<model::Run> runs;
    runs.reserve(to_read.size());
    for (const auto& file : branch.read_blobs(to_read)) {
        const auto source = fmt::format("{}:{}", branch.name(), file.path);
        try {
            auto run = store::parse_run_file(file.content, source);
            if (const auto expected = store::run_file_path(run); expected != file.path)
                throw store::RunFileError(fmt::format(
                    "{}: holds a run of project '{}', machine '{}', commit {}, which belongs "
                    "at {}",
                    source, run.project, run.machine, run.commit, expected));
            runs.push_back(std::move(run));
        } catch (const store::RunFileError& error) {
            throw store::RunFileError(
                fmt::format("{}; nothing was pulled: fix or delete the file on {}", error.what(),
                            branch.name()));
        }
    }
    // Oldest first, so that the store numbers reruns of a commit in the order they happened.
    std::sort(runs.begin(), runs.end(), [](const model::Run& a, const model::Run& b) {
        return std::tie(a.recorded_at_ms, a.attempt) < std::tie(b.recorded_at_ms, b.attempt);
    });
    const auto outcomes = endpoints.store->record_all(runs);
    const auto added = static_cast<std::size_t>(std::count_if(
        outcomes.begin(), outcomes.end(), [](const auto& outcome) { return outcome.inserted; }));
    std::cout << fmt::format("pulled {} from {} ({} already stored{})\n", runs_phrase(added),
                             branch.name(), already_stored + (runs.size() - added),
                             skipped == 0 ? "" : fmt::format(", {} skipped", skipped));
    return 0;
}

int push(const HistoryBranchFlags& flags) {
    auto endpoints = open_endpoints(flags, store::Access::ReadOnly);
    auto& store = *endpoints.store;
    auto local_runs = store.list_runs(endpoints.filter);
    // A pull request's runs are judged against the default branch's, never part of its history.
    const auto of_other_branches =
        flags.all_branches ? 0 : std::erase_if(local_runs, [&](const model::Run& run) {
            return run.branch != endpoints.default_branch;
        });
    const auto left_out =
        of_other_branches == 0
            ? std::string()
            : fmt::format("; {} of other branches than {} left out (--all-branches pushes them)",
                          runs_phrase(of_other_branches),
                          report::terminal_text(endpoints.default_branch));
    // A project or machine the store has no runs of, while it has others, is a typo to name.
    if (local_runs.empty() && !store.projects().empty())
        require_known_filter(store, endpoints.store_url, flags.project, flags.machine);
    if (local_runs.empty()) {
        std::string which;
        if (!flags.project.empty()) which += fmt::format(" of project '{}'", flags.project);
        if (!flags.machine.empty()) which += fmt::format(" on machine '{}'", flags.machine);
        std::cout << fmt::format("nothing to push: the store has no {}runs{}{}\n",
                                 flags.all_branches ? "" : "default-branch ", which, left_out);
        return 0;
    }
    std::size_t runs_on_branch = 0;

    // Called once per attempt with what the branch has by then; reads results only of the runs
    // the branch lacks.
    const auto missing_files = [&](const std::set<std::string>& existing_paths) {
        std::vector<const model::Run*> missing;
        for (const auto& run : local_runs)
            if (!existing_paths.contains(store::run_file_path(run))) missing.push_back(&run);
        runs_on_branch = local_runs.size() - missing.size();
        std::vector<std::int64_t> ids;
        for (const auto* run : missing) ids.push_back(run->id);
        auto results = store.results(ids);
        std::vector<vcs::BranchFile> files;
        files.reserve(missing.size());
        for (const auto* run : missing) {
            auto complete = *run;
            complete.results = std::move(results[run->id]);
            files.push_back({store::run_file_path(complete), store::run_file_text(complete)});
        }
        return files;
    };
    const auto outcome =
        endpoints.branch.publish(missing_files, "benchwatch: add runs from the store");
    const auto& name = endpoints.branch.name();
    if (outcome.files_added == 0)
        std::cout << fmt::format("nothing to push: {} has all {} of the store{}\n", name,
                                 runs_phrase(local_runs.size()), left_out);
    else
        std::cout << fmt::format(
            "pushed {} to {}{}; {} already there{}\n", runs_phrase(outcome.files_added), name,
            outcome.attempts > 1
                ? fmt::format(" on attempt {} (another job pushed first)", outcome.attempts)
                : "",
            runs_on_branch, left_out);
    return 0;
}

void add_branch_flags(CLI::App& command, HistoryBranchFlags& flags) {
    command.add_option("--store", flags.store, "Store URL (default: BENCHWATCH_STORE, config)");
    command.add_option("--repo", flags.repo,
                       "The git repository whose remote holds the branch (default: here)");
    command.add_option("--remote", flags.remote, "The remote's name")->capture_default_str();
    command.add_option("--branch", flags.branch, "The branch that keeps the runs")
        ->capture_default_str();
    command.add_option("--project", flags.project, "Only this project's runs (default: all)");
    command.add_option("--machine", flags.machine, "Only this machine's runs (default: all)");
}

}  // namespace

Command add_history_branch_command(CLI::App& parent) {
    auto flags = std::make_shared<HistoryBranchFlags>();
    auto* command = parent.add_subcommand(
        "history-branch", "Keep the run history in a git branch between CI jobs (pull, push)");
    command->require_subcommand(1);
    auto* pull_command = command->add_subcommand(
        "pull", "Fetch the branch and store every run on it that the store lacks");
    auto* push_command = command->add_subcommand(
        "push",
        "Add the store's default-branch runs that the branch lacks to it, one file per run, and "
        "push");
    add_branch_flags(*pull_command, *flags);
    add_branch_flags(*push_command, *flags);
    push_command->add_flag("--all-branches", flags->all_branches,
                           "Push the runs of every branch, not only the default branch's");
    add_default_branch_flag(*push_command, flags->default_branch);
    return {command,
            [flags, pull_command] { return pull_command->parsed() ? pull(*flags) : push(*flags); }};
}

}  // namespace benchwatch::cli
