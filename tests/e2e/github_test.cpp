// What could break: `benchwatch github` as a workflow runs it against GitHub's API (a local fake
// that records every request): the sticky comment duplicated, another bot's or project's comment
// touched, a person's comment carrying the marker edited or kept instead of the bot's, a long
// report over GitHub's limit, an API refusal without its one-line message and exit code 2, a
// transient 502 failing the job, a listing whose next page is itself read forever, or the token
// appearing anywhere but the Authorization header (an error body echoing it included); and in
// the fork flow, a report posted for a pull request the
// artifact does not belong to, or for a head the pull request has moved on from.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/fake_github.hpp"
#include "support/output_checks.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

const std::string base_sha(40, 'a');
const std::string head_sha(40, 'b');

// A report table row of exactly 100 characters, newline included.
std::string table_row(int index) {
    auto row = "| `benchmark_" + std::to_string(100000 + index) + "` | +1.0% |";
    row.resize(99, ' ');
    return row + "\n";
}

class GitHubTest : public ::testing::Test {
  protected:
    GitHubTest() {
        write_text(
            event_path(),
            nlohmann::json{
                {"action", "synchronize"},
                {"pull_request",
                 {{"number", 5}, {"head", {{"sha", head_sha}}}, {"base", {{"sha", base_sha}}}}},
                {"repository", {{"full_name", "o/r"}}}}
                .dump());
    }

    fs::path event_path() const { return directory_.path() / "event.json"; }
    const std::string& store() const { return store_; }

    EnvironmentOverrides environment() const {
        auto variables = without_ci_variables();
        variables["NO_COLOR"] = "1";
        variables["GITHUB_API_URL"] = github_.url();
        variables["GITHUB_EVENT_PATH"] = event_path().string();
        // As `record` does, the commands compare GITHUB_SHA; here it is the head itself.
        variables["GITHUB_SHA"] = head_sha;
        variables["GITHUB_TOKEN"] = FakeGitHub::token;
        variables["GITHUB_REPOSITORY"] = "";
        variables["GITHUB_STEP_SUMMARY"] = "";
        variables["GITHUB_SERVER_URL"] = "";
        variables["GITHUB_RUN_ID"] = "";
        return variables;
    }

    // Runs benchwatch in the temporary folder and checks that its output never shows the token.
    vcs::ProcessOutput benchwatch(const std::vector<std::string>& arguments,
                                  const EnvironmentOverrides& extra = {}) {
        auto variables = environment();
        for (const auto& [name, value] : extra) variables[name] = value;
        auto output = run(benchwatch_command(arguments), directory_.path(), variables);
        EXPECT_EQ(output.out.find(FakeGitHub::token), std::string::npos) << output.out;
        EXPECT_EQ(output.err.find(FakeGitHub::token), std::string::npos) << output.err;
        return output;
    }

    // `github comment` posting the Markdown report `text` for project p.
    vcs::ProcessOutput comment(const std::string& text, const EnvironmentOverrides& extra = {}) {
        write_text(directory_.path() / "report.md", text);
        return benchwatch({"github", "comment", "--project", "p", "--report", "report.md"}, extra);
    }

    void record(const std::string& commit, const std::string& branch,
                const std::vector<std::pair<std::string, double>>& rows) {
        write_text(directory_.path() / "results.json", google_benchmark_json(rows));
        const auto output =
            benchwatch({"record", "--store", store(), "--project", "p", "--machine", "m",
                        "--commit", commit, "--branch", branch, "results.json"});
        ASSERT_EQ(output.exit_code, 0) << output.err;
    }

    std::string comment_url(std::int64_t id) const {
        return github_.url() + "/comments/" + std::to_string(id);
    }

    void TearDown() override {
        for (const auto& request : github_.requests()) {
            EXPECT_EQ(request.body.find(FakeGitHub::token), std::string::npos) << request.target;
            EXPECT_EQ(request.target.find(FakeGitHub::token), std::string::npos);
            for (const auto& [name, value] : request.headers)
                if (name != "Authorization") {
                    EXPECT_EQ(value.find(FakeGitHub::token), std::string::npos) << name;
                }
        }
    }

    TemporaryDirectory directory_{"benchwatch-github"};
    std::string store_ = test_store_url(directory_.path());
    FakeGitHub github_;
};

TEST_F(GitHubTest, FirstPostCreatesTheCommentAndTheSecondEditsIt) {
    auto output = comment("## Benchmark results\nfirst\n");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "created comment 1001 on o/r#5: " + comment_url(1001) + "\n");

    output = comment("## Benchmark results\nsecond\n");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "edited comment 1001 on o/r#5: " + comment_url(1001) + "\n");

    const auto comments = github_.comments("o/r", 5);
    ASSERT_EQ(comments.size(), 1u);
    EXPECT_EQ(comments[0].body, "<!-- benchwatch:p -->\n## Benchmark results\nsecond\n");
    std::vector<std::string> calls;
    for (const auto& request : github_.requests())
        calls.push_back(request.method + " " + request.target);
    EXPECT_EQ(calls, (std::vector<std::string>{
                         "GET /repos/o/r/issues/5/comments?per_page=100",
                         "POST /repos/o/r/issues/5/comments",
                         "GET /repos/o/r/issues/5/comments?per_page=100",
                         "PATCH /repos/o/r/issues/comments/1001",
                     }));
}

