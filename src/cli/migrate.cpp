#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "store/store.hpp"
#include "store/store_url.hpp"

namespace benchwatch::cli {

namespace {

struct MigrateFlags {
    CommonFlags common;
    bool check = false;
};

int run_migrate(const MigrateFlags& flags) {
    const auto context = Context::discover(flags.common.repo);
    const std::string url = resolve_store(flags.common, context);
    const std::string shown_url = store::without_credentials(url);
    const int current = store::current_schema_version();
    const int before = store::stored_schema_version(url);
    // A newer schema is refused by opening, with the store's own message.
    if (before > current) store::open_store(url);

    if (flags.check) {
        if (before == current) {
            std::cout << fmt::format("store {}: at schema version {}, nothing to migrate\n",
                                     shown_url, current);
            return 0;
        }
        std::cout << fmt::format(
            "store {}: at schema version {}, migrations to version {} pending; run benchwatch "
            "migrate\n",
            shown_url, before, current);
        return 1;
    }

    const int after = store::open_store(url)->schema_version();
    if (after == before)
        std::cout << fmt::format("store {}: already at schema version {}\n", shown_url, after);
    else
        std::cout << fmt::format("store {}: schema version {} (migrated from {})\n", shown_url,
                                 after, before);
    return 0;
}

}  // namespace

Command add_migrate_command(CLI::App& parent) {
    auto flags = std::make_shared<MigrateFlags>();
    auto* command = parent.add_subcommand(
        "migrate", "Bring the store's schema up to this version of benchwatch");
    command->add_option("--store", flags->common.store,
                        "Store URL: a path, sqlite:PATH or postgres://… "
                        "(default .benchwatch/history.db)");
    command->add_option("--repo", flags->common.repo,
                        "Git work tree whose benchwatch.toml names the store (default: working "
                        "directory)");
    command->add_flag("--check", flags->check,
                      "Change nothing; exit 1 when migrations are pending");
    return {command, [flags] { return run_migrate(*flags); }};
}

}  // namespace benchwatch::cli
