// What could break: the lines under the baseline sentence (machine, machine change, warnings)
// worded differently in one renderer, shown when there is nothing to say, or letting a message
// break the line or the Markdown.
#include <gtest/gtest.h>

#include <sstream>

#include "compare/method.hpp"
#include "report/escaping.hpp"
#include "report/report.hpp"
#include "report/sentences.hpp"

namespace benchwatch::report {
namespace {

using detail::machine_change_sentence;
using detail::machine_sentence;
using detail::plain_text;
using detail::warnings_sentence;

TEST(MachineSentence, KeysInMachineKeyOrderWithTheirWords) {
    // Given in map (alphabetical) order; shown in model::machine_keys order.
    const model::Environment machine = {{"memory", "1.9 GiB"},
                                        {"cores", "1"},
                                        {"cpu", "ARM"},
                                        {"kernel", "6.1.0"},
                                        {"arch", "aarch64"}};
    EXPECT_EQ(machine_sentence(machine, plain_text),
              "Measured on: kernel 6.1.0, aarch64, ARM, 1 core, 1.9 GiB of memory.");
    EXPECT_EQ(machine_sentence({{"cores", "64"}, {"gpu.driver", "550.1"}}, plain_text),
              "Measured on: 64 cores, GPU driver 550.1.");
    EXPECT_EQ(machine_sentence({}, plain_text), "");
    // A key that is not a machine key (given by hand) comes last, named.
    EXPECT_EQ(machine_sentence({{"board", "X13"}, {"cpu", "ARM"}}, plain_text),
              "Measured on: ARM, board X13.");
}

TEST(MachineSentence, ValuesAreEscapedForMarkdown) {
    EXPECT_EQ(machine_sentence({{"cpu", "Fast|CPU <b>@team</b>"}}, escape_markdown),
              "Measured on: Fast\\|CPU &lt;b&gt;@\u200bteam&lt;/b&gt;.");
}

TEST(MachineChangeSentence, ListsChangedAddedAndRemovedKeys) {
    EXPECT_EQ(machine_change_sentence(
                  {{"cpu", "AMD EPYC 7402", "AMD EPYC 7B13"}, {"gpu", std::nullopt, "NVIDIA L4"}},
                  plain_text),
              "The baseline ran on a different machine: cpu AMD EPYC 7402 → AMD EPYC 7B13, gpu "
              "added (NVIDIA L4).");
    EXPECT_EQ(machine_change_sentence({}, plain_text), "");
}

TEST(WarningsSentence, SentencesFollowOneAnotherEachEndingInAFullStop) {
    EXPECT_EQ(warnings_sentence("this PR's",
                                {{"high-load", "The load was high."},
                                 {"custom", "No full stop here"},
                                 {"custom", "Really?"}},
                                plain_text),
              "Measurement warnings for this PR's run: The load was high. No full stop here. "
              "Really?");
    EXPECT_EQ(warnings_sentence("the baseline's", {}, plain_text), "");
}

TEST(WarningsSentence, AMessageCannotBreakTheLine) {
    EXPECT_EQ(warnings_sentence("this PR's", {{"few-samples", "a\nb\033[2J."}}, escape_markdown),
              "Measurement warnings for this PR's run: a b \\[2J.");
}

// The lines between the baseline sentence and the explanation, in Markdown.
std::string context_of(const model::Comparison& comparison) {
    std::ostringstream out;
    render_markdown(comparison, out);
    const auto text = out.str();
    const auto start = text.find('\n', text.find("Compared with")) + 1;
    return text.substr(start, text.find("\nTimes are", start) - start);
}

model::Comparison compared() {
    model::Comparison comparison;
    comparison.method = compare::default_choice("level");
    comparison.baseline = {model::BaselineKind::Explicit, "base", "", 0};
    comparison.categories = model::default_categories();
    comparison.summaries.resize(comparison.categories.size());
    return comparison;
}

TEST(ContextLines, InTheirOrderAndOnlyWhenTheyHaveSomethingToSay) {
    auto comparison = compared();
    EXPECT_EQ(context_of(comparison), "");

    comparison.baseline_warnings = {{"high-load", "Base was busy."}};
    comparison.head_warnings = {{"debug-harness", "Head is a debug build."}};
    comparison.machine_changes = {{"cores", "2", "4"}};
    comparison.machine_environment = {{"cores", "4"}};
    comparison.environment_changes = {{"julia", "1.10", "1.11"}};
    EXPECT_EQ(context_of(comparison),
              "The environment differs from the baseline's: julia 1.10 → 1.11.\n"
              "Measured on: 4 cores.\n"
              "The baseline ran on a different machine: cores 2 → 4.\n"
              "Measurement warnings for this PR's run: Head is a debug build.\n"
              "Measurement warnings for the baseline's run: Base was busy.\n");
}

TEST(ContextLines, TextShowsTheSameLinesWithoutMarkdownEscapes) {
    auto comparison = compared();
    comparison.machine_environment = {{"cpu", "a|b"}};
    comparison.head_warnings = {{"few-samples", "Give `x` more time."}};
    std::ostringstream out;
    render_text(comparison, out, false);
    EXPECT_NE(out.str().find("Compared with base.\n"
                             "Measured on: a|b.\n"
                             "Measurement warnings for this PR's run: Give `x` more time.\n\n"),
              std::string::npos);
}

}  // namespace
}  // namespace benchwatch::report
