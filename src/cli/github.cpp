#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
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
    std::string repository;
    std::optional<std::int64_t> pull_request;
    std::string token_env = "GITHUB_TOKEN";
    std::string target_url;
    bool fail_on_regression = false;
};

std::optional<std::string> non_empty(const std::string& flag) {
    return flag.empty() ? std::nullopt : std::optional(flag);
}

github::PullRequest resolve_github_pull_request(const GitHubFlags& flags) {
    return github::resolve_pull_request(
        {non_empty(flags.repository), flags.pull_request, non_empty(flags.head),
         environment_variable("GITHUB_EVENT_PATH"), environment_variable("GITHUB_REPOSITORY")});
}

// --head, else the pull request's head from the event (not GITHUB_SHA, which is the merge
// commit GitHub made for the pull request), else GITHUB_SHA or the repository's HEAD.
std::string resolve_github_head(const GitHubFlags& flags, const Context& context) {
    if (!flags.head.empty()) return flags.head;
    if (const auto event_path = environment_variable("GITHUB_EVENT_PATH")) {
        const auto facts = github::read_event(*event_path);
        if (facts.head_sha) return *facts.head_sha;
    }
    if (auto sha = default_commit(context)) return *sha;
    throw UsageError(
        "no head commit: no pull request event (GITHUB_EVENT_PATH), GITHUB_SHA or "
        "git repository gives one; pass --head SHA");
}

std::string read_report(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    if (!file)
        throw UsageError(
            fmt::format("cannot read the report {}; write it with `benchwatch "
                        "compare --output {}`",
                        path, path));
    return text.str();
}

// The Markdown report: --report's file as it is, or the comparison of the head in at most
// `max_bytes`.
std::string markdown_report(const GitHubFlags& flags, const Context& context,
                            std::size_t max_bytes) {
    if (!flags.report.empty()) return read_report(flags.report);
    const auto comparison =
        compare_head(flags.comparison, resolve_github_head(flags, context), context);
    std::ostringstream out;
    report::render_markdown_limited(comparison, out, max_bytes);
    return out.str();
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
    const auto context = Context::discover(flags.comparison.common.repo);
    const auto pull_request = resolve_github_pull_request(flags);
    const auto project = resolve_project(flags.comparison.common, context);
    auto client = make_client(flags);
    const auto report = markdown_report(flags, context, github::report_allowance(project));
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
    const auto report = markdown_report(flags, context, summary_limit);
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

int run_status(const GitHubFlags& flags) {
    const auto context = Context::discover(flags.comparison.common.repo);
    const auto pull_request = resolve_github_pull_request(flags);
    const auto head = resolve_github_head(flags, context);
    auto client = make_client(flags);
    const auto comparison = compare_head(flags.comparison, head, context);
    auto status = github::comparison_status(comparison, flags.fail_on_regression);
    status.target_url = resolve_target_url(flags.target_url);
    github::set_commit_status(client, pull_request.repository, head, status);
    std::cout << fmt::format("set {} to {} on {}@{}: {}\n", status.context, status.state,
                             pull_request.repository, head, status.description);
    return 0;
}

void add_pull_request_flags(CLI::App& command, GitHubFlags& flags) {
    command.add_option("--repository", flags.repository,
                       "OWNER/NAME (default: the event's repository, or GITHUB_REPOSITORY)");
    command.add_option("--pull-request", flags.pull_request,
                       "Pull request number (default: the event's)");
    command.add_option("--token-env", flags.token_env,
                       "Environment variable holding the token (default: GITHUB_TOKEN)");
}

CLI::App* add_github_subcommand(CLI::App& parent, const std::string& name,
                                const std::string& description, GitHubFlags& flags) {
    auto* command = parent.add_subcommand(name, description);
    add_comparison_flags(*command, flags.comparison);
    command->add_option("--head", flags.head,
                        "Head commit (default: the pull request's head, GITHUB_SHA or HEAD)");
    return command;
}

}  // namespace

Command add_github_command(CLI::App& parent) {
    auto* command = parent.add_subcommand(
        "github",
        "Deliver the report on GitHub: pull-request comment, step summary, commit status");
    command->require_subcommand(1);

    auto comment_flags = std::make_shared<GitHubFlags>();
    auto* comment = add_github_subcommand(
        *command, "comment", "Post the report as the pull request's one benchwatch comment",
        *comment_flags);
    comment->add_option("--report", comment_flags->report,
                        "Post this Markdown report (from compare --output) instead of comparing");
    add_pull_request_flags(*comment, *comment_flags);

    auto summary_flags = std::make_shared<GitHubFlags>();
    auto* summary = add_github_subcommand(
        *command, "summary", "Append the report to the job's summary ($GITHUB_STEP_SUMMARY)",
        *summary_flags);
    summary->add_option("--report", summary_flags->report,
                        "Append this Markdown report (from compare --output) instead of comparing");

    auto status_flags = std::make_shared<GitHubFlags>();
    auto* status = add_github_subcommand(
        *command, "status", "Set the head commit's status benchwatch/PROJECT", *status_flags);
    add_pull_request_flags(*status, *status_flags);
    status->add_flag("--fail-on-regression", status_flags->fail_on_regression,
                     "Set failure when a benchmark is unusually slower (else always success)");
    status->add_option("--target-url", status_flags->target_url,
                       "The status's link (default: the workflow run's page)");

    return {command, [=] {
                if (comment->parsed()) return run_comment(*comment_flags);
                if (summary->parsed()) return run_summary(*summary_flags);
                return run_status(*status_flags);
            }};
}

}  // namespace benchwatch::cli
