#include "model/benchmark_rules.hpp"

#include <gtest/gtest.h>

namespace benchwatch::model {
namespace {

TEST(GlobMatches, StarIsAnyRunOfCharactersAndQuestionMarkAnyOne) {
    EXPECT_TRUE(glob_matches("BM_Checksum*", "BM_Checksum/65536"));
    EXPECT_TRUE(glob_matches("BM_Checksum*", "BM_Checksum"));
    EXPECT_FALSE(glob_matches("BM_Checksum*", "BM_Check"));
    EXPECT_TRUE(glob_matches("BM_Join/64", "BM_Join/64"));
    EXPECT_FALSE(glob_matches("BM_Join/64", "BM_Join/640"));
    EXPECT_FALSE(glob_matches("BM_Join/64", "xBM_Join/64"));
    EXPECT_TRUE(glob_matches("*/64", "BM_Join/64"));
    EXPECT_TRUE(glob_matches("a*b*c", "a_b_b_c"));
    EXPECT_FALSE(glob_matches("a*b*c", "a_c_b"));
    EXPECT_TRUE(glob_matches("BM_?", "BM_x"));
    EXPECT_FALSE(glob_matches("BM_?", "BM_"));
    EXPECT_TRUE(glob_matches("*", ""));
    EXPECT_TRUE(glob_matches("a.b", "a.b"));
    EXPECT_FALSE(glob_matches("a.b", "axb")) << "'.' is itself, not any character";
}

BenchmarkRule rule(std::vector<std::string> patterns) {
    BenchmarkRule made;
    made.patterns = std::move(patterns);
    return made;
}

TEST(BenchmarkRules, AnyMatchingRuleThatIgnoresIgnores) {
    auto ignore = rule({"BM_Flaky*", "net/*"});
    ignore.ignore = true;
    auto minimum = rule({"*"});
    minimum.minimum_change = 0.1;
    const BenchmarkRules rules{ignore, minimum};
    EXPECT_TRUE(is_ignored("BM_Flaky/3", rules));
    EXPECT_TRUE(is_ignored("net/ping", rules));
    EXPECT_FALSE(is_ignored("BM_Sort", rules)) << "a rule that only sets a minimum ignores nothing";
    EXPECT_FALSE(is_ignored("BM_Flaky", {}));
}

TEST(BenchmarkRules, TheLastMatchingRuleThatSetsASettingWins) {
    auto wide = rule({"BM_*"});
    wide.minimum_change = 0.1;
    wide.budget_weight = 0.5;
    auto narrow = rule({"BM_Sort*"});
    narrow.minimum_change = 0.02;
    const BenchmarkRules rules{wide, narrow};
    EXPECT_DOUBLE_EQ(*rule_minimum_change("BM_Sort/8", "time", rules), 0.02);
    EXPECT_DOUBLE_EQ(*rule_minimum_change("BM_Join", "time", rules), 0.1);
    EXPECT_FALSE(rule_minimum_change("latency/x", "time", rules));
    // The narrow rule sets no weight, so the wide one's holds.
    EXPECT_DOUBLE_EQ(budget_weight_of("BM_Sort/8", rules), 0.5);
    EXPECT_DOUBLE_EQ(budget_weight_of("latency/x", rules), 1.0);
}

TEST(BenchmarkRules, CountedMetricsTakeTheCountedMinimumAndCategoriesFillTheRest) {
    auto counted = rule({"BM_*"});
    counted.counted_minimum_change = 0.01;
    const BenchmarkRules rules{counted};
    const auto categories = default_categories();
    EXPECT_DOUBLE_EQ(minimum_change_of("BM_a", "instructions", categories, rules), 0.01);
    // No rule sets a time minimum: the category's 3%.
    EXPECT_DOUBLE_EQ(minimum_change_of("BM_a", "time", categories, rules), 0.03);
    EXPECT_DOUBLE_EQ(minimum_change_of("latency/a", "time", categories, rules), 0.05);
}

}  // namespace
}  // namespace benchwatch::model
