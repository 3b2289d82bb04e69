// What could break: a benchwatch flag named in the docs' prose, inline code, synopses or shell
// examples that the binary does not have (a flag renamed, a subcommand's flag named under
// another), which readers copy and get refused; or the reader of that prose taking words of a
// sentence for flags, which would fail the docs for nothing.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "docs/workflow_check.hpp"
#include "support/test_support.hpp"

namespace benchwatch::testing::docs {
namespace {

namespace fs = std::filesystem;

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Help pages as CLI11 prints them, for a benchwatch with serve, history and github comment.
const std::map<std::vector<std::string>, std::string> help_texts{
    {{},
     "Usage: benchwatch [OPTIONS] SUBCOMMAND\n"
     "\n"
     "Options:\n"
     "  -h,--help                   Print this help message and exit\n"
     "\n"
     "Subcommands:\n"
     "  serve                       Serve the dashboard\n"
     "  history                     Show the history\n"
     "  github                      Deliver the report on GitHub\n"},
    {{"serve"},
     "Usage: benchwatch serve [OPTIONS]\n"
     "\n"
     "Options:\n"
     "  -h,--help                   Print this help message and exit\n"
     "  --store TEXT                The store\n"
     "  --token-file TEXT           The upload token's file\n"},
    {{"history"},
     "Usage: benchwatch history [OPTIONS] [BENCHMARK]\n"
     "\n"
     "Positionals:\n"
     "  BENCHMARK TEXT              A benchmark name\n"
     "\n"
     "Options:\n"
     "  -h,--help                   Print this help message and exit\n"
     "  --limit INT                 Most recent runs\n"
     "  --format TEXT               text or json\n"},
    {{"github"},
     "Usage: benchwatch github [OPTIONS] SUBCOMMAND\n"
     "\n"
     "Options:\n"
     "  -h,--help                   Print this help message and exit\n"
     "\n"
     "Subcommands:\n"
     "  comment                     Post the report\n"},
    {{"github", "comment"},
     "Usage: benchwatch github comment [OPTIONS]\n"
     "\n"
     "Options:\n"
     "  -h,--help                   Print this help message and exit\n"
     "  --report TEXT               A report made earlier\n"},
};

HelpPage help(const std::vector<std::string>& chain) {
    const auto found = help_texts.find(chain);
    if (found == help_texts.end()) {
        ADD_FAILURE() << "the checker asked for the help of an unlisted chain: " << describe(chain);
        return {};
    }
    return parse_help(found->second);
}

NamedCommandsCheck check(std::string_view markdown) {
    return check_named_commands(markdown, "doc.md", help);
}

TEST(NamedCommands, RefusesAFlagNamedInInlineCodeWithoutTheProgram) {
    const auto found = check(
        "The server takes uploads\n"
        "with `serve --upload-token-file FILE`, stored as `record` stores them.\n");
    EXPECT_THAT(found.problems,
                ElementsAre("doc.md:2: `benchwatch serve --upload-token-file FILE`: unknown "
                            "option --upload-token-file of `benchwatch serve`"));
    EXPECT_EQ(found.benchwatch_commands, 1);
}

TEST(NamedCommands, RefusesAFlagNamedInInlineCodeAcrossALineBreak) {
    const auto found = check("Run `benchwatch history\n--changes` to see the steps.\n");
    EXPECT_THAT(found.problems, ElementsAre("doc.md:1: `benchwatch history --changes`: unknown "
                                            "option --changes of `benchwatch history`"));
}

TEST(NamedCommands, RefusesAFlagNamedInRunningText) {
    const auto found =
        check("Post it with benchwatch github comment --report report.json --sticky, then stop.\n");
    EXPECT_THAT(found.problems,
                ElementsAre("doc.md:1: `benchwatch github comment --report report.json "
                            "--sticky`: unknown option --sticky of `benchwatch github comment`"));
}

TEST(NamedCommands, RefusesAFlagOfASynopsisInACodeBlock) {
    const auto found = check(
        "Usage:\n"
        "\n"
        "```\n"
        "benchwatch serve [--store URL] [--listen ADDRESS]\n"
        "```\n"
        "\n"
        "```sh\n"
        "benchwatch history --limit 5 \\\n"
        "    --colour array/\n"
        "```\n");
    EXPECT_THAT(found.problems,
                ElementsAre("doc.md:4: `benchwatch serve --store URL --listen ADDRESS`: unknown "
                            "option --listen of `benchwatch serve`",
                            "doc.md:8: `benchwatch history --limit 5 --colour array/`: unknown "
                            "option --colour of `benchwatch history`"));
}

TEST(NamedCommands, AcceptsTheFlagsThatExistWhereverTheyAreNamed) {
    const auto found = check(
        "`benchwatch history --format json` prints JSON; benchwatch history --limit 5 --format\n"
        "json shows five runs. `serve --token-file FILE` and `github comment --report R`.\n"
        "\n"
        "```sh\n"
        "benchwatch github comment --report report.json   # posts it\n"
        "```\n");
    EXPECT_THAT(found.problems, IsEmpty());
    EXPECT_EQ(found.benchwatch_commands, 5);
}

TEST(NamedCommands, LeavesAloneWhatNamesNoBenchwatchCommand) {
    // Sentences that mention benchwatch and flags of other programs or of no command, YAML
    // (checked as workflows), and other languages' code.
    const auto found = check(
        "benchwatch reads `--benchmark_format=json` output; git log --first-parent is how\n"
        "benchwatch github and gitlab find commits. benchwatch. --store names the store, and\n"
        "`cmake --build build` builds; `history` alone takes no flag, and\n"
        "`benchwatch SUBCOMMAND --help` lists a subcommand's flags; an error quoted in a span,\n"
        "`FILE: too big; benchwatch reads files up to 256 MiB`, is not a command.\n"
        "\n"
        "```yaml\n"
        "run: benchwatch serve --nonsense\n"
        "```\n"
        "\n"
        "```toml\n"
        "run = \"benchwatch serve --nonsense\"\n"
        "```\n");
    EXPECT_THAT(found.problems, IsEmpty());
    EXPECT_EQ(found.benchwatch_commands, 0);
}

// README.md, docs/*.md and src/*/README.md, relative to the source folder, sorted.
std::vector<std::string> documents() {
    const fs::path source_dir = BENCHWATCH_SOURCE_DIR;
    std::vector<std::string> found{"README.md"};
    for (const auto& entry : fs::directory_iterator(source_dir / "docs"))
        if (entry.is_regular_file() && entry.path().extension() == ".md")
            found.push_back(fs::relative(entry.path(), source_dir).generic_string());
    for (const auto& entry : fs::directory_iterator(source_dir / "src"))
        if (fs::is_regular_file(entry.path() / "README.md"))
            found.push_back(fs::relative(entry.path() / "README.md", source_dir).generic_string());
    std::sort(found.begin() + 1, found.end());
    return found;
}

TEST(NamedCommands, TheDocsNameOnlyFlagsTheBinaryHas) {
    BinaryHelp binary_help(benchwatch_binary());
    const HelpLookup real_help = [&binary_help](const auto& chain) { return binary_help(chain); };
    int commands = 0;
    std::vector<std::string> problems;
    for (const auto& document : documents()) {
        auto found = check_named_commands(read_text(fs::path(BENCHWATCH_SOURCE_DIR) / document),
                                          document, real_help);
        commands += found.benchwatch_commands;
        problems.insert(problems.end(), found.problems.begin(), found.problems.end());
    }
    EXPECT_THAT(problems, IsEmpty()) << fmt::format("{}", fmt::join(problems, "\n"));
    // The docs named 232 when this test was written; far fewer means the reader stopped finding
    // them. Lower the number only when commands were taken out of the docs.
    EXPECT_GE(commands, 220);
}

}  // namespace
}  // namespace benchwatch::testing::docs
