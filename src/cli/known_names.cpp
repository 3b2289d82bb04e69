#include "cli/known_names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "cli/command_line.hpp"
#include "cli/defaults.hpp"
#include "compare/runs.hpp"
#include "store/store_url.hpp"

namespace benchwatch::cli {

namespace {

// Names listed in one message at most; the rest are counted.
constexpr std::size_t listed_names = 10;

bool contains(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

// "a, b, c", or "a, …, j, and 40 more".
std::string names_listed(const std::vector<std::string>& names) {
    std::vector<std::string> shown;
    for (std::size_t i = 0; i < names.size() && i < listed_names; ++i)
        shown.push_back(terminal_safe(names[i]));
    const auto more = names.size() - shown.size();
    return fmt::format("{}{}", fmt::join(shown, ", "),
                       more == 0 ? std::string() : fmt::format(", and {} more", more));
}

// "projects: a, b, c", or "benchmarks: a, …, j, and 40 more".
std::string listing(std::string_view kind, const std::vector<std::string>& names) {
    return fmt::format("{}: {}", kind, names_listed(names));
}

[[noreturn]] void unknown(std::string_view kind, const std::string& name, std::string_view where,
                          const std::vector<std::string>& known, std::string_view kinds) {
    const auto subject = fmt::format("no {} '{}' {}", kind, shown_input(name), where);
    throw UsageError(with_suggestion(subject, name, known, listing(kinds, known)));
}

std::string shown_store(const std::string& store_url) {
    return terminal_safe(store::without_credentials(store_url));
}

}  // namespace

void require_known_project(store::Store& store, const std::string& store_url,
                           const std::string& project) {
    const auto projects = store.projects();
    if (contains(projects, project)) return;
    if (projects.empty())
        throw UsageError(fmt::format(
            "no project '{}' in {}, which holds no runs yet; record runs first (benchwatch "
            "record or run)",
            shown_input(project), shown_store(store_url)));
    unknown("project", project, "in " + shown_store(store_url), projects, "projects");
}

void require_known_machine(store::Store& store, const std::string& store_url,
                           const std::string& project, const std::string& machine) {
    require_known_project(store, store_url, project);
    const auto machines = store.machines(project);
    if (contains(machines, machine)) return;
    unknown("machine", machine,
            fmt::format("for project '{}' in {}", shown_input(project), shown_store(store_url)),
            machines, "machines");
}

void require_known_benchmark(store::Store& store, const std::string& store_url,
                             const std::string& project, const std::string& name,
                             bool prefix_allowed) {
    const auto benchmarks = store.benchmark_names(project);
    const bool known =
        std::any_of(benchmarks.begin(), benchmarks.end(), [&](const std::string& benchmark) {
            return prefix_allowed ? compare::detail::selected(benchmark, name) : benchmark == name;
        });
    if (known) return;
    unknown("benchmark", name,
            fmt::format("in project '{}' in {}", shown_input(project), shown_store(store_url)),
            benchmarks, "benchmarks");
}

void require_known_history(store::Store& store, const std::string& store_url,
                           const compare::HistorySource& source, const std::string& benchmark,
                           bool prefix_allowed) {
    require_known_machine(store, store_url, source.project, source.machine);
    if (!benchmark.empty())
        require_known_benchmark(store, store_url, source.project, benchmark, prefix_allowed);
}

std::string history_machine(store::Store& store, const compare::HistorySource& source,
                            MachineUse use) {
    const auto machines = store.machines(source.project);
    if (machines.size() == 1) return machines.front();
    // A head is compared on the machine it ran on, which is this host unless named.
    if (use == MachineUse::HeadRun) return source.machine;
    std::vector<std::string> with_history;
    for (const auto& machine : machines)
        if (!store
                 .list_runs({.project = source.project,
                             .machine = machine,
                             .branch = source.default_branch,
                             .commits = {},
                             .after_id = 0,
                             .outline = true})
                 .empty())
            with_history.push_back(machine);
    if (with_history.size() == 1) return with_history.front();
    if (with_history.empty() || contains(with_history, source.machine)) return source.machine;
    throw UsageError(fmt::format(
        "no default-branch history for project '{}' on machine '{}' (the host's name, as neither "
        "--machine, BENCHWATCH_MACHINE nor the config names a machine); pass --machine with one "
        "of those with runs on {}: {}",
        shown_input(source.project), shown_input(source.machine),
        shown_input(source.default_branch), names_listed(with_history)));
}

void require_history_of_named_or_only_machine(store::Store& store, const std::string& store_url,
                                              compare::HistorySource& source,
                                              const CommonFlags& common, const Context& context,
                                              MachineUse use, const std::string& benchmark,
                                              bool prefix_allowed) {
    if (!named_machine(common, context)) {
        require_known_project(store, store_url, source.project);
        source.machine = history_machine(store, source, use);
    }
    require_known_history(store, store_url, source, benchmark, prefix_allowed);
}

void require_known_filter(store::Store& store, const std::string& store_url,
                          const std::string& project, const std::string& machine) {
    if (!project.empty() && !machine.empty())
        return require_known_machine(store, store_url, project, machine);
    if (!project.empty()) return require_known_project(store, store_url, project);
    if (machine.empty()) return;
    std::vector<std::string> machines;
    for (const auto& each : store.projects())
        for (auto& name : store.machines(each)) machines.push_back(std::move(name));
    std::sort(machines.begin(), machines.end());
    machines.erase(std::unique(machines.begin(), machines.end()), machines.end());
    if (contains(machines, machine)) return;
    unknown("machine", machine, "in " + shown_store(store_url), machines, "machines");
}

namespace {

// `name` as a shell word: as it is when it needs no quoting, else in single quotes.
std::string shell_word(const std::string& name) {
    const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return std::isalnum(byte) || std::string_view("._+-/:@=,").find(c) != std::string::npos;
    });
    return plain ? name : "'" + shown_input(name) + "'";
}

}  // namespace

std::optional<std::string> first_run_note(const std::string& project,
                                          const std::vector<std::string>& projects,
                                          const std::string& store_url) {
    if (projects.empty() || contains(projects, project)) return std::nullopt;
    const auto nearest = *closest_word(project, projects);
    const auto others = projects.size() - 1;
    return fmt::format(
        "this is the first run of project '{}' in {}, which holds '{}'{}; pass --project {} to "
        "add to it",
        shown_input(project), shown_store(store_url), shown_input(nearest),
        others == 0 ? std::string()
                    : fmt::format(" and {} other project{}", others, others == 1 ? "" : "s"),
        shell_word(nearest));
}

}  // namespace benchwatch::cli
