// Benchmarks whose XML report tests/data/catch2/*.xml records: two test cases, one with its
// benchmarks inside a section.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <vector>

static unsigned fibonacci(unsigned n) {
    return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2);
}

TEST_CASE("Fibonacci") {
    BENCHMARK("fib 10") { return fibonacci(10); };
    BENCHMARK("fib 15") { return fibonacci(15); };
}

TEST_CASE("Vector") {
    SECTION("sorting") {
        std::vector<int> values(1000);
        std::iota(values.rbegin(), values.rend(), 0);
        BENCHMARK("sort 1000") {
            auto copy = values;
            std::sort(copy.begin(), copy.end());
            return copy.front();
        };
    }
}
