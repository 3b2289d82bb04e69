#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <set>

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

// 64-bit FNV-1a over each file's size and bytes: equal inputs give equal hashes, so recording
// the same files for the same commit again is recognised.
class ContentHash {
  public:
    void add(std::string_view bytes) {
        add_bytes(std::to_string(bytes.size()));
        add_bytes(bytes);
    }
    std::string hex() const { return fmt::format("{:016x}", state_); }

  private:
    void add_bytes(std::string_view bytes) {
        for (const unsigned char byte : bytes) {
            state_ ^= byte;
            state_ *= 0x100000001b3ULL;
        }
    }
    std::uint64_t state_ = 0xcbf29ce484222325ULL;
};

std::pair<std::string, std::string> split_environment_flag(const std::string& flag) {
    const auto equals = flag.find('=');
    if (equals == std::string::npos || equals == 0)
        throw UsageError(fmt::format("--env '{}': expected KEY=VALUE", flag));
    return {flag.substr(0, equals), flag.substr(equals + 1)};
}

std::string read_whole_file(const std::string& path) {
    // ingest reads files itself; this copy only feeds the content hash.
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) return {};
    std::string bytes;
    char buffer[1 << 16];
    for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, file)) > 0;)
        bytes.append(buffer, got);
    std::fclose(file);
    return bytes;
}

int run_record(const RecordFlags& flags) {
    // Everything is read and checked before the store is opened, so bad input changes nothing.
    model::Run run;
    ContentHash hash;
    std::map<std::string, std::string> first_file_of;
    std::set<std::string> formats;
    for (const auto& file : flags.files) {
        auto parsed = ingest::parse_file(file, flags.format);
        hash.add(read_whole_file(file));
        for (const auto& warning : parsed.warnings) std::cerr << "warning: " << warning << '\n';
        for (auto& result : parsed.results) {
            const auto key = result.benchmark + '\n' + result.metric;
            const auto [previous, fresh] = first_file_of.emplace(key, file);
            if (!fresh)
                throw ingest::InputError(fmt::format(
                    "{}: benchmark '{}' is also in {}; record files of different suites, or "
                    "record them as separate runs",
                    file, result.benchmark, previous->second));
            run.results.push_back(std::move(result));
        }
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
    run.content_hash = hash.hex();
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
