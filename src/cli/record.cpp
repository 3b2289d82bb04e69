#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <iterator>
#include <memory>
#include <set>
#include <unordered_map>

#include "cli/commands.hpp"
#include "cli/defaults.hpp"
#include "ingest/ingest.hpp"
#include "store/store.hpp"

namespace benchwatch::cli {

namespace {

struct RecordFlags {
    CommonFlags common;
    std::string commit;
    std::string branch;
    std::optional<std::int64_t> pull_request;
    std::vector<std::string> environment;
    std::string format = "auto";
    std::vector<std::string> files;
};

std::pair<std::string, std::string> split_environment_flag(const std::string& flag) {
    const auto equals = flag.find('=');
    if (equals == std::string::npos || equals == 0)
        throw UsageError(fmt::format("--env '{}': expected KEY=VALUE", flag));
    return {flag.substr(0, equals), flag.substr(equals + 1)};
}

int run_record(const RecordFlags& flags) {
    // Everything is read and checked before the store is opened, so bad input changes nothing.
    model::Run run;
    std::vector<std::uint64_t> file_hashes;
    std::set<std::string> formats;
    // Which file each benchmark came from; only needed to name both files of a duplicate.
    std::unordered_map<std::string, std::string> first_file_of;
    for (const auto& file : flags.files) {
        auto parsed = ingest::parse_file(file, flags.format);
        file_hashes.push_back(parsed.content_hash);
        for (const auto& warning : parsed.warnings) std::cerr << "warning: " << warning << '\n';
        if (flags.files.size() > 1)
            for (const auto& result : parsed.results) {
                const auto [previous, fresh] =
                    first_file_of.emplace(result.benchmark + '\n' + result.metric, file);
                if (!fresh)
                    throw ingest::InputError(fmt::format(
                        "{}: benchmark '{}' is also in {}; record files of different suites, "
                        "or record them as separate runs",
                        file, result.benchmark, previous->second));
            }
        std::move(parsed.results.begin(), parsed.results.end(), std::back_inserter(run.results));
        for (auto& [key, value] : parsed.context) run.environment[key] = std::move(value);
        formats.insert(parsed.format);
    }
    for (const auto& flag : flags.environment) {
        auto [key, value] = split_environment_flag(flag);
        run.environment[key] = value;
    }

    const auto context = Context::discover(flags.common.repo);
    run.project = resolve_project(flags.common, context);
    run.machine = resolve_machine(flags.common, context);
    run.commit = resolve_commit(flags.commit, context);
    run.branch = resolve_branch(flags.branch, context);
    run.pull_request = resolve_pull_request(flags.pull_request);
    run.format = fmt::format("{}", fmt::join(formats, "+"));
    run.content_hash = fmt::format("{:016x}", fmt::join(file_hashes, "-"));
    run.recorded_at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();

    const auto store = store::open_store(resolve_store(flags.common, context));
    const auto outcome = store->record(run);
    const auto short_commit = run.commit.substr(0, 9);
    if (outcome.inserted)
        std::cout << fmt::format(
            "recorded run {} of {} (project {}, machine {}, branch {}, attempt {}, {} result{})\n",
            outcome.run_id, short_commit, run.project, run.machine, run.branch, outcome.attempt,
            run.results.size(), run.results.size() == 1 ? "" : "s");
    else
        std::cout << fmt::format("already recorded: run {} of {} holds these results\n",
                                 outcome.run_id, short_commit);
    return 0;
}

}  // namespace

void add_common_flags(CLI::App& command, CommonFlags& flags) {
    command.add_option("--store", flags.store,
                       "Store URL: a path or sqlite:PATH (default .benchwatch/history.db)");
    command.add_option("--project", flags.project, "Project name");
    command.add_option("--machine", flags.machine, "Machine the runs come from (default: host)");
    command.add_option("--repo", flags.repo, "Git work tree (default: working directory)");
}

Command add_record_command(CLI::App& parent) {
    auto flags = std::make_shared<RecordFlags>();
    auto* command = parent.add_subcommand("record", "Store benchmark results as one run");
    add_common_flags(*command, flags->common);
    command->add_option("--commit", flags->commit, "Commit the results belong to (default: HEAD)");
    command->add_option("--branch", flags->branch, "Branch of the commit (default: current)");
    command->add_option("--pull-request", flags->pull_request, "Pull-request number");
    command->add_option("--env", flags->environment, "Environment fact KEY=VALUE (repeatable)");
    command->add_option("--format", flags->format, "Input format: auto or a format name");
    command->add_option("FILE", flags->files, "Result files")->required();
    return {command, [flags] { return run_record(*flags); }};
}

}  // namespace benchwatch::cli
