#include <fmt/format.h>

#include <iostream>
#include <iterator>
#include <memory>
#include <set>
#include <unordered_map>

#include "cli/commands.hpp"
#include "cli/defaults.hpp"
#include "cli/recording.hpp"
#include "ingest/ingest.hpp"

namespace benchwatch::cli {

namespace {

struct RecordFlags {
    RunFlags run;
    std::vector<std::string> files;
};

int run_record(const RecordFlags& flags) {
    // Everything is read and checked before the store is opened, so bad input changes nothing.
    model::Run run;
    std::vector<std::uint64_t> file_hashes;
    std::set<std::string> formats;
    // Which file each benchmark came from; only needed to name both files of a duplicate.
    std::unordered_map<std::string, std::string> first_file_of;
    for (const auto& file : flags.files) {
        auto parsed = ingest::parse_file(file, flags.run.format);
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
    apply_environment_flags(flags.run.environment, run.environment);
    run.format = fmt::format("{}", fmt::join(formats, "+"));
    run.content_hash = fmt::format("{:016x}", fmt::join(file_hashes, "-"));
    return store_run(std::move(run), flags.run, Context::discover(flags.run.common.repo));
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
    add_run_flags(*command, flags->run);
    command->add_option("FILE", flags->files, "Result files")->required();
    return {command, [flags] { return run_record(*flags); }};
}

}  // namespace benchwatch::cli
