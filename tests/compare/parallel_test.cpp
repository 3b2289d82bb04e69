// What could break: an index done twice or never when the work is spread over threads, a
// failure in one call lost or thrown before the other calls finished, or no work at all.
#include "compare/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace benchwatch::compare::detail {
namespace {

TEST(ForEachIndex, CallsEveryIndexOnce) {
    for (const std::size_t count : {0UL, 1UL, 2UL, 3UL, 1000UL}) {
        std::vector<std::atomic<int>> calls(count);
        for_each_index(count, [&](std::size_t i) { ++calls[i]; });
        for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(calls[i].load(), 1) << i;
    }
}

TEST(ForEachIndex, RethrowsAFailureOnceEveryOtherCallHasRun) {
    std::atomic<int> done{0};
    EXPECT_THROW(for_each_index(100,
                                [&](std::size_t i) {
                                    if (i == 7) throw std::runtime_error("seventh");
                                    ++done;
                                }),
                 std::runtime_error);
    EXPECT_EQ(done.load(), 99);
}

}  // namespace
}  // namespace benchwatch::compare::detail
