#include "vcs/commit_folders.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <system_error>
#include <utility>
#include <vector>

namespace benchwatch::vcs {

namespace {

namespace fs = std::filesystem;

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

// Whether `name` is a full SHA-1 or SHA-256 in lowercase hex: the only folders of the root this
// class made, and so the only ones it may remove, whatever else a user keeps there.
bool is_commit_folder_name(const std::string& name) {
    return (name.size() == 40 || name.size() == 64) &&
           name.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// Marks `folder` as used now: its modification time orders the folders for freeing.
void touch(const fs::path& folder) {
    std::error_code ignored;
    fs::last_write_time(folder, fs::file_time_type::clock::now(), ignored);
}

}  // namespace

CommitFolders::CommitFolders(Repository repository, fs::path root, std::uintmax_t limit_bytes)
    : repository_(std::move(repository)), root_(std::move(root)), limit_bytes_(limit_bytes) {}

fs::path CommitFolders::checkout(const std::string& sha) {
    std::error_code error;
    fs::create_directories(root_, error);
    if (error)
        throw GitError(fmt::format("cannot create the folder for checked-out commits {}: {}",
                                   root_.string(), error.message()));
    // The full SHA names the folder, so that two commits never share one.
    const fs::path folder = root_ / sha;
    if (fs::exists(folder)) {
        if (checked_out_commit(folder) == sha) {
            touch(folder);
            free_space_for(folder);
            return folder;
        }
        repository_.remove_worktree(folder);
    }
    free_space_for(folder);
    repository_.add_worktree(folder, sha);
    touch(folder);
    return folder;
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
        if (!entry.is_directory() || entry.is_symlink() || entry.path() == kept ||
            !is_commit_folder_name(entry.path().filename().string()))
            continue;
        const auto bytes = folder_size(entry.path());
        entries.push_back({entry.path(), entry.last_write_time(), bytes});
        total += bytes;
    }
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.used < b.used; });
    for (const auto& entry : entries) {
        if (total <= limit_bytes_) break;
        repository_.remove_worktree(entry.folder);
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
