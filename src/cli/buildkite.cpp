#include "cli/buildkite.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "report/report.hpp"
#include "vcs/process.hpp"

namespace benchwatch::cli {

namespace {

// Buildkite refuses an annotation body over 1 MiB.
constexpr std::size_t annotation_limit = 1024 * 1024;

// How long the agent may take to send the annotation.
constexpr std::chrono::seconds agent_timeout{120};

// The flags of `buildkite annotate`.
struct BuildkiteFlags {
    ComparisonFlags comparison;
    std::string head;
    std::string report;
    std::string context;
    std::string agent = "buildkite-agent";
};

// A file holding the annotation's body while the agent reads it as its stdin, removed after.
class BodyFile {
  public:
    explicit BodyFile(const std::string& body) {
        std::error_code error;
        auto folder = std::filesystem::temp_directory_path(error);
        if (error) folder = "/tmp";
        std::string pattern = (folder / "benchwatch-annotation-XXXXXX").string();
        const int descriptor = ::mkstemp(pattern.data());
        if (descriptor < 0)
            throw UsageError(fmt::format(
                "cannot write the annotation's body into {}: {}; set TMPDIR to a writable folder",
                folder.string(), std::strerror(errno)));
        ::close(descriptor);
        path_ = pattern;
        std::ofstream file(path_, std::ios::binary | std::ios::trunc);
        file << body;
        file.flush();
        if (!file)
            throw UsageError(fmt::format(
                "cannot write the annotation's body into {}; set TMPDIR to a writable folder",
                path_.string()));
    }
    BodyFile(const BodyFile&) = delete;
    BodyFile& operator=(const BodyFile&) = delete;
    ~BodyFile() {
        std::error_code ignored;
        std::filesystem::remove(path_, ignored);
    }

    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

// The last line of `text` that is not blank, for messages.
std::string last_line_of(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
        text.remove_suffix(1);
    if (const auto newline = text.rfind('\n'); newline != std::string_view::npos)
        text.remove_prefix(newline + 1);
    return std::string(text);
}

// What ended an agent run that did not succeed: "exit 1", "killed by signal 9", "timed out…".
std::string agent_failure(const vcs::SpawnOutcome& outcome) {
    if (outcome.timed_out) return fmt::format("no answer within {} s", agent_timeout.count());
    if (WIFEXITED(outcome.wait_status))
        return fmt::format("exit {}", WEXITSTATUS(outcome.wait_status));
    if (WIFSIGNALED(outcome.wait_status))
        return fmt::format("killed by signal {}", WTERMSIG(outcome.wait_status));
    return "ended abnormally";
}

// Runs `agent annotate --style STYLE --context CONTEXT` with `body` on its stdin, its output
// shown as it comes.
void annotate(const std::string& agent, const std::string& style, const std::string& context,
              const std::string& body) {
    const BodyFile body_file(body);
    vcs::SpawnRequest request;
    request.argv = {agent, "annotate", "--style", style, "--context", context};
    request.stdin_file = body_file.path();
    request.stdout_mode = vcs::OutputMode::inherit;  // what the agent says, shown as it says it
    request.own_process_group = true;
    request.timeout = agent_timeout;
    const auto outcome = vcs::spawn_and_collect(request);
    if (!outcome.started)
        throw UsageError(fmt::format(
            "{}; `benchwatch buildkite annotate` runs in a Buildkite job step, where the agent "
            "puts buildkite-agent on PATH; elsewhere pass --agent PATH, or use `benchwatch "
            "compare` for the report",
            outcome.start_error));
    if (outcome.timed_out || !WIFEXITED(outcome.wait_status) ||
        WEXITSTATUS(outcome.wait_status) != 0) {
        const auto reason = last_line_of(outcome.err);
        throw UsageError(fmt::format("'{}' annotate failed ({}){}{}", shown_input(agent),
                                     agent_failure(outcome), reason.empty() ? "" : ": ",
                                     shown_input(reason)));
    }
}

int run_annotate(const BuildkiteFlags& flags) {
    const auto context = Context::discover(flags.comparison.common.repo);
    std::string body;
    std::string style = "info";  // a Markdown report's verdicts are not known
    std::string project;
    if (!flags.report.empty() && !is_json_report_file(flags.report)) {
        project = resolve_project(flags.comparison.common, context);
        body = forge_report_markdown(flags.comparison, flags.report, "", context, annotation_limit);
        if (body.size() > annotation_limit)
            throw UsageError(fmt::format(
                "{} is {} bytes, over Buildkite's 1 MiB annotation limit; pass the JSON report "
                "(compare --format json --output FILE), which is shortened to fit",
                flags.report, body.size()));
    } else {
        const auto comparison =
            !flags.report.empty()
                ? read_comparison_file(flags.report)
                : compare_head(
                      flags.comparison,
                      !flags.head.empty() ? flags.head : default_commit(context).value_or("HEAD"),
                      context);
        project = flags.comparison.common.project.empty() ? comparison.project
                                                          : flags.comparison.common.project;
        style = annotation_style(comparison);
        std::ostringstream out;
        report::render_markdown_limited(comparison, out, annotation_limit);
        body = out.str();
    }
    const auto annotation_context = flags.context.empty() ? "benchwatch-" + project : flags.context;
    annotate(flags.agent, style, annotation_context, body);
    std::cout << fmt::format("annotated the build: {} ({}, context {})\n", project, style,
                             annotation_context);
    return 0;
}

}  // namespace

std::string annotation_style(const model::Comparison& comparison) {
    const auto count = [&](auto&& predicate) {
        return std::count_if(comparison.benchmarks.begin(), comparison.benchmarks.end(),
                             [&](const model::BenchmarkComparison& benchmark) {
                                 return predicate(benchmark.verdict);
                             });
    };
    if (count([](model::Verdict verdict) { return verdict == model::Verdict::Slower; }) > 0)
        return "error";
    if (comparison.baseline.kind == model::BaselineKind::None || comparison.benchmarks.empty())
        return "warning";
    const auto unjudged = count([](model::Verdict verdict) {
        return verdict == model::Verdict::TooNoisy || verdict == model::Verdict::Inconclusive;
    });
    if (2 * static_cast<std::size_t>(unjudged) > comparison.benchmarks.size()) return "warning";
    return "success";
}

Command add_buildkite_command(CLI::App& parent) {
    auto* command = parent.add_subcommand(
        "buildkite", "Deliver the report on Buildkite: the build's annotation");
    command->require_subcommand(1);

    auto flags = std::make_shared<BuildkiteFlags>();
    auto* annotate_command = command->add_subcommand(
        "annotate",
        "Show the report as the build's annotation (buildkite-agent annotate), styled by "
        "its verdicts");
    add_comparison_flags(*annotate_command, flags->comparison);
    annotate_command->add_option(
        "--head", flags->head,
        "Head commit (default: BUILDKITE_COMMIT or GITHUB_SHA, as record, else HEAD)");
    annotate_command->add_option("--report", flags->report,
                                 "Show this report (compare --output: JSON is rendered again and "
                                 "styled by its verdicts, Markdown shown as it is with style "
                                 "info) instead of comparing");
    annotate_command->add_option(
        "--context", flags->context,
        "The annotation's context, which a later annotate replaces (default: "
        "benchwatch-PROJECT)");
    annotate_command->add_option("--agent", flags->agent,
                                 "The buildkite-agent program (default: buildkite-agent on PATH)");

    return {command, [flags] { return run_annotate(*flags); }};
}

}  // namespace benchwatch::cli
