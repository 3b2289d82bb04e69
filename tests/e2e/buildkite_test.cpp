// What could break: the Buildkite recipe of docs/buildkite.md, its commands run in sequence as
// the pipeline runs them (Buildkite's variables set, a detached checkout, a fake buildkite-agent
// on PATH that keeps its arguments and stdin), then the GitHub workflow on the dispatch: a run
// recorded under the wrong commit, branch or pull request, a pull request compared with the
// default branch instead of its base branch, an annotation with the wrong style, context or body,
// an agent that is missing or fails without one clear line; and on GitHub, a report posted for a
// head the pull request has moved on from, or a Markdown report from the build posted as it is.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "support/fake_github.hpp"
#include "support/test_store.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json benchmark_group() {
    return json::array({"BenchmarkGroup", {{"tags", json::array()}, {"data", json::object()}}});
}

// A BenchmarkTools.jl results file (`BenchmarkTools.save`) of one group "gpu" holding one
// single-sample Trial per benchmark, times in ns.
std::string benchmarktools_file(const std::vector<std::pair<std::string, double>>& times) {
    json group = benchmark_group();
    for (const auto& [name, time_ns] : times)
        group[1]["data"][name] = json::array(
            {"Trial",
             {{"allocs", 0},
              {"gctimes", json::array({0.0})},
              {"memory", 0},
              {"params", json::array({"Parameters", {{"samples", 10000}, {"evals", 1}}})},
              {"times", json::array({time_ns})}}});
    json root = benchmark_group();
    root[1]["data"]["gpu"] = group;
    return json::array({{{"Julia", "1.11.0"}, {"BenchmarkTools", "1.0.0"}}, json::array({root})})
               .dump() +
           "\n";
}

// The lines of `text`.
std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (auto end = text.find('\n'); end != std::string::npos; end = text.find('\n', start)) {
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    if (start < text.size()) lines.push_back(text.substr(start));
    return lines;
}

class BuildkiteTest : public ::testing::Test {
  protected:
    BuildkiteTest() {
        // main: four commits, each built on the default branch (hot alternates 1000/1010 ns,
        // a typical change of about 1%); release branches off the second; the pull request's
        // head adds one commit on the third that makes hot twice as slow.
        for (int i = 0; i < 4; ++i) {
            repository_.write_file("main.txt", std::to_string(i));
            main_commits_.push_back(repository_.commit("main " + std::to_string(i)));
        }
        repository_.git({"branch", "release", main_commits_[1]});
        repository_.git({"checkout", "-q", "-b", "feature", main_commits_[2]});
        repository_.write_file("feature.txt", "slower");
        pull_request_head_ = repository_.commit("make hot slower");
        repository_.git({"checkout", "-q", "main"});

        // The fake agent keeps its arguments, one a line, and what it read on stdin.
        fs::create_directories(bin());
        write_text(bin() / "buildkite-agent",
                   "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$AGENT_LOG/args\"\n"
                   "cat > \"$AGENT_LOG/body\"\n");
        fs::permissions(bin() / "buildkite-agent", fs::perms::owner_all);
        github_.set_pull_request_head("o/r", 7, pull_request_head_);
    }

    fs::path bin() const { return folder_.path() / "bin"; }
    fs::path agent_log() const { return folder_.path(); }

    // What Buildkite gives a job of `commit` on `branch` (`pull_request` "false" for none), with
    // the pipeline's env: the project, the machine and the store.
    EnvironmentOverrides buildkite_environment(const std::string& commit, const std::string& branch,
                                               const std::string& pull_request,
                                               const std::string& base_branch) const {
        auto variables = without_ci_variables();
        variables["NO_COLOR"] = "1";
        variables["PATH"] = bin().string() + ":" + std::getenv("PATH");
        variables["AGENT_LOG"] = agent_log().string();
        variables["GITHUB_EVENT_PATH"] = "";
        variables["BUILDKITE"] = "true";
        variables["BUILDKITE_COMMIT"] = commit;
        variables["BUILDKITE_BRANCH"] = branch;
        variables["BUILDKITE_PULL_REQUEST"] = pull_request;
        variables["BUILDKITE_PULL_REQUEST_BASE_BRANCH"] = base_branch;
        variables["BUILDKITE_PIPELINE_DEFAULT_BRANCH"] = "main";
        variables["BUILDKITE_REPO"] = "git@github.com:o/r.git";
        variables["BUILDKITE_BUILD_NUMBER"] = "42";
        variables["BENCHWATCH_PROJECT"] = "mypackage";
        variables["BENCHWATCH_MACHINE"] = "rtx2070";
        variables["BENCHWATCH_STORE"] = store_;
        return variables;
    }

