#include "vcs/branch_files.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <cassert>
#include <charconv>
#include <fstream>
#include <iterator>
#include <random>
#include <thread>

#include "model/printable.hpp"

namespace benchwatch::vcs {

namespace {

namespace fs = std::filesystem;
using Variables = std::map<std::string, std::string>;

// Paths given to one git command at most, far below the system's limit on arguments.
constexpr std::size_t kPathsPerCommand = 256;

// Who commits to the branch when git has no identity configured (a fresh CI runner).
constexpr const char* kFallbackName = "benchwatch";
constexpr const char* kFallbackEmail = "benchwatch@localhost";

std::string_view first_line(std::string_view text) {
    return text.substr(0, text.find('\n'));
}

std::string_view trim_newline(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
    return text;
}

// A new folder under the system's temporary directory, removed with its content at the end.
class ScratchFolder {
  public:
    ScratchFolder() {
        auto pattern = (fs::temp_directory_path() / "benchwatch-branch-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr)
            throw GitError(
                fmt::format("cannot create a temporary folder in {}; set TMPDIR to a "
                            "writable folder",
                            fs::temp_directory_path().string()));
        path_ = pattern;
    }
    ScratchFolder(const ScratchFolder&) = delete;
    ScratchFolder& operator=(const ScratchFolder&) = delete;
    ~ScratchFolder() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }

    const fs::path& path() const { return path_; }

