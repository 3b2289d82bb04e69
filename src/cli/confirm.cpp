#include "run/confirm.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "ingest/ingest.hpp"
#include "report/confirmation.hpp"
#include "report/progress.hpp"
#include "run/timed_process.hpp"
#include "vcs/process.hpp"

namespace benchwatch::cli {

namespace {

constexpr const char* kDecisionRule =
    "Decision rule: each round runs --base-cmd and --head-cmd once, in alternating order\n"
    "(base-head, head-base, ...) so that drift cancels, and pairs each benchmark's values as\n"
    "ln(head/base). After every round an interval for the median of those ratios is taken\n"
    "from their signs (distribution-free, so outliers cannot fool it) as a confidence\n"
    "sequence: all rounds' intervals together err with probability at most alpha, however\n"
    "many rounds are run. With --only-unusual, a\n"
    "flagged change is confirmed when the interval lies beyond half the flagged change in its\n"
    "direction, and dismissed when it lies short of it. Without, a benchmark is confirmed as\n"
    "changed when the interval lies beyond its category's minimum change either way, and\n"
    "dismissed when it lies within it. What is still across the line when the rounds or the\n"
    "time budget run out is undecided. The commands see BENCHWATCH_CONFIRM_BUILD (base or\n"
    "head) and BENCHWATCH_CONFIRM_ROUND in their environment.";

struct ConfirmFlags {
    std::string base_command;
    std::string head_command;
    std::string report_path;
    std::string results_file;
    std::string results_format = "auto";
    double time_budget_seconds = 600;
    int max_rounds = 100;
    double alpha = 0.05;
    RunningFlags running;
    FormatFlag format;
    std::string output;
    std::string repo;
    bool fail_on_regression = false;
};

// Runs the base or head command and reads the results it prints (or writes to --results).
class CommandMeasure {
  public:
    explicit CommandMeasure(const ConfirmFlags& flags) : flags_(flags) {}

    std::vector<model::Result> operator()(run::Build build) {
        const auto& text = build == run::Build::Base ? flags_.base_command : flags_.head_command;
        const int round = ++runs_[build == run::Build::Base ? 0 : 1];
        const auto flag = fmt::format("--{}-cmd '{}'", run::to_string(build), text);
        run::Command command;
        command.argv = run::shell_argv(text);
        command.stdout_mode =
            flags_.results_file.empty() ? run::OutputMode::capture : run::OutputMode::discard;
        if (flags_.running.timeout_seconds)
            command.timeout = std::chrono::duration<double>(*flags_.running.timeout_seconds);
        command.environment = {{"BENCHWATCH_CONFIRM_BUILD", run::to_string(build)},
                               {"BENCHWATCH_CONFIRM_ROUND", std::to_string(round)}};
        if (!flags_.results_file.empty()) std::filesystem::remove(flags_.results_file);

        const auto result = run::run_timed(command);
        if (!result.succeeded()) {
            const auto reason = run::first_line_of(result.err);
            throw UsageError(
                fmt::format("{} failed in round {}: {}{}; fix the command and run "
                            "confirm again",
                            flag, round, run::describe_failure(result, command),
                            reason.empty() ? "" : " (" + reason + ")"));
        }
        ingest::ParsedResults parsed;
        if (flags_.results_file.empty()) {
            if (result.out.find_first_not_of(" \t\r\n") == std::string::npos)
                throw UsageError(fmt::format(
                    "{} printed nothing in round {}; make it print benchmark results, or pass "
                    "--results FILE if it writes them to a file",
                    flag, round));
            parsed = ingest::parse(result.out, "output of " + flag, flags_.results_format);
        } else {
            if (!std::filesystem::exists(flags_.results_file))
                throw UsageError(fmt::format("{} wrote no {} in round {}; check --results", flag,
                                             flags_.results_file, round));
            parsed = ingest::parse_file(flags_.results_file, flags_.results_format);
        }
        if (parsed.results.empty())
            throw UsageError(fmt::format(
                "{} gave no benchmark results in round {}; check that it runs the benchmarks", flag,
                round));
        return std::move(parsed.results);
    }