TEST_F(GitHubTest, DuplicatesAreDeletedAndOtherCommentsNeverTouched) {
    const auto other_bot = github_.add_comment("o/r", 5, "codecov[bot]", "Coverage: 91%");
    const auto first =
        github_.add_comment("o/r", 5, "github-actions[bot]", "<!-- benchwatch:p -->\nrun 1");
    const auto other_project =
        github_.add_comment("o/r", 5, "github-actions[bot]", "<!-- benchwatch:q -->\nq's report");
    const auto second =
        github_.add_comment("o/r", 5, "github-actions[bot]", "<!-- benchwatch:p -->\nrun 2");
    const auto newest =
        github_.add_comment("o/r", 5, "github-actions[bot]", "<!-- benchwatch:p -->\nrun 3");
    const auto output = comment("run 4\n");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "edited comment " + std::to_string(newest) +
                              " on o/r#5 and deleted 2 older copies: " + comment_url(newest) +
                              "\n");

    const auto comments = github_.comments("o/r", 5);
    ASSERT_EQ(comments.size(), 3u);
    EXPECT_EQ(comments[0].id, other_bot);
    EXPECT_EQ(comments[0].body, "Coverage: 91%");
    EXPECT_EQ(comments[1].id, other_project);
    EXPECT_EQ(comments[1].body, "<!-- benchwatch:q -->\nq's report");
    EXPECT_EQ(comments[2].id, newest);
    EXPECT_EQ(comments[2].body, "<!-- benchwatch:p -->\nrun 4\n");

    std::vector<std::string> changes;
    for (const auto& request : github_.requests())
        if (request.method != "GET") changes.push_back(request.method + " " + request.target);
    const auto comment_path = [](std::int64_t id) {
        return "/repos/o/r/issues/comments/" + std::to_string(id);
    };
    EXPECT_EQ(changes, (std::vector<std::string>{"PATCH " + comment_path(newest),
                                                 "DELETE " + comment_path(first),
                                                 "DELETE " + comment_path(second)}));
}

