#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "vcs/git.hpp"

namespace benchwatch::vcs {

// A folder of checked-out commits, one linked git work tree per commit, so that benchwatch can
// build and measure any commit without touching the user's own checkout. A commit's folder is
// kept after use (a rebuild there is then incremental) until the folders together pass a size
// limit; the least recently used go first. Only folders named by a full SHA are ever removed, so
// that anything else kept in the root survives.
class CommitFolders {
  public:
    // The folders of `repository`'s commits under `root`, created when first needed, keeping at
    // most `limit_bytes` of them between checkouts.
    CommitFolders(Repository repository, std::filesystem::path root, std::uintmax_t limit_bytes);

    // The folder holding `sha` checked out, detached: the one kept from an earlier checkout when
    // it still holds that commit, else a new one. Frees least recently used folders first until
    // the others fit the limit. Throws GitError when git cannot check the commit out.
    std::filesystem::path checkout(const std::string& sha);

    const std::filesystem::path& root() const { return root_; }

  private:
    void free_space_for(const std::filesystem::path& kept);

    Repository repository_;
    std::filesystem::path root_;
    std::uintmax_t limit_bytes_;
};

// The bytes the regular files under `folder` take, links not followed; 0 when it is missing.
std::uintmax_t folder_size(const std::filesystem::path& folder);

}  // namespace benchwatch::vcs
