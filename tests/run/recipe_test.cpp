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

}  // namespace
}  // namespace benchwatch::run
