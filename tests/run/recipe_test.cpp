// What could break: the "{benchmarks}" placeholder of a recipe running other benchmarks than the
// chosen ones (a name's '.' or '+' read as a pattern, a prefix matching a longer name), or a
// benchmark's name breaking out of its shell word into a command of its own.
#include "run/recipe.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace benchwatch::run {
namespace {

Recipe suite(std::string text) {
    Recipe recipe;
    recipe.suite = std::move(text);
    return recipe;
}

TEST(SuiteCommand, NamesTheChosenBenchmarksAsOneAnchoredPattern) {
    const std::vector<std::string> names{"BM_Sort/8", "BM_Parse"};
    EXPECT_EQ(suite_command(suite("bench --benchmark_filter={benchmarks}"), names),
              "bench --benchmark_filter='^(BM_Sort/8|BM_Parse)$'");
}

TEST(SuiteCommand, RunsEveryBenchmarkWhenNoneIsChosen) {
    EXPECT_EQ(suite_command(suite("go test -bench {benchmarks} ./..."), {}),
              "go test -bench '.' ./...");
}

TEST(SuiteCommand, ReplacesEveryPlaceholderAndLeavesARecipeWithoutOneAlone) {
    const std::vector<std::string> names{"a"};
    EXPECT_EQ(suite_command(suite("x {benchmarks} y {benchmarks}"), names), "x '^(a)$' y '^(a)$'");
    EXPECT_EQ(suite_command(suite("build/bench --benchmark_format=json"), names),
              "build/bench --benchmark_format=json");
}

TEST(SuiteCommand, EscapesWhatAPatternWouldReadAsOperators) {
    const std::vector<std::string> names{"json.parse(1+2)*[x]{3}|^$?\\"};
    EXPECT_EQ(suite_command(suite("{benchmarks}"), names),
              "'^(json\\.parse\\(1\\+2\\)\\*\\[x\\]\\{3\\}\\|\\^\\$\\?\\\\)$'");
}

TEST(SuiteCommand, ANameCannotLeaveItsShellWord) {
    const std::vector<std::string> names{"a'; rm -rf ~; echo '"};
    // The quote closes, an escaped quote stands for it, and the quote reopens: one word.
    EXPECT_EQ(suite_command(suite("bench {benchmarks}"), names),
              "bench '^(a'\\''; rm -rf ~; echo '\\'')$'");
}

TEST(SuiteCommand, NamesTheSubsetWhenNoBenchmarkIsChosen) {
    auto recipe = suite("bench --benchmark_filter={benchmarks}");
    recipe.subset = {"BM_Checksum*", "BM_Join/64", "BM_?.x"};
    EXPECT_EQ(suite_command(recipe, {}),
              "bench --benchmark_filter='^(BM_Checksum.*|BM_Join/64|BM_.\\.x)$'");
    // A narrower list, already within the subset, is named as it is.
    const std::vector<std::string> names{"BM_Checksum/8"};
    EXPECT_EQ(suite_command(recipe, names), "bench --benchmark_filter='^(BM_Checksum/8)$'");
}

TEST(DropOutsideSubset, KeepsTheSubsetsBenchmarksAndCountsTheOthers) {
    auto recipe = suite("bench");
    std::vector<model::Result> results(4);
    results[0].benchmark = "BM_Checksum/8";
    results[1].benchmark = "BM_Parse";
    results[2].benchmark = "BM_Parse";
    results[2].metric = "allocations";
    results[3].benchmark = "BM_Join/64";
    // No subset: every benchmark is kept.
    auto kept = results;
    EXPECT_EQ(drop_outside_subset(recipe, kept), 0u);
    EXPECT_EQ(kept, results);

    recipe.subset = {"BM_Checksum*", "BM_Join/64"};
    kept = results;
    // BM_Parse's two metrics are one benchmark.
    EXPECT_EQ(drop_outside_subset(recipe, kept), 1u);
    ASSERT_EQ(kept.size(), 2u);
    EXPECT_EQ(kept[0].benchmark, "BM_Checksum/8");
    EXPECT_EQ(kept[1].benchmark, "BM_Join/64");
    EXPECT_TRUE(in_subset(recipe, "BM_Checksum/8"));
    EXPECT_FALSE(in_subset(recipe, "BM_Parse"));
}

}  // namespace
}  // namespace benchwatch::run
