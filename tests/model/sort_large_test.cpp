// What could break: results reported out of order, or lost or duplicated while sorting.
#include "model/sort_large.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace benchwatch::model {
namespace {

TEST(SortLarge, SortsAsStdSortWithEveryItemOnce) {
    std::vector<std::string> items;
    for (int i = 0; i < 500; ++i) items.push_back("b" + std::to_string((i * 7919) % 500));
    auto expected = items;
    std::sort(expected.begin(), expected.end());
    sort_large(items, std::less<>{});
    EXPECT_EQ(items, expected);
}

TEST(SortLarge, LeavesASortedVectorAndAnEmptyOneAsTheyAre) {
    std::vector<std::string> sorted{"a", "b", "c"};
    sort_large(sorted, std::less<>{});
    EXPECT_EQ(sorted, (std::vector<std::string>{"a", "b", "c"}));
    std::vector<std::string> none;
    sort_large(none, std::less<>{});
    EXPECT_TRUE(none.empty());
    std::vector<std::string> backwards{"c", "b", "a"};
    sort_large(backwards, std::greater<>{});
    EXPECT_EQ(backwards, (std::vector<std::string>{"c", "b", "a"}));
}

}  // namespace
}  // namespace benchwatch::model
