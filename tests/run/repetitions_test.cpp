// What could break: the best value of several runs of a harness lost or taken from the wrong
// side for bigger-is-better metrics, or their samples counted as only the best run's, which
// made three runs of a harness look like one sample.

#include "run/repetitions.hpp"

#include <gtest/gtest.h>

namespace benchwatch::run {
namespace {

model::Result result(const std::string& name, double value, std::vector<double> samples) {
    model::Result made;
    made.benchmark = name;
    made.value = value;
    if (!samples.empty()) {
        made.samples = model::SampleSummary{.count = static_cast<std::int64_t>(samples.size()),
                                            .median = samples.front(),
                                            .mean = samples.front(),
                                            .stddev = 0,
                                            .values = samples};
    }
    return made;
}

TEST(Repetitions, TheBestValueIsKeptAndTheSamplesOfEveryRunArePooled) {
    std::vector<model::Result> best;
    add_repetition(best, {result("a", 12, {12}), result("b", 7, {7, 9})});
    add_repetition(best, {result("a", 10, {10})});
    add_repetition(best, {result("a", 14, {14}), result("c", 3, {3})});
    ASSERT_EQ(best.size(), 3u);
    EXPECT_EQ(best[0].benchmark, "a");
    EXPECT_EQ(best[0].value, 10);
    ASSERT_TRUE(best[0].samples);
    EXPECT_EQ(best[0].samples->count, 3);
    EXPECT_EQ(best[0].samples->values, (std::vector<double>{10, 12, 14}));
    EXPECT_EQ(best[0].samples->median, 12);
    EXPECT_EQ(best[0].samples->mean, 12);
    EXPECT_EQ(best[0].samples->stddev, 2);  // sqrt(((-2)² + 0² + 2²) / (3 − 1))
    EXPECT_EQ(best[1].samples->count, 2);   // b ran once: its own two samples
    EXPECT_EQ(best[2].value, 3);
}

TEST(Repetitions, BiggerIsBetterKeepsTheLargest) {
    auto first = result("ops", 100, {100});
    first.direction = model::Direction::BiggerIsBetter;
    auto second = result("ops", 120, {120});
    second.direction = model::Direction::BiggerIsBetter;
    std::vector<model::Result> best;
    add_repetition(best, {first});
    add_repetition(best, {second});
    EXPECT_EQ(best[0].value, 120);
    EXPECT_EQ(best[0].samples->values, (std::vector<double>{100, 120}));
}

TEST(Repetitions, SummariesWithoutEveryValueAreNotPooled) {
    // A format that gives a summary only, and a run of more samples than a result keeps.
    auto summary_only = result("a", 5, {});
    summary_only.samples = model::SampleSummary{.count = 30, .median = 6, .mean = 6, .stddev = 1};
    std::vector<model::Result> best;
    add_repetition(best, {summary_only});
    add_repetition(best, {result("a", 4, {4, 5})});
    EXPECT_EQ(best[0].value, 4);
    EXPECT_EQ(best[0].samples->count, 2);  // the best run's own
    std::vector<double> many(model::kKeptSampleValues, 8.0);
    std::vector<model::Result> full;
    add_repetition(full, {result("a", 8, many)});
    add_repetition(full, {result("a", 9, {9})});
    EXPECT_EQ(full[0].samples->count, static_cast<std::int64_t>(model::kKeptSampleValues));
}

}  // namespace
}  // namespace benchwatch::run
