// What could break: the history shows pull-request runs or side-branch commits, is cut at the
// wrong length, or the benchmark filter matches names that merely share a prefix.
#include <gtest/gtest.h>

#include <cmath>

#include "compare/compare.hpp"
#include "recording.hpp"
#include "support/test_support.hpp"

namespace benchwatch::compare {
namespace {

using testing::Recorder;
using testing::timed;

HistorySource source() {
    HistorySource history_source;
    history_source.project = "p";
    history_source.machine = "m";
    return history_source;
}

std::vector<std::string> names(const model::History& history) {
    std::vector<std::string> found;
    for (const auto& benchmark : history.benchmarks) found.push_back(benchmark.name);
    return found;
}

TEST(History, RecordedOrderOfDefaultBranchRunsOnly) {
    Recorder recorder;
    recorder.record_a("c1", "main", 100);
    recorder.record_a("pr", "feature", 999);
    recorder.record_a("c2", "main", 110);
    recorder.record_a("c2", "main", 130);  // a rerun: the point stays 110
    recorder.record_a("c3", "main", 121);
    const auto history = compare::history(recorder.store, nullptr, source(), "", 0, {});

    EXPECT_EQ(history.project, "p");
    EXPECT_EQ(history.machine, "m");
    EXPECT_EQ(history.order, model::HistoryOrder::Recorded);
    EXPECT_EQ(history.runs, 3);
    EXPECT_EQ(history.commits, (std::vector<std::string>{"c1", "c2", "c3"}));
    ASSERT_EQ(history.benchmarks.size(), 1u);
    const auto& a = history.benchmarks[0];
    EXPECT_EQ(a.commits, (std::vector<std::string>{"c1", "c2", "c3"}));
    EXPECT_EQ(a.values, (std::vector<double>{100, 110, 121}));
    EXPECT_DOUBLE_EQ(a.typical_change, std::log(1.1));  // both pairs are ln 1.1
    EXPECT_EQ(a.typical_pairs, 2);
}

TEST(History, ABenchmarkThatJoinsLateTakesNoValueOfAnotherInOlderBatches) {
    // The history is read a batch of commits at a time, newest first; benchmarks are known by
    // their store ids from batch to batch, so a store must give one benchmark one id throughout.
    Recorder recorder;
    for (int t = 0; t < 40; ++t) {
        std::vector<model::Result> results;
        // In each of the 16 newest commits (the whole first batch), and first.
        if (t >= 24) results.push_back(timed("added", 1000 + t));
        results.push_back(timed("steady", 100 + t));
        recorder.record("c" + std::to_string(t), "main", results);
    }
    const auto history = compare::history(recorder.store, nullptr, source(), "", 0, {});
    ASSERT_EQ(names(history), (std::vector<std::string>{"added", "steady"}));
    EXPECT_EQ(history.benchmarks[0].values.size(), 16u);
    EXPECT_EQ(history.benchmarks[0].values.front(), 1024);
    ASSERT_EQ(history.benchmarks[1].values.size(), 40u);
    for (int t = 0; t < 40; ++t) EXPECT_EQ(history.benchmarks[1].values[t], 100 + t) << t;
}

TEST(History, LimitKeepsTheNewestRunsButLearnsFromMorePairs) {
    Recorder recorder;
    // 100, 200, 100, 200, 202: pairs ln 2, ln 2, ln 2, ln 1.01.
    for (const auto& [commit, value] : std::vector<std::pair<std::string, double>>{
             {"c1", 100}, {"c2", 200}, {"c3", 100}, {"c4", 200}, {"c5", 202}})
        recorder.record_a(commit, "main", value);
    const auto history = compare::history(recorder.store, nullptr, source(), "", 2, {3.0, 30});

    EXPECT_EQ(history.runs, 2);
    EXPECT_EQ(history.commits, (std::vector<std::string>{"c4", "c5"}));
    ASSERT_EQ(history.benchmarks.size(), 1u);
    EXPECT_EQ(history.benchmarks[0].values, (std::vector<double>{200, 202}));
    // Median of (ln 2, ln 2, ln 2, ln 1.01) = ln 2, not ln 1.01 from the two values shown.
    EXPECT_DOUBLE_EQ(history.benchmarks[0].typical_change, std::log(2.0));
    EXPECT_EQ(history.benchmarks[0].typical_pairs, 4);
}

TEST(History, FilterByExactNameOrPathPrefix) {
    Recorder recorder;
    recorder.record("c1", "main",
                    {timed("array", 1), timed("array/copy", 1), timed("array/sum/1d", 1),
                     timed("arrays/other", 1), timed("base", 1)});
    EXPECT_EQ(names(compare::history(recorder.store, nullptr, source(), "array", 0, {})),
              (std::vector<std::string>{"array", "array/copy", "array/sum/1d"}));
    EXPECT_EQ(names(compare::history(recorder.store, nullptr, source(), "array/", 0, {})),
              (std::vector<std::string>{"array/copy", "array/sum/1d"}));
    EXPECT_EQ(names(compare::history(recorder.store, nullptr, source(), "array/copy", 0, {})),
              (std::vector<std::string>{"array/copy"}));
    EXPECT_EQ(names(compare::history(recorder.store, nullptr, source(), "", 0, {})).size(), 5u);
}

TEST(History, BenchmarksAbsentFromTheShownRunsAreLeftOut) {
    Recorder recorder;
    recorder.record("c1", "main", {timed("old", 1), timed("kept", 1)});
    recorder.record("c2", "main", {timed("kept", 2)});
    const auto history = compare::history(recorder.store, nullptr, source(), "", 1, {});
    EXPECT_EQ(names(history), (std::vector<std::string>{"kept"}));
    EXPECT_EQ(history.benchmarks[0].commits, (std::vector<std::string>{"c2"}));
}

TEST(History, GitFirstParentChainOfTheDefaultBranch) {
    // main: c1 - m - c2 where m merges side's s1; f1 is a pull request off c1.
    testing::ScratchRepository scratch;
    const auto c1 = scratch.commit("c1");
    scratch.git({"checkout", "--quiet", "-b", "side"});
    const auto s1 = scratch.commit("s1");
    scratch.git({"checkout", "--quiet", "-b", "feature", c1});
    const auto f1 = scratch.commit("f1");
    scratch.git({"checkout", "--quiet", "main"});
    scratch.git({"merge", "--quiet", "--no-ff", "-m", "merge side", "side"});
    const auto merge = scratch.git({"rev-parse", "HEAD"});
    const auto c2 = scratch.commit("c2");
    const auto repository = vcs::Repository::open(scratch.directory());
    ASSERT_TRUE(repository);

    Recorder recorder;
    recorder.record_a(c2, "main", 4);  // recorded out of order: git's order wins
    recorder.record_a(c1, "main", 1);
    recorder.record_a(s1, "side", 2);
    recorder.record_a(f1, "feature", 5);
    recorder.record_a(merge, "main", 3);
    const auto history = compare::history(recorder.store, &*repository, source(), "", 0, {});

    EXPECT_EQ(history.order, model::HistoryOrder::Git);
    EXPECT_EQ(history.runs, 3);
    ASSERT_EQ(history.benchmarks.size(), 1u);
    EXPECT_EQ(history.benchmarks[0].commits, (std::vector<std::string>{c1, merge, c2}));
    EXPECT_EQ(history.benchmarks[0].values, (std::vector<double>{1, 3, 4}));
}

}  // namespace
}  // namespace benchwatch::compare
