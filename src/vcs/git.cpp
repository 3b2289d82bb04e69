#include "vcs/git.hpp"

#include <fmt/format.h>

#include <charconv>
#include <string_view>

namespace benchwatch::vcs {

namespace {

// git's messages in English (they are parsed nowhere, but quoted in errors) and never a prompt
// for credentials that nobody could answer.
const std::map<std::string, std::string>& git_environment() {
    static const std::map<std::string, std::string> environment{
        {"LC_ALL", "C"},
        {"GIT_TERMINAL_PROMPT", "0"},
    };
    return environment;
}

// Runs `git -C directory arguments…`.
ProcessOutput run_git(const std::filesystem::path& directory,
                      const std::vector<std::string>& arguments) {
    std::vector<std::string> argv{"git", "-C", directory.string()};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    return run_process(argv, {}, git_environment());
}

std::string_view first_line(std::string_view text) {
    return text.substr(0, text.find('\n'));
}

std::string_view trim_newline(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
    return text;
}

// Throws GitError unless git ran; its exit code is then the caller's to interpret.
void require_started(const ProcessOutput& output, const std::filesystem::path& directory) {
    if (output.exit_code < 0)
        throw GitError(fmt::format("git in {}: {}; install git or pass --repo with a repository",
                                   directory.string(), first_line(output.err)));
}

// Throws GitError unless git ran and succeeded.
void require_success(const ProcessOutput& output, const std::filesystem::path& directory,
                     std::string_view what) {
    require_started(output, directory);
    if (output.exit_code != 0)
        throw GitError(fmt::format("git in {}: cannot {}: {}", directory.string(), what,
                                   first_line(output.err)));
}

}  // namespace

std::optional<Repository> Repository::open(const std::filesystem::path& directory, Names names) {
    const auto output = run_git(directory, {"rev-parse", "--show-toplevel"});
    if (output.exit_code != 0) return std::nullopt;
    const auto top_level = trim_newline(output.out);
    if (top_level.empty()) return std::nullopt;  // inside .git itself: no work tree
    return Repository(std::filesystem::path(top_level), names);
}

std::optional<std::string> Repository::resolve(const std::string& revision) const {
    {
        const std::lock_guard lock(answers_->mutex);
        if (const auto found = answers_->by_revision.find(revision);
            found != answers_->by_revision.end())
            return found->second;
    }
    const auto output = run_git(top_level_, {"rev-parse", "--verify", "--quiet", "--end-of-options",
                                             revision + "^{commit}"});
    require_started(output, top_level_);
    std::optional<std::string> sha;
    if (output.exit_code == 0) sha = std::string(trim_newline(output.out));
    const std::lock_guard lock(answers_->mutex);
    if (names_ == Names::AsFirstAnswered) answers_->by_revision.emplace(revision, sha);
    if (sha) answers_->by_revision.emplace(*sha, sha);
    return sha;
}

std::optional<std::string> Repository::merge_base(const std::string& a,
                                                  const std::string& b) const {
    const auto output = run_git(top_level_, {"merge-base", "--end-of-options", a, b});
    require_started(output, top_level_);
    // Exit code 1 with nothing on stderr is git's way of saying "no common ancestor".
    if (output.exit_code == 1 && output.err.empty()) return std::nullopt;
    require_success(output, top_level_, fmt::format("find the merge base of {} and {}", a, b));
    return std::string(trim_newline(output.out));
}

std::vector<std::string> Repository::first_parent_chain(const std::string& from,
                                                        std::size_t limit) const {
    std::vector<std::string> arguments{"rev-list", "--first-parent"};
    if (limit > 0) arguments.push_back(fmt::format("--max-count={}", limit));
    arguments.push_back("--end-of-options");
    arguments.push_back(from);
    const auto output = run_git(top_level_, arguments);
    require_success(output, top_level_, fmt::format("list the first-parent history of {}", from));

    std::vector<std::string> chain;
    std::string_view rest = output.out;
    while (!rest.empty()) {
        const auto end = rest.find('\n');
        const auto line = rest.substr(0, end);
        if (!line.empty()) chain.emplace_back(line);
        if (end == std::string_view::npos) break;
        rest.remove_prefix(end + 1);
    }
    return chain;
}

std::vector<std::string> Repository::first_parent_range(const std::string& from,
                                                        const std::string& to) const {
    for (const auto& revision : {from, to})
        if (!resolve(revision))
            throw GitError(fmt::format("git in {}: {} names no commit; check the range",
                                       top_level_.string(), revision));
    const auto output = run_git(top_level_, {"rev-list", "--first-parent", "--reverse",
                                             "--end-of-options", from + ".." + to});
    require_success(output, top_level_, fmt::format("list the commits of {}..{}", from, to));
    std::vector<std::string> commits;
    std::string_view rest = output.out;
    while (!rest.empty()) {
        const auto end = rest.find('\n');
        if (const auto line = rest.substr(0, end); !line.empty()) commits.emplace_back(line);
        if (end == std::string_view::npos) break;
        rest.remove_prefix(end + 1);
    }
    return commits;
}

std::filesystem::path Repository::common_git_dir() const {
    const auto output = run_git(top_level_, {"rev-parse", "--git-common-dir"});
    require_success(output, top_level_, "find the git folder");
    const std::filesystem::path folder(std::string(trim_newline(output.out)));
    return folder.is_absolute() ? folder : top_level_ / folder;
}

void Repository::add_worktree(const std::filesystem::path& path,
                              const model::CommitId& commit) const {
    const auto output = run_git(top_level_, {"worktree", "add", "--detach", "--force", "--quiet",
                                             "--end-of-options", path.string(), commit.str()});
    require_success(output, top_level_,
                    fmt::format("check out {} in {}", commit.str().substr(0, 12), path.string()));
}

bool Repository::remove_worktree(const std::filesystem::path& path) const {
    const auto output =
        run_git(top_level_, {"worktree", "remove", "--force", "--force", "--", path.string()});
    require_started(output, top_level_);
    require_success(run_git(top_level_, {"worktree", "prune"}), top_level_,
                    "prune the records of removed work trees");
    return output.exit_code == 0;
}

std::optional<std::string> Repository::remote_url(const std::string& remote) const {
    const auto output = run_git(top_level_, {"remote", "get-url", "--", remote});
    require_started(output, top_level_);
    if (output.exit_code != 0) return std::nullopt;
    const auto url = trim_newline(output.out);
    if (url.empty()) return std::nullopt;
    return std::string(url);
}

std::optional<std::string> Repository::current_branch() const {
    const auto output = run_git(top_level_, {"symbolic-ref", "--quiet", "--short", "HEAD"});
    require_started(output, top_level_);
    if (output.exit_code != 0) return std::nullopt;
    return std::string(trim_newline(output.out));
}

std::optional<std::string> Repository::default_branch() const {
    const auto remote_head =
        run_git(top_level_, {"symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"});
    require_started(remote_head, top_level_);
    if (remote_head.exit_code == 0) return std::string(trim_newline(remote_head.out));

    // Full ref names, so that a tag called "main" cannot stand in for the branch.
    const std::pair<const char*, const char*> candidates[] = {
        {"main", "refs/heads/main"},
        {"master", "refs/heads/master"},
        {"origin/main", "refs/remotes/origin/main"},
        {"origin/master", "refs/remotes/origin/master"},
    };
    for (const auto& [name, ref] : candidates)
        if (resolve(ref)) return std::string(name);
    return std::nullopt;
}

bool Repository::dirty() const {
    const auto output = run_git(
        top_level_, {"status", "--porcelain", "--untracked-files=no", "--ignore-submodules"});
    require_success(output, top_level_, "read the status of the work tree");
    return !output.out.empty();
}

std::optional<CommitInfo> Repository::commit_info(const std::string& revision) const {
    const auto sha = resolve(revision);
    if (!sha) return std::nullopt;
    const auto output = run_git(
        top_level_, {"show", "--no-patch", "--no-show-signature",
                     "--format=%H%x00%s%x00%an%x00%ct%x00%cI%x00%B", "--end-of-options", *sha});
    require_success(output, top_level_, fmt::format("read commit {}", *sha));

    std::vector<std::string_view> fields;
    std::string_view rest = trim_newline(output.out);
    for (auto end = rest.find('\0'); end != std::string_view::npos; end = rest.find('\0')) {
        fields.push_back(rest.substr(0, end));
        rest.remove_prefix(end + 1);
    }
    fields.push_back(rest);
    std::int64_t seconds = 0;
    const auto time = fields.size() == 6 ? fields[3] : std::string_view{};
    if (std::from_chars(time.data(), time.data() + time.size(), seconds).ec != std::errc{})
        throw GitError(fmt::format("git in {}: unexpected description of commit {}: {}",
                                   top_level_.string(), *sha, first_line(output.out)));
    return CommitInfo{.sha = std::string(fields[0]),
                      .subject = std::string(fields[1]),
                      .author = std::string(fields[2]),
                      .time_ms = seconds * 1000,
                      .timestamp = std::string(fields[4]),
                      .message = std::string(fields[5])};
}

}  // namespace benchwatch::vcs
