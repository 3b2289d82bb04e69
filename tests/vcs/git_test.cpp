// What could break: the baseline and the history come from the wrong commits (a side branch's
// commit on the first-parent chain, the tip instead of the merge base), or a folder outside git
// throws instead of answering "no repository".
#include "vcs/git.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <vector>

#include "support/test_support.hpp"

namespace benchwatch::vcs {
namespace {

using testing::ScratchRepository;

// main:    c1 - c2 - c3 - c4 - m - c5      (m merges side with --no-ff)
//                \     \       /
// feature:        f1    s1 ----            (side forks at c3)
class GitHistory : public ::testing::Test {
  protected:
    void SetUp() override {
        c1 = scratch.commit("first");
        c2 = scratch.commit("second");
        scratch.git({"checkout", "--quiet", "-b", "feature"});
        f1 = scratch.commit("feature work");
        scratch.git({"checkout", "--quiet", "main"});
        c3 = scratch.commit("third");
        scratch.git({"checkout", "--quiet", "-b", "side"});
        s1 = scratch.commit("side work");
        scratch.git({"checkout", "--quiet", "main"});
        c4 = scratch.commit("fourth");
        scratch.git({"merge", "--quiet", "--no-ff", "-m", "merge side", "side"});
        merge = scratch.git({"rev-parse", "HEAD"});
        c5 = scratch.commit("fifth");
        repository = Repository::open(scratch.directory()).value();
    }

