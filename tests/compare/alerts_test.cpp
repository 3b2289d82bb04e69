// What could break: an old step, an improvement or a step that was undone opening an issue; a
// suite event split into one issue per benchmark; two machines' views of one step (other commits
// measured, a range bisect narrowed) taken for two steps, or two benchmarks' steps for one; an
// issue closed when its step merely aged out of the runs read, moved into a suite event, or was
// read on a machine whose history does not reach it.
#include "compare/alerts.hpp"

#include <gtest/gtest.h>

namespace benchwatch::compare {
namespace {

model::HistoryStep step(const std::string& benchmark, std::size_t position, double ratio,
                        const std::vector<std::string>& commits) {
    model::HistoryStep made;
    made.benchmark = benchmark;
    made.before_commit = commits[position - 1];
    made.after_commit = commits[position];
    made.position = position;
    made.ratio = ratio;
    made.runs_after = 5;
    return made;
}

// 40 commits c0 … c39 on machine m of project p.
model::HistoryChanges forty_commits() {
    model::HistoryChanges changes;
    changes.project = "p";
    changes.machine = "m";
    for (int i = 0; i < 40; ++i) changes.commits.push_back("c" + std::to_string(i));
    changes.runs = 40;
    return changes;
}

TEST(HistoryAlerts, OnlyRecentWorseStepsAndSuiteEventsOpenIssues) {
    auto changes = forty_commits();
    const auto& commits = changes.commits;
    changes.steps = {step("old", 19, 1.2, commits), step("slower", 20, 1.2, commits),
                     step("faster", 30, 0.8, commits)};
    model::SuiteEvent event;
    event.before_commit = "c24";
    event.after_commit = "c25";
    event.position = 25;
    event.benchmarks = 12;
    event.measured = 14;
    event.median_ratio = 1.1;
    event.steps = {step("x", 25, 1.1, commits)};
    changes.events = {event};

    const auto alerts = history_alerts(changes, {20, false});
    ASSERT_EQ(alerts.size(), 4u);
    EXPECT_EQ(alerts[0].key, (model::AlertKey{"p", model::AlertKind::Suite, "", "", "c24", "c25"}));
    EXPECT_TRUE(alerts[0].opens_issue);
    EXPECT_EQ(alerts[0].benchmarks, 12);
    EXPECT_EQ(alerts[0].runs_after, 5);
    // c19 begins the 21st run from the end: out of the 20 recent ones.
    EXPECT_EQ(alerts[1].key.benchmark, "old");
    EXPECT_FALSE(alerts[1].opens_issue);
    EXPECT_EQ(alerts[2].key,
              (model::AlertKey{"p", model::AlertKind::Step, "slower", "time", "c19", "c20"}));
    EXPECT_EQ(alerts[2].machine, "m");
    EXPECT_TRUE(alerts[2].opens_issue);
    EXPECT_EQ(alerts[3].key.benchmark, "faster");
    EXPECT_FALSE(alerts[3].opens_issue);

    const auto with_improvements = history_alerts(changes, {20, true});
    EXPECT_TRUE(with_improvements[3].opens_issue);
    EXPECT_FALSE(with_improvements[1].opens_issue);
}

model::Alert alert_of(const std::string& benchmark, const std::string& before,
                      const std::string& after, double ratio = 1.2) {
    model::Alert alert;
    alert.key = {"p", model::AlertKind::Step, benchmark, "time", before, after};
    alert.ratio = ratio;
    return alert;
}

TEST(SameStep, SameFirstCommitOrOverlappingRangesOfOneBenchmark) {
    const std::vector<std::string> commits = {"c0", "c1", "c2", "c3", "c4", "c5"};
    const model::AlertKey key{"p", model::AlertKind::Step, "a", "time", "c1", "c4"};
    // Bisect's runs narrowed (c1, c4] to (c2, c3].
    EXPECT_TRUE(same_step(key, alert_of("a", "c2", "c3"), commits));
    EXPECT_TRUE(same_step(key, alert_of("a", "c3", "c4"), commits));
    EXPECT_FALSE(same_step(key, alert_of("a", "c4", "c5"), commits));
    EXPECT_FALSE(same_step(key, alert_of("b", "c2", "c3"), commits));
    // Another machine measured c9, which this history lacks: only the same first commit counts.
    EXPECT_TRUE(same_step(key, alert_of("a", "c9", "c4"), commits));
    EXPECT_FALSE(same_step(key, alert_of("a", "c9", "c3"), commits));
    auto other_metric = alert_of("a", "c1", "c4");
    other_metric.key.metric = "bytes";
    EXPECT_FALSE(same_step(key, other_metric, commits));
    auto other_project = alert_of("a", "c1", "c4");
    other_project.key.project = "q";
    EXPECT_FALSE(same_step(key, other_project, commits));
}

TEST(LevelReturned, WhenTheStepIsGoneOrUndoneInAHistoryThatCoversIt) {
    const std::vector<std::string> commits = {"c0", "c1", "c2", "c3", "c4", "c5", "c6"};
    const model::AlertKey key{"p", model::AlertKind::Step, "a", "time", "c1", "c2"};
    const auto up = alert_of("a", "c1", "c2", 1.2);
    EXPECT_FALSE(level_returned(key, {up}, commits));
    // Nothing found any more: returned; unless the history does not reach the step.
    EXPECT_TRUE(level_returned(key, {alert_of("b", "c1", "c2")}, commits));
    EXPECT_FALSE(level_returned(key, {}, {"c3", "c4", "c5"}));
    // A later step back down by more than half the step, in log scale: returned.
    EXPECT_TRUE(level_returned(key, {up, alert_of("a", "c4", "c5", 1 / 1.2)}, commits));
    EXPECT_TRUE(level_returned(key, {up, alert_of("a", "c4", "c5", 1 / 1.1)}, commits));
    EXPECT_FALSE(level_returned(key, {up, alert_of("a", "c4", "c5", 1 / 1.05)}, commits));
    // Another benchmark's later step undoes nothing of this one.
    EXPECT_FALSE(level_returned(key, {up, alert_of("b", "c4", "c5", 1 / 1.2)}, commits));

    // The step became part of a suite event: still there.
    model::Alert suite;
    suite.key = {"p", model::AlertKind::Suite, "", "", "c1", "c2"};
    model::HistoryStep member;
    member.benchmark = "a";
    member.before_commit = "c1";
    member.after_commit = "c2";
    member.ratio = 1.2;
    suite.steps = {member};
    EXPECT_FALSE(level_returned(key, {suite}, commits));
}

}  // namespace
}  // namespace benchwatch::compare
