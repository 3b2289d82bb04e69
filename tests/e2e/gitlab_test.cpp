// What could break: `benchwatch gitlab comment` as a GitLab CI job runs it against GitLab's API
// (a local fake that records every request): the sticky note duplicated, another user's (one
// carrying the marker included), another project's or a system note touched, a report over
// GitLab's limit refused, an API refusal without its one-line message and exit code 2, a
// transient 502 failing the job, a listing whose next page is itself read forever, or the token
// appearing anywhere but the PRIVATE-TOKEN header (an error body echoing it included).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/fake_gitlab.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;

const std::string base_sha(40, 'a');
const std::string head_sha(40, 'b');
const std::string notes_target = "/api/v4/projects/42/merge_requests/7/notes";

// A report table row of exactly 100 characters, newline included.
std::string table_row(int index) {
    auto row = "| `benchmark_" + std::to_string(100000 + index) + "` | +1.0% |";
    row.resize(99, ' ');
    return row + "\n";
}

// A Markdown report of at least `size` bytes: a heading and table rows of 100 bytes.
std::string long_report(std::size_t size) {
    std::string report = "## Benchmark results\n\n| Benchmark | Change |\n|---|---|\n";
    for (int i = 0; report.size() < size; ++i) report += table_row(i);
    return report;
}

class GitLabTest : public ::testing::Test {
  protected:
    GitLabTest() { gitlab_.add_merge_request("42", 7); }

    const std::string& store() const { return store_; }

    EnvironmentOverrides environment() const {
        auto variables = without_ci_variables();
        variables["NO_COLOR"] = "1";
        variables["CI_API_V4_URL"] = gitlab_.url();
        variables["CI_PROJECT_ID"] = "42";
        variables["CI_PROJECT_PATH"] = "group/app";
        variables["CI_MERGE_REQUEST_IID"] = "7";
        variables["CI_COMMIT_SHA"] = "";
        variables["GITLAB_TOKEN"] = FakeGitLab::token;
        return variables;
    }

    // Runs benchwatch in the temporary folder and checks that its output never shows the token.
    vcs::ProcessOutput benchwatch(const std::vector<std::string>& arguments,
                                  const EnvironmentOverrides& extra = {}) {
        auto variables = environment();
        for (const auto& [name, value] : extra) variables[name] = value;
        auto output = run(benchwatch_command(arguments), directory_.path(), variables);
        EXPECT_EQ(output.out.find(FakeGitLab::token), std::string::npos) << output.out;
        EXPECT_EQ(output.err.find(FakeGitLab::token), std::string::npos) << output.err;
        return output;
    }

    // `gitlab comment` posting the Markdown report `text` for project p.
    vcs::ProcessOutput comment(const std::string& text, const EnvironmentOverrides& extra = {}) {
        write_text(directory_.path() / "report.md", text);
        return benchwatch({"gitlab", "comment", "--project", "p", "--report", "report.md"}, extra);
    }

    void record(const std::string& commit, const std::string& branch, double nanoseconds) {
        const nlohmann::json results = {{"context", {{"library_build_type", "release"}}},
                                        {"benchmarks",
                                         {{{"name", "hot"},
                                           {"run_type", "iteration"},
                                           {"iterations", 10},
                                           {"real_time", nanoseconds},
                                           {"cpu_time", nanoseconds},
                                           {"time_unit", "ns"}}}}};
        write_text(directory_.path() / "results.json", results.dump());
        const auto output =
            benchwatch({"record", "--store", store(), "--project", "p", "--machine", "m",
                        "--commit", commit, "--branch", branch, "results.json"});
        ASSERT_EQ(output.exit_code, 0) << output.err;
    }

    std::vector<std::string> calls() const {
        std::vector<std::string> made;
        for (const auto& request : gitlab_.requests())
            made.push_back(request.method + " " + request.target);
        return made;
    }

    void TearDown() override {
        for (const auto& request : gitlab_.requests()) {
            EXPECT_EQ(request.body.find(FakeGitLab::token), std::string::npos) << request.target;
            EXPECT_EQ(request.target.find(FakeGitLab::token), std::string::npos);
            for (const auto& [name, value] : request.headers)
                if (name != "PRIVATE-TOKEN") {
                    EXPECT_EQ(value.find(FakeGitLab::token), std::string::npos) << name;
                }
        }
    }

