#include "cli/defaults.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <iostream>

#include "compare/level_method.hpp"
#include "compare/samples_method.hpp"
#include "compare/seed_method.hpp"
#include "model/printable.hpp"
#include "model/run.hpp"

namespace benchwatch::cli {

namespace {

std::filesystem::path current_directory() {
    std::error_code error;
    auto path = std::filesystem::current_path(error);
    return error ? std::filesystem::path(".") : path;
}

std::string host_name() {
    std::array<char, 256> buffer{};
    if (gethostname(buffer.data(), buffer.size() - 1) != 0 || buffer[0] == '\0') return "local";
    return buffer.data();
}

std::string strip_remote(std::string revision) {
    constexpr std::string_view remote = "origin/";
    if (revision.starts_with(remote)) revision.erase(0, remote.size());
    return revision;
}

}  // namespace

std::optional<std::string> environment_variable(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
}

Context Context::discover(const std::string& repo, vcs::Names names) {
    Context context;
    context.working_directory = current_directory();
    context.config = load_config_from(context.working_directory);
    context.repository = vcs::Repository::open(
        repo.empty() ? context.working_directory : std::filesystem::path(repo), names);
    return context;
}

std::string resolve_store(const CommonFlags& flags, const Context& context) {
    if (!flags.store.empty()) return flags.store;
    if (auto store = environment_variable("BENCHWATCH_STORE")) return *store;
    const auto base = context.config.directory_or(context.working_directory);
    if (const auto& configured = context.config.store) {
        if (configured->find("://") != std::string::npos || configured->starts_with("sqlite:"))
            return *configured;
        return (base / *configured).lexically_normal().string();
    }
    return (base / ".benchwatch" / "history.db").string();
}

std::optional<std::string> project_of_remote_url(std::string_view url) {
    while (!url.empty() && std::isspace(static_cast<unsigned char>(url.back())))
        url.remove_suffix(1);
    if (const auto end = url.find_first_of("?#"); end != std::string_view::npos)
        url = url.substr(0, end);
    // The path: after "scheme://host[:port]", after "host:" in scp-like "user@host:path", else
    // the whole URL (a local path).
    std::string_view path = url;
    if (const auto scheme = url.find("://"); scheme != std::string_view::npos) {
        const auto slash = url.find('/', scheme + 3);
        path = slash == std::string_view::npos ? std::string_view() : url.substr(slash);
    } else if (const auto colon = url.find(':');
               colon != std::string_view::npos && colon > 1 && url.find_first_of("/\\") > colon) {
        path = url.substr(colon + 1);
    }
    const auto trim_separators = [&path] {
        while (!path.empty() && (path.back() == '/' || path.back() == '\\')) path.remove_suffix(1);
    };
    trim_separators();
    if (path.ends_with(".git")) path.remove_suffix(4);
    trim_separators();
    if (const auto last = path.find_last_of("/\\"); last != std::string_view::npos)
        path.remove_prefix(last + 1);
    if (path.empty() || path == "." || path == "..") return std::nullopt;
    return std::string(path);
}

namespace {

// Whether `folder` is a folder strictly inside the repository's top level.
bool inside_repository(const std::filesystem::path& folder, const vcs::Repository& repository) {
    std::error_code error;
    const auto relative = std::filesystem::relative(folder, repository.top_level(), error);
    return !error && !relative.empty() && relative != "." && *relative.begin() != "..";
}

}  // namespace

std::string resolve_project(const CommonFlags& flags, const Context& context) {
    if (!flags.project.empty()) return flags.project;
    if (auto project = environment_variable("BENCHWATCH_PROJECT")) return *project;
    if (context.config.project) return *context.config.project;
    const auto config_folder =
        context.config.file ? std::optional(context.config.file->parent_path()) : std::nullopt;
    if (context.repository) {
        if (config_folder && inside_repository(*config_folder, *context.repository))
            return config_folder->filename().string();
        if (const auto url = context.repository->remote_url("origin"))
            if (auto project = project_of_remote_url(*url)) return *project;
    }
    if (config_folder) return config_folder->filename().string();
    if (context.repository) return context.repository->top_level().filename().string();
    return context.working_directory.filename().string();
}

std::optional<std::string> named_machine(const CommonFlags& flags, const Context& context) {
    if (!flags.machine.empty()) return flags.machine;
    if (auto machine = environment_variable("BENCHWATCH_MACHINE")) return *machine;
    if (context.config.machine) return *context.config.machine;
    return std::nullopt;
}

std::string resolve_machine(const CommonFlags& flags, const Context& context) {
    if (auto machine = named_machine(flags, context)) return *machine;
    return host_name();
}

namespace {

// The commit a CI service names for the build, with the variable it came from: GITHUB_SHA, else
// BUILDKITE_COMMIT unless it is "HEAD" (a build started without a commit, which is the checkout's
// HEAD); nullopt when neither names one.
std::optional<std::pair<std::string, const char*>> ci_commit() {
    if (auto sha = environment_variable("GITHUB_SHA")) return std::pair(*sha, "GITHUB_SHA");
    if (auto sha = environment_variable("BUILDKITE_COMMIT"); sha && *sha != "HEAD")
        return std::pair(*sha, "BUILDKITE_COMMIT");
    return std::nullopt;
}

}  // namespace

std::optional<std::string> default_commit(const Context& context) {
    if (auto commit = ci_commit()) return commit->first;
    if (context.repository) return context.repository->resolve("HEAD");
    return std::nullopt;
}

std::string shown_input(std::string_view text) {
    constexpr std::size_t longest = 80;
    const std::string_view kept = model::utf8_prefix(text, longest);
    std::string shown;
    for (const char c : model::printable_line(kept)) {
        if (c == '\'')
            shown += "\\u{27}";
        else
            shown += c;
    }
    if (kept.size() < text.size()) shown += "…";
    return shown;
}

namespace {

// The full SHA of `given` (named `origin` in messages): git's answer inside a repository, which
// must know the commit, and outside one the id itself when it is a full hex SHA.
std::string checked_commit(const std::string& given, std::string_view origin,
                           const Context& context) {
    if (context.repository) {
        if (auto sha = context.repository->resolve(given)) return *sha;
        throw UsageError(fmt::format(
            "{} '{}': the repository in {} has no such commit; give a commit it has (a SHA, "
            "prefix, branch or tag), fetch it first, or pass --repo with a clone that has it",
            origin, shown_input(given), context.repository->top_level().string()));
    }
    if (model::is_full_commit_id(given)) {
        std::string sha = given;
        std::transform(sha.begin(), sha.end(), sha.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return sha;
    }
    throw UsageError(fmt::format(
        "{} '{}': outside a git repository a commit must be a full SHA (40 or 64 hex digits); "
        "give the full SHA, or run inside the repository or pass --repo with a clone of it",
        origin, shown_input(given)));
}

}  // namespace

std::string resolve_commit(const std::string& flag, const Context& context) {
    if (!flag.empty()) return checked_commit(flag, "--commit", context);
    if (auto commit = ci_commit()) return checked_commit(commit->first, commit->second, context);
    if (auto sha = default_commit(context)) return *sha;
    throw UsageError(
        "no commit given and " + context.working_directory.string() +
        " is not inside a git repository with commits; pass --commit SHA (or --repo DIR)");
}

std::string resolve_branch(const std::string& flag, const Context& context) {
    if (!flag.empty()) return flag;
    if (auto branch = environment_variable("GITHUB_HEAD_REF")) return *branch;
    if (auto branch = environment_variable("GITHUB_REF_NAME")) return *branch;
    if (auto branch = environment_variable("BUILDKITE_BRANCH")) return *branch;
    if (context.repository)
        if (auto branch = context.repository->current_branch()) return *branch;
    throw UsageError(
        "no branch given and none is checked out (outside git or on a detached HEAD); pass "
        "--branch NAME, the default branch's name for runs that should become history");
}

std::optional<std::int64_t> resolve_pull_request(std::optional<std::int64_t> flag) {
    if (flag) return flag;
    if (const auto ref = environment_variable("GITHUB_REF")) {
        constexpr std::string_view prefix = "refs/pull/";
        if (!ref->starts_with(prefix)) return std::nullopt;
        std::int64_t number = 0;
        const char* begin = ref->data() + prefix.size();
        const char* end = ref->data() + ref->size();
        const auto [next, error] = std::from_chars(begin, end, number);
        if (error != std::errc{} || next == begin) return std::nullopt;
        return number;
    }
    const auto buildkite = environment_variable("BUILDKITE_PULL_REQUEST");
    if (!buildkite || *buildkite == "false") return std::nullopt;
    std::int64_t number = 0;
    const char* end = buildkite->data() + buildkite->size();
    const auto [next, error] = std::from_chars(buildkite->data(), end, number);
    if (error != std::errc{} || next != end || number <= 0)
        throw UsageError(fmt::format(
            "BUILDKITE_PULL_REQUEST is '{}', neither a pull request number nor \"false\"; "
            "pass --pull-request N, or unset the variable outside a Buildkite build",
            shown_input(*buildkite)));
    return number;
}

std::string resolve_default_branch_name(const std::string& flag, const Context& context) {
    if (!flag.empty()) return flag;
    if (context.config.default_branch) return *context.config.default_branch;
    if (auto name = environment_variable("BUILDKITE_PIPELINE_DEFAULT_BRANCH")) return *name;
    if (context.repository)
        if (auto revision = context.repository->default_branch()) return strip_remote(*revision);
    return "main";
}

std::string resolve_default_branch_revision(const std::string& name, const Context& context) {
    if (!context.repository) return {};
    if (context.repository->resolve(name)) return name;
    if (context.repository->resolve("origin/" + name)) return "origin/" + name;
    return {};
}

model::MethodChoice resolve_method(const std::string& flag, const Context& context,
                                   std::optional<double> budget) {
    const auto name =
        !flag.empty() ? flag : context.config.method.value_or(compare::default_method_name());
    auto choice = compare::default_choice(name);
    if (auto* seed = choice.settings_if<compare::SeedSettings>()) *seed = context.config.settings;
    // The false-alarm budget is one setting of compare, whichever method spends it: the flag's,
    // else the one configured.
    if (!budget) budget = context.config.false_alarms_per_pr;
    if (auto* level = choice.settings_if<compare::LevelSettings>()) {
        *level = context.config.level_settings;
        if (budget) level->false_alarms_per_pr = *budget;
    }
    if (auto* samples = choice.settings_if<compare::SamplesSettings>())
        if (budget) samples->false_alarms_per_pr = *budget;
    return choice;
}

std::string resolve_merge_target_revision(const std::string& default_branch_flag,
                                          const std::string& default_branch_revision,
                                          const Context& context) {
    if (!default_branch_flag.empty()) return default_branch_revision;
    const auto base = environment_variable("BUILDKITE_PULL_REQUEST_BASE_BRANCH");
    if (!base) return default_branch_revision;
    if (auto revision = resolve_default_branch_revision(*base, context); !revision.empty())
        return revision;
    if (context.repository)
        std::cerr << fmt::format(
            "warning: the pull request's base branch '{}' (BUILDKITE_PULL_REQUEST_BASE_BRANCH) is "
            "not in this checkout, so its merge base is taken with {} instead; fetch the branch "
            "before benchwatch compare to compare with what the pull request merges into\n",
            shown_input(*base),
            default_branch_revision.empty() ? "the default branch"
                                            : "'" + shown_input(default_branch_revision) + "'");
    return default_branch_revision;
}

compare::HistorySource resolve_history_source(const CommonFlags& flags,
                                              const std::string& default_branch_flag,
                                              const Context& context) {
    compare::HistorySource source;
    source.project = resolve_project(flags, context);
    source.machine = resolve_machine(flags, context);
    source.default_branch = resolve_default_branch_name(default_branch_flag, context);
    source.default_branch_revision =
        resolve_default_branch_revision(source.default_branch, context);
    return source;
}

namespace {

// `text` with every byte but letters, digits and -._~ written as %XX, for a query parameter.
std::string percent_encoded(std::string_view text) {
    std::string encoded;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (std::isalnum(byte) || c == '-' || c == '.' || c == '_' || c == '~')
            encoded += c;
        else
            encoded += fmt::format("%{:02X}", byte);
    }
    return encoded;
}

}  // namespace

std::string resolve_history_url(const std::string& flag, const std::string& project,
                                const Context& context) {
    if (!flag.empty()) return flag;
    if (!context.config.history_url) {
        if (!context.config.dashboard_url) return {};
        const std::string& dashboard = *context.config.dashboard_url;
        return dashboard + (dashboard.find('?') == std::string::npos ? "?" : "&") +
               "pkg=" + percent_encoded(project);
    }
    std::string url = *context.config.history_url;
    constexpr std::string_view placeholder = "{project}";
    for (auto at = url.find(placeholder); at != std::string::npos;
         at = url.find(placeholder, at + project.size()))
        url.replace(at, placeholder.size(), project);
    return url;
}

namespace {

// Whether `text` is a host name, with a ":port" when `port_allowed`.
bool valid_host(std::string_view text, bool port_allowed) {
    if (text.empty()) return false;
    return std::all_of(text.begin(), text.end(), [port_allowed](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ||
               (port_allowed && c == ':');
    });
}

// Whether `path` ("org/repo", "group/sub/repo") is made of at least two plain segments.
bool valid_repository_path(std::string_view path) {
    if (path.find('/') == std::string_view::npos || path.starts_with('/') || path.ends_with('/') ||
        path.find("//") != std::string_view::npos)
        return false;
    return std::all_of(path.begin(), path.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ||
               c == '/';
    });
}

}  // namespace

