// What could break: `benchwatch github alert` and `gitlab alert` after `record` on the default
// branch, against the forges' APIs (local fakes that record every request): no issue for a
// planted step, a second issue for it on the next run or from a second machine, an issue per
// benchmark for a step of the whole suite, an issue left open when the level returns or closed
// while another machine still shows the step, an issue a third party wrote with benchwatch's
// marker acted on, a dry run that changes something, or a refusal without its one-line message
// and exit code 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "support/fake_github.hpp"
#include "support/fake_gitlab.hpp"
#include "support/output_checks.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

// A Google Benchmark file with one row per benchmark, times in ns.
std::string benchmark_file(const std::vector<std::pair<std::string, double>>& rows) {
    nlohmann::json benchmarks = nlohmann::json::array();
    for (const auto& [name, time] : rows)
        benchmarks.push_back({{"name", name},
                              {"run_type", "iteration"},
                              {"iterations", 10},
                              {"real_time", time},
                              {"cpu_time", time},
                              {"time_unit", "ns"}});
    return nlohmann::json{{"context", {{"library_build_type", "release"}}},
                          {"benchmarks", benchmarks}}
        .dump();
}

// a: 100 up to c10, 120 from c11 to c15 (a step of +20%, worse), 100 again from c16.
double planted(int commit) {
    return commit <= 10 || commit >= 16 ? 100 : 120;
}

class AlertTest : public ::testing::Test {
  protected:
    // Records commits c`first` … c`last` of project `project` on `machine` on main, each with
    // `rows(i)` for commit ci.
    void record(const std::string& project, const std::string& machine, int first, int last,
                const std::function<std::vector<std::pair<std::string, double>>(int)>& rows) {
        for (int i = first; i <= last; ++i) {
            write_text(directory_.path() / "results.json", benchmark_file(rows(i)));
            const auto output =
                benchwatch({"record", "--store", store_, "--project", project, "--machine", machine,
                            "--commit", fake_commit("c" + std::to_string(i)), "--branch", "main",
                            "--env", i <= 10 ? "toolchain=1.0" : "toolchain=1.1", "results.json"});
            ASSERT_EQ(output.exit_code, 0) << output.err;
        }
    }

    // The planted step of benchmark a (and a steady b) on `machine`, commits first … last.
    void record_planted(const std::string& machine, int first, int last) {
        record("p", machine, first, last, [](int i) -> std::vector<std::pair<std::string, double>> {
            return {{"a", planted(i)}, {"b", 50}};
        });
    }

    vcs::ProcessOutput benchwatch(const std::vector<std::string>& arguments) {
        auto variables = without_ci_variables();
        variables["NO_COLOR"] = "1";
        for (const auto& [name, value] : environment_) variables[name] = value;
        auto output = run(benchwatch_command(arguments), directory_.path(), variables);
        EXPECT_EQ(output.out.find(FakeGitHub::token), std::string::npos) << output.out;
        EXPECT_EQ(output.out.find(FakeGitLab::token), std::string::npos) << output.out;
        EXPECT_EQ(output.err.find(FakeGitHub::token), std::string::npos) << output.err;
        return output;
    }

    // `FORGE alert` for project p on `machine`, with `extra` flags.
    vcs::ProcessOutput alert(const std::string& forge, const std::string& machine,
                             const std::vector<std::string>& extra = {}) {
        std::vector<std::string> arguments{forge,       "alert", "--store",   store_,
                                           "--project", "p",     "--machine", machine};
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        return benchwatch(arguments);
    }

    static std::string marker(const std::string& machines) {
        return "<!-- benchwatch-alert project=p kind=step benchmark=a metric=time before=" +
               fake_commit("c10") + " after=" + fake_commit("c11") + " machines=" + machines +
               " -->";
    }

    static std::string first_line(const std::string& text) {
        return text.substr(0, text.find('\n'));
    }

    TemporaryDirectory directory_{"benchwatch-alert"};
    std::string store_ = test_store_url(directory_.path());
    EnvironmentOverrides environment_;
};

class GitHubAlertTest : public AlertTest {
  protected:
    GitHubAlertTest() {
        environment_ = {{"GITHUB_API_URL", github_.url()},
                        {"GITHUB_TOKEN", FakeGitHub::token},
                        {"GITHUB_REPOSITORY", "o/r"},
                        {"GITHUB_SERVER_URL", "https://github.com"}};
    }

