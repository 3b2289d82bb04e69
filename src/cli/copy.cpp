#include <fmt/format.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "cli/commands.hpp"
#include "cli/known_names.hpp"
#include "model/run_checks.hpp"
#include "report/progress.hpp"
#include "store/store.hpp"
#include "store/store_url.hpp"

namespace benchwatch::cli {

namespace {

struct CopyFlags {
    std::string from;
    std::string to;
    std::string project;
    std::string machine;
    bool no_progress = false;
};

// What makes two runs one run in a store: equal project, machine, commit and content hash.
using RunKey = std::tuple<std::string, std::string, std::string, std::string>;

RunKey key_of(const model::Run& run) {
    return {run.project, run.machine, run.commit, run.content_hash};
}

// Results loaded and written per transaction: a batch is the next runs whose stored results
// number at most kResultsPerBatch together, at least one run (a bigger run is a batch of its own)
// and at most kMaxRunsPerBatch. 50,000 results are about 9 MB in memory and one PostgreSQL
// transaction of roughly a second; copy's memory is that of its biggest batch, whatever the
// number of runs.
constexpr std::size_t kResultsPerBatch = 50'000;
constexpr std::size_t kMaxRunsPerBatch = 200;

// "1,000,000": digits grouped by three, whatever the locale.
std::string with_thousands(std::size_t count) {
    std::string digits = std::to_string(count);
    for (std::ptrdiff_t at = static_cast<std::ptrdiff_t>(digits.size()) - 3; at > 0; at -= 3)
        digits.insert(static_cast<std::size_t>(at), 1, ',');
    return digits;
}

// "1 run", "2 runs", "1,000 runs".
std::string counted(std::size_t count, std::string_view one, std::string_view many) {
    return fmt::format("{} {}", with_thousands(count), count == 1 ? one : many);
}

// The SQLite file a store URL names, made absolute, or empty for a PostgreSQL URL.
std::filesystem::path sqlite_path(const std::string& url) {
    constexpr std::string_view sqlite_prefix = "sqlite:";
    if (url.starts_with(sqlite_prefix))
        return std::filesystem::weakly_canonical(url.substr(sqlite_prefix.size()));
    if (!store::url_scheme(url).empty()) return {};
    return std::filesystem::weakly_canonical(url);
}

// Whether both URLs name one store: the same text, or one SQLite file spelt two ways.
bool same_store(const std::string& from, const std::string& to) {
    if (from == to) return true;
    const std::filesystem::path from_path = sqlite_path(from);
    return !from_path.empty() && from_path == sqlite_path(to);
}

// The runs of the source that the target lacks, oldest first, without results, and how many
// it already holds.
struct RunsToCopy {
    std::vector<model::Run> missing;
    std::size_t already_there = 0;
};

RunsToCopy runs_to_copy(store::Store& source, store::Store& target,
                        const store::RunFilter& filter) {
    std::set<RunKey> present;
    for (const model::Run& run : target.list_runs(filter)) present.insert(key_of(run));
    RunsToCopy runs;
    for (model::Run& run : source.list_runs(filter)) {
        if (present.contains(key_of(run)))
            ++runs.already_there;
        else
            runs.missing.push_back(std::move(run));
    }
    return runs;
}

// What a copy did, for its final line.
struct CopyTally {
    std::size_t copied_runs = 0;
    std::size_t copied_results = 0;
    std::size_t found_in_target = 0;  // stored by another process since the target was listed
    std::size_t renumbered = 0;       // copied with another attempt number than in the source
};

// How many of the runs at the start of `runs` make the next batch, from their result counts.
std::size_t next_batch_size(std::span<const model::Run> runs,
                            const std::unordered_map<std::int64_t, std::size_t>& result_counts) {
    std::size_t size = 0;
    std::size_t results = 0;
    for (const model::Run& run : runs.first(std::min(kMaxRunsPerBatch, runs.size()))) {
        const auto found = result_counts.find(run.id);
        const std::size_t count = found == result_counts.end() ? 0 : found->second;
        if (size > 0 && results + count > kResultsPerBatch) break;
        results += count;
        ++size;
    }
    return size;
}

// Loads the results of `batch` from `source` into copies of its runs and stores them in `target`
// in one transaction. The copies, results and all, are freed on return: the runs still to copy
// hold no results, so memory does not grow with the history.
// A run of `source` (shown as `shown_from`) that breaks the rules of every way in refuses the
// batch with model::results_problem()'s message, as `record` words it.
void copy_batch(store::Store& source, store::Store& target, std::span<const model::Run> batch,
                const std::string& shown_from, CopyTally& tally) {
    std::vector<std::int64_t> ids;
    for (const model::Run& run : batch) ids.push_back(run.id);
    std::vector<model::Run> loaded(batch.begin(), batch.end());
    {
        auto results = source.results(ids);
        for (model::Run& run : loaded) run.results = std::move(results.at(run.id));
    }
    for (const model::Run& run : loaded)
        if (auto problem = model::results_problem(
                run.results, fmt::format("store {}: run {} (project '{}', machine '{}', commit "
                                         "{})",
                                         shown_from, run.id, run.project, run.machine,
                                         run.commit.substr(0, 12))))
            throw store::StoreError(fmt::format(
                "{}; copy stopped there with {} copied before it: copy the other projects or "
                "machines with --project and --machine",
                *problem, counted(tally.copied_runs, "run", "runs")));
    const std::vector<store::RecordOutcome> outcomes = target.record_all(loaded);
    for (std::size_t i = 0; i < loaded.size(); ++i) {
        if (!outcomes[i].inserted) {
            ++tally.found_in_target;
            continue;
        }
        ++tally.copied_runs;
        tally.copied_results += loaded[i].results.size();
        if (outcomes[i].attempt != loaded[i].attempt) ++tally.renumbered;
    }
}

// "cuda/gpu-1 3f2a9c01d4e5": what the progress line shows for a run.
std::string progress_label(const model::Run& run) {
    return fmt::format("{}/{} {}", run.project, run.machine, run.commit.substr(0, 12));
}

// Makes glibc return every block of 128 KiB or more to the system when it is freed. By default
// glibc raises that threshold to the size of the largest block freed so far, so from the second
// batch on a batch's big vectors come from the heap, where the holes they leave grow the resident
// size with every batch (58 MiB for 8 runs of 40,000 results against 44 MiB for one) although
// the live heap does not grow.
void return_big_blocks_when_freed() {
#ifdef M_MMAP_THRESHOLD
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

int run_copy(const CopyFlags& flags) {
    return_big_blocks_when_freed();
    const std::string shown_from = store::without_credentials(flags.from);
    const std::string shown_to = store::without_credentials(flags.to);
    if (same_store(flags.from, flags.to))
        throw UsageError(fmt::format(
            "--from and --to both name the store {}; copy needs two different stores", shown_from));

    // The source is checked before the target is opened, so that a missing or unreachable
    // source leaves the target as it was (opening a store creates and migrates it).
    if (store::stored_schema_version(flags.from) == 0)
        throw UsageError(
            fmt::format("store {} holds no benchwatch history; check --from", shown_from));
    const auto source = store::open_store(flags.from, store::Access::ReadOnly);
    require_known_filter(*source, flags.from, flags.project, flags.machine);
    // Refused before opening: opening a SQLite file switches it to WAL mode before the store
    // reads its version, which would change the file.
    if (const int version = store::stored_schema_version(flags.to);
        version > store::current_schema_version())
        throw store::StoreError(fmt::format(
            "store {} has schema version {}, newer than this benchwatch ({}); upgrade benchwatch",
            shown_to, version, store::current_schema_version()));
    const auto target = store::open_store(flags.to);

    const store::RunFilter filter{flags.project, flags.machine, "", {}};
    RunsToCopy to_copy = runs_to_copy(*source, *target, filter);
    std::vector<model::Run>& runs = to_copy.missing;

    // On a terminal only: in CI logs a line per run would drown the final one.
    std::optional<report::Progress> progress;
    if (!flags.no_progress &&
        report::detect_progress_mode(STDERR_FILENO) == report::ProgressMode::Terminal)
        progress.emplace(std::cerr, report::ProgressMode::Terminal, runs.size(),
                         report::steady_seconds, report::terminal_columns(STDERR_FILENO));

    std::vector<std::int64_t> ids;
    for (const model::Run& run : runs) ids.push_back(run.id);
    const auto result_counts = source->result_counts(ids);

    // Oldest first, so that the target counts the same attempt numbers as the source did.
    CopyTally tally;
    for (std::size_t first = 0; first < runs.size();) {
        const std::span<const model::Run> rest = std::span<const model::Run>(runs).subspan(first);
        const std::span<const model::Run> batch = rest.first(next_batch_size(rest, result_counts));
        if (progress) progress->start(progress_label(batch.front()));
        copy_batch(*source, *target, batch, shown_from, tally);
        if (progress) {
            progress->complete();
            for (const model::Run& run : batch.subspan(1)) {
                progress->start(progress_label(run));
                progress->complete();
            }
        }
        first += batch.size();
    }
    if (progress) progress->finish();

    if (tally.renumbered > 0)
        std::cerr << fmt::format(
            "warning: {} of the copied runs got another attempt number in {}, which already held "
            "other runs of their commits\n",
            tally.renumbered, shown_to);
    std::cout << fmt::format("copied {} ({}) from {} to {}; {} already there\n",
                             counted(tally.copied_runs, "run", "runs"),
                             counted(tally.copied_results, "result", "results"), shown_from,
                             shown_to,
                             with_thousands(to_copy.already_there + tally.found_in_target));
    return 0;
}

}  // namespace

Command add_copy_command(CLI::App& parent) {
    auto flags = std::make_shared<CopyFlags>();
    auto* command = parent.add_subcommand(
        "copy", "Copy a whole run history from one store to another (SQLite or PostgreSQL)");
    command
        ->add_option("--from", flags->from,
                     "Store URL to read: a path, sqlite:PATH or postgres://…")
        ->required();
    command->add_option("--to", flags->to, "Store URL to write (created when missing)")->required();
    command->add_option("--project", flags->project, "Copy only this project's runs");
    command->add_option("--machine", flags->machine, "Copy only this machine's runs");
    command->add_flag("-q,--quiet,--no-progress", flags->no_progress,
                      "No progress line, even on a terminal");
    return {command, [flags] { return run_copy(*flags); }};
}

}  // namespace benchwatch::cli
