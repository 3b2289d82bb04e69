// What could break: a string that came from outside (a name, unit, category, environment key or
// value, commit id, warning or history URL) reaching a Markdown report as markup (HTML, a
// mention, a link or image, a heading, a broken table or <details> block), or reaching a
// terminal with control characters that drive it; or a report read back from JSON, as the fork
// flow does, rendering anything but what the same comparison renders directly.

#include "report/escaping.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include "compare/method.hpp"
#include "model/category.hpp"
#include "model/comparison.hpp"
#include "model/history.hpp"
#include "report/report.hpp"
#include "support/output_checks.hpp"

namespace benchwatch::report {
namespace {

// Everything an attacker could put in a string: a line break and a heading, HTML that closes the
// <details> block, a mention, a link, an image, a table cell break and terminal escape sequences
// (a window title, clearing the screen, red text, and the 8-bit CSI U+009B).
const std::string kHostile =
    "x\n## Injected\n<img src=x></details>@octocat [Click to approve](https://evil.example/a) "
    "![i](https://evil.example/i.png) a|b \033]0;TITLE\007\033[2J\033[31mred\xc2\x9b"
    "2J";

model::BenchmarkComparison row(std::string name, std::size_t category, std::string unit,
                               model::Verdict verdict) {
    model::BenchmarkComparison benchmark;
    benchmark.name = name;
    benchmark.display_name = std::move(name);
    benchmark.category = category;
    benchmark.unit = std::move(unit);
    benchmark.base = 1000;
    benchmark.head = verdict == model::Verdict::Slower ? 2000 : 1001;
    benchmark.typical_change = 0.01;
    benchmark.history_pairs = 29;
    benchmark.threshold = 0.03;
    benchmark.detectable_change = 0.03;
    benchmark.verdict = verdict;
    return benchmark;
}

model::Result result(std::string name, double value, std::string unit) {
    model::Result made;
    made.benchmark = std::move(name);
    made.value = value;
    made.unit = std::move(unit);
    return made;
}

// A comparison whose every string from outside is hostile.
model::Comparison hostile_comparison() {
    model::Comparison comparison;
    comparison.method = compare::default_choice("level");
    comparison.project = "p" + kHostile;
    comparison.machine = "m" + kHostile;
    comparison.head_commit = "c" + kHostile;
    comparison.baseline = {model::BaselineKind::NearestAncestor, "b" + kHostile, "mb" + kHostile,
                           2};
    comparison.history_order = model::HistoryOrder::Git;
    comparison.history_runs = 30;
    comparison.categories = {{"Perf" + kHostile, {"a/"}, 0.03}, {"Other" + kHostile, {}, 0.05}};
    comparison.summaries = {{0.1, 1, 0, 2, 0}, {0.0, 0, 0, 1, 0}};
    comparison.benchmarks = {
        row("a/slow" + kHostile, 0, "ns/op" + kHostile, model::Verdict::Slower),
        row("a/steady" + kHostile, 0, "B/s" + kHostile, model::Verdict::Unchanged),
        row("b/other", 1, kHostile, model::Verdict::Unchanged),
    };
    comparison.added = {result("new" + kHostile, 1, "u" + kHostile)};
    comparison.removed = {result("gone" + kHostile, 1, "u" + kHostile)};
    comparison.environment_changes = {{"key" + kHostile, "before" + kHostile, "after" + kHostile}};
    comparison.machine_environment = {{"cpu", "cpu" + kHostile}, {"extra" + kHostile, kHostile}};
    comparison.machine_changes = {{"cpu", "old" + kHostile, "new" + kHostile}};
    comparison.head_warnings = {{"high-load", "load" + kHostile}};
    comparison.baseline_warnings = {{"few-samples", "few" + kHostile}};
    comparison.history_url = "https://history.example/p?x=1" + kHostile;
    return comparison;
}

std::string markdown_of(const model::Comparison& comparison) {
    std::ostringstream out;
    render_markdown(comparison, out);
    return out.str();
}

std::string text_of(const model::Comparison& comparison) {
    std::ostringstream out;
    render_text(comparison, out, false);
    return out.str();
}

std::string json_of(const model::Comparison& comparison) {
    std::ostringstream out;
    render_json(comparison, out);
    return out.str();
}

void expect_no_injected_markdown(const std::string& markdown) {
    EXPECT_EQ(testing::markdown_problem(markdown), std::nullopt) << markdown;
    EXPECT_EQ(testing::workflow_command_problem(markdown), std::nullopt) << markdown;
}

void expect_terminal_safe(const std::string& text) {
    EXPECT_EQ(testing::terminal_problem(text, false), std::nullopt) << text;
    EXPECT_EQ(testing::workflow_command_problem(text), std::nullopt) << text;
}

TEST(HostileStrings, MarkdownCarriesNoMarkupFromThem) {
    expect_no_injected_markdown(markdown_of(hostile_comparison()));
}

TEST(HostileStrings, TheExplanationEscapesCategoryNames) {
    const auto markdown = markdown_of(hostile_comparison());
    EXPECT_NE(markdown.find("(perfx ## injected &lt;img src=x&gt;&lt;/details&gt;@\u200boctocat"),
              std::string::npos)
        << markdown;
}

TEST(HostileStrings, UnitsAreEscapedInTheComparisonTable) {
    const auto markdown = markdown_of(hostile_comparison());
    EXPECT_NE(markdown.find("| 1.00 kns/opx ## Injected &lt;img src=x&gt;"), std::string::npos)
        << markdown;
    EXPECT_NE(markdown.find("1.00 kB/sx ## Injected &lt;img src=x&gt;"), std::string::npos)
        << markdown;
}

TEST(HostileStrings, UnitsAreEscapedInTheTableOfAHeadWithoutBaseline) {
    auto comparison = hostile_comparison();
    comparison.baseline = {model::BaselineKind::None, "", "", 0};
    comparison.head_only_results = {result("a/x", 5, "ops/s\n<img src=x>|@octocat")};
    const auto markdown = markdown_of(comparison);
    expect_no_injected_markdown(markdown);
    EXPECT_NE(markdown.find("| x | 5.00 ops/s &lt;img src=x&gt;\\|@\u200boctocat |"),
              std::string::npos)
        << markdown;
}

TEST(HostileStrings, ReadBackFromJsonTheyRenderAsTheComparisonDoes) {
    const auto comparison = hostile_comparison();
    const auto read_back = read_json(json_of(comparison), "report.json");
    EXPECT_EQ(markdown_of(read_back), markdown_of(comparison));
    EXPECT_EQ(text_of(read_back), text_of(comparison));
    std::ostringstream limited;
    render_markdown_limited(read_back, limited, 1500);
    expect_no_injected_markdown(limited.str());
}

TEST(HostileStrings, TerminalTextCarriesNoControlCharacters) {
    const auto text = text_of(hostile_comparison());
    expect_terminal_safe(text);
    EXPECT_NE(text.find("1.00 kB/sx ## Injected"), std::string::npos) << text;
}

TEST(HostileStrings, ColouredTerminalTextHasOnlyItsOwnEscapes) {
    std::ostringstream out;
    render_text(hostile_comparison(), out, true);
    EXPECT_EQ(testing::terminal_problem(out.str(), true), std::nullopt) << out.str();
    EXPECT_EQ(testing::workflow_command_problem(out.str()), std::nullopt) << out.str();
}

TEST(HistoryUrl, HttpAndHttpsAreShownAsTheyAre) {
    auto comparison = hostile_comparison();
    comparison.history_url = "https://juliagpu.org/perf/?pkg=cuda&x=1_2~3#top";
    EXPECT_NE(markdown_of(comparison)
                  .find("\nHistory: https://juliagpu.org/perf/?pkg=cuda&x=1_2~3#top\n"),
              std::string::npos);
    comparison.history_url = "HTTP://localhost:8080/history";
    EXPECT_NE(text_of(comparison).find("\nHistory: HTTP://localhost:8080/history\n"),
              std::string::npos);
}

TEST(HistoryUrl, MarkupInAUrlIsPercentEncoded) {
    auto comparison = hostile_comparison();
    comparison.history_url = "https://h.example/a b<img src=x>[x](y)@octocat\n## H";
    const auto markdown = markdown_of(comparison);
    EXPECT_NE(
        markdown.find(
            "\nHistory: https://h.example/a%20b%3Cimg%20src=x%3E%5Bx%5D%28y%29%40octocat%0A##%"
            "20H\n"),
        std::string::npos)
        << markdown;
    expect_no_injected_markdown(markdown);
}

TEST(HistoryUrl, OtherSchemesAndMissingHostsAreDropped) {
    for (const std::string url :
         {"javascript:alert(1)", "data:text/html,<b>x</b>", "ftp://h.example/x", "//h.example/x",
          "https://", "https:///path", "https://user@evil.example/", "https://-x/", "h.example"}) {
        auto comparison = hostile_comparison();
        comparison.history_url = url;
        const auto markdown = markdown_of(comparison);
        EXPECT_EQ(markdown.find("History:"), std::string::npos) << url;
        EXPECT_EQ(markdown.find("as does the history linked below"), std::string::npos) << url;
        EXPECT_EQ(text_of(comparison).find("History:"), std::string::npos) << url;
    }
}

// Names GitHub Actions would read as workflow commands where a line of the log starts with them
// (after white space, a no-break space included, which the runner trims) or anywhere.
const std::string kCommands[] = {"::error::pwned", "\u00a0::warning title=x::w", "a##[error]b"};

TEST(WorkflowCommands, NamesCannotIssueOneInTerminalText) {
    auto comparison = hostile_comparison();
    comparison.categories[0].name = kCommands[0];
    comparison.benchmarks[0].display_name = kCommands[1];
    comparison.benchmarks[1].display_name = kCommands[2];
    comparison.benchmarks[1].unit = "##[group]u";
    for (const bool color : {false, true}) {
        std::ostringstream out;
        render_text(comparison, out, color);
        EXPECT_EQ(testing::workflow_command_problem(out.str()), std::nullopt) << out.str();
    }
    const auto text = text_of(comparison);
    // Shown as they are but for an invisible U+200B between the characters that make a command.
    EXPECT_NE(text.find("\n:\u200b:error::pwned"), std::string::npos) << text;
    EXPECT_NE(text.find("  \u00a0:\u200b:warning title=x::w"), std::string::npos) << text;
    EXPECT_NE(text.find("a##\u200b[error]b"), std::string::npos) << text;
}

TEST(WorkflowCommands, BenchmarkNamesCannotIssueOneInHistoryText) {
    model::History history;
    history.project = "p";
    history.machine = "##[error]m";
    history.order = model::HistoryOrder::Git;
    history.commits = {"c1", "c2"};
    history.times_ms = {0, 1000};
    for (const auto& name : kCommands) {
        model::BenchmarkHistory benchmark;
        benchmark.name = name;
        benchmark.commits = {"c1", "c2"};
        benchmark.values = {1, 2};
        history.benchmarks.push_back(benchmark);
    }
    std::ostringstream out;
    render_history_text(history, out, false);
    EXPECT_EQ(testing::workflow_command_problem(out.str()), std::nullopt) << out.str();
    EXPECT_NE(out.str().find("##\u200b[error]m"), std::string::npos) << out.str();
}

TEST(HostileStrings, BidirectionalOverridesCannotReorderANameInAnyOutput) {
    auto comparison = hostile_comparison();
    comparison.benchmarks[0].display_name = "a/\u202Ecod.exe";
    comparison.categories[0].name = "Perf\u2066x\u2069";
    const auto markdown = markdown_of(comparison);
    EXPECT_EQ(testing::markdown_problem(markdown), std::nullopt) << markdown;
    EXPECT_NE(markdown.find("| a/ cod.exe |"), std::string::npos) << markdown;
    for (const bool color : {false, true}) {
        std::ostringstream out;
        render_text(comparison, out, color);
        EXPECT_EQ(testing::terminal_problem(out.str(), color), std::nullopt) << out.str();
    }
    EXPECT_EQ(terminal_text("x\u202Ey"), "x y");
}

TEST(WorkflowCommands, ALineWithoutOneIsUnchanged) {
    EXPECT_EQ(detail::without_workflow_commands("a::b\n  x ##y [z]\n\n:x:\n"),
              "a::b\n  x ##y [z]\n\n:x:\n");
    EXPECT_EQ(detail::without_workflow_commands("\t::a\n::"), "\t:\u200b:a\n:\u200b:");
}

TEST(TerminalText, ControlCharactersOfEveryKindBecomeSpaces) {
    EXPECT_EQ(terminal_text("a\033]0;t\007b\r\n\x7f"
                            "c"),
              "a ]0;t b   c");
    // U+009B is CSI to a terminal: "\xc2\x9b" + "2J" would clear the screen.
    EXPECT_EQ(terminal_text("a\xc2\x9b"
                            "2J\xc2\x85z"),
              "a 2J z");
    EXPECT_EQ(terminal_text("µs é → 😀"), "µs é → 😀");
}

TEST(TerminalText, BytesThatAreNotUtf8BecomeReplacementCharacters) {
    EXPECT_EQ(terminal_text("a\x9b"
                            "2Jb"),
              "a\ufffd2Jb");
    EXPECT_EQ(terminal_text("\xff\xc2"), "\ufffd\ufffd");
}

TEST(EscapeMarkdownC1, C1ControlCharactersBecomeSpaces) {
    EXPECT_EQ(escape_markdown("a\xc2\x9b"
                              "b\xc2\x85"
                              "c µ"),
              "a b c µ");
}

}  // namespace
}  // namespace benchwatch::report