    std::string issue_url(std::int64_t number) const {
        return github_.url() + "/o/r/issues/" + std::to_string(number);
    }

    // The requests that changed something.
    std::vector<std::string> writes() const {
        std::vector<std::string> calls;
        for (const auto& request : github_.requests())
            if (request.method != "GET")
                calls.push_back(request.method + " " +
                                request.target.substr(0, request.target.find('?')));
        return calls;
    }

    FakeGitHub github_;
};

const std::string title = "benchwatch: a +20.0% worse at 633131000 (p)";

TEST_F(GitHubAlertTest, OneIssueOpenedUpdatedSharedByMachinesAndClosedWhenTheLevelReturns) {
    record_planted("m1", 1, 14);
    auto output = alert("github", "m1");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "opened issue #1: " + title + ": " + issue_url(1) + "\n");
    auto issues = github_.issues("o/r");
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].title, title);
    EXPECT_EQ(issues[0].labels, std::vector<std::string>{"benchwatch-alert"});
    EXPECT_EQ(issues[0].author, "github-actions[bot]");
    EXPECT_EQ(first_line(issues[0].body), marker("m1"));
    EXPECT_NE(issues[0].body.find("held for 4 runs on m1"), std::string::npos) << issues[0].body;
    EXPECT_NE(issues[0].body.find("| Commits | 633130000..633131000 |"), std::string::npos)
        << issues[0].body;
    EXPECT_NE(
        issues[0].body.find("| Commit pages | https://github.com/o/r/commit/" + fake_commit("c10") +
                            " https://github.com/o/r/commit/" + fake_commit("c11") + " |"),
        std::string::npos)
        << issues[0].body;
    EXPECT_NE(issues[0].body.find("| Environment changes | toolchain 1.0 → 1.1 |"),
              std::string::npos)
        << issues[0].body;
    EXPECT_EQ(markdown_problem(issues[0].body.substr(issues[0].body.find('\n') + 1)), std::nullopt);

    // The next run on the default branch: the same issue, updated.
    record_planted("m1", 15, 15);
    output = alert("github", "m1");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "updated issue #1: " + title + ": " + issue_url(1) + "\n");
    issues = github_.issues("o/r");
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_NE(issues[0].body.find("held for 5 runs on m1"), std::string::npos) << issues[0].body;
    output = alert("github", "m1");
    EXPECT_EQ(output.out, "unchanged issue #1: " + title + ": " + issue_url(1) + "\n");

    // A second machine with the same step: still one issue, naming both machines.
    record_planted("m2", 1, 15);
    output = alert("github", "m2");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "updated issue #1: " + title + ": " + issue_url(1) + "\n");
    issues = github_.issues("o/r");
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(first_line(issues[0].body), marker("m1,m2"));
    EXPECT_NE(issues[0].body.find("| Machines | m1, m2 |"), std::string::npos) << issues[0].body;

    // The level returns on m1: m2 still shows the step, so the issue stays open.
    record_planted("m1", 16, 25);
    output = alert("github", "m1");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out,
              "updated issue #1: the level returned on this machine, others still show the step: " +
                  issue_url(1) + "\n");
    issues = github_.issues("o/r");
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_TRUE(issues[0].open);
    EXPECT_EQ(first_line(issues[0].body), marker("m2"));
    EXPECT_EQ(issues[0].comments,
              std::vector<std::string>{"The level returned on m1: its default-branch history up "
                                       "to 633235000 no longer shows the step. Still stepped on "
                                       "m2.\n"});

    // And on m2: closed with a comment.
    record_planted("m2", 16, 25);
    output = alert("github", "m2");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "closed issue #1: the level returned: " + issue_url(1) + "\n");
    issues = github_.issues("o/r");
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_FALSE(issues[0].open);
    ASSERT_EQ(issues[0].comments.size(), 2u);
    EXPECT_EQ(issues[0].comments[1],
              "The level returned on m2: its default-branch history up to 633235000 no longer "
              "shows the step. Closing.\n");

    // Nothing left to do.
    output = alert("github", "m2");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out,
              "no alerts for p on m2: no new step in the last 20 runs, and no open alert issue to "
              "update or close\n");
    EXPECT_EQ(writes(), (std::vector<std::string>{
                            "POST /repos/o/r/issues", "PATCH /repos/o/r/issues/1",
                            "PATCH /repos/o/r/issues/1", "POST /repos/o/r/issues/1/comments",
                            "PATCH /repos/o/r/issues/1", "POST /repos/o/r/issues/1/comments",
                            "PATCH /repos/o/r/issues/1"}));
}

