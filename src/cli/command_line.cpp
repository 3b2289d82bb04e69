#include "cli/command_line.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>
#include <numeric>

#include "cli/defaults.hpp"
#include "model/printable.hpp"

namespace benchwatch::cli {

std::size_t edit_distance(std::string_view from, std::string_view to) {
    // Optimal string alignment: three rows of the Levenshtein table, plus swaps of neighbours.
    std::vector<std::size_t> before(to.size() + 1), previous(to.size() + 1), current(to.size() + 1);
    std::iota(previous.begin(), previous.end(), std::size_t{0});
    for (std::size_t i = 1; i <= from.size(); ++i) {
        current[0] = i;
        for (std::size_t j = 1; j <= to.size(); ++j) {
            const std::size_t substitution = from[i - 1] == to[j - 1] ? 0 : 1;
            current[j] =
                std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + substitution});
            if (i > 1 && j > 1 && from[i - 1] == to[j - 2] && from[i - 2] == to[j - 1])
                current[j] = std::min(current[j], before[j - 2] + 1);
        }
        std::swap(before, previous);
        std::swap(previous, current);
    }
    return previous[to.size()];
}

std::optional<std::string> closest_word(std::string_view word,
                                        const std::vector<std::string>& candidates) {
    std::optional<std::string> nearest;
    std::size_t nearest_distance = 0;
    for (const auto& candidate : candidates) {
        const std::size_t distance = edit_distance(word, candidate);
        if (!nearest || distance < nearest_distance) {
            nearest = candidate;
            nearest_distance = distance;
        }
    }
    return nearest;
}

std::optional<std::string> nearest_word(std::string_view word,
                                        const std::vector<std::string>& candidates) {
    const std::size_t allowed = std::clamp<std::size_t>(word.size() / 3, 1, 3);
    auto nearest = closest_word(word, candidates);
    if (nearest && edit_distance(word, *nearest) > allowed) return std::nullopt;
    return nearest;
}

std::string terminal_safe(std::string_view text) {
    return model::printable_line(text);
}

void print_warning(std::string_view message) {
    std::cerr << "warning: " << terminal_safe(message) << '\n';
}

std::string with_suggestion(std::string_view subject, std::string_view word,
                            const std::vector<std::string>& candidates, std::string_view listed) {
    if (const auto nearest = nearest_word(word, candidates))
        return fmt::format("{}; did you mean '{}'? ({})", subject, terminal_safe(*nearest), listed);
    return fmt::format("{}; {}", subject, listed);
}

void add_running_flags(CLI::App& command, RunningFlags& flags) {
    command.add_flag("--no-progress", flags.no_progress,
                     "Plain progress lines only, never a bar redrawn on a terminal");
    command
        .add_option("--timeout", flags.timeout_seconds,
                    "Seconds after which a command run (a harness, a build, a suite) is killed "
                    "(default: none; for the [measure] recipe, its timeout)")
        ->check(CLI::PositiveNumber);
}

void add_repo_flag(CLI::App& command, std::string& value) {
    command.add_option("--repo", value,
                       "Git work tree whose benchwatch.toml and commits to use (default: working "
                       "directory)");
}

namespace {

// The subcommands of `app` that a user may name (all but the unnamed option groups).
std::vector<CLI::App*> named_subcommands(CLI::App& app) {
    return app.get_subcommands([](CLI::App* sub) { return !sub->get_name().empty(); });
}

std::vector<std::string> subcommand_names(CLI::App& app) {
    std::vector<std::string> names;
    for (CLI::App* sub : named_subcommands(app)) names.push_back(sub->get_name());
    return names;
}

// The flags --help lists for `app`, as written on a command line ("--format", "-o").
std::vector<std::string> flag_names(CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::Option* option : app.get_options()) {
        if (option->get_group().empty()) continue;  // hidden: old spellings
        for (const auto& name : option->get_lnames()) names.push_back("--" + name);
        for (const auto& name : option->get_snames()) names.push_back("-" + name);
    }
    return names;
}

// "benchwatch github comment": the names from the top to `app`.
std::string command_path(const CLI::App& app) {
    const CLI::App* parent = app.get_parent();
    return parent == nullptr ? app.get_name() : command_path(*parent) + " " + app.get_name();
}

// The deepest subcommand the parse entered.
CLI::App& deepest_parsed(CLI::App& top) {
    CLI::App* at = &top;
    for (bool descended = true; descended;) {
        descended = false;
        for (CLI::App* sub : named_subcommands(*at))
            if (sub->parsed()) {
                at = sub;
                descended = true;
                break;
            }
    }
    return *at;
}