  private:
    const ConfirmFlags& flags_;
    int runs_[2] = {0, 0};
};

std::string render(const model::Confirmation& confirmation, report::Format format) {
    std::ostringstream out;
    switch (format) {
        case report::Format::Markdown:
            report::render_confirmation_markdown(confirmation, out);
            break;
        case report::Format::Json:
            report::render_confirmation_json(confirmation, out);
            break;
        case report::Format::Text:
            report::render_confirmation_text(confirmation, out);
            break;
    }
    return out.str();
}

int run_confirm(const ConfirmFlags& flags) {
    const auto format = flags.format.chosen(report::Format::Text);
    const auto context = Context::discover(flags.repo);
    // Ctrl-C or a kill ends the command being measured too, which runs in a group of its own.
    vcs::end_child_groups_with_this_process();
    std::optional<std::vector<run::ConfirmTarget>> targets;
    if (!flags.report_path.empty())
        targets = run::targets_from_report(read_comparison_file(flags.report_path));

    run::ConfirmSettings settings;
    settings.alpha = flags.alpha;
    settings.max_rounds = flags.max_rounds;
    settings.time_budget_seconds = flags.time_budget_seconds;
    CommandMeasure measure(flags);
    auto confirmation = run::confirm(
        targets, context.config.categories, [&measure](run::Build build) { return measure(build); },
        report::steady_seconds, settings);
    confirmation.base_command = flags.base_command;
    confirmation.head_command = flags.head_command;
    confirmation.report = flags.report_path;

    const auto text = render(confirmation, format);
    if (flags.output.empty())
        std::cout << text << std::flush;
    else
        write_file_atomically(flags.output, text);
    return flags.fail_on_regression && model::confirmed_slower(confirmation) > 0 ? 1 : 0;
}

}  // namespace

Command add_confirm_command(CLI::App& parent) {
    auto flags = std::make_shared<ConfirmFlags>();
    auto* command = parent.add_subcommand(
        "confirm",
        "Re-measure flagged benchmarks, base and head interleaved, until each is "
        "confirmed or dismissed");
    command->footer(kDecisionRule);
    command
        ->add_option("--base-cmd", flags->base_command,
                     "Shell command that runs the baseline's benchmarks and prints results")
        ->required();
    command
        ->add_option("--head-cmd", flags->head_command,
                     "Shell command that runs the pull request's benchmarks")
        ->required();
    command->add_option("--only-unusual", flags->report_path,
                        "A `compare --format json` report: decide only what it flagged");
    command->add_option("--results", flags->results_file,
                        "File the commands write their results to (default: their stdout)");
    command
        ->add_option("--input-format", flags->results_format,
                     "Format of the results: auto (detected) or a format name (default: auto)")
        ->check(CLI::IsMember([] {
            auto names = ingest::format_names();
            names.insert(names.begin(), "auto");
            return names;
        }()));
    add_deprecated_spelling(*command, "--results-format", "--input-format", flags->results_format);
    command
        ->add_option("--time-budget", flags->time_budget_seconds,
                     "Seconds to spend at most; no round starts that would end later")
        ->check(CLI::PositiveNumber);
    command->add_option("--max-rounds", flags->max_rounds, "Rounds (base and head once each)")
        ->check(CLI::Range(1, 10000));
    command
        ->add_option("--alpha", flags->alpha,
                     "Chance that a benchmark's verdict is wrong, over all rounds")
        ->check(CLI::Range(0.0001, 0.5));
    add_running_flags(*command, flags->running);
    add_format_flag(*command, flags->format,
                    {report::Format::Text, report::Format::Markdown, report::Format::Json},
                    "Report format", "text");
    command->add_option("-o,--output", flags->output,
                        "Write the report to this file (default: standard output)");
    add_repo_flag(*command, flags->repo);
    command->add_flag("--fail-on-regression", flags->fail_on_regression,
                      "Exit 1 when a slower change is confirmed");
    return {command, [flags] { return run_confirm(*flags); }};
}

}  // namespace benchwatch::cli
