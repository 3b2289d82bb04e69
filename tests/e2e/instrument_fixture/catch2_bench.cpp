// A Catch2 (v2) suite whose instruction counts are known by hand, for the instrument's
// end-to-end tests: "spin 1000" and "spin 2000" run a loop of two instructions (decrement, jump
// while not zero) n times per call, so 2n + 1 and the call's few say that only the benchmark's
// calls were counted, not Catch2's sizing of its samples or its clock.
#define CATCH_CONFIG_MAIN
#define CATCH_CONFIG_ENABLE_BENCHMARKING
#include <catch2/catch.hpp>

#include "spin.hpp"

TEST_CASE("spin") {
    BENCHMARK("spin 1000") {
        spin(1000);
    };
    BENCHMARK("spin 2000") {
        spin(2000);
    };
}