TEST_F(GitHubTest, AReportOf300000CharactersArrivesWithinTheLimit) {
    // 3,000 table rows of 99 characters and a newline.
    std::string report = "## Benchmark results\n\n| Benchmark | Change |\n|---|---|\n";
    for (int i = 0; report.size() < 300'000; ++i) report += table_row(i);
    ASSERT_GE(report.size(), 300'000u);
    const auto output = comment(report);
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto comments = github_.comments("o/r", 5);
    ASSERT_EQ(comments.size(), 1u);
    EXPECT_LE(comments[0].body.size(), 65'536u);
    EXPECT_NE(comments[0].body.find("_benchwatch cut this report after "), std::string::npos);
}

TEST_F(GitHubTest, AComparisonOfThousandsOfBenchmarksArrivesWithinTheLimit) {
    std::vector<std::pair<std::string, double>> base_rows;
    std::vector<std::pair<std::string, double>> head_rows;
    for (int i = 0; i < 3000; ++i) {
        const auto name = "kernels/some_rather_long_benchmark_name_" + std::to_string(10000 + i);
        base_rows.emplace_back(name, 1000.0 + i);
        head_rows.emplace_back(name, 1010.0 + i);
    }
    record(base_sha, "main", base_rows);
    record(head_sha, "feature", head_rows);
    const auto output = benchwatch({"github", "comment", "--store", store(), "--project", "p",
                                    "--machine", "m", "--base", base_sha});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "created comment 1001 on o/r#5: " + comment_url(1001) + "\n");
    const auto comments = github_.comments("o/r", 5);
    ASSERT_EQ(comments.size(), 1u);
    EXPECT_LE(comments[0].body.size(), 65'536u);
    EXPECT_TRUE(comments[0].body.starts_with("<!-- benchwatch:p -->\n## Benchmark results"))
        << comments[0].body.substr(0, 200);
    // The report layer drops whole rows (65,536 − 22 bytes of marker line = 65,514 left), so
    // the comment's own last-resort cut is not needed.
    EXPECT_NE(comments[0].body.find(
                  "are left out of this table to keep the report under 65514 characters"),
              std::string::npos);
    EXPECT_EQ(comments[0].body.find("_benchwatch cut this report"), std::string::npos);
}

struct RefusalCase {
    const char* name;
    int status;
    std::multimap<std::string, std::string> headers;
    const char* body;
    const char* message;
};

class GitHubRefusalTest : public GitHubTest, public ::testing::WithParamInterface<RefusalCase> {};

TEST_P(GitHubRefusalTest, IsOneLineAndExitCode2) {
    const auto& refusal = GetParam();
    github_.fail_next(1, FakeFailure{refusal.status, refusal.headers, refusal.body});
    const auto output = comment("report\n");
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.out, "");
    EXPECT_EQ(output.err, std::string("error: ") + refusal.message + "\n");
    EXPECT_TRUE(github_.comments("o/r", 5).empty());
}

INSTANTIATE_TEST_SUITE_P(
    GitHubRefusals, GitHubRefusalTest,
    ::testing::Values(
        RefusalCase{"Unauthorized",
                    401,
                    {},
                    R"({"message": "Bad credentials"})",
                    "GitHub rejected the token in GITHUB_TOKEN (401 Unauthorized on GET "
                    "/repos/o/r/issues/5/comments): it is invalid or expired; pass a valid token"},
        RefusalCase{"Forbidden",
                    403,
                    {{"x-ratelimit-remaining", "4000"}},
                    R"({"message": "Resource not accessible by integration"})",
                    "GitHub refused GET /repos/o/r/issues/5/comments (403 Forbidden): the token "
                    "lacks permission; give the workflow `permissions: pull-requests: write` "
                    "(GitHub says: Resource not accessible by integration)"},
        RefusalCase{"NotFound",
                    404,
                    {},
                    R"({"message": "Not Found"})",
                    "GitHub cannot find pull request #5 of o/r (404 Not Found on GET "
                    "/repos/o/r/issues/5/comments): check the repository and number, and that the "
                    "token can read the repository"},
        RefusalCase{"Unprocessable",
                    422,
                    {},
                    R"({"message": "Validation Failed", "errors": [{"message": "nope"}]})",
                    "GitHub rejected GET /repos/o/r/issues/5/comments (422 Unprocessable Entity): "
                    "Validation Failed: nope"},
        // 1790000000 s after the epoch is 2026-09-21 14:13:20 UTC.
        RefusalCase{"RateLimited",
                    403,
                    {{"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", "1790000000"}},
                    R"({"message": "API rate limit exceeded"})",
                    "GitHub's API rate limit for this token is used up (403 Forbidden on GET "
                    "/repos/o/r/issues/5/comments): it resets at 2026-09-21 14:13:20 UTC; retry "
                    "after that"}),
    [](const ::testing::TestParamInfo<RefusalCase>& refusal) { return refusal.param.name; });

TEST_F(GitHubTest, APersonsCommentWithTheMarkerIsLeftAlone) {
    const auto bots =
        github_.add_comment("o/r", 5, "github-actions[bot]", "<!-- benchwatch:p -->\nrun 1");
    const auto persons =
        github_.add_comment("o/r", 5, "mallory", "<!-- benchwatch:p -->\n[Approve](https://x)");
    const auto output = comment("run 2\n");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out,
              "edited comment " + std::to_string(bots) + " on o/r#5: " + comment_url(bots) + "\n");
    const auto comments = github_.comments("o/r", 5);
    ASSERT_EQ(comments.size(), 2u);
    EXPECT_EQ(comments[0].body, "<!-- benchwatch:p -->\nrun 2\n");
    EXPECT_EQ(comments[1].id, persons);
    EXPECT_EQ(comments[1].body, "<!-- benchwatch:p -->\n[Approve](https://x)");
}

TEST_F(GitHubTest, WithAPersonalTokenItsOwnCommentIsEdited) {
    github_.set_token_user("octocat");
    const auto own = github_.add_comment("o/r", 5, "octocat", "<!-- benchwatch:p -->\nrun 1");
    github_.add_comment("o/r", 5, "mallory", "<!-- benchwatch:p -->\nnot benchwatch's");
    const auto output = comment("run 2\n");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out,
              "edited comment " + std::to_string(own) + " on o/r#5: " + comment_url(own) + "\n");
    EXPECT_EQ(github_.comments("o/r", 5).at(1).body, "<!-- benchwatch:p -->\nnot benchwatch's");
}

TEST_F(GitHubTest, AnErrorBodyThatEchoesTheTokenIsShownWithoutIt) {
    github_.fail_next(1, FakeFailure{403,
                                     {{"x-ratelimit-remaining", "4000"}},
                                     std::string(R"({"message": "token )") + FakeGitHub::token +
                                         R"( may not do this"})"});
    const auto output = comment("report\n");
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: GitHub refused GET /repos/o/r/issues/5/comments (403 Forbidden): the token "
              "lacks permission; give the workflow `permissions: pull-requests: write` (GitHub "
              "says: token [token] may not do this)\n");
}

TEST_F(GitHubTest, AListingWhoseNextPageIsItselfStops) {
    github_.add_comment("o/r", 5, "github-actions[bot]", "<!-- benchwatch:p -->\nrun 1");
    github_.set_paging(FakePaging::same_page);
    const auto output = comment("report\n");
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: GitHub answered GET /repos/o/r/issues/5/comments with a next page it had "
              "sent before (/repos/o/r/issues/5/comments?per_page=100&page=1); stopped after 2 "
              "pages rather than read the same pages forever; retry later\n");
    EXPECT_EQ(github_.comments("o/r", 5).at(0).body, "<!-- benchwatch:p -->\nrun 1");
}

TEST_F(GitHubTest, AWrongTokenIsNamedButNeverShown) {
    const auto output = comment("report\n", {{"GITHUB_TOKEN", "ghp_notTheRightOne"}});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: GitHub rejected the token in GITHUB_TOKEN (401 Unauthorized on GET "
              "/repos/o/r/issues/5/comments): it is invalid or expired; pass a valid token\n");
    EXPECT_EQ(output.err.find("ghp_notTheRightOne"), std::string::npos);
}