TEST_F(GitHubAlertTest, SuiteWideStepOpensOneIssue) {
    record("p", "m1", 1, 14, [](int i) {
        std::vector<std::pair<std::string, double>> rows;
        for (int b = 0; b < 12; ++b)
            rows.emplace_back("bench" + std::to_string(b), (100 + b) * (i <= 10 ? 1.0 : 1.1));
        return rows;
    });
    const auto output = alert("github", "m1");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const std::string suite_title =
        "benchwatch: 12 of 12 benchmarks of p stepped at 633131000 (median +10.0%)";
    EXPECT_EQ(output.out, "opened issue #1: " + suite_title + ": " + issue_url(1) + "\n");
    const auto issues = github_.issues("o/r");
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(first_line(issues[0].body),
              "<!-- benchwatch-alert project=p kind=suite before=" + fake_commit("c10") +
                  " after=" + fake_commit("c11") + " machines=m1 -->");
    EXPECT_NE(issues[0].body.find("Largest steps (10 of 12)"), std::string::npos) << issues[0].body;
}

TEST_F(GitHubAlertTest, MarkerWrittenBySomeoneElseIsIgnoredAndDryRunChangesNothing) {
    record_planted("m1", 1, 14);
    github_.add_issue("o/r", "mallory", "fake", marker("m1") + "\nplease close",
                      {"benchwatch-alert"});
    auto output = alert("github", "m1", {"--dry-run"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "would open an issue: " + title + "\n");
    EXPECT_TRUE(writes().empty());

    output = alert("github", "m1");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "opened issue #2: " + title + ": " + issue_url(2) + "\n");
    const auto issues = github_.issues("o/r");
    ASSERT_EQ(issues.size(), 2u);
    EXPECT_EQ(issues[0].body, marker("m1") + "\nplease close");
}

TEST_F(GitHubAlertTest, RefusalIsOneLineNamingThePermissionAndExitsWith2) {
    record_planted("m1", 1, 14);
    github_.fail_next(1, {403, {}, R"({"message": "Resource not accessible by integration"})"});
    auto output = alert("github", "m1");
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: GitHub refused GET /repos/o/r/issues (403 Forbidden): the token lacks "
              "permission; give the workflow `permissions: issues: read` (GitHub says: Resource "
              "not accessible by integration)\n");
    environment_["GITHUB_REPOSITORY"] = "";
    output = alert("github", "m1");
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: no repository to open alert issues in: GITHUB_REPOSITORY is unset (not a "
              "GitHub Actions job); pass --repository OWNER/NAME\n");
    EXPECT_TRUE(github_.issues("o/r").empty());
}

// Runs recorded in a git repository of commits 1 … 15 ("change N"), a stepping to 120 at 11.
class GitHubAlertInGitTest : public GitHubAlertTest {
  protected:
    GitHubAlertInGitTest() {
        for (int i = 1; i <= 15; ++i) {
            repository_.write_file("file", std::to_string(i));
            commits_.push_back(repository_.commit("change " + std::to_string(i)));
        }
    }

    void record_commit(int number) {
        write_text(directory_.path() / "results.json",
                   benchmark_file({{"a", planted(number)}, {"b", 50}}));
        const auto output =
            benchwatch({"record", "--store", store_, "--project", "p", "--machine", "m1", "--repo",
                        repository_.directory().string(), "--commit", commits_[number - 1],
                        "--branch", "main", (directory_.path() / "results.json").string()});
        ASSERT_EQ(output.exit_code, 0) << output.err;
    }

    ScratchRepository repository_;
    std::vector<std::string> commits_;
};

