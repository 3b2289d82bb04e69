#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "cli/command_line.hpp"
#include "cli/defaults.hpp"
#include "model/comparison.hpp"
#include "model/history.hpp"
#include "serve/dashboard.hpp"
#include "store/store.hpp"

namespace benchwatch::cli {

// A subcommand registered on the top-level app, and what runs when it was given. `run` returns
// the exit code; it may throw the layers' typed errors, which main() turns into exit code 2.
struct Command {
    CLI::App* app = nullptr;
    std::function<int()> run;
};

// A flag's value, or nothing when it was left empty (the forge commands' optional flags).
inline std::optional<std::string> non_empty(const std::string& flag) {
    return flag.empty() ? std::nullopt : std::optional(flag);
}

// Adds --store, --project, --machine and --repo, which every store-reading command takes.
void add_common_flags(CLI::App& command, CommonFlags& flags);

// What chooses the comparison of `compare`, `github` and `gitlab`: the common flags, --base,
// --default-branch, --history-url, --method, and --confirm with the running flags.
struct ComparisonFlags {
    CommonFlags common;
    std::string base;
    std::string default_branch;
    std::string history_url;
    std::string method;
    std::optional<double> false_alarms_per_pr;  // the level method's budget, over the config's
    // --confirm: re-measure the flagged benchmarks with the [measure] recipe, base and head
    // interleaved, within confirm_budget_seconds (their builds included).
    bool confirm = false;
    double confirm_budget_seconds = 600;
    // --paired: measure base and head side by side with the [measure] recipe, in interleaved
    // rounds within paired_budget_seconds (builds included), instead of reading the store.
    bool paired = false;
    std::optional<double> paired_budget_seconds;  // nullopt: the config's, else 600
    std::optional<std::uint64_t> paired_seed;     // of the rounds' order; nullopt: random
    RunningFlags running;  // for the builds and runs of --confirm and --paired
    // --accept-label: the label that accepts slowdowns; nullopt: resolve_accept_label()'s default.
    std::optional<std::string> accept_label;
};

// Checks a --false-alarms-per-pr value: a number above 0 and at most 1000.
extern const CLI::Validator false_alarm_budget;

// Adds the ComparisonFlags to `command`.
void add_comparison_flags(CLI::App& command, ComparisonFlags& flags);

// Compares `head` with its baseline as the flags, the config and the repository say.
model::Comparison compare_head(const ComparisonFlags& flags, const std::string& head,
                               const Context& context);

// The steps of the default branch's history that `history --changes` shows (over the last
// `limit` runs, or all with 0), each bigger than what the configured method, calibrated as the
// next report would be, would flag there.
model::HistoryChanges default_branch_changes(store::Store& store,
                                             const compare::HistorySource& source,
                                             const std::string& benchmark, std::size_t limit,
                                             const Context& context);

// Whether --fail-on-regression fails: a benchmark of the comparison is unusually slower (after
// --confirm the verdicts are the settled ones, so only a confirmed slowdown is).
bool anything_slower(const model::Comparison& comparison);

// The report a forge command (`github comment|summary`, `gitlab comment`) posts, in at most
// `max_characters` bytes: the file `report_path` when given (a `compare --format json` report
// is rendered again, shortened as needed; a Markdown report is taken as it is), else the
// comparison of `head` rendered with report::render_markdown_limited().
// `amend` is applied to the comparison before it is rendered (not to a Markdown report).
std::string forge_report_markdown(const ComparisonFlags& flags, const std::string& report_path,
                                  const std::string& head, const Context& context,
                                  std::size_t max_characters,
                                  const std::function<void(model::Comparison&)>& amend = {});

// The label that accepts a pull request's slowdowns: --accept-label when given (`flag`), else
// benchwatch.toml's compare.accept_label, else "performance-accepted"; empty turns it off.
std::string resolve_accept_label(const std::optional<std::string>& flag, const Context& context);

// Sets `comparison.accepted` from `ask_forge` (the label as the forge has it now) when `label` is
// set and a benchmark is slower, the one case acceptance changes; clears it otherwise, so that a
// report file can never bring one. A forge that refuses is one warning line, and the report goes
// out without acceptance, as it did before labels could accept.
void set_acceptance_from_forge(model::Comparison& comparison, const std::string& label,
                               const std::function<std::optional<model::Acceptance>()>& ask_forge);

// The acceptance the CI's own event gives `comparison`, when it has a slower benchmark and the
// pull request carries `label`: GitHub Actions' pull_request event (GITHUB_EVENT_PATH; its
// pull_request.labels, and sender.login when the event is the label's `labeled`) or GitLab's
// CI_MERGE_REQUEST_LABELS. Nullopt otherwise.
std::optional<model::Acceptance> acceptance_from_ci(const model::Comparison& comparison,
                                                    const std::string& label);

// The comparison in `report_path`, a `compare --format json` report, its verdicts settled by
// what re-measuring decided (compare::settle_by_confirmation). Throws UsageError when it cannot
// be read or is not such a report.
model::Comparison read_comparison_file(const std::string& report_path);

// Whether the report file at `report_path` is JSON (starts with "{"), not Markdown. Throws
// UsageError when it cannot be read.
bool is_json_report_file(const std::string& report_path);

// The project a forge command posts for: --project, else the project a JSON report at
// `report_path` names, else resolve_project().
std::string resolve_report_project(const CommonFlags& flags, const std::string& report_path,
                                   const Context& context);

// `benchwatch record`: parses result files and stores them as one run.
Command add_record_command(CLI::App& parent);

// `benchwatch run`: runs a harness and latency commands, captures the environment, records.
Command add_run_command(CLI::App& parent);

// `benchwatch compare`: compares a head commit with its baseline and renders the report.
Command add_compare_command(CLI::App& parent);

// `benchwatch history`: each benchmark's recent values on the default branch.
Command add_history_command(CLI::App& parent);

// `benchwatch import github-action-benchmark`: stores another tool's whole history as runs.
Command add_import_command(CLI::App& parent);

// `benchwatch serve`: the history dashboard and its API over HTTP.
Command add_serve_command(CLI::App& parent);

// `benchwatch site`: the history dashboard as static files.
Command add_site_command(CLI::App& parent);

// `benchwatch github comment|summary|status|alert`: the report on a pull request, alert issues.
Command add_github_command(CLI::App& parent);

// `benchwatch gitlab comment|alert`: the report as the merge request's note, alert issues.
Command add_gitlab_command(CLI::App& parent);

// `benchwatch buildkite annotate`: the report as the Buildkite build's annotation.
Command add_buildkite_command(CLI::App& parent);

// `benchwatch history-branch pull|push`: the run history kept in a git branch.
Command add_history_branch_command(CLI::App& parent);

// `benchwatch migrate`: applies the store's schema migrations explicitly.
Command add_migrate_command(CLI::App& parent);

// `benchwatch copy`: copies a whole run history from one store to another.
Command add_copy_command(CLI::App& parent);

// `benchwatch backfill`: builds and records default-branch commits that have no run yet.
Command add_backfill_command(CLI::App& parent);
// `benchwatch bisect`: finds the commit of a benchmark's step between two commits.
Command add_bisect_command(CLI::App& parent);
// `benchwatch confirm`: re-measures flagged benchmarks, base and head interleaved.
Command add_confirm_command(CLI::App& parent);

// `benchwatch backtest`: replays the default branch as pull requests to measure methods.
Command add_backtest_command(CLI::App& parent);

// What the dashboard needs from flags and config: the default branch (--default-branch, config,
// repository, "main"), the comparison settings, categories and the repository's forge address.
serve::DashboardOptions resolve_dashboard_options(const std::string& default_branch_flag,
                                                  const Context& context);

// Writes `text` to `path`, the --output of a report. A regular file or a new path is replaced
// atomically (a temporary file beside it, then rename, with the old file's permissions), so that
// readers never see half a report; a symbolic link is followed and stays a link; anything else
// (a device such as /dev/null or /dev/stdout, a FIFO) is written through, never replaced. Throws
// UsageError naming the path and the reason when it cannot be written, or is a folder.
void write_file_atomically(const std::string& path, const std::string& text);

// Whether to colour output written to standard output: a terminal, and NO_COLOR unset.
bool stdout_wants_color();

}  // namespace benchwatch::cli