TEST_F(GitHubTest, AMissingTokenSaysWhichVariable) {
    const auto output = benchwatch(
        {"github", "comment", "--project", "p", "--report", "r.md", "--token-env", "BENCH_TOKEN"},
        {{"BENCH_TOKEN", ""}});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: no GitHub token: BENCH_TOKEN is unset or empty; give the step `env: "
              "BENCH_TOKEN: ${{ secrets.GITHUB_TOKEN }}` or name another variable with "
              "--token-env\n");
    EXPECT_TRUE(github_.requests().empty());
}

TEST_F(GitHubTest, TwoBadGatewaysThenSuccess) {
    github_.fail_next(2, FakeFailure{502, {}, "<html>Bad Gateway</html>"});
    const auto output = comment("report\n");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "created comment 1001 on o/r#5: " + comment_url(1001) + "\n");
    EXPECT_EQ(github_.requests().size(), 4u);  // 3 listings, 1 creation
}

TEST_F(GitHubTest, SummaryAppendsTheReport) {
    const auto summary = directory_.path() / "summary.md";
    write_text(summary, "## Tests\npassed\n");
    write_text(directory_.path() / "report.md", "## Benchmark results\nall unchanged\n");
    auto output = benchwatch({"github", "summary", "--report", "report.md"},
                             {{"GITHUB_STEP_SUMMARY", summary.string()}});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(read_text(summary), "## Tests\npassed\n## Benchmark results\nall unchanged\n");

    output = benchwatch({"github", "summary", "--report", "report.md"});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: GITHUB_STEP_SUMMARY is unset: `benchwatch github summary` runs in a GitHub "
              "Actions step; elsewhere use `benchwatch compare --output FILE`\n");
    EXPECT_TRUE(github_.requests().empty());
}

TEST_F(GitHubTest, StatusFollowsFailOnRegression) {
    // History on main: 1000, 1010, 1000, 1010 ns (typical change about 1%); the head at 2000 ns
    // is unusually slower; "steady", with too short a history to learn its noise from, is
    // inconclusive and counted as such.
    const std::vector<double> history = {1000, 1010, 1000, 1010};
    for (std::size_t i = 0; i < history.size(); ++i) {
        const auto commit = std::string(39, 'c') + std::to_string(i);
        record(i + 1 == history.size() ? base_sha : commit, "main",
               {{"hot", history[i]}, {"steady", 500}});
    }
    record(head_sha, "feature", {{"hot", 2000}, {"steady", 500}});
    const std::vector<std::string> flags = {"--store",   store(), "--project", "p",
                                            "--machine", "m",     "--base",    base_sha};
    auto arguments = std::vector<std::string>{"github", "status"};
    arguments.insert(arguments.end(), flags.begin(), flags.end());
    auto output = benchwatch(arguments, {{"GITHUB_SERVER_URL", "https://github.com"},
                                         {"GITHUB_REPOSITORY", "o/r"},
                                         {"GITHUB_RUN_ID", "77"}});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "set benchwatch/p to success on o/r@" + head_sha +
                              ": 1 slower, 0 faster, 1 inconclusive of 2 benchmarks\n");

    arguments.push_back("--fail-on-regression");
    arguments.insert(arguments.end(), {"--target-url", "https://example.org/perf"});
    output = benchwatch(arguments);
    ASSERT_EQ(output.exit_code, 0) << output.err;

    const auto statuses = github_.statuses("o/r", head_sha);
    ASSERT_EQ(statuses.size(), 2u);
    EXPECT_EQ(statuses[0],
              (nlohmann::json{{"state", "success"},
                              {"description", "1 slower, 0 faster, 1 inconclusive of 2 benchmarks"},
                              {"context", "benchwatch/p"},
                              {"target_url", "https://github.com/o/r/actions/runs/77"}}));
    EXPECT_EQ(statuses[1]["state"], "failure");
    EXPECT_EQ(statuses[1]["target_url"], "https://example.org/perf");
}

