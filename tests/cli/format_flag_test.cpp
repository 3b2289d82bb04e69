// What could break: a subcommand's --format taking a word it has no renderer for (and writing
// some other format instead), or refusing one with a message that does not say which formats
// there are.
#include <gtest/gtest.h>

#include <algorithm>

#include "cli/command_line.hpp"
#include "cli/defaults.hpp"

namespace benchwatch::cli {
namespace {

using report::Format;

// The format `benchwatch history ARGUMENTS` chooses, its default text; or the UsageError's
// message prefixed with "error: ".
std::string chosen(std::vector<std::string> arguments) {
    CLI::App top("benchwatch", "benchwatch");
    auto* history = top.add_subcommand("history", "Show the history");
    FormatFlag flag;
    add_format_flag(*history, flag, {Format::Text, Format::Json}, "Output format", "text");
    arguments.insert(arguments.begin(), "history");
    std::reverse(arguments.begin(), arguments.end());
    top.parse(arguments);
    try {
        return std::string(report::to_string(flag.chosen(Format::Text)));
    } catch (const UsageError& error) {
        return std::string("error: ") + error.what();
    }
}

TEST(FormatFlag, RefusesAFormatTheSubcommandDoesNotWriteNamingTheOnesItDoes) {
    EXPECT_EQ(chosen({"--format", "yaml"}),
              "error: unknown --format 'yaml' for benchwatch history; the formats are text, json");
    // Markdown is a format, but not one history writes.
    EXPECT_EQ(chosen({"--format", "markdown"}),
              "error: unknown --format 'markdown' for benchwatch history; the formats are text, "
              "json");
    EXPECT_EQ(chosen({"--format", ""}),
              "error: unknown --format '' for benchwatch history; the formats are text, json");
}

TEST(FormatFlag, SuggestsTheNearestFormatAndQuotesTheWordSafely) {
    EXPECT_EQ(chosen({"--format", "jsno"}),
              "error: unknown --format 'jsno' for benchwatch history; did you mean 'json'? (the "
              "formats are text, json)");
    EXPECT_EQ(chosen({"--format", "x\x1b[2Jy"}),
              "error: unknown --format 'x\\u{1b}[2Jy' for benchwatch history; the formats are "
              "text, json");
}

TEST(FormatFlag, TakesEachFormatItListsAndTheDefaultWhenNoneIsGiven) {
    EXPECT_EQ(chosen({"--format", "json"}), "json");
    EXPECT_EQ(chosen({"--format=text"}), "text");
    EXPECT_EQ(chosen({}), "text");
}

TEST(FormatFlag, HelpListsTheFormats) {
    CLI::App top("benchwatch", "benchwatch");
    auto* compare = top.add_subcommand("compare", "Compare");
    FormatFlag flag;
    add_format_flag(*compare, flag, {Format::Markdown, Format::Text, Format::Json}, "Report format",
                    "markdown");
    EXPECT_EQ(compare->get_option("--format")->get_description(),
              "Report format: markdown, text, json (default: markdown)");
}

TEST(Format, SpellingsReadBack) {
    for (const auto format : {Format::Text, Format::Markdown, Format::Json})
        EXPECT_EQ(report::parse_format(report::to_string(format)), format);
    EXPECT_EQ(report::parse_format("JSON"), std::nullopt);
}

}  // namespace
}  // namespace benchwatch::cli
