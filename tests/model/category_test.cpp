// What could break: a benchmark landing in the wrong category (and so judged against the wrong
// minimum), a prefix not removed from its displayed name, or rows sorted unlike the seeds.
#include "model/category.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace benchwatch::model {
namespace {

TEST(Category, DefaultsAreTheSeedsCategoriesInOrder) {
    const auto categories = default_categories();
    ASSERT_EQ(categories.size(), 4u);
    EXPECT_EQ(categories[0], (Category{"Performance", {}, 0.03}));
    EXPECT_EQ(categories[1], (Category{"Latency", {"latency/"}, 0.05}));
    EXPECT_EQ(categories[2], (Category{"Applications", {"integration/", "applications/"}, 0.03}));
    EXPECT_EQ(categories[3], (Category{"Other", {"other/"}, 0.03}));
}

TEST(Category, PrefixDecidesAndEverythingElseIsPerformance) {
    const auto categories = default_categories();
    EXPECT_EQ(categorize("latency/ttfp", categories), 1u);
    EXPECT_EQ(categorize("integration/byval/slices=1", categories), 2u);
    EXPECT_EQ(categorize("applications/volumerhs", categories), 2u);
    EXPECT_EQ(categorize("other/x", categories), 3u);
    EXPECT_EQ(categorize("array/copy", categories), 0u);
    // A prefix is a whole path part: "latencyx/" and "latency" alone are not latency benchmarks.
    EXPECT_EQ(categorize("latencyx/a", categories), 0u);
    EXPECT_EQ(categorize("latency", categories), 0u);
}

TEST(Category, CatchAllNeedNotComeFirstAndMayBeMissing) {
    const std::vector<Category> latency_first = {{"Latency", {"latency/"}, 0.05},
                                                 {"Rest", {}, 0.02}};
    EXPECT_EQ(categorize("latency/import", latency_first), 0u);
    EXPECT_EQ(categorize("array/copy", latency_first), 1u);
    const std::vector<Category> no_catch_all = {{"Latency", {"latency/"}, 0.05}};
    EXPECT_EQ(categorize("array/copy", no_catch_all), 1u) << "size() means: no category";
}

TEST(Category, MinimumChangeIsTheCategorysOrThreePercentWithoutOne) {
    const std::vector<Category> latency_first = {{"Latency", {"latency/"}, 0.05},
                                                 {"Rest", {}, 0.02}};
    EXPECT_EQ(minimum_change_of("latency/import", "time", latency_first), 0.05);
    EXPECT_EQ(minimum_change_of("array/copy", "time", latency_first), 0.02);
    const std::vector<Category> no_catch_all = {{"Latency", {"latency/"}, 0.05}};
    EXPECT_EQ(minimum_change_of("array/copy", "time", no_catch_all), 0.03);
    EXPECT_EQ(minimum_change_of("array/copy", "time", {}), 0.03);
}

TEST(Category, CountedMetricsHaveTheirOwnMinimum) {
    std::vector<Category> categories = {{"Latency", {"latency/"}, 0.05}, {"Rest", {}, 0.02}};
    categories[0].counted_minimum_change = 0.001;
    EXPECT_EQ(minimum_change_of("latency/import", "instructions", categories), 0.001);
    EXPECT_EQ(minimum_change_of("latency/import", "estimated_cycles", categories), 0.001);
    EXPECT_EQ(minimum_change_of("latency/import", "throughput", categories), 0.05);
    EXPECT_EQ(minimum_change_of("array/copy", "instructions", categories), 0.002);
    EXPECT_EQ(minimum_change_of("array/copy", "instructions", {}), 0.002);
    EXPECT_TRUE(is_counted_metric("instructions"));
    EXPECT_FALSE(is_counted_metric("time"));
}

TEST(Category, DisplayNameDropsOnlyTheMatchingPrefix) {
    const auto categories = default_categories();
    EXPECT_EQ(display_name("latency/ttfp", categories[1]), "ttfp");
    EXPECT_EQ(display_name("integration/byval/reference", categories[2]), "byval/reference");
    EXPECT_EQ(display_name("applications/gemm/tiled", categories[2]), "gemm/tiled");
    EXPECT_EQ(display_name("array/copy", categories[0]), "array/copy");
}

TEST(Category, RowsSortCaseInsensitivelyLikeTheSeeds) {
    // The AMDGPU.jl seed lists 1d, 1d_inplace, 1dL, 1dL_inplace: '_' (0x5F) sorts before 'l'
    // (0x6C) once case is folded, although 'L' (0x4C) is before '_' bytewise.
    std::vector<std::string> names = {"array/reverse/1dL_inplace", "array/reverse/1dL",
                                      "array/reverse/1d_inplace", "array/reverse/1d"};
    std::sort(names.begin(), names.end(), name_less);
    EXPECT_EQ(names, (std::vector<std::string>{"array/reverse/1d", "array/reverse/1d_inplace",
                                               "array/reverse/1dL", "array/reverse/1dL_inplace"}));
    // Equal but for case: ties are broken bytewise so that the order is total.
    EXPECT_TRUE(name_less("B", "b"));
    EXPECT_FALSE(name_less("b", "B"));
    EXPECT_FALSE(name_less("a", "a"));
    // "rand!" before "rand/" before "randn": '!' < '/' < 'n'.
    EXPECT_TRUE(name_less("rand!/Float32", "rand/Float32"));
    EXPECT_TRUE(name_less("rand/Int64", "randn!/Float32"));
}

TEST(Category, RowsSortAsTwoFoldedComparisonsAndABytewiseOneWould) {
    // The order defined the slow way: compared with case folded (as char), both ways, ties
    // bytewise; on prefixes, case-only differences and UTF-8 bytes (negative as char).
    const auto reference = [](std::string_view a, std::string_view b) {
        const auto folded_less = [](std::string_view x, std::string_view y) {
            return std::lexicographical_compare(
                x.begin(), x.end(), y.begin(), y.end(), [](char p, char q) {
                    return static_cast<char>(std::tolower(static_cast<unsigned char>(p))) <
                           static_cast<char>(std::tolower(static_cast<unsigned char>(q)));
                });
        };
        if (folded_less(a, b)) return true;
        if (folded_less(b, a)) return false;
        return a < b;
    };
    const std::vector<std::string> names = {
        "",           "a",          "A",     "ab",     "aB",          "Ab",
        "a_b",        "a/b",        "a!",    "Z",      "z",           "[",
        "_",          "é",          "É",     "e\xcc",  "bench/Ärger", "bench/ärger",
        "bench/zeta", "bench/Zeta", "bench", "bench/", "x\x80",       "x~"};
    for (const auto& a : names)
        for (const auto& b : names) EXPECT_EQ(name_less(a, b), reference(a, b)) << a << " " << b;
}

}  // namespace
}  // namespace benchwatch::model
