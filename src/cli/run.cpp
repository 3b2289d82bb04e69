#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string_view>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/commit_measurer.hpp"
#include "cli/recording.hpp"
#include "ingest/ingest.hpp"
#include "model/environment_keys.hpp"
#include "report/progress.hpp"
#include "run/environment.hpp"
#include "run/instrument.hpp"
#include "run/latency.hpp"
#include "run/recipe.hpp"
#include "run/repetitions.hpp"
#include "run/stability.hpp"
#include "run/timed_process.hpp"
#include "vcs/process.hpp"

namespace benchwatch::cli {

namespace {

struct RunCommandFlags {
    RunFlags run;
    std::string results_file;
    int repetitions = 1;
    int warmup = 0;
    RunningFlags running;
    std::vector<std::string> latency;  // NAME=COMMAND
    int latency_runs = 10;
    int latency_warmup = 1;
    std::string prepare;
    std::string env_command;
    std::string instrument;  // "callgrind"; empty: the config's, else none
    std::vector<std::string> harness;
};

// What `run` runs and reads as its harness: the command after '--', or the [measure] recipe's
// `run` in the checkout.
struct Harness {
    std::vector<std::string> argv;
    std::string shown;                // how messages name it: "harness './bench'"
    std::filesystem::path directory;  // where it runs; empty: the working directory
    std::map<std::string, std::string> environment;
    std::filesystem::path results;      // the file it writes; empty: its stdout
    std::string format;                 // of its results, or "auto"
    std::optional<run::Recipe> recipe;  // set when it is the recipe's run
};

[[noreturn]] void harness_failed(const Harness& harness, const std::string& what,
                                 const run::TimedResult& result) {
    const auto reason = run::error_tail(result.err, result.out);
    throw UsageError(fmt::format("{} {}{}; nothing was recorded", harness.shown, what,
                                 reason.empty() ? "" : " (" + reason + ")"));
}

// A simple command ("sleep 0.05") runs directly, as `hyperfine -N` does, so that a shell's start-up
// is not part of every measurement; a command using any shell syntax runs with /bin/sh -c.
std::vector<std::string> latency_argv(const std::string& text) {
    if (text.find_first_of("|&;<>()$`\\\"'*?[]#~=%{}!\n\t") != std::string::npos)
        return run::shell_argv(text);
    std::vector<std::string> argv;
    for (std::size_t at = 0; at < text.size();) {
        const auto end = std::min(text.find(' ', at), text.size());
        if (end > at) argv.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return argv.empty() ? run::shell_argv(text) : argv;
}

std::vector<run::LatencySpec> latency_specs(const RunCommandFlags& flags, const Config& config,
                                            std::optional<std::chrono::duration<double>> timeout) {
    std::vector<run::LatencySpec> specs;
    const auto make = [&](std::string name, const std::string& text, int runs, int warmup,
                          const std::string& prepare) {
        run::LatencySpec spec;
        spec.name = std::move(name);
        spec.command.argv = latency_argv(text);
        spec.command.stdout_mode = run::OutputMode::discard;
        spec.command.timeout = timeout;
        if (!prepare.empty()) {
            run::Command prepare_command;
            prepare_command.argv = run::shell_argv(prepare);
            prepare_command.stdout_mode = run::OutputMode::discard;
            prepare_command.timeout = timeout;
            spec.prepare = prepare_command;
        }
        spec.timed_runs = runs;
        spec.warmup_runs = warmup;
        specs.push_back(std::move(spec));
    };
    for (const auto& flag : flags.latency) {
        const auto equals = flag.find('=');
        if (equals == std::string::npos || equals == 0 || equals + 1 == flag.size())
            throw UsageError(fmt::format("--latency '{}': expected NAME=COMMAND", flag));
        make(flag.substr(0, equals), flag.substr(equals + 1), flags.latency_runs,
             flags.latency_warmup, flags.prepare);
    }
    for (const auto& latency : config.latency)
        make(latency.name, latency.command, latency.runs.value_or(flags.latency_runs),
             latency.warmup.value_or(flags.latency_warmup),
             latency.prepare.value_or(flags.prepare));
    return specs;
}

// The harness after '--' as given, or without one the [measure] recipe's `run` in the
// checkout's top folder (the config's without git), as backfill runs it in a commit's folder:
// its "{benchmarks}" naming the [measure] benchmarks, BENCHWATCH_COMMIT set to `commit`, and its
// `results`, `input_format` and `timeout`. std::nullopt when there is neither.
std::optional<Harness> harness_of(const RunCommandFlags& flags, const Context& context,
                                  const std::string& commit,
                                  std::optional<std::chrono::duration<double>> timeout) {
    Harness harness;
    harness.format = flags.run.format;
    if (!flags.harness.empty()) {
        harness.argv = flags.harness;
        harness.shown = fmt::format("harness '{}'", run::command_text(flags.harness));
        harness.results = flags.results_file;
        return harness;
    }
    if (!context.config.measure) return std::nullopt;
    auto recipe = recipe_of(*context.config.measure);
    if (timeout) recipe.timeout = timeout;
    const auto text = run::suite_command(recipe, {});
    harness.argv = run::shell_argv(text);
    harness.shown = fmt::format("the [measure] recipe's run '{}'", text);
    harness.directory = context.repository ? context.repository->top_level()
                                           : context.config.directory_or(context.working_directory);
    harness.environment = {{"BENCHWATCH_COMMIT", commit}};
    if (!recipe.results.empty()) harness.results = harness.directory / recipe.results;
    if (harness.format == "auto") harness.format = recipe.input_format;
    harness.recipe = std::move(recipe);
    return harness;
}

class HarnessRunner {
  public:
    HarnessRunner(const Harness& harness, std::optional<std::chrono::duration<double>> timeout)
        : harness_(harness) {
        command_.argv = harness.argv;
        command_.directory = harness.directory;
        command_.environment = harness.environment;
        command_.stdout_mode =
            harness.results.empty() ? run::OutputMode::capture : run::OutputMode::discard;
        command_.timeout = harness.recipe ? harness.recipe->timeout : timeout;
    }

    // The command that runs the harness.
    const run::Command& command() const { return command_; }

    // Runs the harness once and returns what it measured; throws UsageError naming the harness
    // when it fails, and InputError when its output is not a results file.
    ingest::ParsedResults measure() {
        const auto& results = harness_.results;
        if (!results.empty()) std::filesystem::remove(results);
        const auto result = run::run_timed(command_);
        if (!result.succeeded())
            harness_failed(harness_, run::describe_failure(result, command_), result);
        // Output that is no results is most often a harness that writes them to a file.
        if (results.empty())
            return ingest::parse(result.out,
                                 fmt::format("output of '{}'", run::command_text(command_.argv)),
                                 harness_.format,
                                 harness_.recipe ? run::kRecipeResultsFileFix
                                                 : "if the harness writes its results to a file "
                                                   "(as pytest --benchmark-json FILE does), pass "
                                                   "--results FILE");
        if (!std::filesystem::exists(results))
            harness_failed(harness_, "wrote no " + results.string(), result);
        return ingest::parse_file(results, harness_.format);
    }

    // Runs the harness once without reading its results (a warm-up).
    void warm_up() {
        const auto result = run::run_timed(command_);
        if (!result.succeeded())
            harness_failed(harness_,
                           "failed in a warm-up run: " + run::describe_failure(result, command_),
                           result);
    }

  private:
    const Harness& harness_;
    run::Command command_;
};

int run_run(const RunCommandFlags& flags) {
    const auto context = Context::discover(flags.run.common.repo);
    // Ctrl-C or a kill ends the command being measured too, which runs in a group of its own.
    vcs::end_child_groups_with_this_process();
    std::optional<std::chrono::duration<double>> timeout;
    if (flags.running.timeout_seconds)
        timeout = std::chrono::duration<double>(*flags.running.timeout_seconds);
    const auto latencies = latency_specs(flags, context.config, timeout);
    if (flags.harness.empty() && !context.config.measure && latencies.empty())
        throw UsageError(
            "nothing to run; give a harness after '--' (benchwatch run -- ./bench "
            "--benchmark_format=json), or a [measure] table with run = \"...\" in benchwatch.toml "
            "(docs/measure.md), or --latency NAME=COMMAND, or [[latency]] in benchwatch.toml");
    if (flags.harness.empty() && !flags.results_file.empty())
        throw UsageError(
            "--results names the file a harness writes; give the harness after '--' (the "
            "[measure] recipe's run names its file with results = \"...\")");

    // Everything taken from the flags, the config and git is settled before anything runs, so
    // that a missing branch or an unknown commit costs no benchmarking time.
    auto metadata = resolve_run_metadata(flags.run, context, ResultsSource::WorkTree);
    const auto harness = harness_of(flags, context, metadata.commit, timeout);
    {
        model::Environment checked;
        ingest::apply_environment_facts(metadata.environment, checked);
    }
    const auto store_url = resolve_store(flags.run.common, context);

    // The flag, else the recipe's own for the recipe's run, else the [run] instrument.
    const bool instrumented = !flags.instrument.empty() ? flags.instrument == "callgrind"
                              : harness && harness->recipe
                                  ? counts_instructions(*context.config.measure, context.config)
                                  : context.config.instrument == "callgrind";
    std::optional<run::ScratchFolder> scratch;
    std::string valgrind;
    if (instrumented) {
        valgrind = run::valgrind_version();
        scratch.emplace();
    }

    // A count does not depend on the machine's load or clock, so none of that is said of it.
    auto warnings = instrumented ? std::vector<run::StabilityWarning>{} : run::machine_warnings();

    // Under the instrument each command runs once: its counts do not vary from run to run.
    const int harness_steps = !harness ? 0 : instrumented ? 1 : flags.warmup + flags.repetitions;
    const auto mode = flags.running.no_progress ? report::ProgressMode::Plain
                                                : report::detect_progress_mode(STDERR_FILENO);
    report::Progress progress(std::cerr, mode,
                              static_cast<std::size_t>(harness_steps) + latencies.size(),
                              report::steady_seconds, report::terminal_columns(STDERR_FILENO));

    // Other work's use of the machine is measured over the benchmarks' own time only.
    const auto cpu_before = run::read_cpu();
    model::Run run;
    model::Environment harness_context;
    std::string reported_program;
    std::vector<std::uint64_t> hashes;
    std::string format;
    bool told_dropped = false;
    if (harness && instrumented) {
        HarnessRunner runner(*harness, timeout);
        progress.start("under callgrind: " + run::command_text(harness->argv));
        auto counted = run::count_harness(runner.command(), scratch->path());
        progress.complete();
        for (const auto& warning : counted.warnings) print_warning(warning);
        if (harness->recipe)
            keep_subset(*harness->recipe, "the suite", counted.results, told_dropped);
        run.results = std::move(counted.results);
        format = counted.format;
        hashes.push_back(counted.content_hash);
    } else if (harness) {
        HarnessRunner runner(*harness, timeout);
        const auto name = run::command_text(harness->argv);
        for (int i = 0; i < flags.warmup; ++i) {
            progress.start(fmt::format("warm-up {}/{}: {}", i + 1, flags.warmup, name));
            runner.warm_up();
            progress.complete();
        }
        for (int i = 0; i < flags.repetitions; ++i) {
            progress.start(fmt::format("repetition {}/{}: {}", i + 1, flags.repetitions, name));
            auto parsed = runner.measure();
            progress.complete();
            if (i == 0)
                for (const auto& warning : parsed.warnings) print_warning(warning);
            if (harness->recipe)
                keep_subset(*harness->recipe, "the suite", parsed.results, told_dropped);
            run::add_repetition(run.results, std::move(parsed.results));
            if (!parsed.program.empty()) reported_program = parsed.program;
            harness_context.merge(parsed.context);
            hashes.push_back(parsed.content_hash);
            format = parsed.format;
        }
    }
    for (const auto& latency : latencies) {
        progress.start("latency/" + latency.name);
        if (instrumented) {
            const auto folder = scratch->path() / ("latency-" + std::to_string(hashes.size()));
            std::filesystem::create_directories(folder);
            for (auto& result :
                 run::count_command(latency.command, "latency/" + latency.name, folder)) {
                hashes.push_back(static_cast<std::uint64_t>(result.value));
                run.results.push_back(std::move(result));
            }
            progress.complete();
            continue;
        }
        auto measurement = run::measure_latency(latency);
        progress.complete();
        hashes.push_back(static_cast<std::uint64_t>(measurement.result.value));
        run.results.push_back(std::move(measurement.result));
    }
    progress.finish();
    if (!instrumented && context.config.warn_on_competing_work)
        if (auto warning = run::competing_work_since(cpu_before))
            warnings.push_back(std::move(*warning));

    const auto directory =
        context.repository ? context.repository->top_level() : context.working_directory;
    std::vector<std::vector<std::string>> commands;
    // The recipe's run looks for the toolchains its backfilled runs looked for.
    if (harness && harness->recipe) commands.push_back(run::shell_argv(harness->recipe->build));
    if (harness) commands.push_back(harness->argv);
    for (const auto& latency : latencies) commands.push_back(latency.command.argv);
    const auto compilers = context.config.compilers.value_or(run::default_compilers(commands));
    run.environment = run::capture_environment(directory, compilers);
    for (auto& [key, value] : harness_context) run.environment[key] = value;
    if (!flags.env_command.empty())
        for (auto& [key, value] : run::environment_from_command(flags.env_command, directory))
            run.environment[key] = value;
    // The work tree as it was before the harness ran, which may itself change tracked files.
    run.environment.erase(std::string(model::dirty_key));
    ingest::apply_environment_facts(metadata.environment, run.environment);
    // Said with the run, so that compare can tell a best of 3 compared with one run of the suite.
    if (harness && !instrumented)
        run.environment[std::string(model::repetitions_key)] = std::to_string(flags.repetitions);
    // A count depends on the valgrind that made it.
    if (instrumented) run.environment["valgrind"] = valgrind;

    auto words = flags.harness;
    auto where = std::filesystem::current_path();
    if (harness && harness->recipe) {
        // The programs its words name, as backfill finds them in a commit's folder.
        words = run::command_words(run::shell_argv(harness->recipe->suite));
        where = harness->directory;
    }
    const auto programs = run::harness_programs(reported_program, words, where);
    for (const auto& warning :
         run::run_warnings(warnings, harness_context, programs, run.results)) {
        print_warning(warning.message);
        run.warnings.push_back({run::to_string(warning.issue), warning.message});
    }

    run.format = format.empty() ? "latency" : format;
    run.content_hash = fmt::format("{:016x}", fmt::join(hashes, "-"));
    metadata.recorded_at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
    return store_run(std::move(run), metadata, store_url);
}

}  // namespace

Command add_run_command(CLI::App& parent) {
    auto flags = std::make_shared<RunCommandFlags>();
    auto* command = parent.add_subcommand(
        "run",
        "Run a benchmark harness (without one, the [measure] recipe's run) and latency commands, "
        "and record the run");
    add_run_flags(*command, flags->run);
    command->add_option("--results", flags->results_file,
                        "File the harness writes its results to (default: its stdout)");
    command
        ->add_option("--repetitions", flags->repetitions,
                     "Runs of the harness; each benchmark keeps its best")
        ->check(CLI::Range(1, 1000));
    command->add_option("--warmup", flags->warmup, "Unrecorded harness runs first")
        ->check(CLI::Range(0, 1000));
    command->add_option("--latency", flags->latency,
                        "Time a whole command as latency/NAME: NAME=COMMAND (repeatable)");
    command->add_option("--latency-runs", flags->latency_runs, "Timed runs of each latency command")
        ->check(CLI::Range(1, 100000));
    command
        ->add_option("--latency-warmup", flags->latency_warmup,
                     "Untimed runs of each latency command first")
        ->check(CLI::Range(0, 100000));
    command->add_option("--prepare", flags->prepare,
                        "Shell command run before each timed latency run (e.g. to drop caches)");
    command
        ->add_option("--instrument", flags->instrument,
                     "Count instructions under valgrind's callgrind instead of timing: "
                     "callgrind, or none (default: [run] instrument in benchwatch.toml, else none)")
        ->check(CLI::IsMember({"callgrind", "none"}));
    command->add_option("--env-command", flags->env_command,
                        "Shell command whose KEY=VALUE output lines join the environment");
    add_running_flags(*command, flags->running);
    command->add_option("HARNESS", flags->harness,
                        "The harness command, after -- (default: the [measure] recipe's run in "
                        "this checkout, as backfill runs it)");
    return {command, [flags] { return run_run(*flags); }};
}

}  // namespace benchwatch::cli
