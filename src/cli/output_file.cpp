#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "cli/commands.hpp"

namespace benchwatch::cli {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void cannot_write(const std::string& path, const std::string& why) {
    throw UsageError(
        fmt::format("cannot write {}: {}; check that its directory exists and is "
                    "writable, or pass another --output",
                    path, why));
}

// Writes all of `text` to the open descriptor `fd`; false on the first failure.
bool write_all(int fd, const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
        const auto written = ::write(fd, text.data() + done, text.size() - done);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return false;
        done += static_cast<std::size_t>(written);
    }
    return true;
}

// Writes through whatever `path` is (a device, a FIFO, a terminal): opened as it is, never
// created, replaced or truncated beyond what the node itself does with a write.
void write_through(const std::string& shown, const fs::path& path, const std::string& text) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) cannot_write(shown, std::strerror(errno));
    if (!write_all(fd, text)) {
        const int error = errno;
        ::close(fd);
        cannot_write(shown, std::strerror(error));
    }
    if (::close(fd) != 0) cannot_write(shown, std::strerror(errno));
}

// Replaces the regular file (or new path) `target` with `text`: a temporary file beside it, then
// rename, keeping the permissions of the file it replaces.
void replace_atomically(const std::string& shown, const fs::path& target, const std::string& text,
                        const struct stat* replaced) {
    const auto temporary = target.string() + ".tmp." + std::to_string(::getpid());
    const mode_t mode = replaced != nullptr ? (replaced->st_mode & 07777) : 0666;
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0) cannot_write(shown, std::strerror(errno));
    bool done = write_all(fd, text);
    if (done && replaced != nullptr) done = ::fchmod(fd, mode) == 0;
    done = ::close(fd) == 0 && done;
    std::error_code error;
    if (done) fs::rename(temporary, target, error);
    if (!done || error) {
        const auto why = error ? error.message() : std::string(std::strerror(errno));
        fs::remove(temporary, error);
        cannot_write(shown, why);
    }
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text) {
    // stat() follows symbolic links: what is written is what the path ends at.
    struct stat status {};
    const bool exists = ::stat(path.c_str(), &status) == 0;
    if (!exists && errno != ENOENT) cannot_write(path, std::strerror(errno));
    if (exists && S_ISDIR(status.st_mode))
        throw UsageError(
            fmt::format("cannot write {}: it is a folder; pass a file's path to "
                        "--output",
                        path));
    if (exists && !S_ISREG(status.st_mode)) {
        write_through(path, path, text);
        return;
    }
    // A regular file, or nothing yet: replaced at the end of any links, so that they stay links.
    std::error_code error;
    fs::path target = path;
    if (fs::is_symlink(fs::symlink_status(target, error))) {
        target = fs::weakly_canonical(target, error);
        if (error) cannot_write(path, error.message());
    }
    replace_atomically(path, target, text, exists ? &status : nullptr);
}

}  // namespace benchwatch::cli
