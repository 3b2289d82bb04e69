#include "vcs/commit_folders.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <system_error>
#include <utility>
#include <vector>

namespace benchwatch::vcs {

namespace {

namespace fs = std::filesystem;

// What follows a commit folder's name in the name of its marker.
constexpr std::string_view marker_suffix = ".benchwatch";

// A marker's whole text: before git creates the folder, and once its checkout has finished.
std::string started_text(const std::string& sha) {
    return "benchwatch checkout started " + sha + "\n";
}
std::string complete_text(const std::string& sha) {
    return "benchwatch checkout complete " + sha + "\n";
}

// The text of the marker file at `marker`, at most 200 bytes of it; "" when it is not a regular
// file (missing, a link, a pipe).
std::string read_marker(const fs::path& marker) {
    std::error_code error;
    if (!fs::is_regular_file(fs::symlink_status(marker, error))) return "";
    std::ifstream in(marker, std::ios::binary);
    std::string text(200, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    return text;
}

// Whether the marker at `marker` says benchwatch made the folder of commit `sha`, finished or not.
bool made_by_benchwatch(const fs::path& marker, const std::string& sha) {
    const auto text = read_marker(marker);
    return text == started_text(sha) || text == complete_text(sha);
}

// Replaces the marker at `marker` with `text`, never through a link; throws GitError.
void write_marker(const fs::path& marker, const std::string& text) {
    std::error_code error;
    if (fs::is_symlink(fs::symlink_status(marker, error)))
        throw GitError(fmt::format(
            "{} is a symbolic link, not a marker benchwatch wrote; remove it", marker.string()));
    const int fd =
        ::open(marker.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    bool written = fd >= 0;
    if (written) {
        written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
        written = ::close(fd) == 0 && written;
    }
    if (!written)
        throw GitError(fmt::format("cannot write {}: {}", marker.string(),
                                   std::error_code(errno, std::generic_category()).message()));
}

// The commit checked out in `folder`, or "" when it holds none (half made, or not a work tree).
std::string checked_out_commit(const fs::path& folder) {
    const auto output = run_process(
        {"git", "-C", folder.string(), "rev-parse", "--verify", "--quiet", "HEAD^{commit}"}, {},
        {{"LC_ALL", "C"}, {"GIT_TERMINAL_PROMPT", "0"}});
    if (output.exit_code != 0) return "";
    std::string sha = output.out;
    while (!sha.empty() && (sha.back() == '\n' || sha.back() == '\r')) sha.pop_back();
    return sha;
}

// Marks `folder` as used now: its modification time orders the folders for freeing.
void touch(const fs::path& folder) {
    std::error_code ignored;
    fs::last_write_time(folder, fs::file_time_type::clock::now(), ignored);
}

}  // namespace

CommitFolders::CommitFolders(Repository repository, fs::path root, std::uintmax_t limit_bytes)
    : repository_(std::move(repository)), root_(std::move(root)), limit_bytes_(limit_bytes) {}

fs::path CommitFolders::inside_root(const std::string& name) const {
    const fs::path component(name);
    const fs::path path = root_ / component;
    const bool one_component = !name.empty() && name != "." && name != ".." &&
                               name.find('/') == std::string::npos && component.is_relative();
    std::error_code error;
    const auto real_root = fs::canonical(root_, error);
    const auto real_path = error ? fs::path() : fs::weakly_canonical(path, error);
    if (!one_component || error || real_path.parent_path() != real_root)
        throw GitError(fmt::format(
            "refusing to check a commit out at {}: it is not a folder directly inside {}",
            path.string(), root_.string()));
    return path;
}

fs::path CommitFolders::checkout(const model::CommitId& commit) {
    std::error_code error;
    fs::create_directories(root_, error);
    if (error)
        throw GitError(fmt::format("cannot create the folder for checked-out commits {}: {}",
                                   root_.string(), error.message()));
    // The full SHA names the folder, so that two commits never share one.
    const fs::path folder = inside_root(commit.str());
    const fs::path marker = inside_root(commit.str() + std::string(marker_suffix));
    if (fs::exists(fs::symlink_status(folder, error))) {
        if (read_marker(marker) == complete_text(commit.str()) &&
            checked_out_commit(folder) == commit.str()) {
            touch(folder);
            free_space_for(folder);
            return folder;
        }
        remove_folder(folder, marker);
    }
    free_space_for(folder);
    write_marker(marker, started_text(commit.str()));
    repository_.add_worktree(folder, commit);
    write_marker(marker, complete_text(commit.str()));
    touch(folder);
    return folder;
}

bool CommitFolders::holds(const fs::path& folder, const model::CommitId& commit) const {
    std::error_code error;
    return fs::is_directory(fs::symlink_status(folder, error)) &&
           fs::exists(fs::symlink_status(folder / ".git", error)) &&
           read_marker(inside_root(commit.str() + std::string(marker_suffix))) ==
               complete_text(commit.str());
}

void CommitFolders::remove_folder(const fs::path& folder, const fs::path& marker) {
    const std::string sha = folder.filename().string();
    std::error_code error;
    const auto status = fs::symlink_status(folder, error);
    if (fs::is_symlink(status))
        throw GitError(fmt::format(
            "{} is a symbolic link, not a checkout benchwatch made; remove it, or set [measure] "
            "worktrees to another folder",
            folder.string()));
    if (fs::exists(status) && !repository_.remove_worktree(folder)) {
        // Not a work tree git knows (its checkout interrupted before git recorded it): removed
        // by hand, but only when benchwatch made it.
        if (!made_by_benchwatch(marker, sha))
            throw GitError(fmt::format(
                "{} is in the way of a checkout of {} and benchwatch did not make it (git knows "
                "no work tree there and {} is missing); move it away, or set [measure] worktrees "
                "to another folder",
                folder.string(), sha.substr(0, 12), marker.filename().string()));
        fs::remove_all(folder, error);
        if (error)
            throw GitError(fmt::format("cannot remove the unfinished checkout {}: {}",
                                       folder.string(), error.message()));
    }
    fs::remove(marker, error);
}

void CommitFolders::free_space_for(const fs::path& kept) {
    struct Entry {
        fs::path folder;
        fs::file_time_type used;
        std::uintmax_t bytes;
    };
    std::vector<Entry> entries;
    std::uintmax_t total = 0;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(root_, error)) {
        // Only folders named by a full SHA are benchwatch's to free, whatever else a user keeps
        // in the root.
        if (!entry.is_directory() || entry.is_symlink() || entry.path() == kept ||
            !model::CommitId::parse(entry.path().filename().string()))
            continue;
        const auto bytes = folder_size(entry.path());
        entries.push_back({entry.path(), entry.last_write_time(), bytes});
        total += bytes;
    }
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.used < b.used; });
    for (const auto& entry : entries) {
        if (total <= limit_bytes_) break;
        const auto name = entry.folder.filename().string();
        try {
            remove_folder(inside_root(name), inside_root(name + std::string(marker_suffix)));
        } catch (const GitError&) {
            continue;  // not benchwatch's to remove: left where it is, and counted as kept
        }
        total -= entry.bytes;
    }
}

std::uintmax_t folder_size(const fs::path& folder) {
    std::uintmax_t bytes = 0;
    std::error_code error;
    for (fs::recursive_directory_iterator it(folder, error), end; !error && it != end;
         it.increment(error)) {
        if (it->is_symlink(error)) continue;
        if (it->is_regular_file(error)) bytes += it->file_size(error);
    }
    return bytes;
}

}  // namespace benchwatch::vcs
