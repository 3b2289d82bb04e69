#pragma once

// What the subcommands share about their command line beyond CLI11 itself: flags declared alike
// everywhere, spellings kept for a release after a rename, and the one-line messages for command
// lines CLI11 refuses, with the nearest subcommand or flag suggested as git and cargo do.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/report.hpp"

namespace benchwatch::cli {

// The number of single-character insertions, deletions, substitutions and swaps of neighbours
// that turn `from` into `to` ("recrod" → "record" is 1).
std::size_t edit_distance(std::string_view from, std::string_view to);

// The candidate nearest to `word` by edit_distance() when it is close enough to be a typo of it
// (at most 3 edits and at most a third of the word's length, but 1 always counts); the first of
// the nearest when several are as near; nullopt when none is close.
std::optional<std::string> nearest_word(std::string_view word,
                                        const std::vector<std::string>& candidates);

// The candidate nearest to `word` by edit_distance(), however far (the first of the nearest
// when several are as near); nullopt when there are no candidates.
std::optional<std::string> closest_word(std::string_view word,
                                        const std::vector<std::string>& candidates);

// `text` safe to print on a terminal or a CI log line: model::printable_line().
std::string terminal_safe(std::string_view text);

// Writes "warning: MESSAGE" and a newline to standard error, the message terminal_safe(): the
// one way a warning is printed, whatever text from outside it quotes.
void print_warning(std::string_view message);

// `subject` ("unknown flag '--formt' for benchwatch compare", "no project 'snapy' in STORE")
// completed as every message about a word that names nothing known is: "; did you mean
// 'NEAREST'? (LISTED)" when nearest_word() finds a candidate, else "; LISTED". The nearest is
// printed terminal_safe().
std::string with_suggestion(std::string_view subject, std::string_view word,
                            const std::vector<std::string>& candidates, std::string_view listed);

// What every subcommand that runs benchmarks (run, backfill, bisect, confirm, and compare,
// github and gitlab with --confirm) takes alike.
struct RunningFlags {
    bool no_progress = false;               // plain progress lines, never a redrawn bar
    std::optional<double> timeout_seconds;  // a command running longer is killed
};

// Adds --no-progress and --timeout, declared here only so that no benchmark-running
// subcommand lacks one or states it differently.
void add_running_flags(CLI::App& command, RunningFlags& flags);

// A subcommand's --format: the report formats it writes and the word given for one.
struct FormatFlag {
    std::vector<report::Format> formats;  // in the order --help lists them
    std::string command;                  // "benchwatch history", for messages
    std::optional<std::string> word;      // as given; nullopt when --format was not given

    // The format `word` names, `fallback` when --format was not given. Throws UsageError naming
    // the formats when `word` names none of `formats`: "unknown --format 'yaml' for benchwatch
    // history; the formats are text, json".
    report::Format chosen(report::Format fallback) const;
};

// Adds --format to `command`, described as "WHAT: FORMATS (default: DEFAULT_TEXT)", and fills
// `flag`'s formats and command.
void add_format_flag(CLI::App& command, FormatFlag& flag, std::vector<report::Format> formats,
                     std::string_view what, std::string_view default_text);

// Adds --repo, the git work tree whose benchwatch.toml and commits a command uses.
void add_repo_flag(CLI::App& command, std::string& value);

// The one line (without "error: ") saying why CLI11 refused the command line `top` parsed:
// an unknown subcommand or flag with the nearest known one suggested, else CLI11's own message
// made terminal-safe; each ends by naming the --help that lists what there is.
std::string describe_parse_error(CLI::App& top, const CLI::ParseError& error);

// Adds --default-branch, the same flag with the same stated default everywhere.
void add_default_branch_flag(CLI::App& command, std::string& value);

// Adds `old_name` as a spelling of `new_name` kept for one release: hidden from --help, storing
// into `value`, and printing "warning: SUBCOMMAND OLD is deprecated …; use NEW" on stderr when
// given.
void add_deprecated_spelling(CLI::App& command, const std::string& old_name,
                             const std::string& new_name, std::string& value);

// `benchwatch help [SUBCOMMAND…]`: prints the help of the subcommand named (of the whole
// program without one). Registers the subcommand on `top`; run() returns the exit code.
struct HelpCommand {
    CLI::App* app = nullptr;
    std::vector<std::string> topic;

    // Prints the help asked for on stdout and returns 0, or an error line on stderr and 2 for
    // an unknown subcommand.
    int run(CLI::App& top) const;
};

// Adds `help` to `top`; the returned object must outlive the parse.
std::unique_ptr<HelpCommand> add_help_command(CLI::App& top);

}  // namespace benchwatch::cli
