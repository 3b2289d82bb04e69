// What could break: the checks that the escaping tests and the rendering fuzz target apply
// (tests/support/output_checks.hpp) calling a clean report unclean, so that a finding means
// nothing, or missing the markup they exist to catch.
#include "support/output_checks.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace benchwatch {
namespace {

using testing::markdown_problem;
using testing::terminal_problem;
using testing::workflow_command_problem;

std::string read_file(const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

TEST(OutputChecks, EveryApprovedReportPassesThem) {
    std::size_t checked = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(BENCHWATCH_TEST_DATA) + "/report")) {
        const auto name = entry.path().filename().string();
        const auto text = read_file(entry.path());
        // The README is not a report.
        if (entry.path().extension() == ".md" && name != "README.md") {
            EXPECT_EQ(markdown_problem(text), std::nullopt) << name;
            EXPECT_EQ(workflow_command_problem(text), std::nullopt) << name;
            ++checked;
        }
        if (entry.path().extension() == ".txt") {
            EXPECT_EQ(terminal_problem(text, false), std::nullopt) << name;
            EXPECT_EQ(workflow_command_problem(text), std::nullopt) << name;
            ++checked;
        }
    }
    EXPECT_GE(checked, 30u);
}

TEST(OutputChecks, MarkdownProblemsAreFoundWithTheirLine) {
    EXPECT_EQ(markdown_problem("## Benchmark results\n\nok\n## Injected\n"),
              "line 4: a heading: ## Injected");
    EXPECT_EQ(markdown_problem("a <img src=x>"), "line 1: HTML: a <img src=x>");
    EXPECT_EQ(markdown_problem("hi @octocat"), "line 1: a mention: hi @octocat");
    EXPECT_EQ(markdown_problem("a [b](c)"), "line 1: a link or image: a [b](c)");
    EXPECT_EQ(markdown_problem("a \\\\[b"), "line 1: a link or image: a \\\\[b");
    EXPECT_EQ(markdown_problem("a \\[b\\]\\(c)"), std::nullopt);
    EXPECT_EQ(markdown_problem("a ](x)"), "line 1: a link target: a ](x)");
    EXPECT_EQ(markdown_problem("a \\](x)"), std::nullopt);
    EXPECT_EQ(markdown_problem("> quoted"), "line 1: a block quote: > quoted");
    EXPECT_EQ(markdown_problem("text\n==="), "line 2: a heading underline: ===");
    EXPECT_EQ(markdown_problem("text\n---"), "line 2: a heading underline or rule: ---");
    EXPECT_EQ(markdown_problem("a\x1b[2J"), "line 1: a control character: a\x1b[2J");
    EXPECT_EQ(markdown_problem("| a | b |\n|---|---|\n| x\\|y | z |\n| x | y | z |"),
              "line 4: a broken table row: | x | y | z |");
    EXPECT_EQ(
        markdown_problem("<details><summary>All benchmarks</summary>\n\n</details>\n@\u200bx"),
        std::nullopt);
}

TEST(OutputChecks, TerminalProblemsAllowOnlyTheReportsOwnColours) {
    EXPECT_EQ(terminal_problem("\x1b[1mok\x1b[0m", true), std::nullopt);
    EXPECT_EQ(terminal_problem("\x1b[1mok\x1b[0m", false),
              "line 1: a control character: \x1b[1mok\x1b[0m");
    EXPECT_EQ(terminal_problem("\x1b[2J", true), "line 1: a control character: \x1b[2J");
    EXPECT_EQ(terminal_problem("a\nb\xc2\x9b", false), "line 2: a C1 control character: b\xc2\x9b");
}

TEST(OutputChecks, WorkflowCommandsAreFoundAfterUnicodeWhiteSpace) {
    EXPECT_EQ(workflow_command_problem("ok\n  ::error::x"),
              "line 2: a workflow command:   ::error::x");
    EXPECT_EQ(workflow_command_problem("\u00a0\u2003::warning::x"),
              "line 1: a workflow command: \u00a0\u2003::warning::x");
    EXPECT_EQ(workflow_command_problem("x ##[error]y"),
              "line 1: an old-style workflow command: x ##[error]y");
    EXPECT_EQ(workflow_command_problem("a::b\n:\u200b:c\n##\u200b[d]"), std::nullopt);
}

}  // namespace
}  // namespace benchwatch
