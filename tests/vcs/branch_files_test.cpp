// What could break: files lost, altered or replaced on their way to and from a data branch, the
// user's work tree, index or branches touched by a push, a push that another job overtook given
// up on (or retried forever), or a refusal that no retry can fix retried anyway.
#include "vcs/branch_files.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include "support/test_support.hpp"

namespace benchwatch::vcs {
namespace {

using testing::GitRepository;
using testing::TemporaryDirectory;

// One bare repository as the remote and two clones of it, "a" and "b", each with one commit of
// its own on main and "origin" pointing at the remote.
class BranchFilesTest : public ::testing::Test {
  protected:
    void SetUp() override {
        // git run by FileBranch sees no user or system configuration, as on a fresh CI runner.
        ::setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
        ::setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
        testing::run_checked({"git", "init", "--quiet", "--bare", remote_path().string()},
                             folder_.path());
        for (auto* clone : {&a_, &b_}) {
            clone->git({"remote", "add", "origin", remote_path().string()});
            clone->write_file("code.txt", "the project's code\n");
            clone->commit("code");
        }
    }

    std::filesystem::path remote_path() const { return folder_.path() / "remote.git"; }

    static FileBranch branch_of(const GitRepository& clone) {
        return FileBranch(Repository::open(clone.directory()).value(), "origin", "data");
    }

    // A publish callback that adds `files` and records the paths it was shown.
    static auto adding(std::vector<BranchFile> files, std::set<std::string>& shown) {
        return [files, &shown](const std::set<std::string>& existing) {
            shown = existing;
            return files;
        };
    }

    static std::vector<BranchFile> read_all(const FileBranch& branch) {
        const auto tip = branch.fetch().value();
        return branch.read_blobs(branch.entries(tip, ""));
    }

    static constexpr RetryPolicy quick{.attempts = 3,
                                       .first_delay = std::chrono::milliseconds(1),
                                       .max_delay = std::chrono::milliseconds(2)};

