#pragma once

// The loop of known instruction count that the instrument's fixtures (spin_bench.cpp for Google
// Benchmark, catch2_bench.cpp for Catch2) benchmark.

#include <cstdint>

// Runs exactly 2n + 1 instructions on x86-64: the count loaded, then n decrements and n jumps
// while not zero. Elsewhere a loop of n turns, not counted by hand.
inline void spin(std::int64_t n) {
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