    // The benchmark step of docs/buildkite.md in a checkout of `commit` (detached, as Buildkite
    // checks out): the harness's results, then record, compare and annotate. Returns the
    // outputs of the four benchwatch commands' last one, annotate.
    vcs::ProcessOutput benchmark_step(const std::string& commit, const std::string& branch,
                                      const std::string& pull_request, double hot,
                                      const std::string& base_branch = "") {
        repository_.git({"checkout", "-q", "--detach", commit});
        write_text(repository_.directory() / "benchmarkresults.json",
                   benchmarktools_file({{"hot", hot}, {"steady", 500}}));
        const auto environment = buildkite_environment(commit, branch, pull_request, base_branch);
        for (const std::vector<std::string>& arguments :
             {std::vector<std::string>{"record", "--input-format", "benchmarktools",
                                       "benchmarkresults.json"},
              {"compare", "--format", "json", "--output", "report.json"}}) {
            const auto output =
                run(benchwatch_command(arguments), repository_.directory(), environment);
            EXPECT_EQ(output.exit_code, 0) << describe(arguments) << ": " << output.err;
        }
        return run(benchwatch_command({"buildkite", "annotate", "--report", "report.json"}),
                   repository_.directory(), environment);
    }

    // The default branch's builds, oldest first.
    void default_branch_builds() {
        for (std::size_t i = 0; i < main_commits_.size(); ++i) {
            const auto output =
                benchmark_step(main_commits_[i], "main", "false", i % 2 == 0 ? 1000 : 1010);
            ASSERT_EQ(output.exit_code, 0) << output.err;
        }
    }

    json report() const { return json::parse(read_text(repository_.directory() / "report.json")); }

    // The GitHub workflow on the dispatch, in a folder of its own with only the report: GitHub
    // Actions' variables, and the repository_dispatch event the dispatch script sends.
    vcs::ProcessOutput github(const std::vector<std::string>& arguments,
                              const json& pull_request = "7") {
        write_text(workflow_.path() / "event.json", json{{"action", "benchmarks_complete"},
                                                         {"branch", "main"},
                                                         {"client_payload",
                                                          {{"commit", pull_request_head_},
                                                           {"branch", "feature"},
                                                           {"pull_request", pull_request},
                                                           {"build_number", 42}}},
                                                         {"repository", {{"full_name", "o/r"}}}}
                                                        .dump());
        auto variables = without_ci_variables();
        variables["NO_COLOR"] = "1";
        variables["GITHUB_EVENT_NAME"] = "repository_dispatch";
        variables["GITHUB_EVENT_PATH"] = (workflow_.path() / "event.json").string();
        variables["GITHUB_API_URL"] = github_.url();
        variables["GITHUB_TOKEN"] = FakeGitHub::token;
        variables["GITHUB_REPOSITORY"] = "o/r";
        variables["GITHUB_SHA"] = main_commits_.back();
        variables["GITHUB_SERVER_URL"] = "";
        variables["GITHUB_RUN_ID"] = "";
        return run(benchwatch_command(arguments), workflow_.path(), variables);
    }

    // The pull request's build, then its report downloaded into the GitHub workflow's folder.
    void pull_request_build() {
        default_branch_builds();
        const auto output = benchmark_step(pull_request_head_, "feature", "7", 2000, "main");
        ASSERT_EQ(output.exit_code, 0) << output.err;
        fs::copy_file(repository_.directory() / "report.json", workflow_.path() / "report.json");
    }

