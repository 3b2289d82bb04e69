#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

// Checks the CI files shown in the documentation: each ```yaml block must be a complete GitHub
// Actions workflow, GitLab CI file or Buildkite pipeline, every benchwatch command its shell
// steps call must exist with the flags they pass, workflows that run with secrets on code from
// forks (or on a repository_dispatch, whose payload a pull request's build wrote) must not paste
// event fields into their scripts, and benchmarks must be built optimised, with their
// submodules, before they run.
//
// A Buildkite pipeline (top-level "steps", a list) must be well formed as Buildkite reads it:
// each step is "wait", or a mapping that is a command step ("command" or "commands": a string or
// a list of strings), a wait, block, input, trigger or group step; a command step's "agents" is a
// mapping of tags to strings, its "if" a string, and every "depends_on" names the "key" of a step
// of the pipeline. Its commands must not reference a BUILDKITE_ variable with a single "$",
// which Buildkite pastes in when the pipeline is uploaded (script injection from a branch name
// or commit message); "$$" defers it to the shell.
//
// The build rules, over the commands of each GitHub job (its `run:` steps, and the `run` input
// of benchwatch's action, in step order) and of each GitLab job (before_script, script and
// after_script, with `extends:` templates, `default:` and the file's global keys applied as
// GitLab does):
// - Optimised: every cmake configure (any `cmake` command that is not `--build`, `--install`,
//   `--open`, `-E`, `-P`, `--workflow`, `--help` or `--version`), in a ```yaml script or in the
//   `build` string of a ```toml `[measure]` table, sets CMAKE_BUILD_TYPE (-D) to Release or
//   RelWithDebInfo (in any case): CMake's default is no build type at all, which compiles
//   without optimisation when the project sets no default of its own.
// - Built first: the build folders of a job are `build` and every folder an earlier command of
//   the job names with `cmake -B DIR` or `cmake --build DIR` (compared without a leading "./" or
//   a trailing "/"). A word of a command other than cmake names a path in one when the word, a
//   blank-separated part of it (a command line passed as one argument), or the text after the
//   first "=" of either (--latency NAME=COMMAND) starts with "DIR/" or "./DIR/"; the innermost
//   such folder counts. The command must come after a configure of that folder with an optimised
//   build type, followed by `cmake --build` of it, earlier in the same job (an earlier command
//   of the same script counts). A program run from anywhere else is not checked.
// - Submodules: a job with a cmake configure or build checks out its submodules before the
//   first one: on GitHub an actions/checkout step before it `with: submodules: recursive`, on
//   GitLab GIT_SUBMODULE_STRATEGY "recursive" in the job's variables (its own, its templates')
//   or the file's; Buildkite checks them out by default.
namespace benchwatch::testing::docs {

// A fenced code block of a Markdown document.
struct FencedBlock {
    int fence_line = 0;  // 1-based line of the opening fence; the text starts on the next line
    std::string text;
};

// Every ```yaml and ```yml block of `markdown`, in order. Other fences (```toml, ```sh…) are
// skipped whole, so that YAML-looking text inside them is not taken for a block.
std::vector<FencedBlock> yaml_blocks(std::string_view markdown);

// Every ```toml block of `markdown`, in order, read as yaml_blocks reads YAML ones.
std::vector<FencedBlock> toml_blocks(std::string_view markdown);

// One simple command of a shell script: its words after quote removal, without assignments
// before it, redirections and their targets. A command substitution inside a word is kept as
// its source text ("$(dirname x)") and its commands are listed as commands of their own.
struct ShellCommand {
    int line = 0;  // line of the command's first word, counted from the script's first line
    std::vector<std::string> words;
};

// The simple commands of `script` whose first line is line `first_line` of a document, as a
// POSIX shell would split them: backslash-newline joins lines, comments end at the newline,
// commands are separated by newlines, ;, &, &&, || and |, and $( ), ` ` and here-documents are
// understood well enough to find the commands inside them or skip their text.
std::vector<ShellCommand> shell_commands(std::string_view script, int first_line = 1);

// What CLI11's `--help` lists for one command.
struct HelpPage {
    std::set<std::string> options;      // every name, long and short: "--help", "-h", "--project"
    std::set<std::string> subcommands;  // "record", "github"…
    bool takes_positionals = false;     // the page has a "Positionals:" section
};

// Reads the sections of a CLI11 help text ("Options:", "Subcommands:", "Positionals:").
HelpPage parse_help(std::string_view help_text);

// The help page of benchwatch's command named by a subcommand chain ({} is benchwatch itself,
// {"github", "comment"} is `benchwatch github comment`).
using HelpLookup = std::function<HelpPage(const std::vector<std::string>& chain)>;

// A HelpLookup that runs `binary CHAIN... --help` once per chain and remembers the page. Throws
// CommandFailed (support/test_support.hpp) when the binary does not exit 0.
class BinaryHelp {
  public:
    explicit BinaryHelp(std::filesystem::path binary) : binary_(std::move(binary)) {}