TEST_F(GitHubTest, TheAcceptLabelTurnsAFailingStatusGreenAndItsRemovalRedAgain) {
    const std::vector<double> history = {1000, 1010, 1000, 1010};
    for (std::size_t i = 0; i < history.size(); ++i) {
        const auto commit = std::string(39, 'c') + std::to_string(i);
        record(i + 1 == history.size() ? base_sha : commit, "main", {{"hot", history[i]}});
    }
    record(head_sha, "feature", {{"hot", 2000}});
    github_.set_pull_request_head("o/r", 5, head_sha);
    const std::vector<std::string> flags = {"--store",   store(), "--project", "p",
                                            "--machine", "m",     "--base",    base_sha};
    const auto status = [&] {
        auto arguments = std::vector<std::string>{"github", "status", "--fail-on-regression"};
        arguments.insert(arguments.end(), flags.begin(), flags.end());
        const auto output = benchwatch(arguments);
        EXPECT_EQ(output.exit_code, 0) << output.err;
        return output.out;
    };
    const auto comment = [&] {
        auto arguments = std::vector<std::string>{"github", "comment"};
        arguments.insert(arguments.end(), flags.begin(), flags.end());
        const auto output = benchwatch(arguments);
        EXPECT_EQ(output.exit_code, 0) << output.err;
        const auto comments = github_.comments("o/r", 5);
        return comments.empty() ? std::string() : comments.back().body;
    };
    const std::string accepted_line =
        "Accepted by maintainer with the label performance-accepted: 1 slower benchmark does "
        "not fail the check.";

    EXPECT_EQ(status(), "set benchwatch/p to failure on o/r@" + head_sha +
                            ": 1 slower, 0 faster of 1 benchmarks\n");
    EXPECT_EQ(comment().find("Accepted"), std::string::npos);

    github_.add_label("o/r", 5, "needs-review", "someone");
    github_.add_label("o/r", 5, "performance-accepted", "maintainer");
    EXPECT_EQ(status(), "set benchwatch/p to success on o/r@" + head_sha +
                            ": accepted by label performance-accepted (by maintainer): 1 slower, 0 "
                            "faster of 1 benchmarks\n");
    EXPECT_NE(comment().find(accepted_line), std::string::npos);

    github_.remove_label("o/r", 5, "performance-accepted", "maintainer");
    EXPECT_EQ(status(), "set benchwatch/p to failure on o/r@" + head_sha +
                            ": 1 slower, 0 faster of 1 benchmarks\n");
    EXPECT_EQ(comment().find("Accepted"), std::string::npos);
    const auto statuses = github_.statuses("o/r", head_sha);
    ASSERT_EQ(statuses.size(), 3u);
    EXPECT_EQ(statuses[1]["state"], "success");

    // Another label name set in benchwatch.toml: the default one no longer accepts.
    write_text(directory_.path() / "benchwatch.toml", "[compare]\naccept_label = \"perf-ok\"\n");
    github_.add_label("o/r", 5, "performance-accepted", "maintainer");
    EXPECT_NE(status().find(" to failure "), std::string::npos);
    github_.add_label("o/r", 5, "perf-ok", "lead");
    EXPECT_NE(
        status().find(" to success on o/r@" + head_sha + ": accepted by label perf-ok (by lead)"),
        std::string::npos);
}

TEST_F(GitHubTest, CompareFailOnRegressionHonoursTheLabelOfItsPullRequestEvent) {
    const std::vector<double> history = {1000, 1010, 1000, 1010};
    for (std::size_t i = 0; i < history.size(); ++i) {
        const auto commit = std::string(39, 'c') + std::to_string(i);
        record(i + 1 == history.size() ? base_sha : commit, "main", {{"hot", history[i]}});
    }
    record(head_sha, "feature", {{"hot", 2000}});
    const std::vector<std::string> compare = {
        "compare",   "--store", store(),  "--project", "p",
        "--machine", "m",       "--base", base_sha,    "--fail-on-regression"};
    EXPECT_EQ(benchwatch(compare).exit_code, 1);
    // The labeled event GitHub sends when a maintainer adds the label.
    write_text(event_path(), nlohmann::json{{"action", "labeled"},
                                            {"label", {{"name", "performance-accepted"}}},
                                            {"sender", {{"login", "maintainer"}}},
                                            {"pull_request",
                                             {{"number", 5},
                                              {"labels", {{{"name", "performance-accepted"}}}},
                                              {"head", {{"sha", head_sha}}},
                                              {"base", {{"sha", base_sha}}}}},
                                            {"repository", {{"full_name", "o/r"}}}}
                                 .dump());
    const auto accepted = benchwatch(compare);
    EXPECT_EQ(accepted.exit_code, 0) << accepted.err;
    EXPECT_NE(accepted.out.find("Accepted by maintainer with the label performance-accepted: 1 "
                                "slower benchmark does not fail the check."),
              std::string::npos)
        << accepted.out;
    // Turned off, the label accepts nothing.
    auto off = compare;
    off.insert(off.end(), {"--accept-label", ""});
    EXPECT_EQ(benchwatch(off).exit_code, 1);
    // GitLab's merge request pipelines list the labels in CI_MERGE_REQUEST_LABELS.
    const auto gitlab = benchwatch(
        compare,
        {{"GITHUB_EVENT_PATH", ""}, {"CI_MERGE_REQUEST_LABELS", "bug,performance-accepted"}});
    EXPECT_EQ(gitlab.exit_code, 0) << gitlab.err;
    EXPECT_NE(gitlab.out.find("Accepted with the label performance-accepted"), std::string::npos);
    EXPECT_EQ(benchwatch(compare, {{"GITHUB_EVENT_PATH", ""},
                                   {"CI_MERGE_REQUEST_LABELS", "performance-accepted-later"}})
                  .exit_code,
              1);
}

TEST_F(GitHubTest, StatusNeedsStatusesWrite) {
    record(base_sha, "main", {{"hot", 1000}});
    record(head_sha, "feature", {{"hot", 1000}});
    github_.fail_next(
        1, FakeFailure{403, {}, R"({"message": "Resource not accessible by integration"})"});
    const auto output = benchwatch({"github", "status", "--store", store(), "--project", "p",
                                    "--machine", "m", "--base", base_sha});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: GitHub refused POST /repos/o/r/statuses/" + head_sha +
                              " (403 Forbidden): the token lacks permission; give the workflow "
                              "`permissions: statuses: write` (GitHub says: Resource not "
                              "accessible by integration)\n");
}

