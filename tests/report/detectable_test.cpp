// What could break: the line saying what a comparison could detect taking the wrong median or
// the wrong noisiest benchmark, reading oddly for one benchmark or a uniform suite, appearing in
// a seed report, implying "no change" when nothing could be judged, or letting a benchmark's
// name break the Markdown or send terminal escapes.
#include "report/detectable.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "compare/method.hpp"
#include "model/category.hpp"
#include "report/escaping.hpp"
#include "report/report.hpp"

namespace benchwatch::report {
namespace {

using detail::detectable_sentence;
using detail::plain_text;
using model::Verdict;

model::BenchmarkComparison row(std::string name, double detectable,
                               Verdict verdict = Verdict::Unchanged) {
    model::BenchmarkComparison benchmark;
    benchmark.name = name;
    benchmark.display_name = std::move(name);
    benchmark.base = 100;
    benchmark.head = 100;
    benchmark.history_pairs = 20;
    benchmark.detectable_change = detectable;
    benchmark.verdict = verdict;
    return benchmark;
}

// A level comparison of `rows`, all in Performance.
model::Comparison level_of(std::vector<model::BenchmarkComparison> rows) {
    model::Comparison comparison;
    comparison.method = compare::default_choice("level");
    comparison.baseline.kind = model::BaselineKind::MergeBase;
    comparison.categories = model::default_categories();
    comparison.summaries.resize(comparison.categories.size());
    comparison.summaries[0].compared = static_cast<int>(rows.size());
    comparison.benchmarks = std::move(rows);
    return comparison;
}

TEST(DetectableSentence, MedianOfAnEvenCountIsTheMeanOfTheMiddleTwo) {
    // Sorted 2%, 4%, 6%, 40%: median (4% + 6%) / 2 = 5%.
    const auto comparison =
        level_of({row("a", 0.06), row("b", 0.02), row("c", 0.40), row("d", 0.04)});
    EXPECT_EQ(detectable_sentence(comparison, plain_text),
              "Changes beyond 5.0% could be detected (median of 4 benchmarks; the noisiest, c, "
              "only beyond 40%).");
}

TEST(DetectableSentence, TheFirstOfEquallyNoisyBenchmarksIsNamed) {
    // Sorted 3%, 4%, 20%, 20%: median 12%.
    const auto comparison =
        level_of({row("a", 0.03), row("b", 0.2), row("c", 0.04), row("d", 0.2)});
    EXPECT_EQ(detectable_sentence(comparison, plain_text),
              "Changes beyond 12% could be detected (median of 4 benchmarks; the noisiest, b, only "
              "beyond 20%).");
}

TEST(DetectableSentence, OneBenchmarkAndAUniformSuiteReadNaturally) {
    EXPECT_EQ(detectable_sentence(level_of({row("io/read", 0.042)}), plain_text),
              "Changes beyond 4.2% could be detected (1 benchmark: io/read).");
    // The noisiest is no worse than the median: every benchmark detects changes beyond 3.0%.
    EXPECT_EQ(detectable_sentence(level_of({row("a", 0.03), row("b", 0.03), row("c", 0.029)}),
                                  plain_text),
              "Changes beyond 3.0% could be detected in each of the 3 benchmarks.");
}

TEST(DetectableSentence, InconclusiveWithoutAThresholdIsLeftOutOfTheMedian) {
    auto fresh = row("fresh", 0, Verdict::Inconclusive);
    fresh.history_pairs = 0;
    // A short history still gives a threshold (twice its largest change): it counts.
    const auto short_history = row("short", 0.5, Verdict::Inconclusive);
    const auto comparison = level_of({row("a", 0.04), fresh, short_history});
    EXPECT_EQ(detectable_sentence(comparison, plain_text),
              "Changes beyond 27% could be detected (median of 2 benchmarks; the noisiest, short, "
              "only beyond 50%).");
}

TEST(DetectableSentence, OneTooNoisyBenchmarkIsCountedInTheSingular) {
    const auto comparison = level_of({row("a", 0.05), row("b", 0.31, Verdict::TooNoisy)});
    EXPECT_EQ(detectable_sentence(comparison, plain_text),
              "Changes beyond 18% could be detected (median of 2 benchmarks; the noisiest, b, only "
              "beyond 31%). 1 benchmark is too noisy to judge and marked so under All benchmarks: "
              "the smallest change it could flag is more than ten times its category's minimum "
              "and more than 25%.");
}

TEST(DetectableSentence, NothingJudgedSaysWhyForEachReason) {
    auto fresh = row("fresh", 0, Verdict::Inconclusive);
    fresh.history_pairs = 0;
    EXPECT_EQ(detectable_sentence(level_of({row("a", 1.2, Verdict::TooNoisy)}), plain_text),
              "Nothing could be judged, so the zeros above do not mean that nothing changed: 1 "
              "benchmark is too noisy (the smallest change it could flag is 120%). A quieter "
              "machine or more repetitions of each benchmark lower the noise.");
    EXPECT_EQ(detectable_sentence(level_of({fresh, fresh}), plain_text),
              "Nothing could be judged, so the zeros above do not mean that nothing changed: 2 "
              "benchmarks have too little history on the default branch. More runs recorded on "
              "the default branch give the benchmarks a history.");
}

TEST(DetectableSentence, AFlaggedBenchmarkMeansSomethingWasJudged) {
    // Only too noisy benchmarks besides it, yet its verdict stands: the usual line.
    const auto comparison =
        level_of({row("a", 1.0, Verdict::Slower), row("b", 2.0, Verdict::TooNoisy)});
    EXPECT_TRUE(detectable_sentence(comparison, plain_text).starts_with("Changes beyond 150%"));
}

TEST(DetectableSentence, SeedReportsAndEmptyComparisonsHaveNone) {
    auto comparison = level_of({row("a", 0.04)});
    comparison.method = compare::default_choice("seed");
    EXPECT_EQ(detectable_sentence(comparison, plain_text), "");
    EXPECT_EQ(detectable_sentence(level_of({}), plain_text), "");
}

TEST(DetectablePercent, OneDecimalUnderTenPercentWholeAbove) {
    EXPECT_EQ(detail::detectable_percent(0.042), "4.2%");
    EXPECT_EQ(detail::detectable_percent(0.0996), "10%");  // rounds to 10.0%: whole
    EXPECT_EQ(detail::detectable_percent(0.0994), "9.9%");
    EXPECT_EQ(detail::detectable_percent(0.314), "31%");
    EXPECT_EQ(detail::detectable_percent(4.5), "450%");
}

TEST(DetectableSentence, TheNoisiestNameIsEscapedForMarkdown) {
    auto comparison = level_of({row("a", 0.04), row("@team|<b>_x_", 0.5)});
    std::ostringstream out;
    render_markdown(comparison, out);
    EXPECT_NE(out.str().find("\nChanges beyond 27% could be detected (median of 2 benchmarks; the "
                             "noisiest, @\u200bteam\\|&lt;b&gt;\\_x\\_, only beyond 50%).\n"),
              std::string::npos)
        << out.str();
}

TEST(DetectableSentence, TheNoisiestNameCannotSendTerminalEscapes) {
    auto comparison = level_of({row("a", 0.04), row("evil\033[2J\nname", 0.5)});
    std::ostringstream out;
    render_text(comparison, out, false);
    EXPECT_EQ(out.str().find('\033'), std::string::npos);
    EXPECT_NE(out.str().find("the noisiest, evil [2J name, only beyond 50%)."), std::string::npos)
        << out.str();
}

}  // namespace
}  // namespace benchwatch::report