    TemporaryDirectory directory_{"benchwatch-gitlab"};
    std::string store_ = test_store_url(directory_.path());
    FakeGitLab gitlab_;
};

TEST_F(GitLabTest, TheAcceptLabelPassesTheJobAndTheNoteSaysWhoAddedIt) {
    const std::vector<double> history = {1000, 1010, 1000, 1010};
    for (std::size_t i = 0; i < history.size(); ++i)
        record(i + 1 == history.size() ? base_sha : std::string(39, 'c') + std::to_string(i),
               "main", history[i]);
    record(head_sha, "feature", 2000);
    const std::vector<std::string> arguments = {
        "gitlab", "comment", "--store", store(),  "--project",           "p", "--machine", "m",
        "--base", base_sha,  "--head",  head_sha, "--fail-on-regression"};
    const auto note = [&] {
        const auto notes = gitlab_.notes("42", 7);
        return notes.empty() ? std::string() : notes.back().body;
    };

    auto output = benchwatch(arguments);
    EXPECT_EQ(output.exit_code, 1) << output.err;
    EXPECT_EQ(note().find("Accepted"), std::string::npos);

    gitlab_.add_label("42", 7, "performance-accepted", "maintainer");
    output = benchwatch(arguments);
    EXPECT_EQ(output.exit_code, 0) << output.err;
    EXPECT_NE(note().find("Accepted by maintainer with the label performance-accepted: 1 slower "
                          "benchmark does not fail the check."),
              std::string::npos)
        << note();

    gitlab_.remove_label("42", 7, "performance-accepted", "maintainer");
    output = benchwatch(arguments);
    EXPECT_EQ(output.exit_code, 1) << output.err;
    EXPECT_EQ(note().find("Accepted"), std::string::npos);
    EXPECT_EQ(gitlab_.notes("42", 7).size(), 1u) << "the one note is edited each time";
}

TEST_F(GitLabTest, FirstPostCreatesTheNoteAndTheSecondEditsIt) {
    auto output = comment("## Benchmark results\nfirst\n");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "created note 501 on group/app!7\n");

    output = comment("## Benchmark results\nsecond\n");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "edited note 501 on group/app!7\n");

    const auto notes = gitlab_.notes("42", 7);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0].body, "<!-- benchwatch:p -->\n## Benchmark results\nsecond\n");
    EXPECT_EQ(calls(), (std::vector<std::string>{
                           "GET " + notes_target + "?per_page=100&sort=asc",
                           "POST " + notes_target,
                           "GET " + notes_target + "?per_page=100&sort=asc",
                           // Whose the marked note is: the token's user.
                           "GET /api/v4/user",
                           "PUT " + notes_target + "/501",
                       }));
}

TEST_F(GitLabTest, DuplicatesAreDeletedAndOtherNotesNeverTouched) {
    const std::string bot = FakeGitLab::token_user;
    const auto person = gitlab_.add_note("42", 7, "alice", "<!-- benchwatch:p --> is our marker");
    const auto oldest = gitlab_.add_note("42", 7, bot, "<!-- benchwatch:p -->\nold");
    const auto system = gitlab_.add_note("42", 7, "alice", "<!-- benchwatch:p -->\nsystem", true);
    const auto older = gitlab_.add_note("42", 7, bot, "<!-- benchwatch:p -->\nolder");
    const auto other_project = gitlab_.add_note("42", 7, bot, "<!-- benchwatch:q -->\nq");
    const auto newest = gitlab_.add_note("42", 7, bot, "<!-- benchwatch:p -->\nnewest");

    const auto output = comment("report\n");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "edited note " + std::to_string(newest) +
                              " on group/app!7 and deleted 2 older copies\n");

    const auto notes = gitlab_.notes("42", 7);
    ASSERT_EQ(notes.size(), 4u);
    EXPECT_EQ(notes[0].id, person);
    EXPECT_EQ(notes[0].body, "<!-- benchwatch:p --> is our marker");
    EXPECT_EQ(notes[1].id, system);
    EXPECT_EQ(notes[1].body, "<!-- benchwatch:p -->\nsystem");
    EXPECT_EQ(notes[2].id, other_project);
    EXPECT_EQ(notes[3].id, newest);
    EXPECT_EQ(notes[3].body, "<!-- benchwatch:p -->\nreport\n");
    // 6 notes, 2 a page: three pages listed, the token's user, then one edit and two deletions.
    const auto made = calls();
    ASSERT_EQ(made.size(), 7u);
    EXPECT_EQ(made[3], "GET /api/v4/user");
    EXPECT_EQ(made[4], "PUT " + notes_target + "/" + std::to_string(newest));
    EXPECT_EQ(made[5], "DELETE " + notes_target + "/" + std::to_string(oldest));
    EXPECT_EQ(made[6], "DELETE " + notes_target + "/" + std::to_string(older));
}

