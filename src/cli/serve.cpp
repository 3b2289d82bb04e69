#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <thread>
#include <variant>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/known_names.hpp"
#include "compare/compare.hpp"
#include "report/report.hpp"
#include "serve/server.hpp"
#include "store/store.hpp"
#include "store/store_url.hpp"

namespace benchwatch::cli {

namespace {

struct ServeFlags {
    CommonFlags common;
    std::string default_branch;
    std::string listen = "127.0.0.1:8080";
    int refresh_ms = 1000;
    bool allow_upload = false;
    std::string token_file;
    std::vector<std::string> upload_projects;
    std::size_t max_upload_bytes = serve::default_max_upload_bytes;
    std::size_t upload_writers = 0;  // 0: 8 on PostgreSQL, 1 on SQLite
    std::vector<std::string> allowed_hosts;
};

// How many store connections uploads may write through at once: PostgreSQL stores runs of
// different commits in parallel, while SQLite lets one writer in at a time, so more connections
// there would only wait for its lock.
std::size_t upload_writers(const ServeFlags& flags, const std::string& store_url) {
    if (flags.upload_writers > 0) return flags.upload_writers;
    return store::url_scheme(store_url).starts_with("postgres") ? 8 : 1;
}

// The upload receiver the flags ask for, or null without --allow-upload.
std::shared_ptr<serve::UploadReceiver> upload_receiver(const ServeFlags& flags,
                                                       const std::string& store_url) {
    if (!flags.allow_upload) {
        if (!flags.token_file.empty() || !flags.upload_projects.empty())
            throw UsageError(
                "--token-file and --upload-project take effect with --allow-upload; "
                "add it to accept uploads");
        return nullptr;
    }
    if (flags.token_file.empty())
        throw UsageError(
            "--allow-upload needs --token-file FILE, the file holding the token "
            "uploaders must send");
    const serve::TokenFile token = serve::read_token_file(flags.token_file);
    if (token.warning) std::cerr << "warning: " << *token.warning << '\n';
    serve::UploadSettings settings;
    settings.token = token.token;
    settings.extra_projects = {flags.upload_projects.begin(), flags.upload_projects.end()};
    settings.max_bytes = flags.max_upload_bytes;
    settings.writers = upload_writers(flags, store_url);
    settings.open_writer = [store_url] { return store::open_store(store_url); };
    return std::make_shared<serve::UploadReceiver>(std::move(settings));
}

// Refuses a --project the store has no runs of and uploads may not create, naming those it has.
void check_project(store::Store& store, const ServeFlags& flags, const std::string& store_url) {
    const std::string& project = flags.common.project;
    if (project.empty()) return;
    if (std::find(flags.upload_projects.begin(), flags.upload_projects.end(), project) !=
        flags.upload_projects.end())
        return;
    require_known_project(store, store_url, project);
}

std::string lowercase(std::string_view text) {
    std::string lower(text);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lower;
}

// Shortest commit prefix /pulls/COMMIT accepts, as compare does.
constexpr std::size_t shortest_pull_prefix = 7;

// The commit of `runs` (recording order) that `revision`, sent by a client, names: a commit with
// runs, else the newest commit recorded on a branch of that name, else the only commit with runs
// that starts with it (at least 7 characters, any case). Taken from the store's runs alone, so
// that git never resolves a client's text (an unpushed branch, a reflog entry) and nothing but
// what the client sent is named in an answer; an error response when no commit fits.
std::variant<std::string, serve::Response> recorded_commit(const std::vector<model::Run>& runs,
                                                           const std::string& project,
                                                           const std::string& machine,
                                                           const std::string& revision) {
    for (const auto& run : runs)
        if (run.commit == revision) return run.commit;
    for (auto run = runs.rbegin(); run != runs.rend(); ++run)
        if (run->branch == revision) return run->commit;
    std::set<std::string> matches;
    if (revision.size() >= shortest_pull_prefix) {
        const std::string prefix = lowercase(revision);
        for (const auto& run : runs)
            if (lowercase(run.commit).starts_with(prefix)) matches.insert(run.commit);
    }
    if (matches.size() == 1) return *matches.begin();
    if (matches.size() > 1)
        return serve::error_response(
            404, fmt::format("commit prefix '{}' matches {} commits with runs of project '{}' on "
                             "machine '{}'; give more digits",
                             revision, matches.size(), project, machine));
    return serve::error_response(
        404, fmt::format("no run of commit or branch '{}' for project '{}' on machine '{}'; GET "
                         "/api/v1/projects/{}/pulls lists the pull requests' heads",
                         revision, project, machine, project));
}

// Answers /pulls/REVISION with the comparison `compare --format json` would print, for a commit
// of the store's runs only (recorded_commit()).
serve::Response compare_pull(store::Store& store, const vcs::Repository* repository,
                             const Context& context, const serve::DashboardOptions& options,
                             const std::string& project, const std::string& machine,
                             const std::string& revision) {
    store::RunFilter filter;
    filter.project = project;
    filter.machine = machine;
    auto commit = recorded_commit(store.list_runs(filter), project, machine, revision);
    if (auto* refusal = std::get_if<serve::Response>(&commit)) return std::move(*refusal);
    compare::CompareOptions compare_options;
    compare_options.source = {project, machine, options.default_branch,
                              options.default_branch_revision};
    compare_options.head = std::get<std::string>(commit);
    compare_options.method = options.method;
    compare_options.categories = options.categories;
    compare_options.history_url = resolve_history_url("", project, context);
    try {
        std::ostringstream out;
        report::render_json(compare::compare(store, repository, compare_options), out);
        return {200, "application/json; charset=utf-8", out.str()};
    } catch (const compare::CompareError& error) {
        return serve::error_response(404, error.what());
    }
}

// Blocks SIGINT and SIGTERM in every thread started after this call, and starts a thread that
// stops `server` when either arrives.
std::thread stop_on_signal(serve::DashboardServer& server) {
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    return std::thread([&server, signals] {
        int received = 0;
        sigwait(&signals, &received);
        server.stop();
    });
}

int run_serve(const ServeFlags& flags) {
    // The default branch moves while the server runs: every question goes to git.
    const auto context = Context::discover(flags.common.repo, vcs::Names::AsNow);
    const auto address = serve::parse_listen(flags.listen);
    const serve::DashboardOptions options =
        resolve_dashboard_options(flags.default_branch, context);
    const std::string store_url = resolve_store(flags.common, context);
    // Without uploads the store is only read (and its calibration cache kept where it may be
    // written); with them the server records into it, creating it when missing.
    const auto store = store::open_store(
        store_url, flags.allow_upload ? store::Access::ReadWrite : store::Access::ReadCache);
    check_project(*store, flags, store_url);
    const auto uploads = upload_receiver(flags, store_url);
    const auto* repository = context.repository ? &*context.repository : nullptr;

    serve::DashboardLoader loader(*store, repository, options);
    serve::DashboardSource source;
    source.version = [&] { return store->last_run_id(); };
    source.peek = [&] { return store->peek_last_run_id(); };
    source.load = [&] { return loader.load(); };
    source.update = [&](const serve::Dashboard& previous,
                        const std::function<void(serve::Dashboard)>& show_unjudged) {
        auto next = loader.update(previous, show_unjudged);
        if (loader.read_whole())
            std::cerr << "note: the store changed other than by new runs; the dashboard was read "
                         "again whole\n";
        return next;
    };
    source.compare_pull = [&](const std::string& project, const std::string& machine,
                              const std::string& commit) {
        return compare_pull(*store, repository, context, options, project, machine, commit);
    };
    serve::DashboardServer server(std::move(source), std::chrono::milliseconds(flags.refresh_ms));
    if (uploads) server.accept_uploads(uploads);
    server.allow_hosts(flags.allowed_hosts);
    std::thread signal_watcher = stop_on_signal(server);
    int port = 0;
    try {
        port = server.bind(address);
    } catch (...) {
        kill(getpid(), SIGTERM);  // ends the watcher, which is waiting for a signal
        signal_watcher.join();
        throw;
    }
    const bool ipv6 = address.host.find(':') != std::string::npos;
    std::cout << fmt::format("serving http://{}{}{}:{}/ from {}", ipv6 ? "[" : "", address.host,
                             ipv6 ? "]" : "", port, store::without_credentials(store_url))
              << std::endl;
    if (uploads)
        std::cout << fmt::format(
                         "accepting uploads at POST {}, up to {} bytes each, through {} "
                         "store connection{}",
                         serve::upload_path, flags.max_upload_bytes,
                         upload_writers(flags, store_url),
                         upload_writers(flags, store_url) == 1 ? "" : "s")
                  << std::endl;
    server.run();
    kill(getpid(), SIGTERM);
    signal_watcher.join();
    return 0;
}

}  // namespace

serve::DashboardOptions resolve_dashboard_options(const std::string& default_branch_flag,
                                                  const Context& context) {
    serve::DashboardOptions options;
    options.default_branch = resolve_default_branch_name(default_branch_flag, context);
    options.default_branch_revision =
        resolve_default_branch_revision(options.default_branch, context);
    options.settings = context.config.settings;
    options.method = resolve_method("", context);
    options.categories = context.config.categories;
    options.repository_url = resolve_repository_url(context);
    return options;
}

Command add_serve_command(CLI::App& parent) {
    auto flags = std::make_shared<ServeFlags>();
    auto* command = parent.add_subcommand(
        "serve",
        "Serve the history dashboard and its JSON API, and accept uploads with --allow-upload");
    add_common_flags(*command, flags->common);
    add_default_branch_flag(*command, flags->default_branch);
    command->add_option("--listen", flags->listen,
                        "HOST:PORT to answer on (default 127.0.0.1:8080; port 0: any free port)");
    command
        ->add_option("--refresh-ms", flags->refresh_ms,
                     "The longest a new run waits before the store is read again, in milliseconds; "
                     "a cheap check for new runs every 50 ms usually finds it sooner")
        ->check(CLI::Range(50, 3'600'000));
    command->add_flag("--allow-upload", flags->allow_upload,
                      "Accept runs at POST /api/v1/runs from benchwatch record --server");
    command->add_option("--token-file", flags->token_file,
                        "File holding the bearer token uploads must send (with --allow-upload)");
    command->add_option("--upload-project", flags->upload_projects,
                        "A project uploads may create, beside those in the store (repeatable)");
    command->add_option("--allowed-host", flags->allowed_hosts,
                        "A Host name to answer to beside localhost, 127.0.0.1 and [::1], such as "
                        "a reverse proxy's public name (repeatable)");
    command
        ->add_option("--max-upload-bytes", flags->max_upload_bytes,
                     "Largest upload accepted, in bytes (default 64 MiB)")
        ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 32));
    command
        ->add_option("--upload-writers", flags->upload_writers,
                     "Store connections uploads write through at once (default: 8 on "
                     "PostgreSQL, 1 on SQLite)")
        ->check(CLI::Range(std::size_t{1}, std::size_t{64}));
    return {command, [flags] { return run_serve(*flags); }};
}

}  // namespace benchwatch::cli
