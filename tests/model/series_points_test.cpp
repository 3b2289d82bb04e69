// What could break: a value placed out of order, a second attempt at a point added beside the
// first instead of combined with it, or the worse of two attempts kept where the better is.
#include "model/series_points.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace benchwatch::model {
namespace {

const auto same = [](int point) { return static_cast<std::size_t>(point); };

TEST(PlaceValue, PutsAValueAmongTheOthersInOrder) {
    std::vector<int> points{1, 4, 7};
    std::vector<double> values{10, 40, 70};
    place_value(points, values, 5, 5, 50.0, Direction::SmallerIsBetter, same);
    place_value(points, values, 0, 0, 5.0, Direction::SmallerIsBetter, same);
    place_value(points, values, 9, 9, 90.0, Direction::SmallerIsBetter, same);
    EXPECT_EQ(points, (std::vector<int>{0, 1, 4, 5, 7, 9}));
    EXPECT_EQ(values, (std::vector<double>{5, 10, 40, 50, 70, 90}));
}

TEST(PlaceValue, KeepsTheBetterOfTwoAttemptsAtOnePoint) {
    std::vector<int> points{1, 4};
    std::vector<double> values{10, 40};
    place_value(points, values, 4, 4, 45.0, Direction::SmallerIsBetter, same);  // slower: not
    place_value(points, values, 1, 1, 8.0, Direction::SmallerIsBetter, same);   // faster: kept
    EXPECT_EQ(points, (std::vector<int>{1, 4}));
    EXPECT_EQ(values, (std::vector<double>{8, 40}));
    place_value(points, values, 4, 4, 50.0, Direction::BiggerIsBetter, same);  // more: kept
    place_value(points, values, 4, 4, 30.0, Direction::BiggerIsBetter, same);  // fewer: not
    EXPECT_EQ(values, (std::vector<double>{8, 50}));
}

TEST(PlaceValue, OrdersPointsByTheirPlaceNotTheirOwnOrder) {
    // Commits placed by their position in a history, not by name.
    const std::vector<std::string> order{"c", "a", "b"};
    const auto place_of = [&](const std::string& commit) {
        return static_cast<std::size_t>(std::find(order.begin(), order.end(), commit) -
                                        order.begin());
    };
    std::vector<std::string> points{"c", "b"};
    std::vector<double> values{1, 3};
    place_value(points, values, std::string("a"), 1, 2.0, Direction::SmallerIsBetter, place_of);
    EXPECT_EQ(points, (std::vector<std::string>{"c", "a", "b"}));
    EXPECT_EQ(values, (std::vector<double>{1, 2, 3}));
}

}  // namespace
}  // namespace benchwatch::model