TEST_F(GitLabTest, AnotherUsersNoteWithTheMarkerIsLeftAlone) {
    const auto ours =
        gitlab_.add_note("42", 7, FakeGitLab::token_user, "<!-- benchwatch:p -->\nold");
    const auto theirs =
        gitlab_.add_note("42", 7, "mallory", "<!-- benchwatch:p -->\n[Approve](https://x)");
    const auto output = comment("report\n");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "edited note " + std::to_string(ours) + " on group/app!7\n");
    const auto notes = gitlab_.notes("42", 7);
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_EQ(notes[0].body, "<!-- benchwatch:p -->\nreport\n");
    EXPECT_EQ(notes[1].id, theirs);
    EXPECT_EQ(notes[1].body, "<!-- benchwatch:p -->\n[Approve](https://x)");
}

TEST_F(GitLabTest, AnErrorBodyThatEchoesTheTokenIsShownWithoutIt) {
    gitlab_.fail_next(1,
                      {418, {}, std::string(R"({"message": "no )") + FakeGitLab::token + R"("})"});
    const auto output = comment("report\n");
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: GitLab answered 418 to GET /projects/42/merge_requests/7/notes (GitLab says: "
              "no [token])\n");
}

TEST_F(GitLabTest, AListingWhoseNextPageIsItselfStops) {
    gitlab_.set_paging(FakePaging::same_page);
    const auto output = comment("report\n");
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: GitLab answered GET /projects/42/merge_requests/7/notes with a next page it "
              "had sent before (/api/v4/projects/42/merge_requests/7/notes?per_page=100&sort=asc&"
              "page=1); stopped after 2 pages rather than read the same pages forever; retry "
              "later\n");
    EXPECT_TRUE(gitlab_.notes("42", 7).empty());
}

TEST_F(GitLabTest, AReportOf300000CharactersArrivesWhole) {
    const auto report = long_report(300'000);
    const auto output = comment(report);
    ASSERT_EQ(output.exit_code, 0) << output.err;
    // GitLab's limit is 1,000,000 characters, so nothing is cut.
    EXPECT_EQ(gitlab_.notes("42", 7).at(0).body, "<!-- benchwatch:p -->\n" + report);
}

TEST_F(GitLabTest, AReportOverAMillionCharactersIsCutToFit) {
    const auto report = long_report(1'200'000);
    const auto output = comment(report);
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto body = gitlab_.notes("42", 7).at(0).body;
    EXPECT_LE(body.size(), 1'000'000u);
    const auto note = body.find("\n_benchwatch cut this report after ");
    ASSERT_NE(note, std::string::npos);
    // After the 22-byte marker line, the report's heading lines are 21 + 1 + 23 + 10 = 55
    // bytes, then rows of 100: the cut falls after a whole row.
    EXPECT_EQ((note - 22 - 55) % 100, 0u);
    EXPECT_TRUE(
        body.ends_with(" bytes to fit GitLab's note limit; `benchwatch compare` shows "
                       "all of it._\n"));
}

TEST_F(GitLabTest, ComparesCiCommitShaWhenNoReportIsGiven) {
    record(base_sha, "main", 1000);
    record(head_sha, "feature", 2000);
    // One run of history: the seed rule, which judges it by the category minimum alone.
    const auto output = benchwatch({"gitlab", "comment", "--store", store(), "--project", "p",
                                    "--machine", "m", "--base", base_sha, "--method", "seed"},
                                   {{"CI_COMMIT_SHA", head_sha}});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "created note 501 on group/app!7\n");
    const auto body = gitlab_.notes("42", 7).at(0).body;
    EXPECT_TRUE(body.starts_with("<!-- benchwatch:p -->\n## Benchmark results")) << body;
    // The head recorded at CI_COMMIT_SHA took 2000 ns, the base 1000 ns: +100.0%.
    EXPECT_NE(body.find("| hot | 1.00 µs | 2.00 µs | +100.0% 🔴 slower |"), std::string::npos)
        << body;
}

