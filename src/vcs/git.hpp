#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/commit_id.hpp"
#include "model/error.hpp"

namespace benchwatch::vcs {

// git could not be run, or answered with an error that the caller did not expect.
class GitError : public model::Error {
  public:
    explicit GitError(const std::string& message) : Error(model::ErrorKind::Git, message) {}
};

// What a commit says of itself.
struct CommitInfo {
    std::string sha;
    std::string subject;
    std::string author;
    std::int64_t time_ms = 0;  // committer time, Unix milliseconds
    std::string timestamp;     // committer time, ISO 8601 with the committer's offset
    std::string message;       // the whole message, subject and body
};

// How a Repository answers a name (a branch, HEAD) asked again: as git answers now, or as it
// answered first, which saves starting git again in a command that ends in seconds. A full
// commit id found once is a commit for good and is never asked twice either way.
enum class Names { AsNow, AsFirstAnswered };

// A git work tree, read by running the `git` command (no shell) in it. Copies share what they
// remember of its names.
class Repository {
  public:
    // The repository containing `directory`; std::nullopt when it is not inside one or git is
    // not installed.
    static std::optional<Repository> open(const std::filesystem::path& directory,
                                          Names names = Names::AsNow);

    const std::filesystem::path& top_level() const { return top_level_; }

    // The full SHA that `revision` names, or std::nullopt when it names no commit.
    std::optional<std::string> resolve(const std::string& revision) const;

    // The best common ancestor of two commits, or std::nullopt when they share none.
    std::optional<std::string> merge_base(const std::string& a, const std::string& b) const;

    // `from` and its first-parent ancestors, newest first, at most `limit` commits
    // (0: no limit).
    std::vector<std::string> first_parent_chain(const std::string& from, std::size_t limit) const;

    // The commits on `to`'s first-parent chain after `from` (`from..to`), oldest first.
    // Throws GitError when either names no commit.
    std::vector<std::string> first_parent_range(const std::string& from,
                                                const std::string& to) const;

    // The git folder the repository's work trees share (.git of the main work tree).
    std::filesystem::path common_git_dir() const;

    // Checks out `commit`, detached, as a new linked work tree at `path` (git worktree add), or
    // throws GitError.
    void add_worktree(const std::filesystem::path& path, const model::CommitId& commit) const;

    // Removes the linked work tree at `path`, its files and git's record of it, whatever state
    // its files are in, and prunes git's records of work trees whose folders are gone. Returns
    // false, touching nothing at `path`, when git does not know `path` as one of this
    // repository's work trees; throws GitError when git cannot run or prune.
    bool remove_worktree(const std::filesystem::path& path) const;

    // The URL of the remote named `remote` as git would fetch from it (`git remote get-url`), or
    // std::nullopt when there is no such remote.
    std::optional<std::string> remote_url(const std::string& remote) const;

    // The name of the checked-out branch, or std::nullopt on a detached HEAD.
    std::optional<std::string> current_branch() const;

    // The default branch as a revision git understands: origin/HEAD's target when set, else the
    // first existing of "main", "master", "origin/main", "origin/master"; std::nullopt if none.
    std::optional<std::string> default_branch() const;

    // True when tracked files differ from HEAD.
    bool dirty() const;

    // Subject, message, author and time of a commit; std::nullopt when it is unknown.
    std::optional<CommitInfo> commit_info(const std::string& revision) const;

  private:
    // What resolve() has answered and may answer again without asking git.
    struct Answers {
        std::mutex mutex;
        std::map<std::string, std::optional<std::string>, std::less<>> by_revision;
    };

    Repository(std::filesystem::path top_level, Names names)
        : top_level_(std::move(top_level)), names_(names), answers_(std::make_shared<Answers>()) {}
    std::filesystem::path top_level_;
    Names names_ = Names::AsNow;
    std::shared_ptr<Answers> answers_;
};

// The output of a finished command and its exit status.
struct ProcessOutput {
    int exit_code = -1;  // -1 when it could not be started or was killed by a signal
    std::string out;
    std::string err;
};

// Runs `argv` (argv[0] looked up on PATH) in `directory` without a shell, with stdin closed,
// and collects its output. A program that cannot be started gives exit_code -1 and says why in
// `err`: run_process({"no-such-tool"}, ".").err == "cannot run 'no-such-tool': No such file or
// directory".
ProcessOutput run_process(const std::vector<std::string>& argv,
                          const std::filesystem::path& directory);

// run_process() with `environment` set in the child on top of (replacing) the inherited
// variables: run_process({"git", "status"}, dir, {{"LC_ALL", "C"}}).
ProcessOutput run_process(const std::vector<std::string>& argv,
                          const std::filesystem::path& directory,
                          const std::map<std::string, std::string>& environment);

}  // namespace benchwatch::vcs
