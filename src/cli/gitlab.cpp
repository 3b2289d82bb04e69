#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "cli/alert.hpp"
#include "cli/commands.hpp"
#include "gitlab/alert.hpp"
#include "gitlab/client.hpp"
#include "gitlab/merge_request.hpp"
#include "gitlab/note.hpp"

namespace benchwatch::cli {

namespace {

// The flags of `gitlab comment`.
struct GitLabFlags {
    ComparisonFlags comparison;
    std::string head;
    std::string report;
    std::string project;
    std::optional<std::int64_t> merge_request;
    std::string token_env = "GITLAB_TOKEN";
    bool fail_on_regression = false;
};

// --head, else CI_COMMIT_SHA (the merge request's head in a merge request pipeline), else
// GITHUB_SHA or the repository's HEAD.
std::string resolve_gitlab_head(const GitLabFlags& flags, const Context& context) {
    if (!flags.head.empty()) return flags.head;
    if (auto sha = environment_variable("CI_COMMIT_SHA")) return *sha;
    if (auto sha = default_commit(context)) return *sha;
    throw UsageError(
        "no head commit: neither CI_COMMIT_SHA nor a git repository gives one; pass --head SHA");
}

gitlab::Client make_client(const GitLabFlags& flags) {
    gitlab::ClientOptions options;
    options.api_url = environment_variable("CI_API_V4_URL").value_or("https://gitlab.com/api/v4");
    const auto token = environment_variable(flags.token_env.c_str());
    if (!token)
        throw UsageError(fmt::format(
            "no GitLab token: {} is unset or empty; add a masked CI/CD variable {} holding a "
            "project access token with the api scope (CI_JOB_TOKEN cannot write notes), or name "
            "another variable with --token-env",
            flags.token_env, flags.token_env));
    options.token = *token;
    options.token_name = flags.token_env;
    return gitlab::Client(std::move(options));
}

int run_comment(const GitLabFlags& flags) {
    const auto context = Context::discover(flags.comparison.common.repo);
    const auto merge_request = gitlab::resolve_merge_request(
        {non_empty(flags.project), flags.merge_request, environment_variable("CI_PROJECT_ID"),
         environment_variable("CI_PROJECT_PATH"), environment_variable("CI_MERGE_REQUEST_IID")});
    const auto project = resolve_report_project(flags.comparison.common, flags.report, context);
    auto client = make_client(flags);
    const auto head = flags.report.empty() ? resolve_gitlab_head(flags, context) : flags.head;
    const auto label = resolve_accept_label(flags.comparison.accept_label, context);
    bool failing = false;
    const auto report = forge_report_markdown(
        flags.comparison, flags.report, head, context, gitlab::report_allowance(project),
        [&](model::Comparison& comparison) {
            set_acceptance_from_forge(comparison, label, [&] {
                return gitlab::acceptance_by_label(client, merge_request, label);
            });
            failing = anything_slower(comparison) && !comparison.accepted;
        });
    const auto outcome = gitlab::post_sticky_note(client, merge_request, project,
                                                  gitlab::sticky_note_body(project, report));
    std::cout << fmt::format("{} note {} on {}!{}", outcome.created ? "created" : "edited",
                             outcome.note_id, merge_request.project, merge_request.iid);
    if (outcome.deleted > 0)
        std::cout << fmt::format(" and deleted {} older {}", outcome.deleted,
                                 outcome.deleted == 1 ? "copy" : "copies");
    std::cout << '\n';
    return flags.fail_on_regression && failing ? 1 : 0;
}

// The flags of `gitlab alert`: the alert run's, and where the issues are.
struct GitLabAlertFlags {
    AlertFlags alert;
    std::string project;
    std::string token_env = "GITLAB_TOKEN";
};

// Opens, updates and closes the project's alert issues for the default branch's steps.
int run_gitlab_alert(const GitLabAlertFlags& flags) {
    const auto where = gitlab::resolve_project(
        {non_empty(flags.project), std::nullopt, environment_variable("CI_PROJECT_ID"),
         environment_variable("CI_PROJECT_PATH"), std::nullopt});
    GitLabFlags token;
    token.token_env = flags.token_env;
    auto client = make_client(token);
    const auto& label = flags.alert.label;
    return run_alert(flags.alert, {[&](const std::string& project) {
                                       return gitlab::list_alert_issues(client, where, label,
                                                                        project);
                                   },
                                   [&] { return gitlab::alert_calls(client, where, label); }});
}

// Adds `alert` to `gitlab`, the issues of the default branch's lasting steps.
CLI::App* add_gitlab_alert(CLI::App& gitlab, GitLabAlertFlags& flags) {
    auto* alert = gitlab.add_subcommand(
        "alert",
        "Open an issue for each new lasting step on the default branch; update it, close it when "
        "the level returns");
    add_alert_flags(*alert, flags.alert);
    alert->add_option("--gitlab-project", flags.project,
                      "Project ID or path GROUP/NAME to open issues in (default: CI_PROJECT_ID)");
    alert->add_option("--token-env", flags.token_env,
                      "Environment variable holding the token (default: GITLAB_TOKEN)");
    return alert;
}

}  // namespace

Command add_gitlab_command(CLI::App& parent) {
    auto* command = parent.add_subcommand("gitlab",
                                          "Deliver the report on GitLab: the merge request's note, "
                                          "alert issues");
    command->require_subcommand(1);

    auto flags = std::make_shared<GitLabFlags>();
    auto* comment = command->add_subcommand(
        "comment", "Post the report as the merge request's one benchwatch note");
    add_comparison_flags(*comment, flags->comparison);
    comment->add_option("--head", flags->head, "Head commit (default: CI_COMMIT_SHA or HEAD)");
    comment->add_option("--report", flags->report,
                        "Post this report (JSON or Markdown from compare --output) instead of "
                        "comparing");
    comment->add_option("--gitlab-project", flags->project,
                        "Project ID or path GROUP/NAME (default: CI_PROJECT_ID)");
    comment->add_option("--merge-request", flags->merge_request,
                        "Merge request IID (default: CI_MERGE_REQUEST_IID)");
    comment->add_flag("--fail-on-regression", flags->fail_on_regression,
                      "Exit 1 after posting when a benchmark is unusually slower and the merge "
                      "request lacks the accept label (a Markdown --report is never judged)");
    comment->add_option("--token-env", flags->token_env,
                        "Environment variable holding the token (default: GITLAB_TOKEN)");

    auto alert_flags = std::make_shared<GitLabAlertFlags>();
    auto* alert = add_gitlab_alert(*command, *alert_flags);

    return {command, [=] {
                if (alert->parsed()) return run_gitlab_alert(*alert_flags);
                return run_comment(*flags);
            }};
}

}  // namespace benchwatch::cli
