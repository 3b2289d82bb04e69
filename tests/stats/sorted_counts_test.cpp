// What could break: a number counted in the wrong bucket (so a count off by the numbers between
// a bound and its bucket's edge), ties at a bound counted as above it, a set of equal numbers or
// of one number, bounds outside the set's range, and a range so wide or so narrow that the
// bucket arithmetic overflows or divides by nothing.
#include "stats/sorted_counts.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace benchwatch::stats {
namespace {

// How many of `values` are greater than `bound`, by a search of them sorted.
std::size_t searched(std::vector<double> values, double bound) {
    std::sort(values.begin(), values.end());
    return static_cast<std::size_t>(values.end() -
                                    std::upper_bound(values.begin(), values.end(), bound));
}

// Every value, its neighbours either side and points between them, as bounds.
std::vector<double> bounds_around(const std::vector<double>& values) {
    std::vector<double> bounds;
    for (const double value : values) {
        bounds.push_back(value);
        bounds.push_back(std::nextafter(value, -std::numeric_limits<double>::infinity()));
        bounds.push_back(std::nextafter(value, std::numeric_limits<double>::infinity()));
    }
    for (std::size_t i = 1; i < values.size(); ++i)
        bounds.push_back((values[i - 1] + values[i]) / 2);
    return bounds;
}

void expect_counts_as_searched(const std::vector<double>& values) {
    const SortedCounts counts(values);
    ASSERT_EQ(counts.size(), values.size());
    ASSERT_TRUE(std::is_sorted(counts.sorted().begin(), counts.sorted().end()));
    auto bounds = bounds_around(values);
    for (const double extreme : {-1e308, -1.0, 0.0, 1.0, 1e308}) bounds.push_back(extreme);
    for (const double bound : bounds)
        ASSERT_EQ(counts.count_above(bound), searched(values, bound)) << "bound " << bound;
}

TEST(SortedCounts, CountsWhatASearchOfTheSortedNumbersCounts) {
    EXPECT_EQ(SortedCounts({3, 1, 2, 2}).count_above(2), 1U);
    EXPECT_EQ(SortedCounts({3, 1, 2, 2}).count_above(1.5), 3U);
    EXPECT_EQ(SortedCounts({3, 1, 2, 2}).count_above(0.5), 4U);
    EXPECT_EQ(SortedCounts({3, 1, 2, 2}).count_above(3), 0U);
    EXPECT_EQ(SortedCounts(std::vector<double>{}).count_above(0), 0U);
}

TEST(SortedCounts, AgreesWithASearchOnScoresOfEveryShape) {
    std::mt19937_64 random(7);
    std::normal_distribution<double> normal(0, 1);
    std::exponential_distribution<double> tail(3);
    std::vector<double> scores;
    for (int i = 0; i < 3000; ++i) scores.push_back(normal(random));
    expect_counts_as_searched(scores);
    // Many exact zeros (moves that lasted) under a heavy tail, as pooled flukes are.
    std::vector<double> flukes(2000, 0.0);
    for (int i = 0; i < 2000; ++i) flukes.push_back(std::exp(5 * tail(random)) - 1);
    expect_counts_as_searched(flukes);
    // Values rounded to a few steps, so that many are tied.
    std::vector<double> ties;
    for (int i = 0; i < 1000; ++i) ties.push_back(std::round(normal(random) * 4) / 4);
    expect_counts_as_searched(ties);
}

TEST(SortedCounts, HandlesOneNumberEqualNumbersAndExtremeRanges) {
    expect_counts_as_searched({0.25});
    expect_counts_as_searched(std::vector<double>(50, -3.5));
    expect_counts_as_searched({-1e308, 1e308});
    expect_counts_as_searched({-1e308, -1, 0, 1e-300, 1, 1e308});
    expect_counts_as_searched({1e-310, 2e-310, 3e-310});
    expect_counts_as_searched(
        {1.0, std::nextafter(1.0, 2.0), std::nextafter(std::nextafter(1.0, 2.0), 2.0)});
}

}  // namespace
}  // namespace benchwatch::stats
