// What could break: a pull request compared with the default branch's tip instead of its merge
// base, a silent or miscounted nearest-ancestor fallback, or noise learned from commits of merged
// side branches that are not on the default branch's first-parent chain.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "compare/compare.hpp"
#include "recording.hpp"
#include "support/test_support.hpp"

namespace benchwatch::compare {
namespace {

using testing::Recorder;
using testing::ScratchRepository;
using testing::timed;

class BaselineWithGit : public ::testing::Test {
  protected:
    // main: c1 - c2 - c3 - c4 (tip); feature forks at c2: f1.
    void SetUp() override {
        c1 = scratch.commit("c1");
        c2 = scratch.commit("c2");
        scratch.git({"checkout", "--quiet", "-b", "feature"});
        f1 = scratch.commit("f1");
        scratch.git({"checkout", "--quiet", "main"});
        c3 = scratch.commit("c3");
        c4 = scratch.commit("c4");
        repository = vcs::Repository::open(scratch.directory());
        ASSERT_TRUE(repository);
    }

    model::Comparison compare_feature() {
        return compare(recorder.store, &*repository, recorder.options("feature"));
    }

    ScratchRepository scratch;
    std::optional<vcs::Repository> repository;
    Recorder recorder;
    std::string c1, c2, c3, c4, f1;
};

TEST_F(BaselineWithGit, UsesTheMergeBaseNotTheTip) {
    recorder.record_a(c1, "main", 100);
    recorder.record_a(c2, "main", 110);
    recorder.record_a(c4, "main", 200);
    recorder.record_a(f1, "feature", 121);
    const auto comparison = compare_feature();

    EXPECT_EQ(comparison.head_commit, f1);
    EXPECT_EQ(comparison.baseline.kind, model::BaselineKind::MergeBase);
    EXPECT_EQ(comparison.baseline.commit, c2);
    EXPECT_EQ(comparison.baseline.merge_base, c2);
    EXPECT_EQ(comparison.history_order, model::HistoryOrder::Git);
    EXPECT_EQ(comparison.history_runs, 2);  // c2 and c1; c4 is after the fork
    ASSERT_EQ(comparison.benchmarks.size(), 1u);
    const auto& a = comparison.benchmarks[0];
    EXPECT_EQ(a.base, 110);  // the tip would have given 200
    EXPECT_EQ(a.head, 121);
    // History c1, c2 = 100, 110: one pair, typical = ln(1.1) = 0.0953; threshold = max(3 × 0.0953,
    // ln 1.03) = 0.2859; |ln(121/110)| = ln 1.1 is below it.
    EXPECT_DOUBLE_EQ(a.typical_change, std::log(1.1));
    EXPECT_EQ(a.history_pairs, 1);
    EXPECT_DOUBLE_EQ(a.threshold, 3 * std::log(1.1));
    EXPECT_EQ(a.verdict, model::Verdict::Unchanged);
}

TEST_F(BaselineWithGit, FallsBackToTheNearestBenchmarkedAncestor) {
    recorder.record_a(c1, "main", 100);
    recorder.record_a(c4, "main", 200);
    recorder.record_a(f1, "feature", 150);
    const auto comparison = compare_feature();

    EXPECT_EQ(comparison.baseline.kind, model::BaselineKind::NearestAncestor);
    EXPECT_EQ(comparison.baseline.merge_base, c2);
    EXPECT_EQ(comparison.baseline.commit, c1);
    EXPECT_EQ(comparison.baseline.commits_earlier, 1);
    ASSERT_EQ(comparison.benchmarks.size(), 1u);
    EXPECT_EQ(comparison.benchmarks[0].base, 100);
}

TEST_F(BaselineWithGit, CountsEveryStepToTheNearestAncestor) {
    // A second fork, at c3: its merge base c3 and c2 have no run, c1 is two steps earlier.
    scratch.git({"checkout", "--quiet", "-b", "late", c3});
    const auto late = scratch.commit("late");
    recorder.record_a(c1, "main", 100);
    recorder.record_a(late, "late", 100);
    const auto comparison = compare(recorder.store, &*repository, recorder.options("late"));

    EXPECT_EQ(comparison.baseline.kind, model::BaselineKind::NearestAncestor);
    EXPECT_EQ(comparison.baseline.merge_base, c3);
    EXPECT_EQ(comparison.baseline.commit, c1);
    EXPECT_EQ(comparison.baseline.commits_earlier, 2);
}

TEST_F(BaselineWithGit, NoBenchmarkedAncestorMeansNoBaseline) {
    recorder.record_a(c4, "main", 200);  // after the fork: never a baseline of f1
    recorder.record(f1, "feature", {timed("b", 2), timed("a", 1)});
    const auto comparison = compare_feature();

    EXPECT_EQ(comparison.baseline.kind, model::BaselineKind::None);
    EXPECT_EQ(comparison.baseline.commit, "");
    EXPECT_EQ(comparison.baseline.merge_base, c2);
    EXPECT_TRUE(comparison.benchmarks.empty());
    ASSERT_EQ(comparison.head_only_results.size(), 2u);
    EXPECT_EQ(comparison.head_only_results[0].benchmark, "a");
    EXPECT_EQ(comparison.head_only_results[1].benchmark, "b");
    EXPECT_EQ(comparison.summaries.size(), comparison.categories.size());
}

TEST_F(BaselineWithGit, ExplicitBaseIsResolvedByGit) {
    recorder.record_a(c2, "main", 110);
    recorder.record_a(c4, "main", 200);
    recorder.record_a(f1, "feature", 121);
    auto options = recorder.options(f1.substr(0, 8));
    options.base = "main";
    const auto comparison = compare(recorder.store, &*repository, options);

    EXPECT_EQ(comparison.head_commit, f1);
    EXPECT_EQ(comparison.baseline.kind, model::BaselineKind::Explicit);
    EXPECT_EQ(comparison.baseline.commit, c4);
    EXPECT_EQ(comparison.history_order, model::HistoryOrder::Git);
    EXPECT_EQ(comparison.history_runs, 2);  // c4 and c2 on main's first-parent chain
}

TEST_F(BaselineWithGit, ExplicitBaseWithoutRunIsAnError) {
    recorder.record_a(f1, "feature", 121);
    auto options = recorder.options("feature");
    options.base = "main";
    try {
        compare(recorder.store, &*repository, options);
        FAIL() << "expected CompareError";
    } catch (const CompareError& error) {
        EXPECT_EQ(std::string(error.what()),
                  fmt::format("no run of commit {} for project 'p' on machine 'm'; record one "
                              "with `benchwatch record --commit {}` first",
                              c4, c4));
    }
}

TEST_F(BaselineWithGit, UnknownDefaultBranchRevisionIsAnError) {
    recorder.record_a(f1, "feature", 121);
    auto options = recorder.options("feature");
    options.source.default_branch_revision = "origin/trunk";
    try {
        compare(recorder.store, &*repository, options);
        FAIL() << "expected CompareError";
    } catch (const CompareError& error) {
        EXPECT_EQ(std::string(error.what()),
                  fmt::format("default branch 'origin/trunk' is not a revision of the repository "
                              "in {}; pass --default-branch with a branch that exists",
                              scratch.directory().string()));
    }
}

TEST_F(BaselineWithGit, HeadOnTheDefaultBranchIsComparedWithItsParentRun) {
    recorder.record_a(c3, "main", 100);
    recorder.record_a(c4, "main", 105);
    const auto comparison = compare(recorder.store, &*repository, recorder.options("main"));

    EXPECT_EQ(comparison.head_commit, c4);
    EXPECT_EQ(comparison.baseline.kind, model::BaselineKind::NearestAncestor);
    EXPECT_EQ(comparison.baseline.merge_base, c4);
    EXPECT_EQ(comparison.baseline.commit, c3);
    EXPECT_EQ(comparison.baseline.commits_earlier, 1);
}

TEST(HistoryWithGit, FirstParentChainExcludesMergedSideBranches) {
    // main: c1 - c2 - m - c3; side forks at c2 with s1 and is merged as m; feature forks at m.
    ScratchRepository scratch;
    const auto c1 = scratch.commit("c1");
    const auto c2 = scratch.commit("c2");
    scratch.git({"checkout", "--quiet", "-b", "side"});
    const auto s1 = scratch.commit("s1");
    scratch.git({"checkout", "--quiet", "main"});
    scratch.git({"merge", "--quiet", "--no-ff", "-m", "merge side", "side"});
    const auto merge = scratch.git({"rev-parse", "HEAD"});
    scratch.git({"checkout", "--quiet", "-b", "feature"});
    const auto f1 = scratch.commit("f1");
    scratch.git({"checkout", "--quiet", "main"});
    const auto c3 = scratch.commit("c3");
    const auto repository = vcs::Repository::open(scratch.directory());
    ASSERT_TRUE(repository);

    Recorder recorder;
    recorder.record_a(c1, "main", 100);
    recorder.record_a(c2, "main", 110);
    recorder.record_a(s1, "main", 1000);  // even recorded with the default branch's name
    recorder.record_a(merge, "main", 121);
    recorder.record_a(c3, "main", 500);
    recorder.record_a(f1, "feature", 133.1);
    const auto comparison = compare(recorder.store, &*repository, recorder.options("feature"));

    EXPECT_EQ(comparison.baseline.kind, model::BaselineKind::MergeBase);
    EXPECT_EQ(comparison.baseline.commit, merge);
    EXPECT_EQ(comparison.history_runs, 3);  // merge, c2, c1
    ASSERT_EQ(comparison.benchmarks.size(), 1u);
    // Series 100, 110, 121: both pairs ln 1.1, so the typical change is ln 1.1. With s1 in it
    // (100, 110, 1000, 121) the median would be of ln 9.09 and ln 8.26 as well.
    EXPECT_DOUBLE_EQ(comparison.benchmarks[0].typical_change, std::log(1.1));
    EXPECT_EQ(comparison.benchmarks[0].history_pairs, 2);
}

TEST(HistoryWithGit, HeadUnknownToGitFallsBackToRecordedOrder) {
    ScratchRepository scratch;
    scratch.commit("unrelated");
    const auto repository = vcs::Repository::open(scratch.directory());
    ASSERT_TRUE(repository);
    Recorder recorder;
    recorder.record_a("v1", "main", 100);
    recorder.record_a("pr", "feature", 100);
    const auto comparison = compare(recorder.store, &*repository, recorder.options("pr"));

    EXPECT_EQ(comparison.baseline.kind, model::BaselineKind::LatestOnDefaultBranch);
    EXPECT_EQ(comparison.baseline.commit, "v1");
    EXPECT_EQ(comparison.history_order, model::HistoryOrder::Recorded);
}

}  // namespace
}  // namespace benchwatch::compare
