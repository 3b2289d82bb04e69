#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "cli/config.hpp"
#include "compare/compare.hpp"
#include "model/error.hpp"
#include "vcs/git.hpp"

namespace benchwatch::cli {

// A required setting has no value from flags, environment, config file or git. what() says which
// and the flag that gives it.
class UsageError : public model::Error {
  public:
    explicit UsageError(const std::string& message) : Error(model::ErrorKind::Usage, message) {}
};

// The value of environment variable `name`, or nullopt when it is unset or empty.
std::optional<std::string> environment_variable(const char* name);

// Where a command runs: its config file and git repository, found once.
struct Context {
    std::filesystem::path working_directory;
    Config config;
    std::optional<vcs::Repository> repository;  // of --repo, or of the working directory

    // Finds the config upward from the working directory and the repository of `repo`
    // (empty: the working directory), which answers names as `names` says: as first answered
    // for a command that reads them in one go, as now for one that serves for days.
    static Context discover(const std::string& repo,
                            vcs::Names names = vcs::Names::AsFirstAnswered);
};

// Settings shared by every subcommand that opens a store.
struct CommonFlags {
    std::string store;
    std::string project;
    std::string machine;
    std::string repo;
};

// --store, else BENCHWATCH_STORE, else the config's store (relative to its file), else
// .benchwatch/history.db beside the config file or in the working directory.
std::string resolve_store(const CommonFlags& flags, const Context& context);

// The project a repository's remote URL names: its path's last component without ".git" and
// trailing slashes ("https://github.com/google/snappy.git", "git@github.com:google/snappy" and
// "/srv/git/snappy/" all give "snappy"); nullopt when the URL has no path to name one by.
std::optional<std::string> project_of_remote_url(std::string_view url);

// --project, else BENCHWATCH_PROJECT, else the config's project, else the name of the config
// file's directory when that is a folder inside the repository (one project of several), else
// project_of_remote_url() of the repository's `origin`, so that every clone records into one
// project whatever its folder is called, else the name of the config file's directory, of the
// repository's top level, or of the working directory.
std::string resolve_project(const CommonFlags& flags, const Context& context);

// --machine, else BENCHWATCH_MACHINE, else the config's machine; nullopt when none names one.
std::optional<std::string> named_machine(const CommonFlags& flags, const Context& context);

// named_machine(), else the host name.
std::string resolve_machine(const CommonFlags& flags, const Context& context);

// The commit a run or comparison is of when no flag names one: GITHUB_SHA, else BUILDKITE_COMMIT
// (unless "HEAD"), else the repository's HEAD (full SHA); nullopt when none exists.
std::optional<std::string> default_commit(const Context& context);

// `text` from outside (a flag, a variable, git) as it can be shown inside a one-line message in
// single quotes: model::printable_line() of its first 80 bytes (then "…"), the quote as \u{27}.
std::string shown_input(std::string_view text);

// The commit a run is recorded as: --commit, else GITHUB_SHA, else BUILDKITE_COMMIT (unless it
// is "HEAD"), else HEAD, as a full SHA. Inside
// a repository git must know the commit (a SHA, prefix, branch or tag); outside one it must be a
// full hex SHA (40 or 64 digits, stored in lowercase). Throws UsageError for a commit that is
// neither, naming it and the fix, and when there is none.
std::string resolve_commit(const std::string& flag, const Context& context);

// --branch, else GITHUB_HEAD_REF (pull requests), else GITHUB_REF_NAME, else BUILDKITE_BRANCH,
// else the checked-out branch. Throws UsageError when none.
std::string resolve_branch(const std::string& flag, const Context& context);

// --pull-request, else the number in GITHUB_REF "refs/pull/N/merge" (any other GITHUB_REF: none),
// else BUILDKITE_PULL_REQUEST ("false": none); nullopt when none. Throws UsageError when
// BUILDKITE_PULL_REQUEST is neither "false" nor a positive number.
std::optional<std::int64_t> resolve_pull_request(std::optional<std::int64_t> flag);

// The comparison method with the config's settings: --method, else the config's, else compare's
// default ("level"); a `budget` flag (--false-alarms-per-pr), else the config's, is the false
// alarms per pull request of whichever method spends a budget (level, samples).
// Throws compare::CompareError for an unknown method name.
model::MethodChoice resolve_method(const std::string& flag, const Context& context,
                                   std::optional<double> budget = std::nullopt);

// The default branch's name: --default-branch, else the config's, else
// BUILDKITE_PIPELINE_DEFAULT_BRANCH, else the repository's (origin/HEAD's target without
// "origin/"), else "main".
std::string resolve_default_branch_name(const std::string& flag, const Context& context);

// The default branch as a revision the repository knows ("main" or "origin/main"), or empty.
std::string resolve_default_branch_revision(const std::string& name, const Context& context);

// The revision a pull request's head takes its merge base with: in a Buildkite pull request build
// without --default-branch, BUILDKITE_PULL_REQUEST_BASE_BRANCH when the repository knows it (as
// is or under origin/), else `default_branch_revision`.
std::string resolve_merge_target_revision(const std::string& default_branch_flag,
                                          const std::string& default_branch_revision,
                                          const Context& context);

// The project, machine and default branch (name and revision) whose history a command reads.
compare::HistorySource resolve_history_source(const CommonFlags& flags,
                                              const std::string& default_branch_flag,
                                              const Context& context);

// --history-url, else the config's history_url with "{project}" replaced, else the config's
// dashboard_url with the project as its "pkg" query parameter, else empty.
// Example: dashboard_url "https://example.org/perf/" and project "cuda" give
// "https://example.org/perf/?pkg=cuda".
std::string resolve_history_url(const std::string& flag, const std::string& project,
                                const Context& context);

// The web page of the repository a clone URL names: "git@github.com:org/repo.git",
// "ssh://git@gitlab.com/group/sub/repo.git" and "https://token@github.com/org/repo" give
// "https://HOST/PATH" without credentials, ".git" or an ssh port; nullopt for a local path, another
// scheme, or a host or path with characters a page address does not have.
std::optional<std::string> repository_page_of_clone_url(std::string_view url);

// The forge's page of the repository, for links to commits: the config's repository_url, else
// GITHUB_SERVER_URL/GITHUB_REPOSITORY in GitHub Actions, else the page of BUILDKITE_REPO
// (repository_page_of_clone_url) in Buildkite, else empty. No trailing slash.
std::string resolve_repository_url(const Context& context);

}  // namespace benchwatch::cli