TEST_F(GitHubAlertInGitTest, NamesTheCommitThatMadeTheStepOnceBisectsRunsNarrowTheRange) {
    // Commit 11 unmeasured: the step lies in 10..12, two commits.
    for (int i = 1; i <= 15; ++i)
        if (i != 11) record_commit(i);
    const std::vector<std::string> repo{"--repo", repository_.directory().string()};
    auto output = alert("github", "m1", repo);
    ASSERT_EQ(output.exit_code, 0) << output.err;
    auto issues = github_.issues("o/r");
    ASSERT_EQ(issues.size(), 1u);
    const auto short_sha = [](const std::string& sha) { return sha.substr(0, 9); };
    EXPECT_NE(issues[0].body.find("| Commits | " + short_sha(commits_[9]) + ".." +
                                  short_sha(commits_[11]) + " (2 commits) |"),
              std::string::npos)
        << issues[0].body;
    EXPECT_NE(issues[0].body.find("`benchwatch bisect` measures the commits between"),
              std::string::npos);

    // Bisect records commit 11: the range is that commit alone, the same issue names it.
    record_commit(11);
    output = alert("github", "m1", repo);
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out.substr(0, 17), "updated issue #1:") << output.out;
    issues = github_.issues("o/r");
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(first_line(issues[0].body),
              "<!-- benchwatch-alert project=p kind=step benchmark=a metric=time before=" +
                  commits_[9] + " after=" + commits_[10] + " machines=m1 -->");
    EXPECT_NE(issues[0].body.find("| Commits | " + short_sha(commits_[9]) + ".." +
                                  short_sha(commits_[10]) + " (1 commit) |\n| Made by | " +
                                  short_sha(commits_[10]) + " change 11 |"),
              std::string::npos)
        << issues[0].body;
    EXPECT_EQ(issues[0].body.find("benchwatch bisect"), std::string::npos);
}

class GitLabAlertTest : public AlertTest {
  protected:
    GitLabAlertTest() {
        environment_ = {{"CI_API_V4_URL", gitlab_.url()},
                        {"GITLAB_TOKEN", FakeGitLab::token},
                        {"CI_PROJECT_ID", "42"}};
    }

    std::string issue_url(std::int64_t iid) const {
        return gitlab_.url().substr(0, gitlab_.url().size() - 7) + "/42/-/issues/" +
               std::to_string(iid);
    }

    FakeGitLab gitlab_;
};

TEST_F(GitLabAlertTest, OneIssueOpenedUpdatedSharedByMachinesAndClosedWhenTheLevelReturns) {
    record_planted("m1", 1, 14);
    auto output = alert("gitlab", "m1");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "opened issue #1: " + title + ": " + issue_url(1) + "\n");
    auto issues = gitlab_.issues("42");
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(issues[0].labels, std::vector<std::string>{"benchwatch-alert"});
    EXPECT_EQ(first_line(issues[0].body), marker("m1"));

    record_planted("m1", 15, 15);
    output = alert("gitlab", "m1");
    EXPECT_EQ(output.out, "updated issue #1: " + title + ": " + issue_url(1) + "\n");
    record_planted("m2", 1, 15);
    output = alert("gitlab", "m2");
    EXPECT_EQ(output.out, "updated issue #1: " + title + ": " + issue_url(1) + "\n");
    issues = gitlab_.issues("42");
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_EQ(first_line(issues[0].body), marker("m1,m2"));

    record_planted("m1", 16, 25);
    record_planted("m2", 16, 25);
    output = alert("gitlab", "m1");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    output = alert("gitlab", "m2");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "closed issue #1: the level returned: " + issue_url(1) + "\n");
    issues = gitlab_.issues("42");
    ASSERT_EQ(issues.size(), 1u);
    EXPECT_FALSE(issues[0].open);
    ASSERT_EQ(issues[0].comments.size(), 2u);
    EXPECT_EQ(issues[0].comments[1],
              "The level returned on m2: its default-branch history up to 633235000 no longer "
              "shows the step. Closing.\n");
}

TEST_F(GitLabAlertTest, IssueOfAnotherAuthorWithTheMarkerIsLeftAlone) {
    record_planted("m1", 1, 14);
    gitlab_.add_issue("42", "mallory", "fake", marker("m1") + "\nplease close",
                      {"benchwatch-alert"});
    const auto output = alert("gitlab", "m1");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "opened issue #2: " + title + ": " + issue_url(2) + "\n");
    EXPECT_EQ(gitlab_.issues("42")[0].body, marker("m1") + "\nplease close");
}

}  // namespace
}  // namespace benchwatch::testing
