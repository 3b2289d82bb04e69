// What could break: the generated suites that measure the judging methods away from real data
// moving the whole machine the wrong way, at the wrong runs, or differently for one seed.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "stats/noise_model.hpp"

namespace benchwatch::stats {
namespace {

// A model without any noise of its own, so that every value's logarithm is its shared moves.
SuiteModel quiet_suite() {
    SuiteModel model;
    model.runs = 40;
    model.benchmarks = 8;
    model.series.min_noise = 1e-12;
    model.series.max_noise = 1e-12;
    model.series.max_steps = 0;
    model.series.outlier_probability = 0;
    model.event_probability = 0;
    model.max_suite_steps = 0;
    return model;
}

TEST(NoiseSuite, SameSeedSameSuite) {
    const auto first = generate_suite(3);
    const auto again = generate_suite(3);
    const auto other = generate_suite(4);
    EXPECT_EQ(first.values, again.values);
    EXPECT_NE(first.values, other.values);
    ASSERT_EQ(first.values.size(), 60U);
    EXPECT_EQ(first.values.front().size(), 200U);
}

TEST(NoiseSuite, AMomentMovesEveryBenchmarkTheSameWayForOneRun) {
    auto model = quiet_suite();
    model.event_probability = 1;  // every run
    const auto suite = generate_suite(5, model);
    ASSERT_EQ(suite.events.size(), 40U);
    // Each run's shared move u lies in [ln 1.2, ln 2] either way, felt × [0.5, 1.5].
    const double smallest = 0.5 * std::log(1.2);
    const double largest = 1.5 * std::log(2.0);
    for (std::size_t t = 0; t < 40; ++t) {
        const double first = std::log(suite.values[0][t] / 1000);
        for (const auto& values : suite.values) {
            const double move = std::log(values[t] / 1000);
            EXPECT_GT(move * first, 0) << "run " << t;
            EXPECT_GE(std::abs(move), smallest - 1e-9);
            EXPECT_LE(std::abs(move), largest + 1e-9);
        }
    }
}

TEST(NoiseSuite, AMachineChangeLastsInEveryBenchmark) {
    auto model = quiet_suite();
    model.max_suite_steps = 2;
    // The first seed whose suite has a lasting change.
    GeneratedSuite suite;
    for (std::uint64_t seed = 1; suite.suite_steps.empty(); ++seed)
        suite = generate_suite(seed, model);
    const auto step = suite.suite_steps.front();
    ASSERT_GE(step, 10U);
    const double first = std::log(suite.values[0][step] / suite.values[0][step - 1]);
    for (const auto& values : suite.values) {
        const double move = std::log(values[step] / values[step - 1]);
        EXPECT_GT(move * first, 0);
        EXPECT_GE(std::abs(move), 0.5 * std::log(1.05) - 1e-9);
        EXPECT_LE(std::abs(move), 1.5 * std::log(1.4) + 1e-9);
        // It lasts: the runs after it keep the level (no other change before the next step).
        const auto end = suite.suite_steps.size() > 1 ? suite.suite_steps[1] : values.size();
        for (std::size_t t = step; t < end; ++t) EXPECT_NEAR(values[t], values[step], 1e-6);
    }
}

}  // namespace
}  // namespace benchwatch::stats
