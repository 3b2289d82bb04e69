// What could break: a slow spell of several runs hiding in its neighbours' medians, a spell at the
// newest runs missed or not called unsettled, one benchmark's outlier taken for the whole suite,
// a lasting step of the suite taken for a spell over more than its first runs, or a quiet suite's
// ordinary moves called spells.
#include "stats/slow_spells.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace benchwatch::stats {
namespace {

// `runs` runs of `benchmarks` benchmarks whose log values wobble by ±0.01 in a fixed pattern.
std::vector<std::vector<double>> quiet_suite(std::size_t runs, std::size_t benchmarks = 3) {
    const double wobble[] = {0.01, -0.01, 0.0, 0.005, -0.005};
    std::vector<std::vector<double>> logs(runs);
    for (std::size_t run = 0; run < runs; ++run)
        for (std::size_t b = 0; b < benchmarks; ++b) logs[run].push_back(wobble[(run + 2 * b) % 5]);
    return logs;
}

std::vector<bool> only(std::size_t runs, std::vector<std::size_t> moved) {
    std::vector<bool> expected(runs, false);
    for (const auto run : moved) expected[run] = true;
    return expected;
}

TEST(SlowSpells, FindsASpellOfFourRunsInTheMiddle) {
    auto logs = quiet_suite(12);
    for (std::size_t run = 5; run <= 8; ++run)
        for (auto& value : logs[run]) value += 0.4;
    const auto found = find_slow_spells(logs, std::log1p(0.03));
    EXPECT_EQ(found.moved, only(12, {5, 6, 7, 8}));
    EXPECT_FALSE(found.unsettled);
    // Run 5's values are 0.4 + {0, 0.01, −0.01}; its 10 nearest other runs that did not move are
    // runs 0 to 4 and 9 to 11 (8 of them), whose values of benchmark 0 are {0.01, −0.01, 0,
    // 0.005, −0.005, −0.005, 0.01, −0.01}, median 0: the suite's median deviation is 0.4.
    EXPECT_NEAR(found.suite_deviation[5], 0.4, 1e-12);
}

TEST(SlowSpells, ASpellAtTheNewestRunsIsUnsettled) {
    auto logs = quiet_suite(14);
    for (std::size_t run = 10; run <= 13; ++run)
        for (auto& value : logs[run]) value += 0.3;
    const auto found = find_slow_spells(logs, std::log1p(0.03));
    EXPECT_EQ(found.moved, only(14, {10, 11, 12, 13}));
    EXPECT_TRUE(found.unsettled);
}

TEST(SlowSpells, OneBenchmarksOutlierIsNotTheSuites) {
    auto logs = quiet_suite(12);
    logs[6][1] += 0.5;  // one of three benchmarks: the suite's median does not move
    logs[7][0] += 0.5;
    logs[7][2] -= 0.5;  // two the opposite ways
    const auto found = find_slow_spells(logs, std::log1p(0.03));
    EXPECT_EQ(found.moved, only(12, {}));
}

TEST(SlowSpells, ALastingStepIsAtMostItsFirstRuns) {
    auto logs = quiet_suite(20);
    for (std::size_t run = 8; run < 20; ++run)
        for (auto& value : logs[run]) value += 0.3;
    const auto found = find_slow_spells(logs, std::log1p(0.03));
    std::size_t moved = 0;
    for (std::size_t run = 0; run < 20; ++run) moved += found.moved[run];
    EXPECT_LE(moved, 2u) << "a step moves the runs at its edge only";
    EXPECT_FALSE(found.unsettled);
    for (std::size_t run = 10; run < 20; ++run) EXPECT_FALSE(found.moved[run]) << run;
}

TEST(SlowSpells, MovesBelowTheSmallestMoveAreNotSpells) {
    auto logs = quiet_suite(12);
    for (std::size_t run = 5; run <= 6; ++run)
        for (auto& value : logs[run]) value += 0.1;  // far beyond the wobble, within 15%
    EXPECT_EQ(find_slow_spells(logs, std::log1p(0.15)).moved, only(12, {}));
    EXPECT_EQ(find_slow_spells(logs, std::log1p(0.05)).moved, only(12, {5, 6}));
}

TEST(SlowSpells, TooFewBenchmarksOrRunsDecideNothing) {
    std::vector<std::vector<double>> two(12, std::vector<double>{0.0, 0.0});
    for (std::size_t run = 5; run <= 8; ++run) two[run] = {0.4, 0.4};
    EXPECT_EQ(find_slow_spells(two, 0.03).moved, only(12, {}));
    auto logs = quiet_suite(3);
    logs[2] = {0.5, 0.5, 0.5};
    EXPECT_EQ(find_slow_spells(logs, 0.03).moved, only(3, {}));
    EXPECT_TRUE(find_slow_spells({}, 0.03).moved.empty());
    // A run with values of fewer than 3 benchmarks is not judged, even inside a spell.
    auto sparse = quiet_suite(12);
    for (std::size_t run = 5; run <= 8; ++run)
        for (auto& value : sparse[run]) value += 0.4;
    sparse[6][2] = NAN;
    EXPECT_EQ(find_slow_spells(sparse, 0.03).moved, only(12, {5, 7, 8}));
}

TEST(SlowSpells, MissingValuesAreLeftOut) {
    auto logs = quiet_suite(12, 4);
    for (std::size_t run = 5; run <= 8; ++run)
        for (auto& value : logs[run]) value += 0.4;
    logs[6][2] = NAN;
    logs[2][0] = NAN;
    logs.push_back({0.0, 0.0, 0.0, 0.0, 0.4});  // a fifth benchmark, in the newest run only
    const auto found = find_slow_spells(logs, std::log1p(0.03));
    EXPECT_EQ(found.moved, only(13, {5, 6, 7, 8}));
}

}  // namespace
}  // namespace benchwatch::stats