    std::vector<std::string> calls() const {
        std::vector<std::string> list;
        for (const auto& request : github_.requests())
            list.push_back(request.method + " " + request.target);
        return list;
    }

    TemporaryDirectory folder_{"benchwatch-buildkite"};
    TemporaryDirectory repository_folder_{"benchwatch-buildkite-repo"};
    TemporaryDirectory workflow_{"benchwatch-buildkite-workflow"};
    GitRepository repository_{repository_folder_.path()};
    std::string store_ = test_store_url(folder_.path());
    std::vector<std::string> main_commits_;
    std::string pull_request_head_;
    FakeGitHub github_;
};

TEST_F(BuildkiteTest, DefaultBranchBuildsRecordHistoryAndAnnotateTheirBuild) {
    auto output = benchmark_step(main_commits_[0], "main", "false", 1000);
    ASSERT_EQ(output.exit_code, 0) << output.err;
    // The first build has nothing to compare with.
    EXPECT_EQ(output.out,
              "annotated the build: mypackage (warning, context benchwatch-mypackage)\n");
    EXPECT_EQ(lines_of(read_text(agent_log() / "args")),
              (std::vector<std::string>{"annotate", "--style", "warning", "--context",
                                        "benchwatch-mypackage"}));
    for (std::size_t i = 1; i < main_commits_.size(); ++i) {
        output = benchmark_step(main_commits_[i], "main", "false", i % 2 == 0 ? 1000 : 1010);
        ASSERT_EQ(output.exit_code, 0) << output.err;
    }
    // Each run was recorded as Buildkite named it: its commit, on main, no pull request, and the
    // last build compared with the one before it.
    const auto history =
        run(benchwatch_command({"history", "--format", "json"}), repository_.directory(),
            buildkite_environment(main_commits_[3], "main", "false", ""));
    ASSERT_EQ(history.exit_code, 0) << history.err;
    EXPECT_NE(history.out.find(main_commits_[0]), std::string::npos) << history.out;
    EXPECT_NE(history.out.find(main_commits_[3]), std::string::npos) << history.out;
    EXPECT_EQ(report()["head"], main_commits_[3]);
    EXPECT_EQ(report()["baseline"]["commit"], main_commits_[2]);
}

TEST_F(BuildkiteTest, ThePullRequestBuildAnnotatesItsVerdictsAndGitHubPostsThem) {
    pull_request_build();
    // The pull request's head, compared with its merge base with main.
    EXPECT_EQ(report()["head"], pull_request_head_);
    EXPECT_EQ(report()["baseline"]["commit"], main_commits_[2]);
    EXPECT_EQ(report()["baseline"]["kind"], "merge_base");
    EXPECT_EQ(lines_of(read_text(agent_log() / "args")),
              (std::vector<std::string>{"annotate", "--style", "error", "--context",
                                        "benchwatch-mypackage"}));
    // The annotation is the report as compare renders it in Markdown.
    const auto markdown =
        run(benchwatch_command({"compare", "--format", "markdown"}), repository_.directory(),
            buildkite_environment(pull_request_head_, "feature", "7", "main"));
    ASSERT_EQ(markdown.exit_code, 0) << markdown.err;
    const auto body = read_text(agent_log() / "body");
    EXPECT_EQ(without_cache_origin(body), without_cache_origin(markdown.out));
    EXPECT_NE(body.find("2.00 µs"), std::string::npos) << body;

    // GitHub's side: the payload's pull request (a string, as jq may send it) gets the comment.
    auto output = github({"github", "comment", "--report", "report.json"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "created comment 1001 on o/r#7: " + github_.url() + "/comments/1001\n");
    const auto comments = github_.comments("o/r", 7);
    ASSERT_EQ(comments.size(), 1u);
    EXPECT_EQ(without_cache_origin(comments[0].body),
              "<!-- benchwatch:mypackage -->\n" + without_cache_origin(body));

    // The status goes on the payload's commit, the pull request's head.
    output = github({"github", "status", "--report", "report.json", "--fail-on-regression"}, 7);
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "set benchwatch/mypackage to failure on o/r@" + pull_request_head_ +
                              ": 1 slower, 0 faster, 1 inconclusive of 2 benchmarks\n");
    EXPECT_EQ(calls(), (std::vector<std::string>{
                           "GET /repos/o/r/pulls/7",
                           "GET /repos/o/r/issues/7/comments?per_page=100",
                           "POST /repos/o/r/issues/7/comments",
                           "GET /repos/o/r/pulls/7",
                           "POST /repos/o/r/statuses/" + pull_request_head_,
                       }));
}

