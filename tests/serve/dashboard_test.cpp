// What could break: points attached to the wrong commit or time, a trend judged against the
// metric's direction or by another rule than compare's, a retired benchmark shown as current, an
// environment change missed, or the default machine chosen wrongly.

#include "serve/dashboard.hpp"

#include <gtest/gtest.h>

#include "sample_history.hpp"
#include "store/store.hpp"
#include "support/test_store.hpp"

namespace benchwatch::serve {
namespace {

using testing::hour_ms;
using testing::start_ms;

class DashboardTest : public ::testing::Test {
  protected:
    void SetUp() override {
        store_ = store::open_store(benchwatch::testing::test_store_url(directory_.path()));
        testing::record_sample_history(*store_);
        DashboardOptions options;
        options.repository_url = "https://forge.example/o/r";
        dashboard_ = load_dashboard(*store_, nullptr, options);
    }

    const MachineHistory& m1() const { return *dashboard_.find_project("p")->find_machine("m1"); }

    benchwatch::testing::TemporaryDirectory directory_{"benchwatch-serve"};
    std::unique_ptr<store::Store> store_;
    Dashboard dashboard_;
};

TEST(StableId, IsFnv1aOfTheBytesInSixteenHexDigits) {
    EXPECT_EQ(stable_id(""), "cbf29ce484222325");   // the FNV-1a offset basis
    EXPECT_EQ(stable_id("a"), "af63dc4c8601ec8c");  // (basis ^ 0x61) × prime, mod 2^64
    EXPECT_NE(stable_id("a\nthroughput"), stable_id("a"));
}

TEST_F(DashboardTest, ProjectsMachinesAndTheDefaultMachine) {
    EXPECT_EQ(dashboard_.default_branch, "main");
    EXPECT_EQ(dashboard_.last_run_id, 13);  // 10 + 2 + the pull request's run
    ASSERT_EQ(dashboard_.projects.size(), 1u);
    const ProjectHistory& project = dashboard_.projects[0];
    EXPECT_EQ(project.name, "p");
    EXPECT_EQ(project.id, stable_id("p"));
    ASSERT_EQ(project.machines.size(), 2u);
    EXPECT_EQ(project.machines[0].name, "m1");
    EXPECT_EQ(project.machines[1].name, "m2");
    EXPECT_EQ(project.default_machine, "m1");  // 10 commits against 2
    EXPECT_EQ(project.find_machine("")->name, "m1");
    EXPECT_EQ(project.find_machine("m3"), nullptr);
    EXPECT_EQ(project.machines[1].commits.size(), 2u);
}

TEST_F(DashboardTest, CommitsInRecordedOrderWithTimesThatAlwaysMoveOn) {
    const MachineHistory& machine = m1();
    EXPECT_EQ(machine.order, model::HistoryOrder::Recorded);
    ASSERT_EQ(machine.commits.size(), 10u);
    EXPECT_EQ(machine.commits[0].commit, "c01");
    EXPECT_EQ(machine.commits[9].commit, "c10");
    EXPECT_EQ(machine.commits[0].time_ms, start_ms + hour_ms);
    EXPECT_EQ(machine.commits[2].time_ms, start_ms + 3 * hour_ms);
    // Recorded at +2 h: placed 1 ms after the commit before it, never at the same instant.
    EXPECT_EQ(machine.commits[3].time_ms, start_ms + 3 * hour_ms + 1);
    EXPECT_EQ(machine.commits[4].time_ms, start_ms + 5 * hour_ms);
}

TEST(DashboardDates, PointsSitAtCommitDatesAndDirtyRunsAreNoPoints) {
    benchwatch::testing::TemporaryDirectory directory{"benchwatch-serve"};
    const auto store = store::open_store(benchwatch::testing::test_store_url(directory.path()));
    // Recorded an hour apart; committed years apart.
    const std::pair<const char*, const char*> commits[] = {{"c1", "2016-03-01T12:00:00Z"},
                                                           {"c2", "2020-06-15T12:00:00Z"},
                                                           {"c3", "2024-01-10T13:00:00+01:00"}};
    int number = 0;
    for (const auto& [commit, time] : commits) {
        model::Run run = testing::sample_run("m1", commit, ++number);
        run.results = {testing::result("a", 100)};
        run.environment = {{"git.dirty", "no"}};
        run.commit_info = model::CommitInfo{"m", "a", time, ""};
        store->record(run);
    }
    model::Run dirty = testing::sample_run("m1", "c2", ++number);
    dirty.content_hash = "dirty";
    dirty.results = {testing::result("a", 10)};
    dirty.environment = {{"git.dirty", "yes"}};
    store->record(dirty);
    model::Run dirty_only = testing::sample_run("m1", "c4", ++number);
    dirty_only.results = {testing::result("a", 10)};
    dirty_only.environment = {{"git.dirty", "yes"}};
    dirty_only.commit_info = model::CommitInfo{"m", "a", "2025-01-01T00:00:00Z", ""};
    store->record(dirty_only);

    const auto dashboard = load_dashboard(*store, nullptr, {});
    const MachineHistory& machine = *dashboard.find_project("p")->find_machine("m1");
    EXPECT_EQ(machine.order, model::HistoryOrder::Recorded);
    ASSERT_EQ(machine.commits.size(), 3u);
    EXPECT_EQ(machine.commits[0].commit, "c1");
    EXPECT_EQ(machine.commits[0].time_ms, 1456833600000);
    EXPECT_EQ(machine.commits[1].commit, "c2");
    EXPECT_EQ(machine.commits[1].time_ms, 1592222400000);
    EXPECT_EQ(machine.commits[2].commit, "c3");
    EXPECT_EQ(machine.commits[2].time_ms, 1704888000000);
    ASSERT_EQ(machine.benchmarks.size(), 1u);
    EXPECT_EQ(machine.benchmarks[0].values, (std::vector<double>{100, 100, 100}));
    EXPECT_TRUE(machine.pulls.empty());
}

TEST(DashboardDates, CommitsThatShareASecondGetAPlaceEachOnTheTimeAxis) {
    // A rebased stack lands with one committer date on every commit.
    benchwatch::testing::TemporaryDirectory directory{"benchwatch-serve"};
    const auto store = store::open_store(benchwatch::testing::test_store_url(directory.path()));
    for (int number = 1; number <= 3; ++number) {
        model::Run run = testing::sample_run("m1", "c" + std::to_string(number), number);
        run.results = {testing::result("a", 100.0 * number)};
        run.commit_info = model::CommitInfo{"m", "a", "2024-01-10T12:00:00Z", ""};
        store->record(run);
    }
    const auto dashboard = load_dashboard(*store, nullptr, {});
    const MachineHistory& machine = *dashboard.find_project("p")->find_machine("m1");
    ASSERT_EQ(machine.commits.size(), 3u);
    EXPECT_EQ(machine.commits[0].time_ms, 1704888000000);
    EXPECT_EQ(machine.commits[1].time_ms, 1704888000001);
    EXPECT_EQ(machine.commits[2].time_ms, 1704888000002);
}

TEST_F(DashboardTest, SubjectAuthorAndForgeLinks) {
    const CommitPoint& first = m1().commits[0];
    EXPECT_EQ(first.subject, "Fix it");  // the message's first line only
    EXPECT_EQ(first.author, "Ann");
    EXPECT_EQ(first.url, "https://forge.example/o/r/commit/c01");
    EXPECT_EQ(m1().commits[2].subject, "");
    EXPECT_EQ(m1().commits[1].url, "https://forge.example/o/r/commit/c02");
}

TEST_F(DashboardTest, BenchmarksByCategoryThenNameThenMetric) {
    const auto& benchmarks = m1().benchmarks;
    ASSERT_EQ(benchmarks.size(), 3u);
    // "throughput" sorts before "time"; Performance comes before Latency.
    EXPECT_EQ(benchmarks[0].name, "a");
    EXPECT_EQ(benchmarks[0].metric, "throughput");
    EXPECT_EQ(benchmarks[0].id, stable_id("a\nthroughput"));
    EXPECT_EQ(benchmarks[0].unit, "B/s");
    EXPECT_EQ(benchmarks[1].metric, "time");
    EXPECT_EQ(benchmarks[1].id, stable_id("a"));
    EXPECT_EQ(benchmarks[1].category, "Performance");
    EXPECT_EQ(benchmarks[2].name, "latency/x");
    EXPECT_EQ(benchmarks[2].category, "Latency");
}

TEST_F(DashboardTest, ValuesAndCommitIndices) {
    const BenchmarkSeries& a = *m1().find_benchmark(stable_id("a"));
    EXPECT_EQ(a.values, (std::vector<double>{100, 100, 100, 100, 100, 120, 120, 120, 120, 120}));
    EXPECT_EQ(a.commits, (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
    const BenchmarkSeries& x = *m1().find_benchmark(stable_id("latency/x"));
    EXPECT_EQ(x.commits.size(), 9u);
    EXPECT_EQ(x.commits.back(), 8u);
    EXPECT_EQ(m1().find_benchmark("0000000000000000"), nullptr);
}

TEST_F(DashboardTest, TrendFollowsTheMetricsDirection) {
    // The latest run (120) against the nine before it, by the level method: of the deviations at
    // positions 5…8 none can be tested for lasting (five runs from each are needed), so there
    // are four, under the five needed to learn the noise. The margin is then twice the largest
    // change, 2 ln 1.2 (1.2² − 1 = 44%), and 120 against the median of the last five (120) is
    // no move: the latest run is not flagged.
    // The step from 100 to 120 at c06 is trusted: five runs on either side, ln 1.2 above ln 1.03
    // (five runs of 100 give no deviation, so the short-history margin is the category minimum)
    // and the rank test's p ≈ 0.004 (below). It began 5 commits ago, within the recent 20, and is
    // worse: regressed, by the step's 120 / 100 − 1.
    const BenchmarkSeries& time = *m1().find_benchmark(stable_id("a"));
    EXPECT_EQ(time.trend, Trend::Regressed);
    EXPECT_EQ(time.trend_reason, TrendReason::RecentStep);
    EXPECT_DOUBLE_EQ(time.trend_change, 120.0 / 100.0 - 1);
    EXPECT_EQ(time.typical_change, 0.0);
    EXPECT_NEAR(time.threshold, 1.2 * 1.2 - 1, 1e-12);
    ASSERT_EQ(time.steps.size(), 1u);
    EXPECT_EQ(time.steps[0].commit, 5u);
    EXPECT_EQ(time.steps[0].before_commit, 4u);
    // Against all ten runs the deviations at 5…9 are still four of too few (at 5 the level after
    // it lasted, so it is left out): twice the largest change again.
    ASSERT_TRUE(time.detectable_change);
    EXPECT_NEAR(*time.detectable_change, 0.44, 1e-12);
    const BenchmarkSeries& throughput = *m1().find_benchmark(stable_id("a\nthroughput"));
    EXPECT_EQ(throughput.trend, Trend::Improved);  // more bytes per second is better
    EXPECT_EQ(throughput.trend_reason, TrendReason::RecentStep);
    EXPECT_STREQ(to_string(Trend::Improved), "improved");
    EXPECT_STREQ(to_string(Trend::Regressed), "regressed");
    EXPECT_STREQ(to_string(Trend::Stable), "stable");
    EXPECT_TRUE(m1().suite_events.empty());  // three benchmarks: under the ten an event needs
}

TEST_F(DashboardTest, RetiredWhenTheLatestCommitLacksIt) {
    const BenchmarkSeries& x = *m1().find_benchmark(stable_id("latency/x"));
    EXPECT_TRUE(x.retired);
    // 50 throughout and absent from the latest commit: its latest run is not judged (a report
    // on c10 would not compare it), it has no step, and it is stable.
    EXPECT_EQ(x.trend, Trend::Stable);
    EXPECT_EQ(x.trend_reason, TrendReason::None);
    EXPECT_DOUBLE_EQ(x.threshold, 0);
    ASSERT_TRUE(x.detectable_change);
    EXPECT_NEAR(*x.detectable_change, 0.05, 1e-12);  // no change at all: Latency's minimum
    EXPECT_FALSE(m1().find_benchmark(stable_id("a"))->retired);
}

TEST_F(DashboardTest, EnvironmentChangeAtTheFirstRunWithTheNewValue) {
    const auto& changes = m1().environment_changes;
    ASSERT_EQ(changes.size(), 1u);
    EXPECT_EQ(changes[0].commit, 5u);  // c06
    ASSERT_EQ(changes[0].changes.size(), 1u);
    EXPECT_EQ(changes[0].changes[0].key, "julia");
    EXPECT_EQ(changes[0].changes[0].from, "1.10");
    EXPECT_EQ(changes[0].changes[0].to, "1.11");
    // m2's runs recorded no environment: nothing to compare.
    EXPECT_TRUE(dashboard_.projects[0].machines[1].environment_changes.empty());
}

TEST_F(DashboardTest, PullRequestHeadsOffTheDefaultBranch) {
    const auto& pulls = m1().pulls;
    ASSERT_EQ(pulls.size(), 1u);
    EXPECT_EQ(pulls[0].commit, "f1");
    EXPECT_EQ(pulls[0].branch, "feature");
    EXPECT_EQ(pulls[0].pull_request, 7);
    EXPECT_EQ(pulls[0].time_ms, start_ms + 11 * hour_ms);
}

TEST(LoadDashboard, ARunThatDidNotCaptureAKeyNeitherChangesItNorHidesAChange) {
    benchwatch::testing::TemporaryDirectory directory{"benchwatch-serve"};
    auto store = store::open_store(benchwatch::testing::test_store_url(directory.path()));
    const model::Environment environments[] = {
        {{"arch", "x86_64"}, {"julia", "1.10"}},
        {{"julia", "1.10"}},  // a `record` run: no machine keys
        {{"arch", "aarch64"}, {"julia", "1.10"}},
    };
    for (int number = 1; number <= 3; ++number) {
        model::Run run = testing::sample_run("m1", testing::commit_name(number), number);
        run.results = {testing::result("a", 100)};
        run.environment = environments[number - 1];
        store->record(run);
    }
    const auto dashboard = load_dashboard(*store, nullptr, {});
    const auto& changes = dashboard.projects.at(0).machines.at(0).environment_changes;
    ASSERT_EQ(changes.size(), 1u);
    EXPECT_EQ(changes[0].commit, 2u);
    ASSERT_EQ(changes[0].changes.size(), 1u);
    EXPECT_EQ(changes[0].changes[0].key, "arch");
    EXPECT_EQ(changes[0].changes[0].from, "x86_64");
    EXPECT_EQ(changes[0].changes[0].to, "aarch64");
}

TEST(LoadDashboard, StoreWithoutDefaultBranchRunsHasNoProjects) {
    benchwatch::testing::TemporaryDirectory directory{"benchwatch-serve"};
    auto store = store::open_store(benchwatch::testing::test_store_url(directory.path()));
    model::Run pull = testing::sample_run("m1", "f1", 1);
    pull.branch = "feature";
    pull.results = {testing::result("a", 1)};
    store->record(pull);
    EXPECT_TRUE(load_dashboard(*store, nullptr, {}).projects.empty());
}

}  // namespace
}  // namespace benchwatch::serve