    TemporaryDirectory folder_{"benchwatch-branch-test"};
    GitRepository a_{folder_.path() / "a"};
    GitRepository b_{folder_.path() / "b"};
};

TEST_F(BranchFilesTest, AMissingBranchFetchesAsNothing) {
    EXPECT_EQ(branch_of(a_).fetch(), std::nullopt);
}

TEST_F(BranchFilesTest, PublishedFilesReadBackByteForByteFromAnotherClone) {
    const std::vector<BranchFile> files{{"runs/p/one.json", "{\"a\": 1}\n"},
                                        {"runs/q/two.bin", std::string("\0\r\n\xff", 4)}};
    std::set<std::string> shown{"not called"};
    const auto outcome = branch_of(a_).publish(adding(files, shown), "add two", quick);
    EXPECT_TRUE(shown.empty());  // the branch did not exist
    EXPECT_EQ(outcome.files_added, 2U);
    EXPECT_EQ(outcome.attempts, 1);
    EXPECT_EQ(outcome.commit,
              testing::run_checked({"git", "rev-parse", "data"}, remote_path()).out.substr(0, 40));

    const auto branch = branch_of(b_);
    EXPECT_EQ(read_all(branch), files);
    EXPECT_EQ(branch.list(outcome.commit, "runs/q/"), std::vector<std::string>{"runs/q/two.bin"});
    // The first commit holds only the files given: nothing of the clone's own code.
    EXPECT_EQ(b_.git({"rev-list", "--count", "origin/data"}), "1");
    EXPECT_EQ(b_.git({"log", "-1", "--format=%s", "origin/data"}), "add two");
}

TEST_F(BranchFilesTest, LaterPublishesAddOnlyNewPathsAndNeverReplaceOne) {
    std::set<std::string> shown;
    branch_of(a_).publish(adding({{"runs/1.json", "first"}}, shown), "one", quick);
    const auto outcome = branch_of(b_).publish(
        adding({{"runs/1.json", "changed"}, {"runs/2.json", "second"}}, shown), "two", quick);
    EXPECT_EQ(shown, (std::set<std::string>{"runs/1.json"}));
    EXPECT_EQ(outcome.files_added, 1U);
    EXPECT_EQ(read_all(branch_of(a_)),
              (std::vector<BranchFile>{{"runs/1.json", "first"}, {"runs/2.json", "second"}}));
    EXPECT_EQ(a_.git({"rev-list", "--count", "origin/data"}), "2");
}

TEST_F(BranchFilesTest, NothingToAddPushesNothing) {
    std::set<std::string> shown;
    const auto first =
        branch_of(a_).publish(adding({{"runs/1.json", "first"}}, shown), "one", quick);
    const auto again =
        branch_of(a_).publish(adding({{"runs/1.json", "first"}}, shown), "one", quick);
    EXPECT_EQ(again.files_added, 0U);
    EXPECT_EQ(again.attempts, 0);
    EXPECT_EQ(again.commit, first.commit);
}

TEST_F(BranchFilesTest, PublishLeavesTheWorkTreeIndexAndBranchesAlone) {
    a_.write_file("code.txt", "staged change\n");
    testing::write_text(a_.directory() / "code.txt", "unstaged change\n");
    testing::write_text(a_.directory() / "untracked.txt", "new\n");
    const auto state = [this] {
        return a_.git({"status", "--porcelain=v1", "--branch"}) + "|" +
               a_.git({"diff", "--cached"}) + "|" + a_.git({"diff"}) + "|" +
               a_.git({"rev-parse", "HEAD"}) + "|" + a_.git({"branch", "--list"}) + "|" +
               a_.git({"ls-files", "--stage"});
    };
    const auto before = state();
    std::set<std::string> shown;
    branch_of(a_).publish(adding({{"runs/1.json", "first"}}, shown), "one", quick);
    EXPECT_EQ(state(), before);
    EXPECT_EQ(testing::read_text(a_.directory() / "code.txt"), "unstaged change\n");
    EXPECT_FALSE(std::filesystem::exists(a_.directory() / "runs"));
}

TEST_F(BranchFilesTest, APushOvertakenByAnotherJobStartsAgainFromTheNewTip) {
    std::set<std::string> shown_to_b;
    int calls = 0;
    // Between a's fetch and a's push, b publishes: a's first push is refused.
    const auto racing = [&](const std::set<std::string>& existing) {
        if (++calls == 1)
            branch_of(b_).publish(adding({{"runs/b.json", "from b"}}, shown_to_b), "b", quick);
        EXPECT_EQ(existing.contains("runs/b.json"), calls == 2);
        return std::vector<BranchFile>{{"runs/a.json", "from a"}};
    };
    const auto outcome = branch_of(a_).publish(racing, "a", quick);
    EXPECT_EQ(calls, 2);
    EXPECT_EQ(outcome.attempts, 2);
    EXPECT_EQ(outcome.files_added, 1U);
    EXPECT_EQ(read_all(branch_of(b_)),
              (std::vector<BranchFile>{{"runs/a.json", "from a"}, {"runs/b.json", "from b"}}));
}

TEST_F(BranchFilesTest, APushOvertakenEveryTimeGivesUpAfterTheLastAttempt) {
    int calls = 0;
    std::set<std::string> shown;
    const auto always_overtaken = [&](const std::set<std::string>&) {
        ++calls;
        branch_of(b_).publish(adding({{fmt::format("runs/b{}.json", calls), "b"}}, shown), "b",
                              quick);
        return std::vector<BranchFile>{{"runs/a.json", "from a"}};
    };
    try {
        branch_of(a_).publish(always_overtaken, "a", quick);
        FAIL() << "published although every push was overtaken";
    } catch (const GitError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "git in " + a_.directory().string() +
                      ": cannot push to origin/data: other pushes got there first 3 times in a "
                      "row (last: [rejected] (fetch first)); run the push again");
    }
    EXPECT_EQ(calls, 3);
}

TEST_F(BranchFilesTest, ARefusalThatNoRetryCanFixIsReportedAtOnce) {
    testing::write_text(remote_path() / "hooks" / "pre-receive", "#!/bin/sh\nexit 1\n");
    std::filesystem::permissions(remote_path() / "hooks" / "pre-receive",
                                 std::filesystem::perms::owner_all);
    int calls = 0;
    const auto one_file = [&](const std::set<std::string>&) {
        ++calls;
        return std::vector<BranchFile>{{"runs/a.json", "from a"}};
    };
    try {
        branch_of(a_).publish(one_file, "a", quick);
        FAIL() << "published although the remote refuses every push";
    } catch (const GitError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "git in " + a_.directory().string() +
                      ": cannot push to origin/data: [remote rejected] (pre-receive hook "
                      "declined); check that this job may push to remote 'origin'");
    }
    EXPECT_EQ(calls, 1);
}

TEST_F(BranchFilesTest, AnUnknownRemoteSaysWhichAndHowToFixIt) {
    const FileBranch branch(Repository::open(a_.directory()).value(), "nowhere", "data");
    try {
        branch.fetch();
        FAIL() << "fetched from a remote that does not exist";
    } catch (const GitError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "git in " + a_.directory().string() +
                      ": cannot reach remote 'nowhere': fatal: 'nowhere' does not appear to be a "
                      "git repository; pass --remote with the name of a remote that this job may "
                      "read");
    }
}

}  // namespace
}  // namespace benchwatch::vcs