TEST_F(BuildkiteTest, APullRequestIsComparedWithTheMergeBaseOfItsBaseBranch) {
    default_branch_builds();
    // Into release, whose tip is main's second commit: that is the merge base.
    const auto output = benchmark_step(pull_request_head_, "feature", "7", 2000, "release");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(report()["baseline"]["commit"], main_commits_[1]);
    EXPECT_EQ(report()["baseline"]["kind"], "merge_base");
}

TEST_F(BuildkiteTest, ABaseBranchTheCheckoutLacksFallsBackToTheDefaultBranch) {
    default_branch_builds();
    const auto output = benchmark_step(pull_request_head_, "feature", "7", 2000, "gone");
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(report()["baseline"]["commit"], main_commits_[2]);
    // And says so, since the comparison is not the one the pull request asked for.
    const auto compared = run(
        benchwatch_command({"compare", "--format", "json", "--output", "again.json"}),
        repository_.directory(), buildkite_environment(pull_request_head_, "feature", "7", "gone"));
    ASSERT_EQ(compared.exit_code, 0) << compared.err;
    EXPECT_EQ(compared.err,
              "warning: the pull request's base branch 'gone' (BUILDKITE_PULL_REQUEST_BASE_BRANCH) "
              "is not in this checkout, so its merge base is taken with 'main' instead; fetch "
              "the branch before benchwatch compare to compare with what the pull request merges "
              "into\n");
}

TEST_F(BuildkiteTest, TheDashboardLinksCommitsToThePageOfBuildkiteRepo) {
    default_branch_builds();
    const auto site = folder_.path() / "site";
    const auto output = run(benchwatch_command({"site", site.string()}), repository_.directory(),
                            buildkite_environment(main_commits_[3], "main", "false", ""));
    ASSERT_EQ(output.exit_code, 0) << output.err;
    std::string written;
    for (const auto& entry : fs::recursive_directory_iterator(site))
        if (entry.is_regular_file()) written += read_text(entry.path());
    EXPECT_NE(written.find("https://github.com/o/r/commit/" + main_commits_[0]), std::string::npos);
}

TEST_F(BuildkiteTest, APullRequestThatMovedOnGetsNothingFromOlderResults) {
    pull_request_build();
    const std::string newer(40, 'f');
    github_.set_pull_request_head("o/r", 7, newer);
    const auto output = github({"github", "comment", "--report", "report.json"});
    ASSERT_EQ(output.exit_code, 0) << output.err;
    EXPECT_EQ(output.out, "not posted: o/r#7 has moved on to " + newer +
                              "; these results are for " + pull_request_head_ +
                              ", and the run for " + newer + " posts its own\n");
    EXPECT_EQ(calls(), std::vector<std::string>{"GET /repos/o/r/pulls/7"});
    EXPECT_TRUE(github_.comments("o/r", 7).empty());
}

