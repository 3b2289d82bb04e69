// What could break: an alert marker that a name can end early or split into other fields, a
// marker read back differently from what was written, or one someone else edited in taken for
// ours; a second issue opened for a step that has one, an issue a person closed opened again,
// an issue closed while another machine still shows its step, or one closed by a machine that
// never showed it.
#include "forge/alert.hpp"

#include <gtest/gtest.h>

namespace benchwatch::forge {
namespace {

model::AlertKey step_key(const std::string& after = "c2") {
    return {"p", model::AlertKind::Step, "a", "time", "c1", after};
}

TEST(AlertMarker, WritesEveryFieldEncoded) {
    EXPECT_EQ(alert_marker({step_key(), {"m1", "m2"}}),
              "<!-- benchwatch-alert project=p kind=step benchmark=a metric=time before=c1 "
              "after=c2 machines=m1,m2 -->");
    EXPECT_EQ(alert_marker({{"p q", model::AlertKind::Suite, "", "", "c1", "c2"}, {"m"}}),
              "<!-- benchwatch-alert project=p%20q kind=suite before=c1 after=c2 machines=m -->");
    EXPECT_EQ(
        alert_marker({{"p", model::AlertKind::Step, "x --> y=1,%", "time", "c1", "c2"}, {"a,b"}}),
        "<!-- benchwatch-alert project=p kind=step benchmark=x%20%2D%2D%3E%20y%3D1%2C%25 "
        "metric=time before=c1 after=c2 machines=a%2Cb -->");
}

TEST(AlertMarker, ReadsBackWhatItWrote) {
    const AlertMarker hostile{
        {"g/p", model::AlertKind::Step, "BM_x<-->/8 machines=evil", "bytes", "c1", "c2"},
        {"box, one", "m2"}};
    const auto read = parse_alert_marker(alert_marker(hostile) + "\nbody");
    ASSERT_TRUE(read);
    EXPECT_EQ(read->key, hostile.key);
    EXPECT_EQ(read->machines, hostile.machines);
    const auto suite = parse_alert_marker(
        "<!-- benchwatch-alert project=p kind=suite before=c1 after=c2 machines= -->\r\nx");
    ASSERT_TRUE(suite);
    EXPECT_EQ(suite->key.kind, model::AlertKind::Suite);
    EXPECT_TRUE(suite->machines.empty());
}

TEST(AlertMarker, RejectsWhatItDoesNotWrite) {
    for (const std::string body : {
             "",
             "no marker\n<!-- benchwatch-alert project=p kind=suite before=c1 after=c2 "
             "machines=m -->",
             "<!-- benchwatch:p -->",
             "<!-- benchwatch-alert project=p kind=suite before=c1 machines=m -->",
             "<!-- benchwatch-alert project=p kind=other before=c1 after=c2 machines=m -->",
             "<!-- benchwatch-alert project=p kind=step before=c1 after=c2 machines=m -->",
             "<!-- benchwatch-alert project=p project=q kind=suite before=c1 after=c2 "
             "machines=m -->",
             "<!-- benchwatch-alert project=p%2 kind=suite before=c1 after=c2 machines=m -->",
             "<!-- benchwatch-alert project=p<b> kind=suite before=c1 after=c2 machines=m -->",
             "<!-- benchwatch-alert project=p kind=suite before=c1 after=c2 machines=m,,n -->",
         })
        EXPECT_FALSE(parse_alert_marker(body)) << body;
}

model::Alert found(const std::string& after = "c2", bool opens = true) {
    model::Alert alert;
    alert.key = step_key(after);
    alert.machine = "m1";
    alert.opens_issue = opens;
    return alert;
}

AlertIssue issue(std::int64_t number, const std::vector<std::string>& machines, bool open = true,
                 const std::string& after = "c2") {
    AlertIssue made;
    made.number = number;
    made.open = open;
    made.marker = {step_key(after), machines};
    made.body = alert_marker(made.marker) + "\nbody on " + machines.front() + "\n";
    made.url = "https://forge/issues/" + std::to_string(number);
    return made;
}

// A plan for machine m1: steps are the same when their first commits are; `returned` lists the
// first commits whose level returned.
AlertPlanInput input(std::vector<AlertIssue> issues, std::vector<model::Alert> alerts,
                     std::vector<std::string> returned = {}) {
    AlertPlanInput made;
    made.issues = std::move(issues);
    made.found = std::move(alerts);
    made.machine = "m1";
    made.same_step = [](const model::AlertKey& key, const model::Alert& alert) {
        return key.after_commit == alert.key.after_commit;
    };
    made.returned = [returned](const model::AlertKey& key) {
        return std::find(returned.begin(), returned.end(), key.after_commit) != returned.end();
    };
    made.title = [](const model::Alert& alert) { return "a at " + alert.key.after_commit; };
    made.body = [](const model::Alert& alert, const std::vector<std::string>& machines) {
        std::string text = "body on";
        for (const auto& machine : machines) text += " " + machine;
        return text + " at " + alert.key.after_commit + "\n";
    };
    made.returned_comment = [](const AlertIssue& issue, const std::vector<std::string>& still) {
        return "returned on #" + std::to_string(issue.number) + ", still " +
               std::to_string(still.size());
    };
    return made;
}

TEST(PlanAlerts, OpensOneIssuePerNewStepWithItsMarker) {
    const auto actions = plan_alerts(input({}, {found("c2"), found("c5", false)}));
    ASSERT_EQ(actions.size(), 1u);
    EXPECT_EQ(actions[0].kind, AlertActionKind::Open);
    EXPECT_EQ(actions[0].title, "a at c2");
    EXPECT_EQ(actions[0].body,
              "<!-- benchwatch-alert project=p kind=step benchmark=a metric=time before=c1 "
              "after=c2 machines=m1 -->\nbody on m1 at c2\n");
}

TEST(PlanAlerts, UpdatesTheOpenIssueAddingTheMachineAndSkipsAnUnchangedOne) {
    auto actions = plan_alerts(input({issue(7, {"m2"})}, {found()}));
    ASSERT_EQ(actions.size(), 1u);
    EXPECT_EQ(actions[0].kind, AlertActionKind::Update);
    EXPECT_EQ(actions[0].number, 7);
    EXPECT_EQ(actions[0].body,
              "<!-- benchwatch-alert project=p kind=step benchmark=a metric=time before=c1 "
              "after=c2 machines=m1,m2 -->\nbody on m1 m2 at c2\n");
    EXPECT_TRUE(actions[0].comment.empty());

    auto same = issue(7, {"m1"});
    same.body = alert_marker(same.marker) + "\nbody on m1 at c2\n";
    actions = plan_alerts(input({same}, {found()}));
    ASSERT_EQ(actions.size(), 1u);
    EXPECT_EQ(actions[0].kind, AlertActionKind::Unchanged);
    // An old step keeps its open issue up to date too.
    actions = plan_alerts(input({issue(7, {"m1"})}, {found("c2", false)}));
    ASSERT_EQ(actions.size(), 1u);
    EXPECT_EQ(actions[0].kind, AlertActionKind::Update);
}

TEST(PlanAlerts, LeavesAClosedIssueClosed) {
    const auto actions = plan_alerts(input({issue(3, {"m1"}, false)}, {found()}));
    ASSERT_EQ(actions.size(), 1u);
    EXPECT_EQ(actions[0].kind, AlertActionKind::LeftClosed);
    EXPECT_EQ(actions[0].number, 3);
    EXPECT_TRUE(plan_alerts(input({issue(3, {"m1"}, false)}, {found("c2", false)})).empty());
}

TEST(PlanAlerts, ClosesOnlyWhenTheLastMachineListedSeesTheLevelReturn) {
    // m1 sees the level back; m2 still shows the step: m1 leaves the marker, with a comment.
    auto actions = plan_alerts(input({issue(4, {"m1", "m2"})}, {}, {"c2"}));
    ASSERT_EQ(actions.size(), 1u);
    EXPECT_EQ(actions[0].kind, AlertActionKind::Update);
    EXPECT_EQ(actions[0].comment, "returned on #4, still 1");
    EXPECT_EQ(actions[0].body,
              "<!-- benchwatch-alert project=p kind=step benchmark=a metric=time before=c1 "
              "after=c2 machines=m2 -->\nbody on m1\n");
    actions = plan_alerts(input({issue(4, {"m1"})}, {}, {"c2"}));
    ASSERT_EQ(actions.size(), 1u);
    EXPECT_EQ(actions[0].kind, AlertActionKind::Close);
    EXPECT_EQ(actions[0].comment, "returned on #4, still 0");
    // Still found but undone by a later step: closed, not updated.
    actions = plan_alerts(input({issue(4, {"m1"})}, {found()}, {"c2"}));
    ASSERT_EQ(actions.size(), 1u);
    EXPECT_EQ(actions[0].kind, AlertActionKind::Close);
}

TEST(PlanAlerts, LeavesIssuesThisMachineDoesNotListOrWhoseLevelHolds) {
    EXPECT_TRUE(plan_alerts(input({issue(4, {"m2"})}, {}, {"c2"})).empty());
    EXPECT_TRUE(plan_alerts(input({issue(4, {"m1"})}, {})).empty());
    EXPECT_TRUE(plan_alerts(input({issue(4, {"m1"}, false)}, {}, {"c2"})).empty());
}

TEST(AlertActions, CallTheForgeInOrderAndSayWhatTheyDid) {
    std::vector<std::string> calls;
    const AlertCalls forge{
        [&](const std::string& title, const std::string&) {
            calls.push_back("open " + title);
            return OpenedIssue{12, "https://forge/issues/12"};
        },
        [&](std::int64_t number, const std::string&) {
            calls.push_back("edit " + std::to_string(number));
        },
        [&](std::int64_t number, const std::string& comment) {
            calls.push_back("comment " + std::to_string(number) + " " + comment);
        },
        [&](std::int64_t number) { calls.push_back("close " + std::to_string(number)); },
    };
    AlertAction open{AlertActionKind::Open, 0, "a at c2", "body", "", ""};
    EXPECT_EQ(describe_alert_action(open, true), "would open an issue: a at c2");
    apply_alert_action(open, forge);
    EXPECT_EQ(describe_alert_action(open, false),
              "opened issue #12: a at c2: https://forge/issues/12");
    AlertAction close{AlertActionKind::Close, 4, "issue #4", "", "back", "u"};
    apply_alert_action(close, forge);
    EXPECT_EQ(describe_alert_action(close, false), "closed issue #4: the level returned: u");
    AlertAction partial{AlertActionKind::Update, 5, "issue #5", "body", "back on m1", ""};
    apply_alert_action(partial, forge);
    EXPECT_EQ(describe_alert_action(partial, true),
              "would update issue #5: the level returned on this machine, others still show the "
              "step");
    AlertAction unchanged{AlertActionKind::Unchanged, 6, "a at c2", "", "", ""};
    apply_alert_action(unchanged, forge);
    EXPECT_EQ(calls, (std::vector<std::string>{"open a at c2", "comment 4 back", "close 4",
                                               "comment 5 back on m1", "edit 5"}));
}

}  // namespace
}  // namespace benchwatch::forge