    ScratchRepository scratch;
    std::optional<Repository> repository;
    std::string c1, c2, c3, c4, c5, f1, s1, merge;
};

TEST_F(GitHistory, OpensFromASubfolder) {
    std::filesystem::create_directory(scratch.directory() / "sub");
    const auto opened = Repository::open(scratch.directory() / "sub");
    ASSERT_TRUE(opened);
    EXPECT_EQ(opened->top_level(), scratch.directory());
}

TEST_F(GitHistory, ResolvesNamesAndPrefixesToFullShas) {
    EXPECT_EQ(repository->resolve("main"), c5);
    EXPECT_EQ(repository->resolve("feature"), f1);
    EXPECT_EQ(repository->resolve(c3.substr(0, 9)), c3);
    EXPECT_EQ(repository->resolve("main~2"), c4);
    EXPECT_EQ(c5.size(), 40u);
}

TEST_F(GitHistory, UnknownRevisionsAndOptionsResolveToNothing) {
    EXPECT_EQ(repository->resolve("no-such-branch"), std::nullopt);
    EXPECT_EQ(repository->resolve("0000000000000000000000000000000000000000"), std::nullopt);
    EXPECT_EQ(repository->resolve("--all"), std::nullopt);
}

TEST_F(GitHistory, NamesAreAnsweredAsNowUnlessAskedToKeepTheFirstAnswer) {
    // As now (a server's view): a branch that moves and a branch that appears are seen.
    EXPECT_EQ(repository->resolve("main"), c5);
    EXPECT_EQ(repository->resolve("later"), std::nullopt);
    const auto c6 = scratch.commit("sixth");
    scratch.git({"branch", "later"});
    EXPECT_EQ(repository->resolve("main"), c6);
    EXPECT_EQ(repository->resolve("later"), c6);

    // As first answered (one command's view): both keep their first answers, in copies too,
    // while a repository opened anew sees the branch move.
    const auto command = Repository::open(scratch.directory(), Names::AsFirstAnswered).value();
    EXPECT_EQ(command.resolve("main"), c6);
    EXPECT_EQ(command.resolve("gone-later"), std::nullopt);
    const auto c7 = scratch.commit("seventh");
    scratch.git({"branch", "gone-later"});
    const auto copy = command;
    EXPECT_EQ(copy.resolve("main"), c6);
    EXPECT_EQ(command.resolve("gone-later"), std::nullopt);
    EXPECT_EQ(Repository::open(scratch.directory())->resolve("main"), c7);
}

TEST_F(GitHistory, AFullCommitIdFoundOnceIsNotAskedOfGitAgain) {
    ASSERT_EQ(repository->resolve("main"), c5);
    ASSERT_EQ(repository->resolve(c3), c3);
    // With git gone from PATH, what only git can answer fails; the commits found do not.
    const std::string path = std::getenv("PATH");
    ::setenv("PATH", (scratch.directory() / "no-git-here").c_str(), 1);
    EXPECT_EQ(repository->resolve(c5), c5);
    EXPECT_EQ(repository->resolve(c3), c3);
    EXPECT_THROW(repository->resolve("main"), GitError);
    EXPECT_THROW(repository->resolve(c4), GitError);
    ::setenv("PATH", path.c_str(), 1);
}

TEST_F(GitHistory, MergeBaseIsTheForkPointNotTheTip) {
    EXPECT_EQ(repository->merge_base(f1, "main"), c2);
    EXPECT_EQ(repository->merge_base("main", "feature"), c2);
    EXPECT_EQ(repository->merge_base(c5, c4), c4);
}

TEST_F(GitHistory, UnrelatedHistoriesHaveNoMergeBase) {
    scratch.git({"checkout", "--quiet", "--orphan", "lonely"});
    const auto lonely = scratch.commit("unrelated root");
    EXPECT_EQ(repository->merge_base(lonely, "main"), std::nullopt);
}

TEST_F(GitHistory, MergeBaseOfAnUnknownRevisionIsAnError) {
    EXPECT_THROW(repository->merge_base("no-such-branch", "main"), GitError);
}

TEST_F(GitHistory, FirstParentChainSkipsTheMergedSideBranch) {
    EXPECT_EQ(repository->first_parent_chain("main", 0),
              (std::vector<std::string>{c5, merge, c4, c3, c2, c1}));
    EXPECT_EQ(repository->first_parent_chain("feature", 0), (std::vector<std::string>{f1, c2, c1}));
}

TEST_F(GitHistory, FirstParentChainStopsAtTheLimit) {
    EXPECT_EQ(repository->first_parent_chain(merge, 2), (std::vector<std::string>{merge, c4}));
}

TEST_F(GitHistory, FirstParentChainOfAnUnknownRevisionIsAnError) {
    EXPECT_THROW(repository->first_parent_chain("no-such-branch", 0), GitError);
}

TEST_F(GitHistory, CurrentBranchFollowsCheckoutAndIsEmptyWhenDetached) {
    EXPECT_EQ(repository->current_branch(), "main");
    scratch.git({"checkout", "--quiet", "feature"});
    EXPECT_EQ(repository->current_branch(), "feature");
    scratch.git({"checkout", "--quiet", "--detach", c3});
    EXPECT_EQ(repository->current_branch(), std::nullopt);
}

TEST_F(GitHistory, DefaultBranchIsMainWithoutARemote) {
    EXPECT_EQ(repository->default_branch(), "main");
}

TEST_F(GitHistory, DefaultBranchFollowsOriginHead) {
    scratch.git({"update-ref", "refs/remotes/origin/trunk", c4});
    scratch.git({"symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk"});
    EXPECT_EQ(repository->default_branch(), "origin/trunk");
}

TEST_F(GitHistory, DefaultBranchFallsBackToMaster) {
    scratch.git({"branch", "--quiet", "-m", "main", "master"});
    EXPECT_EQ(repository->default_branch(), "master");
    scratch.git({"branch", "--quiet", "-m", "master", "trunk"});
    EXPECT_EQ(repository->default_branch(), std::nullopt);
}

TEST_F(GitHistory, DirtyOnlyWhenTrackedFilesChange) {
    scratch.write_file("tracked.txt", "one\n");
    scratch.commit("add a tracked file");
    EXPECT_FALSE(repository->dirty());
    std::ofstream(scratch.directory() / "untracked.txt") << "new\n";
    EXPECT_FALSE(repository->dirty());
    std::ofstream(scratch.directory() / "tracked.txt") << "two\n";
    EXPECT_TRUE(repository->dirty());
}

TEST_F(GitHistory, CommitInfoDescribesTheCommit) {
    const auto info = repository->commit_info(c3.substr(0, 10));
    ASSERT_TRUE(info);
    EXPECT_EQ(info->sha, c3);
    EXPECT_EQ(info->subject, "third");
    EXPECT_EQ(info->author, "Benchwatch Tests");
    // c3 is the fourth commit made (f1 came before it): 1790812800 + 4 × 3600 = 1790827200 s.
    EXPECT_EQ(info->time_ms, 1790827200000);
    EXPECT_EQ(info->timestamp, "2026-10-01T04:00:00+00:00");
    EXPECT_EQ(info->message, "third");
    EXPECT_FALSE(repository->commit_info("no-such-branch"));
}

TEST(Repository, FolderOutsideGitIsNoRepository) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "benchwatch-plain-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    EXPECT_FALSE(Repository::open(pattern));
    std::filesystem::remove_all(pattern);
}

TEST(Repository, MissingFolderIsNoRepository) {
    EXPECT_FALSE(Repository::open("/nonexistent/benchwatch/repository"));
}

}  // namespace
}  // namespace benchwatch::vcs
