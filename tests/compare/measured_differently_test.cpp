// What could break: a pull request's best of 3 runs compared with a baseline measured once
// without a word in the report, a warning where both sides were measured alike or where a side
// does not say how it was measured, reruns of a commit not counted although compare keeps their
// best, or benchwatch's own keys listed as a change of the environment.
#include <gtest/gtest.h>

#include "compare/compare.hpp"
#include "model/environment_keys.hpp"
#include "recording.hpp"

namespace benchwatch::compare {
namespace {

using testing::Recorder;
using testing::timed;

// `count` runs of the harness, as `run --repetitions` records it.
model::Environment repeated(int count) {
    return {{std::string(model::repetitions_key), std::to_string(count)},
            {"compiler.gcc", "12.2.0"}};
}

// A time result with `count` samples.
model::Result sampled(std::string benchmark, double nanoseconds, std::int64_t count) {
    auto result = timed(std::move(benchmark), nanoseconds);
    result.samples = model::SampleSummary{count, nanoseconds, nanoseconds, 0};
    return result;
}

// The warnings about how the sides were measured.
std::vector<model::Warning> measurement_warnings(const model::Comparison& comparison) {
    std::vector<model::Warning> found;
    for (const auto& warning : comparison.head_warnings)
        if (warning.kind == "measured-differently") found.push_back(warning);
    return found;
}

TEST(MeasuredDifferently, TheBestOfThreeAgainstOneRunIsSaid) {
    Recorder recorder;
    recorder.record("base", "main", {timed("a", 100)}, repeated(1));
    recorder.record("pr", "feature", {timed("a", 100)}, repeated(3));
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));
    EXPECT_EQ(measurement_warnings(comparison),
              (std::vector<model::Warning>{
                  {"measured-differently",
                   "The head was measured as the best of 3 repetitions and the baseline from 1; "
                   "measure both the same way (the [measure] recipe's run, or the same "
                   "--repetitions)"}}));
    // The key says how the run was measured, not what it ran on.
    EXPECT_TRUE(comparison.environment_changes.empty());
}

TEST(MeasuredDifferently, EitherWayRound) {
    Recorder recorder;
    recorder.record("base", "main", {timed("a", 100)}, repeated(5));
    recorder.record("pr", "feature", {timed("a", 100)}, repeated(1));
    auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));
    ASSERT_EQ(measurement_warnings(comparison).size(), 1u);
    EXPECT_EQ(measurement_warnings(comparison)[0].message,
              "The head was measured from 1 repetition and the baseline as the best of 5; "
              "measure both the same way (the [measure] recipe's run, or the same "
              "--repetitions)");

    recorder.record("pr2", "feature", {timed("a", 100)}, repeated(2));
    comparison = compare(recorder.store, nullptr, recorder.options("pr2"));
    ASSERT_EQ(measurement_warnings(comparison).size(), 1u);
    EXPECT_EQ(measurement_warnings(comparison)[0].message,
              "The head was measured as the best of 2 repetitions and the baseline as the best "
              "of 5; measure both the same way (the [measure] recipe's run, or the same "
              "--repetitions)");
}

TEST(MeasuredDifferently, NothingWhenBothSidesWereMeasuredAlike) {
    Recorder recorder;
    recorder.record("base", "main", {timed("a", 100)}, repeated(3));
    recorder.record("pr", "feature", {timed("a", 100)}, repeated(3));
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));
    EXPECT_TRUE(comparison.head_warnings.empty());
}

TEST(MeasuredDifferently, NothingWhenASideDoesNotSay) {
    // A run stored by `record` says nothing of how its file was measured.
    Recorder recorder;
    recorder.record("base", "main", {timed("a", 100)}, {{"compiler.gcc", "12.2.0"}});
    recorder.record("pr", "feature", {timed("a", 100)}, repeated(3));
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));
    EXPECT_TRUE(comparison.head_warnings.empty());
}

TEST(MeasuredDifferently, RerunsOfACommitCountAsRepetitionsSinceTheirBestIsKept) {
    Recorder recorder;
    recorder.record("base", "main", {timed("a", 100)}, repeated(1));
    recorder.record("pr", "feature", {timed("a", 100)}, repeated(1));
    EXPECT_TRUE(compare(recorder.store, nullptr, recorder.options("pr")).head_warnings.empty());
    recorder.record("pr", "feature", {timed("a", 90)}, repeated(1));
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));
    ASSERT_EQ(measurement_warnings(comparison).size(), 1u);
    EXPECT_TRUE(measurement_warnings(comparison)[0].message.starts_with(
        "The head was measured as the best of 2 repetitions and the baseline from 1;"))
        << measurement_warnings(comparison)[0].message;
}

TEST(MeasuredDifferently, TwiceTheSamplesPerBenchmarkByMedianIsSaid) {
    // Medians: head 10 samples (10, 10, 30), baseline 5 (1, 5, 5): at least twice as many.
    Recorder recorder;
    recorder.record("base", "main",
                    {sampled("a", 100, 1), sampled("b", 100, 5), sampled("c", 100, 5)});
    recorder.record("pr", "feature",
                    {sampled("a", 100, 10), sampled("b", 100, 10), sampled("c", 100, 30)});
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));
    EXPECT_EQ(measurement_warnings(comparison),
              (std::vector<model::Warning>{
                  {"measured-differently",
                   "The head was measured with 10 samples per benchmark (the median) and the "
                   "baseline with 5; measure both the same way (the [measure] recipe's run, or "
                   "the same harness options)"}}));
}

TEST(MeasuredDifferently, SamplesWithinTwiceAreLeftAlone) {
    // A harness that samples for a fixed time takes fewer samples of a slower benchmark: medians
    // 9 and 5 are within twice.
    Recorder recorder;
    recorder.record("base", "main", {sampled("a", 100, 9), sampled("b", 100, 9)}, repeated(1));
    recorder.record("pr", "feature", {sampled("a", 180, 5), sampled("b", 180, 5)}, repeated(1));
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));
    EXPECT_TRUE(comparison.head_warnings.empty());
}

TEST(MeasuredDifferently, ARepetitionsWarningIsNotRepeatedForTheSamplesItPooled) {
    // Three repetitions of a harness giving one sample each pool to three samples: one warning.
    Recorder recorder;
    recorder.record("base", "main", {sampled("a", 100, 1)}, repeated(1));
    recorder.record("pr", "feature", {sampled("a", 100, 3)}, repeated(3));
    const auto comparison = compare(recorder.store, nullptr, recorder.options("pr"));
    ASSERT_EQ(measurement_warnings(comparison).size(), 1u);
    EXPECT_NE(measurement_warnings(comparison)[0].message.find("best of 3 repetitions"),
              std::string::npos);
}

}  // namespace
}  // namespace benchwatch::compare