  private:
    fs::path path_;
};

void write_bytes(const fs::path& path, const std::string& bytes) {
    std::ofstream file(path, std::ios::binary);
    file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!file.flush())
        throw GitError(fmt::format("cannot write {}; check the space left in the temporary folder",
                                   path.string()));
}

std::vector<std::string> split(std::string_view text, char separator) {
    std::vector<std::string> parts;
    while (!text.empty()) {
        const auto end = text.find(separator);
        parts.emplace_back(text.substr(0, end));
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
    return parts;
}

// How one push ended.
struct PushAnswer {
    bool pushed = false;
    bool overtaken = false;  // another push moved the branch first: fetch and try again
    std::string reason;      // git's words when not pushed
};

// Whether git's reason for refusing a ref update means that the branch moved under us.
bool moved_under_us(std::string_view status) {
    if (status.starts_with("[rejected]")) return true;  // fetch first, non-fast-forward, stale
    if (!status.starts_with("[remote rejected]")) return false;
    for (const std::string_view race :
         {"lock", "failed to update ref", "incorrect old value", "non-fast-forward", "fetch first"})
        if (status.find(race) != std::string_view::npos) return true;
    return false;
}

// Runs git in the repository, always in English and never prompting.
class GitRunner {
  public:
    explicit GitRunner(fs::path top_level) : top_level_(std::move(top_level)) {}

    ProcessOutput run(const std::vector<std::string>& arguments,
                      const Variables& variables = {}) const {
        std::vector<std::string> argv{"git", "-C", top_level_.string()};
        argv.insert(argv.end(), arguments.begin(), arguments.end());
        auto environment = variables;
        environment["LC_ALL"] = "C";
        environment["GIT_TERMINAL_PROMPT"] = "0";
        auto output = run_process(argv, {}, environment);
        if (output.exit_code < 0)
            throw GitError(fmt::format("git in {}: {}; install git", top_level_.string(),
                                       first_line(output.err)));
        return output;
    }

    // run(), throwing GitError "git in DIR: cannot WHAT: git's first line" unless it succeeds.
    std::string checked(const std::vector<std::string>& arguments, std::string_view what,
                        const Variables& variables = {}) const {
        auto output = run(arguments, variables);
        if (output.exit_code != 0)
            throw GitError(fmt::format("git in {}: cannot {}: {}", top_level_.string(), what,
                                       first_line(output.err)));
        return std::move(output.out);
    }

  private:
    fs::path top_level_;
};

}  // namespace

namespace {

// `text` from a flag, quoted in a message: printable and at most 80 bytes of it.
std::string shown_name(std::string_view text) {
    constexpr std::size_t longest = 80;
    std::string shown = model::printable_line(text.substr(0, longest));
    if (text.size() > longest) shown += "…";
    return shown;
}

// Whether `ref` is a full ref name that git accepts (git check-ref-format).
bool valid_ref(const GitRunner& git, const std::string& ref) {
    return git.run({"check-ref-format", ref}).exit_code == 0;
}

}  // namespace

FileBranch::FileBranch(Repository repository, std::string remote, std::string branch)
    : repository_(std::move(repository)), remote_(std::move(remote)), branch_(std::move(branch)) {
    // Both become git arguments and parts of refs: a name that git would read as an option or
    // that makes no ref is refused before git runs with it.
    const GitRunner git(repository_.top_level());
    if (remote_.empty() || remote_.starts_with('-') ||
        !valid_ref(git, "refs/remotes/" + remote_ + "/HEAD"))
        throw GitError(
            fmt::format("--remote '{}' is not the name of a git remote; pass --remote with the "
                        "name of one, such as origin (git remote lists them)",
                        shown_name(remote_)));
    if (branch_.empty() || branch_.starts_with('-') || !valid_ref(git, "refs/heads/" + branch_))
        throw GitError(
            fmt::format("--branch '{}' is not a valid branch name; pass --branch with one that "
                        "git check-ref-format --branch accepts, such as benchwatch-data",
                        shown_name(branch_)));
}

std::string FileBranch::name() const {
    return remote_ + "/" + branch_;
}

std::optional<std::string> FileBranch::fetch() const {
    const GitRunner git(repository_.top_level());
    const auto remote_ref = "refs/heads/" + branch_;
    const auto heads = git.run({"ls-remote", "--exit-code", "--", remote_, remote_ref});
    constexpr int no_matching_ref = 2;
    if (heads.exit_code == no_matching_ref) return std::nullopt;
    if (heads.exit_code != 0)
        throw GitError(
            fmt::format("git in {}: cannot reach remote '{}': {}; pass --remote with "
                        "the name of a remote that this job may read",
                        repository_.top_level().string(), remote_, first_line(heads.err)));
    const auto tracking_ref = "refs/remotes/" + remote_ + "/" + branch_;
    git.checked({"fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
                 "--no-recurse-submodules", "--", remote_, "+" + remote_ref + ":" + tracking_ref},
                "fetch " + name());
    const auto tip = git.checked({"rev-parse", "--verify", "--quiet", tracking_ref + "^{commit}"},
                                 "find the tip of " + name());
    return std::string(trim_newline(tip));
}

std::vector<std::string> FileBranch::list(const std::string& commit,
                                          const std::string& folder) const {
    std::vector<std::string> arguments{"ls-tree", "-r", "-z", "--name-only", "--full-tree", commit};
    if (!folder.empty()) arguments.insert(arguments.end(), {"--", folder});
    auto paths = split(GitRunner(repository_.top_level())
                           .checked(arguments, fmt::format("list the files of {}", name())),
                       '\0');
    std::sort(paths.begin(), paths.end());
    return paths;
}

bool BranchEntry::regular_file() const {
    return mode == "100644" || mode == "100755";
}

std::vector<BranchEntry> FileBranch::entries(const std::string& commit,
                                             const std::string& folder) const {
    std::vector<std::string> arguments{"ls-tree", "-r", "-z", "--long", "--full-tree", commit};
    if (!folder.empty()) arguments.insert(arguments.end(), {"--", folder});
    const auto listing = GitRunner(repository_.top_level())
                             .checked(arguments, fmt::format("list the files of {}", name()));
    std::vector<BranchEntry> found;
    // Each entry is "MODE TYPE OBJECT SIZE\tPATH" (the size padded with spaces, "-" for a
    // submodule), ended by NUL; the path is taken as it is, whatever bytes it holds.
    for (const auto& line : split(listing, '\0')) {
        const auto tab = line.find('\t');
        std::vector<std::string> fields;
        for (auto& field : split(std::string_view(line).substr(0, tab), ' '))
            if (!field.empty()) fields.push_back(std::move(field));
        if (tab == std::string::npos || fields.size() != 4)
            throw GitError(fmt::format("git ls-tree listed \"{}\" for {}, not an entry",
                                       first_line(line), name()));
        BranchEntry entry{line.substr(tab + 1), fields[0], fields[2], std::nullopt};
        if (fields[3] != "-") {
            std::uint64_t size = 0;
            const auto [end, error] =
                std::from_chars(fields[3].data(), fields[3].data() + fields[3].size(), size);
            if (error != std::errc() || end != fields[3].data() + fields[3].size())
                throw GitError(fmt::format("git ls-tree gave the size \"{}\" for {} on {}",
                                           fields[3], entry.path, name()));
            entry.size = size;
        }
        found.push_back(std::move(entry));
    }
    std::sort(found.begin(), found.end(),
              [](const BranchEntry& a, const BranchEntry& b) { return a.path < b.path; });
    return found;
}

std::vector<BranchFile> FileBranch::read_blobs(std::span<const BranchEntry> files) const {
    const GitRunner git(repository_.top_level());
    std::vector<BranchFile> read;
    read.reserve(files.size());
    std::size_t first = 0;
    while (first < files.size()) {
        // A batch of blobs small enough in bytes and ids for one git process.
        std::vector<std::string> arguments{"show", "--no-textconv", "--no-color"};
        std::uint64_t bytes = 0;
        std::size_t end = first;
        while (end < files.size() && end - first < kPathsPerCommand) {
            const auto& file = files[end];
            assert(file.regular_file() && file.size);
            if (end > first && bytes + *file.size > kBlobBytesPerRead) break;
            bytes += *file.size;
            arguments.push_back(file.object);
            ++end;
        }
        // git show writes a blob's bytes as they are, one blob after the other.
        const auto output = git.checked(arguments, fmt::format("read the files of {}", name()));
        if (output.size() != bytes)
            throw GitError(fmt::format(
                "git show gave {} bytes for {} files of {} that git ls-tree sized {} bytes",
                output.size(), end - first, name(), bytes));
        std::size_t at = 0;
        for (std::size_t i = first; i < end; ++i) {
            const auto size = static_cast<std::size_t>(*files[i].size);
            read.push_back({files[i].path, output.substr(at, size)});
            at += size;
        }
        first = end;
    }
    return read;
}

namespace {

// The identity variables a commit needs when git has none configured for author or committer.
Variables fallback_identity(const GitRunner& git) {
    Variables identity;
    if (git.run({"var", "GIT_AUTHOR_IDENT"}).exit_code != 0) {
        identity["GIT_AUTHOR_NAME"] = kFallbackName;
        identity["GIT_AUTHOR_EMAIL"] = kFallbackEmail;
    }
    if (git.run({"var", "GIT_COMMITTER_IDENT"}).exit_code != 0) {
        identity["GIT_COMMITTER_NAME"] = kFallbackName;
        identity["GIT_COMMITTER_EMAIL"] = kFallbackEmail;
    }
    return identity;
}

// A commit of `parent`'s tree (or of nothing) with `files` added, built in a temporary index.
std::string commit_files(const GitRunner& git, const std::optional<std::string>& parent,
                         const std::vector<BranchFile>& files, const std::string& message,
                         const std::string& branch_name) {
    const ScratchFolder scratch;
    std::vector<std::string> blobs;
    blobs.reserve(files.size());
    for (std::size_t first = 0; first < files.size(); first += kPathsPerCommand) {
        std::vector<std::string> arguments{"hash-object", "-w", "--no-filters", "--"};
        for (std::size_t i = first; i < std::min(files.size(), first + kPathsPerCommand); ++i) {
            const auto blob_file = scratch.path() / fmt::format("blob-{}", i);
            write_bytes(blob_file, files[i].content);
            arguments.push_back(blob_file.string());
        }
        const auto hashes =
            split(git.checked(arguments, fmt::format("store files for {}", branch_name)), '\n');
        blobs.insert(blobs.end(), hashes.begin(), hashes.end());
    }
    if (blobs.size() != files.size())
        throw GitError(
            fmt::format("git hash-object gave {} ids for {} files", blobs.size(), files.size()));

    const Variables index{{"GIT_INDEX_FILE", (scratch.path() / "index").string()}};
    const auto what = fmt::format("build the next commit of {}", branch_name);
    if (parent)
        git.checked({"read-tree", *parent}, what, index);
    else
        git.checked({"read-tree", "--empty"}, what, index);
    for (std::size_t first = 0; first < files.size(); first += kPathsPerCommand) {
        std::vector<std::string> arguments{"update-index", "--add"};
        for (std::size_t i = first; i < std::min(files.size(), first + kPathsPerCommand); ++i)
            arguments.insert(arguments.end(),
                             {"--cacheinfo", fmt::format("100644,{},{}", blobs[i], files[i].path)});
        git.checked(arguments, what, index);
    }
    const auto tree = std::string(trim_newline(git.checked({"write-tree"}, what, index)));
    std::vector<std::string> arguments{"commit-tree", "--no-gpg-sign", "-m", message};
    if (parent) arguments.insert(arguments.end(), {"-p", *parent});
    arguments.push_back(tree);
    return std::string(trim_newline(git.checked(arguments, what, fallback_identity(git))));
}

PushAnswer push_commit(const GitRunner& git, const std::string& remote, const std::string& branch,
                       const std::string& commit) {
    const auto output =
        git.run({"push", "--porcelain", "--", remote, commit + ":refs/heads/" + branch});
    if (output.exit_code == 0) return {.pushed = true, .overtaken = false, .reason = {}};
    // --porcelain reports each ref as "FLAG\tFROM:TO\tSUMMARY (REASON)"; '!' is a refusal.
    for (const auto& line : split(output.out, '\n')) {
        const auto fields = split(line, '\t');
        if (fields.size() < 3 || fields[0] != "!") continue;
        return {.pushed = false, .overtaken = moved_under_us(fields[2]), .reason = fields[2]};
    }
    return {.pushed = false, .overtaken = false, .reason = std::string(first_line(output.err))};
}

}  // namespace

PublishOutcome FileBranch::publish(
    const std::function<std::vector<BranchFile>(const std::set<std::string>&)>& files_to_add,
    const std::string& message, const RetryPolicy& policy) const {
    const GitRunner git(repository_.top_level());
    std::mt19937 random(std::random_device{}());
    std::uniform_real_distribution<double> jitter(0.5, 1.5);
    auto delay = policy.first_delay;
    std::string last_reason;
    for (int attempt = 1; attempt <= policy.attempts; ++attempt) {
        const auto tip = fetch();
        std::set<std::string> existing;
        if (tip) {
            const auto paths = list(*tip, "");
            existing.insert(paths.begin(), paths.end());
        }
        auto files = files_to_add(existing);
        std::erase_if(files, [&](const BranchFile& file) { return existing.contains(file.path); });
        if (files.empty())
            return {.files_added = 0, .attempts = attempt - 1, .commit = tip.value_or("")};

        const auto commit = commit_files(git, tip, files, message, name());
        const auto answer = push_commit(git, remote_, branch_, commit);
        if (answer.pushed)
            return {.files_added = files.size(), .attempts = attempt, .commit = commit};
        if (!answer.overtaken)
            throw GitError(
                fmt::format("git in {}: cannot push to {}: {}; check that this job "
                            "may push to remote '{}'",
                            repository_.top_level().string(), name(), answer.reason, remote_));
        last_reason = answer.reason;
        if (attempt == policy.attempts) break;
        std::this_thread::sleep_for(
            std::chrono::duration_cast<std::chrono::milliseconds>(delay * jitter(random)));
        delay = std::min(delay * 2, policy.max_delay);
    }
    throw GitError(fmt::format(
        "git in {}: cannot push to {}: other pushes got there first {} times in a row (last: "
        "{}); run the push again",
        repository_.top_level().string(), name(), policy.attempts, last_reason));
}

}  // namespace benchwatch::vcs