// Whether `word` is written as a flag: "-x", "--name" or "--name=value", not "-", "--" or a
// negative number.
bool looks_like_flag(std::string_view word) {
    if (word.size() < 2 || word[0] != '-' || word == "--") return false;
    return !(word[1] >= '0' && word[1] <= '9') && word[1] != '.';
}

std::string in_quotes(std::string_view word) {
    return "'" + terminal_safe(word) + "'";
}

// "unknown flag '--formt' for benchwatch compare; did you mean '--format'? (benchwatch compare
// --help lists its flags)".
std::string unknown_word(std::string_view what, std::string_view word, std::string_view where,
                         const std::vector<std::string>& candidates, std::string_view listed) {
    return with_suggestion(fmt::format("unknown {} {}{}", what, in_quotes(word), where), word,
                           candidates, listed);
}

std::string unknown_subcommand(std::string_view word, CLI::App& parent) {
    std::vector<std::string> names = subcommand_names(parent);
    std::erase(names, "help");
    return unknown_word("subcommand", word, "", names,
                        command_path(parent) + " --help lists the subcommands");
}

}  // namespace

std::string describe_parse_error(CLI::App& top, const CLI::ParseError& error) {
    CLI::App& app = deepest_parsed(top);
    const std::string path = command_path(app);
    const std::string help = path + " --help";
    const std::vector<std::string> extras = app.remaining(false);
    for (const auto& word : extras) {
        if (!looks_like_flag(word)) continue;
        const std::string name = word.substr(0, word.find('='));
        return unknown_word("flag", name, " for " + path, flag_names(app),
                            help + " lists its flags");
    }
    const bool takes_subcommand = !named_subcommands(app).empty() && app.get_subcommands().empty();
    if (takes_subcommand && !extras.empty()) return unknown_subcommand(extras.front(), app);
    if (takes_subcommand)
        return fmt::format("{} needs a subcommand: {}; {} says what each does", path,
                           fmt::join(subcommand_names(app), ", "), help);
    return fmt::format("{}; run {} for usage", terminal_safe(error.what()), help);
}

report::Format FormatFlag::chosen(report::Format fallback) const {
    if (!word) return fallback;
    if (const auto format = report::parse_format(*word))
        if (std::find(formats.begin(), formats.end(), *format) != formats.end()) return *format;
    std::vector<std::string> names;
    for (const auto format : formats) names.emplace_back(report::to_string(format));
    throw UsageError(
        with_suggestion(fmt::format("unknown --format '{}' for {}", terminal_safe(*word), command),
                        *word, names, fmt::format("the formats are {}", fmt::join(names, ", "))));
}

void add_format_flag(CLI::App& command, FormatFlag& flag, std::vector<report::Format> formats,
                     std::string_view what, std::string_view default_text) {
    flag.formats = std::move(formats);
    flag.command = command_path(command);
    std::vector<std::string_view> names;
    for (const auto format : flag.formats) names.push_back(report::to_string(format));
    command.add_option(
        "--format", flag.word,
        fmt::format("{}: {} (default: {})", what, fmt::join(names, ", "), default_text));
}

void add_default_branch_flag(CLI::App& command, std::string& value) {
    command.add_option("--default-branch", value,
                       "The default branch (default: default_branch in benchwatch.toml, else "
                       "origin/HEAD's branch, else main or master, whichever the repository has, "
                       "else main)");
}

void add_deprecated_spelling(CLI::App& command, const std::string& old_name,
                             const std::string& new_name, std::string& value) {
    const std::string warning = fmt::format(
        "warning: {} {} is deprecated and will be removed in the next release; use {}\n",
        command_path(command), old_name, new_name);
    command.add_option(old_name, value)->group("")->each([warning](const std::string&) {
        std::cerr << warning;
    });
}

int HelpCommand::run(CLI::App& top) const {
    CLI::App* at = &top;
    for (const auto& name : topic) {
        CLI::App* found = nullptr;
        for (CLI::App* sub : named_subcommands(*at))
            if (sub->get_name() == name && sub != app) found = sub;
        if (found == nullptr) {
            std::cerr << "error: " << unknown_subcommand(name, *at) << '\n';
            return 2;
        }
        at = found;
    }
    std::cout << at->get_formatter()->make_help(at, command_path(*at), CLI::AppFormatMode::Normal);
    return 0;
}

std::unique_ptr<HelpCommand> add_help_command(CLI::App& top) {
    auto help = std::make_unique<HelpCommand>();
    help->app =
        top.add_subcommand("help", "Print the help of a subcommand: benchwatch help compare");
    help->app->add_option("SUBCOMMAND", help->topic,
                          "The subcommand, and its own subcommand if it has some (github comment)");
    return help;
}

}  // namespace benchwatch::cli