// The fork flow of docs/github-actions.md, its commands run in sequence: the pull_request
// workflow records and compares the pull request's merge commit in a real repository (no token),
// saving its JSON report and event as the artifact; the workflow_run workflow, in another folder
// with neither the history nor the repository, posts from them.
class ForkFlowTest : public GitHubTest {
  protected:
    ForkFlowTest() {
        // main: four commits, each benchmarked (hot alternates 1000/1010 ns, typical change
        // about 1%); the pull request's head adds one commit on the third, and GitHub's merge
        // commit joins it to main's tip.
        for (int i = 0; i < 4; ++i) {
            repository_.write_file("main.txt", std::to_string(i));
            main_commits_.push_back(repository_.commit("main " + std::to_string(i)));
            record_in_repository(main_commits_.back(), "main", i % 2 == 0 ? 1000 : 1010);
        }
        repository_.git({"checkout", "-q", "-b", "feature", main_commits_[2]});
        repository_.write_file("feature.txt", "slower");
        pull_request_head_ = repository_.commit("make hot slower");
        repository_.git({"checkout", "-q", "main"});
        merge_commit_ = repository_.git({"commit-tree", pull_request_head_ + "^{tree}", "-p",
                                         main_commits_[3], "-p", pull_request_head_, "-m",
                                         "Merge " + pull_request_head_ + " into main"});
        write_text(pull_request_event(),
                   nlohmann::json{{"action", "synchronize"},
                                  {"number", 7},
                                  {"pull_request",
                                   {{"number", 7},
                                    {"head", {{"sha", pull_request_head_}, {"ref", "feature"}}},
                                    {"base", {{"sha", main_commits_[3]}, {"ref", "main"}}}}},
                                  {"repository", {{"full_name", "o/r"}}}}
                       .dump());
        write_workflow_run_event(pull_request_head_);
        github_.set_pull_request_head("o/r", 7, pull_request_head_);
    }

    fs::path pull_request_event() const { return directory_.path() / "pull_request_event.json"; }
    fs::path workflow_run_event() const { return directory_.path() / "workflow_run_event.json"; }
    fs::path artifact() const { return directory_.path() / "artifact"; }
    fs::path trusted() const { return directory_.path() / "trusted"; }

    // The event GitHub gives the workflow_run workflow: fork pull requests are not listed.
    void write_workflow_run_event(const std::string& run_head) {
        write_text(workflow_run_event(),
                   nlohmann::json{{"action", "completed"},
                                  {"workflow_run",
                                   {{"id", 99},
                                    {"event", "pull_request"},
                                    {"head_sha", run_head},
                                    {"pull_requests", nlohmann::json::array()}}},
                                  {"repository", {{"full_name", "o/r"}}}}
                       .dump());
    }

    void record_in_repository(const std::string& commit, const std::string& branch, double hot) {
        write_text(repository_.directory() / "results.json",
                   google_benchmark_json({{"hot", hot}, {"steady", 500}}));
        const auto output =
            run(benchwatch_command({"record", "--store", store(), "--project", "p", "--machine",
                                    "m", "--commit", commit, "--branch", branch, "results.json"}),
                repository_.directory(), without_ci_variables());
        ASSERT_EQ(output.exit_code, 0) << output.err;
    }

    // The pull_request workflow's environment: no token, GITHUB_SHA the merge commit.
    EnvironmentOverrides pull_request_environment() const {
        auto variables = without_ci_variables();
        variables["NO_COLOR"] = "1";
        variables["GITHUB_EVENT_NAME"] = "pull_request";
        variables["GITHUB_EVENT_PATH"] = pull_request_event().string();
        variables["GITHUB_SHA"] = merge_commit_;
        variables["GITHUB_HEAD_REF"] = "feature";
        variables["GITHUB_REF_NAME"] = "7/merge";
        variables["GITHUB_REPOSITORY"] = "o/r";
        variables["GITHUB_STEP_SUMMARY"] = (directory_.path() / "summary.md").string();
        return variables;
    }

    // The pull_request workflow's benchwatch steps; returns the Markdown report it would show.
    std::string run_pull_request_workflow() {
        const auto environment = pull_request_environment();
        const auto in_repository = [&](const std::vector<std::string>& arguments) {
            auto output = run(benchwatch_command(arguments), repository_.directory(), environment);
            EXPECT_EQ(output.exit_code, 0) << describe(arguments) << ": " << output.err;
            return output;
        };
        write_text(repository_.directory() / "results.json",
                   google_benchmark_json({{"hot", 2000}, {"steady", 500}}));
        in_repository(
            {"record", "--store", store(), "--project", "p", "--machine", "m", "results.json"});
        fs::create_directories(artifact());
        in_repository({"compare", "--store", store(), "--project", "p", "--machine", "m",
                       "--format", "json", "--output", (artifact() / "report.json").string()});
        fs::copy_file(pull_request_event(), artifact() / "event.json");
        in_repository({"github", "summary", "--report", (artifact() / "report.json").string()});
        return in_repository({"compare", "--store", store(), "--project", "p", "--machine", "m",
                              "--format", "markdown"})
            .out;
    }

