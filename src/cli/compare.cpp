#include "compare/compare.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "report/report.hpp"
#include "store/store.hpp"

namespace benchwatch::cli {

namespace {

struct CompareFlags {
    ComparisonFlags comparison;
    std::string head;
    std::string format;  // empty: text on a terminal, else markdown
    std::string output;
    bool fail_on_regression = false;
};

std::string resolve_head(const std::string& flag, const Context& context) {
    if (!flag.empty()) return flag;
    if (auto sha = default_commit(context)) return *sha;
    throw UsageError("no head commit given and " + context.working_directory.string() +
                     " is not inside a git repository; pass --head SHA (or --repo DIR)");
}

std::string render(const model::Comparison& comparison, const std::string& format, bool color) {
    std::ostringstream out;
    if (format == "markdown")
        report::render_markdown(comparison, out);
    else if (format == "text")
        report::render_text(comparison, out, color);
    else
        report::render_json(comparison, out);
    return out.str();
}

int run_compare(const CompareFlags& flags) {
    const auto context = Context::discover(flags.comparison.common.repo);
    const auto comparison =
        compare_head(flags.comparison, resolve_head(flags.head, context), context);

    const bool to_stdout = flags.output.empty();
    const bool to_terminal = to_stdout && isatty(STDOUT_FILENO) != 0;
    const std::string format =
        !flags.format.empty() ? flags.format : (to_terminal ? "text" : "markdown");
    const auto text = render(comparison, format, to_stdout && stdout_wants_color());
    if (to_stdout)
        std::cout << text << std::flush;
    else
        write_file_atomically(flags.output, text);
    return flags.fail_on_regression && anything_slower(comparison) ? 1 : 0;
}

}  // namespace

bool anything_slower(const model::Comparison& comparison) {
    return std::any_of(comparison.benchmarks.begin(), comparison.benchmarks.end(),
                       [](const model::BenchmarkComparison& benchmark) {
                           return benchmark.verdict == model::Verdict::Slower;
                       });
}

const CLI::Validator false_alarm_budget(
    [](std::string& text) {
        double budget = 0;
        if (CLI::detail::lexical_cast(text, budget) && std::isfinite(budget) && budget > 0 &&
            budget <= 1000)
            return std::string();
        return "'" + text +
               "' is not a false-alarm budget; give the flukes per pull request allowed, a "
               "number above 0 and at most 1000, e.g. 1";
    },
    "F");

void add_comparison_flags(CLI::App& command, ComparisonFlags& flags) {
    add_common_flags(command, flags.common);
    command.add_option("--base", flags.base, "Compare with this commit, not the merge base");
    add_default_branch_flag(command, flags.default_branch);
    command.add_option("--history-url", flags.history_url, "Link to the history dashboard");
    command.add_option(
        "--method", flags.method,
        "Comparison method: seed (docs/comparison-rule.md) or level (docs/JUDGEMENT.md) "
        "(default: " +
            compare::default_method_name() + ")");
    command
        .add_option("--false-alarms-per-pr", flags.false_alarms_per_pr,
                    "Flukes per pull request the level method may make on the default branch's "
                    "history; its thresholds are calibrated to it (default: config, 1)")
        ->check(false_alarm_budget);
}

model::Comparison compare_head(const ComparisonFlags& flags, const std::string& head,
                               const Context& context) {
    compare::CompareOptions options;
    options.source = resolve_history_source(flags.common, flags.default_branch, context);
    options.head = head;
    if (!flags.base.empty()) options.base = flags.base;
    options.method = resolve_method(flags.method, context, flags.false_alarms_per_pr);
    options.categories = context.config.categories;
    options.history_url = resolve_history_url(flags.history_url, options.source.project, context);

    const auto store =
        store::open_store(resolve_store(flags.common, context), store::Access::ReadCache);
    const auto* repository = context.repository ? &*context.repository : nullptr;
    return compare::compare(*store, repository, options);
}

Command add_compare_command(CLI::App& parent) {
    auto flags = std::make_shared<CompareFlags>();
    auto* command =
        parent.add_subcommand("compare", "Compare a pull request's run with its baseline");
    add_comparison_flags(*command, flags->comparison);
    command->add_option("--head", flags->head, "Head commit (default: HEAD, or GITHUB_SHA)");
    command
        ->add_option("--format", flags->format,
                     "Report format (default: text on a terminal, markdown to a file or pipe)")
        ->check(CLI::IsMember({"markdown", "text", "json"}));
    command->add_option("-o,--output", flags->output,
                        "Write the report to this file (default: standard output)");
    command->add_flag("--fail-on-regression", flags->fail_on_regression,
                      "Exit 1 when a benchmark is unusually slower");
    return {command, [flags] { return run_compare(*flags); }};
}

}  // namespace benchwatch::cli