TEST_F(GitLabTest, AJsonReportIsRenderedForItsOwnProject) {
    record(base_sha, "main", 1000);
    record(head_sha, "feature", 2000);
    const auto compared = benchwatch({"compare", "--store", store(), "--project", "p", "--machine",
                                      "m", "--base", base_sha, "--head", head_sha, "--method",
                                      "seed", "--format", "json", "--output", "report.json"});
    ASSERT_EQ(compared.exit_code, 0) << compared.err;
    // No --project and no store: the marker's project and the rows come from the report.
    const auto output = benchwatch({"gitlab", "comment", "--report", "report.json"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto body = gitlab_.notes("42", 7).at(0).body;
    EXPECT_TRUE(body.starts_with("<!-- benchwatch:p -->\n## Benchmark results")) << body;
    EXPECT_NE(body.find("| hot | 1.00 µs | 2.00 µs | +100.0% 🔴 slower |"), std::string::npos)
        << body;
}

TEST_F(GitLabTest, WithoutAReportOrAHeadSaysWhatToPass) {
    const auto output =
        benchwatch({"gitlab", "comment", "--store", store(), "--project", "p", "--machine", "m"});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: no head commit: neither CI_COMMIT_SHA nor a git repository gives one; "
              "pass --head SHA\n");
    EXPECT_TRUE(gitlab_.requests().empty());
}

TEST_F(GitLabTest, FlagsNameTheProjectByPathAndTheMergeRequest) {
    gitlab_.add_merge_request("other/app", 3);
    write_text(directory_.path() / "report.md", "report\n");
    const auto output =
        benchwatch({"gitlab", "comment", "--project", "p", "--report", "report.md",
                    "--gitlab-project", "other/app", "--merge-request", "3"},
                   {{"CI_PROJECT_ID", ""}, {"CI_PROJECT_PATH", ""}, {"CI_MERGE_REQUEST_IID", ""}});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "created note 501 on other/app!3\n");
    EXPECT_EQ(calls().back(), "POST /api/v4/projects/other%2Fapp/merge_requests/3/notes");
}

struct RefusalCase {
    const char* name;
    int status;
    std::multimap<std::string, std::string> headers;
    const char* body;
    const char* message;
};

class GitLabRefusalTest : public GitLabTest, public ::testing::WithParamInterface<RefusalCase> {};

TEST_P(GitLabRefusalTest, IsOneLineAndExitCode2) {
    const auto& refusal = GetParam();
    gitlab_.fail_next(1, FakeFailure{refusal.status, refusal.headers, refusal.body});
    const auto output = comment("report\n");
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.out, "");
    EXPECT_EQ(output.err, std::string("error: ") + refusal.message + "\n");
    EXPECT_TRUE(gitlab_.notes("42", 7).empty());
}

INSTANTIATE_TEST_SUITE_P(
    GitLabRefusals, GitLabRefusalTest,
    ::testing::Values(
        RefusalCase{"Unauthorized",
                    401,
                    {},
                    R"({"message": "401 Unauthorized"})",
                    "GitLab rejected the token in GITLAB_TOKEN (401 Unauthorized on GET "
                    "/projects/42/merge_requests/7/notes): it is invalid, expired or revoked; "
                    "pass a project or personal access token with the api scope"},
        RefusalCase{"Forbidden",
                    403,
                    {},
                    R"({"message": "403 Forbidden"})",
                    "GitLab refused GET /projects/42/merge_requests/7/notes (403 Forbidden): the "
                    "token in GITLAB_TOKEN lacks the api scope or may not write on this merge "
                    "request; use a project or personal access token with the api scope and at "
                    "least the Reporter role"},
        RefusalCase{"NotFound",
                    404,
                    {},
                    R"({"message": "404 Project Not Found"})",
                    "GitLab cannot find merge request !7 of group/app (404 Not Found on GET "
                    "/projects/42/merge_requests/7/notes): check the project and merge request "
                    "IID, and that the token can see the project"},
        RefusalCase{"BadRequest",
                    400,
                    {},
                    R"({"message": {"note": ["is too long"]}})",
                    "GitLab rejected GET /projects/42/merge_requests/7/notes (400 Bad Request): "
                    "note is too long"},
        RefusalCase{"Unprocessable",
                    422,
                    {},
                    R"({"message": "Unprocessable"})",
                    "GitLab rejected GET /projects/42/merge_requests/7/notes (422 Unprocessable "
                    "Entity): Unprocessable"},
        // 1790000000 s after the epoch is 2026-09-21 14:13:20 UTC.
        RefusalCase{"RateLimited",
                    429,
                    {{"RateLimit-Reset", "1790000000"}},
                    "Retry later",
                    "GitLab is rate-limiting this token (429 Too Many Requests on GET "
                    "/projects/42/merge_requests/7/notes): the limit resets at 2026-09-21 "
                    "14:13:20 UTC; retry after that"}),
    [](const ::testing::TestParamInfo<RefusalCase>& refusal) { return refusal.param.name; });

