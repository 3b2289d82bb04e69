// A Catch2 (v2) suite whose instruction counts are known by hand, for the instrument's
// end-to-end tests: "spin 1000" and "spin 2000" run a loop of two instructions (decrement, jump
// while not zero) n times per call, so 2n + 1 and the call's few say that only the benchmark's
// calls were counted, not Catch2's sizing of its samples or its clock.
#define CATCH_CONFIG_MAIN
#define CATCH_CONFIG_ENABLE_BENCHMARKING
#include <catch2/catch.hpp>
#include <cstdint>

namespace {

// Runs exactly 2n + 1 instructions: the count loaded, then n decrements and n jumps.
void spin(std::int64_t n) {
#if defined(__x86_64__)
    asm volatile(
        "mov %0, %%rcx\n"
        "1:\n"
        "dec %%rcx\n"
        "jnz 1b\n"
        :
        : "r"(n)
        : "rcx", "cc");
#else
    for (volatile std::int64_t i = 0; i < n; i = i + 1) {
    }
#endif
}

}  // namespace

TEST_CASE("spin") {
    BENCHMARK("spin 1000") { spin(1000); };
    BENCHMARK("spin 2000") { spin(2000); };
}