    // A benchwatch command of the workflow_run workflow, in a folder without history or git.
    vcs::ProcessOutput trusted_benchwatch(const std::vector<std::string>& arguments) {
        fs::create_directories(trusted());
        auto variables = environment();
        variables["GITHUB_EVENT_NAME"] = "workflow_run";
        variables["GITHUB_EVENT_PATH"] = workflow_run_event().string();
        variables["GITHUB_REPOSITORY"] = "o/r";
        variables["GITHUB_SHA"] = main_commits_[3];
        auto output = run(benchwatch_command(arguments), trusted(), variables);
        EXPECT_EQ(output.out.find(FakeGitHub::token), std::string::npos) << output.out;
        EXPECT_EQ(output.err.find(FakeGitHub::token), std::string::npos) << output.err;
        return output;
    }

    vcs::ProcessOutput post_comment() {
        return trusted_benchwatch({"github", "comment", "--report",
                                   (artifact() / "report.json").string(), "--event",
                                   (artifact() / "event.json").string()});
    }

    std::vector<std::string> calls() const {
        std::vector<std::string> list;
        for (const auto& request : github_.requests())
            list.push_back(request.method + " " + request.target);
        return list;
    }

    TemporaryDirectory repository_folder_{"benchwatch-fork"};
    GitRepository repository_{repository_folder_.path()};
    std::vector<std::string> main_commits_;
    std::string pull_request_head_;
    std::string merge_commit_;
};

TEST_F(ForkFlowTest, BothWorkflowsInSequencePostTheReportAndStatus) {
    const auto markdown = run_pull_request_workflow();
    // The merge commit is compared with main's tip, its first parent and merge base with main.
    ASSERT_NE(markdown.find("2.00 µs"), std::string::npos) << markdown;
    // The Markdown's compare read the calibration the JSON's compare cached, and says so.
    EXPECT_EQ(read_text(directory_.path() / "summary.md"), without_cache_origin(markdown));
    const auto report = nlohmann::json::parse(read_text(artifact() / "report.json"));
    EXPECT_EQ(report["head"], merge_commit_);
    EXPECT_EQ(report["baseline"]["commit"], main_commits_[3]);
    EXPECT_TRUE(github_.requests().empty()) << "the pull_request workflow has no token";

    auto output = post_comment();
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "created comment 1001 on o/r#7: " + comment_url(1001) + "\n");
    const auto comments = github_.comments("o/r", 7);
    ASSERT_EQ(comments.size(), 1u);
    EXPECT_EQ(comments[0].body, "<!-- benchwatch:p -->\n" + without_cache_origin(markdown));

    output = trusted_benchwatch({"github", "status", "--report",
                                 (artifact() / "report.json").string(), "--event",
                                 (artifact() / "event.json").string(), "--fail-on-regression"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "set benchwatch/p to failure on o/r@" + pull_request_head_ +
                              ": 1 slower, 0 faster, 1 inconclusive of 2 benchmarks\n");
    ASSERT_EQ(github_.statuses("o/r", pull_request_head_).size(), 1u);
    EXPECT_EQ(calls(), (std::vector<std::string>{
                           "GET /repos/o/r/pulls/7",
                           "GET /repos/o/r/issues/7/comments?per_page=100",
                           "POST /repos/o/r/issues/7/comments",
                           "GET /repos/o/r/pulls/7",
                           "POST /repos/o/r/statuses/" + pull_request_head_,
                       }));
}

TEST_F(ForkFlowTest, AnArtifactNamingAnotherHeadIsRefusedBeforeAnyRequest) {
    run_pull_request_workflow();
    // The artifact claims the pull request's head, but the triggering run ran on another commit
    // (a fork pointing its artifact at someone else's pull request).
    const std::string other_run(40, 'e');
    write_workflow_run_event(other_run);
    const auto output = post_comment();
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: " + (artifact() / "event.json").string() +
                              " (--event) is for head " + pull_request_head_ +
                              ", but the workflow run that triggered this one ran on " + other_run +
                              "; not posting: download the artifact of that run (run-id: "
                              "github.event.workflow_run.id)\n");
    EXPECT_TRUE(github_.requests().empty());
}

TEST_F(ForkFlowTest, AnArtifactOfAnotherRepositoryIsRefused) {
    run_pull_request_workflow();
    auto event = nlohmann::json::parse(read_text(artifact() / "event.json"));
    event["repository"]["full_name"] = "someone/else";
    write_text(artifact() / "event.json", event.dump());
    const auto output = post_comment();
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: " + (artifact() / "event.json").string() +
                              " (--event) is an event of someone/else, but this workflow runs "
                              "in o/r; not posting\n");
    EXPECT_TRUE(github_.requests().empty());
}

TEST_F(ForkFlowTest, APullRequestThatMovedOnGetsNothingFromOlderResults) {
    run_pull_request_workflow();
    const std::string newer(40, 'f');
    github_.set_pull_request_head("o/r", 7, newer);
    const auto output = post_comment();
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "not posted: o/r#7 has moved on to " + newer +
                              "; these results are for " + pull_request_head_ +
                              ", and the run for " + newer + " posts its own\n");
    EXPECT_EQ(calls(), std::vector<std::string>{"GET /repos/o/r/pulls/7"});
    EXPECT_TRUE(github_.comments("o/r", 7).empty());
}