std::optional<std::string> repository_page_of_clone_url(std::string_view url) {
    while (!url.empty() && std::isspace(static_cast<unsigned char>(url.back())))
        url.remove_suffix(1);
    std::string_view host;
    std::string_view path;
    bool port_allowed = false;
    if (const auto scheme = url.find("://"); scheme != std::string_view::npos) {
        const auto name = url.substr(0, scheme);
        if (name != "https" && name != "http" && name != "ssh" && name != "git")
            return std::nullopt;
        auto rest = url.substr(scheme + 3);
        const auto slash = rest.find('/');
        if (slash == std::string_view::npos) return std::nullopt;
        host = rest.substr(0, slash);
        path = rest.substr(slash + 1);
        if (const auto at = host.rfind('@'); at != std::string_view::npos)
            host.remove_prefix(at + 1);
        // An ssh or git port is not the web page's.
        if (name != "https" && name != "http") {
            host = host.substr(0, host.find(':'));
        } else {
            port_allowed = true;
        }
    } else if (const auto colon = url.find(':');
               colon != std::string_view::npos && url.find('/') > colon) {
        host = url.substr(0, colon);  // scp-like "git@github.com:org/repo.git"
        path = url.substr(colon + 1);
        if (const auto at = host.rfind('@'); at != std::string_view::npos)
            host.remove_prefix(at + 1);
    } else {
        return std::nullopt;
    }
    while (path.ends_with('/')) path.remove_suffix(1);
    if (path.ends_with(".git")) path.remove_suffix(4);
    if (!valid_host(host, port_allowed) || !valid_repository_path(path)) return std::nullopt;
    return fmt::format("https://{}/{}", host, path);
}

std::string resolve_repository_url(const Context& context) {
    std::string url;
    if (context.config.repository_url) {
        url = *context.config.repository_url;
    } else {
        const auto server = environment_variable("GITHUB_SERVER_URL");
        const auto repository = environment_variable("GITHUB_REPOSITORY");
        if (server && repository)
            url = *server + "/" + *repository;
        else if (const auto clone_url = environment_variable("BUILDKITE_REPO"))
            url = repository_page_of_clone_url(*clone_url).value_or("");
    }
    while (url.ends_with('/')) url.pop_back();
    return url;
}

}  // namespace benchwatch::cli