TEST_F(BuildkiteTest, ADispatchPostsOnlyAJsonReportRenderedByBenchwatch) {
    write_text(workflow_.path() / "report.md", "## Benchmark results\n[click](https://x.test)\n");
    auto output = github({"github", "comment", "--report", "report.md"});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: report.md is not a JSON report; a report made by the pull request's own "
              "build (--event or a repository_dispatch event) is posted only as benchwatch "
              "renders it: write it with `benchwatch compare --format json --output FILE`\n");
    output = github({"github", "comment"});
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: this job runs for a repository_dispatch event, whose build compared "
              "elsewhere: pass --report with the JSON report it saved (compare --format json "
              "--output FILE), e.g. downloaded from the build's artifacts\n");
    EXPECT_TRUE(github_.requests().empty());
}

TEST_F(BuildkiteTest, ADispatchWithoutAPullRequestNamesWhatIsMissing) {
    write_text(workflow_.path() / "report.json", "{}");
    const auto output = github({"github", "comment", "--report", "report.json"}, "main");
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: no pull request: the repository_dispatch event in " +
                              (workflow_.path() / "event.json").string() +
                              " has no client_payload.pull_request number; send the pull "
                              "request's number in the dispatch's client_payload "
                              "(docs/buildkite.md), or pass --pull-request N\n");
    EXPECT_TRUE(github_.requests().empty());
}

TEST_F(BuildkiteTest, AMissingOrFailingAgentIsOneLine) {
    default_branch_builds();
    const auto environment = buildkite_environment(main_commits_[3], "main", "false", "");
    auto output = run(benchwatch_command({"buildkite", "annotate", "--report", "report.json",
                                          "--agent", "buildkite-agent-missing"}),
                      repository_.directory(), environment);
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: cannot run 'buildkite-agent-missing': No such file or directory; "
              "`benchwatch buildkite annotate` runs in a Buildkite job step, where the agent "
              "puts buildkite-agent on PATH; elsewhere pass --agent PATH, or use `benchwatch "
              "compare` for the report\n");

    const auto failing = bin() / "failing-agent";
    write_text(failing,
               "#!/bin/sh\necho 'starting' >&2\n"
               "echo 'fatal: failed to annotate build: POST 401 Unauthorized' >&2\nexit 1\n");
    fs::permissions(failing, fs::perms::owner_all);
    output = run(benchwatch_command({"buildkite", "annotate", "--report", "report.json", "--agent",
                                     failing.string()}),
                 repository_.directory(), environment);
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err, "error: '" + failing.string() +
                              "' annotate failed (exit 1): fatal: failed to annotate build: POST "
                              "401 Unauthorized\n");
}

TEST_F(BuildkiteTest, ABuildkitePullRequestThatIsNotANumberIsRefused) {
    write_text(repository_.directory() / "results.json", benchmarktools_file({{"hot", 1000}}));
    const auto output =
        run(benchwatch_command({"record", "--input-format", "benchmarktools", "results.json"}),
            repository_.directory(),
            buildkite_environment(main_commits_[3], "feature", "7; rm -rf /", "main"));
    EXPECT_EQ(output.exit_code, 2);
    EXPECT_EQ(output.err,
              "error: BUILDKITE_PULL_REQUEST is '7; rm -rf /', neither a pull request number nor "
              "\"false\"; pass --pull-request N, or unset the variable outside a Buildkite "
              "build\n");
}

TEST_F(BuildkiteTest, ABuildOfHeadRecordsTheCheckoutsCommit) {
    repository_.git({"checkout", "-q", "--detach", main_commits_[2]});
    write_text(repository_.directory() / "benchmarkresults.json",
               benchmarktools_file({{"hot", 1000}}));
    auto environment = buildkite_environment("HEAD", "main", "false", "");
    const auto output = run(
        benchwatch_command({"record", "--input-format", "benchmarktools", "benchmarkresults.json"}),
        repository_.directory(), environment);
    ASSERT_EQ(output.exit_code, 0) << output.err;
    const auto history = run(benchwatch_command({"history", "--format", "json"}),
                             repository_.directory(), environment);
    ASSERT_EQ(history.exit_code, 0) << history.err;
    EXPECT_NE(history.out.find(main_commits_[2]), std::string::npos) << history.out;
}

}  // namespace
}  // namespace benchwatch::testing