TEST_F(GitLabTest, AnUnknownMergeRequestIsNamed) {
    const auto output = comment("report\n", {{"CI_MERGE_REQUEST_IID", "8"}});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: GitLab cannot find merge request !8 of group/app (404 Not Found on GET "
              "/projects/42/merge_requests/8/notes): check the project and merge request IID, "
              "and that the token can see the project\n");
}

TEST_F(GitLabTest, ARetryAfterLongerThanAMinuteSaysWhenToRetry) {
    gitlab_.fail_next(1, FakeFailure{429, {{"Retry-After", "3600"}}, "Retry later"});
    const auto output = comment("report\n");
    EXPECT_EQ(output.exit_code, 2);
    const std::string start =
        "error: GitLab asks to wait 3600 s before retrying GET "
        "/projects/42/merge_requests/7/notes (429 Too Many Requests), longer than the 60 s "
        "benchwatch waits; retry after ";
    // The time is an hour from now: "2026-11-30 09:27:12 UTC".
    EXPECT_TRUE(output.err.starts_with(start)) << output.err;
    EXPECT_EQ(output.err.size(), start.size() + std::string("2026-11-30 09:27:12 UTC\n").size())
        << output.err;
    EXPECT_TRUE(output.err.ends_with(" UTC\n")) << output.err;
    EXPECT_EQ(gitlab_.requests().size(), 1u);
}

TEST_F(GitLabTest, AShortRetryAfterIsWaitedThenTheNoteIsPosted) {
    gitlab_.fail_next(1, FakeFailure{429, {{"Retry-After", "1"}}, "Retry later"});
    const auto output = comment("report\n");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "created note 501 on group/app!7\n");
    EXPECT_EQ(gitlab_.requests().size(), 3u);  // the refused listing, its retry, the creation
}

TEST_F(GitLabTest, OutsideAMergeRequestPipelineSaysWhatToPass) {
    const auto output = comment("report\n", {{"CI_MERGE_REQUEST_IID", ""}});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: no merge request: CI_MERGE_REQUEST_IID is unset, so this is not a merge "
              "request pipeline; run the job with `rules: - if: $CI_PIPELINE_SOURCE == "
              "\"merge_request_event\"` or pass --merge-request IID\n");
    EXPECT_TRUE(gitlab_.requests().empty());
}

TEST_F(GitLabTest, AMissingTokenSaysWhichVariable) {
    write_text(directory_.path() / "report.md", "report\n");
    const auto output = benchwatch({"gitlab", "comment", "--project", "p", "--report", "report.md",
                                    "--token-env", "BENCH_TOKEN"},
                                   {{"BENCH_TOKEN", ""}});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: no GitLab token: BENCH_TOKEN is unset or empty; add a masked CI/CD "
              "variable BENCH_TOKEN holding a project access token with the api scope "
              "(CI_JOB_TOKEN cannot write notes), or name another variable with --token-env\n");
    EXPECT_TRUE(gitlab_.requests().empty());
}

TEST_F(GitLabTest, AWrongTokenIsNamedButNeverShown) {
    const auto output = comment("report\n", {{"GITLAB_TOKEN", "glpat-notTheRightOne"}});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: GitLab rejected the token in GITLAB_TOKEN (401 Unauthorized on GET "
              "/projects/42/merge_requests/7/notes): it is invalid, expired or revoked; pass a "
              "project or personal access token with the api scope\n");
    EXPECT_EQ(output.err.find("glpat-notTheRightOne"), std::string::npos);
}

TEST_F(GitLabTest, TwoBadGatewaysThenSuccess) {
    gitlab_.fail_next(2, FakeFailure{502, {}, "<html>Bad Gateway</html>"});
    const auto output = comment("report\n");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "created note 501 on group/app!7\n");
    EXPECT_EQ(gitlab_.notes("42", 7).size(), 1u);
}

}  // namespace
}  // namespace benchwatch::testing
