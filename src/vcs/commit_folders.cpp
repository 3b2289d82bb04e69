#include "vcs/commit_folders.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
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

// read_marker() of the entry `name` of the folder open as `folder`, never through a link.
std::string read_marker_at(int folder, const std::string& name) {
    const int fd = ::openat(folder, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return "";
    struct stat status {};
    std::string text(200, '\0');
    ssize_t size = -1;
    if (::fstat(fd, &status) == 0 && S_ISREG(status.st_mode))
        size = ::read(fd, text.data(), text.size());
    ::close(fd);
    text.resize(size > 0 ? static_cast<std::size_t>(size) : 0);
    return text;
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

// Removes the entry `name` of the folder open as `parent` and, when it is a folder, everything in
// it, never following a symbolic link: a link is removed itself, and a folder swapped for a link
// while this runs is not entered. Returns 0, or the errno of the first failure.
int remove_tree_at(int parent, const std::string& name) {
    const int fd = ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return 0;
        if (errno != ENOTDIR && errno != ELOOP) return errno;
        return ::unlinkat(parent, name.c_str(), 0) == 0 || errno == ENOENT ? 0 : errno;
    }
    DIR* folder = ::fdopendir(fd);
    if (folder == nullptr) {
        const int failure = errno;
        ::close(fd);
        return failure;
    }
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(folder)) {
        const std::string_view child = entry->d_name;
        if (child != "." && child != "..") names.emplace_back(child);
    }
    int failure = 0;
    for (const auto& child : names)
        if (const int error = remove_tree_at(::dirfd(folder), child); error != 0 && failure == 0)
            failure = error;
    ::closedir(folder);
    if (failure != 0) return failure;
    return ::unlinkat(parent, name.c_str(), AT_REMOVEDIR) == 0 || errno == ENOENT ? 0 : errno;
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
    if (!root_identity_) {
        struct stat status {};
        if (::stat(root_.c_str(), &status) != 0 || !S_ISDIR(status.st_mode))
            throw GitError(
                fmt::format("{} is not a folder for checked-out commits; set [measure] "
                            "worktrees to a folder",
                            root_.string()));
        root_identity_ = {status.st_dev, status.st_ino};
    }
    // The full SHA names the folder, so that two commits never share one.
    const fs::path folder = inside_root(commit.str());
    const fs::path marker = inside_root(commit.str() + std::string(marker_suffix));
    const auto status = fs::symlink_status(folder, error);
    if (fs::exists(status)) {
        if (fs::is_directory(status) && read_marker(marker) == complete_text(commit.str()) &&
            checked_out_commit(folder) == commit.str()) {
            touch(folder);
            free_space_for(folder);
            return folder;
        }
        remove_folder(folder, marker);
    }
    free_space_for(folder);
    // The root may have been swapped for a link since it was checked: nothing is written there.
    ::close(open_root());
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

int CommitFolders::open_root() const {
    const int fd = ::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat status {};
    const bool same = fd >= 0 && root_identity_ && ::fstat(fd, &status) == 0 &&
                      std::pair(status.st_dev, status.st_ino) == *root_identity_;
    if (!same) {
        if (fd >= 0) ::close(fd);
        throw GitError(fmt::format(
            "the folder for checked-out commits {} was replaced while benchwatch used it (by a "
            "link or another folder); nothing was written or removed there; put the folder "
            "back, or set [measure] worktrees to another folder",
            root_.string()));
    }
    return fd;
}

void CommitFolders::remove_folder(const fs::path& folder, const fs::path& marker) {
    const std::string sha = folder.filename().string();
    // Opened before git runs, so that a root swapped for a link meanwhile is not followed: what
    // is removed by hand is what lies in the folder checked, never what a link points to.
    const int root = open_root();
    const auto close_root = [root] { ::close(root); };
    struct stat status {};
    const bool present = ::fstatat(root, sha.c_str(), &status, AT_SYMLINK_NOFOLLOW) == 0;
    if (present && S_ISLNK(status.st_mode)) {
        close_root();
        throw GitError(fmt::format(
            "{} is a symbolic link, not a checkout benchwatch made; remove it, or set [measure] "
            "worktrees to another folder",
            folder.string()));
    }
    if (present && !repository_.remove_worktree(folder)) {
        // Not a work tree git knows (its checkout interrupted before git recorded it): removed
        // by hand, but only when benchwatch made it.
        const auto text = read_marker_at(root, marker.filename().string());
        if (text != started_text(sha) && text != complete_text(sha)) {
            close_root();
            throw GitError(fmt::format(
                "{} is in the way of a checkout of {} and benchwatch did not make it (git knows "
                "no work tree there and {} is missing); move it away, or set [measure] worktrees "
                "to another folder",
                folder.string(), sha.substr(0, 12), marker.filename().string()));
        }
        if (const int failure = remove_tree_at(root, sha); failure != 0) {
            close_root();
            throw GitError(
                fmt::format("cannot remove the unfinished checkout {}: {}", folder.string(),
                            std::error_code(failure, std::generic_category()).message()));
        }
    }
    ::unlinkat(root, marker.filename().c_str(), 0);
    close_root();
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
