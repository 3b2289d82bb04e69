#include <fmt/format.h>

#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/alert.hpp"
#include "cli/commands.hpp"
#include "github/alert.hpp"
#include "github/client.hpp"
#include "github/comment.hpp"
#include "github/pull_request.hpp"
#include "github/status.hpp"
#include "report/report.hpp"

namespace benchwatch::cli {

namespace {

// The flags of `github comment`, `summary` and `status` (each uses the ones it registers).
struct GitHubFlags {
    ComparisonFlags comparison;
    std::string head;
    std::string report;
    std::string event;
    std::string repository;
    std::optional<std::int64_t> pull_request;
    std::string token_env = "GITHUB_TOKEN";
    std::string target_url;
    bool fail_on_regression = false;
};

// The comparison's head: --head, else the commit `record` stores by default (GITHUB_SHA, which
// on pull_request events is GitHub's merge commit of the pull request, or the checkout's HEAD).
std::string resolve_github_head(const GitHubFlags& flags, const Context& context) {
    if (!flags.head.empty()) return flags.head;
    if (auto sha = default_commit(context)) return *sha;
    throw UsageError(
        "no head commit: neither GITHUB_SHA nor a git repository gives one; pass --head SHA");
}

// Whether this job runs for a repository_dispatch event (GITHUB_EVENT_PATH), which another CI
// service sent after benchmarking a pull request: its report comes from that pull request's code.
// An event file that cannot be read is not one: the commands that need the event say why.
bool runs_for_dispatch() {
    const auto path = environment_variable("GITHUB_EVENT_PATH");
    if (!path) return false;
    try {
        return github::read_event(*path).kind == "repository_dispatch";
    } catch (const github::GitHubError&) {
        return false;
    }
}

// Whether the report to post was made elsewhere by a pull request's own code (--event, or a
// repository_dispatch event), so that only a JSON report rendered here may be posted.
bool report_is_untrusted(const GitHubFlags& flags) {
    return !flags.event.empty() || runs_for_dispatch();
}

// Refuses, before anything is sent, a report made by a pull request's own code that is missing
// (a dispatch brings no comparison of its own) or is not JSON.
void check_untrusted_report(const GitHubFlags& flags) {
    if (!report_is_untrusted(flags)) return;
    if (flags.report.empty())
        throw UsageError(
            "this job runs for a repository_dispatch event, whose build compared elsewhere: "
            "pass --report with the JSON report it saved (compare --format json --output FILE), "
            "e.g. downloaded from the build's artifacts");
    if (!is_json_report_file(flags.report))
        throw UsageError(fmt::format(
            "{} is not a JSON report; a report made by the pull request's own build (--event or "
            "a repository_dispatch event) is posted only as benchwatch renders it: write it with "
            "`benchwatch compare --format json --output FILE`",
            flags.report));
}

// The pull request to post on. With --event, it comes from that file, an artifact of the pull
// request's own workflow, which must first pass github::check_artifact_event() against the
// workflow_run event this job runs for. With a repository_dispatch event, it is the payload's
// pull request and commit, which must name the head.
github::PullRequest resolve_github_pull_request(const GitHubFlags& flags) {
    const auto trusted_event_path = environment_variable("GITHUB_EVENT_PATH");
    if (flags.event.empty()) {
        auto pull_request = github::resolve_pull_request(
            {non_empty(flags.repository), flags.pull_request, std::nullopt, trusted_event_path,
             environment_variable("GITHUB_REPOSITORY")});
        if (pull_request.head_sha.empty() && runs_for_dispatch())
            throw UsageError(fmt::format(
                "the repository_dispatch event in {} has no client_payload.commit for pull "
                "request #{}; send the commit the build benchmarked in the dispatch's payload",
                *trusted_event_path, pull_request.number));
        return pull_request;
    }
    const auto artifact = github::read_event(flags.event, "--event");
    std::optional<github::EventFacts> trusted;
    if (trusted_event_path) {
        auto facts = github::read_event(*trusted_event_path);
        if (facts.kind == "workflow_run") trusted = std::move(facts);
    }
    github::check_artifact_event(artifact, trusted, flags.event);
    return github::resolve_pull_request(
        {std::nullopt, std::nullopt, std::nullopt, flags.event, std::nullopt});
}

// Whether the pull request still has the head the artifact's results are for (`now`, as GitHub
// has the pull request); says why not.
bool artifact_is_current(const github::PullRequest& pull_request,
                         const github::PullRequestNow& now) {
    if (now.head_sha == pull_request.head_sha) return true;
    std::cout << fmt::format(
        "not posted: {}#{} has moved on to {}; these results are for {}, and the run for {} "
        "posts its own\n",
        pull_request.repository, pull_request.number, now.head_sha, pull_request.head_sha,
        now.head_sha);
    return false;
}

// --report's comparison when a pull request's own build made it (report_is_untrusted): a JSON
// report only, never a Markdown one to be posted as it is.
model::Comparison untrusted_comparison(const GitHubFlags& flags) {
    check_untrusted_report(flags);
    return read_comparison_file(flags.report);
}

// The comparison of `status`: --report's JSON report, else the head compared now.
model::Comparison status_comparison(const GitHubFlags& flags, const Context& context) {
    if (!flags.report.empty() && report_is_untrusted(flags)) return untrusted_comparison(flags);
    if (!flags.report.empty()) return read_comparison_file(flags.report);
    return compare_head(flags.comparison, resolve_github_head(flags, context), context);
}

// Sets whether the pull request's accept label accepts `comparison`, as GitHub has the labels
// now (`now` when already asked, else asked here).
void set_acceptance(model::Comparison& comparison, github::Client& client,
                    const github::PullRequest& pull_request, const std::string& label,
                    std::optional<github::PullRequestNow> now) {
    set_acceptance_from_forge(comparison, label, [&] {
        if (!now) now = github::fetch_pull_request(client, pull_request);
        return github::acceptance_by_label(client, pull_request, now->labels, label);
    });
}

// For a report made by the pull request's own code (report_is_untrusted), the pull request as
// GitHub has it now, else nullopt (asked only when needed).
std::optional<github::PullRequestNow> pull_request_now(const GitHubFlags& flags,
                                                       github::Client& client,
                                                       const github::PullRequest& pull_request) {
    if (!report_is_untrusted(flags)) return std::nullopt;
    return github::fetch_pull_request(client, pull_request);
}

// The Markdown report in at most `max_bytes`, `amend` applied to its comparison before it is
// rendered. A report made by a pull request's own code (report_is_untrusted) must be JSON:
// benchwatch renders it, so that the pull request cannot put text of its own choosing in the
// comment.
std::string markdown_report(const GitHubFlags& flags, const Context& context, std::size_t max_bytes,
                            const std::function<void(model::Comparison&)>& amend) {
    if (report_is_untrusted(flags)) {
        auto comparison = untrusted_comparison(flags);
        amend(comparison);
        std::ostringstream out;
        report::render_markdown_limited(comparison, out, max_bytes);
        return out.str();
    }
    const auto head = flags.report.empty() ? resolve_github_head(flags, context) : std::string();
    return forge_report_markdown(flags.comparison, flags.report, head, context, max_bytes, amend);
}

github::Client make_client(const GitHubFlags& flags) {
    github::ClientOptions options;
    options.api_url = environment_variable("GITHUB_API_URL").value_or("https://api.github.com");
    const auto token = environment_variable(flags.token_env.c_str());
    if (!token)
        throw UsageError(
            fmt::format("no GitHub token: {} is unset or empty; give the step `env: {}: ${{{{ "
                        "secrets.GITHUB_TOKEN }}}}` or name another variable with --token-env",
                        flags.token_env, flags.token_env));
    options.token = *token;
    options.token_name = flags.token_env;
    return github::Client(std::move(options));
}

int run_comment(const GitHubFlags& flags) {
    check_untrusted_report(flags);
    const auto context = Context::discover(flags.comparison.common.repo);
    const auto pull_request = resolve_github_pull_request(flags);
    const auto project = resolve_report_project(flags.comparison.common, flags.report, context);
    auto client = make_client(flags);
    const auto now = pull_request_now(flags, client, pull_request);
    if (now && !artifact_is_current(pull_request, *now)) return 0;
    const auto label = resolve_accept_label(flags.comparison.accept_label, context);
    const auto report = markdown_report(
        flags, context, github::report_allowance(project), [&](model::Comparison& comparison) {
            set_acceptance(comparison, client, pull_request, label, now);
        });
    const auto outcome = github::post_sticky_comment(client, pull_request, project,
                                                     github::sticky_comment_body(project, report));
    std::cout << fmt::format("{} comment {} on {}#{}", outcome.created ? "created" : "edited",
                             outcome.comment_id, pull_request.repository, pull_request.number);
    if (outcome.deleted > 0)
        std::cout << fmt::format(" and deleted {} older {}", outcome.deleted,
                                 outcome.deleted == 1 ? "copy" : "copies");
    if (!outcome.url.empty()) std::cout << ": " << outcome.url;
    std::cout << '\n';
    return 0;
}

int run_summary(const GitHubFlags& flags) {
    const auto summary_path = environment_variable("GITHUB_STEP_SUMMARY");
    if (!summary_path)
        throw UsageError(
            "GITHUB_STEP_SUMMARY is unset: `benchwatch github summary` runs in a "
            "GitHub Actions step; elsewhere use `benchwatch compare --output FILE`");
    const auto context = Context::discover(flags.comparison.common.repo);
    // GitHub shows at most 1 MiB of a step's summary.
    constexpr std::size_t summary_limit = 1024 * 1024;
    const auto label = resolve_accept_label(flags.comparison.accept_label, context);
    const auto report =
        markdown_report(flags, context, summary_limit, [&](model::Comparison& comparison) {
            comparison.accepted = acceptance_from_ci(comparison, label);
        });
    std::ofstream summary(*summary_path, std::ios::binary | std::ios::app);
    summary << report;
    if (!report.ends_with('\n')) summary << '\n';
    summary.flush();
    if (!summary)
        throw UsageError(
            fmt::format("cannot append to {} (GITHUB_STEP_SUMMARY); check that its "
                        "directory exists and is writable",
                        *summary_path));
    return 0;
}

// --target-url, else the workflow run's page when GitHub Actions says which, else none.
std::string resolve_target_url(const std::string& flag) {
    if (!flag.empty()) return flag;
    const auto server = environment_variable("GITHUB_SERVER_URL");
    const auto repository = environment_variable("GITHUB_REPOSITORY");
    const auto run_id = environment_variable("GITHUB_RUN_ID");
    if (!server || !repository || !run_id) return "";
    return fmt::format("{}/{}/actions/runs/{}", *server, *repository, *run_id);
}

// The status goes on the pull request's own head, where GitHub shows it, even when the
// comparison's head is the merge commit (for a repository_dispatch event, the payload's commit);
// without an event, on the comparison's head.
int run_status(const GitHubFlags& flags) {
    check_untrusted_report(flags);
    const auto context = Context::discover(flags.comparison.common.repo);
    const auto pull_request = resolve_github_pull_request(flags);
    auto client = make_client(flags);
    const auto now = pull_request_now(flags, client, pull_request);
    if (now && !artifact_is_current(pull_request, *now)) return 0;
    auto comparison = status_comparison(flags, context);
    set_acceptance(comparison, client, pull_request,
                   resolve_accept_label(flags.comparison.accept_label, context), now);
    const auto sha = !flags.head.empty()              ? flags.head
                     : !pull_request.head_sha.empty() ? pull_request.head_sha
                                                      : comparison.head_commit;
    auto status = github::comparison_status(comparison, flags.fail_on_regression);
    status.target_url = resolve_target_url(flags.target_url);
    github::set_commit_status(client, pull_request.repository, sha, status);
    std::cout << fmt::format("set {} to {} on {}@{}: {}\n", status.context, status.state,
                             pull_request.repository, sha, status.description);
    return 0;
}

// The flags of `github alert`: the alert run's, and where the issues are.
struct GitHubAlertFlags {
    AlertFlags alert;
    std::string repository;
    std::string token_env = "GITHUB_TOKEN";
};

// Opens, updates and closes the repository's alert issues for the default branch's steps.
int run_github_alert(const GitHubAlertFlags& flags) {
    const auto repository =
        flags.repository.empty() ? environment_variable("GITHUB_REPOSITORY") : flags.repository;
    if (!repository)
        throw UsageError(
            "no repository to open alert issues in: GITHUB_REPOSITORY is unset (not a GitHub "
            "Actions job); pass --repository OWNER/NAME");
    GitHubFlags token;
    token.token_env = flags.token_env;
    auto client = make_client(token);
    const auto& label = flags.alert.label;
    return run_alert(flags.alert,
                     {[&](const std::string& project) {
                          return github::list_alert_issues(client, *repository, label, project);
                      },
                      [&] { return github::alert_calls(client, *repository, label); }});
}

// Adds `alert` to `github`, the issues of the default branch's lasting steps.
CLI::App* add_github_alert(CLI::App& github, GitHubAlertFlags& flags) {
    auto* alert = github.add_subcommand(
        "alert",
        "Open an issue for each new lasting step on the default branch; update it, close it when "
        "the level returns");
    add_alert_flags(*alert, flags.alert);
    alert->add_option("--repository", flags.repository,
                      "OWNER/NAME to open issues in (default: GITHUB_REPOSITORY)");
    alert->add_option("--token-env", flags.token_env,
                      "Environment variable holding the token (default: GITHUB_TOKEN)");
    return alert;
}

// Adds --repository, --pull-request, --event and --token-env, which name where to post.
void add_pull_request_flags(CLI::App& command, GitHubFlags& flags) {
    auto* repository =
        command.add_option("--repository", flags.repository,
                           "OWNER/NAME (default: the event's repository, or GITHUB_REPOSITORY)");
    auto* number = command.add_option("--pull-request", flags.pull_request,
                                      "Pull request number (default: the event's)");
    command
        .add_option("--event", flags.event,
                    "The pull_request event file a pull request's workflow uploaded, checked "
                    "against this workflow_run event before posting its --report")
        ->excludes(repository)
        ->excludes(number);
    command.add_option("--token-env", flags.token_env,
                       "Environment variable holding the token (default: GITHUB_TOKEN)");
}

CLI::App* add_github_subcommand(CLI::App& parent, const std::string& name,
                                const std::string& description, GitHubFlags& flags) {
    auto* command = parent.add_subcommand(name, description);
    add_comparison_flags(*command, flags.comparison);
    command->add_option(
        "--head", flags.head,
        "Head commit (default: GITHUB_SHA or BUILDKITE_COMMIT, as record, else HEAD)");
    return command;
}

// --event posts a report computed elsewhere, so it needs --report.
void require_report_with_event(CLI::App& command, GitHubFlags& flags) {
    command.callback([&flags] {
        if (!flags.event.empty() && flags.report.empty())
            throw CLI::ValidationError(
                "--event",
                "needs --report: the JSON report (compare --format json) the pull "
                "request's workflow uploaded with the event");
    });
}

}  // namespace

Command add_github_command(CLI::App& parent) {
    auto* command = parent.add_subcommand(
        "github",
        "Deliver the report on GitHub: pull-request comment, step summary, commit status, "
        "alert issues");
    command->require_subcommand(1);

    auto comment_flags = std::make_shared<GitHubFlags>();
    auto* comment = add_github_subcommand(
        *command, "comment", "Post the report as the pull request's one benchwatch comment",
        *comment_flags);
    comment->add_option("--report", comment_flags->report,
                        "Post this report (compare --output: JSON is rendered again, Markdown "
                        "posted as it is) instead of comparing");
    add_pull_request_flags(*comment, *comment_flags);
    require_report_with_event(*comment, *comment_flags);

    auto summary_flags = std::make_shared<GitHubFlags>();
    auto* summary = add_github_subcommand(
        *command, "summary", "Append the report to the job's summary ($GITHUB_STEP_SUMMARY)",
        *summary_flags);
    summary->add_option("--report", summary_flags->report,
                        "Append this report (compare --output: JSON is rendered again, Markdown "
                        "appended as it is) instead of comparing");

    auto status_flags = std::make_shared<GitHubFlags>();
    auto* status = add_github_subcommand(
        *command, "status", "Set the head commit's status benchwatch/PROJECT", *status_flags);
    status->add_option("--report", status_flags->report,
                       "Judge this JSON report (compare --format json) instead of comparing");
    add_pull_request_flags(*status, *status_flags);
    require_report_with_event(*status, *status_flags);
    status->add_flag("--fail-on-regression", status_flags->fail_on_regression,
                     "Set failure when a benchmark is unusually slower (else always success)");
    status->add_option("--target-url", status_flags->target_url,
                       "The status's link (default: the workflow run's page)");

    auto alert_flags = std::make_shared<GitHubAlertFlags>();
    auto* alert = add_github_alert(*command, *alert_flags);

    return {command, [=] {
                if (comment->parsed()) return run_comment(*comment_flags);
                if (summary->parsed()) return run_summary(*summary_flags);
                if (alert->parsed()) return run_github_alert(*alert_flags);
                return run_status(*status_flags);
            }};
}

}  // namespace benchwatch::cli
