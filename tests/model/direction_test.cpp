// What could break: the one rule of a metric's direction (a change is worse when a time grows or
// a throughput shrinks) answering differently from what reports, confirm, standings and the
// keeping of the best repetition expect, or the catch-all category getting a second name.
#include <gtest/gtest.h>

#include "model/category.hpp"
#include "model/history_order.hpp"
#include "model/result.hpp"

namespace benchwatch::model {
namespace {

TEST(Worse, AGrowingTimeAndAShrinkingThroughputAreWorseAndNoChangeNeither) {
    EXPECT_TRUE(worse(Direction::SmallerIsBetter, 1.01));
    EXPECT_FALSE(worse(Direction::SmallerIsBetter, 0.99));
    EXPECT_FALSE(worse(Direction::SmallerIsBetter, 1.0));
    EXPECT_TRUE(worse(Direction::BiggerIsBetter, 0.99));
    EXPECT_FALSE(worse(Direction::BiggerIsBetter, 1.01));
    EXPECT_FALSE(worse(Direction::BiggerIsBetter, 1.0));
    static_assert(worse(Direction::SmallerIsBetter, 2.0), "usable in constant expressions");
}

TEST(CatchAllCategory, IsTheFirstDefaultCategoryAsTheSeedsNameIt) {
    EXPECT_EQ(catch_all_category(), (Category{"Performance", {}, 0.03}));
    EXPECT_EQ(default_categories().front(), catch_all_category());
    EXPECT_EQ(minimum_change_of("x", "time", {{"GPU", {"gpu/"}, 0.1}}), 0.03);
}

TEST(HistoryOrder, SpellingsReadBackAndNothingElseReads) {
    EXPECT_EQ(to_string(HistoryOrder::Git), "git");
    EXPECT_EQ(to_string(HistoryOrder::Recorded), "recorded");
    EXPECT_EQ(to_string(HistoryOrder::None), "none");
    for (const auto order : {HistoryOrder::None, HistoryOrder::Git, HistoryOrder::Recorded})
        EXPECT_EQ(parse_history_order(to_string(order)), order);
    EXPECT_EQ(parse_history_order("Git"), std::nullopt);
    EXPECT_EQ(parse_history_order(""), std::nullopt);
}

}  // namespace
}  // namespace benchwatch::model
