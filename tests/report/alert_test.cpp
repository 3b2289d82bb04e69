// What could break: an alert issue missing the benchmark, the size or its direction, the commit
// range or its links, the commit that made the step, the environment changes or the machines;
// a name, value or subject from outside breaking the Markdown, linking or mentioning; a title
// over GitHub's length or on two lines; the closing comment not saying where the level
// returned.
#include "report/alert.hpp"

#include <gtest/gtest.h>

#include "golden.hpp"

namespace benchwatch::report {
namespace {

const std::string before(40, 'a');
const std::string after(40, 'b');

model::Alert step_alert() {
    model::Alert alert;
    alert.key = {"snappy", model::AlertKind::Step, "BM_Flat/*x*_[y](javascript:z)", "time", before,
                 after};
    alert.machine = "ci-1";
    alert.ratio = 1.2;
    alert.runs_after = 6;
    alert.environment_changes = {{"toolchain", "1.0", "1.1 @team"}};
    alert.range_commits = {after};
    alert.culprit_subject = "Inline the <hot> loop | cc @someone";
    return alert;
}

model::HistoryStep member(const std::string& benchmark, double ratio) {
    model::HistoryStep step;
    step.benchmark = benchmark;
    step.before_commit = before;
    step.after_commit = after;
    step.ratio = ratio;
    return step;
}

model::Alert suite_alert() {
    model::Alert alert;
    alert.key = {"snappy", model::AlertKind::Suite, "", "", before, after};
    alert.machine = "ci-1";
    alert.ratio = 1.08;
    alert.benchmarks = 12;
    alert.measured = 14;
    for (int i = 0; i < 12; ++i)
        alert.steps.push_back(member("b" + std::to_string(i), 1.0 + 0.01 * (i + 1)));
    alert.environment_changes = {{"kernel", "6.1", "6.5"}};
    return alert;
}

TEST(AlertIssue, StepBodyNamesEverythingWithLinksAndEscapedNames) {
    const auto body =
        render_alert_markdown(step_alert(), {"ci-1", "ci-2|x"},
                              {"https://github.com/o/r", "https://perf.example.org/?pkg=snappy"});
    testing::expect_golden(body, "alert_step.md");
}

TEST(AlertIssue, StepBodyWithoutLinksOrCulpritSuggestsBisect) {
    auto alert = step_alert();
    alert.range_commits = {before, after, std::string(40, 'c')};
    alert.culprit_subject.clear();
    alert.environment_changes.clear();
    alert.ratio = 0.8;
    const auto body = render_alert_markdown(alert, {"ci-1"}, {"", "javascript:alert(1)"});
    testing::expect_golden(body, "alert_step_unlinked.md");
}

TEST(AlertIssue, SuiteBodyListsTheLargestStepsOnce) {
    testing::expect_golden(render_alert_markdown(suite_alert(), {"ci-1"}, {}), "alert_suite.md");
}

TEST(AlertIssue, TitlesAreOneShortLine) {
    EXPECT_EQ(alert_title(step_alert()),
              "benchwatch: BM_Flat/*x*_[y](javascript:z) +20.0% worse at bbbbbbbbb (snappy)");
    EXPECT_EQ(alert_title(suite_alert()),
              "benchwatch: 12 of 14 benchmarks of snappy stepped at bbbbbbbbb (median +8.0%)");
    auto long_name = step_alert();
    long_name.key.benchmark = "line\nbreak" + std::string(300, 'x');
    const auto title = alert_title(long_name);
    EXPECT_EQ(title.size(), 200u);
    EXPECT_EQ(title.find('\n'), std::string::npos);
    EXPECT_TRUE(title.ends_with("x…"));
    EXPECT_TRUE(title.starts_with("benchwatch: line break"));
}

TEST(AlertIssue, ReturnedCommentSaysWhereAndWhoStillShowsIt) {
    EXPECT_EQ(render_alert_returned("ci-1", std::string(40, 'd'), {}),
              "The level returned on ci-1: its default-branch history up to ddddddddd no longer "
              "shows the step. Closing.\n");
    EXPECT_EQ(render_alert_returned("ci_1_", std::string(40, 'd'), {"ci-2", "@x"}),
              "The level returned on ci_1\\_: its default-branch history up to ddddddddd no "
              "longer shows the step. Still stepped on ci-2, @\u200bx.\n");
}

}  // namespace
}  // namespace benchwatch::report
