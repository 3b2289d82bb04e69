#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "model/commit_id.hpp"
#include "vcs/git.hpp"

namespace benchwatch::vcs {

// A folder of checked-out commits, one linked git work tree per commit, so that benchwatch can
// build and measure any commit without touching the user's own checkout. A commit's folder is
// kept after use (a rebuild there is then incremental) until the folders together pass a size
// limit; the least recently used go first.
//
// Beside each commit's folder ROOT/SHA lies its marker ROOT/SHA.benchwatch, written before git
// creates the folder and marked complete only once the checkout finished: a folder is reused
// only when complete, and removed by hand only when benchwatch made it. Every path is checked to
// stay inside the root, also after resolving symbolic links, before anything is created or
// removed, so that anything else kept in or around the root survives.
class CommitFolders {
  public:
    // The folders of `repository`'s commits under `root`, created when first needed, keeping at
    // most `limit_bytes` of them between checkouts.
    CommitFolders(Repository repository, std::filesystem::path root, std::uintmax_t limit_bytes);

    // The folder holding `commit` checked out, detached: the one kept from an earlier checkout
    // when that checkout completed and still holds the commit, else a new one (a half-made or
    // stale folder is removed first). Frees least recently used folders first until the others
    // fit the limit. Throws GitError when git cannot check the commit out, or when the folder's
    // place holds something benchwatch did not make (a link, or a folder without its marker that
    // git does not know as a work tree).
    std::filesystem::path checkout(const model::CommitId& commit);

    // Whether `folder`, returned by checkout(commit), still holds that complete checkout: false
    // when something (a build step) removed it or its marker since.
    bool holds(const std::filesystem::path& folder, const model::CommitId& commit) const;

    const std::filesystem::path& root() const { return root_; }

  private:
    std::filesystem::path inside_root(const std::string& name) const;
    // The root, opened: the folder checked when it was first used, else throws GitError.
    int open_root() const;
    void remove_folder(const std::filesystem::path& folder, const std::filesystem::path& marker);
    void free_space_for(const std::filesystem::path& kept);

    Repository repository_;
    std::filesystem::path root_;
    std::uintmax_t limit_bytes_;
    // The root's device and inode when first used: a root replaced since is refused.
    std::optional<std::pair<dev_t, ino_t>> root_identity_;
};

// The bytes the regular files under `folder` take, links not followed; 0 when it is missing.
std::uintmax_t folder_size(const std::filesystem::path& folder);

}  // namespace benchwatch::vcs
