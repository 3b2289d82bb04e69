#include "serve/site.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "store/store.hpp"

namespace benchwatch::cli {

namespace {

struct SiteFlags {
    CommonFlags common;
    std::string default_branch;
    std::string folder;
};

int run_site(const SiteFlags& flags) {
    const auto context = Context::discover(flags.common.repo);
    const serve::DashboardOptions options =
        resolve_dashboard_options(flags.default_branch, context);
    const auto store =
        store::open_store(resolve_store(flags.common, context), store::Access::ReadOnly);
    const auto* repository = context.repository ? &*context.repository : nullptr;
    const serve::Dashboard dashboard = serve::load_dashboard(*store, repository, options);
    if (dashboard.projects.empty())
        throw UsageError(
            fmt::format("the store has no default-branch runs (branch '{}') to show; "
                        "record runs with --branch {} first",
                        options.default_branch, options.default_branch));
    const auto summary = serve::write_site(dashboard, flags.folder);
    std::size_t benchmarks = 0;
    for (const auto& project : dashboard.projects)
        for (const auto& machine : project.machines) benchmarks += machine.benchmarks.size();
    std::cout << fmt::format(
                     "wrote {} files ({:.1f} MB) for {} project{}, {} benchmark series "
                     "into {}",
                     summary.files, static_cast<double>(summary.bytes) / 1e6,
                     dashboard.projects.size(), dashboard.projects.size() == 1 ? "" : "s",
                     benchmarks, flags.folder)
              << '\n';
    return 0;
}

}  // namespace

Command add_site_command(CLI::App& parent) {
    auto flags = std::make_shared<SiteFlags>();
    auto* command = parent.add_subcommand(
        "site", "Write the history dashboard with its data as static files (GitHub Pages)");
    add_common_flags(*command, flags->common);
    add_default_branch_flag(*command, flags->default_branch);
    command->add_option("OUT", flags->folder, "Folder to write the site into")->required();
    return {command, [flags] { return run_site(*flags); }};
}

}  // namespace benchwatch::cli