    HelpPage operator()(const std::vector<std::string>& chain);

    // How many times the binary has been run, for the test of the cache.
    int runs() const { return runs_; }

  private:
    std::filesystem::path binary_;
    std::map<std::vector<std::string>, HelpPage> pages_;
    int runs_ = 0;
};

// The problems of one benchwatch command line (words[0] is the program): an unknown subcommand,
// or an option before a bare "--" that its command does not list. Each message quotes the
// command and names the unknown word and the command it was looked up in.
std::vector<std::string> check_benchwatch_command(const std::vector<std::string>& words,
                                                  const HelpLookup& help);

// What checking one Markdown document found.
struct DocumentCheck {
    int yaml_blocks = 0;
    int github_workflows = 0;
    int gitlab_files = 0;
    int buildkite_pipelines = 0;
    int benchwatch_commands = 0;
    int action_steps = 0;    // steps that use benchwatch's action (with action_inputs given)
    int measure_builds = 0;  // `build` strings of ```toml [measure] tables
    std::vector<std::string> problems;  // each "FILE:LINE: what is wrong"
};

// Checks every ```yaml block of `markdown`, and the `build` of every ```toml [measure] table;
// `file` names the document in the problems. With `action_inputs`, a step that uses
// benchwatch's action ("OWNER/benchwatch@REF", or "./") may pass only those inputs.
DocumentCheck check_document(std::string_view markdown, const std::string& file,
                             const HelpLookup& help,
                             const std::set<std::string>* action_inputs = nullptr);

// What checking the benchwatch commands a document names outside its ```yaml blocks found.
struct NamedCommandsCheck {
    int benchwatch_commands = 0;        // commands checked
    std::vector<std::string> problems;  // each "FILE:LINE: what is wrong"
};

// Checks every benchwatch command that `markdown` names outside its ```yaml blocks (which
// check_document reads as workflows) as check_benchwatch_command does, wherever it is named:
// - in a ```sh, ```bash, ```shell, ```console or unlabelled code block: each command whose
//   program is benchwatch;
// - in inline code: a span whose first command is benchwatch (`benchwatch compare --format
//   json`), or that starts with one of benchwatch's subcommands and passes a flag
//   (`serve --token-file`, read as `benchwatch serve --token-file`);
// - in running text: "benchwatch", then words that are its subcommands, then a flag: the flags
//   and the word after each, up to the first other word or the end of a clause.
// Brackets, parentheses, quotes, emphasis and the punctuation that ends a clause are not part of
// a word ("[--limit" is --limit, "--format," is --format), so that synopses are read too.
// `file` names the document in the problems.
NamedCommandsCheck check_named_commands(std::string_view markdown, const std::string& file,
                                        const HelpLookup& help);

// What checking benchwatch's composite action (action.yml) found.
struct ActionCheck {
    std::set<std::string> inputs;  // the inputs it declares
    int benchwatch_commands = 0;
    std::vector<std::string> problems;  // each "FILE:LINE: what is wrong"
};

// Checks action.yml: a name, a description, a composite "runs" whose script steps name their
// shell and call only existing benchwatch commands and flags, a description for every input,
// and no ${{ inputs.NAME }} it does not declare.
ActionCheck check_action(std::string_view action_yaml, const std::string& file,
                         const HelpLookup& help);

}  // namespace benchwatch::testing::docs
