#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "vcs/git.hpp"

namespace benchwatch::vcs {

// The most bytes of blobs one git process is asked for by FileBranch::read_blobs(); a larger
// blob is read alone.
inline constexpr std::uint64_t kBlobBytesPerRead = std::uint64_t{64} << 20;

// A file on a branch: its path in the branch's tree ("runs/a/b.json") and its bytes.
struct BranchFile {
    std::string path;
    std::string content;

    friend bool operator==(const BranchFile&, const BranchFile&) = default;
};

// One entry of a branch's tree as git lists it, before anything of it is read.
struct BranchEntry {
    std::string path;
    // git's file mode: "100644" or "100755" for a regular file, "120000" for a symbolic link,
    // "160000" for a submodule.
    std::string mode;
    std::string object;                 // the id of its blob (of its commit for a submodule)
    std::optional<std::uint64_t> size;  // the blob's bytes; std::nullopt for a submodule

    // Whether it is a regular file, the only entries read_blobs() reads.
    bool regular_file() const;
};

// How often FileBranch::publish() tries when other pushes get there first, and how long it waits
// between tries: first_delay, doubling up to max_delay, each wait scaled by a random 0.5-1.5 so
// that jobs that collided once do not collide again.
struct RetryPolicy {
    int attempts = 8;
    std::chrono::milliseconds first_delay{250};
    std::chrono::milliseconds max_delay{4000};
};

// What FileBranch::publish() did.
struct PublishOutcome {
    std::size_t files_added = 0;  // 0: the branch already had every file, nothing was pushed
    int attempts = 0;             // pushes tried; more than 1 when another push came first
    std::string commit;           // the branch's tip afterwards; empty when it does not exist
};

// A branch of a remote repository used as a folder of files that only grows, kept apart from the
// code: read and written with git's plumbing through a temporary index, so that the work tree,
// the index, HEAD and local branches are never touched. The fetched tip is kept in
// refs/remotes/REMOTE/BRANCH.
class FileBranch {
  public:
    // The branch `branch` of the remote named `remote` (e.g. "origin") of `repository`. Throws
    // GitError, before git is run with either, when `remote` is not a remote's name (a URL, a
    // path, anything starting with '-') or `branch` is not a branch name.
    FileBranch(Repository repository, std::string remote, std::string branch);

    // "origin/benchwatch-data", for messages.
    std::string name() const;

    // Fetches the branch and returns its tip's full SHA; std::nullopt when the remote has no
    // such branch. Throws GitError when the remote cannot be reached.
    std::optional<std::string> fetch() const;

    // Paths of the files in `commit`'s tree under `folder` ("runs/", or "" for all), sorted.
    std::vector<std::string> list(const std::string& commit, const std::string& folder) const;

    // The entries of `commit`'s tree under `folder` ("runs/", or "" for all), sorted by path,
    // with the size git stores for each blob, so that a caller can pass over one before reading.
    std::vector<BranchEntry> entries(const std::string& commit, const std::string& folder) const;

    // The exact bytes of the regular files `files` (from entries(); regular_file() each), in the
    // order given, read as blobs from git's object store: never through a work tree, so that no
    // symbolic link is followed and nothing but the blob is opened. Holds at most
    // kBlobBytesPerRead bytes of git's output at once beyond the files returned. Throws GitError
    // when git cannot give a blob or gives other sizes than `files` say.
    std::vector<BranchFile> read_blobs(std::span<const BranchEntry> files) const;

    // Fetches the branch, asks `files_to_add` which files to add given the paths already on it,
    // commits them with `message` on top of its tip (or as its first commit) and pushes without
    // force. When another push got there first it starts again from the new tip, at most
    // policy.attempts times. A path already on the branch is never replaced. Throws GitError when
    // git fails, or naming the attempts when every push was overtaken.
    PublishOutcome publish(
        const std::function<std::vector<BranchFile>(const std::set<std::string>& existing_paths)>&
            files_to_add,
        const std::string& message, const RetryPolicy& policy = {}) const;

  private:
    Repository repository_;
    std::string remote_;
    std::string branch_;
};

}  // namespace benchwatch::vcs
