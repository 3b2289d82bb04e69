#include "run/recipe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string_view>
#include <system_error>

#include "run/instrument.hpp"
#include "run/timed_process.hpp"

namespace benchwatch::run {

namespace {

// "3f2a9c01d4e5": how messages name a commit.
std::string short_sha(const std::string& commit) {
    return commit.substr(0, 12);
}

// The shell command `text`, run in `folder`, as run_timed() and describe_failure() take it.
Command command_in(const std::string& text, const std::filesystem::path& folder,
                   const std::map<std::string, std::string>& environment,
                   const std::optional<std::chrono::duration<double>>& timeout, OutputMode mode) {
    Command command;
    command.argv = shell_argv(text);
    command.directory = folder;
    command.environment = environment;
    command.stdout_mode = mode;
    command.timeout = timeout;
    return command;
}

[[noreturn]] void fail(const std::string& what, const std::string& commit, const std::string& how,
                       const TimedResult& result) {
    const auto reason = error_tail(result.err, result.out);
    throw RecipeError(fmt::format("{} of {} failed: {}{}", what, short_sha(commit), how,
                                  reason.empty() ? "" : " (" + reason + ")"));
}

// `text` as one /bin/sh word: in single quotes, each ' written as '\''.
std::string shell_quoted(std::string_view text) {
    std::string quoted = "'";
    for (const char c : text) {
        if (c == '\'')
            quoted += "'\\''";
        else
            quoted += c;
    }
    return quoted + "'";
}

// `name` with every character a regular expression gives a meaning escaped by a backslash.
std::string regex_literal(std::string_view name) {
    std::string escaped;
    for (const char c : name) {
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) escaped += '\\';
        escaped += c;
    }
    return escaped;
}

// The glob `pattern` as a regular expression of the same names (unanchored).
std::string regex_of_glob(std::string_view pattern) {
    std::string regex;
    for (const char c : pattern) {
        if (c == '*')
            regex += ".*";
        else if (c == '?')
            regex += '.';
        else
            regex += regex_literal(std::string_view(&c, 1));
    }
    return regex;
}

// "^(a|b)$": a pattern of exactly the names `alternatives` match.
std::string anchored(std::span<const std::string> alternatives) {
    std::string pattern = "^(";
    for (std::size_t i = 0; i < alternatives.size(); ++i)
        pattern += (i == 0 ? "" : "|") + alternatives[i];
    return pattern + ")$";
}

}  // namespace

bool in_subset(const Recipe& recipe, std::string_view name) {
    if (recipe.subset.empty()) return true;
    return std::any_of(recipe.subset.begin(), recipe.subset.end(), [&](const std::string& pattern) {
        return model::glob_matches(pattern, name);
    });
}

std::size_t drop_outside_subset(const Recipe& recipe, std::vector<model::Result>& results) {
    std::set<std::string> dropped;
    std::erase_if(results, [&](const model::Result& result) {
        if (in_subset(recipe, result.benchmark)) return false;
        dropped.insert(result.benchmark);
        return true;
    });
    return dropped.size();
}

std::string suite_command(const Recipe& recipe, std::span<const std::string> benchmarks) {
    std::string pattern = ".";
    std::vector<std::string> alternatives;
    for (const auto& name : benchmarks) alternatives.push_back(regex_literal(name));
    if (alternatives.empty())
        for (const auto& glob : recipe.subset) alternatives.push_back(regex_of_glob(glob));
    if (!alternatives.empty()) pattern = anchored(alternatives);
    const auto word = shell_quoted(pattern);
    std::string command = recipe.suite;
    for (auto at = command.find(benchmarks_placeholder); at != std::string::npos;
         at = command.find(benchmarks_placeholder, at + word.size()))
        command.replace(at, benchmarks_placeholder.size(), word);
    return command;
}

void build_commit(const Recipe& recipe, const std::filesystem::path& folder,
                  const std::string& commit,
                  const std::map<std::string, std::string>& environment) {
    if (recipe.build.empty()) return;
    // Only shown and logged, so cut to its first and last MiB rather than held whole.
    const auto command =
        command_in(recipe.build, folder, environment, recipe.timeout, OutputMode::log);
    const auto result = run_timed(command);
    if (result.succeeded()) return;
    // Build tools print their errors on either stream (ninja on stdout), and the line that
    // matters is rarely the first: the output is kept beside the build, each stream's first and
    // last MiB.
    const auto log = folder / build_log_name;
    std::ofstream(log, std::ios::binary) << result.out << result.err;
    const auto last = error_tail(result.err, result.out);
    throw RecipeError(fmt::format("build of {} failed: {}{}; its output is in {}",
                                  short_sha(commit), describe_failure(result, command),
                                  last.empty() ? "" : " (" + last + ")", log.string()));
}

ingest::ParsedResults run_suite(const Recipe& recipe, const std::filesystem::path& folder,
                                const std::string& commit,
                                const std::map<std::string, std::string>& environment,
                                std::span<const std::string> benchmarks) {
    const auto suite = suite_command(recipe, benchmarks);
    if (recipe.instrumented) {
        const ScratchFolder scratch;
        return count_harness(
            command_in(suite, folder, environment, recipe.timeout, OutputMode::capture),
            scratch.path());
    }
    const std::filesystem::path results =
        recipe.results.empty() ? std::filesystem::path() : folder / recipe.results;
    std::error_code ignored;
    if (!results.empty()) std::filesystem::remove(results, ignored);
    const auto command = command_in(suite, folder, environment, recipe.timeout,
                                    results.empty() ? OutputMode::capture : OutputMode::discard);
    const auto result = run_timed(command);
    if (!result.succeeded())
        fail("benchmark run", commit, describe_failure(result, command), result);
    if (results.empty())
        return ingest::parse(result.out,
                             fmt::format("output of '{}' at {}", suite, short_sha(commit)),
                             recipe.input_format, kRecipeResultsFileFix);
    if (!std::filesystem::exists(results))
        fail("benchmark run", commit, fmt::format("it wrote no {}", recipe.results), result);
    return ingest::parse_file(results, recipe.input_format);
}

}  // namespace benchwatch::run
