#include "ingest/assemble.hpp"

#include <fmt/format.h>

#include <cassert>
#include <iterator>
#include <set>
#include <unordered_map>

#include "model/run_checks.hpp"

namespace benchwatch::ingest {

void apply_environment_facts(std::span<const std::string> facts, model::Environment& environment) {
    for (const auto& fact : facts) {
        const auto equals = fact.find('=');
        if (equals == std::string::npos || equals == 0)
            throw InputError(fmt::format("--env '{}': expected KEY=VALUE", fact));
        environment[fact.substr(0, equals)] = fact.substr(equals + 1);
    }
}

void apply_metadata(const RunMetadata& metadata, model::Run& run) {
    run.project = metadata.project;
    run.machine = metadata.machine;
    run.commit = metadata.commit;
    run.branch = metadata.branch;
    run.pull_request = metadata.pull_request;
    run.commit_info = metadata.commit_info;
    run.recorded_at_ms = metadata.recorded_at_ms;
}

model::Run assemble_run(std::vector<NamedResults> files, const RunMetadata& metadata) {
    assert(!files.empty());
    assert(!metadata.project.empty() && !metadata.machine.empty());
    assert(!metadata.commit.empty() && !metadata.branch.empty());
    if (auto problem = model::run_names_problem(metadata.project, metadata.machine, metadata.branch,
                                                "the run"))
        throw InputError(*problem);
    model::Run run;
    std::vector<std::uint64_t> file_hashes;
    std::set<std::string> formats;
    // Which file each benchmark came from; only needed to name both files of a duplicate.
    std::unordered_map<std::string, std::string> first_file_of;
    // One file's results become the run's as they are; several are gathered in one allocation.
    if (files.size() > 1) {
        std::size_t total = 0;
        for (const auto& file : files) total += file.parsed.results.size();
        run.results.reserve(total);
    }
    for (auto& [source, parsed] : files) {
        file_hashes.push_back(parsed.content_hash);
        if (files.size() > 1)
            for (const auto& result : parsed.results) {
                const auto [previous, fresh] =
                    first_file_of.emplace(result.benchmark + '\n' + result.metric, source);
                if (!fresh)
                    throw InputError(fmt::format(
                        "{}: benchmark '{}' is also in {}; record files of different suites, "
                        "or record them as separate runs",
                        source, result.benchmark, previous->second));
            }
        if (files.size() == 1)
            run.results = std::move(parsed.results);
        else
            std::move(parsed.results.begin(), parsed.results.end(),
                      std::back_inserter(run.results));
        for (auto& [key, value] : parsed.context) run.environment[key] = std::move(value);
        formats.insert(parsed.format);
    }
    apply_environment_facts(metadata.environment, run.environment);
    run.format = fmt::format("{}", fmt::join(formats, "+"));
    run.content_hash = fmt::format("{:016x}", fmt::join(file_hashes, "-"));
    apply_metadata(metadata, run);
    return run;
}

}  // namespace benchwatch::ingest