TEST_F(ForkFlowTest, AMarkdownArtifactIsNotPostedAsItIs) {
    run_pull_request_workflow();
    write_text(artifact() / "report.json", "## Benchmark results\n@everyone look here\n");
    const auto output = post_comment();
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: " + (artifact() / "report.json").string() +
                  " is not a JSON report; a report made by the pull request's own build (--event "
                  "or a repository_dispatch event) is posted only as benchwatch renders it: write "
                  "it with `benchwatch compare --format json --output FILE`\n");
    // Refused before anything is asked of GitHub.
    EXPECT_TRUE(github_.requests().empty());
}

// Text a fork could put in every string of its report: a heading on a line of its own, HTML that
// closes the <details> block, a mention, a link, an image, a table cell break and an escape.
const std::string kHostileText =
    "\n## Injected\n<img src=x></details>@octocat [Click to approve](https://evil.example/a) "
    "![i](https://evil.example/i.png) a|b \033[2J";

TEST_F(ForkFlowTest, AHostileReportIsPostedWithEveryStringEscaped) {
    run_pull_request_workflow();
    auto report = nlohmann::json::parse(read_text(artifact() / "report.json"));
    for (auto& category : report["categories"]) {
        const std::string old_name = category["name"];
        category["name"] = old_name + kHostileText;
        for (auto& benchmark : report["benchmarks"])
            if (benchmark["category"] == old_name) benchmark["category"] = category["name"];
    }
    for (auto& benchmark : report["benchmarks"]) {
        benchmark["name"] = benchmark["name"].get<std::string>() + kHostileText;
        benchmark["display_name"] = benchmark["display_name"].get<std::string>() + kHostileText;
        benchmark["unit"] = "ns/op" + kHostileText;
    }
    report["baseline"]["commit"] = "c" + kHostileText;
    report["environment_changes"] = {{{"key", "k" + kHostileText},
                                      {"before", "b" + kHostileText},
                                      {"after", "a" + kHostileText}}};
    report["machine_environment"]["cpu"] = "cpu" + kHostileText;
    report["head_warnings"] = {{{"kind", "high-load"}, {"message", "load" + kHostileText}}};
    report["history_url"] = "https://history.example/?p=1" + kHostileText;
    write_text(artifact() / "report.json", report.dump());

    const auto output = post_comment();
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto comments = github_.comments("o/r", 7);
    ASSERT_EQ(comments.size(), 1u);
    const auto& body = comments[0].body;
    const std::string marker = "<!-- benchwatch:p -->\n";
    ASSERT_TRUE(body.starts_with(marker)) << body;
    EXPECT_EQ(markdown_problem(std::string_view(body).substr(marker.size())), std::nullopt) << body;
    EXPECT_NE(body.find("\nHistory: https://history.example/?p=1%0A##%20Injected%0A%3Cimg"),
              std::string::npos)
        << body;
    EXPECT_NE(body.find("2.00 kns/op ## Injected &lt;img src=x&gt;&lt;/details&gt;@\u200boctocat "
                        "\\[Click to approve\\](https://evil.example/a) !\\[i\\]"),
              std::string::npos)
        << body;

    // The summary of the same report is the same Markdown.
    auto variables = environment();
    variables["GITHUB_STEP_SUMMARY"] = (directory_.path() / "hostile_summary.md").string();
    const auto summary = run(benchwatch_command({"github", "summary", "--report",
                                                 (artifact() / "report.json").string()}),
                             directory_.path(), variables);
    ASSERT_EQ(summary.exit_code, 0) << summary.err;
    EXPECT_EQ("<!-- benchwatch:p -->\n" + read_text(directory_.path() / "hostile_summary.md"),
              body);
}

TEST_F(ForkFlowTest, AHistoryUrlThatIsNotAWebPageIsDropped) {
    run_pull_request_workflow();
    auto report = nlohmann::json::parse(read_text(artifact() / "report.json"));
    report["history_url"] = "javascript:alert(document.cookie)";
    write_text(artifact() / "report.json", report.dump());
    const auto output = post_comment();
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto comments = github_.comments("o/r", 7);
    ASSERT_EQ(comments.size(), 1u);
    EXPECT_EQ(comments[0].body.find("History:"), std::string::npos) << comments[0].body;
    EXPECT_EQ(comments[0].body.find("javascript"), std::string::npos) << comments[0].body;
}

TEST_F(ForkFlowTest, EventNeedsAReportAndExcludesOtherPullRequests) {
    auto output =
        trusted_benchwatch({"github", "comment", "--event", (artifact() / "event.json").string()});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(
        output.err,
        "error: --event: needs --report: the JSON report (compare --format json) the pull "
        "request's workflow uploaded with the event; run benchwatch github comment --help for "
        "usage\n");
    output = trusted_benchwatch({"github", "comment", "--event", "event.json", "--report",
                                 "report.json", "--pull-request", "8"});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: --pull-request excludes --event; run benchwatch github comment --help "
              "for usage\n");
    EXPECT_TRUE(github_.requests().empty());
}

}  // namespace
}  // namespace benchwatch::testing
